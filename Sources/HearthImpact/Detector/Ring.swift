/// A fixed-capacity ring of timed values in strictly increasing time order,
/// oldest overwritten first: its bookkeeping. The entries live in a buffer
/// shared by the detector's rings (``RingEntries``), so a batch that appends
/// to several rings checks one buffer's uniqueness, not one per ring; this
/// ring's slot i is the buffer's entry `base + i`, its time at 2(base + i),
/// its value at 2(base + i) + 1. No allocation after `init`; window queries
/// (through ``RingEntries/reading(_:)``) binary-search the times.
struct Ring: Sendable, Hashable {
  /// The ring's first slot in the shared buffer.
  let base: Int
  let capacity: Int
  private var head = 0  // next slot to write
  private(set) var count = 0
  /// The time of the newest entry overwritten (−∞: none yet): a window
  /// starting at or before it may have lost entries.
  private(set) var evictedSeconds = -Double.infinity

  fileprivate init(base: Int, capacity: Int) {
    self.base = base
    self.capacity = capacity
  }

  /// Appends a run of entries through `body` into `entries` (the shared
  /// buffer, already checked for uniqueness), each newer than every one
  /// held (the caller guarantees it). O(1) besides `body`.
  mutating func appendRun<R>(_ entries: UnsafeMutablePointer<Double>?, _ body: (inout Run) -> R) -> R {
    var run = Run(head: head, count: count, evictedSeconds: evictedSeconds, capacity: capacity)
    run.entries = entries.map { $0 + 2 &* base }
    let result = body(&run)
    (head, count, evictedSeconds) = (run.head, run.count, run.evictedSeconds)
    return result
  }

  /// The ring's write end while `appendRun` holds the buffer.
  struct Run {
    fileprivate var head: Int
    fileprivate var count: Int
    fileprivate var evictedSeconds: Double
    fileprivate let capacity: Int
    fileprivate var entries: UnsafeMutablePointer<Double>?

    fileprivate init(head: Int, count: Int, evictedSeconds: Double, capacity: Int) {
      (self.head, self.count, self.evictedSeconds, self.capacity) = (head, count, evictedSeconds, capacity)
    }

    /// Appends an entry newer than every one held; the oldest is overwritten when full.
    @inline(__always)
    mutating func append(_ time: Double, _ value: Double) {
      guard let e = entries else { return }
      let slot = head
      if count == capacity { evictedSeconds = e[2 &* slot] }
      e[2 &* slot] = time
      e[2 &* slot &+ 1] = value
      // slot < capacity and count ≤ capacity: neither sum can overflow.
      head = slot &+ 1 == capacity ? 0 : slot &+ 1
      count = min(count &+ 1, capacity)
    }
  }

  /// The ring's physical slot (0 ..< capacity) of logical index i (0 = oldest).
  fileprivate func slot(_ i: Int) -> Int {
    let s = head - count + i
    return s < 0 ? s + capacity : (s >= capacity ? s - capacity : s)
  }
}

/// The entries of several rings in one buffer (each ring's capacity at
/// least 1), and the rings laid out in it.
struct RingEntries: Sendable, Hashable {
  /// Entry i's time at 2i, its value at 2i + 1: a time and its value share a line.
  var buffer: [Double]

  /// A buffer for rings of these capacities (each at least 1), and the rings.
  static func make(capacities: [Int]) -> (RingEntries, [Ring]) {
    var rings: [Ring] = []
    var base = 0
    for c in capacities {
      let capacity = max(1, c)
      rings.append(Ring(base: base, capacity: capacity))
      base += capacity
    }
    return (RingEntries(buffer: Array(repeating: 0, count: 2 * base)), rings)
  }

  /// `ring`'s entries, for window queries.
  func reading(_ ring: Ring) -> RingReader { RingReader(ring: ring, buffer: buffer) }
}

/// One ring's entries for window queries (oldest first).
struct RingReader {
  let ring: Ring
  let buffer: [Double]

  private var count: Int { ring.count }
  private func time(_ slot: Int) -> Double { buffer[2 &* (ring.base &+ slot)] }
  private func value(_ slot: Int) -> Double { buffer[2 &* (ring.base &+ slot) &+ 1] }
  private func slot(_ i: Int) -> Int { ring.slot(i) }

  /// The first logical index (0 = oldest) whose time is ≥ `time`. O(log count).
  private func lowerBound(_ time: Double) -> Int {
    var lo = 0
    var hi = count
    while lo < hi {
      let mid = (lo + hi) / 2
      if self.time(slot(mid)) < time { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// Whether the window starting at `from` may have lost entries to the capacity.
  func truncated(from: Double) -> Bool { from <= ring.evictedSeconds }

  /// Calls `body` for each entry with from ≤ time ≤ to, oldest first.
  /// O(log count + entries visited).
  func visit(from: Double, to: Double, _ body: (Double, Double) -> Void) {
    var i = lowerBound(from)
    while i < count {
      let s = slot(i)
      guard time(s) <= to else { return }
      body(time(s), value(s))
      i += 1
    }
  }

  /// Values with from ≤ time ≤ to, oldest first.
  func values(from: Double, to: Double) -> [Double] {
    var out: [Double] = []
    visit(from: from, to: to) { _, v in out.append(v) }
    return out
  }

  /// The largest value with from ≤ time ≤ to (nil: none).
  func maximum(from: Double, to: Double) -> Double? {
    var best: Double?
    visit(from: from, to: to) { _, v in if v > (best ?? -.infinity) { best = v } }
    return best
  }

  /// The first entry with from ≤ time ≤ to for which `accept` holds.
  func first(from: Double, to: Double, where accept: (Double, Double) -> Bool) -> (Double, Double)? {
    var i = lowerBound(from)
    while i < count {
      let s = slot(i)
      guard time(s) <= to else { return nil }
      if accept(time(s), value(s)) { return (time(s), value(s)) }
      i += 1
    }
    return nil
  }

  /// The last entry with from ≤ time ≤ to (nil: none).
  func last(from: Double, to: Double) -> (Double, Double)? {
    let end = lowerBound(to.nextUp)  // first index with time > to
    guard end > 0 else { return nil }
    let s = slot(end - 1)
    return time(s) >= from ? (time(s), value(s)) : nil
  }
}

/// Median of a list (the mean of the middle two for an even count); NaN when empty.
func median(_ values: [Double]) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  let m = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
}
