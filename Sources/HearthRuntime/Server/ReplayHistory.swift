import HearthGeo
import HearthTrace

/// A history for `geo replay`: its fixes in arrival order and, for an
/// upload log, each fix's receipt time.
public struct ReplayHistory: Sendable {
  public var fixes = FixColumns()
  public var receivedAtMilliseconds: [Int64]?
  /// Rows of an upload log that could not be read, in line order, each
  /// with its line, column name and reason: the first
  /// ``FileReport/detailLimit`` of them (``unreadableRowCount`` counts all).
  public var rowProblems: [String] = []
  /// Every row of an upload log that could not be read.
  public var unreadableRowCount = 0
  /// The upload log's path, and each fix's line in it (empty for a trace):
  /// what names a fix the server rejects by its row (``ServerReplay``).
  public var logPath: String?
  public var logLines: [Int] = []
  /// What reading a trace (not an upload log) kept and rejected, file by file.
  public var importReport: ImportReport?

  public init(fixes: FixColumns = FixColumns(), receivedAtMilliseconds: [Int64]? = nil) {
    self.fixes = fixes
    self.receivedAtMilliseconds = receivedAtMilliseconds
  }

  /// Reads an upload log (a CSV whose header has `received_ms`: user,
  /// time_ms, latitude, longitude, received_ms and optionally device,
  /// accuracy_m, speed_mps, activity, source; one fix per row in the order
  /// the server got them), or else any trace `hearth` reads (no receipt
  /// times: ``ServerReplay`` cuts it into uploads). Rows of a log that cannot
  /// be read are listed in `rowProblems` (line, column, reason, in line
  /// order), counted in `unreadableRowCount` and skipped;
  /// positions go through as logged, for the server's validation to refuse.
  /// - Throws: `TraceError` when the file cannot be read or a log lacks a
  ///   required column.
  public static func read(path: String, mapping: String?, options: ReadOptions = ReadOptions()) throws
    -> ReplayHistory
  {
    if mapping == nil, path.lowercased().hasSuffix(".csv"), let log = try readUploadLog(path: path) {
      return log
    }
    var history = ReplayHistory()
    let (trace, report) = try TraceImport.read(path: path, mappingPath: mapping, options: options)
    history.fixes = trace.fixes
    history.importReport = report
    return history
  }

  /// The upload-log column a fix's field is read from (nil for a field the
  /// log does not carry): what names the column of a fix the server rejects.
  public static func logColumn(of field: FixField) -> String? {
    switch field {
    case .time: "time_ms"
    case .latitude: "latitude"
    case .longitude: "longitude"
    case .horizontalAccuracy: "accuracy_m"
    case .speed: "speed_mps"
    case .heading, .altitude, .batteryLevel: nil
    }
  }

  /// The columns of an upload log: (name, kind, required).
  private static let columns: [(String, CSVColumnRequest.Kind, Bool)] = [
    ("user", .integer, true), ("time_ms", .integer, true), ("latitude", .number, true),
    ("longitude", .number, true), ("received_ms", .integer, true), ("device", .number, false),
    ("accuracy_m", .number, false), ("speed_mps", .number, false), ("activity", .text, false),
    ("source", .text, false),
  ]

