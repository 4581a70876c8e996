import Foundation
import HearthSim
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Issue 16, second review: rest is judged relative to |a|, so a unit factor
/// cannot move a noisy recording out of rest and past the check; a
/// recording never at rest is judged on its median |a| with a wide band.
@Suite("Gravity check: steadiness relative to |a|, and a file never at rest")
struct GravityNeverAtRestTests {
  static let g = 9.806_65

  func verdict(_ samples: [(Double, Double)]) -> GravityCheck.Verdict {
    var check = GravityCheck(kind: .totalAcceleration)
    for (t, z) in samples { check.add(seconds: t, x: 0, y: 0, z: z) }
    return check.verdict()
  }

  /// 10 s at 50 Hz of |a| alternating `mean` ± `swing` (standard deviation `swing`).
  func alternating(mean: Double, swing: Double) -> [(Double, Double)] {
    (0..<500).map { (Double($0) * 0.02, mean + ($0 % 2 == 0 ? swing : -swing)) }
  }

  func basis(_ verdict: GravityCheck.Verdict) -> GravityCheck.Basis? {
    switch verdict {
    case .plausible(_, let basis), .implausible(_, let basis): basis
    case .notChecked: nil
    }
  }

  func passes(_ verdict: GravityCheck.Verdict) -> Bool {
    if case .plausible = verdict { return true }
    return false
  }

  @Test(
    "a stretch is at rest up to a spread of 5 % of its mean |a|: 4.8 % is rest, 5.2 % is not, at any scale")
  func relativeSpread() {
    for scale in [1.0, Self.g, 1 / Self.g] {
      #expect(basis(verdict(alternating(mean: Self.g * scale, swing: 0.048 * Self.g * scale))) == .atRest)
      #expect(
        basis(verdict(alternating(mean: Self.g * scale, swing: 0.052 * Self.g * scale))) == .neverAtRest)
    }
  }

  @Test(
    "never at rest: the median |a| passes within 50 % of 9.81 m/s² (1.48 g, 0.52 g) and fails beyond (1.52 g, 0.48 g)"
  )
  func movingBand() {
    for factor in [1.48, 0.52, 1.0] {
      let v = verdict(alternating(mean: Self.g * factor, swing: 0.3 * Self.g * factor))
      #expect(passes(v) && basis(v) == .neverAtRest, "\(factor)")
    }
    for factor in [1.52, 0.48, Self.g, 1 / Self.g] {
      let v = verdict(alternating(mean: Self.g * factor, swing: 0.3 * Self.g * factor))
      #expect(!passes(v) && basis(v) == .neverAtRest, "\(factor)")
    }
    #expect(
      GravityCheck.describe(verdict(alternating(mean: 96, swing: 30)), kind: .totalAcceleration).contains(
        "never at rest"))
  }

  /// An iOS export whose AccelerometerUncalibrated.csv holds `perUnit` × the
  /// true m/s² values: a car at 1 g with 0.3 m/s² of road noise for 60 s,
  /// braking at 0.6 g for 1 s at 30 s.
  static func iOSUncalibrated(valuesIn perUnit: Double, seed: UInt64 = 16) -> TemporaryFolder {
    var generator = SeededGenerator(seed: seed)
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording epoch time,platform\n3,iPhone,1700000000000,ios\n")
    var text = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<6000 {
      let s = Double(i) / 100
      let noise = { (g: inout SeededGenerator) in g.nextDouble(in: -0.52, 0.52) }  // std 0.3 m/s²
      let braking = s >= 30 && s < 31 ? 0.6 * Self.g : 0
      let z = (-Self.g + noise(&generator)) * perUnit
      let y = (braking + noise(&generator)) * perUnit
      let x = noise(&generator) * perUnit
      text += "\(1_700_000_000_000_000_000 + Int64(i) * 10_000_000),\(s),\(z),\(y),\(x)\n"
    }
    folder.write("AccelerometerUncalibrated.csv", text)
    return folder
  }

  @Test(
    "regression 2026-12-02: the gravity check passed a file read ~9.8× too large when the phone is never still"
  )
  func noisyFileInTheWrongUnit() throws {
    // In m/s² where iOS writes g: read ×9.80665, its noise scaled with it.
    let wrongFolder = Self.iOSUncalibrated(valuesIn: 1)
    let (wrong, wrongReport) = try SensorLoggerReader.read(folder: wrongFolder.path)
    let file = try #require(wrongReport.file(endingWith: "AccelerometerUncalibrated.csv"))
    #expect(wrong.accelerometer == nil && file.rejectedByReason == [.unitProblem: 6000] && file.reconciles)
    #expect(file.skippedBecause?.contains("9.81 times too large") == true)
    // The same recording in g, as iOS writes it: kept, the stop 0.6 g.
    let rightFolder = Self.iOSUncalibrated(valuesIn: 1 / Self.g)
    let (right, rightReport) = try SensorLoggerReader.read(folder: rightFolder.path)
    #expect(rightReport.file(endingWith: "AccelerometerUncalibrated.csv")?.rowsKept == 6000)
    let a = try #require(right.accelerometer?.samples)
    let peak =
      a.x.indices.map { (a.x[$0] * a.x[$0] + a.y[$0] * a.y[$0] + a.z[$0] * a.z[$0]).squareRoot() }.max() ?? 0
    #expect(peak < 1.4 * Self.g, "the stop is about 1.17 g with gravity, never 6 g")
  }

  @Test("regression 2026-12-02: an unreadable standardisation value (\"1\", \"yes\") is unknown, not off")
  func unreadableStandardisation() throws {
    for value in ["1", "yes"] {
      let folder = Self.iOSUncalibrated(valuesIn: 1 / Self.g)
      folder.write(
        "Metadata.csv",
        "version,device name,recording epoch time,platform,standardisation\n3,iPhone,1700000000000,ios,\(value)\n"
      )
      folder.write("WatchBarometer.csv", "time,seconds_elapsed,pressure\n1700000000000000000,0,101.3\n")
      folder.write("Gravity.csv", "time,seconds_elapsed,z,y,x\n1700000000000000000,0,-9.81,0,0\n")
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      for name in ["AccelerometerUncalibrated.csv", "WatchBarometer.csv"] {
        let file = try #require(report.file(endingWith: name))
        #expect(file.skippedBecause?.contains("unit unknown") == true, "\(name) with \(value)")
        #expect(file.skippedBecause?.contains("“\(value)”") == true)
      }
      // Magnitudes do not depend on the setting: gravity is kept, its directions as recorded and said so.
      let gravity = try #require(report.file(endingWith: "Gravity.csv"))
      #expect(gravity.rowsKept == 1 && gravity.units?.contains("directions as recorded") == true)
      #expect(trace.gravity?.z == [-9.81])
    }
    // "false" is off: the uncalibrated accelerometer in g is read.
    let folder = Self.iOSUncalibrated(valuesIn: 1 / Self.g)
    folder.write(
      "Metadata.csv",
      "version,device name,recording epoch time,platform,standardisation\n3,iPhone,1700000000000,ios,false\n")
    #expect(
      try SensorLoggerReader.read(folder: folder.path).1.file(endingWith: "AccelerometerUncalibrated.csv")?
        .rowsKept == 6000)
  }
}
