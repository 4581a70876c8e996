import HearthGeo
import HearthImpact
import HearthLab
import HearthRuntime
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@Suite("The bridge from recordings to the detector")
struct ImpactFeedTests {
  /// A phone at rest with gravity along z: gravity-free acceleration at
  /// 50 Hz and the gravity estimate at 10 Hz, as Sensor Logger exports them.
  func restingPhoneWithSeparateGravity(seconds: Double) -> Trace {
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    var linear = VectorStream()
    var gravity = VectorStream()
    for i in 0..<Int(seconds * 50) { linear.append(seconds: Double(i) * 0.02, x: 0.01, y: 0, z: 0) }
    for i in 0..<Int(seconds * 10) {
      // Gravity tilts slowly from z towards y, so interpolation shows.
      let angle = Double(i) * 0.001
      gravity.append(
        seconds: Double(i) * 0.1 + 0.05, x: 0, y: 9.80665 * angle, z: 9.80665 * (1 - angle * angle / 2))
    }
    trace.accelerometer = AccelerationStream(samples: linear, content: .excludesGravity)
    trace.gravity = gravity
    return trace
  }

  @Test(
    "regression 2026-12-01: gravity with fewer samples than the accelerometer is combined by time, not refused"
  )
  func gravityByTime() throws {
    let trace = restingPhoneWithSeparateGravity(seconds: 10)
    #expect(trace.accelerometer!.samples.count == 500 && trace.gravity!.count == 100)
    let feed = try #require(ImpactFeed(trace: trace, gate: .on))
    #expect(feed.accelerometer.count == 500)
    // At t = 1.0 s gravity lies halfway between its samples at 0.95 and 1.05 s.
    let i = 50
    #expect(abs(feed.accelerometer.seconds[i] - 1.0) < 1e-12)
    let expectedY = 9.80665 * 0.009 + 9.80665 * 0.010
    #expect(abs(feed.accelerometer.y[i] - expectedY / 2) < 1e-9)
    #expect(abs(feed.accelerometer.x[i] - 0.01) < 1e-12)
    // No accelerometer at all, or gravity-free with no gravity: no feed.
    var bare = trace
    bare.gravity = nil
    #expect(ImpactFeed(trace: bare, gate: .on) == nil)
  }

  @Test("batches cover every sample once, in order, in windows of at most 250 ms; pauses cost no batches")
  func batching() throws {
    var trace = restingPhoneWithSeparateGravity(seconds: 4)
    // A second stretch five hours later.
    var later = trace.accelerometer!.samples
    var gravity = trace.gravity!
    for i in 0..<200 { later.append(seconds: 18_000 + Double(i) * 0.02, x: 0, y: 0, z: 0) }
    for i in 0..<40 { gravity.append(seconds: 18_000 + Double(i) * 0.1, x: 0, y: 0, z: 9.8) }
    trace.accelerometer = AccelerationStream(samples: later, content: .excludesGravity)
    trace.gravity = gravity
    var gyroscope = VectorStream()
    for i in 0..<40 { gyroscope.append(seconds: Double(i) * 0.1, x: 0, y: 0, z: 0.1) }
    trace.gyroscope = gyroscope
    let feed = try #require(ImpactFeed(trace: trace, gate: .on))
    let batches = Array(feed.batches())
    #expect(batches.count == 16 + 16)
    let times = batches.flatMap { $0.accelerometer.map(\.seconds) }
    #expect(times == feed.accelerometer.seconds)
    #expect(batches.flatMap { $0.gyroscope.map(\.seconds) } == gyroscope.seconds)
    for batch in batches {
      let t = batch.accelerometer.map(\.seconds) + batch.gyroscope.map(\.seconds)
      #expect(t.max()! - t.min()! < 0.25)
    }
    // Hours with data: 4 s + 4 s, the five-hour pause left out.
    #expect(abs(feed.statistics.hoursWithData * 3600 - (3.98 + 3.98)) < 1e-6)
  }

  @Test("replayed in phone-sized batches, a recording gets the verdicts of the phone's own batches")
  func streamingEqualsPhone() throws {
    for id in ["C1", "C3", "N9"] {
      let s = try #require(ScenarioCatalogue.scenario(id)).generate(seed: 3)
      let phone = ImpactEvaluation.verdicts(s)
      let feed = try #require(ImpactFeed(trace: s.trace, gate: .recording))
      #expect(feed.verdicts() == phone, "\(id)")
      #expect(feed.gate.source.hasPrefix("recording"))
    }
  }

