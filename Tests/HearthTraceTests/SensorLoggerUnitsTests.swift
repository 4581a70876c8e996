import Foundation
import HearthSim
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Sensor Logger exports made from the app's own unit and coordinate
/// references (UNITS.md, COORDINATES.md, CROSSPLATFORM.md), not from the
/// reader: each file is written the way the app writes it on that platform,
/// and the trace must come out in m/s², hPa and Android's axes.
///
/// The physical situation throughout: a phone lying flat, screen up, in a
/// car braking at 0.6 g at a light (the deceleration along the phone's −y).
/// On Android the accelerating force reads (0, −0.6 g, 0) and gravity +z; on
/// iOS with the setting off both are negated.
@Suite("Sensor Logger units per platform, file and setting")
struct SensorLoggerUnitsTests {
  static let g = 9.806_65
  static let braking = 0.6 * 9.806_65

  /// A Sensor Logger export. `standardisation` nil leaves the column out
  /// (exports older than the setting); `platform` nil leaves Metadata.csv out.
  func export(platform: String?, standardisation: Bool?, _ files: [String: String]) -> TemporaryFolder {
    let folder = TemporaryFolder()
    if let platform {
      var header =
        "version,device name,recording epoch time,recording time,recording timezone,platform,appVersion"
      var row = "3,Test Phone,1700000000000,2023-11-14_22-13-20,UTC,\(platform),1.40.1"
      if let standardisation {
        header += ",standardisation"
        row += ",\(standardisation)"
      }
      folder.write("Metadata.csv", header + "\n" + row + "\n")
    }
    for (name, text) in files { folder.write(name, text) }
    return folder
  }

  /// Rows `time,seconds_elapsed,z,y,x` at 50 Hz for 2 s, all the same value.
  func vectorRows(x: Double, y: Double, z: Double) -> String {
    var text = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<100 {
      text += "\(1_700_000_000_000_000_000 + Int64(i) * 20_000_000),\(Double(i) * 0.02),\(z),\(y),\(x)\n"
    }
    return text
  }

  func pressureRows(_ pressure: Double, watch: Bool = false) -> String {
    var text = watch ? "time,seconds_elapsed,pressure\n" : "time,seconds_elapsed,relativeAltitude,pressure\n"
    for i in 0..<10 {
      let time = 1_700_000_000_000_000_000 + Int64(i) * 200_000_000
      text +=
        watch ? "\(time),\(Double(i) * 0.2),\(pressure)\n" : "\(time),\(Double(i) * 0.2),0.1,\(pressure)\n"
    }
    return text
  }

  func total(_ trace: Trace) throws -> (x: Double, y: Double, z: Double, magnitude: Double) {
    let a = try #require(trace.accelerationIncludingGravity())
    let i = a.count / 2
    let m = (a.x[i] * a.x[i] + a.y[i] * a.y[i] + a.z[i] * a.z[i]).squareRoot()
    return (a.x[i], a.y[i], a.z[i], m)
  }

  @Test(
    "regression 2026-12-02: iOS calibrated acceleration and gravity are m/s², not g — a stop at a light is 1.17 g, not a 6 g jolt"
  )
  func iosCalibratedIsMetresPerSecondSquared() throws {
    for standardisation in [false, nil] as [Bool?] {
      let folder = export(
        platform: "ios", standardisation: standardisation,
        [
          "Accelerometer.csv": vectorRows(x: 0, y: Self.braking, z: 0),  // iOS: negated
          "Gravity.csv": vectorRows(x: 0, y: 0, z: -Self.g),  // iOS: −z flat on a table
        ])
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      #expect(report.reconciles && trace.metadata.platform == .iOS)
      #expect(trace.accelerometer?.content == .excludesGravity)
      let a = try total(trace)
      #expect(abs(a.y + Self.braking) < 1e-12 && abs(a.z - Self.g) < 1e-12, "Android's axes: \(a)")
      #expect(abs(a.magnitude / Self.g - 1.166) < 0.001, "1.17 g, not \(a.magnitude / Self.g) g")
      let units = try #require(report.file(endingWith: "Accelerometer.csv")?.units)
      #expect(units.contains("m/s²") && units.contains("negated"))
      #expect(report.file(endingWith: "Gravity.csv")?.units?.contains("gravity check passed") == true)
    }
  }

