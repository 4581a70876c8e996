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

  /// Waiting fix `k` (0: the oldest). O(1).
  subscript(k: Int) -> Fix { storage[start + k] }

  mutating func append(_ fix: Fix) { storage.append(fix) }

  /// Puts `fix` before waiting fix `k` (`count`: at the back). O(count).
  mutating func insert(_ fix: Fix, at k: Int) { storage.insert(fix, at: start + k) }

  /// Room for `extra` more fixes (geometric growth, ``Array/reserveRoom(for:)``).
  mutating func reserveRoom(for extra: Int) { storage.reserveRoom(for: extra) }

  /// The oldest `k` fixes leave (0 ≤ k ≤ count). Amortised O(1) per fix.
  mutating func removeFirst(_ k: Int) {
    start += k
    if start == storage.count {
      storage.removeAll(keepingCapacity: true)
      start = 0
    } else if start >= storage.count - start {
      storage.removeFirst(start)
      start = 0
    }
  }
}

extension PendingFixes: Hashable {
  static func == (a: PendingFixes, b: PendingFixes) -> Bool { a.fixes.elementsEqual(b.fixes) }

  func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for fix in fixes { hasher.combine(fix) }
  }
}