  @Test(
    "the gate opens at automotive, closes at still/walking/running/cycling, unknown keeps it; off before automotive"
  )
  func gateTimeline() {
    let none = VehicleGateTimeline(policy: .recording, activities: [])
    #expect(none.isOn(at: -5) && none.isOn(at: 1e9) && none.source.contains("no activity stream"))
    let activities: [ActivitySample] = [
      .init(seconds: 5, activity: .unknown), .init(seconds: 10, activity: .walking),
      .init(seconds: 20, activity: .automotive), .init(seconds: 30, activity: .unknown),
      .init(seconds: 40, activity: .still), .init(seconds: 45, activity: .unknown),
      .init(seconds: 50, activity: .automotive), .init(seconds: 60, activity: .cycling),
      .init(seconds: 70, activity: .automotive), .init(seconds: 80, activity: .running),
    ]
    let gate = VehicleGateTimeline(policy: .recording, activities: activities)
    // Before the first automotive reading: off, whatever came before it.
    #expect(!gate.isOn(at: -5) && !gate.isOn(at: 5) && !gate.isOn(at: 19.999))
    // A switch holds from its own time on; unknown keeps the state (on at 30, off at 45).
    #expect(gate.isOn(at: 20) && gate.isOn(at: 35) && gate.isOn(at: 39.999))
    #expect(!gate.isOn(at: 40) && !gate.isOn(at: 49.999))
    #expect(gate.isOn(at: 50) && gate.isOn(at: 59.999) && !gate.isOn(at: 60) && !gate.isOn(at: 69.999))
    #expect(gate.isOn(at: 70) && gate.isOn(at: 79.999) && !gate.isOn(at: 80) && !gate.isOn(at: 1e9))
    #expect(gate.switches.map(\.seconds) == [20, 40, 50, 60, 70, 80])
    #expect(gate.source == "recording: off until its activity stream says automotive; 6 switches")
    // Only unknown: never on.
    let unknown = VehicleGateTimeline(policy: .recording, activities: [.init(seconds: 0, activity: .unknown)])
    #expect(!unknown.isOn(at: 0) && !unknown.isOn(at: 1e9) && unknown.switches.isEmpty)
    #expect(VehicleGateTimeline(policy: .on, activities: activities).isOn(at: 15))
    #expect(!VehicleGateTimeline(policy: .off, activities: []).isOn(at: 25))
  }

  @Test("property: the gate at any time equals a plain scan of the readings up to it")
  func gateAgainstModel() {
    /// SPEC §9 read literally: the newest reading at or before t that is not
    /// unknown decides; automotive is on; none (or only unknown): off; no
    /// stream at all: on.
    func model(_ readings: [ActivitySample], at t: Double) -> Bool {
      if readings.isEmpty { return true }
      let decided = readings.filter { $0.seconds <= t && $0.activity != .unknown }.last
      return decided?.activity == .automotive
    }
    var random = SeededGenerator(seed: PropertyCampaign.baseSeed)
    for n in 0..<PropertyCampaign.cases(default: 500) {
      var t = 0.0
      let readings: [ActivitySample] = (0..<Int(random.next() % 12)).map { _ in
        t += Double(random.next() % 4) * 2.5  // repeats at one time too
        return ActivitySample(seconds: t, activity: Activity(rawValue: UInt8(random.next() % 6)) ?? .unknown)
      }
      let gate = VehicleGateTimeline(policy: .recording, activities: readings)
      for probe in stride(from: -1.0, through: t + 1, by: 1.25)
      where gate.isOn(at: probe) != model(readings, at: probe) {
        Issue.record(
          "case \(n): at \(probe) s the gate is \(gate.isOn(at: probe)), readings \(readings.map { "\($0.seconds):\($0.activity)" })"
        )
        return
      }
    }
  }

  @Test("regression 2026-12-04: a recording whose classifier said only unknown before the jolt is not judged")
  func gateNeverInVehicle() throws {
    // A fairground ride's shape: the C1 crash, the classifier never saying
    // "in a vehicle" (unknown, then stationary, then walking).
    var trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 2).trace
    let reported = { (feed: ImpactFeed) in feed.verdicts().contains { $0.outcome == .possibleImpact } }
    let jolt = try #require(
      ImpactFeed(trace: trace, gate: .on)?.verdicts().first { $0.outcome == .possibleImpact }
    )
    .joltSeconds
    trace.activities = [
      .init(seconds: 0, activity: .unknown), .init(seconds: jolt + 2, activity: .still),
      .init(seconds: jolt + 20, activity: .walking),
    ]
    let feed = try #require(ImpactFeed(trace: trace, gate: .recording))
    #expect(try !reported(feed) && feed.gate.switches.isEmpty && !feed.gate.initiallyOn)
    #expect(try reported(#require(ImpactFeed(trace: trace, gate: .on))))
    // The classifier says automotive 1 s before the jolt: judged and reported;
    // 1 s after it: not.
    trace.activities = [
      .init(seconds: 0, activity: .unknown), .init(seconds: jolt - 1, activity: .automotive),
    ]
    #expect(try reported(#require(ImpactFeed(trace: trace, gate: .recording))))
    trace.activities = [
      .init(seconds: 0, activity: .unknown), .init(seconds: jolt + 1, activity: .automotive),
    ]
    #expect(try !reported(#require(ImpactFeed(trace: trace, gate: .recording))))
    // No activity stream: on, and said so.
    trace.activities = []
    let bare = try #require(ImpactFeed(trace: trace, gate: .recording))
    #expect(try reported(bare) && bare.gate.source == "on: the recording has no activity stream")
  }

  @Test(
    "regression 2026-12-01: a crash recorded while the phone's classifier said walking is not reported unless the gate is forced on"
  )
  func gateFromRecording() throws {
    var trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 2).trace
    let reported = { (feed: ImpactFeed) in feed.verdicts().contains { $0.outcome == .possibleImpact } }
    #expect(try reported(#require(ImpactFeed(trace: trace, gate: .recording))))
    trace.activities = [ActivitySample(seconds: 0, activity: .walking)]
    #expect(try !reported(#require(ImpactFeed(trace: trace, gate: .recording))))
    #expect(try reported(#require(ImpactFeed(trace: trace, gate: .on))))
    #expect(try !reported(#require(ImpactFeed(trace: trace, gate: .off))))
    // Walking until just before the crash, then the classifier says automotive.
    trace.activities = [.init(seconds: 0, activity: .walking), .init(seconds: 30, activity: .automotive)]
    #expect(try reported(#require(ImpactFeed(trace: trace, gate: .recording))))
  }
}
