import Foundation
import HearthGeo

/// A trace as a folder of `.npy` columns, so numpy opens every column
/// directly and a folder written by numpy in this layout opens here:
///
/// ```
/// trace/
///   trace.json                     metadata, units, which streams exist
///   fixes/time_ms.npy              <i8, ms since the epoch
///   fixes/latitude_deg.npy         <f8   (longitude_deg, accuracy_m, speed_mps,
///                                         heading_deg, altitude_m, battery_fraction)
///   fixes/activity.npy             |u1   (source, charging: |u1; device, user: <i8)
///   accelerometer/t.npy            <f8, seconds since the time origin
///   accelerometer/value.npy        <f8, N×3 (x, y, z), m/s²
///   gravity/, gyroscope/           the same (m/s², rad/s)
///   barometer/t.npy, value.npy     N×2 (hPa, relative altitude m)
///   scalars/<name>/t.npy, value.npy
/// ```
/// The `t`/`value` pairs follow comma2k19's `processed_log` convention;
/// ``readComma2k19Segment(_:)`` reads that dataset's own folders.
/// This is the project's only on-disk layout of its own (decision 0004).
public enum TraceFolder {
  /// The entries a trace folder of this layout consists of, the manifest
  /// last (an earlier trace's are replaced in this order).
  static let layoutEntries = [
    "fixes", "accelerometer", "gravity", "gyroscope", "barometer", "scalars", "trace.json",
  ]
  /// What the manifest's `layout` member starts with in a folder this writes.
  static let layoutName = "hearth-trace-folder/"

  /// Writes `trace` under `folder` (created if needed). Values are written
  /// bit for bit; reading the folder back gives an equal trace.
  ///
  /// A folder that exists must be empty (names starting with "." aside) or
  /// a trace folder this layout wrote (its `trace.json` names the layout):
  /// the new trace is written beside the earlier one first, in a hidden
  /// folder inside it, and only once it is whole do its entries replace the
  /// earlier trace's (``layoutEntries``), so no stream of another recording
  /// stays to be read with this one (review26 F2), a failed write leaves
  /// the earlier trace as it was (review27 R3), and nothing else in the
  /// folder is touched. A folder holding anything else, a `trace.json` of
  /// another program's included (review27 R2), is refused untouched.
  /// - Throws: `TraceError.io` naming the folder when it exists and is not
  ///   a folder, or holds something but no trace of this layout, or when a
  ///   write fails.
  public static func write(_ trace: Trace, to folder: String) throws {
    let fm = FileManager.default
    guard fm.fileExists(atPath: folder) else { return try writeLayout(trace, into: folder) }
    guard FolderListing.isFolder(folder) else {
      throw TraceError.io(path: folder, reason: "exists and is not a folder")
    }
    let names = try FolderListing.names(folder).filter { !$0.hasPrefix(".") }
    guard !names.isEmpty else { return try writeLayout(trace, into: folder) }
    guard names.contains("trace.json"), isLayoutManifest(folder + "/trace.json") else {
      throw TraceError.io(
        path: folder,
        reason:
          "is not empty and holds no trace folder (no trace.json naming \(layoutName)1): a trace is written into a new or empty folder, or over a trace folder"
      )
    }
    let staging = folder + "/.hearth-writing-\(UUID().uuidString)"
    defer { try? fm.removeItem(atPath: staging) }
    try writeLayout(trace, into: staging)
    for name in layoutEntries {
      let (earlier, written) = (folder + "/" + name, staging + "/" + name)
      do {
        if fm.fileExists(atPath: earlier) { try fm.removeItem(atPath: earlier) }
        if fm.fileExists(atPath: written) { try fm.moveItem(atPath: written, toPath: earlier) }
      } catch {
        throw TraceError.io(
          path: earlier, reason: "cannot replace the earlier trace's: \(FolderListing.reason(error))")
      }
    }
  }

  /// Whether the file at `path` is a manifest of this layout (a JSON object
  /// whose `layout` starts with ``layoutName``).
  static func isLayoutManifest(_ path: String) -> Bool {
    guard let bytes = try? RegularFile.read(path, limit: maximumManifestBytes),
      let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
      let layout = object["layout"] as? String
    else { return false }
    return layout.hasPrefix(layoutName)
  }

