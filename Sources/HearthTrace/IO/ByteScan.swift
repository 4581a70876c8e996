/// Finding bytes eight at a time (SWAR: one 64-bit word holds eight bytes).
enum ByteScan {
  /// The index of the first byte equal to `a` or `b` in `p[start..<limit]`,
  /// or `limit` when there is none.
  ///
  /// Reads whole words, up to 7 bytes past `limit`: the memory must be
  /// readable there (a ``ChunkSource`` buffer is, up to its `end` plus
  /// ``ChunkSource/padding``). What those bytes hold does not matter.
  /// - Complexity: O(limit − start), about (limit − start) / 8 steps.
  @inline(__always)
  static func firstOf(_ a: UInt8, _ b: UInt8, in p: UnsafePointer<UInt8>, from start: Int, limit: Int) -> Int
  {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let tops: UInt64 = 0x8080_8080_8080_8080
    let spreadA = ones &* UInt64(a)
    let spreadB = ones &* UInt64(b)
    var i = start
    while i < limit {
      // p[i] in the low byte on every platform.
      let word = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
      let x = word ^ spreadA
      let y = word ^ spreadB
      // The lowest marked byte is the first zero byte of x (or y); a borrow
      // can only mark bytes above it.
      let found = (((x &- ones) & ~x) | ((y &- ones) & ~y)) & tops
      if found != 0 { return min(i + found.trailingZeroBitCount >> 3, limit) }
      i += 8
    }
    return limit
  }
}
