/// Rows from arrays held in memory or mapped (a trace folder's `.npy`
/// columns, comma2k19's arrays, a manifest's list), checked one by one and
/// handed out in blocks. Line numbers are 1-based element indices.
final class ArrayRowSource: RowSource {
  /// Checks row `i` and appends it to the block (key, line and values), or
  /// says why not: (reason, column name, detail).
  typealias Convert = (_ i: Int, _ block: inout RowBlock) -> (RowRejection.Reason, String, String)?

  private let count: Int
  private let columnCount: Int
  private let blockRows: Int
  /// Row `i`'s monotonic time (s) and wall-clock time (ms since the
  /// epoch), when it carries both and both are readings.
  typealias Clocks = (_ i: Int) -> (monotonicSeconds: Double, wallMilliseconds: Double)?

  private let convert: Convert
  private let clocks: Clocks?
  private var nextRow = 0
  private var counts: FileReport
  private var comparison: ClockComparison
  private let strict: Bool

  /// `clocks`: for rows with two clocks, compared row by row (``ClockComparison``).
  init(
    name: String, count: Int, columnCount: Int, options: ReadOptions, blockRows: Int = 65_536,
    clocks: Clocks? = nil, convert: @escaping Convert
  ) {
    self.count = count
    self.columnCount = columnCount
    self.blockRows = blockRows
    self.convert = convert
    self.clocks = clocks
    counts = FileReport(file: name)
    comparison = ClockComparison(file: name, toleranceSeconds: options.clockStepToleranceSeconds)
    strict = options.strict
  }

  var report: FileReport {
    var r = counts
    comparison.record(into: &r)
    return r
  }

  func next() throws -> RowBlock? {
    while nextRow < count {
      var block = RowBlock(columnCount: columnCount)
      let end = min(count, nextRow + blockRows)
      block.reserveCapacity(end - nextRow)
      for i in nextRow..<end {
        counts.rowsRead += 1
        if let (seconds, ms) = clocks?(i) {
          comparison.add(monotonicSeconds: seconds, wallMilliseconds: ms, line: i + 1)
        }
        if let (reason, column, detail) = convert(i, &block) {
          let rejection = RowRejection(
            location: SourceLocation(file: counts.file, line: i + 1, columnName: column), reason: reason,
            detail: detail)
          if strict { throw TraceError.rejectedInStrictMode(rejection) }
          counts.reject(rejection)
        } else {
          counts.rowsKept += 1
        }
      }
      nextRow = end
      if !block.isEmpty { return block }
    }
    return nil
  }
}

extension RowBlock {
  /// Appends a checked row of one, two or three values (no allocation).
  @inline(__always)
  mutating func append(key: Double, line: Int, _ a: Double, _ b: Double? = nil, _ c: Double? = nil) {
    keys.append(key)
    lines.append(Self.line(line))
    columns[0].append(a)
    if let b { columns[1].append(b) }
    if let c { columns[2].append(c) }
  }
}