  /// Nil when the CSV has no received_ms column (then it is read as a trace).
  private static func readUploadLog(path: String) throws -> ReplayHistory? {
    var history = ReplayHistory()
    history.logPath = path
    var receipts: [Int64] = []
    // The rows refused here and the ones the CSV reader refused are listed
    // together in line order (review26 F9: all of these came first).
    var problems: [(line: Int, text: String)] = []
    var problemCount = 0
    var present: [String: (kind: CSVColumnRequest.Kind, slot: Int)] = [:]
    var isLog = true
    let activities = Dictionary(
      uniqueKeysWithValues: Activity.allCases.map { ("\($0)", $0) } + [("driving", .automotive)])
    let sources = Dictionary(uniqueKeysWithValues: FixSource.allCases.map { ("\($0)", $0) })
    let report = try CSVStream.read(
      path: path,
      select: { header, _ in
        guard header.contains("received_ms") else {
          isLog = false
          return []
        }
        var requests: [CSVColumnRequest] = []
        var slots: [CSVColumnRequest.Kind: Int] = [:]
        for (name, kind, required) in columns {
          guard let index = header.firstIndex(of: name) else {
            if required {
              throw TraceError.malformed(
                SourceLocation(file: path, line: 1), reason: "the upload log has no column \(name)")
            }
            continue
          }
          requests.append(CSVColumnRequest(index: index, kind: kind))
          present[name] = (kind, slots[kind, default: 0])
          slots[kind, default: 0] += 1
        }
        return requests
      },
      body: { batch in
        func integer(_ name: String, _ i: Int) -> Int64? { present[name].map { batch.integers[$0.slot][i] } }
        func number(_ name: String, _ i: Int) -> Double? { present[name].map { batch.numbers[$0.slot][i] } }
        func text(_ name: String, _ i: Int) -> String? { present[name].map { batch.texts[$0.slot][i] } }
        for i in 0..<batch.count {
          func problem(_ field: String, _ reason: String) {
            problemCount += 1
            guard problems.count < FileReport.detailLimit else { return }
            problems.append((batch.lines[i], "\(path):\(batch.lines[i]) (\(field)): \(reason); row skipped"))
          }
          guard let user = integer("user", i), let userID = UInt32(exactly: user) else {
            problem("user", "not a user id (\(PlacesFile.identityDomain))")
            continue
          }
          // An empty device cell is the default (the user), as a missing
          // column is (review26 F9: it rejected the row).
          let deviceValue = number("device", i).flatMap { $0.isNaN ? nil : $0 } ?? Double(user)
          guard let device = UInt32(exactly: deviceValue) else {
            problem("device", "not a device id (\(PlacesFile.identityDomain))")
            continue
          }
          let activityText = text("activity", i) ?? ""
          guard let activity = activityText.isEmpty ? .unknown : activities[activityText.lowercased()] else {
            problem(
              "activity", "'\(Excerpt.of(String(activityText.prefix(40)), bytes: 160))' is not an activity")
            continue
          }
          let sourceText = text("source", i) ?? ""
          guard let source = sourceText.isEmpty ? .ordinary : sources[sourceText.lowercased()] else {
            problem("source", "'\(Excerpt.of(String(sourceText.prefix(40)), bytes: 160))' is not a source")
            continue
          }
          // A server's clock reads a real date: a receipt outside the fix
          // time range (1900–2200) is no receipt, and cannot make the
          // replay tick through centuries.
          guard let received = integer("received_ms", i) else {
            problem("received_ms", "not a whole number of ms since the epoch")
            continue
          }
          if let why = FixValidation.serverClockProblem(received) {
            problem("received_ms", why)
            continue
          }
          let speed = number("speed_mps", i) ?? .nan
          // An empty accuracy cell is the default, as a missing column is.
          let accuracy = number("accuracy_m", i).flatMap { $0.isNaN ? nil : $0 } ?? 10
          // Positions go through as logged: the server's validation refuses
          // what is out of range, with the upload and index.
          history.fixes.append(
            Fix(
              timeMilliseconds: integer("time_ms", i) ?? 0, latitudeDegrees: number("latitude", i) ?? .nan,
              longitudeDegrees: number("longitude", i) ?? .nan, horizontalAccuracyMeters: accuracy,
              // Read as the C ABI reads a raw speed: an infinite or > 600 m/s
              // one is kept for the server's validation to reject.
              speedMetersPerSecond: speed.isNaN
                ? nil
                : SpeedReading.storedSpeedMetersPerSecond(
                  raw: speed, horizontalAccuracyMeters: accuracy),
              activity: activity, source: source, device: DeviceID(device), user: UserID(userID)))
          receipts.append(received)
          history.logLines.append(batch.lines[i])
        }
      })
    guard isLog else { return nil }
    problems += report.rejections.map { ($0.location.line, "\($0); row skipped") }
    // Each list holds its first rows, so the first of both merged are the
    // file's first (a stable sort keeps one line's order).
    history.rowProblems = problems.enumerated().sorted {
      ($0.element.line, $0.offset) < ($1.element.line, $1.offset)
    }
    .prefix(FileReport.detailLimit).map(\.element.text)
    history.unreadableRowCount = problemCount + report.rowsRejected
    history.receivedAtMilliseconds = receipts
    return history
  }
}
