/// Changing state and scratch in place on the ingest path.
///
/// Per-person state tables (`[UserID: State]` and friends) are visited once
/// per run of a person's fixes. Taking a value out with `removeValue` and
/// putting it back costs a lookup, a deletion (which rehashes the
/// neighbouring entries) and an insertion; a position found once and the
/// value changed in place through `values[position]` costs one lookup.
extension Dictionary {
  /// The position of `key`, after inserting `makeValue()` when it is
  /// missing. The position stays valid until the table's keys change (an
  /// insertion or removal); changing values through `values[position]`
  /// keeps it valid.
  /// - Complexity: one hash lookup when `key` is present, three (amortised
  ///   O(1)) when it is inserted.
  @inlinable
  mutating func position(of key: Key, inserting makeValue: @autoclosure () -> Value) -> Index {
    if let found = index(forKey: key) { return found }
    updateValue(makeValue(), forKey: key)
    // Just inserted, so present; the fallback start index is never taken.
    return index(forKey: key) ?? startIndex
  }
}

extension Array {
  /// Empties the array and keeps its buffer. An empty array is left alone:
  /// `removeAll(keepingCapacity:)` goes through the generic range
  /// replacement (or, on the shared empty buffer, a new buffer) even then,
  /// which per-fix scratch lists that are usually empty pay on every fix.
  /// A short list (the usual few candidates of a fix) is emptied from its
  /// end, one `removeLast` each, which the optimiser inlines; the range
  /// replacement is a call of about 40 instructions.
  @inline(__always)
  mutating func empty() {
    guard !isEmpty else { return }
    if count <= 4 {
      while !isEmpty { removeLast() }
    } else {
      removeAll(keepingCapacity: true)
    }
  }

  /// Makes room for `extra` more elements, growing geometrically:
  /// `reserveCapacity(count + extra)` allocates exactly that, so a list that
  /// gets a few more elements per batch would be copied whole every batch
  /// (quadratic in its length); this at least doubles the capacity when it
  /// has to grow, so appends stay amortised O(1).
  @inline(__always)
  mutating func reserveRoom(for extra: Int) {
    let needed = count + extra
    if needed > capacity { reserveCapacity(Swift.max(needed, 2 * capacity)) }
  }

  /// Appends `element`; the first one reserves room for `firstCapacity`.
  /// For an engine's output list: most batches decide nothing or a few
  /// things, some decide dozens, and growing 1, 2, 4, 8 … from empty costs
  /// an allocation per step, while reserving up front would cost one in
  /// every batch that decides nothing.
  @inline(__always)
  mutating func append(_ element: Element, reservingOnFirst firstCapacity: Int) {
    if capacity == 0 { reserveCapacity(firstCapacity) }
    append(element)
  }

  /// `removeAll(where:)`, with nothing done when no element matches (the
  /// usual case for the lists it serves).
  @inline(__always)
  mutating func removeAllIfAny(where shouldRemove: (Element) -> Bool) {
    if contains(where: shouldRemove) { removeAll(where: shouldRemove) }
  }
}