  /// Writes the layout's entries for `trace` into `folder`, made if missing.
  private static func writeLayout(_ trace: Trace, into folder: String) throws {
    let fm = FileManager.default
    func path(_ parts: String...) -> String { ([folder] + parts).joined(separator: "/") }
    func makeFolder(_ p: String) throws {
      do { try fm.createDirectory(atPath: p, withIntermediateDirectories: true) } catch {
        throw TraceError.io(path: p, reason: FolderListing.reason(error))
      }
    }
    try makeFolder(folder)
    let f = trace.fixes
    if !f.isEmpty {
      try makeFolder(path("fixes"))
      try NPYArray.write(f.timeMilliseconds, to: path("fixes", "time_ms.npy"))
      try NPYArray.write(f.latitudeDegrees, to: path("fixes", "latitude_deg.npy"))
      try NPYArray.write(f.longitudeDegrees, to: path("fixes", "longitude_deg.npy"))
      try NPYArray.write(f.horizontalAccuracyMeters, to: path("fixes", "accuracy_m.npy"))
      try NPYArray.write(f.speedMetersPerSecond, to: path("fixes", "speed_mps.npy"))
      try NPYArray.write(f.headingDegrees, to: path("fixes", "heading_deg.npy"))
      try NPYArray.write(f.altitudeMeters, to: path("fixes", "altitude_m.npy"))
      try NPYArray.write(f.batteryLevel, to: path("fixes", "battery_fraction.npy"))
      try NPYArray.write(f.activity.map(\.rawValue), to: path("fixes", "activity.npy"))
      try NPYArray.write(f.source.map(\.rawValue), to: path("fixes", "source.npy"))
      try NPYArray.write(f.charging.map(\.rawValue), to: path("fixes", "charging.npy"))
      try NPYArray.write(f.device.map { Int64($0.rawValue) }, to: path("fixes", "device.npy"))
      try NPYArray.write(f.user.map { Int64($0.rawValue) }, to: path("fixes", "user.npy"))
    }
    func writeVector(_ stream: VectorStream?, _ name: String) throws {
      guard let stream, !stream.isEmpty else { return }
      try makeFolder(path(name))
      try NPYArray.write(stream.seconds, to: path(name, "t.npy"))
      var values = [Double](repeating: 0, count: stream.count * 3)
      for i in 0..<stream.count {
        values[3 * i] = stream.x[i]
        values[3 * i + 1] = stream.y[i]
        values[3 * i + 2] = stream.z[i]
      }
      try NPYArray.write(values, shape: [stream.count, 3], to: path(name, "value.npy"))
    }
    try writeVector(trace.accelerometer?.samples, "accelerometer")
    try writeVector(trace.gravity, "gravity")
    try writeVector(trace.gyroscope, "gyroscope")
    if let barometer = trace.barometer, !barometer.isEmpty {
      try makeFolder(path("barometer"))
      try NPYArray.write(barometer.seconds, to: path("barometer", "t.npy"))
      var values = [Double](repeating: 0, count: barometer.count * 2)
      for i in 0..<barometer.count {
        values[2 * i] = barometer.hectopascals[i]
        values[2 * i + 1] = barometer.relativeAltitudeMeters[i]
      }
      try NPYArray.write(values, shape: [barometer.count, 2], to: path("barometer", "value.npy"))
    }
    for (name, stream) in trace.scalars.sorted(by: { $0.key < $1.key }) {
      try makeFolder(path("scalars", name))
      try NPYArray.write(stream.seconds, to: path("scalars", name, "t.npy"))
      try NPYArray.write(stream.values, to: path("scalars", name, "value.npy"))
    }
    var manifest: [(String, JSONValue)] = [
      ("layout", .string(layoutName + "1")),
      ("format", .string(trace.metadata.format)),
      ("platform", .string(trace.metadata.platform.rawValue)),
      ("sourceFiles", .array(trace.metadata.sourceFiles.map { .string($0) })),
    ]
    if let device = trace.metadata.device { manifest.append(("device", .string(device))) }
    if let origin = trace.metadata.timeOriginMilliseconds {
      manifest.append(("timeOriginMilliseconds", .number(Double(origin))))
    }
    if let accelerometer = trace.accelerometer {
      manifest.append(("accelerometerContent", .string(accelerometer.content.rawValue)))
    }
    manifest.append(
      (
        "scalarUnits",
        .object(trace.scalars.sorted(by: { $0.key < $1.key }).map { ($0.key, .string($0.value.unit)) })
      ))
    manifest.append(
      (
        "activities",
        .array(trace.activities.map { .array([.number($0.seconds), .number(Double($0.activity.rawValue))]) })
      ))
    do {
      try Data(JSONValue.object(manifest).text.utf8).write(to: URL(fileURLWithPath: path("trace.json")))
    } catch {
      throw TraceError.io(path: path("trace.json"), reason: FolderListing.reason(error))
    }
  }

