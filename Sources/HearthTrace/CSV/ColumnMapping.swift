import Foundation
import HearthGeo

/// Reads CSV files of any layout into a trace, by a mapping that says which
/// column holds which field in which unit. Mappings are JSON (see
/// datasets/mappings/ for the shipped ones and docs/guides/trace-formats.md):
///
/// ```json
/// { "name": "…",
///   "files": [
///     { "file": "gps.csv",
///       "time": { "column": "time", "format": "iso8601" },
///       "fixes": { "latitude":  { "column": "latitude",  "unit": "deg" },
///                  "longitude": { "column": "longitude", "unit": "deg" },
///                  "speed":     { "column": "speed",     "unit": "m/s" } } },
///     { "file": "imu.csv",
///       "time": { "column": "time", "format": "iso8601" },
///       "accelerometer": { "x": { "column": "a_x", "unit": "m/s^2" }, "…": "…",
///                          "content": "includesGravity" } } ],
///   "clock": { "file": "gnss.csv", "epoch": { "column": "utc_ms", "format": "epoch-milliseconds" },
///              "relative": { "column": "t_boot_s", "format": "relative-seconds" } } }
/// ```
/// Time formats: `iso8601`, `epoch-seconds`, `epoch-milliseconds`,
/// `epoch-nanoseconds` (wall-clock times), and `relative-seconds`,
/// `relative-milliseconds` (sensor clocks; fixes need a `clock` to place them
/// on the wall clock). Targets: `fixes` (latitude, longitude,
/// horizontalAccuracy, speed, heading, altitude), `accelerometer`, `gravity`,
/// `gyroscope` (x, y, z), `barometer` (pressure, relativeAltitude) and
/// `scalars` (name → column). Units per ``Quantity``.
public struct ColumnMapping: Sendable, Hashable, Codable {
  public struct Column: Sendable, Hashable, Codable {
    public var column: String
    public var unit: String?
  }
  public struct Time: Sendable, Hashable, Codable {
    public var column: String
    public var format: String
  }
  public struct Vector: Sendable, Hashable, Codable {
    public var x: Column
    public var y: Column
    public var z: Column
    public var content: AccelerationContent?
  }
  public struct Fixes: Sendable, Hashable, Codable {
    public var latitude: Column
    public var longitude: Column
    public var horizontalAccuracy: Column?
    public var speed: Column?
    public var heading: Column?
    public var altitude: Column?
  }
  public struct Barometer: Sendable, Hashable, Codable {
    public var pressure: Column
    public var relativeAltitude: Column?
  }
  public struct File: Sendable, Hashable, Codable {
    public var file: String
    public var time: Time
    public var fixes: Fixes?
    public var accelerometer: Vector?
    public var gravity: Vector?
    public var gyroscope: Vector?
    public var barometer: Barometer?
    public var scalars: [String: Column]?
  }
  public struct Clock: Sendable, Hashable, Codable {
    public var file: String
    public var epoch: Time
    public var relative: Time
  }

  public var name: String
  public var files: [File]
  public var clock: Clock?

  /// Largest mapping file read, bytes.
  static let maximumFileBytes = 1 << 20

