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

  /// Loads a mapping from a JSON file.
  /// - Throws: `TraceError.io`; `.malformed` with the decoder's reason.
  public static func load(path: String) throws -> ColumnMapping {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TraceError.io(path: path, reason: "cannot read the mapping")
    }
    do {
      return try JSONDecoder().decode(ColumnMapping.self, from: data)
    } catch {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 1), reason: "not a column mapping: \(error)")
    }
  }

  /// Reads the mapped files from `folder` into one trace.
  ///
  /// - Throws: `TraceError.unsupported` for an unknown unit or time format
  ///   (naming the mapping field); the CSV errors of each file. A file that is
  ///   missing or broken sinks the import: a mapping names exactly what it
  ///   expects.
  public func read(folder: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport) {
    var report = ImportReport()
    var trace = Trace(metadata: TraceMetadata(format: "csv-mapping:\(name)"))
    // Wall-clock origin: from the clock file, else the earliest wall-clock time seen.
    var bootOffsetMilliseconds: Double?
    if let clock {
      let path = (folder as NSString).appendingPathComponent(clock.file)
      let (table, _) = try CSVTable.read(
        path: path, displayName: clock.file, options: options,
        wants: [
          .init(
            key: "epoch", names: [clock.epoch.column],
            kind: clock.epoch.format == "iso8601" ? .text : .number, required: true),
          .init(key: "relative", names: [clock.relative.column], kind: .number, required: true),
        ])
      let epoch = try Self.epochMilliseconds(
        table, key: "epoch", format: clock.epoch.format, mappingFile: clock.file)
      let relative = try Self.relativeSeconds(
        table.numbers["relative"]!, format: clock.relative.format, file: clock.file)
      let offsets = zip(epoch, relative).filter { $0.0 != Int64.min && $0.1.isFinite }
        .map { Double($0.0) - $0.1 * 1000 }.sorted()
      bootOffsetMilliseconds = offsets.isEmpty ? nil : offsets[offsets.count / 2]
    }
    var parts: [(File, CSVTable, FileReport)] = []
    for file in files {
      let path = (folder as NSString).appendingPathComponent(file.file)
      var wants: [CSVTable.Want] = [
        .init(
          key: "time", names: [file.time.column], kind: file.time.format == "iso8601" ? .text : .number,
          required: true)
      ]
      for (key, column) in file.columns {
        wants.append(.init(key: key, names: [column.column], kind: .number, required: true))
      }
      let (table, fileReport) = try CSVTable.read(
        path: path, displayName: file.file, options: options, wants: wants)
      parts.append((file, table, fileReport))
      trace.metadata.sourceFiles.append(file.file)
    }
    // Sensor time origin: the clock's boot time, else the first wall-clock time.
    var origin: Double? = bootOffsetMilliseconds
    if origin == nil {
      for (file, table, _) in parts
      where file.time.format != "relative-seconds" && file.time.format != "relative-milliseconds" {
        if let first = try Self.epochMilliseconds(
          table, key: "time", format: file.time.format, mappingFile: file.file
        ).min() {
          origin = min(origin ?? Double(first), Double(first))
        }
      }
    }
    trace.metadata.timeOriginMilliseconds = origin.map { Int64($0.rounded()) }
    for (file, table, fileReport0) in parts {
      var fileReport = fileReport0
      let isRelative = file.time.format.hasPrefix("relative-")
      let allSeconds: [Double] =
        isRelative
        ? try Self.relativeSeconds(table.numbers["time"]!, format: file.time.format, file: file.file)
        : try Self.epochMilliseconds(table, key: "time", format: file.time.format, mappingFile: file.file).map
        {
          $0 == Int64.min ? .nan : (Double($0) - (origin ?? 0)) / 1000
        }
      // Rows without a usable time are rejected here, once for every target.
      var keep: [Int] = []
      keep.reserveCapacity(allSeconds.count)
      for (i, t) in allSeconds.enumerated() {
        if t.isFinite {
          keep.append(i)
          continue
        }
        let rejection = RowRejection(
          location: SourceLocation(file: file.file, line: table.lines[i], columnName: file.time.column),
          reason: .badTime, detail: table.texts["time"]?[i] ?? "\(table.numbers["time"]?[i] ?? .nan)")
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        fileReport.rowsKept -= 1
        fileReport.reject(rejection)
      }
      let seconds = keep.map { allSeconds[$0] }
      let lines = keep.map { table.lines[$0] }
      func values(_ key: String, _ column: Column, _ quantity: Quantity) throws -> [Double] {
        let raw = table.numbers[key]!
        guard let unit = column.unit else { return keep.map { raw[$0] } }
        guard let factor = quantity.factor(from: unit) else {
          throw TraceError.unsupported(
            SourceLocation(file: file.file, line: 1, columnName: column.column),
            reason: "unit '\(unit)' is not a unit of \(quantity.rawValue)")
        }
        return keep.map { raw[$0] * factor }
      }
      func vector(_ prefix: String, _ v: Vector, _ quantity: Quantity) throws -> VectorStream {
        StreamAssembly.finish(
          VectorStream(
            seconds: seconds, x: try values("\(prefix).x", v.x, quantity),
            y: try values("\(prefix).y", v.y, quantity),
            z: try values("\(prefix).z", v.z, quantity)), lines: lines, report: &fileReport)
      }
      if let v = file.accelerometer {
        trace.accelerometer = AccelerationStream(
          samples: try vector("accelerometer", v, .acceleration), content: v.content ?? .includesGravity)
      }
      if let v = file.gravity { trace.gravity = try vector("gravity", v, .acceleration) }
      if let v = file.gyroscope { trace.gyroscope = try vector("gyroscope", v, .angularRate) }
      if let b = file.barometer {
        let pressure = try values("barometer.pressure", b.pressure, .pressure)
        let altitude = try b.relativeAltitude.map { try values("barometer.relativeAltitude", $0, .length) }
        trace.barometer = StreamAssembly.finish(
          PressureStream(seconds: seconds, hectopascals: pressure, relativeAltitudeMeters: altitude),
          lines: lines, report: &fileReport)
      }
      for (name, column) in (file.scalars ?? [:]).sorted(by: { $0.key < $1.key }) {
        let unit = column.unit ?? ""
        let quantity = Quantity.allCases.first { $0.factor(from: unit) != nil }
        let converted =
          try quantity.map { try values("scalar.\(name)", column, $0) }
          ?? keep.map { table.numbers["scalar.\(name)"]![$0] }
        trace.scalars[name] = ScalarStream(
          seconds: seconds, values: converted, unit: quantity?.storedUnit ?? unit)
      }
      if let f = file.fixes {
        guard !isRelative || origin != nil else {
          throw TraceError.unsupported(
            SourceLocation(file: file.file, line: 1),
            reason: "fixes on a relative clock need a \"clock\" in the mapping")
        }
        let lat = try values("fixes.latitude", f.latitude, .angle)
        let lon = try values("fixes.longitude", f.longitude, .angle)
        let accuracy = try f.horizontalAccuracy.map { try values("fixes.horizontalAccuracy", $0, .length) }
        let speed = try f.speed.map { try values("fixes.speed", $0, .speed) }
        let heading = try f.heading.map { try values("fixes.heading", $0, .angle) }
        let altitude = try f.altitude.map { try values("fixes.altitude", $0, .length) }
        var fixes = FixColumns()
        var fixLines: [Int] = []
        for i in seconds.indices {
          if let problem = positionProblem(latitude: lat[i], longitude: lon[i]) {
            let rejection = RowRejection(
              location: SourceLocation(file: file.file, line: lines[i]), reason: problem,
              detail: "latitude \(lat[i]), longitude \(lon[i]), time \(seconds[i])")
            if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
            fileReport.rowsKept -= 1
            fileReport.reject(rejection)
            continue
          }
          let a = accuracy.map { $0[i] >= 0 ? $0[i] : .nan } ?? .nan
          fixes.append(
            Fix(
              timeMilliseconds: Int64(((origin ?? 0) + seconds[i] * 1000).rounded()),
              latitudeDegrees: lat[i], longitudeDegrees: lon[i], horizontalAccuracyMeters: a,
              speedMetersPerSecond: speed.flatMap {
                SpeedReading.speedMetersPerSecond(raw: $0[i], horizontalAccuracyMeters: a)
              },
              headingDegrees: heading.flatMap { $0[i].isNaN ? nil : $0[i] },
              altitudeMeters: altitude.flatMap { $0[i].isNaN ? nil : $0[i] }))
          fixLines.append(lines[i])
        }
        trace.fixes = StreamAssembly.finish(fixes, lines: fixLines, report: &fileReport)
      }
      report.files.append(fileReport)
    }
    return (trace, report)
  }

  static func relativeSeconds(_ values: [Double], format: String, file: String) throws -> [Double] {
    switch format {
    case "relative-seconds": return values
    case "relative-milliseconds": return values.map { $0 / 1000 }
    default:
      throw TraceError.unsupported(
        SourceLocation(file: file, line: 1), reason: "time format '\(format)' is not a relative clock")
    }
  }

  static func epochMilliseconds(_ table: CSVTable, key: String, format: String, mappingFile: String) throws
    -> [Int64]
  {
    switch format {
    case "iso8601":
      return table.texts[key]!.map { ISOTime.milliseconds(Substring($0)) ?? Int64.min }  // min = unparsable
    case "epoch-milliseconds":
      return table.numbers[key]!.map { $0.isFinite ? Int64($0.rounded()) : Int64.min }
    case "epoch-seconds":
      return table.numbers[key]!.map { $0.isFinite ? Int64(($0 * 1000).rounded()) : Int64.min }
    case "epoch-nanoseconds":
      return table.numbers[key]!.map { $0.isFinite ? Int64(($0 / 1e6).rounded()) : Int64.min }
    default:
      throw TraceError.unsupported(
        SourceLocation(file: mappingFile, line: 1), reason: "time format '\(format)'")
    }
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
