/// A person's fixes waiting for the trip rules, in time order: fixes join
/// at the back (or, late, in their place) and leave from the front once the
/// idle gap has passed them.
///
/// Leaving from the front of an array moves every fix behind (104 B each):
/// a phone that keeps about twenty fixes waiting and sends one a batch paid
/// a move of the whole list per batch (2.6 % of the ingest path's
/// instructions). Here the front only moves a start index; the fixes still
/// waiting move down only once the dropped part is as long as they are, so
/// each fix is moved O(1) times amortised.
///
/// A value: equality, hashing and encoding see only the waiting fixes, never
/// where they sit in the storage.
struct PendingFixes: Sendable {
  private var storage: [Fix] = []
  /// Storage positions before this hold fixes that left.
  private var start = 0

  init() {}
  init(_ fixes: [Fix]) { storage = fixes }

  /// The waiting fixes, oldest first. O(1).
  var fixes: ArraySlice<Fix> { storage[start...] }
  var isEmpty: Bool { start == storage.count }
  var count: Int { storage.count - start }
  var first: Fix? { isEmpty ? nil : storage[start] }
  var last: Fix? { isEmpty ? nil : storage[storage.count - 1] }
  /// Fixes the storage has room for (what the list holds in memory).
  var storageCapacity: Int { storage.capacity }

  /// Waiting fix `k` (0: the oldest). O(1).
  subscript(k: Int) -> Fix { storage[start + k] }

  mutating func append(_ fix: Fix) { storage.append(fix) }

  /// The first waiting fix (0: the oldest) whose time is `time` or later
  /// (`count`: none). O(log count).
  func firstIndex(notBefore time: Int64) -> Int {
    var low = 0
    var high = count
    while low < high {
      let mid = low + (high - low) / 2
      if storage[start + mid].timeMilliseconds < time { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// Sorts `fixes` in: they rise strictly in time, and none has the time
  /// of a waiting fix. O(count + fixes.count), merged from the back.
  mutating func merge(_ fixes: [Fix]) {
    guard let first = fixes.first else { return }
    var waiting = storage.count - 1
    storage.append(contentsOf: fixes)
    guard let last = storage[start..<(waiting + 1)].last, last.timeMilliseconds > first.timeMilliseconds
    else { return }
    // Every step fills position k and takes one fix from either list.
    var k = storage.count - 1
    var j = fixes.count - 1
    while j >= 0 {
      if waiting >= start && storage[waiting].timeMilliseconds > fixes[j].timeMilliseconds {
        storage[k] = storage[waiting]
        waiting -= 1
      } else {
        storage[k] = fixes[j]
        j -= 1
      }
      k -= 1
    }
  }

  /// Room for `extra` more fixes (geometric growth, ``Array/reserveRoom(for:)``).
  mutating func reserveRoom(for extra: Int) { storage.reserveRoom(for: extra) }

  /// The oldest `k` fixes leave (0 ≤ k ≤ count). Amortised O(1) per fix.
  /// The storage is kept for the next fixes unless it holds room for more
  /// than ``largestKept`` (a backlog sorted in once would otherwise be
  /// held for good: 86 400 fixes, 9 MB, for a day).
  mutating func removeFirst(_ k: Int) {
    start += k
    let keep = storage.capacity <= Self.largestKept
    if start == storage.count {
      if keep { storage.removeAll(keepingCapacity: true) } else { storage = [] }
      start = 0
    } else if start >= storage.count - start {
      if keep { storage.removeFirst(start) } else { storage = Array(storage[start...]) }
      start = 0
    }
  }

  /// Room kept once fixes leave: five minutes (the idle gap) of one fix a
  /// second, and some.
  static let largestKept = 512
}

extension PendingFixes: Hashable {
  static func == (a: PendingFixes, b: PendingFixes) -> Bool { a.fixes.elementsEqual(b.fixes) }

  func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for fix in fixes { hasher.combine(fix) }
  }
}
