/// Sorts lists of `UInt64` keys ascending with storage it keeps between
/// calls, so that a sort done once per batch allocates nothing once the
/// lists have grown to the batch's size.
///
/// The standard library's `sort` is a merge sort that allocates a buffer of
/// up to n/2 elements on every call, and on the ingest path's (person,
/// position) keys of a 200-fix batch it cost about 110 instructions a key.
/// Here a short list is sorted by insertion and a longer one by bytes, least
/// significant first (a counting pass per byte), skipping every byte in
/// which the keys do not differ, and the low half's four when the list is
/// in order of its low halves already: the ingest path's keys are (person,
/// position) pairs listed in position order, so only the bytes in which
/// the batch's people differ are passed over (one to four).
///
/// Keys that compare equal are indistinguishable, so the result is the one
/// order `sort()` gives, whichever way it is reached.
struct KeySorter: Sendable {
  /// The other list of each counting pass.
  private var buffer: [UInt64] = []
  /// Keys per byte value, then where each byte value's keys start.
  private var counts = [Int](repeating: 0, count: 256)

  /// Lists of at most this many keys are sorted by insertion.
  static let insertionLimit = 32

  init() {}

  /// Room the sorter holds between calls, in keys (what it keeps in memory).
  var bufferCapacity: Int { buffer.capacity }

  /// Sorts `keys` ascending. The storage of `keys` and of the sorter's
  /// buffer may trade places (a sort by an odd number of bytes ends in the
  /// buffer). O(n) for n ≤ 32 keys in order, O(n²) for 32 unordered ones;
  /// past that O(n) for keys in order, else O(b (n + 256)) for b ≤ 8 the
  /// bytes in which the keys differ (b ≤ 4 when the low halves are in order).
  /// No allocation once the buffer has held `keys.count` keys.
  mutating func sort(_ keys: inout [UInt64]) {
    let n = keys.count
    guard n > 1 else { return }
    if n <= Self.insertionLimit {
      keys.withUnsafeMutableBufferPointer { Self.insertionSort($0) }
      return
    }
    // Which bits differ, and whether the list is in order already, or in
    // order of its low halves (then a stable sort by the high half alone
    // finishes it: its passes keep the order the low half has).
    var varying: UInt64 = 0
    var ordered = true
    var lowHalvesOrdered = true
    keys.withUnsafeBufferPointer { keys in
      let first = keys[0]
      var previous = first
      for key in keys {
        varying |= key ^ first
        if key < previous { ordered = false }
        if UInt32(truncatingIfNeeded: key) < UInt32(truncatingIfNeeded: previous) { lowHalvesOrdered = false }
        previous = key
      }
    }
    guard !ordered else { return }
    if lowHalvesOrdered { varying &= ~UInt64(UInt32.max) }
    if buffer.count != n {
      buffer.removeAll(keepingCapacity: true)
      buffer.append(contentsOf: repeatElement(0, count: n))
    }
    var shift: UInt64 = 0
    while shift < 64 {
      if (varying >> shift) & 0xFF != 0 {
        Self.countingPass(from: keys, into: &buffer, shift: shift, counts: &counts)
        swap(&keys, &buffer)
      }
      shift += 8
    }
  }

  /// Insertion sort: each key moves back past the larger keys before it.
  /// O(n + inversions).
  private static func insertionSort(_ keys: UnsafeMutableBufferPointer<UInt64>) {
    var i = 1
    while i < keys.count {
      let key = keys[i]
      var j = i
      while j > 0 && keys[j &- 1] > key {
        keys[j] = keys[j &- 1]
        j &-= 1
      }
      keys[j] = key
      i &+= 1
    }
  }

  /// One stable pass on the byte at `shift`: `source` into `target` (of the
  /// same length) in order of that byte. O(n + 256).
  private static func countingPass(
    from source: [UInt64], into target: inout [UInt64], shift: UInt64, counts: inout [Int]
  ) {
    // The writes below go through pointers: every key lands inside `target`
    // only while the two lists have the same length (`sort` sizes them so).
    precondition(source.count == target.count && counts.count == 256, "KeySorter: lists of unequal length")
    source.withUnsafeBufferPointer { source in
      target.withUnsafeMutableBufferPointer { target in
        counts.withUnsafeMutableBufferPointer { counts in
          counts.update(repeating: 0)
          for key in source { counts[Int(truncatingIfNeeded: (key >> shift) & 0xFF)] &+= 1 }
          var start = 0
          for b in 0..<256 {
            let c = counts[b]
            counts[b] = start
            start &+= c
          }
          for key in source {
            let b = Int(truncatingIfNeeded: (key >> shift) & 0xFF)
            target[counts[b]] = key
            counts[b] &+= 1
          }
        }
      }
    }
  }
}
