import Foundation
import HearthGeo

/// The one door every tool reads traces through: give it a file or a folder,
/// it recognises the format and returns the trace with a report of every row
/// it kept and rejected.
///
/// | path | read as |
/// |---|---|
/// | folder with trace.json | ``TraceFolder`` (our .npy columns) |
/// | folder with trace/ and label.json, plan.json or day.json | its `trace/` (what `hearth sim generate` writes) |
/// | folder with processed_log/ | a comma2k19 segment |
/// | folder with Location.csv, Accelerometer.csv, … | ``SensorLoggerReader`` |
/// | folder with meta/ or Raw Data.csv | ``PhyphoxReader`` |
/// | any folder, with a mapping | ``ColumnMapping`` |
/// | *.gpx | ``GPX`` |
/// | *.traj | ``TracktableReader`` (every trajectory's fixes, one device per ship) |
/// | a phyphox CSV ("Time (s)" first) | ``PhyphoxReader`` |
public enum TraceImport {
  public enum Format: String, Sendable, CaseIterable {
    case traceFolder, comma2k19, sensorLogger, phyphox, columnMapping, gpx, tracktable
  }

  /// What `path` holds, or nil when no reader recognises it.
  public static func format(of path: String, hasMapping: Bool = false) -> Format? {
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
    if isDirectory.boolValue {
      let names = Set((try? fm.contentsOfDirectory(atPath: path)) ?? [])
      if names.contains("trace.json") || generatedTrace(in: path) != nil { return .traceFolder }
      if names.contains("processed_log") { return .comma2k19 }
      if hasMapping { return .columnMapping }
      let sensorLogger = [
        "Location.csv", "Accelerometer.csv", "TotalAcceleration.csv", "Gyroscope.csv", "Barometer.csv",
        "Metadata.csv",
      ]
      if !names.isDisjoint(with: sensorLogger) { return .sensorLogger }
      if names.contains("meta") || names.contains("Raw Data.csv") { return .phyphox }
      return nil
    }
    switch (path as NSString).pathExtension.lowercased() {
    case "gpx": return .gpx
    case "traj": return .tracktable
    case "csv":
      if hasMapping { return .columnMapping }
      guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
      defer { try? handle.close() }
      let head = String(decoding: handle.readData(ofLength: 256), as: UTF8.self)
      return head.hasPrefix("\"Time (s)\"") || head.hasPrefix("Time (s)") ? .phyphox : nil
    default: return nil
    }
  }

  /// The trace folder inside a folder `hearth sim generate` wrote (`trace/`
  /// beside its labels), or nil when `path` is not such a folder.
  static func generatedTrace(in path: String) -> String? {
    let fm = FileManager.default
    let names = Set((try? fm.contentsOfDirectory(atPath: path)) ?? [])
    guard names.contains("trace"), !names.isDisjoint(with: ["label.json", "plan.json", "day.json"]) else {
      return nil
    }
    let inner = (path as NSString).appendingPathComponent("trace")
    return fm.fileExists(atPath: (inner as NSString).appendingPathComponent("trace.json")) ? inner : nil
  }

  /// Reads a trace from `path` (see the table above). `mappingPath` selects
  /// the generic CSV reader for a folder (or the folder of a CSV file).
  /// - Throws: `TraceError.unsupported` when nothing recognises the path;
  ///   otherwise the chosen reader's errors.
  public static func read(
    path: String, mappingPath: String? = nil, options: ReadOptions = ReadOptions()
  ) throws -> (Trace, ImportReport) {
    guard let format = format(of: path, hasMapping: mappingPath != nil) else {
      throw TraceError.unsupported(
        SourceLocation(file: path, line: 0),
        reason:
          "not a recognised trace (Sensor Logger or phyphox folder, GPX, .traj, trace folder, comma2k19 segment; or pass a column mapping)"
      )
    }
    switch format {
    case .traceFolder: return try TraceFolder.read(generatedTrace(in: path) ?? path)
    case .comma2k19: return try TraceFolder.readComma2k19Segment(path)
    case .sensorLogger: return try SensorLoggerReader.read(folder: path, options: options)
    case .phyphox: return try PhyphoxReader.read(path: path, options: options)
    case .gpx: return try GPX.read(path: path, options: options)
    case .columnMapping:
      let mapping = try ColumnMapping.load(path: mappingPath!)
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      return try mapping.read(
        folder: isDirectory.boolValue ? path : (path as NSString).deletingLastPathComponent, options: options)
    case .tracktable:
      let (trajectories, fileReport) = try TracktableReader.read(path: path, options: options)
      var trace = Trace(
        metadata: TraceMetadata(sourceFiles: [(path as NSString).lastPathComponent], format: "tracktable"))
      var fixes = FixColumns()
      fixes.reserveCapacity(trajectories.reduce(0) { $0 + $1.fixes.count })
      for trajectory in trajectories {
        for i in 0..<trajectory.fixes.count { fixes.append(from: trajectory.fixes, at: i) }
      }
      trace.fixes = fixes
      trace.metadata.timeOriginMilliseconds = fixes.timeMilliseconds.min()
      var report = ImportReport()
      report.files = [fileReport]
      return (trace, report)
    }
  }
}
