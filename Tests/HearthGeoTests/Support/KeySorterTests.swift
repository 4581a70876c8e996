import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("KeySorter: the order sort() gives, with storage kept between calls")
struct KeySorterTests {
  /// A list of keys, shrunk by dropping keys and by clearing bits.
  struct Case: Shrinkable, CustomStringConvertible {
    var keys: [UInt64]

    var shrinkCandidates: [Case] {
      var smaller: [Case] = []
      if keys.count > 1 {
        smaller.append(Case(keys: Array(keys.prefix(keys.count / 2))))
        smaller.append(Case(keys: Array(keys.suffix(keys.count - keys.count / 2))))
      }
      for i in keys.indices {
        var fewer = keys
        fewer.remove(at: i)
        smaller.append(Case(keys: fewer))
      }
      for i in keys.indices where keys[i] != 0 {
        var plainer = keys
        plainer[i] >>= 1
        smaller.append(Case(keys: plainer))
      }
      return smaller
    }

    var description: String { "\(keys.count) keys: \(keys.map { "0x" + String($0, radix: 16) })" }
  }

  /// Keys shaped as the ingest path's and as anything else: few or many
  /// people, positions rising, bytes that differ only high or only low,
  /// repeats, and the extremes.
  static func keys(_ random: inout SeededGenerator) -> [UInt64] {
    let n = [0, 1, 2, 3, 31, 32, 33, 34, 64, 200, 257, 1_000].randomElement(using: &random) ?? 0
    switch Int.random(in: 0..<7, using: &random) {
    case 6:  // low halves in order with repeats, high halves in one byte anywhere
      let shift = UInt64.random(in: 4..<8, using: &random) * 8
      return (0..<n).map { UInt64.random(in: 0...3, using: &random) << shift | UInt64($0 / 3) }
    case 0:  // (person, position), people drawn from a few
      let people = UInt64.random(in: 1...20, using: &random)
      return (0..<n).map { UInt64.random(in: 1...people, using: &random) << 32 | UInt64($0) }
    case 1:  // (person, position), people spread over 32 bits
      return (0..<n).map { UInt64.random(in: 0...UInt64(UInt32.max), using: &random) << 32 | UInt64($0) }
    case 2:  // repeats of a few values
      return (0..<n).map { _ in [0, 1, .max, 1 << 63, 0xFF00].randomElement(using: &random) ?? 0 }
    case 3:  // only one byte varies
      let byte = UInt64.random(in: 0..<8, using: &random) * 8
      return (0..<n).map { _ in UInt64.random(in: 0...255, using: &random) << byte | 0x0101_0101_0101_0101 }
    case 4:  // already sorted, or reversed
      let sorted = (0..<n).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }.sorted()
      return Bool.random(using: &random) ? sorted : sorted.reversed()
    default:
      return (0..<n).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
    }
  }

  @Test("random lists of every shape, one sorter for all of them in turn, sort as sort() does")
  func agreesWithSort() {
    var sorter = KeySorter()
    let failure = PropertyCheck.run(
      "KeySorter sorts as sort()", cases: PropertyCampaign.cases(default: 3_000),
      generator: { SeededGenerator(seed: $0) },
      generate: { Case(keys: Self.keys(&$0)) },
      check: { c in
        var keys = c.keys
        sorter.sort(&keys)
        let expected = c.keys.sorted()
        return keys == expected ? nil : "got \(keys.map { String($0, radix: 16) })"
      })
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// `(high << shift) | low` for each i of 0..<n, as `high(i)` and `low(i)` say.
  static func packed(_ n: Int, shift: UInt64, high: (UInt64) -> UInt64, low: (UInt64) -> UInt64) -> [UInt64] {
    (0..<UInt64(n)).map { (i: UInt64) -> UInt64 in high(i) << shift | low(i) }
  }

  @Test("the edges: empty, one key, every insertion length, all equal, each byte alone")
  func edges() {
    var sorter = KeySorter()
    var none: [UInt64] = []
    sorter.sort(&none)
    #expect(none.isEmpty)
    var one: [UInt64] = [7]
    sorter.sort(&one)
    #expect(one == [7])
    // Either side of the insertion limit, reversed lists.
    for n in [KeySorter.insertionLimit - 1, KeySorter.insertionLimit, KeySorter.insertionLimit + 1, 300] {
      let top = UInt64(n - 1)
      var keys = Self.packed(n, shift: 40, high: { top - $0 }, low: { top - $0 })
      sorter.sort(&keys)
      let expected = Self.packed(n, shift: 40, high: { $0 }, low: { $0 })
      #expect(keys == expected, "n = \(n)")
    }
    var same = [UInt64](repeating: .max, count: 100)
    sorter.sort(&same)
    #expect(same == [UInt64](repeating: .max, count: 100))
    for byte in stride(from: UInt64(0), to: 64, by: 8) {
      var keys = Self.packed(100, shift: byte, high: { 99 - $0 }, low: { _ in 0 })
      sorter.sort(&keys)
      let expected = Self.packed(100, shift: byte, high: { $0 }, low: { _ in 0 })
      #expect(keys == expected, "byte at bit \(byte)")
    }
  }

  @Test("the storage is kept: a second sort of the same size finds room in both lists")
  func storageKept() {
    var sorter = KeySorter()
    var keys = Self.packed(500, shift: 32, high: { 500 - $0 }, low: { $0 })
    sorter.sort(&keys)
    #expect(keys.capacity >= 500 && sorter.bufferCapacity >= 500)
    let unsorted = Self.packed(500, shift: 32, high: { $0 % 7 }, low: { $0 })
    keys = unsorted
    sorter.sort(&keys)
    let expected = unsorted.sorted()
    #expect(keys == expected)
    #expect(sorter.bufferCapacity >= 500)
  }
}
