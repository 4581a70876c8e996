/// The fast path for a row without quotes: one pass over its bytes finds
/// each field's end and parses requested numbers as it goes, straight into
/// the batch's column storage. A field that starts with a quote gives the row
/// to the RFC 4180 path (`CSVParser+QuotedRow`).
extension CSVParser {
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

  /// Where a field's terminator leaves the row.
  private enum FieldEnd {
    /// Another field follows from this index.
    case next(Int)
    /// The row is complete.
    case done(FastRow)
  }

  /// Parses the row starting at `start` in one pass.
  @inline(__always)
  func parseFastRow(
    _ base: UnsafePointer<UInt8>, from start: Int, limit: Int, atEnd: Bool, storage: inout CSVBatchStorage
  ) -> FastRow {
    if let blank = blankLine(base, from: start, limit: limit, atEnd: atEnd) { return blank }
    var i = start
    var column = 0
    var problem: Problem?
    while true {
      if i < limit && base[i] == UInt8(ascii: "\"") { return .quoted }
      let stop = parseField(base, from: i, limit: limit, column: column, problem: &problem, storage: &storage)
      switch fieldEnd(
        base, field: i, stop: stop, limit: limit, atEnd: atEnd, column: column, problem: &problem)
      {
      case .next(let after):
        column += 1
        i = after
      case .done(let row):
        return row
      }
    }
  }

  /// A line holding only spaces and tabs (and its line end), or nil when the
  /// row has content.
  @inline(__always)
  private func blankLine(_ base: UnsafePointer<UInt8>, from start: Int, limit: Int, atEnd: Bool) -> FastRow? {
    var k = start
    while k < limit && (base[k] == 0x20 || base[k] == 0x09) { k += 1 }
    if k == limit { return atEnd ? .blank(next: limit) : .incomplete }
    if base[k] == 0x0A { return .blank(next: k + 1) }
    if base[k] == 0x0D {
      if k + 1 == limit { return atEnd ? .blank(next: limit) : .incomplete }
      if base[k + 1] == 0x0A { return .blank(next: k + 2) }
    }
    return nil
  }

  /// Parses (or skips, when not requested) the field starting at `i` into
  /// the batch's current row. Returns the index of the byte that ended it:
  /// a delimiter, a line feed, a carriage return or `limit`. The first
  /// problem of the row is recorded in `problem`; later fields are skipped.
  @inline(__always)
  private func parseField(
    _ base: UnsafePointer<UInt8>, from i: Int, limit: Int, column: Int, problem: inout Problem?,
    storage: inout CSVBatchStorage
  ) -> Int {
    let delimiter = dialect.delimiter
    let slot = column < fieldCount ? slotOfColumn[column] : -1
    let kind = slot >= 0 ? kindOfColumn[column] : .text
    let row = storage.count
    if slot >= 0 && problem == nil && kind == .number {
      let (parsed, stop) = NumberParser.parseNumberField(
        base, from: i, end: limit, delimiter: delimiter, decimalComma: dialect.decimalComma)
      switch parsed {
      case .value(let v): storage.numbers[slot][row] = v
      case .empty: storage.numbers[slot][row] = .nan
      case .invalid: problem = Problem(reason: .notANumber, column: column, start: i, end: stop)
      }
      return stop
    }
    if slot >= 0 && problem == nil && kind == .integer {
      let (value, stop) = NumberParser.parseIntegerField(base, from: i, end: limit, delimiter: delimiter)
      if let value {
        storage.integers[slot][row] = value
      } else {
        problem = Problem(reason: .notANumber, column: column, start: i, end: stop)
      }
      return stop
    }
    let stop = ByteScan.firstOf(delimiter, 0x0A, in: base, from: i, limit: limit)
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
    return stop
  }

  /// What the byte at `stop` (the end of the field starting at `field`) means
  /// for the row: another field, the row's end, or more input needed.
  @inline(__always)
  private func fieldEnd(
    _ base: UnsafePointer<UInt8>, field: Int, stop: Int, limit: Int, atEnd: Bool, column: Int,
    problem: inout Problem?
  ) -> FieldEnd {
    let delimiter = dialect.delimiter
    if stop >= limit {
      guard atEnd else { return .done(.incomplete) }
      return .done(.row(next: limit, problem: problem ?? fieldCountProblem(column + 1)))
    }
    let c = base[stop]
    if c == delimiter { return .next(stop + 1) }
    if c == 0x0A { return .done(.row(next: stop + 1, problem: problem ?? fieldCountProblem(column + 1))) }
    // A carriage return: the row's end when a line feed follows.
    if stop + 1 == limit {
      guard atEnd else { return .done(.incomplete) }
      return .done(.row(next: limit, problem: problem ?? fieldCountProblem(column + 1)))
    }
    if base[stop + 1] == 0x0A {
      return .done(.row(next: stop + 2, problem: problem ?? fieldCountProblem(column + 1)))
    }
    // A lone carriage return inside a number: not a number. Skip the rest of the field.
    if problem == nil { problem = Problem(reason: .notANumber, column: column, start: field, end: stop + 1) }
    var i = stop + 1
    while i < limit && base[i] != delimiter && base[i] != 0x0A { i += 1 }
    if i >= limit {
      guard atEnd else { return .done(.incomplete) }
      return .done(.row(next: limit, problem: problem))
    }
    if base[i] == 0x0A { return .done(.row(next: i + 1, problem: problem)) }
    return .next(i + 1)
  }

  /// The problem of a row with `found` fields, if that is not the header's count.
  @inline(__always)
  private func fieldCountProblem(_ found: Int) -> Problem? {
    found == fieldCount ? nil : Problem(reason: .wrongFieldCount, column: -1, start: 0, end: found)
  }

  /// The full rejection for a fast-path problem (only built for rejected rows).
  func rejection(for problem: Problem, base: UnsafePointer<UInt8>, line: Int) -> RowRejection {
    if problem.reason == .wrongFieldCount {
      return RowRejection(
        location: SourceLocation(file: name, line: line), reason: .wrongFieldCount,
        detail: "expected \(fieldCount) fields, found \(problem.end)")
    }
    return rejection(
      problem.reason, UnsafeBufferPointer(start: base + problem.start, count: problem.end - problem.start),
      column: problem.column, line: line)
  }
}
