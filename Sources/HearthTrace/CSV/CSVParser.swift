/// The row loop of ``CSVStream``: reads the header, then fills batches of
/// rows, keeping or rejecting each with its line, column and reason.
/// Internal: `CSVStream.read` and `CSVRowReader` are the doors.
struct CSVParser {
  let name: String
  let options: ReadOptions
  var dialect = CSVDialect(delimiter: UInt8(ascii: ","), decimalComma: false)
  var fieldCount = 0
  /// Per header column: where its value goes (-1 = not requested).
  var slotOfColumn: [Int] = []
  var kindOfColumn: [CSVColumnRequest.Kind] = []
  /// Per requested column: its name as a rejection shows it (printable, at
  /// most 80 bytes), so a row refused is named by column name and number.
  var requestedNames: [Int: String] = [:]
  /// Per header column: its time format when it is a time column.
  var timeFormats: [Int: String] = [:]
  var numberCount = 0
  var integerCount = 0
  var textCount = 0
  var line = 1  // line of the next unread byte
  var report: FileReport
  /// Reused by the quoted-row path.
  var fields: [FieldRange] = []
  var escaped: [UInt8] = []
  /// How the plain path (`CSVParser+PlainRow`) is used.
  let plainRows: PlainRowPolicy
  /// Rows left to the general path before the plain path is tried again.
  var plainPause = 0

