import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthTrace

@Suite("NumPy .npy arrays and trace folders")
struct NPYTests {
  static let comma = TestPaths.sharedDatasets.appendingPathComponent("comma2k19-example")

  @Test("write → read round-trips f8, i8 and u1 exactly, copied and memory-mapped", arguments: [0, 1 << 40])
  func roundTrip(mapThreshold: Int) throws {
    let folder = TemporaryFolder()
    var generator = SeededGenerator(seed: 4)
    let doubles = (0..<10_001).map { _ in Double(bitPattern: generator.next()) }.map { $0.isNaN ? 0 : $0 }
    let ints = (0..<777).map { _ in Int64(bitPattern: generator.next()) }
    let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    try NPYArray.write(doubles, shape: [10_001], to: folder.path("d.npy"))
    try NPYArray.write(ints, to: folder.path("i.npy"))
    try NPYArray.write(bytes, shape: [100, 3], to: folder.path("b.npy"))
    let d = try NPYArray.read(path: folder.path("d.npy"), mapThresholdBytes: mapThreshold)
    #expect(d.isMemoryMapped == (mapThreshold == 0))
    #expect(d.doubles.map(\.bitPattern) == doubles.map(\.bitPattern))
    d.withDoubles { #expect($0.count == 10_001 && $0[5].bitPattern == doubles[5].bitPattern) }
    #expect(try NPYArray.read(path: folder.path("i.npy"), mapThresholdBytes: mapThreshold).int64s == ints)
    let b = try NPYArray.read(path: folder.path("b.npy"), mapThresholdBytes: mapThreshold)
    #expect(b.shape == [100, 3] && b.column(2) == (0..<100).map { Double(bytes[3 * $0 + 2]) })
    // The header is padded to 64 bytes, as numpy expects.
    let raw = try #require(FileManager.default.contents(atPath: folder.path("d.npy")))
    #expect((10 + Int(raw[8]) + Int(raw[9]) * 256) % 64 == 0)
  }

  @Test("comma2k19's own arrays (Fortran-order IMU) agree with the derived CSV values")
  func commaOriginals() throws {
    let segment = Self.comma.appendingPathComponent("Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40").path
    let (trace, report) = try TraceFolder.readComma2k19Segment(segment)
    #expect(report.reconciles)
    let accelerometer = try #require(trace.accelerometer?.samples)
    #expect(accelerometer.count == 6256 && trace.gyroscope?.count == 6256)
    #expect(trace.scalars["canSpeed"]?.count == 4974 && trace.fixes.count == 579)
    // derived_csv/accelerometer.csv row 1: 46408.580034294,1.074371337890625,-0.12921142578125,-9.544967651367188
    #expect(accelerometer.seconds[0] == 46408.580034294)
    #expect(accelerometer.x[0] == 1.074371337890625 && accelerometer.z[0] == -9.544967651367188)
    // The first u-blox fix: UTC 1533226488299 ms, at 46408.654976041 s on
    // the boot clock. Fixes are placed on the boot clock through the
    // origin (SPEC §9): 2 ms from their UTC here, the GNSS-to-boot jitter.
    let origin = try #require(trace.metadata.timeOriginMilliseconds)
    #expect(trace.fixes.timeMilliseconds[0] == origin + 46_408_655)
    #expect(trace.fixes.timeMilliseconds[0] == 1_533_226_488_301)
    #expect(report.files.allSatisfy { $0.clockSteps.isEmpty }, "GNSS UTC never steps against the boot clock")
  }

  @Test("unsupported and broken files say why")
  func errors() throws {
    let segment = Self.comma.appendingPathComponent("Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40").path
    #expect {
      try NPYArray.read(path: segment + "/processed_log/CAN/raw_can/data")
    } throws: { error in
      guard case TraceError.unsupported(_, let reason) = error else { return false }
      return reason.contains("|S8")
    }
    let folder = TemporaryFolder()
    try NPYArray.write([1.0, 2, 3], to: folder.path("ok.npy"))
    let bytes = Array(FileManager.default.contents(atPath: folder.path("ok.npy"))!)
    folder.write("short.npy", Array(bytes.dropLast(8)))
    folder.write("magic.npy", [0x00] + Array(bytes.dropFirst()))
    folder.write("empty.npy", [])
    for name in ["short.npy", "magic.npy", "empty.npy"] {
      #expect(throws: TraceError.self, "\(name)") { try NPYArray.read(path: folder.path(name)) }
    }
  }

