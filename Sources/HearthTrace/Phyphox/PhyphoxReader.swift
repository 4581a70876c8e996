import Foundation
import HearthGeo

/// Reads a phyphox CSV export: a folder with one CSV per sensor ("Raw
/// Data.csv" for single-sensor experiments) and meta/time.csv, meta/device.csv.
///
/// Headers are quoted and carry units: `"Time (s)"`, `"Acceleration x
/// (m/s^2)"`, `"Gyroscope x (rad/s)"`, `"Pressure (hPa)"`, `"Latitude (°)"`.
/// Exports made in locales that write 1,5 use `;` between fields and a decimal
/// comma; both are detected. `NaN` fields read as missing. Units are taken
/// from the header and converted (m/s² and g, rad/s and °/s, hPa, kPa and Pa,
/// m/s and km/h); an unknown unit rejects the file with its name and column.
///
/// Which columns become what:
/// - `Acceleration x/y/z` (phyphox's "Acceleration with g") → accelerometer,
///   gravity included; `Linear Acceleration x/y/z` → gravity removed.
/// - `Gyroscope x/y/z` → gyroscope. `Pressure` → barometer.
/// - `Latitude`, `Longitude`, `Height`, `Velocity`, `Direction`,
///   `Horizontal Accuracy` → fixes, timed from meta/time.csv's START.
/// Other columns (absolute values, magnetometer) are ignored.
public enum PhyphoxReader {
  /// Reads the export folder (or a single phyphox CSV file).
  /// - Throws: `TraceError.io` for an unreadable path; `.malformed` /
  ///   `.unsupported` for a file with no time column or an unknown unit (in a
  ///   folder such a file is skipped and reported unless strict).
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport)
  {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw TraceError.io(path: path, reason: "no such file or folder")
    }
    let folder = isDirectory.boolValue ? path : (path as NSString).deletingLastPathComponent
    let files: [String]
    if isDirectory.boolValue {
      files = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
        .filter { $0.lowercased().hasSuffix(".csv") }.sorted()
      guard !files.isEmpty else { throw TraceError.io(path: path, reason: "no phyphox CSV files") }
    } else {
      files = [(path as NSString).lastPathComponent]
    }
    var metadata = TraceMetadata(format: "phyphox")
    var report = ImportReport()
    readMeta(folder: folder, into: &metadata, report: &report, options: options)
    var trace = Trace(metadata: metadata)
    for file in files {
      let full = (folder as NSString).appendingPathComponent(file)
      trace.metadata.sourceFiles.append(file)
      do {
        report.files.append(try readSensorFile(full, name: file, into: &trace, options: options))
      } catch let error as TraceError {
        if options.strict { throw error }
        var skipped = FileReport(file: file)
        skipped.skippedBecause = error.description
        report.files.append(skipped)
      }
    }
    return (trace, report)
  }

  /// A header such as "Acceleration x (m/s^2)" split into name and unit.
  static func splitHeader(_ header: String) -> (name: String, unit: String?) {
    guard header.hasSuffix(")"), let open = header.lastIndex(of: "(") else {
      return (header.trimmingCharacters(in: .whitespaces), nil)
    }
    let name = header[..<open].trimmingCharacters(in: .whitespaces)
    let unit = header[header.index(after: open)..<header.index(before: header.endIndex)]
    return (name, String(unit))
  }

  struct Column {
    var index: Int
    var name: String
    var factor: Double
  }

  static func readSensorFile(
    _ path: String, name: String, into trace: inout Trace, options: ReadOptions
  ) throws -> FileReport {
    var columns: [String: Column] = [:]
    var numbers: [[Double]] = []
    var lines: [Int] = []
    var report = try CSVStream.read(
      path: path, displayName: name, options: options,
      select: { header, _ in
        var requests: [CSVColumnRequest] = []
        for (index, field) in header.enumerated() {
          let (columnName, unit) = splitHeader(field)
          guard let quantity = quantity(of: columnName) else { continue }
          let factor: Double
          if let unit {
            guard let f = quantity.factor(from: unit) else {
              throw TraceError.unsupported(
                SourceLocation(file: name, line: 1, column: index + 1, columnName: field),
                reason: "unit '\(unit)' is not a unit of \(quantity.rawValue)")
            }
            factor = f
          } else {
            factor = 1
          }
          columns[columnName.lowercased()] = Column(index: requests.count, name: columnName, factor: factor)
          requests.append(CSVColumnRequest(index: index, kind: .number))
        }
        guard columns["time"] != nil else {
          throw TraceError.malformed(
            SourceLocation(file: name, line: 1),
            reason: "no \"Time (s)\" column (header: \(header.joined(separator: ", ")))")
        }
        numbers = Array(repeating: [], count: requests.count)
        return requests
      },
      body: { batch in
        for k in numbers.indices { numbers[k].append(contentsOf: batch.numbers[k]) }
        lines.append(contentsOf: batch.lines)
      })
    func column(_ key: String) -> [Double]? {
      guard let c = columns[key] else { return nil }
      return c.factor == 1 ? numbers[c.index] : numbers[c.index].map { $0 * c.factor }
    }
    let seconds = column("time")!
    func vector(_ prefix: String) -> VectorStream? {
      guard let x = column("\(prefix) x"), let y = column("\(prefix) y"), let z = column("\(prefix) z") else {
        return nil
      }
      return StreamAssembly.finish(
        VectorStream(seconds: seconds, x: x, y: y, z: z), lines: lines, report: &report)
    }
    if let stream = vector("acceleration") {
      trace.accelerometer = AccelerationStream(samples: stream, content: .includesGravity)
    }
    if let stream = vector("linear acceleration") {
      trace.accelerometer = AccelerationStream(samples: stream, content: .excludesGravity)
    }
    if let stream = vector("gyroscope") { trace.gyroscope = stream }
    if let pressure = column("pressure") {
      trace.barometer = StreamAssembly.finish(
        PressureStream(seconds: seconds, hectopascals: pressure), lines: lines, report: &report)
    }
    if let latitude = column("latitude"), let longitude = column("longitude") {
      var fixes = FixColumns()
      let origin = trace.metadata.timeOriginMilliseconds ?? 0
      let accuracy = column("horizontal accuracy")
      let speed = column("velocity")
      let heading = column("direction")
      let height = column("height")
      for i in seconds.indices where abs(latitude[i]) <= 90 && abs(longitude[i]) <= 180 {
        let a = accuracy?[i] ?? .nan
        fixes.append(
          Fix(
            timeMilliseconds: origin + Int64((seconds[i] * 1000).rounded()),
            latitudeDegrees: latitude[i], longitudeDegrees: longitude[i], horizontalAccuracyMeters: a,
            speedMetersPerSecond: speed.flatMap {
              SpeedReading.speedMetersPerSecond(raw: $0[i], horizontalAccuracyMeters: a)
            },
            headingDegrees: heading.flatMap { $0[i].isNaN ? nil : $0[i] },
            altitudeMeters: height.flatMap { $0[i].isNaN ? nil : $0[i] }))
      }
      trace.fixes = fixes
    }
    return report
  }

  /// The quantity of a phyphox column name, or nil for columns we ignore.
  static func quantity(of name: String) -> Quantity? {
    let lower = name.lowercased()
    if lower == "time" { return .duration }
    if lower.hasPrefix("acceleration ") || lower.hasPrefix("linear acceleration ") {
      return lower.hasSuffix(" x") || lower.hasSuffix(" y") || lower.hasSuffix(" z") ? .acceleration : nil
    }
    if lower.hasPrefix("gyroscope ") { return .angularRate }
    switch lower {
    case "pressure": return .pressure
    case "latitude", "longitude", "direction": return .angle
    case "height", "horizontal accuracy", "vertical accuracy": return .length
    case "velocity": return .speed
    default: return nil
    }
  }

  /// meta/time.csv gives the wall-clock time of the START event; meta/device.csv the model.
  static func readMeta(
    folder: String, into metadata: inout TraceMetadata, report: inout ImportReport, options: ReadOptions
  ) {
    let meta = (folder as NSString).appendingPathComponent("meta")
    let timePath = (meta as NSString).appendingPathComponent("time.csv")
    if FileManager.default.fileExists(atPath: timePath),
      let (table, fileReport) = try? CSVTable.read(
        path: timePath, displayName: "meta/time.csv", options: options,
        wants: [
          .init(key: "event", names: ["event"], kind: .text, required: true),
          .init(key: "system", names: ["system time"], kind: .number, required: true),
        ])
    {
      report.files.append(fileReport)
      if let start = table.texts["event"]?.firstIndex(of: "START"),
        let seconds = table.numbers["system"]?[start]
      {
        metadata.timeOriginMilliseconds = Int64((seconds * 1000).rounded())
      }
    }
    let devicePath = (meta as NSString).appendingPathComponent("device.csv")
    if FileManager.default.fileExists(atPath: devicePath),
      let (table, fileReport) = try? CSVTable.read(
        path: devicePath, displayName: "meta/device.csv", options: options,
        wants: [
          .init(key: "property", names: ["property"], kind: .text, required: true),
          .init(key: "value", names: ["value"], kind: .text, required: true),
        ])
    {
      report.files.append(fileReport)
      let properties = Dictionary(
        zip(table.texts["property"] ?? [], table.texts["value"] ?? []), uniquingKeysWith: { a, _ in a })
      if let model = properties["deviceModel"] {
        metadata.device = [properties["deviceBrand"], model].compactMap { $0 }.joined(separator: " ")
      }
      if properties["deviceRelease"] != nil && properties["deviceBaseOS"] != nil {
        metadata.platform = .android
      }
    }
  }
}
