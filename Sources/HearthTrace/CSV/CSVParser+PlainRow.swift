/// The plain path: rows whose every field is what most files hold (an
/// unquoted number in its common shape, or a column not asked for), kept
/// in one tight pass with no per-field bookkeeping. The first row that is
/// anything else (a quote, a blank line, an empty integer, a bad or unusual
/// number, a wrong field count, CR without LF, a row cut by the buffer's
/// end) is left to the general path (`CSVParser+FastRow`), which reads it
/// from its start and decides as it always did; the plain path never
/// rejects a row.
///
/// It keeps a row only where the general path would keep it with the same
/// values: its numbers come from the same parsers
/// (``NumberParser/plainNumber(_:from:point:)``,
/// ``NumberParser/plainInteger(_:from:)``) and anything they do not take
/// goes the general way. `PlainRowTests` reads random files both ways.
/// How a CSV reader uses the plain path. Internal: the standard policy
/// everywhere; tests turn the path off, or try it on every row, to compare
/// it with the general path.
struct PlainRowPolicy: Sendable {
  /// Whether plain rows may take the plain path at all.
  var enabled = true
  /// After an attempt that kept no row, rows left to the general path
  /// before the plain path is tried again (a file whose rows are seldom
  /// plain is then not parsed twice per row).
  var pauseRows = 64

  static let standard = PlainRowPolicy()
  static let off = PlainRowPolicy(enabled: false)
}

extension CSVParser {
  /// Where the plain path puts one column's values.
  struct PlainColumn {
    /// The batch's storage for the column (8-byte values), nil when the
    /// column is not requested.
    var values: UnsafeMutableRawPointer?
    var isInteger: Bool
  }

  /// Whether rows may take the plain path: only numbers are requested (a
  /// text column goes the general way) and the policy did not turn it off.
  var plainPathApplies: Bool { plainRows.enabled && textCount == 0 && fieldCount > 0 }

  /// Keeps plain rows from `start` until a row is not plain, the buffer
  /// ends or `storage` is full. Returns the index after the last row kept.
  /// - Precondition: `base` is a ``ChunkSource`` buffer and `limit` its `end`
  ///   (the zero bytes after it stop every scan there).
  mutating func keepPlainRows(
    _ base: UnsafePointer<UInt8>, from start: Int, limit: Int, storage: inout CSVBatchStorage
  ) -> Int {
    let first = storage.count
    let (row, position) = withUnsafeTemporaryAllocation(of: PlainColumn.self, capacity: fieldCount) {
      columns in
      for column in 0..<fieldCount {
        let slot = slotOfColumn[column]
        let isInteger = kindOfColumn[column] == .integer
        let values =
          slot < 0
          ? nil
          : isInteger
            ? UnsafeMutableRawPointer(storage.integers[slot]) : UnsafeMutableRawPointer(storage.numbers[slot])
        columns.initializeElement(at: column, to: PlainColumn(values: values, isInteger: isInteger))
      }
      return Self.plainRows(
        base, from: start, limit: limit, rows: first..<storage.capacity,
        columns: UnsafeBufferPointer(columns),
        lines: storage.lines, firstLine: line, delimiter: dialect.delimiter,
        point: dialect.decimalComma ? UInt8(ascii: ",") : UInt8(ascii: "."), longest: options.maximumLineBytes
      )
    }
    let kept = row - first
    storage.count = row
    line += kept
    report.rowsRead += kept
    report.rowsKept += kept
    return position
  }

  /// The loop of ``keepPlainRows(_:from:limit:storage:)``: parses rows from
  /// `start` into slots `rows` while they are plain and no longer than
  /// `longest` bytes, writing each one's line. Returns the slot after the
  /// last row kept and the index after it. (A function of its own, on plain
  /// values, so that the number parsers are inlined into it.)
  @inline(never)
  private static func plainRows(
    _ p: UnsafePointer<UInt8>, from start: Int, limit: Int, rows: Range<Int>,
    columns: UnsafeBufferPointer<PlainColumn>, lines: UnsafeMutablePointer<Int>, firstLine: Int,
    delimiter: UInt8, point: UInt8, longest: Int
  ) -> (row: Int, position: Int) {
    var row = rows.lowerBound
    var position = start
    while position < limit && row < rows.upperBound {
      guard
        let next = plainRow(
          p, from: position, limit: limit, row: row, columns: columns, delimiter: delimiter, point: point),
        next - position <= longest
      else { break }
      lines[row] = firstLine + (row - rows.lowerBound)
      row += 1
      position = next
    }
    return (row, position)
  }

  /// Parses the row at `start` into slot `row` of the columns; returns the
  /// index after its line end, or nil when the row is not plain (what was
  /// written to slot `row` is then overwritten by the general path).
  @inline(__always)
  private static func plainRow(
    _ p: UnsafePointer<UInt8>, from start: Int, limit: Int, row: Int,
    columns: UnsafeBufferPointer<PlainColumn>,
    delimiter: UInt8, point: UInt8
  ) -> Int? {
    // A line that starts blank may be a blank line (not a row).
    let first = p[start]
    if first == 0x20 || first == 0x09 || first == 0x0D || first == 0x0A { return nil }
    var i = start
    let last = columns.count - 1
    var column = 0
    while true {
      let target = columns[column]
      if let values = target.values {
        if target.isInteger {
          guard let (value, stop) = NumberParser.plainInteger(p, from: i) else { return nil }
          values.storeBytes(of: value, toByteOffset: row &* 8, as: Int64.self)
          i = stop
        } else if p[i] == delimiter || p[i] == 0x0A {
          // An empty field: a missing reading.
          values.storeBytes(of: Double.nan, toByteOffset: row &* 8, as: Double.self)
        } else {
          guard let (value, stop) = NumberParser.plainNumber(p, from: i, point: point) else { return nil }
          values.storeBytes(of: value, toByteOffset: row &* 8, as: Double.self)
          i = stop
        }
      } else {
        // Not requested: up to the next delimiter or line feed, unless quoted.
        if p[i] == UInt8(ascii: "\"") { return nil }
        i = ByteScan.firstOf(delimiter, 0x0A, in: p, from: i, limit: limit)
      }
      // At `limit` this reads the zero byte after the buffer's end: not plain.
      let terminator = p[i]
      if column < last {
        guard terminator == delimiter else { return nil }
        i += 1
        column += 1
        continue
      }
      if terminator == 0x0A { return i + 1 }
      // CR LF (a LF after `limit` is impossible: the bytes there are zero).
      if terminator == 0x0D && p[i + 1] == 0x0A { return i + 2 }
      return nil
    }
  }
}
