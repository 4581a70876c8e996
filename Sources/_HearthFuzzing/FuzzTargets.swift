// Fuzz targets for every HearthTrace reader and every saved state the
// package decodes. Not API: used by the hearth-fuzz executable (libFuzzer or
// corpus replay) and by the corpus-replay tests.
//
// Each target feeds arbitrary bytes to one reader and checks the invariants
// that must hold for any input: no trap, every row read is either kept or
// rejected, streams sorted, and (for the formats that stream) the trace read
// in chunks equal to the trace read whole. A violated invariant stops the
// process (libFuzzer records it).
//
// Targets that read a folder take one input holding several files, split at
// the two bytes RS GS (0x1E 0x1D, `FuzzTarget.separator`): the k-th part is
// the k-th file of the target's list.

import Foundation
import HearthGeo
import HearthImpact
import HearthTrace

#if canImport(Glibc)
  import Glibc
#endif

public enum FuzzTarget: String, CaseIterable, Sendable {
  case csv, sensorLogger, phyphox, gpx, npy, traj, mapping, mappedFiles, traceFolder, comma2k19, places
  case ingestState, incidentState, impactConfiguration
  /// The column door against the file door: the same values as columns
  /// (`ColumnTrace`) and as a trace folder must keep and reject alike.
  case columns
  /// C ABI entry points that take data (DoorTargets.swift; docs/fuzzing.md's table).
  case ingestBatch, ingestRestore, privacyProject, detectorFeed, incidentRestore, traceColumns
  case distances, validateDedupe, detectorTrace

  /// Between the files of one input (folder targets).
  public static let separator: [UInt8] = [0x1E, 0x1D]

  /// The files a folder target writes, in the order of the input's parts.
  public var files: [String] {
    switch self {
    case .sensorLogger:
      [
        "Metadata.csv", "TotalAcceleration.csv", "Accelerometer.csv", "Gravity.csv", "Gyroscope.csv",
        "Barometer.csv", "Location.csv", "Activity.csv", "WatchBarometer.csv",
        "AccelerometerUncalibrated.csv",
        "LocationNetwork.csv",
      ]
    case .phyphox: ["Raw Data.csv", "meta/time.csv", "meta/device.csv", "Location.csv"]
    case .mapping: ["mapping.json", "a.csv", "b.csv"]
    case .mappedFiles: ["imu.csv", "gps.csv", "clock.csv"]
    case .traceFolder:
      [
        "trace.json", "fixes/time_ms.npy", "fixes/latitude_deg.npy", "fixes/longitude_deg.npy",
        "fixes/activity.npy",
        "fixes/device.npy", "accelerometer/t.npy", "accelerometer/value.npy", "gyroscope/t.npy",
        "gyroscope/value.npy",
        "barometer/t.npy", "barometer/value.npy", "scalars/s/t.npy", "scalars/s/value.npy",
      ]
    case .comma2k19:
      [
        "processed_log/GNSS/live_gnss_ublox/t", "processed_log/GNSS/live_gnss_ublox/value",
        "processed_log/IMU/accelerometer/t", "processed_log/IMU/accelerometer/value",
        "processed_log/IMU/gyro/t",
        "processed_log/IMU/gyro/value", "processed_log/CAN/speed/t", "processed_log/CAN/speed/value",
      ]
    default: []
    }
  }

