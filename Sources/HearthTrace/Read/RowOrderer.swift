/// What a first pass over a file learns, so a second pass can put its rows
/// in time order in bounded memory: how far behind the newest key a kept row
/// came (the reorder horizon), the earliest key kept and how many rows passed.
struct FileSurvey: Sendable {
  var rows = 0
  private var rule: ArrivalRule
  /// The file's first keys, until there are enough to judge the first row
  /// (``ArrivalRule/firstRowStrays(_:limit:)``); nil once judged.
  private var opening: [Double]? = []

  /// A survey by the rule the second pass orders by: rows more than
  /// `lateLimit` (key units) behind the newest key kept are too late, and a
  /// lone jump more than that ahead is dropped (``ArrivalRule``).
  init(lateLimit: Double) { rule = ArrivalRule(limit: lateLimit) }

  /// The smallest key of a row the ordering keeps (nil when none passed), so
  /// a rejected row's time sets no origin (review26 F6: a rejected 1900 row
  /// made the origin 1900; F5: nor does a lone row dated years ahead).
  var earliestKey: Double? {
    let settled = self.settled
    return settled.earliestKept.isFinite ? settled.earliestKept : nil
  }

  /// The deepest a kept row came behind the newest key kept before it, key
  /// units: 0 for a file already in time order.
  var horizon: Double { settled.deepestKept }

  /// The rule after the last row (a file that ended within its opening
  /// rows has its first row judged by those it has).
  private var settled: ArrivalRule {
    var settled = rule
    if let opening {
      let strays = ArrivalRule.firstRowStrays(opening, limit: rule.limit)
      for t in opening.dropFirst(strays ? 1 : 0) { _ = settled.arrive(t) }
    }
    settled.end()
    return settled
  }

  mutating func add(_ keys: [Double]) {
    rows += keys.count
    var rest = keys[...]
    if var first = opening {
      let wanted = ArrivalRule.openingRows
      let taken = min(wanted - first.count, rest.count)
      first += rest.prefix(taken)
      rest = rest.dropFirst(taken)
      opening = first
      guard first.count == wanted else { return }
      let strays = ArrivalRule.firstRowStrays(first, limit: rule.limit)
      for t in first.dropFirst(strays ? 1 : 0) { _ = rule.arrive(t) }
      opening = nil
    }
    for t in rest { _ = rule.arrive(t) }
  }
}

/// Puts a file's rows in time order as they stream in, holding only the rows
/// that a later row could still come before (those within the file's
/// ``FileSurvey/horizon`` of the newest key, at most
/// ``maximumReorderSeconds``), and rejects repeats and rows further back
/// than that: exactly
/// what ``RowBlock/finish(rule:keysPerSecond:report:)`` does to the whole file at once,
/// for any way the rows are split into blocks.
///
/// A file in time order (horizon 0) passes straight through. Otherwise rows
/// wait in a heap ordered by (key, arrival), and leave once the newest key is
/// more than the horizon past them. Memory: the rows inside the horizon.
/// - Complexity: O(log w) per row for w waiting rows; O(1) in order.
struct RowOrderer {
  /// The deepest a row may come behind a row before it in the file and still
  /// be put in order, s of sensor (or fix) time; a row further back is
  /// rejected as `outOfOrder`, whole or streamed alike. Choice: 60 s, far
  /// beyond the reordering of real exports (a few rows, under a second) and
  /// a minute of rows to hold at most (3 MB at 500 Hz of five columns).
  static let maximumReorderSeconds = 60.0

  /// The reorder horizon in key units: the file's, at most ``maximumReorderSeconds``.
  let horizon: Double
  private let limit: Double
  let rule: DuplicateRule
  let keysPerSecond: Double
  private var pool: RowBlock
  private var heap: [Int32] = []
  private var arrivals: ArrivalRule
  /// A jump ahead, then its rival, until a later row decides (``ArrivalRule``).
  private var held: RowBlock
  private var lastKept: RowBlock
  private var hasLast = false
  /// The file's first rows, until the first row can be judged.
  private var opening: RowBlock
  private var openingJudged = false

  /// Keys count `keysPerSecond` per second (1000 for fix milliseconds).
  init(columnCount: Int, horizon: Double, rule: DuplicateRule, keysPerSecond: Double = 1) {
    limit = Self.maximumReorderSeconds * keysPerSecond
    self.horizon = min(horizon, limit)
    self.rule = rule
    self.keysPerSecond = keysPerSecond
    arrivals = ArrivalRule(limit: limit)
    pool = RowBlock(columnCount: columnCount)
    held = RowBlock(columnCount: columnCount)
    lastKept = RowBlock(columnCount: columnCount)
    opening = RowBlock(columnCount: columnCount)
  }

  /// Rows of the next block in file order in; the rows now certain of their
  /// place out, in time order, repeats and rows out of order rejected into `report`.
  mutating func push(_ block: RowBlock, report: inout FileReport) -> RowBlock {
    var out = RowBlock(columnCount: block.columnCount)
    var start = 0
    if !openingJudged {
      // The file's first rows wait until the first row can be judged.
      let wanted = ArrivalRule.openingRows
      while opening.count < wanted && start < block.count {
        opening.append(from: block, at: start)
        start += 1
      }
      guard opening.count == wanted else { return out }
      judgeOpening(into: &out, report: &report)
    }
    for i in start..<block.count { arrive(block, i, into: &out, report: &report) }
    if horizon == 0 { return out }
    // Any later row has key ≥ newest − horizon; the slack covers rounding.
    let latest = arrivals.latest
    let slack = 8 * (abs(latest) + horizon) * Double.ulpOfOne
    while let top = heap.first, pool.keys[Int(top)] + horizon + slack < latest {
      popTop(into: &out, report: &report)
    }
    compactIfSparse()
    return out
  }