  /// Largest trace.json read, bytes.
  static let maximumManifestBytes = 64 << 20

  /// Reads a folder written by ``write(_:to:)`` (or by numpy in that layout).
  ///
  /// Every column is checked like any recording: times finite and in range
  /// (``ReadingBounds``), values within their bounds, codes known. Sensor
  /// streams out of time order are sorted (counted) and exact repeats
  /// rejected; fixes stay in the order written, repeats included (a
  /// generated day is a history of uploads in arrival order, retries and
  /// late batches included: the ingest path must see them), their
  /// out-of-order rows counted. A stream whose columns disagree in length is
  /// skipped and reported.
  /// - Throws: `TraceError.io` when trace.json is missing or not a JSON
  ///   object; in strict mode any error.
  public static func read(_ folder: String, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    try recording(folder, options: options).readWhole()
  }

  /// The folder as a ``Recording`` (columns opened, memory-mapped when large).
  static func recording(_ folder: String, options: ReadOptions) throws -> Recording {
    func path(_ parts: String...) -> String { ([folder] + parts).joined(separator: "/") }
    let fm = FileManager.default
    let manifest: [String: Any]
    let manifestBytes: [UInt8]
    do {
      manifestBytes = try RegularFile.read(path("trace.json"), limit: maximumManifestBytes)
      if let problem = JSONKeys.problem(in: manifestBytes) {
        throw TraceError.io(path: path("trace.json"), reason: "not a trace manifest: \(problem)")
      }
      guard let object = try? JSONSerialization.jsonObject(with: Data(manifestBytes)) as? [String: Any] else {
        throw TraceError.io(path: path("trace.json"), reason: "not a JSON object")
      }
      manifest = object
    }
    var metadata = TraceMetadata(
      format: (manifest["format"] as? String).map { Excerpt.of($0, bytes: 120) } ?? "hearth-trace-folder")
    metadata.platform = Platform(rawValue: manifest["platform"] as? String ?? "") ?? .unknown
    metadata.device = (manifest["device"] as? String).map { Excerpt.of($0, bytes: 200) }
    metadata.sourceFiles = (manifest["sourceFiles"] as? [Any])?.compactMap { $0 as? String } ?? []
    metadata.timeOriginMilliseconds = (manifest["timeOriginMilliseconds"] as? NSNumber).flatMap {
      ReadingBounds.fixTime(milliseconds: $0.doubleValue)
    }
    var recording = Recording(metadata: metadata, files: [], options: options)
    let exists = { fm.fileExists(atPath: $0) }
    if exists(path("fixes", "time_ms.npy")) {
      recording.files.append(fixesFile(path("fixes"), options: options))
    }
    let content =
      AccelerationContent(rawValue: manifest["accelerometerContent"] as? String ?? "") ?? .includesGravity
    for (name, target) in [
      ("accelerometer", StreamTarget.accelerometer(content)), ("gravity", .gravity),
      ("gyroscope", .gyroscope),
    ] where exists(path(name, "t.npy")) {
      let check: GravityCheck.Kind? =
        target == .gravity
        ? .gravityEstimate : target == .accelerometer(.includesGravity) ? .totalAcceleration : nil
      recording.files.append(
        vectorFile(
          name, t: path(name, "t.npy"), value: path(name, "value.npy"), target: target, check: check,
          options: options))
    }
    if exists(path("barometer", "t.npy")) {
      recording.files.append(
        pressureFile(
          "barometer", t: path("barometer", "t.npy"), value: path("barometer", "value.npy"), options: options)
      )
    }
    let units = manifest["scalarUnits"] as? [String: Any] ?? [:]
    for name in ((try? fm.contentsOfDirectory(atPath: path("scalars"))) ?? []).sorted() {
      let unit = (units[name] as? String).map { Excerpt.of($0, bytes: 40) } ?? ""
      recording.files.append(
        scalarFile(
          "scalars/\(name)", name: name, unit: unit, t: path("scalars", name, "t.npy"),
          value: path("scalars", name, "value.npy"), options: options))
    }
    if let activities = manifest["activities"] as? [Any] {
      recording.files.append(
        exactActivities(manifestBytes).map {
          activitiesFile("trace.json activities", pairs: $0, options: options)
        }
          ?? activitiesFile(activities, options: options))
    }
    return recording
  }

