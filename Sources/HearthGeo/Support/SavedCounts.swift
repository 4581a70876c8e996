/// The range a count kept in a saved state may hold: 0 to 2⁵³. Far beyond
/// any real count (a fix a millisecond for 285 000 years), and small enough
/// that adding to one never overflows an `Int`, so a corrupted saved count
/// is refused when it is read instead of trapping when it next grows.
enum SavedCount {
  static let range: ClosedRange<Int> = 0...(1 << 53)

  /// `value` if it lies in ``range``; else throws `DecodingError.dataCorrupted`
  /// naming `key`. O(1).
  static func checked<Key: CodingKey>(
    _ value: Int, _ key: Key, in container: KeyedDecodingContainer<Key>
  ) throws -> Int {
    guard range.contains(value) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "count \(value) is outside 0…2⁵³")
    }
    return value
  }
}

extension SavedCount {
  /// Why a saved count of closed trip segments cannot be restored, or nil:
  /// the next segment's id is the count plus one, so 2³² − 1 leaves none.
  static func closedSegmentsProblem(_ count: UInt32) -> String? {
    count < .max ? nil : "\(count) segments closed leaves no id for the next"
  }
}