  @Test("iOS with “Standardise Units & Frames” on is already in Android's axes: nothing is negated")
  func iosStandardised() throws {
    let folder = export(
      platform: "ios", standardisation: true,
      [
        "Accelerometer.csv": vectorRows(x: 0, y: -Self.braking, z: 0),
        "Gravity.csv": vectorRows(x: 0, y: 0, z: Self.g),
        "AccelerometerUncalibrated.csv": vectorRows(x: 0, y: -Self.braking, z: Self.g),
      ])
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    let a = try total(trace)
    #expect(abs(a.y + Self.braking) < 1e-12 && abs(a.z - Self.g) < 1e-12)
    #expect(
      report.file(endingWith: "Accelerometer.csv")?.units?.contains("already in the Android convention")
        == true)
    // With Gravity.csv the calibrated file is used; the uncalibrated one is not read.
    #expect(report.file(endingWith: "AccelerometerUncalibrated.csv") == nil)
  }

  @Test("Android: TotalAcceleration, Accelerometer and Gravity in m/s², kept as they are")
  func android() throws {
    let folder = export(
      platform: "android", standardisation: false,
      [
        // Waiting at the light: at rest, the total is gravity alone.
        "TotalAcceleration.csv": vectorRows(x: 0, y: 0, z: Self.g),
        "Accelerometer.csv": vectorRows(x: 0, y: -Self.braking, z: 0),
        "Gravity.csv": vectorRows(x: 0, y: 0, z: Self.g),
        "Barometer.csv": pressureRows(1013.25),
      ])
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.accelerometer?.content == .includesGravity)
    let a = try total(trace)
    #expect(a.y == 0 && a.z == Self.g)
    #expect(trace.gravity?.z.first == Self.g)
    #expect(trace.barometer?.hectopascals.first == 1013.25)
    #expect(report.file(endingWith: "TotalAcceleration.csv")?.units?.contains("median |a| at rest") == true)
  }

  @Test("the phone's barometer is mbar = hPa on both platforms: 1013.2 stays 1013.2 (not 10 132)")
  func phoneBarometer() throws {
    for platform in ["ios", "android"] {
      let folder = export(platform: platform, standardisation: false, ["Barometer.csv": pressureRows(1013.2)])
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      #expect(trace.barometer?.hectopascals.allSatisfy { $0 == 1013.2 } == true, "\(platform)")
      #expect(report.file(endingWith: "Barometer.csv")?.units == "pressure in mbar = hPa (both platforms)")
    }
  }

  @Test(
    "uncalibrated iOS acceleration is g with the setting off (× 9.80665, negated), m/s² with it on; Android m/s²"
  )
  func uncalibrated() throws {
    // At rest flat: iOS's raw accelerometer reads z = −1 g, Android's +9.81 m/s².
    let cases: [(String, Bool?, Double)] = [
      ("ios", false, -1), ("ios", nil, -1), ("ios", true, Self.g), ("android", false, Self.g),
      ("android", nil, Self.g),
    ]
    for (platform, standardisation, z) in cases {
      let folder = export(
        platform: platform, standardisation: standardisation,
        ["AccelerometerUncalibrated.csv": vectorRows(x: 0, y: 0, z: z)])
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      let accelerometer = try #require(
        trace.accelerometer, "\(platform) \(String(describing: standardisation))")
      #expect(accelerometer.content == .includesGravity)
      #expect(
        abs(accelerometer.samples.z[0] - Self.g) < 1e-12, "\(platform) \(String(describing: standardisation))"
      )
      #expect(
        report.file(endingWith: "AccelerometerUncalibrated.csv")?.units?.contains("gravity check passed")
          == true)
    }
  }

  @Test("where a file's unit cannot be known it is skipped and says so, and the rest still loads")
  func unknownUnits() throws {
    // No Metadata.csv: the uncalibrated accelerometer could be g or m/s², the
    // watch barometer kPa or mbar; calibrated files are m/s² either way.
    let folder = export(
      platform: nil, standardisation: nil,
      [
        "AccelerometerUncalibrated.csv": vectorRows(x: 0, y: 0, z: -1),
        "WatchBarometer.csv": pressureRows(101.3, watch: true),
        "Gravity.csv": vectorRows(x: 0, y: 0, z: -Self.g),
      ])
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.accelerometer == nil && trace.scalars["watchPressure"] == nil)
    let uncalibrated = try #require(report.file(endingWith: "AccelerometerUncalibrated.csv")?.skippedBecause)
    #expect(uncalibrated.contains("unit unknown") && uncalibrated.contains("does not say the platform"))
    #expect(
      report.file(endingWith: "WatchBarometer.csv")?.skippedBecause?.contains("no Metadata.csv") == true)
    #expect(trace.gravity?.z.first == -Self.g, "kept as recorded")
    #expect(report.file(endingWith: "Gravity.csv")?.units?.contains("directions as recorded") == true)
    #expect(throws: TraceError.self) {
      try SensorLoggerReader.read(folder: folder.path, options: ReadOptions(strict: true))
    }
  }

  @Test(
    "the watch barometer is kPa with the setting off or absent, mbar with it on (iOS); unknown on Android with it on"
  )
  func watchBarometer() throws {
    let cases: [(String, Bool?, Double, Double?)] = [
      ("ios", false, 101.325, 1013.25), ("ios", nil, 101.325, 1013.25), ("ios", true, 1013.25, 1013.25),
      ("android", false, 101.325, 1013.25), ("android", true, 1013.25, nil),
    ]
    for (platform, standardisation, written, expected) in cases {
      let folder = export(
        platform: platform, standardisation: standardisation,
        ["WatchBarometer.csv": pressureRows(written, watch: true), "Barometer.csv": pressureRows(1000)])
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      let label = "\(platform) \(String(describing: standardisation))"
      #expect(trace.barometer?.hectopascals.first == 1000, "the phone's own barometer: \(label)")
      if let expected {
        let watch = try #require(trace.scalars["watchPressure"], "\(label)")
        #expect(watch.unit == "hPa" && watch.values.allSatisfy { abs($0 - expected) < 1e-9 }, "\(label)")
      } else {
        #expect(trace.scalars["watchPressure"] == nil, "\(label)")
        #expect(
          report.file(endingWith: "WatchBarometer.csv")?.skippedBecause?.contains("unit unknown") == true)
      }
    }
  }

  @Test("gravity in the wrong unit is rejected as a unit problem (96 or 1 m/s²), unless the caller overrides")
  func gravityUnitProblem() throws {
    for (written, hint) in [(Self.g * Self.g, "9.81 times too large"), (1.0, "9.81 times too small")] {
      let folder = export(
        platform: "android", standardisation: false,
        [
          "Gravity.csv": vectorRows(x: 0, y: 0, z: written),
          "Accelerometer.csv": vectorRows(x: 0, y: 0, z: 0),
        ])
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      #expect(trace.gravity == nil, "\(written)")
      let file = try #require(report.file(endingWith: "Gravity.csv"))
      #expect(file.rejectedByReason == [.unitProblem: 100] && file.reconciles && file.rowsKept == 0)
      #expect(
        file.skippedBecause?.contains("unit problem") == true && file.skippedBecause?.contains(hint) == true)
      #expect(throws: TraceError.self) {
        try SensorLoggerReader.read(folder: folder.path, options: ReadOptions(strict: true))
      }
      let (kept, keptReport) = try SensorLoggerReader.read(
        folder: folder.path, options: ReadOptions(acceptImplausibleGravity: true))
      #expect(kept.gravity?.count == 100)
      #expect(keptReport.file(endingWith: "Gravity.csv")?.units?.contains("unit problem") == true)
    }
  }
}

