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
  }
}