  init(
    source: inout ChunkSource, name: String, options: ReadOptions, plainRows: PlainRowPolicy = .standard,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest]
  ) throws {
    self.name = name
    self.options = options
    self.plainRows = plainRows
    report = FileReport(file: name)
    let header = try readHeader(source: &source)
    fieldCount = header.count
    let requests = try select(header, dialect)
    slotOfColumn = Array(repeating: -1, count: fieldCount)
    kindOfColumn = Array(repeating: .number, count: fieldCount)
    for request in requests {
      precondition(request.index >= 0 && request.index < fieldCount, "column index outside the header")
      precondition(slotOfColumn[request.index] < 0, "column \(request.index) requested twice")
      kindOfColumn[request.index] = request.kind
      requestedNames[request.index] = Excerpt.of(header[request.index], bytes: 80)
      if let format = request.timeFormat { timeFormats[request.index] = format }
      switch request.kind {
      case .number:
        slotOfColumn[request.index] = numberCount
        numberCount += 1
      case .integer:
        slotOfColumn[request.index] = integerCount
        integerCount += 1
      case .text:
        slotOfColumn[request.index] = textCount
        textCount += 1
      }
    }
    fields.reserveCapacity(fieldCount + 1)
  }

  /// Parses rows into `storage` until it is full or the file ends. Returns
  /// whether `storage` holds any row.
  ///
  /// Rows of plain numbers take the plain path
  /// (``keepPlainRows(_:from:limit:storage:)``); any other row takes the
  /// general one: one pass over the bytes finds each field's end and parses
  /// requested fields as it goes, straight into the batch's column storage.
  /// A field that starts with a quote hands the row to
  /// ``scanRow(_:from:to:atEnd:)`` (RFC 4180 rules), which feeds the same checks.
  mutating func fill(_ storage: inout CSVBatchStorage, from source: inout ChunkSource) throws -> Bool {
    while !storage.isFull {
      let needMore = try parseBuffered(&storage, source: &source)
      if storage.isFull { break }
      if needMore && source.available > options.maximumLineBytes {
        try skipLongLine(source: &source)
        continue
      }
      if source.atEndOfFile && source.start >= source.end { break }
      if !(try source.refill()) && source.start >= source.end { break }
    }
    return storage.count > 0
  }

  /// Parses the complete rows in the buffer (or until `storage` is full).
  /// Returns whether the buffer ends inside a row that needs more input.
  @inline(__always)
  private mutating func parseBuffered(_ storage: inout CSVBatchStorage, source: inout ChunkSource) throws
    -> Bool
  {
    let base = UnsafePointer(source.buffer.baseAddress!)
    let limit = source.end
    let atEnd = source.atEndOfFile
    var position = source.start
    defer { source.start = position }
    let plain = plainPathApplies
    while position < limit && !storage.isFull {
      if plain && plainPause == 0 {
        let before = position
        position = keepPlainRows(base, from: position, limit: limit, storage: &storage)
        if position >= limit || storage.isFull { break }
        if position == before { plainPause = plainRows.pauseRows }
      }
      plainPause = max(plainPause - 1, 0)
      let rowLine = line
      var rejection: RowRejection?
      let next: Int
      var tooLong = false
      switch parseFastRow(base, from: position, limit: limit, atEnd: atEnd, storage: &storage) {
      case .incomplete:
        return true
      case .blank(let after):
        position = after
        line += 1
        continue
      case .row(let after, let problem):
        next = after
        line += 1
        if let problem { rejection = self.rejection(for: problem, base: base, line: rowLine) }
      case .quoted:
        guard
          case .row(let after, let newlines, let problem) = scanRow(
            source.buffer, from: position, to: limit, atEnd: atEnd)
        else { return true }
        rejection = storeScannedRow(base, problem: problem, line: rowLine, storage: &storage)
        tooLong = after - position > options.maximumLineBytes
        if tooLong || problem?.0 == .unterminatedQuote {
          // Only the row's first physical line is lost, as when a line is
          // too long to buffer: reading resumes on the next line.
          next = Self.lineEnd(base, from: position, limit: limit)
          line += 1
        } else {
          next = after
          line += newlines == 0 ? 1 : newlines
        }
      }
      if tooLong || next - position > options.maximumLineBytes {
        // Over the limit though complete in the buffer: the same verdict as
        // a line too long to buffer.
        rejection = RowRejection(
          location: SourceLocation(file: name, line: rowLine), reason: .lineTooLong,
          detail: "longer than \(options.maximumLineBytes) bytes")
      }
      position = next
      report.rowsRead += 1
      if let rejection {
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.reject(rejection)
        continue
      }
      storage.commit(line: rowLine)
      report.rowsKept += 1
    }
    return false
  }

  /// The index after the first line feed at or after `start`, or `limit`
  /// (`base` a ``ChunkSource`` buffer, `limit` its `end`).
  static func lineEnd(_ base: UnsafePointer<UInt8>, from start: Int, limit: Int) -> Int {
    let k = ByteScan.firstOf(0x0A, 0x0A, in: base, from: start, limit: limit)
    return k < limit ? k + 1 : limit
  }

  /// Rejects the row at the reader's position, which is longer than the
  /// limit, discarding it chunk by chunk up to its line end.
  mutating func skipLongLine(source: inout ChunkSource) throws {
    let rejection = RowRejection(
      location: SourceLocation(file: name, line: line), reason: .lineTooLong,
      detail: "longer than \(options.maximumLineBytes) bytes")
    if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
    report.rowsRead += 1
    report.reject(rejection)
    while true {
      var k = source.start
      while k < source.end && source.buffer[k] != 0x0A { k += 1 }
      if k < source.end {
        source.start = k + 1
        break
      }
      source.start = source.end
      if !(try source.refill()) { break }
    }
    line += 1
  }

  /// Parses one field into the batch's current row. Returns the reason when it is bad.
  func store(
    _ bytes: UnsafeBufferPointer<UInt8>, column: Int, storage: inout CSVBatchStorage
  ) -> RowRejection.Reason? {
    let slot = slotOfColumn[column]
    guard slot >= 0 else { return nil }
    let row = storage.count
    switch kindOfColumn[column] {
    case .number:
      switch NumberParser.parseDouble(bytes, decimalComma: dialect.decimalComma) {
      case .value(let v): storage.numbers[slot][row] = v
      case .empty: storage.numbers[slot][row] = .nan
      case .invalid: return .notANumber
      }
    case .integer:
      guard let v = NumberParser.parseInt64(bytes) else { return .notANumber }
      storage.integers[slot][row] = v
    case .text:
      guard let text = String(validating: bytes, as: UTF8.self) else { return .invalidUTF8 }
      storage.rowTexts[slot] = text
    }
    return nil
  }

  /// A rejection naming the field (1-based column and, when requested, its
  /// name; review26 F9) and its first 64 bytes.
  func rejection(
    _ reason: RowRejection.Reason, _ bytes: UnsafeBufferPointer<UInt8>, column: Int, line: Int
  ) -> RowRejection {
    let text = String(decoding: bytes.prefix(64), as: UTF8.self)
    let location = SourceLocation(
      file: name, line: line, column: column + 1, columnName: requestedNames[column])
    if let format = timeFormats[column], reason == .notANumber {
      return RowRejection(location: location, reason: .badTime, detail: "'\(text)': expected \(format)")
    }
    return RowRejection(location: location, reason: reason, detail: text)
  }
}

extension String {
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while let first = s.first, first == " " || first == "\t" || first == "\r" { s = s.dropFirst() }
    while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
    return String(s)
  }
}
