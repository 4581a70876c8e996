import HearthC
import Testing

@Suite("A caller's columns: overlap found, a claimed count never traps")
struct ColumnTests {
  @Test("columns side by side do not overlap; one element on does; an empty one overlaps nothing")
  func overlaps() throws {
    var values = [Double](repeating: 0, count: 8)
    try values.withUnsafeMutableBufferPointer { all in
      let first = UnsafeMutableBufferPointer(rebasing: all[0..<4])
      let second = UnsafeMutableBufferPointer(rebasing: all[4..<8])
      let shifted = UnsafeMutableBufferPointer(rebasing: all[1..<5])
      let empty = UnsafeMutableBufferPointer(rebasing: all[2..<2])
      try apart([Column(second, "out")], from: [Column(first, "in")])
      try apart([Column(empty, "out")], from: [Column(first, "in")])
      #expect(throws: ArgumentError.self) { try apart([Column(shifted, "out")], from: [Column(first, "in")]) }
      #expect(throws: ArgumentError.self) { try apart([Column(first, "a"), Column(shifted, "b")], from: []) }
    }
  }

  @Test(
    "a count of 2⁶⁰ doubles (more bytes than the address space) reaches its end and overlaps what follows")
  func hugeCount() throws {
    var values = [Double](repeating: 0, count: 4)
    try values.withUnsafeMutableBufferPointer { all in
      let base = try #require(all.baseAddress)
      // Never read: Column takes only the address and the claimed count.
      let claimed = UnsafeBufferPointer(start: UnsafePointer(base), count: 1 << 60)
      let after = UnsafeMutableBufferPointer(rebasing: all[2..<4])
      #expect(throws: ArgumentError.self) { try apart([Column(after, "out")], from: [Column(claimed, "in")]) }
    }
  }
}