  @Test("a header claiming billions of rows of zero columns reads as empty at once (fuzzed hang)")
  func emptyWithHugeRows() throws {
    var header = Array("{'descr': '<f8', 'fortran_order': True, 'shape': (84294967296, 0), }".utf8)
    while (10 + header.count + 1) % 64 != 0 { header.append(0x20) }
    header.append(0x0A)
    let bytes: [UInt8] =
      [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.count & 0xFF), UInt8(header.count >> 8)] + header
    let folder = TemporaryFolder()
    folder.write("huge.npy", bytes)
    let array = try NPYArray.read(path: folder.path("huge.npy"))
    #expect(array.count == 0 && array.doubles.isEmpty)
  }

  @Test("a trace written as a folder of .npy columns reads back equal")
  func traceFolderRoundTrip() throws {
    let (original, _) = try SensorLoggerReader.read(
      folder: TestPaths.sharedDatasets.appendingPathComponent("mems-nav-drives/raw/2023-08-04_214758").path)
    var trace = original
    trace.gyroscope = VectorStream(seconds: [0, 0.1], x: [1, -0.5], y: [2, 3], z: [-1, 0])
    trace.barometer = PressureStream(seconds: [0], hectopascals: [1013.25], relativeAltitudeMeters: [0.5])
    trace.scalars["canSpeed"] = ScalarStream(seconds: [1, 2], values: [3, 4], unit: "m/s")
    trace.activities = [ActivitySample(seconds: 1.5, activity: .automotive)]
    trace.providerFixes = [:]  // not part of the folder layout
    let folder = TemporaryFolder()
    try TraceFolder.write(trace, to: folder.path("trace"))
    let (back, _) = try TraceFolder.read(folder.path("trace"))
    #expect(back.fixes == trace.fixes)
    #expect(back.gyroscope == trace.gyroscope)
    #expect(back.barometer == trace.barometer && back.scalars == trace.scalars)
    #expect(back.activities == trace.activities && back.metadata == trace.metadata)
    #expect(TraceImport.format(of: folder.path("trace")) == .traceFolder)
  }

  /// review26 F2: converting a second recording into the first's folder
  /// left the first's fixes beside the second's streams, read as one.
  @Test(
    "a trace written over a trace folder replaces its streams, keeps other files; a folder with no trace, or a file, is refused untouched"
  )
  func writingOverAFolder() throws {
    var first = Trace(metadata: TraceMetadata(format: "first"))
    first.fixes = FixColumns([
      Fix(
        timeMilliseconds: 1_700_000_000_000, latitudeDegrees: 52, longitudeDegrees: 13,
        horizontalAccuracyMeters: 5)
    ])
    first.gyroscope = VectorStream(seconds: [0, 0.1], x: [1, -0.5], y: [2, 3], z: [-1, 0])
    first.scalars["canSpeed"] = ScalarStream(seconds: [1], values: [3], unit: "m/s")
    var second = Trace(metadata: TraceMetadata(format: "second"))
    second.gravity = VectorStream(seconds: [0], x: [0], y: [0], z: [9.8])
    let folder = TemporaryFolder()
    try TraceFolder.write(first, to: folder.path("t"))
    let notes = folder.write("t/notes.txt", "mine")
    try TraceFolder.write(second, to: folder.path("t"))
    let (back, _) = try TraceFolder.read(folder.path("t"))
    #expect(back.fixes.isEmpty && back.gyroscope == nil && back.scalars.isEmpty)
    #expect(back.gravity == second.gravity && back.metadata.format == "second")
    #expect(FileManager.default.fileExists(atPath: notes))
    // An empty folder is written into.
    try FileManager.default.createDirectory(atPath: folder.path("empty"), withIntermediateDirectories: false)
    try TraceFolder.write(second, to: folder.path("empty"))
    #expect(try TraceFolder.read(folder.path("empty")).0.gravity == second.gravity)
    // Names starting with "." do not make a folder non-empty.
    folder.write("dotted/.gitkeep", "")
    try TraceFolder.write(second, to: folder.path("dotted"))
    #expect(try TraceFolder.read(folder.path("dotted")).0.gravity == second.gravity)
    // A write that fails part way (a stream name the file system refuses)
    // leaves the earlier trace whole, and no staging folder behind (review27 R3).
    var broken = second
    broken.scalars["bad\u{0}name"] = ScalarStream(seconds: [1], values: [3], unit: "m/s")
    #expect(throws: TraceError.self) { try TraceFolder.write(broken, to: folder.path("t")) }
    #expect(try TraceFolder.read(folder.path("t")).0.gravity == second.gravity)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path("t")).sorted() == [
        "gravity", "notes.txt", "trace.json",
      ])
    // A folder holding something but no trace.json of this layout (another
    // program's trace.json, review27 R2), and a file: refused, nothing changed.
    let other = folder.write("other/fixes/time_ms.npy", "not ours")
    let foreign = folder.write("foreign/fixes/0001-bug.patch", "a patch")
    let chrome = folder.write("foreign/trace.json", #"{"traceEvents": []}"#)
    let file = folder.write("plain", "a file")
    for (target, why) in [
      (folder.path("other"), "holds no trace folder"), (folder.path("foreign"), "holds no trace folder"),
      (file, "is not a folder"),
    ] {
      do {
        try TraceFolder.write(first, to: target)
        Issue.record("\(target) was written")
      } catch let TraceError.io(path, reason) {
        #expect(path == target && reason.contains(why), "\(reason)")
      }
    }
    #expect(try String(contentsOfFile: other, encoding: .utf8) == "not ours")
    #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "a patch")
    #expect(try String(contentsOfFile: chrome, encoding: .utf8) == #"{"traceEvents": []}"#)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "a file")
    #expect(!FileManager.default.fileExists(atPath: folder.path("other/trace.json")))
  }

  @Test(
    "a trace folder's speeds go through SPEC §1's rule on reading: a 0 on a fix looser than 30 m, or of unknown accuracy, is unmeasured"
  )
  func folderSpeedsAreRead() throws {
    // A folder written by other code may hold Android's raw zeros: read
    // them as every other reader does, so every door gives one answer.
    let cases: [(accuracy: Double, speed: Double?, read: Double?)] = [
      (30, 0, 0), (30.000_001, 0, nil), (65, 0, nil), (.nan, 0, nil), (65, 5, 5), (10, nil, nil), (3, 0, 0),
    ]
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.fixes = FixColumns(
      cases.enumerated().map { k, c in
        Fix(
          timeMilliseconds: 1_700_000_000_000 + Int64(k) * 1_000, latitudeDegrees: 52, longitudeDegrees: 13,
          horizontalAccuracyMeters: c.accuracy, speedMetersPerSecond: c.speed)
      })
    let folder = TemporaryFolder()
    try TraceFolder.write(trace, to: folder.path("trace"))
    let (back, _) = try TraceFolder.read(folder.path("trace"))
    #expect(back.fixes.count == cases.count)
    for (k, c) in cases.enumerated() where k < back.fixes.count {
      let speed = back.fixes.speedMetersPerSecond[k]
      #expect(
        c.read.map { speed == $0 } ?? speed.isNaN,
        "case \(k): accuracy \(c.accuracy), speed \(String(describing: c.speed))")
    }
  }

  @Test(
    "regression 2026-12-05 (fuzz target columns): activity times in a trace folder read back to the last bit, so two a bit apart stay two"
  )
  func activityTimesReadBackExactly() throws {
    // JSONSerialization here reads 0.09999999999999999 as 0.1: the two
    // samples then merged as duplicates.
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    let times = [0.09999999999999999, 0.1, 1.34916492389e-312, 0, 1e10]
    trace.activities = times.map { ActivitySample(seconds: $0, activity: .still) }
    let folder = TemporaryFolder()
    try TraceFolder.write(trace, to: folder.path("trace"))
    let (back, _) = try TraceFolder.read(folder.path("trace"))
    #expect(back.activities.map(\.seconds.bitPattern).sorted() == times.map(\.bitPattern).sorted())
  }
}