@Suite("Gravity plausibility check")
struct GravityCheckTests {
  static let g = 9.806_65

  func verdict(_ kind: GravityCheck.Kind, _ samples: [(Double, Double)]) -> GravityCheck.Verdict {
    var check = GravityCheck(kind: kind)
    for (t, z) in samples { check.add(seconds: t, x: 0, y: 0, z: z) }
    return check.verdict()
  }

  func passes(_ verdict: GravityCheck.Verdict) -> Bool {
    if case .plausible = verdict { return true }
    return false
  }

  @Test("5 % either side of 9.80665 m/s²: 4.8 % passes, 5.2 % fails, above and below")
  func tolerance() {
    for factor in [1.048, 0.952, 1.0] {
      #expect(passes(verdict(.gravityEstimate, [(0, Self.g * factor)])), "\(factor)")
    }
    for factor in [1.052, 0.948, 9.806_65, 1 / 9.806_65] {
      #expect(!passes(verdict(.gravityEstimate, [(0, Self.g * factor)])), "\(factor)")
    }
  }

  @Test("an accelerometer at rest is allowed 15 % (real offsets reach 6 %): 14 % passes, 16 % fails")
  func totalTolerance() {
    func atRest(_ factor: Double) -> [(Double, Double)] {
      (0..<100).map { (Double($0) * 0.02, Self.g * factor) }
    }
    for factor in [1.14, 0.86, 0.944] {
      #expect(passes(verdict(.totalAcceleration, atRest(factor))), "\(factor)")
    }
    for factor in [1.16, 0.84, 1 / 9.806_65, 9.806_65] {
      #expect(!passes(verdict(.totalAcceleration, atRest(factor))), "\(factor)")
    }
  }