  /// Runs the target on one input. Reader errors (TraceError, decoding
  /// errors) are expected outcomes for bad input; anything else is a failure.
  public func run(_ bytes: [UInt8]) {
    let scratch = FuzzScratch.shared
    switch self {
    case .csv:
      let path = scratch.write("input.csv", bytes)
      var kept = 0
      let report = try? CSVStream.read(
        path: path, options: ReadOptions(maximumLineBytes: 4096), batchRows: 7,
        select: { header, _ in
          header.indices.map { CSVColumnRequest(index: $0, kind: [.number, .integer, .text][$0 % 3]) }
        },
        body: { batch in
          precondition(batch.numbers.allSatisfy { $0.count == batch.count }, "ragged batch")
          kept += batch.count
        })
      if let report {
        precondition(report.reconciles, "rows read \(report.rowsRead) ≠ kept + rejected")
        precondition(report.rowsKept == kept, "report and batches disagree")
      }
    case .sensorLogger, .phyphox, .traceFolder, .comma2k19:
      let folder = scratch.folder(rawValue, files: files, parts: Self.split(bytes))
      checkStreamed(folder, mapping: nil, size: bytes.count)
    case .mapping:
      let folder = scratch.folder(rawValue, files: files, parts: Self.split(bytes))
      checkStreamed(folder, mapping: folder + "/mapping.json", size: bytes.count)
    case .mappedFiles:
      let folder = scratch.folder(rawValue, files: files, parts: Self.split(bytes))
      _ = scratch.write("\(rawValue)/mapping.json", Array(Self.mixedMapping.utf8))
      checkStreamed(folder, mapping: folder + "/mapping.json", size: bytes.count)
    case .gpx:
      if let (trace, report) = try? GPX.read(bytes: bytes, name: "input.gpx") {
        precondition(report.reconciles, "GPX report does not reconcile")
        check(trace)
      }
    case .npy:
      let path = scratch.write("input.npy", bytes)
      if let array = try? NPYArray.read(path: path) {
        precondition(array.doubles.count == array.count, "element count")
        _ = array.int64s
        if array.matrixShape.columns > 0 { _ = array.column(0) }
      }
    case .traj:
      let path = scratch.write("input.traj", bytes)
      if let (trajectories, report) = try? TracktableReader.read(
        path: path, options: ReadOptions(maximumLineBytes: 4096))
      {
        precondition(report.reconciles, "tracktable report does not reconcile")
        for t in trajectories {
          precondition(isSorted(t.fixes.timeMilliseconds), "unsorted trajectory")
          precondition(
            t.fixes.timeMilliseconds.allSatisfy { ReadingBounds.fixMilliseconds.contains($0) },
            "fix time out of range")
        }
      }
    case .places:
      if let places = try? PlacesFile.parse(Data(bytes), file: "places.geojson") {
        for place in places {
          let g = place.geofence
          precondition(g.radiusMeters > 0 && g.radiusMeters.isFinite, "radius")
          precondition(abs(g.center.latitudeDegrees) <= 90 && abs(g.center.longitudeDegrees) <= 180, "centre")
        }
        precondition(Set(places.map(\.geofence.id)).count == places.count, "ids unique")
      }
    case .ingestState:
      // What restore does: decode, audit against the pipeline; a state that
      // passes must then take a batch and a clock advance without a trap.
      guard var state = try? JSONDecoder().decode(IngestState.self, from: Data(bytes)),
        state.problems(under: Self.fuzzPipeline).isEmpty
      else { return }
      _ = Self.fuzzPipeline.ingest(Self.fuzzBatch, receivedAtMilliseconds: 1_700_000_600_000, state: &state)
      _ = Self.fuzzPipeline.advance(to: 1_700_003_600_000, state: &state)
    case .incidentState:
      _ = try? JSONDecoder().decode(IncidentState.self, from: Data(bytes))
    case .impactConfiguration:
      _ = try? JSONDecoder().decode(ImpactConfiguration.self, from: Data(bytes))
    case .columns:
      Self.columnsAgainstFolder(bytes, scratch)
    case .ingestBatch: DoorTargets.ingestBatch(bytes)
    case .ingestRestore: DoorTargets.ingestRestore(bytes)
    case .privacyProject: DoorTargets.privacyProject(bytes)
    case .detectorFeed: DoorTargets.detectorFeed(bytes)
    case .incidentRestore: DoorTargets.incidentRestore(bytes)
    case .traceColumns: DoorTargets.traceColumns(bytes)
    case .distances: DoorTargets.distances(bytes)
    case .validateDedupe: DoorTargets.validateDedupe(bytes)
    case .detectorTrace: DoorTargets.detectorTrace(bytes)
    }
  }