@Suite("Generic CSV with a column mapping")
struct ColumnMappingTests {
  static let mappings = TestPaths.projectDatasets.appendingPathComponent("mappings")

  @Test(
    "the four MEMS-Nav processed_1hz drives load through the shipped mapping",
    arguments: [
      ("20230804_214758", 6303, 6303), ("20230806_144805", 8516, 8516), ("20230809_124742", 3436, 3439),
      ("20230809_163741", 2536, 2540),
    ])
  func memsNav(drive: String, fixes: Int, imu: Int) throws {
    let mapping = try ColumnMapping.load(
      path: Self.mappings.appendingPathComponent("mems-nav-processed-1hz.json").path)
    let folder = TestPaths.sharedDatasets.appendingPathComponent("mems-nav-drives/processed_1hz/\(drive)")
      .path
    let (trace, report) = try mapping.read(folder: folder)
    // Resampling left rows with an empty position during GPS outages: those
    // are rejected as missing, counted here independently from the text.
    let gpsText = try String(contentsOfFile: folder + "/gps.csv", encoding: .utf8)
    let emptyPositions = gpsText.split(whereSeparator: \.isNewline).filter { $0.contains(",,,,,,,,,") }.count
    #expect(report.reconciles)
    #expect(
      report.file(endingWith: "gps.csv")?.rejectedByReason
        == (emptyPositions > 0 ? [.missingValue: emptyPositions] : [:]))
    #expect(trace.fixes.count == fixes - emptyPositions)
    #expect(trace.accelerometer?.samples.count == imu && trace.gyroscope?.count == imu)
    #expect(trace.barometer!.hectopascals.allSatisfy { $0 > 940 && $0 < 1015 }, "hPa")
    #expect(trace.fixes.speedMetersPerSecond.filter { !$0.isNaN }.max()! < 40, "m/s")
    // Times are UTC: the first drive starts 2023-08-04 17:47:58 EDT = 21:47:58Z.
    if drive == "20230804_214758" { #expect(trace.fixes.timeMilliseconds[0] == 1_691_185_678_000) }
  }