  @Test("the median decides: a minority of wild samples does not fail a stream, a majority does")
  func median() {
    let mostlyRight = (0..<101).map { (Double($0), $0 < 50 ? 96.0 : Self.g) }
    #expect(passes(verdict(.gravityEstimate, mostlyRight)))
    let mostlyWrong = (0..<101).map { (Double($0), $0 <= 50 ? 96.0 : Self.g) }
    #expect(!passes(verdict(.gravityEstimate, mostlyWrong)))
  }

  @Test(
    "total acceleration is judged at rest when it ever is; a stream never at rest is judged on every stretch")
  func rest() {
    // 2 s at rest at 1 g (in g units: 1.0), then 3 s of shaking.
    var samples: [(Double, Double)] = (0..<100).map { (Double($0) * 0.02, 1.0) }
    samples += (100..<250).map { (Double($0) * 0.02, $0 % 2 == 0 ? 30.0 : -10.0) }
    #expect(!passes(verdict(.totalAcceleration, samples)))
    samples = (0..<100).map { (Double($0) * 0.02, Self.g + ($0 % 2 == 0 ? 0.3 : -0.3)) }
    #expect(passes(verdict(.totalAcceleration, samples)), "0.3 m/s² of vibration is rest")
    let shaking = (0..<100).map { (Double($0) * 0.02, $0 % 2 == 0 ? 20.0 : 0.0) }
    guard case .plausible(_, .neverAtRest) = verdict(.totalAcceleration, shaking) else {
      Issue.record("mean |a| 10 m/s², never at rest: judged on every stretch and passed")
      return
    }
    guard case .notChecked(let why) = verdict(.totalAcceleration, [(0, 9.8), (0.5, 9.8)]) else {
      Issue.record("two samples are no stretch: not checked")
      return
    }
    #expect(why.contains("no stretch"))
    guard case .notChecked = verdict(.gravityEstimate, []) else {
      Issue.record("an empty stream cannot be checked")
      return
    }
  }
}
