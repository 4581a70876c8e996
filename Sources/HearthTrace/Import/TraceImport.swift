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

  /// What `path` holds, or nil when no reader recognises it (or it cannot be read).
  public static func format(of path: String, hasMapping: Bool = false) -> Format? {
    (try? recognise(path, hasMapping: hasMapping)) ?? nil
  }

  /// What `path` holds, nil when nothing recognises it.
  /// - Throws: `TraceError.io` when it is a folder that cannot be listed.
  static func recognise(
    _ path: String, hasMapping: Bool, listing: (String) throws -> [String] = FolderListing.names
  ) throws -> Format? {
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
    if isDirectory.boolValue {
      let names = Set(try listing(path))
      if names.contains("trace.json") || generatedTrace(in: path) != nil { return .traceFolder }
      if names.contains("processed_log") { return .comma2k19 }
      if hasMapping { return .columnMapping }
      // phyphox first: its folders may hold an Accelerometer.csv too, but
      // Sensor Logger's never hold meta/.
      if names.contains("meta") || names.contains("Raw Data.csv") { return .phyphox }
      if !names.isDisjoint(with: SensorLoggerFile.allCases.map(\.rawValue)) { return .sensorLogger }
      return nil
    }
    switch (path as NSString).pathExtension.lowercased() {
    case "gpx": return .gpx
    case "traj": return .tracktable
    case "csv":
      if hasMapping { return .columnMapping }
      let bytes = try RegularFile.prefix(path, bytes: 256)
      // A phyphox CSV saved as UTF-16 is named as that, not "not recognised".
      if let problem = TextEncoding.problem(bytes) {
        throw TraceError.unsupported(SourceLocation(file: path, line: 1), reason: problem)
      }
      let head = String(decoding: bytes, as: UTF8.self)
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

  static let notRecognised =
    "not a recognised trace (Sensor Logger or phyphox folder, GPX, .traj, trace folder, comma2k19 segment; or pass a column mapping)"

  /// Reads a trace from `path` (see the table above), whole. `mappingPath`
  /// selects the generic CSV reader for a folder (or the folder of a CSV file).
  /// - Throws: `TraceError.io` when the path is missing or cannot be read
  ///   (a folder that cannot be listed, a FIFO); `.unsupported` when nothing
  ///   recognises it; otherwise the chosen reader's errors.
  public static func read(
    path: String, mappingPath: String? = nil, options: ReadOptions = ReadOptions()
  ) throws -> (Trace, ImportReport) {
    switch try plan(path: path, mappingPath: mappingPath, options: options) {
    case .recording(let recording): return try recording.readWhole()
    case .whole(let trace, let report): return (trace, report)
    }
  }

  /// Opens a trace at `path` for reading in time order, chunk by chunk, in
  /// bounded memory (``TraceStream``). The formats that cannot stream (GPX,
  /// `.traj`) are read here, whole.
  /// - Throws: as ``read(path:mappingPath:options:)``, for what can be known
  ///   before the rows are read.
  public static func stream(
    path: String, mappingPath: String? = nil, options: ReadOptions = ReadOptions()
  ) throws -> TraceStream {
    switch try plan(path: path, mappingPath: mappingPath, options: options) {
    case .recording(let recording): return TraceStream(recording: recording)
    case .whole(let trace, let report): return TraceStream(whole: trace, report: report)
    }
  }

  enum Plan {
    case recording(Recording)
    case whole(Trace, ImportReport)
  }

  static func plan(path: String, mappingPath: String?, options: ReadOptions) throws -> Plan {
    guard FileManager.default.fileExists(atPath: path) else {
      throw TraceError.io(path: path, reason: "no such file or folder")
    }
    guard let format = try recognise(path, hasMapping: mappingPath != nil) else {
      // A FIFO or device is named as what it is, with or without a known
      // extension (review26 F10: without one it was "not recognised").
      if !FolderListing.isFolder(path) { _ = try RegularFile.prefix(path, bytes: 0) }
      throw TraceError.unsupported(SourceLocation(file: path, line: 0), reason: notRecognised)
    }
    switch format {
    case .traceFolder:
      return .recording(try TraceFolder.recording(generatedTrace(in: path) ?? path, options: options))
    case .comma2k19: return .recording(try TraceFolder.comma2k19Recording(path, options: options))
    case .sensorLogger: return .recording(try SensorLoggerReader.recording(folder: path, options: options))
    case .phyphox: return .recording(try PhyphoxReader.recording(path: path, options: options))
    case .columnMapping:
      guard let mappingPath else {
        throw TraceError.unsupported(SourceLocation(file: path, line: 0), reason: notRecognised)
      }
      let mapping = try ColumnMapping.load(path: mappingPath)
      let folder = FolderListing.isFolder(path) ? path : (path as NSString).deletingLastPathComponent
      return .recording(try mapping.recording(folder: folder, options: options))
    case .gpx:
      var (trace, report) = try GPX.read(path: path, options: options)
      var spans = StreamSpans()
      spans.add(trace)
      report.streamSpans = spans.spans
      return .whole(trace, report)
    case .tracktable:
      let (trajectories, fileReport) = try TracktableReader.read(path: path, options: options)
      var trace = Trace(
        metadata: TraceMetadata(sourceFiles: [(path as NSString).lastPathComponent], format: "tracktable"))
      var fixes = FixColumns()
      fixes.reserveCapacity(trajectories.reduce(0) { $0 + $1.fixes.count })
      for trajectory in trajectories { fixes.append(contentsOf: trajectory.fixes) }
      trace.fixes = fixes
      trace.metadata.timeOriginMilliseconds = fixes.timeMilliseconds.min()
      var report = ImportReport()
      report.files = [fileReport]
      var spans = StreamSpans()
      spans.add(trace)
      report.streamSpans = spans.spans
      return .whole(trace, report)
    }
  }
}
