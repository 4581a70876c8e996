#if canImport(Glibc)
  import Glibc
#endif

/// What to extract from one column of a CSV file.
public struct CSVColumnRequest: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// A decimal number; empty fields and "NaN" read as NaN (missing).
    case number
    /// A whole number (e.g. nanoseconds since the epoch); empty is a rejection.
    case integer
    /// Text, validated as UTF-8.
    case text
  }
  /// 0-based index of the column in the header.
  public var index: Int
  public var kind: Kind

  public init(index: Int, kind: Kind) {
    self.index = index
    self.kind = kind
  }
}

/// A batch of rows, column by column, in the order the columns were requested.
public struct CSVBatch: Sendable {
  /// One array per requested `.number` column, in request order.
  public var numbers: [[Double]]
  /// One array per requested `.integer` column, in request order.
  public var integers: [[Int64]]
  /// One array per requested `.text` column, in request order.
  public var texts: [[String]]
  /// The line each row started on (1-based; the header is line 1).
  public var lines: [Int] = []

  public var count: Int { lines.count }

  init(numbers: Int, integers: Int, texts: Int) {
    self.numbers = Array(repeating: [], count: numbers)
    self.integers = Array(repeating: [], count: integers)
    self.texts = Array(repeating: [], count: texts)
  }

  mutating func removeAll() {
    for i in numbers.indices { numbers[i].removeAll(keepingCapacity: true) }
    for i in integers.indices { integers[i].removeAll(keepingCapacity: true) }
    for i in texts.indices { texts[i].removeAll(keepingCapacity: true) }
    lines.removeAll(keepingCapacity: true)
  }
}

/// The delimiter and decimal separator of a CSV file.
public struct CSVDialect: Sendable, Hashable {
  /// `,`, `;` or tab.
  public var delimiter: UInt8
  /// Whether `,` is also accepted as a decimal separator in numbers (files
  /// from locales that write 1,5 use `;` or tab between fields).
  public var decimalComma: Bool
}

/// A streaming CSV reader: reads any size of file in bounded memory (one
/// chunk of 4 MiB plus at most one line), hands rows to the caller in
/// batches, and accounts for every row: each one is kept or rejected with its
/// line, column and reason.
///
/// Handles RFC 4180 quoting (delimiters, newlines and doubled quotes inside
/// quoted fields), a UTF-8 byte-order mark, CRLF line ends, blank lines,
/// a missing final newline, `,` / `;` / tab delimiters (detected from the
/// header) and decimal commas (accepted when the delimiter is not a comma).
public enum CSVStream {
  /// Reads `path`: calls `select` with the header's field names to learn which
  /// columns to extract, then `body` with batches of at most `batchRows` rows.
  ///
  /// - Throws: `TraceError.io` when the file cannot be read;
  ///   `TraceError.malformed` when it has no header line; whatever `select`
  ///   or `body` throw; `TraceError.rejectedInStrictMode` on the first bad row
  ///   when `options.strict`.
  /// - Returns: the file's report (`rowsRead == rowsKept + rowsRejected`).
  /// - Complexity: O(file size) time; memory O(chunk + maximumLineBytes +
  ///   batchRows × columns), independent of the file size.
  public static func read(
    path: String, displayName: String? = nil, options: ReadOptions = ReadOptions(),
    batchRows: Int = 65_536,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest],
    body: (CSVBatch) throws -> Void
  ) throws -> FileReport {
    let name = displayName ?? path
    var source = try ChunkSource(path: path, displayName: name, maximumLineBytes: options.maximumLineBytes)
    defer { source.close() }
    var parser = try CSVParser(source: &source, name: name, options: options, select: select)
    return try parser.run(source: &source, batchRows: batchRows, body: body)
  }
}

/// Reads a file in chunks into one reusable buffer.
struct ChunkSource {
  let descriptor: Int32
  let name: String
  let chunkBytes = 4 << 20
  /// buffer[start..<end] holds bytes not yet consumed.
  var buffer: UnsafeMutableBufferPointer<UInt8>
  var start = 0
  var end = 0
  var atEndOfFile = false