  /// The manifest's activities as (seconds, code) pairs read to the last
  /// bit. JSONSerialization here does not round every decimal correctly
  /// (0.09999999999999999 reads as 0.1, which then merges with a sample at
  /// 0.1 as a duplicate); JSONDecoder does. Nil when the list is not a list
  /// of lists of numbers or nulls: the generic reading then judges each item.
  /// O(manifest).
  static func exactActivities(_ bytes: [UInt8]) -> [(Double, Double)]? {
    struct Manifest: Decodable { let activities: [[Double?]]? }
    guard let list = (try? JSONDecoder().decode(Manifest.self, from: Data(bytes)))?.activities else {
      return nil
    }
    return list.map { pair in pair.count == 2 ? (pair[0] ?? .nan, pair[1] ?? .nan) : (.nan, .nan) }
  }

  /// Both arrays of a `t`/`value` pair, the values `columns` wide.
  static func pair(_ t: String, _ value: String, columns: Int, name: String) throws -> (NPYArray, NPYArray) {
    let times = try NPYArray.read(path: t)
    let values = try NPYArray.read(path: value)
    guard times.shape.count <= 1, values.matrixShape.rows == times.count,
      values.matrixShape.columns == columns
    else {
      throw TraceError.malformed(
        SourceLocation(file: name, line: 0),
        reason: "t holds \(times.shape) and value \(values.shape): expected n and n×\(columns)")
    }
    return (times, values)
  }

  /// Row `i` of a `t` column as a sensor time, nil when it is not one.
  @inline(__always)
  static func sensorTime(_ t: NPYArray, _ i: Int) -> Double? {
    let s = t.element(i)
    return s.isFinite && ReadingBounds.isSensorTime(s) ? s : nil
  }

  static func vectorFile(
    _ name: String, t: String, value: String, target: StreamTarget, check: GravityCheck.Kind?,
    options: ReadOptions
  ) -> RecordingFile {
    vectorFile(name, target: target, check: check, options: options) {
      try pair(t, value, columns: 3, name: name)
    }
  }

  /// A vector stream from a `t` column and an n×3 `value` array, whatever
  /// holds them (files, or columns a door was handed): every row checked.
  static func vectorFile(
    _ name: String, target: StreamTarget, check: GravityCheck.Kind?, options: ReadOptions,
    arrays: @escaping @Sendable () throws -> (NPYArray, NPYArray)
  ) -> RecordingFile {
    let limit = ReadingBounds.axisLimit(target.vectorQuantity ?? .acceleration)
    return RecordingFile(
      name: name, targets: [target], rule: .sameKeyAndValues, keysAreMilliseconds: false,
      gravityChecks: check.map { [(0, $0)] } ?? [], units: nil,
      open: {
        let (times, values) = try arrays()
        return ArrayRowSource(name: name, count: times.count, columnCount: 3, options: options) { i, block in
          guard let s = sensorTime(times, i) else { return (.badTime, "t", "\(times.element(i))") }
          let (x, y, z) = (
            values.element(row: i, column: 0), values.element(row: i, column: 1),
            values.element(row: i, column: 2)
          )
          if let reason = ReadingBounds.vectorProblem(x, y, z, limit: limit) {
            return (reason, "value", "x \(x), y \(y), z \(z)")
          }
          block.append(key: s, line: i + 1, x, y, z)
          return nil
        }
      })
  }

  static func pressureFile(_ name: String, t: String, value: String, options: ReadOptions) -> RecordingFile {
    pressureFile(name, options: options) { try pair(t, value, columns: 2, name: name) }
  }