  /// The input as doubles (8 bytes each, the rest dropped) dealt into
  /// streams: accelerometer and gyroscope rows of 4, barometer and
  /// activity rows of 2, fix rows of 4 (time ms, latitude, longitude,
  /// accuracy). Read through ``ColumnTrace`` and through a trace folder
  /// written with the same values, the kept samples and each stream's
  /// counts by reason must agree.
  static func columnsAgainstFolder(_ bytes: [UInt8], _ scratch: FuzzScratch) {
    let values: [Double] = bytes.withUnsafeBytes { raw in
      stride(from: 0, to: raw.count - 7, by: 8).map { raw.loadUnaligned(fromByteOffset: $0, as: Double.self) }
    }
    guard !values.isEmpty else { return }
    let rows = values.count / 16
    func take(_ stream: Int, _ width: Int) -> [[Double]] {
      (0..<rows).map { r in (0..<width).map { values[(r * 16 + stream + $0) % values.count] } }
    }
    var raw = Trace(metadata: TraceMetadata(format: "columns"))
    var columns = ColumnTrace(metadata: raw.metadata)
    let a = take(0, 4)
    let g = take(4, 4)
    let b = take(8, 2)
    let act = take(10, 2)
    let f = take(12, 4)
    raw.accelerometer = AccelerationStream(
      samples: VectorStream(
        seconds: a.map { $0[0] }, x: a.map { $0[1] }, y: a.map { $0[2] }, z: a.map { $0[3] }),
      content: .includesGravity)
    raw.gyroscope = VectorStream(
      seconds: g.map { $0[0] }, x: g.map { $0[1] }, y: g.map { $0[2] }, z: g.map { $0[3] })
    raw.barometer = PressureStream(seconds: b.map { $0[0] }, hectopascals: b.map { $0[1] })
    columns.append(
      .accelerometer, seconds: a.map { $0[0] }, x: a.map { $0[1] }, y: a.map { $0[2] }, z: a.map { $0[3] })
    columns.append(
      .gyroscope, seconds: g.map { $0[0] }, x: g.map { $0[1] }, y: g.map { $0[2] }, z: g.map { $0[3] })
    columns.append(
      .barometer, seconds: b.map { $0[0] }, x: b.map { $0[1] }, y: [Double]?.none, z: [Double]?.none)
    // Activities: whole codes 0–5 as the folder's JSON can hold them (the
    // others are the folder's JSON's problem, not the rows').
    let codes = act.map {
      (seconds: $0[0], code: Double(UInt8(truncatingIfNeeded: Int64(bitPattern: $0[1].bitPattern)) % 8))
    }
    raw.activities = codes.compactMap { c in
      Activity(rawValue: UInt8(c.code)).map { ActivitySample(seconds: c.seconds, activity: $0) }
    }
    columns.append(
      .activities, seconds: raw.activities.map(\.seconds),
      x: raw.activities.map { Double($0.activity.rawValue) },
      y: [Double]?.none, z: [Double]?.none)
    let fixes = FixColumns(
      f.map { r in
        Fix(
          timeMilliseconds: Int64(exactly: r[0].rounded(.towardZero)) ?? 0, latitudeDegrees: r[1],
          longitudeDegrees: r[2],
          horizontalAccuracyMeters: r[3], speedMetersPerSecond: nil, headingDegrees: nil, altitudeMeters: nil)
      })
    raw.fixes = fixes
    columns.append(fixes: fixes)
    let folder = scratch.folder("columns", files: [], parts: [])
    try? FileManager.default.removeItem(atPath: folder)
    guard (try? TraceFolder.write(raw, to: folder)) != nil,
      let (expected, folderReport) = try? TraceFolder.read(folder)
    else { return }
    let (trace, report) = columns.read()
    for name in ["accelerometer", "gyroscope", "barometer", "fixes"] {
      let mine = report.files.first { $0.file == name }
      let theirs = folderReport.files.first { $0.file == name }
      precondition(
        mine?.rowsKept == theirs?.rowsKept && mine?.rejectedByReason == theirs?.rejectedByReason,
        "\(name): columns and folder disagree")
    }
    // Activity times go through the folder's JSON, which does not give every
    // decimal back to the last bit: compared by count.
    var (mine, theirs) = (trace, expected)
    precondition(
      mine.activities.count == theirs.activities.count, "columns and folder keep different activities")
    (mine.activities, theirs.activities) = ([], [])
    mine.metadata = theirs.metadata
    precondition(mine.matches(theirs), "columns and folder keep different samples")
  }