  /// Every row still waiting, in time order.
  mutating func finish(report: inout FileReport) -> RowBlock {
    var out = RowBlock(columnCount: pool.columnCount)
    if !openingJudged { judgeOpening(into: &out, report: &report) }
    arrivals.end()
    if arrivals.resolution != .none { settleHeld(into: &out, report: &report) }
    while !heap.isEmpty { popTop(into: &out, report: &report) }
    pool.removeAll(keepingCapacity: false)
    return out
  }

  /// The first row rejected when it strays far ahead of the rows after it
  /// (``ArrivalRule/firstRowStrays(_:limit:)``, on the opening rows the file
  /// has), then the opening rows judged as any.
  private mutating func judgeOpening(into out: inout RowBlock, report: inout FileReport) {
    openingJudged = true
    var start = 0
    if ArrivalRule.firstRowStrays(opening.keys, limit: limit) {
      report.rejectFirstAhead(line: opening.lines[0], rowsAfter: opening.count - 1)
      start = 1
    }
    let rows = opening
    opening = RowBlock(columnCount: rows.columnCount)
    for i in start..<rows.count { arrive(rows, i, into: &out, report: &report) }
  }

  /// Row `i` of `block`, the next in file order, judged by the rule.
  @inline(__always)
  private mutating func arrive(
    _ block: RowBlock, _ i: Int, into out: inout RowBlock, report: inout FileReport
  ) {
    let arrival = arrivals.arrive(block.keys[i])
    if arrivals.resolution != .none { settleHeld(into: &out, report: &report) }
    switch arrival {
    case .inOrder: break
    case .reordered: report.reorderedRows += 1
    case .tooLate:
      report.rejectLate(line: block.lines[i])
      return
    case .held:
      held.append(from: block, at: i)
      return
    }
    enter(block, i, into: &out, report: &report)
  }

  /// A kept row: out now in a file in order, else waiting in the heap.
  private mutating func enter(_ block: RowBlock, _ i: Int, into out: inout RowBlock, report: inout FileReport)
  {
    if horizon == 0 {
      keep(block, i, into: &out, report: &report)
      return
    }
    pool.append(from: block, at: i)
    heap.append(Int32(pool.count - 1))
    siftUp(heap.count - 1)
  }

  /// Acts on what the last arrival decided for the held rows (a jump, then
  /// its rival), in the order ``ArrivalRule/Resolution`` gives.
  private mutating func settleHeld(into out: inout RowBlock, report: inout FileReport) {
    let resolution = arrivals.resolution
    if resolution.rivalRejected, let line = held.lines.last {
      report.rejectLate(line: line)
      held.removeLast()
    }
    switch resolution.jump {
    case .none: return
    case .kept:
      for j in 0..<held.count { enter(held, j, into: &out, report: &report) }
    case .dropped:
      if let line = held.lines.first { report.rejectAhead(line: line) }
      guard held.count == 2 else { break }  // the jump, then its rival
      switch resolution.rival {
      case .inOrder: enter(held, 1, into: &out, report: &report)
      case .reordered:
        report.reorderedRows += 1
        enter(held, 1, into: &out, report: &report)
      case .tooLate, .held: report.rejectLate(line: held.lines[1])
      }
    }
    held.removeAll()
  }

  private mutating func keep(_ block: RowBlock, _ i: Int, into out: inout RowBlock, report: inout FileReport)
  {
    if hasLast && block.repeats(i, lastKept, 0, rule: rule, keysPerSecond: keysPerSecond) {
      report.rejectDuplicate(line: block.lines[i])
      return
    }
    out.append(from: block, at: i)
    lastKept.removeAll()
    lastKept.append(from: block, at: i)
    hasLast = true
  }

  private mutating func popTop(into out: inout RowBlock, report: inout FileReport) {
    let top = Int(heap[0])
    keep(pool, top, into: &out, report: &report)
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(0)
    }
  }

  @inline(__always)
  private func precedes(_ a: Int32, _ b: Int32) -> Bool {
    let ka = pool.keys[Int(a)]
    let kb = pool.keys[Int(b)]
    return ka < kb || (ka == kb && a < b)
  }

  private mutating func siftUp(_ start: Int) {
    var i = start
    while i > 0 {
      let parent = (i - 1) / 2
      guard precedes(heap[i], heap[parent]) else { return }
      heap.swapAt(i, parent)
      i = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var i = start
    while true {
      let left = 2 * i + 1
      guard left < heap.count else { return }
      var child = left
      if left + 1 < heap.count && precedes(heap[left + 1], heap[left]) { child = left + 1 }
      guard precedes(heap[child], heap[i]) else { return }
      heap.swapAt(i, child)
      i = child
    }
  }

  /// Rebuilds the pool from the waiting rows once most of it has left. The
  /// new indices keep the old order, so the heap stays a heap.
  private mutating func compactIfSparse() {
    guard pool.count > 4096 && pool.count > 2 * heap.count else { return }
    let waiting = heap.sorted()
    var fresh = RowBlock(columnCount: pool.columnCount)
    fresh.reserveCapacity(waiting.count)
    var rank = [Int32](repeating: 0, count: pool.count)
    for (r, index) in waiting.enumerated() {
      fresh.append(from: pool, at: Int(index))
      rank[Int(index)] = Int32(r)
    }
    heap = heap.map { rank[Int($0)] }
    pool = fresh
  }
}
