/// The RFC 4180 path, for rows with a quoted field: quoted fields may hold
/// delimiters, line breaks and doubled quotes (`""`, a literal quote, copied
/// unescaped into ``CSVParser/escaped``).
extension CSVParser {
  /// A field of the row being scanned: bytes start..<end of the buffer, or
  /// of the unescaped copy when `escapedOffset` ≥ 0 (a quoted field with "" in it).
  struct FieldRange {
    var start: Int
    var end: Int
    var escapedOffset: Int  // -1 when the bytes are in the buffer
  }

  enum RowScan {
    /// The row ends before `next`; its fields are in ``CSVParser/fields``.
    case row(next: Int, newlines: Int, problem: (RowRejection.Reason, Int)?)
    /// The buffer ends inside the row and more input may come.
    case incomplete
  }

  /// How one field of a scanned row ended.
  private enum FieldScan {
    /// Another field follows at this index.
    case next(Int)
    case done(RowScan)
  }

  /// Finds the fields of the row starting at `start`: unquoted fields run to
  /// the next delimiter or line end; a field that starts with `"` runs to the
  /// matching `"`. A trailing `\r` is not part of the last field.
  mutating func scanRow(
    _ buffer: UnsafeMutableBufferPointer<UInt8>, from start: Int, to limit: Int, atEnd: Bool
  ) -> RowScan {
    fields.removeAll(keepingCapacity: true)
    escaped.removeAll(keepingCapacity: true)
    var newlines = 0
    var problem: (RowRejection.Reason, Int)?
    var i = start
    while true {
      let scan =
        i < limit && buffer[i] == UInt8(ascii: "\"")
        ? scanQuotedField(buffer, at: i, limit: limit, atEnd: atEnd, newlines: &newlines, problem: &problem)
        : scanUnquotedField(buffer, at: i, limit: limit, atEnd: atEnd, newlines: newlines, problem: problem)
      switch scan {
      case .next(let after): i = after
      case .done(let row): return row
      }
    }
  }

  /// The quoted field whose opening quote is at `i`, and what follows its
  /// closing quote: a delimiter, a line end, or the end of input (anything
  /// else is a `badQuote`).
  private mutating func scanQuotedField(
    _ buffer: UnsafeMutableBufferPointer<UInt8>, at i: Int, limit: Int, atEnd: Bool, newlines: inout Int,
    problem: inout (RowRejection.Reason, Int)?
  ) -> FieldScan {
    let delimiter = dialect.delimiter
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
        if j + 1 == limit && !atEnd { return .done(.incomplete) }  // "" split across chunks
        closed = true
        break
      }
      if c == 0x0A {
        // A file read only for numbers has no field that may span lines: a
        // quote still open at the line end is a stray one, and the row (its
        // one line) is rejected without swallowing the lines after it.
        if textCount == 0 {
          return .done(.row(next: j + 1, newlines: newlines + 1, problem: (.unterminatedQuote, fields.count)))
        }
        newlines += 1
      }
      escaped.append(c)
      j += 1
    }
    if !closed {
      if !atEnd { return .done(.incomplete) }
      return .done(.row(next: limit, newlines: newlines, problem: (.unterminatedQuote, fields.count)))
    }
    if hasEscape {
      fields.append(FieldRange(start: escapedStart, end: escaped.count, escapedOffset: escapedStart))
    } else {
      escaped.removeSubrange(escapedStart...)
      fields.append(FieldRange(start: i + 1, end: j, escapedOffset: -1))
    }
    var k = j + 1
    if k < limit && buffer[k] == 0x0D { k += 1 }
    if k < limit && buffer[k] != delimiter && buffer[k] != 0x0A {
      if problem == nil { problem = (.badQuote, fields.count - 1) }
      while k < limit && buffer[k] != delimiter && buffer[k] != 0x0A { k += 1 }
    }
    if k >= limit {
      if !atEnd { return .done(.incomplete) }
      return .done(.row(next: limit, newlines: newlines, problem: problem))
    }
    if buffer[k] == 0x0A { return .done(.row(next: k + 1, newlines: newlines + 1, problem: problem)) }
    return .next(k + 1)  // past the delimiter
  }

  /// The unquoted field starting at `i`, up to a delimiter or the line end.
  private mutating func scanUnquotedField(
    _ buffer: UnsafeMutableBufferPointer<UInt8>, at i: Int, limit: Int, atEnd: Bool, newlines: Int,
    problem: (RowRejection.Reason, Int)?
  ) -> FieldScan {
    let delimiter = dialect.delimiter
    var j = i
    while j < limit {
      let c = buffer[j]
      if c == delimiter || c == 0x0A { break }
      j += 1
    }
    if j >= limit && !atEnd { return .done(.incomplete) }
    var fieldEnd = j
    let endsRow = j >= limit || buffer[j] == 0x0A
    if endsRow && fieldEnd > i && buffer[fieldEnd - 1] == 0x0D { fieldEnd -= 1 }
    fields.append(FieldRange(start: i, end: fieldEnd, escapedOffset: -1))
    guard endsRow else { return .next(j + 1) }
    return .done(
      .row(next: j >= limit ? limit : j + 1, newlines: newlines + (j < limit ? 1 : 0), problem: problem))
  }

  /// Checks and stores a row found by ``scanRow(_:from:to:atEnd:)``.
  func storeScannedRow(
    _ base: UnsafePointer<UInt8>, problem: (RowRejection.Reason, Int)?, line: Int,
    storage: inout CSVBatchStorage
  ) -> RowRejection? {
    if let (reason, column) = problem {
      return RowRejection(
        location: SourceLocation(file: name, line: line, column: column + 1), reason: reason,
        detail: reason != .unterminatedQuote
          ? "text after a closing quote"
          : textCount == 0
            ? "quoted field not closed on its line (only numbers are read, so no field spans lines)"
            : "quoted field not closed before the end of the file; reading resumes on the next line")
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
}