  @Test("the comma2k19 derived CSVs load through the shipped mapping, on one clock")
  func comma() throws {
    let mapping = try ColumnMapping.load(
      path: Self.mappings.appendingPathComponent("comma2k19-derived-csv.json").path)
    let folder = TestPaths.sharedDatasets.appendingPathComponent("comma2k19-example/derived_csv").path
    let (trace, report) = try mapping.read(folder: folder)
    #expect(report.reconciles)
    #expect(trace.accelerometer?.samples.count == 6256 && trace.gyroscope?.count == 6256)
    #expect(trace.scalars["canSpeed"]?.count == 4974 && trace.scalars["canSpeed"]?.unit == "m/s")
    #expect(trace.fixes.count == 579)
    // Fixes land on their UTC times via the median boot-clock offset; the
    // GNSS-to-boot-clock jitter is a few milliseconds.
    #expect(abs(trace.fixes.timeMilliseconds[0] - 1_533_226_488_299) <= 5)
  }

  @Test("unknown units and unparsable times are reported with the column", arguments: [0, 1])
  func errors(which: Int) throws {
    let folder = TemporaryFolder()
    folder.write("a.csv", "t,v\n2024-01-01T00:00:00Z,1\nnot-a-time,2\n2024-01-01T00:00:02Z,3\n")
    let unit = which == 0 ? "m/s" : "parsecs/s"
    let mapping = ColumnMapping(
      name: "test",
      files: [
        .init(
          file: "a.csv", time: .init(column: "t", format: "iso8601"),
          scalars: ["speed": .init(column: "v", unit: unit)])
      ], clock: nil)
    if which == 0 {
      let (trace, report) = try mapping.read(folder: folder.path)
      #expect(trace.scalars["speed"]?.values == [1, 3])
      #expect(report.files[0].rejectedByReason == [.badTime: 1] && report.reconciles)
    } else {
      // Not a unit of any quantity: kept as is, named as given.
      let (trace, _) = try mapping.read(folder: folder.path)
      #expect(trace.scalars["speed"]?.unit == "parsecs/s")
    }
  }
}

@Suite("Tracktable trajectories and the import door")
struct TraceImportTests {
  /// The files hold 457 559 positions, 23 of which repeat the timestamp of
  /// another position of the same ship (1 s resolution): one device cannot
  /// have two fixes at one time, so those are rejected as duplicates.
  @Test("all 457 559 AIS positions are read, trajectory by trajectory; repeated times are duplicates")
  func tracktable() throws {
    let folder = TestPaths.sharedDatasets.appendingPathComponent("tracktable-ais")
    var total = 0
    var read = 0
    var duplicates = 0
    for (file, expected) in [
      ("NYHarbor_2020_12_08.traj", 38), ("NYHarbor_2020_12_first_week.traj", 513),
      ("US_coastal_2020_06_30.traj", 1395), ("VirginiaBeach_2020_06_04_to_06_filtered.traj", 125),
    ] {
      let (trajectories, report) = try TracktableReader.read(path: folder.appendingPathComponent(file).path)
      #expect(trajectories.count == expected, "\(file)")
      #expect(report.reconciles)
      #expect(Set(report.rejectedByReason.keys).isSubset(of: [.duplicate]))
      total += trajectories.reduce(0) { $0 + $1.fixes.count }
      read += report.rowsRead
      duplicates += report.rowsRejected
    }
    #expect(read == 457_559 && duplicates == 23 && total == 457_536)
  }

  @Test("the door recognises every format of the shared datasets")
  func detection() throws {
    let shared = TestPaths.sharedDatasets
    #expect(
      TraceImport.format(of: shared.appendingPathComponent("mems-nav-drives/raw/2023-08-04_214758").path)
        == .sensorLogger)
    #expect(
      TraceImport.format(of: shared.appendingPathComponent("phone-drop-freefall/raw_data/fall_1").path)
        == .phyphox)
    #expect(
      TraceImport.format(of: shared.appendingPathComponent("tracktable-ais/NYHarbor_2020_12_08.traj").path)
        == .tracktable)
    #expect(
      TraceImport.format(
        of: shared.appendingPathComponent(
          "comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40"
        ).path)
        == .comma2k19)
    #expect(TraceImport.format(of: "/nonexistent") == nil)
    #expect(throws: TraceError.self) { try TraceImport.read(path: TemporaryFolder().path) }
    let (trace, _) = try TraceImport.read(
      path: shared.appendingPathComponent("tracktable-ais/NYHarbor_2020_12_08.traj").path)
    #expect(trace.fixes.count == 9091)
  }
}