  /// The pipeline a fuzzed saved state is restored into: one place, one
  /// circle with a speed limit (coarse cells: cheap to build).
  static let fuzzPipeline = IngestPipeline(
    places: [
      Geofence(
        id: 1, circle: 1, center: Coordinate(latitudeDegrees: 48.137, longitudeDegrees: 11.575),
        radiusMeters: 100)
    ],
    circlesOfPerson: [UserID(1): [1]], speedLimits: [1: SpeedLimit(kilometersPerHour: 50)],
    cellSizeMeters: 5_000)

  /// Two people's fixes, a minute apart, driving away from the place.
  static let fuzzBatch = FixColumns(
    (0..<20).map { i in
      Fix(
        timeMilliseconds: 1_700_000_000_000 + Int64(i) * 30_000, latitudeDegrees: 48.137 + Double(i) * 0.001,
        longitudeDegrees: 11.575, horizontalAccuracyMeters: 8, speedMetersPerSecond: 20, headingDegrees: nil,
        altitudeMeters: nil, user: UserID(UInt32(1 + i % 2)))
    })

  /// A mapping using every target and a clock, for `mappedFiles`.
  public static let mixedMapping = """
    {"name": "fuzz", "units": "SI", "clock": {"file": "clock.csv", "epoch": {"column": "utc", "format": "epoch-milliseconds"},
      "relative": {"column": "t", "format": "relative-seconds"}},
     "files": [
      {"file": "imu.csv", "time": {"column": "t", "format": "relative-seconds"},
       "accelerometer": {"x": {"column": "ax", "unit": "m/s^2"}, "y": {"column": "ay", "unit": "m/s^2"}, "z": {"column": "az", "unit": "m/s^2"}},
       "gyroscope": {"x": {"column": "gx", "unit": "deg/s"}, "y": {"column": "gy", "unit": "deg/s"}, "z": {"column": "gz", "unit": "deg/s"}},
       "barometer": {"pressure": {"column": "p", "unit": "kPa"}, "relativeAltitude": {"column": "h"}},
       "scalars": {"speed": {"column": "v", "unit": "km/h"}, "again": {"column": "v", "unit": "m/s"}}},
      {"file": "gps.csv", "time": {"column": "t", "format": "relative-seconds"},
       "fixes": {"latitude": {"column": "lat"}, "longitude": {"column": "lon"}, "horizontalAccuracy": {"column": "acc"},
                 "speed": {"column": "v"}, "heading": {"column": "dir"}, "altitude": {"column": "alt"}}}]}
    """

  /// The input's parts at each ``separator``.
  public static func split(_ bytes: [UInt8]) -> [[UInt8]] {
    var parts: [[UInt8]] = []
    var start = 0
    var i = 0
    while i + 1 < bytes.count {
      if bytes[i] == separator[0] && bytes[i + 1] == separator[1] {
        parts.append(Array(bytes[start..<i]))
        i += 2
        start = i
        continue
      }
      i += 1
    }
    parts.append(Array(bytes[start...]))
    return parts
  }