  init(path: String, displayName: String, maximumLineBytes: Int) throws {
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw TraceError.io(path: displayName, reason: String(cString: strerror(errno)))
    }
    name = displayName
    buffer = .allocate(capacity: chunkBytes + max(maximumLineBytes, 1) + 1)
  }

  mutating func close() {
    _ = Glibc.close(descriptor)
    buffer.deallocate()
  }

  /// Moves unconsumed bytes to the front and reads more. Returns false at end of file.
  mutating func refill() throws -> Bool {
    if atEndOfFile { return false }
    if start > 0 {
      let remaining = end - start
      if remaining > 0 {
        UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(
          from: buffer.baseAddress! + start, byteCount: remaining)
      }
      start = 0
      end = remaining
    }
    let space = buffer.count - end
    guard space > 0 else { return true }
    var got = 0
    repeat {
      got = Glibc.read(descriptor, buffer.baseAddress! + end, min(space, chunkBytes))
    } while got < 0 && errno == EINTR
    guard got >= 0 else { throw TraceError.io(path: name, reason: String(cString: strerror(errno))) }
    if got == 0 { atEndOfFile = true }
    end += got
    return got > 0
  }
}

/// The row loop. Internal: `CSVStream.read` is the public door.
struct CSVParser {
  let name: String
  let options: ReadOptions
  var dialect = CSVDialect(delimiter: UInt8(ascii: ","), decimalComma: false)
  var fieldCount = 0
  /// Per header column: where its value goes (-1 = not requested).
  var slotOfColumn: [Int] = []
  var kindOfColumn: [CSVColumnRequest.Kind] = []
  var numberCount = 0
  var integerCount = 0
  var textCount = 0
  var line = 1  // line of the next unread byte
  var report: FileReport

