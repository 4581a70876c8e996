import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// SPEC §9: when a recording carries a monotonic clock beside the wall
/// clock, every stream of it is placed on the monotonic one; a step of the
/// wall clock against it is reported (issue 28, item 9).
@Suite("Two clocks: every stream on the monotonic clock, wall-clock steps reported")
struct TwoClocksTests {
  static let origin: Int64 = 1_700_000_000_000
  static let joltSeconds = 10.0

  /// 20 s of a car that crashes at 10 s: a 50 Hz accelerometer at rest but
  /// for a 6 g jolt over 10.00–10.06 s, a 10 Hz gyroscope, and a fix every
  /// second at k + 0.5 s, 15 m/s before the jolt and stopped after it.
  static func crash() -> Trace {
    var trace = Trace(
      metadata: TraceMetadata(platform: .android, timeOriginMilliseconds: origin, format: "test"))
    var acceleration = VectorStream()
    for i in 0..<1000 {
      let t = Double(i) / 50
      let jolt = t >= joltSeconds && t < joltSeconds + 0.06
      acceleration.append(seconds: t, x: jolt ? 6 * 9.80665 : 0.1, y: 0.2, z: 9.8)
    }
    trace.accelerometer = AccelerationStream(samples: acceleration, content: .includesGravity)
    var gyroscope = VectorStream()
    for i in 0..<200 { gyroscope.append(seconds: Double(i) / 10, x: 0.01, y: 0, z: i == 100 ? 5 : 0) }
    trace.gyroscope = gyroscope
    for k in 0..<20 {
      let seconds = Double(k) + 0.5
      trace.fixes.append(
        Fix(
          timeMilliseconds: origin + Int64(seconds * 1000), latitudeDegrees: 48 + Double(k) * 1e-4,
          longitudeDegrees: 2, horizontalAccuracyMeters: 5,
          speedMetersPerSecond: seconds < joltSeconds ? 15 : 0))
    }
    return trace
  }

  static func export(_ trace: Trace, steps: [WallClock.Step], metadata: Bool = true) throws -> TemporaryFolder
  {
    let folder = TemporaryFolder()
    try SensorLoggerExport.write(
      trace, to: folder.path, wallClock: WallClock(startMilliseconds: origin, steps: steps),
      metadata: metadata)
    return folder
  }

