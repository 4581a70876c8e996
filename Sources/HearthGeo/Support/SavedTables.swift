/// Saving per-person tables as the same bytes every time.
///
/// A dictionary whose keys are not strings is coded as a list of key,
/// value, key, value… in the order the dictionary holds its entries, and
/// that order depends on the table's storage (Swift seeds each table's
/// hash with it): two equal states, or one state saved, restored and saved
/// again, could be written as different bytes. Every table of a saved
/// state is written here in ascending key order instead, in the same list
/// form, so that a state saved by an older version reads as before.
extension UnkeyedEncodingContainer {
  /// `table`'s entries as key, value, key, value…, keys ascending.
  /// O(n log n).
  mutating func encodeInKeyOrder<TableKey: Comparable & Encodable, TableValue: Encodable>(
    _ table: [TableKey: TableValue]
  ) throws {
    for (key, value) in table.sorted(by: { $0.key < $1.key }) {
      try encode(key)
      try encode(value)
    }
  }
}

extension KeyedEncodingContainer {
  /// `table` under `key`, its entries in ascending key order
  /// (``UnkeyedEncodingContainer/encodeInKeyOrder(_:)``). O(n log n).
  mutating func encodeInKeyOrder<TableKey: Comparable & Encodable, TableValue: Encodable>(
    _ table: [TableKey: TableValue], forKey key: K
  ) throws {
    var list = nestedUnkeyedContainer(forKey: key)
    try list.encodeInKeyOrder(table)
  }
}