  /// The import read whole and streamed: both reconcile and agree (in
  /// chunks of 1 to 64 samples, the size from the input); the trace is
  /// sorted and in range.
  private func checkStreamed(_ path: String, mapping: String?, size: Int) {
    let options = ReadOptions(maximumLineBytes: 4096)
    guard let (trace, report) = try? TraceImport.read(path: path, mappingPath: mapping, options: options)
    else {
      return
    }
    precondition(report.reconciles, "\(rawValue): the report does not reconcile")
    check(trace)
    for samples in [1 + size % 64] {
      guard let stream = try? TraceImport.stream(path: path, mappingPath: mapping, options: options) else {
        preconditionFailure("\(rawValue): reads whole but does not open as a stream")
      }
      var streamed = Trace(metadata: stream.metadata)
      guard let streamReport = try? stream.forEachChunk(samples: samples, { streamed.append($0.trace) })
      else {
        preconditionFailure("\(rawValue): reads whole but not streamed")
      }
      precondition(streamed.matches(trace), "\(rawValue): streamed in chunks of \(samples) ≠ read whole")
      precondition(streamReport == report, "\(rawValue): the streamed report differs")
    }
  }

  private func check(_ trace: Trace) {
    let fixesInOrder = rawValue != "traceFolder"  // a trace folder keeps its fixes as written
    if fixesInOrder { precondition(isSorted(trace.fixes.timeMilliseconds), "fixes not sorted") }
    precondition(
      trace.fixes.timeMilliseconds.allSatisfy { ReadingBounds.fixMilliseconds.contains($0) }, "fix time")
    for stream in [trace.accelerometer?.samples, trace.gyroscope, trace.gravity].compactMap({ $0 }) {
      precondition(stream.x.count == stream.count && stream.z.count == stream.count, "ragged stream")
      precondition(isSorted(stream.seconds), "stream not sorted")
      precondition(
        stream.seconds.allSatisfy(\.isFinite) && stream.x.allSatisfy(\.isFinite), "non-finite sample")
    }
    if let b = trace.barometer {
      precondition(
        isSorted(b.seconds) && b.hectopascals.allSatisfy { ReadingBounds.pressureHectopascals.contains($0) },
        "pressure")
    }
  }

  private func isSorted<T: Comparable>(_ values: [T]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
  }
}

/// A per-process scratch folder the targets write their inputs to (in
/// /dev/shm when there is one: a memory file system keeps the file writes
/// of every input cheap).
final class FuzzScratch: @unchecked Sendable {
  // Only touched from one thread at a time: libFuzzer runs targets one
  // after another, and the corpus replay test is `.serialized` (its cases
  // ran in parallel before, and raced on `madeFolders`).
  static let shared = FuzzScratch()
  let root: String

  private init() {
    let memory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    root = (memory as NSString).appendingPathComponent("hearth-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  /// Folder `name` holding `parts[k]` as `files[k]` and none of the files
  /// beyond the parts (files are overwritten in place: cheaper than a new folder).
  func folder(_ name: String, files: [String], parts: [[UInt8]]) -> String {
    let path = (root as NSString).appendingPathComponent(name)
    for (k, file) in files.enumerated() {
      let full = (path as NSString).appendingPathComponent(file)
      if k < parts.count {
        _ = write("\(name)/\(file)", parts[k])
      } else {
        unlink(full)
      }
    }
    return path
  }

  private var madeFolders = Set<String>()

  /// Writes `bytes` to `name` under the root (plain system calls: a fuzzer
  /// writes thousands of files a second).
  func write(_ name: String, _ bytes: [UInt8]) -> String {
    let path = (root as NSString).appendingPathComponent(name)
    let parent = (path as NSString).deletingLastPathComponent
    if madeFolders.insert(parent).inserted {
      try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return path }
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
      guard n > 0 else { break }
      done += n
    }
    close(descriptor)
    return path
  }
}