  init(
    source: inout ChunkSource, name: String, options: ReadOptions,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest]
  ) throws {
    self.name = name
    self.options = options
    report = FileReport(file: name)
    let header = try readHeader(source: &source)
    fieldCount = header.count
    let requests = try select(header, dialect)
    slotOfColumn = Array(repeating: -1, count: fieldCount)
    kindOfColumn = Array(repeating: .number, count: fieldCount)
    for request in requests {
      precondition(request.index >= 0 && request.index < fieldCount, "column index outside the header")
      kindOfColumn[request.index] = request.kind
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
  }

  /// Reads the first non-blank line as the header, detecting the delimiter.
  mutating func readHeader(source: inout ChunkSource) throws -> [String] {
    _ = try source.refill()
    // Skip a UTF-8 byte-order mark.
    if source.end - source.start >= 3 && source.buffer[0] == 0xEF && source.buffer[1] == 0xBB
      && source.buffer[2] == 0xBF
    {
      source.start = 3
    }
    while true {
      // Find the end of the header line (quotes respected).
      var i = source.start
      var quoted = false
      while i < source.end {
        let c = source.buffer[i]
        if c == UInt8(ascii: "\"") { quoted.toggle() } else if c == 0x0A && !quoted { break }
        i += 1
      }
      if i == source.end && !source.atEndOfFile {
        if source.end - source.start > options.maximumLineBytes {
          throw TraceError.malformed(
            SourceLocation(file: name, line: line),
            reason: "header longer than \(options.maximumLineBytes) bytes")
        }
        _ = try source.refill()
        continue
      }
      let lineBytes = UnsafeBufferPointer(rebasing: source.buffer[source.start..<i])
      source.start = min(i + 1, source.end)
      let trimmed =
        lineBytes.count > 0 && lineBytes.last == 0x0D
        ? UnsafeBufferPointer(rebasing: lineBytes.dropLast()) : lineBytes
      if trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
        line += 1
        if source.start >= source.end && source.atEndOfFile {
          throw TraceError.malformed(
            SourceLocation(file: name, line: line - 1), reason: "empty file: no header line")
        }
        continue
      }
      dialect = Self.detectDialect(trimmed)
      let fields = Self.splitHeader(trimmed, delimiter: dialect.delimiter)
      line += 1
      return fields
    }
  }

  static func detectDialect(_ header: UnsafeBufferPointer<UInt8>) -> CSVDialect {
    var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 0x09: 0]
    var quoted = false
    for c in header {
      if c == UInt8(ascii: "\"") { quoted.toggle() } else if !quoted, counts[c] != nil { counts[c]! += 1 }
    }
    let delimiter = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09].max { counts[$0]! < counts[$1]! }!
    return CSVDialect(delimiter: delimiter, decimalComma: delimiter != UInt8(ascii: ","))
  }

  static func splitHeader(_ bytes: UnsafeBufferPointer<UInt8>, delimiter: UInt8) -> [String] {
    var fields: [String] = []
    var current: [UInt8] = []
    var quoted = false
    var i = 0
    while i < bytes.count {
      let c = bytes[i]
      if c == UInt8(ascii: "\"") {
        if quoted && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") {
          current.append(c)
          i += 1
        } else {
          quoted.toggle()
        }
      } else if c == delimiter && !quoted {
        fields.append(String(decoding: current, as: UTF8.self).trimmingSpaces())
        current.removeAll()
      } else {
        current.append(c)
      }
      i += 1
    }
    fields.append(String(decoding: current, as: UTF8.self).trimmingSpaces())
    return fields
  }

  /// A field of the row being scanned: bytes start..<end of the buffer, or
  /// of the unescaped copy when `escaped` (a quoted field with "" in it).
  struct FieldRange {
    var start: Int
    var end: Int
    var escapedOffset: Int  // -1 when the bytes are in the buffer
  }

  enum RowScan {
    /// The row ends before `next`; its fields are in `fields`.
    case row(next: Int, newlines: Int, problem: (RowRejection.Reason, Int)?)
    /// The buffer ends inside the row and more input may come.
    case incomplete
  }

  /// Finds the fields of the row starting at `start`.
  ///
  /// Unquoted fields run to the next delimiter or line end; a field that
  /// starts with `"` runs to the matching `"` (a doubled `""` is a literal
  /// quote, copied unescaped into `escaped`). Quoted fields may hold
  /// delimiters and line breaks. A trailing `\r` is not part of the last field.
  func scanRow(
    _ buffer: UnsafeMutableBufferPointer<UInt8>, from start: Int, to limit: Int, atEnd: Bool,
    fields: inout [FieldRange], escaped: inout [UInt8]
  ) -> RowScan {
    fields.removeAll(keepingCapacity: true)
    escaped.removeAll(keepingCapacity: true)
    let delimiter = dialect.delimiter
    var newlines = 0
    var problem: (RowRejection.Reason, Int)?
    var i = start
    while true {
      if i < limit && buffer[i] == UInt8(ascii: "\"") {
        // Quoted field.
        var j = i + 1
        var hasEscape = false
        let escapedStart = escaped.count
        var closed = false
        while j < limit {
          let c = buffer[j]
          if c == UInt8(ascii: "\"") {
            if j + 1 < limit && buffer[j + 1] == UInt8(ascii: "\"") {
              hasEscape = true
              escaped.append(c)
              j += 2
              continue
            }
            if j + 1 == limit && !atEnd { return .incomplete }  // "" split across chunks
            closed = true
            break
          }
          if c == 0x0A { newlines += 1 }
          escaped.append(c)
          j += 1
        }
        if !closed {
          if !atEnd { return .incomplete }
          return .row(next: limit, newlines: newlines, problem: problem ?? (.unterminatedQuote, fields.count))
        }
        if hasEscape {
          fields.append(FieldRange(start: escapedStart, end: escaped.count, escapedOffset: escapedStart))
        } else {
          escaped.removeSubrange(escapedStart...)
          fields.append(FieldRange(start: i + 1, end: j, escapedOffset: -1))
        }
        i = j + 1
        // After the closing quote: a delimiter, a line end or the end of input.
        var k = i
        if k < limit && buffer[k] == 0x0D { k += 1 }
        if k < limit && buffer[k] != delimiter && buffer[k] != 0x0A {
          if problem == nil { problem = (.badQuote, fields.count - 1) }
          while k < limit && buffer[k] != delimiter && buffer[k] != 0x0A { k += 1 }
        }
        if k >= limit {
          if !atEnd { return .incomplete }
          return .row(next: limit, newlines: newlines, problem: problem)
        }
        if buffer[k] == 0x0A { return .row(next: k + 1, newlines: newlines + 1, problem: problem) }
        i = k + 1  // past the delimiter
        continue
      }
      // Unquoted field.
      var j = i
      while j < limit {
        let c = buffer[j]
        if c == delimiter || c == 0x0A { break }
        j += 1
      }
      if j >= limit && !atEnd { return .incomplete }
      var fieldEnd = j
      let endsRow = j >= limit || buffer[j] == 0x0A
      if endsRow && fieldEnd > i && buffer[fieldEnd - 1] == 0x0D { fieldEnd -= 1 }
      fields.append(FieldRange(start: i, end: fieldEnd, escapedOffset: -1))
      if endsRow {
        return .row(
          next: j >= limit ? limit : j + 1, newlines: newlines + (j < limit ? 1 : 0), problem: problem)
      }
      i = j + 1
    }
  }

  /// Column storage for the batch being filled: a row's values are written
  /// straight into slot `count`; a rejected row is simply not counted, so
  /// the next row overwrites it.
  struct BatchStorage {
    let capacity: Int
    /// Column storage per requested number / integer column (slot order).
    let numbers: UnsafeMutablePointer<UnsafeMutablePointer<Double>>
    let integers: UnsafeMutablePointer<UnsafeMutablePointer<Int64>>
    let numberCount: Int
    let integerCount: Int
    let lines: UnsafeMutablePointer<Int>
    var texts: [[String]]
    var rowTexts: [String]
    var count = 0

    init(capacity: Int, numbers: Int, integers: Int, texts: Int) {
      self.capacity = capacity
      numberCount = numbers
      integerCount = integers
      self.numbers = .allocate(capacity: max(numbers, 1))
      for k in 0..<numbers { self.numbers[k] = .allocate(capacity: capacity) }
      self.integers = .allocate(capacity: max(integers, 1))
      for k in 0..<integers { self.integers[k] = .allocate(capacity: capacity) }
      lines = .allocate(capacity: capacity)
      self.texts = Array(repeating: [], count: texts)
      rowTexts = Array(repeating: "", count: texts)
    }

    func deallocate() {
      for k in 0..<numberCount { numbers[k].deallocate() }
      for k in 0..<integerCount { integers[k].deallocate() }
      numbers.deallocate()
      integers.deallocate()
      lines.deallocate()
    }

    @inline(__always)
    mutating func commit(line: Int) {
      if !rowTexts.isEmpty {
        for k in rowTexts.indices { texts[k].append(rowTexts[k]) }
      }
      lines[count] = line
      count += 1
    }

    mutating func take() -> CSVBatch {
      var batch = CSVBatch(numbers: 0, integers: 0, texts: 0)
      batch.numbers = (0..<numberCount).map { Array(UnsafeBufferPointer(start: numbers[$0], count: count)) }
      batch.integers = (0..<integerCount).map {
        Array(UnsafeBufferPointer(start: integers[$0], count: count))
      }
      batch.texts = texts
      batch.lines = Array(UnsafeBufferPointer(start: lines, count: count))
      for k in texts.indices { texts[k].removeAll(keepingCapacity: true) }
      count = 0
      return batch
    }
  }

  /// Parses every data row, delivering batches.
  ///
  /// Rows take a fast path: one pass over the bytes finds each field's end
  /// and parses requested numbers as it goes, straight into the batch's
  /// column storage. A field that starts with a quote hands the row to
  /// ``scanRow`` (RFC 4180 rules), which feeds the same checks.
  mutating func run(source: inout ChunkSource, batchRows: Int, body: (CSVBatch) throws -> Void) throws
    -> FileReport
  {
    var storage = BatchStorage(
      capacity: max(1, batchRows), numbers: numberCount, integers: integerCount, texts: textCount)
    defer { storage.deallocate() }
    var fields: [FieldRange] = []
    fields.reserveCapacity(fieldCount + 1)
    var escaped: [UInt8] = []

    while true {
      let base = UnsafePointer(source.buffer.baseAddress!)
      let limit = source.end
      let atEnd = source.atEndOfFile
      var position = source.start
      var needMore = false
      rows: while position < limit {
        let rowLine = line
        var rejection: RowRejection?
        let next: Int
        switch parseFastRow(
          base, from: position, limit: limit, atEnd: atEnd, line: rowLine, storage: &storage)
        {
        case .incomplete:
          needMore = true
          break rows
        case .blank(let after):
          position = after
          line += 1
          continue rows
        case .row(let after, let problem):
          next = after
          line += 1
          if let problem { rejection = self.rejection(for: problem, base: base, line: rowLine) }
        case .quoted:
          let scan = scanRow(
            source.buffer, from: position, to: limit, atEnd: atEnd, fields: &fields, escaped: &escaped)
          guard case .row(let after, let newlines, let problem) = scan else {
            needMore = true
            break rows
          }
          next = after
          line += newlines == 0 ? 1 : newlines
          rejection = storeScannedRow(
            base, fields: fields, escaped: escaped, problem: problem, line: rowLine, storage: &storage)
        }
        if next - position > options.maximumLineBytes {
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
        if storage.count >= storage.capacity { try body(storage.take()) }
      }
      source.start = position
      if needMore && source.end - source.start > options.maximumLineBytes {
        try skipLongLine(source: &source)
        continue
      }
      if source.atEndOfFile && source.start >= source.end { break }
      if !(try source.refill()) && source.start >= source.end { break }
    }
    if storage.count > 0 { try body(storage.take()) }
    return report
  }

  /// Why the fast path cannot keep a row, as plain values (no strings) so the
  /// hot loop never copies a `RowRejection`; turned into one only when a row
  /// is actually rejected.
  struct Problem {
    var reason: RowRejection.Reason
    /// 0-based field index, or -1 for the whole row.
    var column: Int
    /// The offending bytes (`start..<end` of the buffer), or the fields
    /// found (`end`) for a field-count problem.
    var start: Int
    var end: Int
  }

  /// What the fast path made of the bytes at a row's start.
  enum FastRow {
    /// A row ending before `next` (its line end included); `problem` says
    /// why it cannot be kept, if it cannot.
    case row(next: Int, problem: Problem?)
    /// A line holding only spaces: not a row.
    case blank(next: Int)
    /// A field starts with a quote: the RFC 4180 scanner takes over.
    case quoted
    /// The buffer ends inside the row (and more input may come).
    case incomplete
  }

  /// The fast path: parses the row starting at `start` in one pass.
  @inline(__always)
  private func parseFastRow(
    _ base: UnsafePointer<UInt8>, from start: Int, limit: Int, atEnd: Bool, line: Int,
    storage: inout BatchStorage
  ) -> FastRow {
    let delimiter = dialect.delimiter
    // Blank line?
    var k = start
    while k < limit && (base[k] == 0x20 || base[k] == 0x09) { k += 1 }
    if k == limit {
      return atEnd ? .blank(next: limit) : .incomplete
    }
    if base[k] == 0x0A { return .blank(next: k + 1) }
    if base[k] == 0x0D {
      if k + 1 == limit { return atEnd ? .blank(next: limit) : .incomplete }
      if base[k + 1] == 0x0A { return .blank(next: k + 2) }
    }
    var i = start
    var column = 0
    var problem: Problem?
    let row = storage.count
    while true {
      if i < limit && base[i] == UInt8(ascii: "\"") { return .quoted }
      var stop: Int
      let slot = column < fieldCount ? slotOfColumn[column] : -1
      let kind = slot >= 0 ? kindOfColumn[column] : .text
      if slot >= 0 && problem == nil && kind == .number {
        let (parsed, end) = NumberParser.parseNumberField(
          base, from: i, end: limit, delimiter: delimiter, decimalComma: dialect.decimalComma)
        stop = end
        switch parsed {
        case .value(let v): storage.numbers[slot][row] = v
        case .empty: storage.numbers[slot][row] = .nan
        case .invalid: problem = Problem(reason: .notANumber, column: column, start: i, end: stop)
        }
      } else if slot >= 0 && problem == nil && kind == .integer {
        let (value, end) = NumberParser.parseIntegerField(base, from: i, end: limit, delimiter: delimiter)
        stop = end
        if let value {
          storage.integers[slot][row] = value
        } else {
          problem = Problem(reason: .notANumber, column: column, start: i, end: stop)
        }
      } else {
        stop = i
        while stop < limit {
          let c = base[stop]
          if c == delimiter || c == 0x0A { break }
          stop += 1
        }
        if slot >= 0 && problem == nil {
          var fieldEnd = stop
          if fieldEnd > i && base[fieldEnd - 1] == 0x0D && (fieldEnd == limit || base[fieldEnd] == 0x0A) {
            fieldEnd -= 1
          }
          if let reason = store(
            UnsafeBufferPointer(start: base + i, count: fieldEnd - i), column: column, storage: &storage)
          {
            problem = Problem(reason: reason, column: column, start: i, end: fieldEnd)
          }
        }
      }
      // Where did the field end?
      if stop >= limit {
        guard atEnd else { return .incomplete }
        return .row(next: limit, problem: problem ?? fieldCountProblem(column + 1))
      }
      let c = base[stop]
      if c == delimiter {
        column += 1
        i = stop + 1
        continue
      }
      if c == 0x0A { return .row(next: stop + 1, problem: problem ?? fieldCountProblem(column + 1)) }
      // A carriage return: the row's end when a line feed follows.
      if stop + 1 == limit {
        guard atEnd else { return .incomplete }
        return .row(next: limit, problem: problem ?? fieldCountProblem(column + 1))
      }
      if base[stop + 1] == 0x0A {
        return .row(next: stop + 2, problem: problem ?? fieldCountProblem(column + 1))
      }
      // A lone carriage return inside a number: not a number.
      if problem == nil { problem = Problem(reason: .notANumber, column: column, start: i, end: stop + 1) }
      // Skip the rest of the field.
      i = stop + 1
      while i < limit && base[i] != delimiter && base[i] != 0x0A { i += 1 }
      if i >= limit {
        guard atEnd else { return .incomplete }
        return .row(next: limit, problem: problem)
      }
      if base[i] == 0x0A { return .row(next: i + 1, problem: problem) }
      column += 1
      i += 1
    }
  }

  /// The problem of a row with `found` fields, if that is not the header's count.
  @inline(__always)
  private func fieldCountProblem(_ found: Int) -> Problem? {
    found == fieldCount ? nil : Problem(reason: .wrongFieldCount, column: -1, start: 0, end: found)
  }

  /// The full rejection for a fast-path problem (only built for rejected rows).
  private func rejection(for problem: Problem, base: UnsafePointer<UInt8>, line: Int) -> RowRejection {
    if problem.reason == .wrongFieldCount {
      return RowRejection(
        location: SourceLocation(file: name, line: line), reason: .wrongFieldCount,
        detail: "expected \(fieldCount) fields, found \(problem.end)")
    }
    return rejection(
      problem.reason, UnsafeBufferPointer(start: base + problem.start, count: problem.end - problem.start),
      column: problem.column, line: line)
  }

  /// Checks and stores a row found by ``scanRow``.
  private func storeScannedRow(
    _ base: UnsafePointer<UInt8>, fields: [FieldRange], escaped: [UInt8],
    problem: (RowRejection.Reason, Int)?,
    line: Int, storage: inout BatchStorage
  ) -> RowRejection? {
    if let (reason, column) = problem {
      return RowRejection(
        location: SourceLocation(file: name, line: line, column: column + 1), reason: reason,
        detail: reason == .unterminatedQuote
          ? "quoted field not closed before the end of the file" : "text after a closing quote")
    }
    if fields.count != fieldCount {
      return RowRejection(
        location: SourceLocation(file: name, line: line), reason: .wrongFieldCount,
        detail: "expected \(fieldCount) fields, found \(fields.count)")
    }
    for column in 0..<fieldCount where slotOfColumn[column] >= 0 {
      let range = fields[column]
      let bytes: [UInt8] =
        range.escapedOffset >= 0
        ? Array(escaped[range.start..<range.end])
        : Array(UnsafeBufferPointer(start: base + range.start, count: range.end - range.start))
      let reason = bytes.withUnsafeBufferPointer { store($0, column: column, storage: &storage) }
      if let reason {
        return bytes.withUnsafeBufferPointer { rejection(reason, $0, column: column, line: line) }
      }
    }
    return nil
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
  private func store(
    _ bytes: UnsafeBufferPointer<UInt8>, column: Int, storage: inout BatchStorage
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

  private func rejection(
    _ reason: RowRejection.Reason, _ bytes: UnsafeBufferPointer<UInt8>, column: Int, line: Int
  ) -> RowRejection {
    RowRejection(
      location: SourceLocation(file: name, line: line, column: column + 1),
      reason: reason, detail: String(decoding: bytes.prefix(64), as: UTF8.self))
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