  /// Loads a mapping from a JSON file.
  /// - Throws: `TraceError.io` (missing, not a regular file, over 1 MiB);
  ///   `.malformed` with the decoder's reason (shortened).
  public static func load(path: String) throws -> ColumnMapping {
    let bytes = try RegularFile.read(path, limit: maximumFileBytes)
    do {
      return try JSONDecoder().decode(ColumnMapping.self, from: Data(bytes))
    } catch {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 1), reason: "not a column mapping: \(Excerpt.of("\(error)", bytes: 300))")
    }
  }

  /// Reads the mapped files from `folder` into one trace.
  ///
  /// - Throws: `TraceError.unsupported` for an unknown unit or time format
  ///   (naming the mapping field), a file outside `folder` (an absolute name
  ///   or `..`), or a stream mapped by two files; the CSV errors of each
  ///   file. A file that is missing or broken sinks the import: a mapping
  ///   names exactly what it expects.
  public func read(folder: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport) {
    try recording(folder: folder, options: options).readWhole()
  }

  /// The mapping over `folder` as a ``Recording``: the clock read, the
  /// origin found, every file's columns, units and streams decided.
  ///
  /// Time origin: the clock's boot time (the median of epoch − relative over
  /// the clock file's first 100 000 usable rows), else the earliest valid
  /// wall-clock time of any mapped file.
  func recording(folder: String, options: ReadOptions) throws -> Recording {
    var recording = Recording(
      metadata: TraceMetadata(format: "csv-mapping:\(Excerpt.of(name, bytes: 120))"), files: [], options: options)
    recording.failuresAreFatal = true
    var origin: Int64?
    var relativeClockKnown = false
    if let clock {
      let (offset, report) = try Self.bootOffset(clock, folder: folder, options: options)
      recording.plannedReports.append(report)
      origin = offset
      relativeClockKnown = offset != nil
    }
    if origin == nil {
      for file in files where Self.isWallClock(file.time.format) {
        let plan = try self.plan(file, folder: folder, origin: nil, relativeClockKnown: false, options: options, timeOnly: true)
        if let earliest = try plan.survey().earliestKey.flatMap({ Int64(exactly: $0) }) {
          origin = min(origin ?? earliest, earliest)
        }
      }
    }
    recording.metadata.timeOriginMilliseconds = origin
    var mapped: [String: String] = [:]  // stream → file
    for file in files {
      let plan = try self.plan(file, folder: folder, origin: origin, relativeClockKnown: relativeClockKnown, options: options)
      for target in plan.targets {
        let stream = target.name
        if let earlier = mapped.updateValue(file.file, forKey: stream) {
          throw TraceError.unsupported(
            SourceLocation(file: Excerpt.of(file.file, bytes: 120), line: 0),
            reason: "\(stream) is mapped by both \(Excerpt.of(earlier, bytes: 120)) and this file")
        }
      }
      recording.metadata.sourceFiles.append(file.file)
      recording.files.append(plan)
    }
    return recording
  }

  static func isWallClock(_ format: String) -> Bool { !format.hasPrefix("relative-") }

  /// The path of mapped file `name` in `folder`.
  /// - Throws: `TraceError.unsupported` when `name` would leave the folder.
  static func path(of name: String, in folder: String) throws -> String {
    guard let path = FolderListing.child(name, of: folder) else {
      throw TraceError.unsupported(
        SourceLocation(file: Excerpt.of(name, bytes: 120), line: 0),
        reason: "a mapping names files inside its folder only (no absolute path, no '..')")
    }
    return path
  }

  /// How `time` reads: a wall clock or a relative one.
  static func timeSpec(_ time: Time, origin: Int64?, file: String) throws -> CSVRowSpec.Time {
    let column = CSVRowSpec.Column(time.column)
    switch time.format {
    case "relative-seconds": return .seconds(column, factor: 1)
    case "relative-milliseconds": return .seconds(column, factor: 1e-3)
    default:
      guard let format = CSVRowSpec.WallClock(rawValue: time.format) else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(file, bytes: 120), line: 1, columnName: Excerpt.of(time.column, bytes: 80)),
          reason: "time format '\(Excerpt.of(time.format, bytes: 40))'")
      }
      return .wallClock(column, format, originMilliseconds: origin)
    }
  }

  /// The clock's boot time in epoch ms, and its file's report.
  static func bootOffset(_ clock: Clock, folder: String, options: ReadOptions) throws -> (Int64?, FileReport) {
    let path = try path(of: clock.file, in: folder)
    guard isWallClock(clock.epoch.format), !isWallClock(clock.relative.format) else {
      throw TraceError.unsupported(
        SourceLocation(file: Excerpt.of(clock.file, bytes: 120), line: 1),
        reason: "a clock pairs a wall-clock column with a relative one")
    }
    // Epoch ms as keys, the relative time (in seconds) as a scalar value.
    let relativeFactor = clock.relative.format == "relative-milliseconds" ? 1e-3 : 1
    let spec = CSVRowSpec(
      time: try timeSpec(clock.epoch, origin: 0, file: clock.file),
      fields: [.scalar(.init(clock.relative.column), factor: relativeFactor, range: nil)], keysAreMilliseconds: true)
    let source = try CSVRowSource(path: path, name: clock.file, spec: spec, columnCount: 1, options: options)
    var offsets: [Double] = []
    while let block = try source.next() {
      for i in 0..<block.count where offsets.count < 100_000 {
        let relative = block.columns[0][i]
        if relative.isFinite && ReadingBounds.isSensorTime(relative) { offsets.append(block.keys[i] - relative * 1000) }
      }
    }
    var report = source.report
    report.settle()
    guard !offsets.isEmpty else { return (nil, report) }
    offsets.sort()
    return (ReadingBounds.fixTime(milliseconds: offsets[offsets.count / 2]), report)
  }

  /// One mapped file's plan. `timeOnly`: no streams, keys in ms (to find the origin).
  func plan(
    _ file: File, folder: String, origin: Int64?, relativeClockKnown: Bool, options: ReadOptions,
    timeOnly: Bool = false
  ) throws -> RecordingFile {
    let path = try Self.path(of: file.file, in: folder)
    let name = file.file
    func factor(_ column: Column?, _ quantity: Quantity) throws -> Double {
      guard let unit = column?.unit else { return 1 }
      guard let factor = quantity.factor(from: unit) else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(name, bytes: 120), line: 1, columnName: Excerpt.of(column?.column ?? "", bytes: 80)),
          reason: "unit '\(Excerpt.of(unit, bytes: 40))' is not a unit of \(quantity.rawValue)")
      }
      return factor
    }
    func spec(_ column: Column) -> CSVRowSpec.Column { CSVRowSpec.Column(column.column) }
    var targets: [StreamTarget] = []
    var fields: [CSVRowSpec.Field] = []
    var checks: [(Int, GravityCheck.Kind)] = []
    var units: [String] = []
    func vector(_ v: Vector?, _ target: StreamTarget, _ quantity: Quantity, check: GravityCheck.Kind?) throws {
      guard let v, !timeOnly else { return }
      let fx = try factor(v.x, quantity)
      guard try factor(v.y, quantity) == fx, try factor(v.z, quantity) == fx else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(name, bytes: 120), line: 1), reason: "x, y and z of one stream in different units")
      }
      if let check { checks.append((targets.count, check)) }
      targets.append(target)
      fields.append(.vector(x: spec(v.x), y: spec(v.y), z: spec(v.z), factor: fx, limit: ReadingBounds.axisLimit(quantity)))
      if let unit = v.x.unit { units.append("\(target.name): \(unit)" + (fx == 1 ? "" : " × \(fx) → \(quantity.storedUnit)")) }
    }
    let wallClock = Self.isWallClock(file.time.format)
    let content = file.accelerometer?.content ?? .includesGravity
    try vector(
      file.accelerometer, .accelerometer(content), .acceleration, check: content == .includesGravity ? .totalAcceleration : nil)
    try vector(file.gravity, .gravity, .acceleration, check: .gravityEstimate)
    try vector(file.gyroscope, .gyroscope, .angularRate, check: nil)
    if let b = file.barometer, !timeOnly {
      targets.append(.barometer)
      fields.append(
        .pressure(
          spec(b.pressure), altitude: b.relativeAltitude.map(spec), factor: try factor(b.pressure, .pressure),
          altitudeFactor: try factor(b.relativeAltitude, .length)))
    }
    for (scalarName, column) in (file.scalars ?? [:]).sorted(by: { $0.key < $1.key }) where !timeOnly {
      // A unit of no quantity is kept as given, unconverted.
      let unit = column.unit ?? ""
      let quantity = Quantity.allCases.first { $0.factor(from: unit) != nil }
      targets.append(.scalar(name: scalarName, unit: quantity?.storedUnit ?? unit))
      fields.append(.scalar(spec(column), factor: quantity?.factor(from: unit) ?? 1, range: nil))
    }
    if let f = file.fixes, !timeOnly {
      guard wallClock || relativeClockKnown else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(name, bytes: 120), line: 1),
          reason: "fixes on a relative clock need a \"clock\" in the mapping")
      }
      targets.append(.fixes(provider: nil))
      fields.append(
        .fix(
          .init(
            latitude: spec(f.latitude), longitude: spec(f.longitude), accuracy: f.horizontalAccuracy.map(spec),
            speed: f.speed.map(spec), heading: f.heading.map(spec), altitude: f.altitude.map(spec),
            latitudeFactor: try factor(f.latitude, .angle), longitudeFactor: try factor(f.longitude, .angle),
            accuracyFactor: try factor(f.horizontalAccuracy, .length), speedFactor: try factor(f.speed, .speed),
            headingFactor: try factor(f.heading, .angle), altitudeFactor: try factor(f.altitude, .length),
            originMilliseconds: origin)))
    }
    let fixOnly = timeOnly || (targets == [.fixes(provider: nil)] && wallClock)
    let rowSpec = CSVRowSpec(
      time: try Self.timeSpec(file.time, origin: origin, file: name), fields: fields, keysAreMilliseconds: fixOnly)
    let columnCount = targets.reduce(0) { $0 + $1.columnCount }
    return RecordingFile(
      name: name, targets: targets, rule: targets == [.fixes(provider: nil)] ? .sameKeyOrSameFix : .sameKeyAndValues,
      keysAreMilliseconds: fixOnly, gravityChecks: checks, units: units.isEmpty ? nil : units.joined(separator: "; "),
      open: {
        try CSVRowSource(path: path, name: name, spec: rowSpec, columnCount: columnCount, options: options)
      })
  }
}

extension ColumnMapping.File {
  /// Every numeric column the file maps, keyed "target.field".
  var columns: [(String, ColumnMapping.Column)] {
    var out: [(String, ColumnMapping.Column)] = []
    if let f = fixes {
      out.append(("fixes.latitude", f.latitude))
      out.append(("fixes.longitude", f.longitude))
      if let c = f.horizontalAccuracy { out.append(("fixes.horizontalAccuracy", c)) }
      if let c = f.speed { out.append(("fixes.speed", c)) }
      if let c = f.heading { out.append(("fixes.heading", c)) }
      if let c = f.altitude { out.append(("fixes.altitude", c)) }
    }
    for (prefix, v) in [("accelerometer", accelerometer), ("gravity", gravity), ("gyroscope", gyroscope)] {
      if let v { out += [("\(prefix).x", v.x), ("\(prefix).y", v.y), ("\(prefix).z", v.z)] }
    }
    if let b = barometer {
      out.append(("barometer.pressure", b.pressure))
      if let c = b.relativeAltitude { out.append(("barometer.relativeAltitude", c)) }
    }
    for (name, c) in (scalars ?? [:]).sorted(by: { $0.key < $1.key }) { out.append(("scalar.\(name)", c)) }
    return out
  }
}