  /// A barometer from a `t` column and an n×2 `value` array (hPa, relative
  /// altitude m), whatever holds them: every row checked.
  static func pressureFile(
    _ name: String, options: ReadOptions, arrays: @escaping @Sendable () throws -> (NPYArray, NPYArray)
  ) -> RecordingFile {
    RecordingFile(
      name: name, targets: [.barometer], rule: .sameKeyAndValues, keysAreMilliseconds: false,
      gravityChecks: [],
      units: nil,
      open: {
        let (times, values) = try arrays()
        return ArrayRowSource(name: name, count: times.count, columnCount: 2, options: options) { i, block in
          guard let s = sensorTime(times, i) else { return (.badTime, "t", "\(times.element(i))") }
          let (p, h) = (values.element(row: i, column: 0), values.element(row: i, column: 1))
          if let reason = ReadingBounds.pressureProblem(p, altitude: h) {
            return (reason, "value", "pressure \(p) hPa, relative altitude \(h) m")
          }
          block.append(key: s, line: i + 1, p, h)
          return nil
        }
      })
  }

  static func scalarFile(
    _ file: String, name: String, unit: String, t: String, value: String, options: ReadOptions
  ) -> RecordingFile {
    RecordingFile(
      name: file, targets: [.scalar(name: name, unit: unit)], rule: .sameKeyAndValues,
      keysAreMilliseconds: false,
      gravityChecks: [], units: nil,
      open: {
        let (times, values) = try pair(t, value, columns: 1, name: file)
        return ArrayRowSource(name: file, count: times.count, columnCount: 1, options: options) { i, block in
          guard let s = sensorTime(times, i) else { return (.badTime, "t", "\(times.element(i))") }
          let v = values.element(i)
          if v.isInfinite { return (.outOfRange, "value", "\(v)") }
          block.append(key: s, line: i + 1, v)
          return nil
        }
      })
  }

  /// The manifest's `activities`: [[seconds, code], …].
  static func activitiesFile(_ list: [Any], options: ReadOptions) -> RecordingFile {
    let pairs: [(Double, Double)] = list.map { item in
      let pair = item as? [Any] ?? []
      let t = pair.count == 2 ? (pair[0] as? NSNumber)?.doubleValue ?? .nan : .nan
      let code = pair.count == 2 ? (pair[1] as? NSNumber)?.doubleValue ?? .nan : .nan
      return (t, code)
    }
    return activitiesFile("trace.json activities", pairs: pairs, options: options)
  }

  /// Activities as (seconds, code) pairs: a time as any sensor's, a code
  /// that is an ``Activity`` raw value.
  static func activitiesFile(_ name: String, pairs: [(Double, Double)], options: ReadOptions) -> RecordingFile
  {
    RecordingFile(
      name: name, targets: [.activities], rule: .sameKeyAndValues,
      keysAreMilliseconds: false,
      gravityChecks: [], units: nil,
      open: {
        ArrayRowSource(name: name, count: pairs.count, columnCount: 1, options: options) {
          i, block in
          let (t, code) = pairs[i]
          guard t.isFinite, ReadingBounds.isSensorTime(t) else { return (.badTime, "seconds", "\(t)") }
          guard let raw = UInt8(exactly: code), Activity(rawValue: raw) != nil else {
            return (.outOfRange, "activity", "\(code) is not an activity code")
          }
          block.append(key: t, line: i + 1, code)
          return nil
        }
      })
  }

  /// The names of a fix's columns after `time_ms`, in ``fixesFile(_:options:columns:)``'s order.
  static let fixColumnNames = [
    "latitude_deg", "longitude_deg", "accuracy_m", "speed_mps", "heading_deg", "altitude_m", "activity",
    "source", "battery_fraction", "charging", "device", "user",
  ]

  static func fixesFile(_ folder: String, options: ReadOptions) -> RecordingFile {
    fixesFile("fixes", options: options) {
      let time = try NPYArray.read(path: folder + "/time_ms.npy")
      guard time.shape.count <= 1 else {
        throw TraceError.malformed(
          SourceLocation(file: "fixes/time_ms.npy", line: 0), reason: "not one column: \(time.shape)")
      }
      var columns: [NPYArray?] = []
      for name in fixColumnNames {
        let p = folder + "/\(name).npy"
        guard FileManager.default.fileExists(atPath: p) else {
          columns.append(nil)
          continue
        }
        let column = try NPYArray.read(path: p)
        guard column.count == time.count else {
          throw TraceError.malformed(
            SourceLocation(file: "fixes/\(name).npy", line: 0),
            reason: "\(column.count) values for \(time.count) fixes")
        }
        columns.append(column)
      }
      return (time, columns)
    }
  }

