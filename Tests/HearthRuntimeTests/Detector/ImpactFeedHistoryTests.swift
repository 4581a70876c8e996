import Foundation
import HearthGeo
import HearthImpact
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthRuntime

/// specrev-impact F5: the other streams' samples long before the first
/// accelerometer sample (``ImpactFeed/historyBeforeAccelerometerSeconds``)
/// are left out of the feed, whole or streamed, so a recording whose
/// accelerometer starts late, or never, is not held in memory, and the
/// verdicts are the ones every sample gives.
@Suite("The feed leaves out what lies long before the first accelerometer sample")
struct ImpactFeedHistoryTests {
  /// Rows of a Sensor Logger vector file at `hertz` over [from, to) s.
  static func rows(from: Double, to: Double, hertz: Double, z: Double) -> String {
    var text = "time,seconds_elapsed,z,y,x\n"
    let count = Int(((to - from) * hertz).rounded())
    for i in 0..<count { text += "0,\(from + Double(i) / hertz),\(z),0.01,0\n" }
    return text
  }

  /// An hour of 50 Hz gyroscope and 5 Hz barometer from `start` s; an
  /// accelerometer (gravity included, 50 Hz) over its last
  /// `accelerometerSeconds` (none at 0).
  static func lateAccelerometer(_ accelerometerSeconds: Double, from start: Double = 0) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write("Gyroscope.csv", rows(from: start, to: start + 3_600, hertz: 50, z: 0.001))
    var barometer = "time,seconds_elapsed,relativeAltitude,pressure\n"
    for i in 0..<18_000 { barometer += "0,\(start + Double(i) * 0.2),0,1013.25\n" }
    folder.write("Barometer.csv", barometer)
    if accelerometerSeconds > 0 {
      let end = start + 3_600
      folder.write(
        "TotalAcceleration.csv", rows(from: end - accelerometerSeconds, to: end, hertz: 50, z: 9.85))
    }
    return folder
  }

  @Test(
    "regression 2026-12-07 (specrev-impact F5): an accelerometer an hour late, or none, no longer holds the other streams",
    arguments: [0.0, 60.0])
  func memoryWithALateAccelerometer(accelerometerSeconds: Double) throws {
    let folder = Self.lateAccelerometer(accelerometerSeconds)
    let (held, batches) = try ImpactStreamGravityTests.mostHeld(folder, samples: 1_000)
    // 121 s of the 55 Hz of gyroscope and barometer, and a chunk of each
    // stream (before: 195 000 samples, the whole hour).
    #expect(held <= 10_000, "held \(held) samples")
    guard accelerometerSeconds > 0 else {
      #expect(batches.isEmpty)
      return
    }
    let (trace, _) = try TraceImport.read(path: folder.path)
    let whole = try #require(ImpactFeed(trace: trace, gate: .off))
    #expect(batches == Array(whole.batches()))
    // What is handed out starts 121 s before the first accelerometer sample.
    let first = batches.flatMap(\.gyroscope).map(\.seconds).min()
    #expect(first == 3_600 - accelerometerSeconds - 121)
  }

  /// A trace with fixes at `times` s and 10 s of accelerometer from `origin` s.
  static func fixesBefore(origin: Double, times: [Double]) -> Trace {
    var trace = Trace(metadata: TraceMetadata(timeOriginMilliseconds: 0, format: "test"))
    var a = VectorStream()
    for i in 0..<500 { a.append(seconds: origin + Double(i) * 0.02, x: 0, y: 0, z: 9.81) }
    trace.accelerometer = AccelerationStream(samples: a, content: .includesGravity)
    trace.fixes = FixColumns(
      times.map { t in
        Fix(
          timeMilliseconds: Int64((t * 1000).rounded()), latitudeDegrees: 51, longitudeDegrees: 0,
          horizontalAccuracyMeters: 5, speedMetersPerSecond: 10)
      })
    return trace
  }

  @Test("a fix exactly 121 s before the first accelerometer sample is handed out; 1 ms earlier, not")
  func edgeOfTheHistory() throws {
    let trace = Self.fixesBefore(origin: 1_000, times: [500, 878.999, 879, 990])
    let feed = try #require(ImpactFeed(trace: trace, gate: .on))
    #expect(feed.fixes.map(\.seconds) == [879, 990])
    let handed = Array(feed.batches()).flatMap(\.fixes).map(\.seconds)
    #expect(handed == [879, 990])
  }

  /// The configuration whose windows reach furthest back: every window
  /// offset at −60 s, the current fix's age 60 s.
  static var furthestReach: ImpactConfiguration {
    var c = ImpactConfiguration()
    let reach = -ImpactConfiguration.longestLookBackSeconds
    c.currentFixAgeSeconds = -reach
    c.movingFromSeconds = reach
    c.spinFromSeconds = reach
    c.pressureBaselineFromSeconds = reach
    c.vibrationMovingFromSeconds = reach
    c.vibrationMovingAtJoltFromSeconds = reach
    return c
  }

  @Test("the reach is the configurations' own bound: 60 s validates, a millisecond more does not")
  func reachIsTheDomainsBound() {
    #expect(Self.furthestReach.problems.isEmpty, "\(Self.furthestReach.problems)")
    var age = Self.furthestReach
    age.currentFixAgeSeconds = 60.001
    #expect(age.problems.count == 1)
    var offset = Self.furthestReach
    offset.pressureBaselineFromSeconds = -60.001
    #expect(offset.problems.count == 1)
  }

  /// A catalogue crash whose accelerometer is cut to start `lead` s before
  /// its jolt, its other streams led in by 300 s more of changing values (a
  /// gyroscope at 50 Hz, a barometer at 5 Hz, fixes at 1 Hz); and the jolt.
  static func crashWithLateAccelerometer(lead: Double) throws -> (Trace, Double) {
    var trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 5).trace
    let jolt = try #require(ImpactFeed(trace: trace, gate: .on)?.verdicts().first).joltSeconds
    var a = try #require(trace.accelerometer)
    let keep = a.samples.seconds.indices.filter { a.samples.seconds[$0] >= jolt - lead }
    a.samples = VectorStream(
      seconds: keep.map { a.samples.seconds[$0] }, x: keep.map { a.samples.x[$0] },
      y: keep.map { a.samples.y[$0] }, z: keep.map { a.samples.z[$0] })
    trace.accelerometer = a
    let g = try #require(trace.gyroscope)
    var gyroscope = VectorStream()
    for i in 0..<15_000 {
      let t = g.seconds[0] - 300 + Double(i) * 0.02
      gyroscope.append(seconds: t, x: 0.2 + 0.01 * sin(t), y: 0.1, z: 0)
    }
    for i in 0..<g.count { gyroscope.append(seconds: g.seconds[i], x: g.x[i], y: g.y[i], z: g.z[i]) }
    trace.gyroscope = gyroscope
    let b = try #require(trace.barometer)
    let pressure = (0..<1_500).map { 1_000 + Double($0) / 100 }
    trace.barometer = PressureStream(
      seconds: (0..<1_500).map { b.seconds[0] - 300 + Double($0) * 0.2 } + b.seconds,
      hectopascals: pressure + b.hectopascals)
    let origin = trace.metadata.timeOriginMilliseconds ?? 0
    let first = trace.fixes.timeMilliseconds.first ?? origin
    var fixes = FixColumns(
      (0..<300).map { i in
        Fix(
          timeMilliseconds: first - Int64(300 - i) * 1000, latitudeDegrees: 51, longitudeDegrees: 0,
          horizontalAccuracyMeters: 5, speedMetersPerSecond: 10 + Double(i) / 10)
      })
    fixes.append(contentsOf: trace.fixes)
    trace.fixes = fixes
    return (trace, jolt)
  }

  /// `trace`'s feed with the other streams cut `history` s before the origin
  /// (every sample: `.infinity`), as the whole feed cuts them.
  static func feed(_ trace: Trace, history: Double, gate: VehicleGatePolicy = .on) throws -> ImpactFeed {
    let cut = try #require(ImpactFeed(trace: trace, gate: gate))
    let all = ImpactFeed(
      accelerometer: cut.accelerometer, gyroscope: try #require(trace.gyroscope),
      barometer: try #require(trace.barometer),
      fixes: trace.fixes.speedSamples(originMilliseconds: trace.metadata.timeOriginMilliseconds ?? 0),
      gate: cut.gate, batchSeconds: cut.batchSeconds, origin: cut.originSeconds)
    let kept = cut.originSeconds - history
    return ImpactFeed(
      accelerometer: all.accelerometer, gyroscope: all.gyroscope.dropping(before: kept),
      barometer: all.barometer.dropping(before: kept), fixes: all.fixes.dropping(before: kept),
      gate: all.gate, batchSeconds: all.batchSeconds, origin: all.originSeconds)
  }

  @Test("a crash read 60 s back from a late accelerometer: the same verdicts as with every sample")
  func verdictsAsWithEverySample() throws {
    let (trace, jolt) = try Self.crashWithLateAccelerometer(lead: 1)
    let c = Self.furthestReach
    // The scenario has fixes, gyroscope and barometer well before the cut.
    let start = try #require(trace.gyroscope?.seconds.first)
    let origin = try #require(trace.accelerometer?.samples.seconds.first)
    #expect(start < origin - ImpactFeed.historyBeforeAccelerometerSeconds, "gyroscope from \(start) s")
    let everything = try Self.feed(trace, history: .infinity).verdicts(configuration: c)
    let cut = try #require(ImpactFeed(trace: trace, gate: .on))
    let gyroscope = try #require(trace.gyroscope)
    #expect(cut.fixes.count < trace.fixes.count && cut.gyroscope.count < gyroscope.count)
    let verdicts = cut.verdicts(configuration: c)
    #expect(!verdicts.isEmpty && verdicts.first?.joltSeconds == jolt)
    #expect(verdicts == everything)
    // The test reads that far: with 50 s of history kept, the windows lose samples.
    #expect(try Self.feed(trace, history: 50).verdicts(configuration: c) != everything)
  }

  @Test(
    "streamed: a gravity-free accelerometer 10 min late, its gravity 100 s later still: the whole feed's batches"
  )
  func lateAccelerometerWaitingForGravity() throws {
    let folder = TemporaryFolder()
    folder.write("Gyroscope.csv", Self.rows(from: 0, to: 1_000, hertz: 50, z: 0.001))
    folder.write("Accelerometer.csv", Self.rows(from: 600, to: 1_000, hertz: 50, z: 0.05))
    folder.write("Gravity.csv", Self.rows(from: 700, to: 1_000, hertz: 50, z: 9.80665))
    let (trace, _) = try TraceImport.read(path: folder.path)
    let whole = Array(try #require(ImpactFeed(trace: trace, gate: .off)).batches())
    let earliest = whole.flatMap(\.gyroscope).map(\.seconds).min() ?? .nan
    #expect(earliest == 479)
    for samples in [17, 1_000] {
      let (held, batches) = try ImpactStreamGravityTests.mostHeld(folder, samples: samples)
      #expect(batches == whole, "chunks of \(samples): \(batches.count) vs \(whole.count) batches")
      // The samples waiting for gravity (100 s) and the history before them.
      #expect(held <= 20_000, "held \(held) samples")
    }
  }

  @Test(
    "what waiting jolts read: none fresh; incident − 60 s to jolt + deadline + late data; none once decided")
  func pendingRead() throws {
    #expect(ImpactDetector().pendingReadSeconds == nil)
    let (trace, jolt) = try Self.crashWithLateAccelerometer(lead: 1)
    var detector = ImpactDetector()
    var batches = try #require(ImpactFeed(trace: trace, gate: .on)).batches()
    while let batch = batches.next() {
      _ = detector.process(batch)
      if batch.accelerometer.last.map({ $0.seconds >= jolt }) == true { break }
    }
    let e = ImpactConfiguration.timeToleranceSeconds
    #expect(detector.pendingReadSeconds == (jolt - 60 - e)...(jolt + 10 + 2 + e))
    while let batch = batches.next() { _ = detector.process(batch) }
    _ = detector.finish()
    #expect(detector.pendingReadSeconds == nil)
  }

  @Test("a session fed again after a jolt, decided or waiting, still leaves out the history it will not read")
  func memoryOfAReusedSession() throws {
    let (full, jolt) = try Self.crashWithLateAccelerometer(lead: 30)
    for waiting in [false, true] {
      var detector = ImpactDetector()
      for batch in try #require(ImpactFeed(trace: full, gate: .on)).batches() {
        if waiting && batch.accelerometer.contains(where: { $0.seconds > jolt + 0.3 }) { break }
        _ = detector.process(batch)
      }
      if !waiting { _ = detector.finish() }
      #expect((detector.pendingReadSeconds != nil) == waiting)
      // An hour more of gyroscope and barometer from 1 000 s after the jolt,
      // the accelerometer in its last minute.
      let folder = Self.lateAccelerometer(60, from: jolt + 1_000)
      var stream = ImpactStream(gate: .off, keeping: detector.pendingReadSeconds)
      var most = 0
      _ = try TraceImport.stream(path: folder.path).forEachChunk(samples: 1_000) { chunk in
        _ = stream.add(chunk)
        most = max(most, stream.heldSampleCount)
      }
      #expect(most <= 10_000, "waiting \(waiting): held \(most) samples")
    }
  }

  /// Found by review43: a second recording fed to a session whose detector
  /// still judged the first one's jolt lost the fixes after that jolt when
  /// its own accelerometer started 200 s later, and a crash went silent.
  @Test("regression 2026-12-07: a second recording keeps what a jolt of the first still reads")
  func secondRecordingKeepsWhatAPendingJoltReads() throws {
    let (full, jolt) = try Self.crashWithLateAccelerometer(lead: 30)
    let split = jolt + 0.3
    func part(_ keep: (Double) -> Bool, accelerometer: VectorStream?) -> Trace {
      var t = Trace(metadata: full.metadata)
      if let accelerometer {
        t.accelerometer = AccelerationStream(samples: accelerometer, content: .includesGravity)
      }
      let g = full.gyroscope ?? VectorStream()
      var gyroscope = VectorStream()
      for i in 0..<g.count where keep(g.seconds[i]) {
        gyroscope.append(seconds: g.seconds[i], x: g.x[i], y: g.y[i], z: g.z[i])
      }
      t.gyroscope = gyroscope
      let b = full.barometer ?? PressureStream()
      let kept = b.seconds.indices.filter { keep(b.seconds[$0]) }
      t.barometer = PressureStream(
        seconds: kept.map { b.seconds[$0] }, hectopascals: kept.map { b.hectopascals[$0] })
      let origin = full.metadata.timeOriginMilliseconds ?? 0
      t.fixes = FixColumns(
        (0..<full.fixes.count).map { full.fixes[$0] }.filter {
          keep(Double($0.timeMilliseconds - origin) / 1000)
        })
      return t
    }
    let a = try #require(full.accelerometer).samples
    var before = VectorStream()
    for i in 0..<a.count where a.seconds[i] < split {
      before.append(seconds: a.seconds[i], x: a.x[i], y: a.y[i], z: a.z[i])
    }
    var later = VectorStream()
    for i in 0..<500 { later.append(seconds: jolt + 200 + Double(i) * 0.02, x: 0, y: 0, z: 9.81) }
    let folder = TemporaryFolder()
    try TraceFolder.write(part({ $0 < split }, accelerometer: before), to: folder.path("a"))
    try TraceFolder.write(part({ $0 >= split }, accelerometer: later), to: folder.path("b"))
    var session = ImpactSession()
    try session.feed(TraceImport.stream(path: folder.path("a")), name: "a", gate: .on)
    try session.feed(TraceImport.stream(path: folder.path("b")), name: "b", gate: .on)
    session.finish()
    let verdict = try #require(session.verdicts.first)
    #expect(verdict.joltSeconds == jolt)
    #expect(verdict.outcome == .possibleImpact, "\(verdict)")
    #expect(verdict.measurement?.stopSource == .gps && verdict.measurement?.stopped == true)
  }
}