  @Test(
    "a wall clock stepping +3 s or −3 s before the jolt: every fix stays where it was against the jolt",
    arguments: [3.0, -3.0])
  func fixesStayAgainstTheJolt(step: Double) throws {
    let truth = Self.crash()
    let folder = try Self.export(truth, steps: [.init(atSeconds: 9.2, bySeconds: step)])
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.fixes.timeMilliseconds == truth.fixes.timeMilliseconds)
    for i in 0..<trace.fixes.count {
      let seconds = Double(trace.fixes.timeMilliseconds[i] - Self.origin) / 1000
      #expect(
        (seconds < Self.joltSeconds) == (trace.fixes.speedMetersPerSecond[i] > 0),
        "fix at \(seconds) s reads \(trace.fixes.speedMetersPerSecond[i]) m/s")
    }
    #expect(trace.accelerometer?.samples.seconds == truth.accelerometer?.samples.seconds)
    #expect(trace.metadata.timeOriginMilliseconds == Self.origin)
    // Each file saw the step at its first row at or after 9.2 s.
    #expect(
      report.file(endingWith: "Location.csv")?.clockSteps == [
        ClockStep(location: SourceLocation(file: "Location.csv", line: 11), atSeconds: 9.5, stepSeconds: step)
      ])
    #expect(
      report.file(endingWith: "TotalAcceleration.csv")?.clockSteps == [
        ClockStep(
          location: SourceLocation(file: "TotalAcceleration.csv", line: 462), atSeconds: 9.2,
          stepSeconds: step)
      ])
    #expect(report.file(endingWith: "Gyroscope.csv")?.clockStepCount == 1)
    let sign = step > 0 ? "+" : "−"
    #expect(
      report.timeWarnings.contains {
        $0.hasPrefix("Location.csv: the wall clock stepped \(sign)3.000 s at 9.500 s (line 11)")
      }, "\(report.timeWarnings)")
    #expect(report.clockWarnings.count == 3, "one per file that saw the step")
  }

  @Test(
    "the step tolerance, both sides: a step of it or less is no step, a millisecond more is one",
    arguments: [
      (0.999, 1.0, 0), (1.0, 1.0, 0), (1.001, 1.0, 1), (-0.999, 1.0, 0), (-1.0, 1.0, 0), (-1.001, 1.0, 1),
      (0.5, 0.5, 0), (0.501, 0.5, 1), (0.999, 0.998, 1),
    ])
  func tolerance(step: Double, toleranceSeconds: Double, expected: Int) throws {
    #expect(ReadOptions().clockStepToleranceSeconds == 1, "the default")
    let folder = try Self.export(Self.crash(), steps: [.init(atSeconds: 4.1, bySeconds: step)])
    let (trace, report) = try SensorLoggerReader.read(
      folder: folder.path, options: ReadOptions(clockStepToleranceSeconds: toleranceSeconds))
    for file in report.files where file.file != "Metadata.csv" {
      #expect(file.clockStepCount == expected, "\(file.file): \(file.clockSteps)")
    }
    #expect((report.clockWarnings.count == 3) == (expected == 1))
    // Reported or not, the fixes stay on the monotonic clock.
    #expect(trace.fixes.timeMilliseconds == Self.crash().fixes.timeMilliseconds)
  }

  @Test("no step: every time is the one the wall clock gave, exactly as before; no warning")
  func noStep() throws {
    let truth = Self.crash()
    let folder = try Self.export(truth, steps: [])
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.fixes.timeMilliseconds == truth.fixes.timeMilliseconds)
    #expect(trace.fixes.speedMetersPerSecond == truth.fixes.speedMetersPerSecond)
    #expect(trace.fixes.latitudeDegrees == truth.fixes.latitudeDegrees)
    #expect(trace.accelerometer?.samples == truth.accelerometer?.samples)
    #expect(trace.gyroscope == truth.gyroscope)
    #expect(report.files.allSatisfy { $0.clockSteps.isEmpty && $0.clockStepCount == 0 })
    #expect(report.clockWarnings.isEmpty && report.timeWarnings.isEmpty)
  }

  @Test(
    "the real MEMS-Nav export: every fix within the millisecond its own wall-clock time gave it before; no step"
  )
  func realExportUnchanged() throws {
    let (trace, report) = try SensorLoggerReader.read(folder: SensorLoggerReaderTests.memsNav)
    for name in ["Location.csv", "LocationGps.csv", "LocationNetwork.csv"] {
      let text = try String(contentsOfFile: SensorLoggerReaderTests.memsNav + "/" + name, encoding: .utf8)
      // Before: a fix's time was `time` floored to the ms. Now it is the
      // origin + `seconds_elapsed` rounded to the ms: the same instant here
      // (the two clocks agree to the microsecond), so the floored time or
      // the millisecond after it.
      let floored = Set(
        text.split(separator: "\n").dropFirst().compactMap { line in
          line.split(separator: ",").first.flatMap { Int64($0) }.map { floorDivide($0, 1_000_000) }
        })
      let fixes =
        name == "Location.csv"
        ? trace.fixes : trace.providerFixes[name == "LocationGps.csv" ? "gps" : "network"] ?? FixColumns()
      #expect(!fixes.isEmpty, "\(name)")
      let moved = fixes.timeMilliseconds.filter { !floored.contains($0) }
      #expect(moved.allSatisfy { floored.contains($0 - 1) }, "\(name): \(moved.prefix(5))")
      #expect(report.file(endingWith: name)?.clockSteps.isEmpty == true)
    }
    #expect(report.clockWarnings.isEmpty)
  }

  @Test("streamed == whole for recordings whose wall clock steps, reports and warnings included")
  func streamedEqualsWhole() throws {
    let stepsList: [[WallClock.Step]] = [
      [.init(atSeconds: 9.2, bySeconds: 3)], [.init(atSeconds: 9.2, bySeconds: -3)],
      [.init(atSeconds: 3.3, bySeconds: -30), .init(atSeconds: 15.05, bySeconds: 7.25)],
    ]
    for steps in stepsList {
      let folder = try Self.export(Self.crash(), steps: steps)
      for samples in [1, 7, 4096] {
        let (whole, streamed) = try TraceStreamTests().bothWays(folder.path, samples: samples)
        TraceStreamTests().expectSame(whole, streamed, "\(steps), chunks of \(samples)")
        #expect(whole.1.clockWarnings == streamed.1.clockWarnings && !whole.1.clockWarnings.isEmpty)
      }
    }
  }

  @Test("no Metadata.csv: the origin is where the fixes' two clocks put the start; fixes and sensors line up")
  func originFromTheClocks() throws {
    let truth = Self.crash()
    // The first fix is 0.5 s into the recording: the origin is not the first fix.
    let plain = try Self.export(truth, steps: [], metadata: false)
    let (trace, _) = try SensorLoggerReader.read(folder: plain.path)
    #expect(trace.metadata.timeOriginMilliseconds == Self.origin)
    #expect(trace.fixes.timeMilliseconds == truth.fixes.timeMilliseconds)
    #expect(trace.accelerometer?.samples.seconds == truth.accelerometer?.samples.seconds)
    // A step late in the recording: the origin is the clocks' median offset.
    let stepped = try Self.export(truth, steps: [.init(atSeconds: 15, bySeconds: 3)], metadata: false)
    let (late, report) = try SensorLoggerReader.read(folder: stepped.path)
    #expect(late.metadata.timeOriginMilliseconds == Self.origin)
    #expect(late.fixes.timeMilliseconds == truth.fixes.timeMilliseconds)
    #expect(report.file(endingWith: "Location.csv")?.clockStepCount == 1)
  }

  @Test(
    "a row whose wall clock does not read is a badTime, as one whose seconds_elapsed does not; a file with one clock reads it alone"
  )
  func unreadableWallClock() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Gyroscope.csv",
      """
      time,seconds_elapsed,z,y,x
      1700000000000000000,0,1,1,1
      abc,0.1,1,1,1
      ,0.2,1,1,1
      -9223372036854775808,0.3,1,1,1
      1700000000400000000,0.4,1,1,1

      """)
    folder.write("Gravity.csv", "seconds_elapsed,z,y,x\n0,9.8,0,0\n0.1,9.8,0,0\n")
    folder.write(
      "Location.csv",
      "time,latitude,longitude,horizontalAccuracy\n1700000000000000000,48,2,5\n1700000001000000000,48,2,5\n")
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.gyroscope?.seconds == [0, 0.4])
    let gyroscope = try #require(report.file(endingWith: "Gyroscope.csv"))
    #expect(gyroscope.rejectedByReason == [.badTime: 3] && gyroscope.reconciles)
    #expect(gyroscope.rejections.first?.location.columnName == "time", "\(gyroscope.rejections)")
    #expect(trace.gravity?.seconds == [0, 0.1])
    #expect(trace.fixes.timeMilliseconds == [1_700_000_000_000, 1_700_000_001_000])
    #expect(report.clockWarnings.isEmpty)
  }

  @Test("comma2k19: fixes on the boot clock through the origin; a step of the UTC column is reported")
  func comma2k19() throws {
    let folder = TemporaryFolder()
    let log = folder.path("seg/processed_log")
    for group in ["GNSS/live_gnss_ublox", "IMU/accelerometer", "IMU/gyro", "CAN/speed"] {
      try FileManager.default.createDirectory(atPath: log + "/" + group, withIntermediateDirectories: true)
    }
    let utc: Int64 = 1_700_000_000_000
    let t = [10.0, 11, 12, 13, 14]
    // UTC steps forward 3 s between the second and third fix.
    let wall = [utc, utc + 1000, utc + 5000, utc + 6000, utc + 7000]
    try NPYArray.write(t, to: log + "/GNSS/live_gnss_ublox/t")
    try NPYArray.write(
      wall.flatMap { [48, 2, 10, Double($0), 100, 90] }, shape: [5, 6],
      to: log + "/GNSS/live_gnss_ublox/value")
    try NPYArray.write([10.0, 14], to: log + "/IMU/accelerometer/t")
    try NPYArray.write([9.8, 0, 0, 9.8, 0, 0], shape: [2, 3], to: log + "/IMU/accelerometer/value")
    try NPYArray.write([10.0], to: log + "/IMU/gyro/t")
    try NPYArray.write([0.1, 0, 0], shape: [1, 3], to: log + "/IMU/gyro/value")
    try NPYArray.write([10.0], to: log + "/CAN/speed/t")
    try NPYArray.write([5.0], to: log + "/CAN/speed/value")
    let (trace, report) = try TraceFolder.readComma2k19Segment(folder.path("seg"))
    // The origin: the median of UTC − boot time (after the step, for three of five).
    let origin = utc - 7000
    #expect(trace.metadata.timeOriginMilliseconds == origin)
    #expect(trace.fixes.timeMilliseconds == t.map { origin + Int64($0 * 1000) })
    #expect(
      report.file(endingWith: "live_gnss_ublox")?.clockSteps == [
        ClockStep(
          location: SourceLocation(file: "GNSS/live_gnss_ublox", line: 3), atSeconds: 12, stepSeconds: 3)
      ])
    let (whole, streamed) = try TraceStreamTests().bothWays(folder.path("seg"), samples: 2)
    TraceStreamTests().expectSame(whole, streamed, "comma2k19")
  }

  @Test(
    "a mapping's clock: a step of its epoch column is reported; the clock file mapped on its epoch column is placed on its relative one"
  )
  func mappingClock() throws {
    let folder = TemporaryFolder()
    let utc: Int64 = 1_700_000_000_000
    var gnss = "utc_ms,t_boot_s,lat,lon\n"
    for k in 0..<6 {
      let t = 100.0 + Double(k)
      gnss += "\(utc + Int64(k) * 1000 + (k >= 4 ? -3000 : 0)),\(t),48.\(k),2\n"  // −3 s from the fifth row
    }
    folder.write("gnss.csv", gnss)
    var imu = "t_boot_s,ax,ay,az\n"
    for i in 0..<300 { imu += "\(100 + Double(i) * 0.02),0,0,9.8\n" }
    folder.write("imu.csv", imu)
    folder.write(
      "mapping.json",
      """
      {"name": "clocked", "units": "SI", "clock": {"file": "gnss.csv",
         "epoch": {"column": "utc_ms", "format": "epoch-milliseconds"},
         "relative": {"column": "t_boot_s", "format": "relative-seconds"}},
       "files": [
        {"file": "gnss.csv", "time": {"column": "utc_ms", "format": "epoch-milliseconds"},
         "fixes": {"latitude": {"column": "lat"}, "longitude": {"column": "lon"}}},
        {"file": "imu.csv", "time": {"column": "t_boot_s", "format": "relative-seconds"},
         "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}}}]}
      """)
    let (trace, report) = try TraceImport.read(path: folder.path, mappingPath: folder.path("mapping.json"))
    let origin = utc - 100_000  // the median offset: four rows of six before the step
    #expect(trace.metadata.timeOriginMilliseconds == origin)
    #expect(trace.fixes.timeMilliseconds == (0..<6).map { origin + 100_000 + Int64($0) * 1000 })
    #expect(
      report.files.first?.clockSteps == [
        ClockStep(location: SourceLocation(file: "gnss.csv", line: 6), atSeconds: 104, stepSeconds: -3)
      ], "the clock's own pass reports the step once")
    #expect(report.clockWarnings.count == 1, "\(report.clockWarnings)")
    for samples in [1, 64] {
      let (whole, streamed) = try TraceStreamTests().bothWays(
        folder.path, mapping: folder.path("mapping.json"), samples: samples)
      TraceStreamTests().expectSame(whole, streamed, "mapping, chunks of \(samples)")
    }
  }
}
