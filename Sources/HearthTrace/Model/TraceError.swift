/// Where in a file something was found: file, line (1-based), column
/// (1-based field index, or 0 for the whole row) and the column's name.
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int
  public var columnName: String?

  public init(file: String, line: Int, column: Int = 0, columnName: String? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.columnName = columnName
  }

  /// "file:line:column (name)"; line 0 (a whole file, or one that is not
  /// read by lines, such as a JSON settings file) is left out with its
  /// column, and so is column 0.
  public var description: String {
    var text = file
    if line > 0 {
      text += ":\(line)"
      if column > 0 { text += ":\(column)" }
    }
    if let columnName { text += " (\(columnName))" }
    return text
  }
}

/// Why HearthTrace could not read or write something. The closed set of
/// errors the module throws; every case says where and why.
public enum TraceError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file system refused (missing file, permission, disk full).
  case io(path: String, reason: String)
  /// The file is not in the expected format at all (no header, wrong magic,
  /// a required column missing): nothing in it can be kept.
  case malformed(SourceLocation, reason: String)
  /// Well-formed, but uses something this reader does not support (an NPY
  /// dtype, a unit, a GPX version).
  case unsupported(SourceLocation, reason: String)
  /// Strict mode: the first row that would have been rejected.
  case rejectedInStrictMode(RowRejection)

  public var description: String {
    switch self {
    case .io(let path, let reason): "\(path): \(reason)"
    case .malformed(let location, let reason): "\(location): \(reason)"
    case .unsupported(let location, let reason): "\(location): unsupported: \(reason)"
    case .rejectedInStrictMode(let rejection): "strict mode: \(rejection)"
    }
  }
}

/// One row (or sample) that was read but not kept, and why.
public struct RowRejection: Sendable, Hashable, Codable, CustomStringConvertible {
  public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
    /// A field that must be a number is not one.
    case notANumber
    /// The row has a different number of fields from the header.
    case wrongFieldCount
    /// The row is longer than the reader's line limit.
    case lineTooLong
    /// A text field is not valid UTF-8.
    case invalidUTF8
    /// A field is outside the values its quantity can take.
    case outOfRange
    /// A field the row cannot do without is empty or NaN (a fix without a position).
    case missingValue
    /// A time is missing or cannot be parsed.
    case badTime
    /// The same sample (same time and values) appeared before.
    case duplicate
    /// A quoted field is not closed before the end of the file (or, in a
    /// file read only for numbers, of its line).
    case unterminatedQuote
    /// The row's time is further behind a row before it in the file than
    /// the reorder horizon (``RowOrderer/maximumReorderSeconds``).
    case outOfOrder
    /// Text between a closing quote and the next delimiter.
    case badQuote
    /// Broken XML (GPX): the rest of the file from this point.
    case malformedMarkup
    /// The whole stream is not in the unit its file is said to be in (its
    /// gravity does not read 9.81 m/s²): every row of it, rejected together.
    case unitProblem
  }

  public var location: SourceLocation
  public var reason: Reason
  /// The offending text, printable (``Excerpt/printable(_:)``) and
  /// shortened to 64 characters.
  public var detail: String

  public init(location: SourceLocation, reason: Reason, detail: String) {
    self.location = location
    self.reason = reason
    let shown = Excerpt.printable(detail)
    guard shown.count > 64 else {
      self.detail = shown
      return
    }
    // Character by character, so a code is never cut in half.
    var cut = ""
    var length = 0
    for character in detail {
      let piece = Excerpt.printable(String(character))
      guard length + piece.count <= 61 else { break }
      cut += piece
      length += piece.count
    }
    self.detail = cut + "…"
  }

  public var description: String { "\(location): \(reason.rawValue): \(detail)" }
}

/// What reading one file did: every row read is either kept or rejected.
public struct FileReport: Sendable, Hashable, Codable {
  public var file: String
  /// Data rows read (header excluded).
  public var rowsRead = 0
  /// Rows (or samples) kept.
  public var rowsKept = 0
  /// Rejected rows by reason; the total always equals `rowsRead − rowsKept`.
  public var rejectedByReason: [RowRejection.Reason: Int] = [:]
  /// The first rejections by line, in full (at most ``FileReport/detailLimit``
  /// once the report is settled, as every reader's report is).
  public var rejections: [RowRejection] = []
  /// Kept rows that were out of time order in the file (sorted on import).
  public var reorderedRows = 0
  /// Problems that made the reader skip the whole file (folder imports).
  public var skippedBecause: String?
  /// The units the file's values were read in and what was done to them
  /// ("x, y, z in m/s² (calibrated, both platforms); axes negated from iOS to
  /// the trace's convention"), when the reader decides them per file.
  public var units: String?
  /// Where the file's wall clock stepped against its monotonic clock
  /// (between consecutive rows carrying both, in file order, by more than
  /// ``ReadOptions/clockStepToleranceSeconds``): the first 100 in file
  /// order. The rows themselves stay on the monotonic clock (SPEC §9).
  public var clockSteps: [ClockStep] = []
  /// How many steps were found (``clockSteps`` lists the first of them).
  public var clockStepCount = 0

  /// How many rejections are kept in full; the rest are only counted.
  public static let detailLimit = 1000

  public init(file: String) { self.file = file }

  public var rowsRejected: Int { rejectedByReason.values.reduce(0, +) }
  /// `rowsRead == rowsKept + rowsRejected`: true for every report a reader makes.
  public var reconciles: Bool { rowsRead == rowsKept + rowsRejected }

