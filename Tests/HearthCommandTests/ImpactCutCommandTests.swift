import Foundation
import Testing
import _HearthTestSupport

/// The built `hearth` on recordings whose stamps meet the detector's 250 ms
/// windows, in a separate process under a time and a memory limit: a cut
/// that stops advancing shows as a kill, not as a hung test run.
@Suite("hearth impact detect on whole-millisecond stamps on 250 ms edges")
struct ImpactCutCommandTests {
  /// A Sensor Logger export: `minutes` of 50 Hz total acceleration and 10 Hz
  /// gyroscope, `seconds_elapsed` in whole milliseconds from `firstMs`, one
  /// jolt with a spin in the middle.
  static func export(minutes: Int, firstMs: Int) -> TemporaryFolder {
    let folder = TemporaryFolder()
    let header = "time,seconds_elapsed,z,y,x\n"
    func row(_ ms: Int, _ values: String) -> String {
      let seconds = String(format: "%d.%03d", ms / 1000, ms % 1000)
      return "\(1_700_000_000_000_000_000 + Int64(ms) * 1_000_000),\(seconds),\(values)\n"
    }
    let samples = minutes * 60 * 50
    var acceleration = header
    var gyroscope = header
    for i in 0..<samples {
      let ms = firstMs + 20 * i
      acceleration += row(ms, i == samples / 2 ? "90,0,0" : "9.81,0,0")
      if i % 5 == 0 { gyroscope += row(ms, i / 5 == samples / 10 + 1 ? "0,0,6" : "0,0,0") }
    }
    folder.write("TotalAcceleration.csv", acceleration)
    folder.write("Gyroscope.csv", gyroscope)
    return folder
  }

  @Test(
    "regression 2026-12-04: a recording whose samples lie on 250 ms edges ends at once, in bounded memory")
  func millisecondEdges() throws {
    // From 0.005 s, (1.005 − 0.005) / 0.25 rounds below 4: the old cut
    // repeated an empty window there until memory ran out.
    for firstMs in [5, 1234, 999] {
      let folder = Self.export(minutes: 10, firstMs: firstMs)
      let run = try BuiltExecutable.run(
        "hearth", ["impact", "detect", folder.path, "--vehicle-gate", "on", "--format", "json"],
        timeLimitSeconds: 60, memoryLimitMegabytes: 2048)
      #expect(
        run.status == 0 || run.status == 1, "first sample at \(firstMs) ms: exit \(run.status): \(run.err)")
      // The jolt, judged: the sample at 5 min (its time as written).
      let jolt = firstMs + 20 * (10 * 60 * 50 / 2)
      #expect(
        run.out.contains(String(format: "\"joltTimeSeconds\":%d.%03d,", jolt / 1000, jolt % 1000)),
        "\(run.out.prefix(600))")
    }
  }
}
