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
  ///   `.unsupported` for a file with no time column or an unknown unit (such
  ///   a file is skipped and reported unless strict).
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport)
  {
    try recording(path: path, options: options).readWhole()
  }

  /// The export as a ``Recording``: meta/ read (time origin, device), each
  /// file's header read to learn its streams and units.
  ///
  /// One stream per kind: an accelerometer with gravity is preferred to a
  /// linear one; otherwise the first file (by name) that holds a kind feeds
  /// it and later ones are read for the report only.
  static func recording(path: String, options: ReadOptions) throws -> Recording {
    let isFolder = FolderListing.isFolder(path)
    guard isFolder || FileManager.default.fileExists(atPath: path) else {
      throw TraceError.io(path: path, reason: "no such file or folder")
    }
    let folder = isFolder ? path : (path as NSString).deletingLastPathComponent
    let files: [String]
    if isFolder {
      files = try FolderListing.names(path).filter { $0.lowercased().hasSuffix(".csv") }
      guard !files.isEmpty else { throw TraceError.io(path: path, reason: "no phyphox CSV files") }
    } else {
      files = [(path as NSString).lastPathComponent]
    }
    var recording = Recording(metadata: TraceMetadata(format: "phyphox"), files: [], options: options)
    readMeta(folder: folder, into: &recording, options: options)
    let origin = recording.metadata.timeOriginMilliseconds
    var planned: [RecordingFile] = []
    for file in files {
      let full = (folder as NSString).appendingPathComponent(file)
      recording.metadata.sourceFiles.append(file)
      do {
        planned.append(try plan(full, name: file, origin: origin, options: options))
      } catch let error as TraceError {
        if options.strict { throw error }
        planned.append(failed(file, error))
      }
    }
    // One file per stream: the accelerometer with gravity first, then by name.
    var taken = Set<String>()
    var wanted = Array(repeating: Set<String>(), count: planned.count)
    for i in planned.indices.sorted(by: { (rank(planned[$0]), $0) < (rank(planned[$1]), $1) }) {
      wanted[i] = Set(planned[i].targets.map(kind).filter { taken.insert($0).inserted })
    }
    for (i, file) in planned.enumerated() {
      let keep = Set(file.targets.map(kind))
      if keep == wanted[i] {
        recording.files.append(file)
      } else {
        let full = (folder as NSString).appendingPathComponent(file.name)
        recording.files.append(
          try plan(full, name: file.name, origin: origin, options: options, only: wanted[i]))
      }
    }
    return recording
  }

  /// Preference of a file for the stream it shares with others (lower first).
  private static func rank(_ file: RecordingFile) -> Int {
    file.targets.contains(.accelerometer(.includesGravity)) ? 0 : 1
  }

  /// The stream a target feeds, whatever its details (one accelerometer,
  /// with gravity or not).
  private static func kind(_ target: StreamTarget) -> String {
    if case .accelerometer = target { return "accelerometer" }
    return target.name
  }

  /// A file that failed while planning: reading it reports the failure.
  private static func failed(_ name: String, _ error: TraceError) -> RecordingFile {
    RecordingFile(
      name: name, targets: [], rule: .sameKeyAndValues, keysAreMilliseconds: false, gravityChecks: [],
      units: nil,
      open: { throw error })
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

  /// One sensor file's plan, from its header: the columns it holds, each
  /// with its unit converted.
  /// `only`: the streams (by ``kind(_:)``) to feed; nil for all it holds.
  static func plan(
    _ path: String, name: String, origin: Int64?, options: ReadOptions, only: Set<String>? = nil
  ) throws -> RecordingFile {
    typealias Column = CSVRowSpec.Column
    let header = try CSVHeader.read(path: path, displayName: name, options: options)
    var columns: [String: (Column, Double)] = [:]  // lower-case name → (header column, factor)
    var positions: [String: Int] = [:]  // lower-case name → its header column
    var units: [String] = []
    for (index, field) in header.enumerated() {
      let (columnName, unit) = splitHeader(field)
      guard let quantity = quantity(of: columnName) else { continue }
      if let first = positions.updateValue(index, forKey: columnName.lowercased()) {
        // One quantity in two columns (two units, or the same name twice):
        // which to read is unknown.
        throw TraceError.malformed(
          SourceLocation(file: name, line: 1, column: index + 1, columnName: Excerpt.of(field, bytes: 80)),
          reason:
            "columns \(first + 1) and \(index + 1) are both '\(Excerpt.of(columnName, bytes: 80))': which one to read is unknown"
        )
      }
      var factor = 1.0
      if let unit {
        guard let f = quantity.factor(from: unit) else {
          throw TraceError.unsupported(
            SourceLocation(file: name, line: 1, column: index + 1, columnName: Excerpt.of(field, bytes: 80)),
            reason: "unit '\(Excerpt.of(unit, bytes: 40))' is not a unit of \(quantity.rawValue)")
        }
        factor = f
        units.append("\(columnName) in \(unit)" + (f == 1 ? "" : " × \(f) → \(quantity.storedUnit)"))
      }
      columns[columnName.lowercased()] = (Column(names: [field]), factor)
    }
    guard let (timeColumn, timeFactor) = columns["time"] else {
      throw TraceError.malformed(
        SourceLocation(file: name, line: 1),
        reason: "no \"Time (s)\" column (header: \(Excerpt.of(header.joined(separator: ", "))))")
    }
    var targets: [StreamTarget] = []
    var fields: [CSVRowSpec.Field] = []
    var check: (Int, GravityCheck.Kind)?
    func vector(_ prefix: String, _ target: StreamTarget, limit: Double) {
      guard only?.contains(kind(target)) ?? true, let (x, fx) = columns["\(prefix) x"],
        let (y, fy) = columns["\(prefix) y"], let (z, fz) = columns["\(prefix) z"], fx == fy, fy == fz
      else { return }
      if target == .accelerometer(.includesGravity) { check = (targets.count, .totalAcceleration) }
      targets.append(target)
      fields.append(.vector(x: x, y: y, z: z, factor: fx, limit: limit))
    }
    let accelerationLimit = ReadingBounds.maximumAccelerationMetersPerSecondSquared
    if columns["acceleration x"] != nil {
      vector("acceleration", .accelerometer(.includesGravity), limit: accelerationLimit)
    } else {
      vector("linear acceleration", .accelerometer(.excludesGravity), limit: accelerationLimit)
    }
    vector("gyroscope", .gyroscope, limit: ReadingBounds.maximumAngularRateRadiansPerSecond)
    if let (p, factor) = columns["pressure"], only?.contains(kind(.barometer)) ?? true {
      targets.append(.barometer)
      fields.append(.pressure(p, altitude: nil, factor: factor, altitudeFactor: 1))
    }
    var fixOnly = false
    if let (lat, latFactor) = columns["latitude"], let (lon, lonFactor) = columns["longitude"],
      only?.contains(kind(.fixes(provider: nil))) ?? true
    {
      fixOnly = targets.isEmpty
      targets.append(.fixes(provider: nil))
      fields.append(
        .fix(
          .init(
            latitude: lat, longitude: lon, accuracy: columns["horizontal accuracy"]?.0,
            speed: columns["velocity"]?.0,
            heading: columns["direction"]?.0, altitude: columns["height"]?.0, latitudeFactor: latFactor,
            longitudeFactor: lonFactor, accuracyFactor: columns["horizontal accuracy"]?.1 ?? 1,
            speedFactor: columns["velocity"]?.1 ?? 1, headingFactor: columns["direction"]?.1 ?? 1,
            altitudeFactor: columns["height"]?.1 ?? 1, originMilliseconds: origin ?? 0)))
    }
    let spec = CSVRowSpec(
      time: .seconds(timeColumn, factor: timeFactor), fields: fields, keysAreMilliseconds: false)
    let columnCount = targets.reduce(0) { $0 + $1.columnCount }
    return RecordingFile(
      name: name, targets: targets, rule: fixOnly ? .sameKeyOrSameFix : .sameKeyAndValues,
      keysAreMilliseconds: false,
      gravityChecks: check.map { [$0] } ?? [], units: units.isEmpty ? nil : units.joined(separator: "; "),
      open: { [spec] in
        try CSVRowSource(path: path, name: name, spec: spec, columnCount: columnCount, options: options)
      })
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
  static func readMeta(folder: String, into recording: inout Recording, options: ReadOptions) {
    let meta = (folder as NSString).appendingPathComponent("meta")
    let timePath = (meta as NSString).appendingPathComponent("time.csv")
    if FileManager.default.fileExists(atPath: timePath),
      var (table, fileReport) = try? CSVTable.read(
        path: timePath, displayName: "meta/time.csv", options: options,
        wants: [
          .init(key: "event", names: ["event"], kind: .text, required: true),
          .init(key: "system", names: ["system time"], kind: .number, required: true),
        ], maximumRows: 64)
    {
      if let start = table.texts["event"]?.firstIndex(of: "START"),
        let seconds = table.numbers["system"]?[start]
      {
        if let origin = ReadingBounds.fixTime(milliseconds: seconds * 1000) {
          recording.metadata.timeOriginMilliseconds = origin
        } else {
          fileReport.units = "START system time \(seconds) s is not a time within 1900–2200: ignored"
        }
      }
      table = CSVTable()
      recording.plannedReports.append(fileReport)
    }
    let devicePath = (meta as NSString).appendingPathComponent("device.csv")
    if FileManager.default.fileExists(atPath: devicePath),
      let (table, fileReport) = try? CSVTable.read(
        path: devicePath, displayName: "meta/device.csv", options: options,
        wants: [
          .init(key: "property", names: ["property"], kind: .text, required: true),
          .init(key: "value", names: ["value"], kind: .text, required: true),
        ], maximumRows: 256)
    {
      recording.plannedReports.append(fileReport)
      let properties = Dictionary(
        zip(table.texts["property"] ?? [], table.texts["value"] ?? []), uniquingKeysWith: { a, _ in a })
      if let model = properties["deviceModel"] {
        recording.metadata.device = [properties["deviceBrand"], model].compactMap { $0 }.joined(
          separator: " ")
      }
      if properties["deviceRelease"] != nil && properties["deviceBaseOS"] != nil {
        recording.metadata.platform = .android
      }
    }
  }
}