  /// Fixes from a `time_ms` column and the columns of ``fixColumnNames``
  /// (nil: absent, its default), whatever holds them: every row checked,
  /// kept in the order given.
  static func fixesFile(
    _ name: String, options: ReadOptions,
    columns open: @escaping @Sendable () throws -> (NPYArray, [NPYArray?])
  ) -> RecordingFile {
    RecordingFile(
      name: name, targets: [.fixes(provider: nil)], rule: .keepFileOrder, keysAreMilliseconds: true,
      gravityChecks: [], units: nil,
      open: {
        let (time, columns) = try open()
        let defaults: [Double] = [.nan, .nan, .nan, .nan, .nan, .nan, 0, 0, .nan, 0, 0, 0]
        return ArrayRowSource(
          name: name, count: time.count, columnCount: FixLayout.columnCount, options: options
        ) {
          i, block in
          guard let ms = time.exactInt64(i), ReadingBounds.fixMilliseconds.contains(ms) else {
            return (.badTime, "time_ms", "\(time.element(i))")
          }
          var v = (0..<12).map { columns[$0]?.element(i) ?? defaults[$0] }
          let fields = FixFields(
            milliseconds: ms, latitude: v[0], longitude: v[1], accuracy: v[2], speed: v[3], heading: v[4],
            altitude: v[5])
          if let (reason, field, value) = fields.problem() { return (reason, field.rawValue, value) }
          if v[3] < 0 || v[3] == .infinity { return (.outOfRange, "speed", "\(v[3]) m/s") }
          // SPEC §1, as every reader applies it: a 0 on a fix looser than 30 m
          // (or of unknown accuracy) is an Android "never measured", not a stop.
          v[3] =
            SpeedReading.speedMetersPerSecond(raw: v[3], horizontalAccuracyMeters: fields.measuredAccuracy)
            ?? .nan
          v[4] = fields.measuredHeading
          guard Activity(rawValue: UInt8(exactly: v[6]) ?? .max) != nil,
            FixSource(rawValue: UInt8(exactly: v[7]) ?? .max) != nil,
            ChargingState(rawValue: UInt8(exactly: v[9]) ?? .max) != nil
          else { return (.outOfRange, "activity, source or charging", "codes \(v[6]), \(v[7]), \(v[9])") }
          guard v[8].isNaN || ReadingBounds.batteryLevels.contains(v[8]) else {
            return (.outOfRange, "battery_fraction", "\(v[8])")
          }
          guard UInt32(exactly: v[10]) != nil, UInt32(exactly: v[11]) != nil else {
            return (.outOfRange, "device or user", "\(v[10]), \(v[11])")
          }
          block.keys.append(Double(ms))
          block.lines.append(RowBlock.line(i + 1))
          block.columns[FixLayout.time].append(Double(ms))
          for k in 0..<12 { block.columns[k + 1].append(v[k]) }
          return nil
        }
      })
  }

  /// Reads one comma2k19 segment folder (the one holding `processed_log/`):
  /// IMU/accelerometer (m/s², forward-right-down, gravity included),
  /// IMU/gyro (rad/s), CAN/speed (the car's own speed, scalar "canSpeed", m/s)
  /// and GNSS/live_gnss_ublox (fixes: latitude, longitude, speed, UTC ms,
  /// altitude, bearing). Sensor times are seconds since the device booted;
  /// the time origin is set so that they line up with the GNSS UTC times
  /// (the median of UTC − boot time over the first 100 000 fixes), and the
  /// fixes are placed on the boot clock too (origin + t, SPEC §9), their UTC
  /// compared with it (a step is in the file's report). Every
  /// array is checked like any recording; a stream whose arrays disagree in
  /// shape is skipped and reported.
  public static func readComma2k19Segment(_ segment: String, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    try comma2k19Recording(segment, options: options).readWhole()
  }

