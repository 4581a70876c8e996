import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthSim

@Suite("Drive mixes and real drops")
struct MixTests {
  @Test("a mix streams drive after drive up to the hours asked for, the same for the same seed")
  func streaming() {
    var mix = DriveMix(seed: 5, options: .init(hours: 20, eventsPerHour: 6))
    var again = DriveMix(seed: 5, options: .init(hours: 20, eventsPerHour: 6))
    var total = 0.0
    var events = 0
    var drives = 0
    while let drive = mix.next() {
      let twin = again.next()!
      #expect(drive.plan == twin.plan && drive.events == twin.events && drive.seed == twin.seed)
      #expect(abs(drive.startSeconds - total) < 1e-6)
      let end = drive.startSeconds + drive.plan.durationSeconds
      #expect(
        drive.events.allSatisfy {
          $0.atSeconds >= drive.startSeconds && $0.atSeconds < end && $0.expected == .silent
        })
      #expect(drive.plan.events.count == drive.events.count)
      total += drive.plan.durationSeconds
      events += drive.events.count
      drives += 1
    }
    #expect(again.next() == nil)
    #expect(abs(total - 20 * 3600) < 1e-6)
    #expect(drives > 40)
    // 6 per hour plus door slams at some lights: at least 100, not wildly more.
    #expect(events >= 100 && events < 250, "\(events)")
  }

  @Test("crashes injected into a mix carry their pulse; everyday events stay below it")
  func crashes() {
    var mix = DriveMix(seed: 9, options: .init(hours: 6, eventsPerHour: 4, crashesPerHour: 1))
    var crashes = 0
    while let drive = mix.next() {
      let crash = drive.events.filter { $0.expected == .report }
      guard !crash.isEmpty else { continue }
      crashes += 1
      #expect(crash.count == 1 && drive.events.last == crash.first)
      var simulator = drive.simulator()
      var trace = Trace(metadata: TraceMetadata(format: "hearth-sim"))
      var samples = VectorStream()
      while let batch = simulator.nextBatch() {
        for i in 0..<batch.accelerometer.count {
          samples.append(
            seconds: batch.accelerometer.seconds[i], x: batch.accelerometer.x[i], y: batch.accelerometer.y[i],
            z: batch.accelerometer.z[i])
        }
      }
      trace.accelerometer = AccelerationStream(samples: samples, content: .includesGravity)
      let probe = TraceProbe(trace: trace)
      let jolt = crash[0].atSeconds - drive.startSeconds
      #expect(probe.peakDynamic(jolt - 0.2, jolt + 0.2) >= 4 * probe.g, "drive \(drive.index)")
    }
    #expect(crashes >= 2)
  }

  @Test("a real phyphox drop, resampled to 50 Hz, keeps its free fall and its impact")
  func realDrop() throws {
    let folder = TestPaths.sharedDatasets.appendingPathComponent("phone-drop-freefall/raw_data/fall_1").path
    let motion = try RealPhoneDrop.load(phyphoxFolder: folder)
    #expect(motion.count == 101)
    #expect(motion.peakG > 8, "\(motion.peakG) g")
    let g = 9.806_65
    let magnitudes = (0..<motion.count).map { (i: Int) -> Double in
      let squared: Double = motion.x[i] * motion.x[i] + motion.y[i] * motion.y[i] + motion.z[i] * motion.z[i]
      return squared.squareRoot()
    }
    let fallSamples = magnitudes[..<motion.impactIndex].filter { $0 < 0.3 * g }.count
    #expect(fallSamples >= 10)
    // Injected into a drive, the recording is what the phone reads at the jolt.
    let scenario = RealPhoneDrop.scenario(motion).generate(seed: 2)
    let a = scenario.trace.accelerometer!.samples
    let k = a.seconds.firstIndex { abs($0 - ScenarioCatalogue.joltSeconds) < 0.005 }!
    #expect(abs(a.x[k] - motion.x[motion.impactIndex]) < 0.2)
    let probe = TraceProbe(trace: scenario.trace)
    #expect(probe.peakDynamic(39.8, 40.2) > 4 * g)
    #expect(probe.speeds(41, 60).allSatisfy { $0 > 12 })
    // Not a drop: a phone lying still (no free fall) is refused with a reason.
    let still = TemporaryFolder()
    var rows =
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n"
    for i in 0..<400 { rows += "\(Double(i) * 0.005),0.01,0.02,\(9.8 + (i == 200 ? 3 : 0))\n" }
    _ = still.write("Raw Data.csv", rows)
    #expect(throws: TraceError.self) { try RealPhoneDrop.load(phyphoxFolder: still.path) }
  }
}
