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

  /// Removes the last row (the block must not be empty).
  mutating func removeLast() {
    keys.removeLast()
    lines.removeLast()
    for k in columns.indices { columns[k].removeLast() }
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

  /// Whether row `i` of `self` repeats row `j` of `other`, the row kept
  /// before it in time order, under `rule` (NaN equal to NaN). Keys count
  /// `keysPerSecond` per second (1000 for fix milliseconds).
  @inline(__always)
  func repeats(_ i: Int, _ other: RowBlock, _ j: Int, rule: DuplicateRule, keysPerSecond: Double) -> Bool {
    if rule == .sameKeyOrSameFix {
      if keys[i] == other.keys[j] { return true }
      guard keys[i] - other.keys[j] < DuplicateRule.repeatedFixSeconds * keysPerSecond else { return false }
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
  /// How soon after a kept fix the same fix again is that fix logged again,
  /// s (``sameKeyOrSameFix``). Choice: 1 s, the fastest rate at which a
  /// phone's receiver gives new fixes; sensor-rate repeats come 0.01–0.1 s
  /// apart. An identical fix 1 s or more later is kept (a stopped car).
  static let repeatedFixSeconds = 1.0

  /// Same key (a fix at the time of another from the same file: one device).
  case sameKey
  /// Same key and every value (a sensor sample logged twice).
  case sameKeyAndValues
  /// A fix file of a logging app: the same key, or the same fix (position,
  /// accuracy, speed, heading and altitude all equal) less than
  /// ``repeatedFixSeconds`` after the fix kept before it — a location fix
  /// logged again at the sensor rate is one fix, not many. The same fix
  /// later than that is a fix of its own: a stopped car's receiver reports
  /// the same position once a second, and those fixes say it stayed stopped.
  case sameKeyOrSameFix
  /// Neither sorted nor cleared of repeats: the rows stay as written (a
  /// trace folder's fixes, which may be a history of uploads in arrival
  /// order with retried batches repeated). Out-of-order rows are still counted.
  case keepFileOrder
}

/// How a file's rows are put in time order and cleared of repeats, the same
/// whichever way the file is read:
/// - a first row far ahead of the rows after it is rejected
///   (``ArrivalRule/firstRowStrays(_:limit:)``);
/// - rows are judged in file order by ``ArrivalRule``: a row behind the
///   newest key kept before it is counted in `reorderedRows`, unless it is
///   more than ``RowOrderer/maximumReorderSeconds`` behind: then it is
///   rejected as `outOfOrder`, so one stray row cannot make a streamed read
///   hold the file; a lone jump ahead the file does not go on from is
///   rejected as `outOfOrder` too;
/// - time order is a stable sort by key of the rows kept (rows with equal
///   keys keep the file's order);
/// - a row that repeats the row kept before it in that order is a `duplicate`.
extension RowBlock {
  /// The whole file at once: rows too late rejected, the rest sorted, repeats
  /// rejected into `report`. Keys count `keysPerSecond` per second (1000 for
  /// fix milliseconds). O(n log n) when out of order, O(n) otherwise.
  mutating func finish(rule: DuplicateRule, keysPerSecond: Double = 1, report: inout FileReport) {
    let limit = rule == .keepFileOrder ? Double.infinity : RowOrderer.maximumReorderSeconds * keysPerSecond
    var arrivals = ArrivalRule(limit: limit)
    var reordered = 0
    var late: [Int] = []
    var held: [Int] = []  // a jump, then its rival
    func settle() {
      let resolution = arrivals.resolution
      if resolution.rivalRejected, let rival = held.popLast() {
        late.append(rival)
        report.rejectLate(line: lines[rival])
      }
      switch resolution.jump {
      case .none: return
      case .kept: break
      case .dropped:
        if let jump = held.first {
          late.append(jump)
          report.rejectAhead(line: lines[jump])
        }
        for rival in held.dropFirst() {
          switch resolution.rival {
          case .inOrder: break
          case .reordered: reordered += 1
          case .tooLate, .held:
            late.append(rival)
            report.rejectLate(line: lines[rival])
          }
        }
      }
      held.removeAll(keepingCapacity: true)
    }
    var start = 0
    let opening = keys.prefix(ArrivalRule.openingRows)
    if ArrivalRule.firstRowStrays(opening, limit: limit) {
      late.append(0)
      report.rejectFirstAhead(line: lines[0], rowsAfter: opening.count - 1)
      start = 1
    }
    for i in start..<keys.count {
      let t = keys[i]
      let arrival = arrivals.arrive(t)
      if arrivals.resolution != .none { settle() }
      switch arrival {
      case .inOrder: break
      case .reordered: reordered += 1
      case .held: held.append(i)
      case .tooLate:
        late.append(i)
        report.rejectLate(line: lines[i])
      }
    }
    arrivals.end()
    settle()
    report.reorderedRows += reordered
    if rule == .keepFileOrder { return }
    var order: [Int32]?
    if reordered > 0 || !late.isEmpty {
      var isLate = [Bool](repeating: false, count: count)
      for i in late { isLate[i] = true }
      order = keys.indices.filter { !isLate[$0] }.map { Int32($0) }.sorted { a, b in
        keys[Int(a)] < keys[Int(b)] || (keys[Int(a)] == keys[Int(b)] && a < b)
      }
    }
    // The rows to keep, in time order.
    var kept: [Int32] = []
    kept.reserveCapacity(count)
    var last = -1
    for r in 0..<(order?.count ?? count) {
      let i = order.map { Int($0[r]) } ?? r
      if last >= 0 && repeats(i, self, last, rule: rule, keysPerSecond: keysPerSecond) {
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
    unkeep(line: line, .duplicate, "repeats the row before it in time order")
  }

  /// A row held as a jump ahead, and two rows in a row after it went on
  /// from before it (``ArrivalRule``).
  mutating func rejectAhead(line: UInt32) {
    unkeep(
      line: line, .outOfOrder,
      "a lone jump more than \(Int(RowOrderer.maximumReorderSeconds)) s ahead of the rows before and after")
  }

  /// The file's first row lay more than the reorder horizon ahead of each
  /// of the `rowsAfter` rows after it that judged it
  /// (``ArrivalRule/firstRowStrays(_:limit:)``).
  mutating func rejectFirstAhead(line: UInt32, rowsAfter: Int) {
    unkeep(
      line: line, .outOfOrder,
      "the first row, more than \(Int(RowOrderer.maximumReorderSeconds)) s ahead of each of the \(rowsAfter) rows after it"
    )
  }

  /// A kept row came further behind a row before it than the reorder horizon.
  mutating func rejectLate(line: UInt32) {
    unkeep(
      line: line, .outOfOrder,
      "more than \(Int(RowOrderer.maximumReorderSeconds)) s behind a row before it in the file")
  }

  /// A row counted as kept is rejected after all, for `reason`.
  private mutating func unkeep(line: UInt32, _ reason: RowRejection.Reason, _ detail: String) {
    rowsKept -= 1
    reject(
      RowRejection(location: SourceLocation(file: file, line: Int(line)), reason: reason, detail: detail))
  }
}
