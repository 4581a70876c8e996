/// Rows of one file that passed its checks, column by column: each row's
/// sort key (sensor seconds, or a fix's milliseconds), the values of every
/// stream the file feeds, and the row's source line.
///
/// Memory: 8 bytes per key, 8 per value, 4 per line; a three-axis sample
/// costs 36 bytes while a file is read and 32 once it is a `VectorStream`.
struct RowBlock {
  var keys: [Double] = []
  var columns: [[Double]]
  /// 1-based source lines (array rows for `.npy` columns), saturated at UInt32.max.
  var lines: [UInt32] = []

  init(columnCount: Int) { columns = Array(repeating: [], count: columnCount) }

  var count: Int { keys.count }
  var isEmpty: Bool { keys.isEmpty }
  var columnCount: Int { columns.count }

  mutating func reserveCapacity(_ n: Int) {
    keys.reserveCapacity(n)
    lines.reserveCapacity(n)
    for k in columns.indices { columns[k].reserveCapacity(n) }
  }

  mutating func removeAll(keepingCapacity: Bool = true) {
    keys.removeAll(keepingCapacity: keepingCapacity)
    lines.removeAll(keepingCapacity: keepingCapacity)
    for k in columns.indices { columns[k].removeAll(keepingCapacity: keepingCapacity) }
  }

  @inline(__always)
  static func line(_ line: Int) -> UInt32 { line >= Int(UInt32.max) ? .max : UInt32(max(line, 0)) }

  /// Appends row `i` of `other` (same layout).
  mutating func append(from other: RowBlock, at i: Int) {
    keys.append(other.keys[i])
    lines.append(other.lines[i])
    for k in columns.indices { columns[k].append(other.columns[k][i]) }
  }

  /// Appends every row of `other` (same layout).
  mutating func append(contentsOf other: RowBlock) {
    keys.append(contentsOf: other.keys)
    lines.append(contentsOf: other.lines)
    for k in columns.indices { columns[k].append(contentsOf: other.columns[k]) }
  }

  /// Rows `0..<n` moved out into a new block; the rest stay. O(count).
  mutating func removeFirst(_ n: Int) -> RowBlock {
    var head = RowBlock(columnCount: columnCount)
    if n == count {
      swap(&head, &self)
      self = RowBlock(columnCount: head.columnCount)
      return head
    }
    head.keys = Array(keys[..<n])
    head.lines = Array(lines[..<n])
    keys.removeFirst(n)
    lines.removeFirst(n)
    for k in columns.indices {
      head.columns[k] = Array(columns[k][..<n])
      columns[k].removeFirst(n)
    }
    return head
  }

  /// Whether row `i` of `self` repeats row `j` of `other` under `rule`
  /// (NaN equal to NaN).
  @inline(__always)
  func repeats(_ i: Int, _ other: RowBlock, _ j: Int, rule: DuplicateRule) -> Bool {
    if rule == .sameKeyOrSameFix {
      if keys[i] == other.keys[j] { return true }
      for k in FixLayout.latitude...FixLayout.altitude {
        let a = columns[k][i]
        let b = other.columns[k][j]
        if !(a == b || (a.isNaN && b.isNaN)) { return false }
      }
      return true
    }
    guard keys[i] == other.keys[j] else { return false }
    if rule == .sameKey { return true }
    for k in columns.indices {
      let a = columns[k][i]
      let b = other.columns[k][j]
      if !(a == b || (a.isNaN && b.isNaN)) { return false }
    }
    return true
  }
}

/// When a row repeats the one before it in time order.
enum DuplicateRule: Sendable, Hashable {
  /// Same key (a fix at the time of another from the same file: one device).
  case sameKey
  /// Same key and every value (a sensor sample logged twice).
  case sameKeyAndValues
  /// A fix file of a logging app: the same key, or the same fix (position,
  /// accuracy, speed, heading and altitude all equal) at a later time — a
  /// location fix logged again at the sensor rate is one fix, not many.
  case sameKeyOrSameFix
  /// Neither sorted nor cleared of repeats: the rows stay as written (a
  /// trace folder's fixes, which may be a history of uploads in arrival
  /// order with retried batches repeated). Out-of-order rows are still counted.
  case keepFileOrder
}

/// How a file's rows are put in time order and cleared of repeats, the same
/// whichever way the file is read:
/// - time order is a stable sort by key (rows with equal keys keep the file's order);
/// - a row that repeats the row kept before it in that order is a `duplicate`;
/// - rows whose key is below the largest key before them in the file are
///   counted as `reorderedRows`.
extension RowBlock {
  /// Counts the rows that came out of time order in the file (in file order).
  static func countReordered(_ keys: [Double], latest: inout Double) -> Int {
    var reordered = 0
    for t in keys {
      if t < latest { reordered += 1 } else { latest = t }
    }
    return reordered
  }

  /// The whole file at once: sorted, repeats rejected into `report`. O(n log n)
  /// when out of order, O(n) otherwise.
  mutating func finish(rule: DuplicateRule, report: inout FileReport) {
    var latest = -Double.infinity
    let reordered = Self.countReordered(keys, latest: &latest)
    report.reorderedRows += reordered
    if rule == .keepFileOrder { return }
    var order: [Int32]?
    if reordered > 0 {
      order = keys.indices.map { Int32($0) }.sorted { a, b in
        keys[Int(a)] < keys[Int(b)] || (keys[Int(a)] == keys[Int(b)] && a < b)
      }
    }
    // The rows to keep, in time order.
    var kept: [Int32] = []
    kept.reserveCapacity(count)
    var last = -1
    for r in 0..<count {
      let i = order.map { Int($0[r]) } ?? r
      if last >= 0 && repeats(i, self, last, rule: rule) {
        report.rejectDuplicate(line: lines[i])
        continue
      }
      kept.append(Int32(i))
      last = i
    }
    if order == nil && kept.count == count { return }
    keys = kept.map { keys[Int($0)] }
    lines = kept.map { lines[Int($0)] }
    for k in columns.indices { columns[k] = kept.map { [columns = columns[k]] in columns[Int($0)] } }
  }
}

extension FileReport {
  /// A kept row turned out to repeat the one before it.
  mutating func rejectDuplicate(line: UInt32) {
    rowsKept -= 1
    reject(
      RowRejection(
        location: SourceLocation(file: file, line: Int(line)), reason: .duplicate,
        detail: "repeats the row before it in time order"))
  }
}
