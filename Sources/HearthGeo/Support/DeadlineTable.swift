/// The people an engine has something waiting for (a departure's minute, a
/// stop's five minutes, a trip's idle gap), each with the moment it falls
/// due on the server clock (ms since the epoch), and a min-heap over those
/// moments, so that a clock advance finds who is due in O(k log n) for k due
/// of n waiting, instead of visiting all n: the cost of a batch stays flat
/// as the fleet grows.
///
/// The table is the truth; the heap is derived from it and may hold stale
/// entries (a deadline since moved or removed), which are recognised when
/// they surface and dropped. Equality, hashing and coding see the table
/// alone, coded as the `[UserID: Int64]` it replaces, so saved states read
/// and write the same bytes; only a deadline past 2200 is written as
/// 2200's last millisecond (``encode(to:)``), so such a state restores
/// unequal to itself and decides the same.
struct DeadlineTable: Sendable {
  private(set) var deadlines: [UserID: Int64] = [:]
  /// (deadline, person) min-heap; every (person, deadline) of the table is
  /// in it at least once.
  private var heap: [Entry] = []
  /// `due`'s list of what it popped, kept between calls so that a clock
  /// advance does not grow a new list every time (empty between calls).
  private var popped: [Entry] = []

  private struct Entry: Sendable, Comparable {
    var deadline: Int64
    var person: UInt32
    static func < (a: Entry, b: Entry) -> Bool { (a.deadline, a.person) < (b.deadline, b.person) }
  }

  init() {}

  init(_ deadlines: [UserID: Int64]) {
    self.deadlines = deadlines
    rebuildHeap()
  }

  var isEmpty: Bool { deadlines.isEmpty }
  var count: Int { deadlines.count }

  /// The moment `person`'s wait falls due; setting nil removes them.
  /// - Complexity: O(log n) amortised.
  subscript(person: UserID) -> Int64? {
    get { deadlines[person] }
    set {
      guard let deadline = newValue else {
        deadlines.removeValue(forKey: person)
        compactIfStale()
        return
      }
      guard deadlines.updateValue(deadline, forKey: person) != deadline else { return }
      push(Entry(deadline: deadline, person: person.rawValue))
      compactIfStale()
    }
  }

  func contains(_ person: UserID) -> Bool { deadlines[person] != nil }

  /// The people whose deadline is at or before `now`, ascending id. They
  /// stay in the table (the engine moves or removes their deadline when it
  /// has looked at them).
  /// - Complexity: O(k log n) for k people due (and the stale entries met).
  mutating func due(atOrBefore now: Int64) -> [UserID] {
    var found: [Entry] = []
    swap(&found, &popped)
    defer {
      // (A list grown by a fleet-wide wave is not kept.)
      if found.capacity > 4_096 { found = [] } else { found.empty() }
      swap(&found, &popped)
    }
    while let top = heap.first, top.deadline <= now {
      popMin()
      if deadlines[UserID(top.person)] == top.deadline { found.append(top) }
    }
    guard !found.isEmpty else { return [] }
    // A deadline may have been pushed more than once: keep one of each.
    found.sort { $0.person < $1.person }
    var due: [UserID] = []
    due.reserveCapacity(found.count)
    for entry in found where due.last?.rawValue != entry.person {
      due.append(UserID(entry.person))
      push(entry)
    }
    return due
  }

  /// Whether anybody is due at or before `now`. O(1) (stale entries at the
  /// top may make it say yes when nobody is: `due` then returns nothing).
  func anyDue(atOrBefore now: Int64) -> Bool { heap.first.map { $0.deadline <= now } ?? false }

  // MARK: Heap
  private mutating func push(_ entry: Entry) {
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child] < heap[parent] else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func popMin() {
    guard heap.count > 1 else {
      heap.removeAll(keepingCapacity: true)
      return
    }
    heap[0] = heap.removeLast()
    siftDown(0)
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      var smallest = left
      if left + 1 < heap.count && heap[left + 1] < heap[left] { smallest = left + 1 }
      guard heap[smallest] < heap[parent] else { return }
      heap.swapAt(smallest, parent)
      parent = smallest
    }
  }

  /// Stale entries are at most about as many as live ones: rebuilt from the
  /// table when they outnumber it (amortised O(1) per change).
  private mutating func compactIfStale() {
    if heap.count > 2 * deadlines.count + 64 { rebuildHeap() }
  }

  private mutating func rebuildHeap() {
    heap = deadlines.map { Entry(deadline: $0.value, person: $0.key.rawValue) }
    for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
  }
}

extension DeadlineTable: Hashable {
  static func == (a: DeadlineTable, b: DeadlineTable) -> Bool { a.deadlines == b.deadlines }
  func hash(into hasher: inout Hasher) { hasher.combine(deadlines) }
}

extension DeadlineTable: Codable {
  init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode([UserID: Int64].self))
  }

  /// A deadline past the saved-state window (a wait that began in its last
  /// minutes, or a standalone engine's far-future times) is written as the
  /// window's last millisecond: a state holding it would be refused at
  /// restore (``IngestState/timeWindowMilliseconds``), losing every person
  /// in it. The restored person is visited then, checked exactly, and
  /// given the exact deadline again.
  /// People in ascending id order (SavedTables.swift).
  func encode(to encoder: any Encoder) throws {
    var list = encoder.unkeyedContainer()
    let last = IngestState.timeWindowMilliseconds.upperBound - 1
    try list.encodeInKeyOrder(
      deadlines.contains { $0.value > last } ? deadlines.mapValues { min($0, last) } : deadlines)
  }
}
