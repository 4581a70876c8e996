import Testing

@testable import HearthGeo

@Suite("Per-person tables and scratch lists changed in place")
struct InPlaceTests {
  @Test("position(of:inserting:): the same slot for a present key, the value changed in place")
  func positionInPlace() {
    var table: [UInt32: [Int]] = [1: [1], 2: [2]]
    let slot = table.position(of: 1, inserting: [])
    table.values[slot].append(10)
    #expect(table[1] == [1, 10] && table.position(of: 1, inserting: []) == slot)
    let fresh = table.position(of: 3, inserting: [3])
    table.values[fresh].append(30)
    #expect(table == [1: [1, 10], 2: [2], 3: [3, 30]])
  }

  @Test("empty() and removeAllIfAny(where:): the same contents as removeAll, the buffer kept")
  func scratchLists() {
    var list = [3, 1, 2]
    list.reserveCapacity(64)
    let capacity = list.capacity
    list.removeAllIfAny { $0 > 5 }
    #expect(list == [3, 1, 2])
    list.removeAllIfAny { $0 == 1 }
    #expect(list == [3, 2])
    list.empty()
    #expect(list.isEmpty && list.capacity == capacity)
    var none: [Int] = []
    none.empty()
    none.removeAllIfAny { _ in true }
    #expect(none.isEmpty)
    // Short lists go element by element, longer ones at once: both empty
    // and keep the buffer, and a copy sharing the buffer keeps its elements.
    for n in [1, 4, 5, 100] {
      var scratch = Array(0..<n)
      scratch.reserveCapacity(128)
      let room = scratch.capacity
      let shared = scratch
      scratch.empty()
      #expect(scratch.isEmpty && scratch.capacity >= min(room, n) && shared == Array(0..<n), "\(n)")
      var unique = Array(0..<n)
      unique.reserveCapacity(128)
      let uniqueRoom = unique.capacity
      unique.empty()
      #expect(unique.isEmpty && unique.capacity == uniqueRoom, "\(n)")
    }
  }

  @Test("reserveRoom(for:): room for what comes, and a list fed a little per batch is not copied every batch")
  func roomGrowsGeometrically() {
    var list: [Int] = []
    var grown = 0
    for batch in 0..<1_000 {
      let capacity = list.capacity
      list.reserveRoom(for: 3)
      #expect(list.capacity >= list.count + 3)
      if list.capacity != capacity { grown += 1 }
      list.append(contentsOf: [batch, batch, batch])
    }
    // 3 000 elements: about log2(3 000) ≈ 12 growths, not one per batch
    // (reserveCapacity(count + 3) grows every time).
    #expect(grown <= 13, "grew \(grown) times")
    var untouched = [1, 2]
    untouched.reserveCapacity(10)
    let before = untouched.capacity
    untouched.reserveRoom(for: 0)
    untouched.reserveRoom(for: before - 2)
    #expect(untouched.capacity == before)
  }

  @Test(
    "append(_:reservingOnFirst:): an empty list takes room for the first events at once, then grows as usual")
  func firstAppendReserves() {
    var list: [Int] = []
    var grown = 0
    for k in 0..<16 {
      let capacity = list.capacity
      list.append(k, reservingOnFirst: 16)
      if list.capacity != capacity { grown += 1 }
    }
    #expect(list == Array(0..<16))
    #expect(grown == 1, "grew \(grown) times for 16 elements")
    // A list that already has room is not grown by the first-append rule.
    var full = [1, 2, 3]
    let before = full.capacity
    full.append(4, reservingOnFirst: 1_000)
    #expect(full == [1, 2, 3, 4] && full.capacity < 1_000 && full.capacity >= before)
  }
}
