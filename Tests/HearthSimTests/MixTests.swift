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
            && $0.driveIndex == drive.index && abs(drive.startSeconds + $0.driveSeconds - $0.atSeconds) < 1e-6
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
}
