import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 16's findings, one regression each (named after the bug): files an
/// attacker or a careless user makes. None may trap, hang or read outside
/// its folder; every bad row is rejected with its reason and counted.
@Suite("Hostile files: no trap, no hang, no silent loss")
struct HostileFileTests {
  static let header = "time,seconds_elapsed,z,y,x"

  /// Sensor Logger rows at 50 Hz, `value` for each.
  static func rows(_ n: Int, _ value: (Int) -> String) -> String {
    (0..<n).map { "\(1_700_000_000_000_000_000 + Int64($0) * 20_000_000),\(Double($0) * 0.02),\(value($0))" }
      .joined(separator: "\n") + "\n"
  }

  @Test(
    "regression 2026-12-02: a blank or NaN seconds_elapsed is a badTime row, counted, and the samples after it are kept"
  )
  func blankSensorTime() throws {
    let folder = TemporaryFolder()
    var text = Self.header + "\n" + Self.rows(100) { _ in "9.8,0,0" }
    text += "1700000002000000000,,9.8,0,0\n1700000002010000000,NaN,9.8,0,0\n"
    text += "1700000002020000000,2.02,60,0,0\n"  // the jolt after the bad rows
    folder.write("TotalAcceleration.csv", text)
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    let file = try #require(report.file(endingWith: "TotalAcceleration.csv"))
    #expect(file.rejectedByReason == [.badTime: 2] && file.reconciles)
    let a = try #require(trace.accelerometer?.samples)
    #expect(a.count == 101 && a.seconds.allSatisfy(\.isFinite) && a.z.last == 60)
  }

  @Test("regression 2026-12-02: a NaN or absurd time in a trace folder's t.npy is badTime, never kept")
  func traceFolderTimes() throws {
    let folder = TemporaryFolder()
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.accelerometer = AccelerationStream(
      samples: VectorStream(
        seconds: [0, 0.02, 0.04, 0.06], x: [0, 0, 0, 0], y: [0, 0, 0, 0], z: [9.8, 9.8, 60, 9.8]),
      content: .includesGravity)
    try TraceFolder.write(trace, to: folder.path("t"))
    try NPYArray.write([0, .nan, 0.04, 1e300], to: folder.path("t/accelerometer/t.npy"))
    let (back, report) = try TraceFolder.read(folder.path("t"))
    #expect(back.accelerometer?.samples.seconds == [0, 0.04] && back.accelerometer?.samples.z == [9.8, 60])
    #expect(report.file(endingWith: "accelerometer")?.rejectedByReason == [.badTime: 2])
  }

  @Test(
    "regression 2026-12-02: .traj counts that are negative, too large or overflow are rejected lines, not traps"
  )
  func trajectoryCounts() throws {
    let folder = TemporaryFolder()
    let point = "367001,2020-06-30 00:00:00,-74.0,40.6"
    let lines = [
      "*T*,id,terrestrial,-1,0,*P*,terrestrial,2,1,1,0,\(point)",
      "*T*,id,terrestrial,4611686018427387904,0,*P*,terrestrial,2,1,1,9999,\(point)",
      "*T*,id,terrestrial,1,0,*P*,terrestrial,2,1,1,9223372036854775807,\(point)",
      "*T*,id,terrestrial,1,0,*P*,terrestrial,2,5,1,0,\(point)",
      "*T*,id,terrestrial,1,0,*P*,terrestrial,-2,1,1,0,\(point)",
      "*T*,id,terrestrial,1,0,*P*,terrestrial,2,1,1,0,\(point)",
    ]
    folder.write("x.traj", lines.joined(separator: "\n") + "\n")
    let (trajectories, report) = try TracktableReader.read(path: folder.path("x.traj"))
    #expect(trajectories.count == 1 && trajectories[0].fixes.count == 1)
    #expect(report.rejectedByReason == [.wrongFieldCount: 5] && report.reconciles)
  }