  /// Records `count` rejected rows that share one reason and location.
  mutating func reject(_ rejection: RowRejection, count: Int = 1) {
    rejectedByReason[rejection.reason, default: 0] += count
    rejections.append(rejection)
    if rejections.count >= 2 * Self.detailLimit { settle() }
  }

  /// Keeps the ``detailLimit`` rejections with the smallest lines, in line
  /// order: the same list whatever order a reader found them in (a file read
  /// whole finds duplicates last, a streamed one as it goes).
  mutating func settle() {
    rejections.sort {
      ($0.location.line, $0.location.column, $0.reason.rawValue, $0.detail)
        < ($1.location.line, $1.location.column, $1.reason.rawValue, $1.detail)
    }
    if rejections.count > Self.detailLimit { rejections.removeSubrange(Self.detailLimit...) }
  }
}

/// What an import did, file by file.
public struct ImportReport: Sendable, Hashable, Codable {
  public var files: [FileReport] = []
  /// Every stream's first and last time as read, in the order
  /// `hearth data inspect` lists streams (``nonOverlappingStreams``).
  public var streamSpans: [StreamTimeSpan] = []
  public init() {}

  public var rowsRead: Int { files.reduce(0) { $0 + $1.rowsRead } }
  public var rowsKept: Int { files.reduce(0) { $0 + $1.rowsKept } }
  public var rowsRejected: Int { files.reduce(0) { $0 + $1.rowsRejected } }
  public var reconciles: Bool { files.allSatisfy(\.reconciles) }

  /// Settles every file's rejections (``FileReport/settle()``).
  mutating func settle() {
    for i in files.indices { files[i].settle() }
  }

  /// Whether not one row was kept: every file was skipped, empty, or had
  /// every row rejected (or there was no file).
  public var nothingKept: Bool { files.allSatisfy { $0.rowsKept == 0 } }

  /// Throws when ``nothingKept``, or when no stream got a sample (no
  /// ``streamSpans``: only a side file such as Sensor Logger's Metadata.csv
  /// or a mapping's clock kept rows; an activity log alone is no recording
  /// either): a recording nothing could be read from is bad input, not an
  /// empty result. For the report of a read (whole or streamed), which
  /// carries its spans.
  /// - Throws: `TraceError.malformed` naming `path` and what happened to each file.
  public func requireSomethingKept(path: String) throws {
    guard nothingKept || streamSpans.isEmpty else { return }
    let why = files.prefix(5).map { file in
      "\(file.file): "
        + (file.skippedBecause.map { "skipped (\(Excerpt.of($0, bytes: 120)))" }
          ?? "\(file.rowsRead) rows read, \(file.rowsKept == 0 ? "none" : "\(file.rowsKept)") kept")
    }
    throw TraceError.malformed(
      SourceLocation(file: path, line: 0),
      reason: "nothing could be read" + (nothingKept ? "" : " (no stream has a sample)")
        + (why.isEmpty ? ": no file" : ": " + why.joined(separator: "; "))
        + (files.count > 5 ? "; and \(files.count - 5) more files" : ""))
  }

  /// The report of the file whose name ends with `suffix`.
  public func file(endingWith suffix: String) -> FileReport? {
    files.first { $0.file.hasSuffix(suffix) }
  }
}

/// How readers treat bad rows, and the clock facts a file may not carry.
public struct ReadOptions: Sendable, Hashable {
  /// Throw on the first bad row instead of rejecting it and going on.
  public var strict: Bool
  /// Rows longer than this many bytes are rejected without being buffered.
  public var maximumLineBytes: Int
  /// Keep a stream whose gravity does not read 9.81 m/s² (``GravityCheck``)
  /// instead of rejecting it as a unit problem. The check stays in the
  /// report (``FileReport/units``) either way.
  public var acceptImplausibleGravity: Bool
  /// The zone of wall-clock times written without an offset (a local ISO
  /// 8601 time, a time of day) in column-mapped files whose mapping names
  /// none (`hearth … --timezone`). Without a zone such a file is refused.
  public var timeZone: TimeZoneRule?
  /// The sample rate (Hz) of column-mapped files whose mapping gives neither
  /// a time column nor a `rate_hz` (`hearth … --rate`): row k of such a file
  /// is at k / rate seconds.
  public var rateHertz: Double?
  /// How far a recording's wall clock may move against its monotonic
  /// clock between two consecutive rows of a file before it counts as a
  /// step (reported: ``FileReport/clockSteps``), seconds; a move of exactly
  /// this much is not one. Choice: 1 s, far above the jitter between a
  /// phone's two clocks (MEMS-Nav's Sensor Logger export: none; comma2k19's
  /// GNSS UTC against the boot clock: ±50 ms) and below the corrections
  /// that matter to the detector (its windows are 0.5–5 s; an NTP step is
  /// typically seconds). Placement never depends on it: rows are always on
  /// the monotonic clock.
  public var clockStepToleranceSeconds: Double

  public init(
    strict: Bool = false, maximumLineBytes: Int = 1 << 20, acceptImplausibleGravity: Bool = false,
    timeZone: TimeZoneRule? = nil, rateHertz: Double? = nil, clockStepToleranceSeconds: Double = 1
  ) {
    self.strict = strict
    self.maximumLineBytes = maximumLineBytes
    self.acceptImplausibleGravity = acceptImplausibleGravity
    self.timeZone = timeZone
    self.rateHertz = rateHertz
    self.clockStepToleranceSeconds = clockStepToleranceSeconds
  }
}