  static func comma2k19Recording(_ segment: String, options: ReadOptions) throws -> Recording {
    let log = (segment as NSString).appendingPathComponent("processed_log")
    guard FolderListing.isFolder(log) else { throw TraceError.io(path: log, reason: "not a folder") }
    @Sendable func path(_ parts: String...) -> String { ([log] + parts).joined(separator: "/") }
    var recording = Recording(
      metadata: TraceMetadata(device: "comma EON", platform: .android, format: "comma2k19"), files: [],
      options: options)
    let gnssName = "GNSS/live_gnss_ublox"
    // The fixes' two clocks: the boot time (t) and UTC.
    @Sendable func clocks(_ t: NPYArray, _ value: NPYArray, _ i: Int) -> (Double, Double)? {
      let (s, utc) = (t.element(i), value.element(row: i, column: 3))
      guard s.isFinite, ReadingBounds.isSensorTime(s), ReadingBounds.fixTime(milliseconds: utc) != nil else {
        return nil
      }
      return (s, utc)
    }
    // The boot time from the fixes' UTC, before any stream is read.
    if let (t, value) = try? pair(
      path("GNSS", "live_gnss_ublox", "t"), path("GNSS", "live_gnss_ublox", "value"), columns: 6,
      name: gnssName)
    {
      var comparison = ClockComparison(
        file: gnssName, toleranceSeconds: options.clockStepToleranceSeconds, medianRows: 100_000)
      for i in 0..<min(t.count, 100_000) {
        if let (s, utc) = clocks(t, value, i) {
          comparison.add(monotonicSeconds: s, wallMilliseconds: utc, line: i + 1)
        }
      }
      recording.metadata.timeOriginMilliseconds = comparison.medianOffsetMilliseconds
    }
    let origin = recording.metadata.timeOriginMilliseconds
    recording.files.append(
      RecordingFile(
        name: gnssName, targets: [.fixes(provider: nil)], rule: .sameKey, keysAreMilliseconds: true,
        gravityChecks: [],
        units: nil,
        open: {
          let (t, value) = try pair(
            path("GNSS", "live_gnss_ublox", "t"), path("GNSS", "live_gnss_ublox", "value"), columns: 6,
            name: gnssName)
          return ArrayRowSource(
            name: gnssName, count: t.count, columnCount: FixLayout.columnCount, options: options,
            clocks: { clocks(t, value, $0) }
          ) {
            i, block in
            // Placed on the boot clock, as the sensors are; UTC only compared with it.
            guard ReadingBounds.fixTime(milliseconds: value.element(row: i, column: 3)) != nil else {
              return (.badTime, "utc", "\(value.element(row: i, column: 3))")
            }
            guard let origin, let ms = ReadingBounds.fixTime(seconds: t.element(i), from: origin) else {
              return (.badTime, "t", "\(t.element(i)) s on the boot clock")
            }
            let speed = value.element(row: i, column: 2)
            let fields = FixFields(
              milliseconds: ms, latitude: value.element(row: i, column: 0),
              longitude: value.element(row: i, column: 1),
              speed: speed, heading: value.element(row: i, column: 5),
              altitude: value.element(row: i, column: 4))
            if let (reason, field, value) = fields.problem() { return (reason, field.rawValue, value) }
            block.keys.append(Double(ms))
            block.lines.append(RowBlock.line(i + 1))
            FixLayout.append(fields, speedMetersPerSecond: speed >= 0 ? speed : .nan, to: &block, at: 0)
            return nil
          }
        }))
    recording.metadata.sourceFiles.append(gnssName)
    for (group, name, target) in [
      ("IMU", "accelerometer", StreamTarget.accelerometer(.includesGravity)), ("IMU", "gyro", .gyroscope),
    ] {
      recording.files.append(
        vectorFile(
          "\(group)/\(name)", t: path(group, name, "t"), value: path(group, name, "value"), target: target,
          check: target == .gyroscope ? nil : .totalAcceleration, options: options))
      recording.metadata.sourceFiles.append("\(group)/\(name)")
    }
    recording.files.append(
      scalarFile(
        "CAN/speed", name: "canSpeed", unit: "m/s", t: path("CAN", "speed", "t"),
        value: path("CAN", "speed", "value"), options: options))
    recording.metadata.sourceFiles.append("CAN/speed")
    return recording
  }
}