  @Test("regression 2026-12-02: CRLF .traj files keep every point (\"\\r\\n\" is one Character in Swift)")
  func crlfTrajectories() throws {
    let folder = TemporaryFolder()
    let lines = (0..<3).map { i in
      "*T*,id\(i),terrestrial,2,0,*P*,terrestrial,2,1,1,0,36700\(i),2020-06-30 00:00:0\(i),-74.0,40.6,36700\(i),2020-06-30 00:01:0\(i),-74.1,40.7"
    }
    folder.write("lf.traj", lines.joined(separator: "\n") + "\n")
    folder.write("crlf.traj", lines.joined(separator: "\r\n") + "\r\n")
    let (lf, lfReport) = try TracktableReader.read(path: folder.path("lf.traj"))
    let (crlf, crlfReport) = try TracktableReader.read(path: folder.path("crlf.traj"))
    #expect(lf.count == 3 && lf.reduce(0) { $0 + $1.fixes.count } == 6)
    #expect(crlf == lf && crlfReport.rowsKept == lfReport.rowsKept && crlfReport.rowsRejected == 0)
  }

  @Test("regression 2026-12-02: hex floats are not numbers in GPX or .traj")
  func hexFloats() throws {
    let gpx = """
      <gpx version="1.1"><trk><trkseg>
      <trkpt lat="0x1.8p5" lon="11.5"><time>2024-05-01T10:00:00Z</time></trkpt>
      <trkpt lat="48.1" lon="11.5"><ele>0x10</ele><time>2024-05-01T10:00:01Z</time></trkpt>
      <trkpt lat="48.1" lon="11.5"><time>2024-05-01T10:00:02Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    let (trace, report) = try GPX.read(bytes: Array(gpx.utf8), name: "h.gpx")
    #expect(trace.fixes.count == 1 && report.files[0].rejectedByReason == [.notANumber: 2])
    let folder = TemporaryFolder()
    folder.write(
      "h.traj",
      "*T*,id,terrestrial,2,0,*P*,terrestrial,2,1,1,0,1,2020-06-30 00:00:00,0x1p3,40.6,1,2020-06-30 00:00:01,-74,40.6\n"
    )
    let (trajectories, trajReport) = try TracktableReader.read(path: folder.path("h.traj"))
    #expect(trajectories[0].fixes.count == 1 && trajReport.rejectedByReason == [.outOfRange: 1])
  }

  @Test(
    "regression 2026-12-02: infinite and impossible sensor values are rejected with a reason, counted (−100 gyro marker, 300 g, 101 hPa)"
  )
  func impossibleValues() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording epoch time,platform\n3,Phone,1700000000000,android\n")
    let g = Quantity.standardGravity
    folder.write(
      "TotalAcceleration.csv",
      Self.header + "\n"
        + Self.rows(100) { i in
          i == 10
            ? "inf,0,0"
            : i == 11 ? "\(300 * g),0,0" : i == 12 ? "\(255 * g),0,0" : i == 13 ? "-inf,0,0" : "9.8,0,0"
        })
    folder.write(
      "Gyroscope.csv",
      Self.header + "\n" + Self.rows(10) { i in i == 3 ? "-100,-100,-100" : i == 4 ? "69.8,0,0" : "0.1,0,0" })
    folder.write(
      "Barometer.csv",
      "time,seconds_elapsed,relativeAltitude,pressure\n"
        + Self.rows(4) { i in i == 0 ? "0,101.3" : i == 1 ? "0,1300" : i == 2 ? "1e6,1000" : "0,1000" })
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(report.file(endingWith: "TotalAcceleration.csv")?.rejectedByReason == [.outOfRange: 3])
    #expect(trace.accelerometer?.samples.z.max() == 255 * g, "255 g is a reading; 300 g and ±∞ are not")
    let gyro = try #require(report.file(endingWith: "Gyroscope.csv"))
    #expect(gyro.rejectedByReason == [.outOfRange: 1] && gyro.rejections.first?.location.line == 5)
    #expect(trace.gyroscope?.z.max() == 69.8, "4000 °/s is a reading")
    #expect(report.file(endingWith: "Barometer.csv")?.rejectedByReason == [.outOfRange: 3])
    #expect(trace.barometer?.hectopascals == [1000])
  }

  @Test("regression 2026-12-02: a GPS fix logged again at the sensor rate is one fix")
  func repeatedFix() throws {
    let folder = TemporaryFolder()
    var text = "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n"
    for i in 0..<100 {
      text += "\(1_700_000_000_000_000_000 + Int64(i) * 10_000_000),\(Double(i) * 0.01),5,12,90,10,2.0,48.0\n"
    }
    text += "1700000001000000000,1,5,12,90,10,2.0001,48.0\n"
    folder.write("Location.csv", text)
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.fixes.count == 2)
    #expect(report.file(endingWith: "Location.csv")?.rejectedByReason == [.duplicate: 99])
  }

  @Test(
    "regression 2026-12-02: times and origins of ±2⁶³, NaN or 1e300 never trap (Sensor Logger, phyphox, mappings)"
  )
  func extremeTimes() throws {
    let logger = TemporaryFolder()
    logger.write(
      "Metadata.csv",
      "version,device name,recording epoch time,platform\n3,Phone,9223372036854775807,android\n")
    logger.write(
      "Gyroscope.csv",
      "time,z,y,x\n-9223372036854775808,0,0,0\n9223372036854775807,0,0,0\n1700000000000000000,0,0,0\n")
    logger.write(
      "Location.csv",
      "time,latitude,longitude\n9223372036854775807,48,2\n-9223372036854775808,48,2\n1700000000000000000,48,2\n"
    )
    let (trace, report) = try SensorLoggerReader.read(folder: logger.path)
    #expect(report.file(endingWith: "Metadata.csv")?.units?.contains("ignored") == true)
    #expect(trace.metadata.timeOriginMilliseconds == 1_700_000_000_000, "the first usable fix")
    #expect(
      trace.fixes.count == 1 && report.file(endingWith: "Location.csv")?.rejectedByReason == [.badTime: 2])
    #expect(
      trace.gyroscope?.seconds == [0]
        && report.file(endingWith: "Gyroscope.csv")?.rejectedByReason == [.badTime: 2])

    for start in ["NaN", "1e300", "9.3e18", "-9.3e18"] {
      let phyphox = TemporaryFolder()
      phyphox.write("meta/time.csv", "\"event\",\"experiment time\",\"system time\"\n\"START\",0,\(start)\n")
      phyphox.write(
        "Location.csv",
        "\"Time (s)\",\"Latitude (°)\",\"Longitude (°)\"\n0,48,2\n1e300,48,2\nNaN,48,2\n9e9,48,2\n")
      let (trace, report) = try PhyphoxReader.read(path: phyphox.path)
      #expect(trace.metadata.timeOriginMilliseconds == nil, "\(start)")
      #expect(trace.fixes.count == 1, "\(start): only t = 0 lands within 1900–2200 from the epoch")
      #expect(report.file(endingWith: "Location.csv")?.rejectedByReason == [.badTime: 3], "\(start)")
    }

    let mapped = TemporaryFolder()
    mapped.write("a.csv", "t,v\n1e300,1\n-1e300,2\nnan,3\n9.3e15,4\n1700000000,5\n")
    let mapping = ColumnMapping(
      name: "t",
      files: [
        .init(
          file: "a.csv", time: .init(column: "t", format: "epoch-seconds"),
          scalars: ["v": .init(column: "v", unit: nil)])
      ],
      clock: nil)
    let (mappedTrace, mappedReport) = try mapping.read(folder: mapped.path)
    #expect(
      mappedTrace.scalars["v"]?.values == [5] && mappedReport.files[0].rejectedByReason == [.badTime: 4])
  }

  @Test(
    "regression 2026-12-02: .npy shapes whose product overflows, and f8 values beyond Int64, are errors or zeros, not traps"
  )
  func npyOverflow() throws {
    let folder = TemporaryFolder()
    func npy(_ header: String, data: [UInt8]) -> [UInt8] {
      var dictionary = header
      while (10 + dictionary.utf8.count + 1) % 64 != 0 { dictionary += " " }
      dictionary += "\n"
      let n = dictionary.utf8.count
      return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(n & 0xFF), UInt8(n >> 8)] + Array(dictionary.utf8)
        + data
    }
    for shape in ["(4611686018427387904, 4)", "(9223372036854775807,)", "(3037000500, 3037000500)"] {
      folder.write(
        "big.npy",
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': \(shape), }", data: [0, 0, 0, 0, 0, 0, 0, 0]))
      #expect(throws: TraceError.self, "\(shape)") { try NPYArray.read(path: folder.path("big.npy")) }
    }
    try NPYArray.write([1e300, -1e300, .nan, 3.9], to: folder.path("f.npy"))
    #expect(try NPYArray.read(path: folder.path("f.npy")).int64s == [0, 0, 0, 3])
  }

  @Test(
    "regression 2026-12-02: trace folder manifests and codes are checked: origin, activities, fix codes, ids")
  func traceFolderCodes() throws {
    let folder = TemporaryFolder()
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.fixes = FixColumns(
      (0..<4).map {
        Fix(
          timeMilliseconds: 1_700_000_000_000 + Int64($0) * 1000, latitudeDegrees: 48, longitudeDegrees: 2,
          horizontalAccuracyMeters: 5)
      })
    try TraceFolder.write(trace, to: folder.path("t"))
    try NPYArray.write([0.0, 300, 1, 2], to: folder.path("t/fixes/activity.npy"))
    try NPYArray.write([0.0, 0, 1e300, 7], to: folder.path("t/fixes/device.npy"))
    folder.write(
      "t/trace.json",
      #"{"layout":"hearth-trace-folder/1","format":"test","timeOriginMilliseconds":1e300,"activities":[[0,1e300],[1,1],["x",1],[2,5],[3]]}"#
    )
    let (back, report) = try TraceFolder.read(folder.path("t"))
    #expect(back.metadata.timeOriginMilliseconds == nil)
    #expect(back.fixes.count == 2 && back.fixes.device == [DeviceID(0), DeviceID(7)])
    #expect(report.file(endingWith: "fixes")?.rejectedByReason == [.outOfRange: 2])
    #expect(
      back.activities == [
        ActivitySample(seconds: 1, activity: .still), ActivitySample(seconds: 2, activity: .automotive),
      ])
    #expect(report.file(endingWith: "activities")?.rejectedByReason == [.outOfRange: 1, .badTime: 2])
  }

  @Test(
    "regression 2026-12-02: a comma2k19 segment with NaN UTC or mismatched arrays is checked, not trapped")
  func comma2k19() throws {
    let folder = TemporaryFolder()
    let log = folder.path("seg/processed_log")
    for group in ["GNSS/live_gnss_ublox", "IMU/accelerometer", "IMU/gyro", "CAN/speed"] {
      try FileManager.default.createDirectory(atPath: log + "/" + group, withIntermediateDirectories: true)
    }
    try NPYArray.write([10.0, 11, 12], to: log + "/GNSS/live_gnss_ublox/t")
    try NPYArray.write(
      [
        48, 2, 10, 1_700_000_000_000, 100, 90, 48, 2, 10, .nan, 100, 90, 48, 2, 10, 1_700_000_002_000, 100,
        90,
      ],
      shape: [3, 6], to: log + "/GNSS/live_gnss_ublox/value")
    try NPYArray.write([10.0, 10.01], to: log + "/IMU/accelerometer/t")
    try NPYArray.write([9.8, 0, 0], shape: [1, 3], to: log + "/IMU/accelerometer/value")  // one row short
    try NPYArray.write([10.0], to: log + "/IMU/gyro/t")
    try NPYArray.write([0.1, 0, 0], shape: [1, 3], to: log + "/IMU/gyro/value")
    try NPYArray.write([10.0, 10.5], to: log + "/CAN/speed/t")
    try NPYArray.write([5.0, .infinity], to: log + "/CAN/speed/value")
    let (trace, report) = try TraceFolder.readComma2k19Segment(folder.path("seg"))
    #expect(
      trace.fixes.count == 2 && report.file(endingWith: "live_gnss_ublox")?.rejectedByReason == [.badTime: 1])
    #expect(trace.metadata.timeOriginMilliseconds == 1_699_999_990_000)
    #expect(trace.accelerometer == nil)
    #expect(
      report.file(endingWith: "IMU/accelerometer")?.skippedBecause?.contains("expected n and n×3") == true)
    #expect(trace.gyroscope?.count == 1 && trace.scalars["canSpeed"]?.values == [5])
  }

  @Test("regression 2026-12-02: one column mapped to two fields fills both")
  func oneColumnTwoFields() throws {
    let folder = TemporaryFolder()
    folder.write("a.csv", "t,v\n0,1\n1,2\n")
    let mapping = ColumnMapping(
      name: "t",
      files: [
        .init(
          file: "a.csv", time: .init(column: "t", format: "relative-seconds"),
          scalars: ["first": .init(column: "v", unit: "m/s"), "second": .init(column: "v", unit: "km/h")])
      ], clock: nil)
    let (trace, _) = try mapping.read(folder: folder.path)
    #expect(trace.scalars["first"]?.values == [1, 2])
    #expect(trace.scalars["second"]?.values == [1 / 3.6, 2 / 3.6])
  }

  @Test(
    "regression 2026-12-02: GPX course, accuracy, elevation, speed and zone offsets out of range are rejected"
  )
  func gpxRanges() throws {
    func point(_ extra: String, time: String = "2024-05-01T10:00:00Z") -> String {
      "<trkpt lat=\"48.1\" lon=\"11.5\">\(extra)<time>\(time)</time></trkpt>"
    }
    let points = [
      point("<course>400</course>"), point("<accuracy>1e9</accuracy>"), point("<ele>1e6</ele>"),
      point("<speed>1e4</speed>"), point("", time: "2024-05-01T10:00:00+99:00"),
      point("", time: "2024-05-01T10:00:00+05:60"),
      point("<ele>-430</ele><speed>-1</speed><course>359.5</course>", time: "2024-05-01T10:00:01+14:00"),
    ]
    let text =
      "<gpx version=\"1.1\"><trk><trkseg>\n" + points.joined(separator: "\n") + "\n</trkseg></trk></gpx>"
    let (trace, report) = try GPX.read(bytes: Array(text.utf8), name: "r.gpx")
    #expect(report.files[0].rejectedByReason == [.outOfRange: 4, .badTime: 2])
    #expect(
      trace.fixes.count == 1 && trace.fixes[0].speedMetersPerSecond == nil
        && trace.fixes[0].headingDegrees == 359.5)
  }

  @Test("regression 2026-12-02: phyphox counts the fixes it drops")
  func phyphoxFixes() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Location.csv",
      "\"Time (s)\",\"Latitude (°)\",\"Longitude (°)\",\"Height (m)\"\n0,48,2,100\n1,95,2,100\n2,NaN,NaN,100\n3,48.1,2,100\n"
    )
    let (trace, report) = try PhyphoxReader.read(path: folder.path)
    #expect(trace.fixes.count == 2)
    let file = try #require(report.file(endingWith: "Location.csv"))
    #expect(file.rejectedByReason == [.outOfRange: 1, .missingValue: 1] && file.reconciles)
  }

  @Test(
    "regression 2026-12-02: a FIFO where a file is expected is a clear error, not a hang",
    .timeLimit(.minutes(1)))
  func fifo() throws {
    let folder = TemporaryFolder()
    for name in ["pipe.gpx", "pipe.traj", "pipe.csv", "Location.csv", "pipe"] {
      #expect(mkfifo(folder.path(name), 0o600) == 0)
    }
    // With no extension it is named as a FIFO too (review26 F10: "not a
    // recognised trace"), as a device is; a regular file is not recognised.
    for name in ["pipe.gpx", "pipe.traj", "pipe"] {
      #expect {
        try TraceImport.read(path: folder.path(name))
      } throws: { error in "\(error)".contains("not a regular file (a FIFO)") }
    }
    #expect {
      try TraceImport.read(path: "/dev/zero")
    } throws: { error in "\(error)".contains("not a regular file (a character device)") }
    folder.write("notes", "hello\n")
    #expect {
      try TraceImport.read(path: folder.path("notes"))
    } throws: { error in "\(error)".contains("not a recognised trace") }
    #expect(throws: TraceError.self) {
      try CSVStream.read(path: folder.path("pipe.csv"), select: { _, _ in [] }, body: { _ in })
    }
    // In a folder it is one skipped file among the others.
    folder.write("Gyroscope.csv", Self.header + "\n" + Self.rows(3) { _ in "0,0,0" })
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.gyroscope?.count == 3)
    #expect(report.file(endingWith: "Location.csv")?.skippedBecause?.contains("FIFO") == true)
  }

  @Test("regression 2026-12-02: a mapping cannot read outside its folder, nor echo what it read")
  func mappingEscape() throws {
    let root = TemporaryFolder()
    root.write("secret.csv", "password,hunter2\n1,2\n")
    root.write("inside/a.csv", "t,v\n0,1\n")
    // A link inside the folder to a file outside it is refused; one to a file inside is read.
    try FileManager.default.createSymbolicLink(
      atPath: root.path("inside/link.csv"), withDestinationPath: root.path("secret.csv"))
    try FileManager.default.createSymbolicLink(
      atPath: root.path("inside/same.csv"), withDestinationPath: "a.csv")
    let linked = ColumnMapping(
      name: "m",
      files: [
        .init(
          file: "same.csv", time: .init(column: "t", format: "relative-seconds"),
          scalars: ["v": .init(column: "v", unit: nil)])
      ],
      clock: nil)
    #expect(try linked.read(folder: root.path("inside")).1.rowsKept == 1)
    for name in ["../secret.csv", root.path("secret.csv"), "inside/../../secret.csv", "link.csv"] {
      let mapping = ColumnMapping(
        name: "m",
        files: [
          .init(
            file: name, time: .init(column: "t", format: "relative-seconds"),
            scalars: ["v": .init(column: "v", unit: nil)])
        ],
        clock: nil)
      #expect {
        try mapping.read(folder: root.path("inside"))
      } throws: { error in
        "\(error)".contains("inside its folder") && !"\(error)".contains("hunter2")
      }
    }
  }

  @Test("regression 2026-12-02: errors never echo a whole header: it is cut, with its size")
  func longHeaders() throws {
    let folder = TemporaryFolder()
    let header = "time,seconds_elapsed," + (0..<100_000).map { "column\($0)" }.joined(separator: ",")
    folder.write(
      "Gyroscope.csv", header + "\n" + (0..<100_002).map { _ in "1" }.joined(separator: ",") + "\n")
    let (_, report) = try SensorLoggerReader.read(folder: folder.path)
    let reason = try #require(report.file(endingWith: "Gyroscope.csv")?.skippedBecause)
    #expect(
      reason.utf8.count < 600 && reason.contains("bytes)") && reason.contains("missing column 'x'"),
      "\(reason)")
    folder.write(
      "Raw Data.csv", "\"Time (s)\",\"Acceleration x (\(String(repeating: "m", count: 10_000)))\"\n0,1\n")
    let (_, phyphox) = try PhyphoxReader.read(path: folder.path("Raw Data.csv"))
    #expect((phyphox.files.last?.skippedBecause?.utf8.count ?? .max) < 600)
  }

  @Test(
    "regression 2026-12-02: a folder that cannot be listed is 'cannot read', not 'not a recognised trace'")
  func unreadableFolder() throws {
    let folder = TemporaryFolder()
    #expect {
      try TraceImport.recognise(folder.path, hasMapping: false) { path in
        throw TraceError.io(path: path, reason: "cannot read the folder: Permission denied")
      }
    } throws: { error in "\(error)".contains("cannot read the folder") }
    // And through the door, for a folder this process really cannot list.
    // And through the door, when this process really cannot list it (not as root).
    #expect(chmod(folder.path, 0) == 0)
    if let handle = opendir(folder.path) {
      closedir(handle)
    } else {
      #expect { try TraceImport.read(path: folder.path) } throws: {
        "\($0)".contains("cannot read the folder")
      }
    }
    _ = chmod(folder.path, 0o700)
  }
}
