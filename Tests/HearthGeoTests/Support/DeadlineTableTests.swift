import Foundation
import Testing

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Deadline tables: who is due, found without visiting everybody")
struct DeadlineTableTests {
  /// The plain rule the table replaces: everybody with a deadline at or
  /// before `now`, ascending id.
  func scanned(_ deadlines: [UserID: Int64], _ now: Int64) -> [UserID] {
    deadlines.filter { $0.value <= now }.keys.sorted()
  }

  @Test("due: exactly the people at or before the moment, ascending id; they stay until moved")
  func dueAtTheBoundary() {
    var table = DeadlineTable()
    table[UserID(3)] = 1_000
    table[UserID(1)] = 1_000
    table[UserID(2)] = 1_001
    #expect(table.due(atOrBefore: 999).isEmpty)
    #expect(!table.anyDue(atOrBefore: 999))
    #expect(table.due(atOrBefore: 1_000) == [UserID(1), UserID(3)])
    // Still there (the engine has not moved them): due again.
    #expect(table.due(atOrBefore: 1_000) == [UserID(1), UserID(3)])
    #expect(table.due(atOrBefore: 1_001) == [UserID(1), UserID(2), UserID(3)])
  }

  @Test("a moved or removed deadline is not reported at its old moment (stale heap entries dropped)")
  func movedAndRemoved() {
    var table = DeadlineTable()
    table[UserID(1)] = 100
    table[UserID(2)] = 100
    table[UserID(1)] = 500  // moved later
    table[UserID(2)] = nil  // removed
    #expect(table.due(atOrBefore: 499).isEmpty)
    #expect(table.due(atOrBefore: 500) == [UserID(1)])
    table[UserID(1)] = 50  // moved earlier
    #expect(table.due(atOrBefore: 50) == [UserID(1)])
    #expect(table.count == 1 && table.contains(UserID(1)) && !table.contains(UserID(2)))
  }

  @Test("the extreme moments of Int64 are ordinary deadlines")
  func extremes() {
    var table = DeadlineTable()
    table[UserID(1)] = .max
    table[UserID(2)] = .min
    #expect(table.due(atOrBefore: .min) == [UserID(2)])
    #expect(table.due(atOrBefore: .max) == [UserID(1), UserID(2)])
  }

  @Test("random changes and advances: the same people as scanning the whole table, in the same order")
  func againstTheScan() {
    var random = SeededGenerator(seed: 21)
    for _ in 0..<200 {
      var table = DeadlineTable()
      var plain: [UserID: Int64] = [:]
      var now: Int64 = 0
      for _ in 0..<300 {
        let person = UserID(UInt32.random(in: 0..<40, using: &random))
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
          let deadline = now + Int64.random(in: -50...400, using: &random)
          table[person] = deadline
          plain[person] = deadline
        case 5..<7:
          table[person] = nil
          plain[person] = nil
        default:
          now += Int64.random(in: 0...120, using: &random)
          let due = table.due(atOrBefore: now)
          #expect(due == scanned(plain, now))
          // The engine looks at them and moves most of them on.
          for person in due where Bool.random(using: &random) {
            let later = now + Int64.random(in: 1...300, using: &random)
            table[person] = later
            plain[person] = later
          }
        }
        #expect(table.deadlines == plain)
      }
    }
  }

  @Test(
    "coded in the dictionary's list form, ids ascending; read in any order; equal whatever the heap's history"
  )
  func codingAndEquality() throws {
    var table = DeadlineTable()
    for k in (0..<100).reversed() { table[UserID(UInt32(k))] = Int64(k * 7 % 13) }
    for k in 0..<50 { table[UserID(UInt32(k))] = Int64(k) }  // stale entries in the heap
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let coded = try encoder.encode(table)
    // id, deadline, id, deadline…, ids ascending (the same bytes for equal tables).
    let list = try #require(try JSONSerialization.jsonObject(with: coded) as? [NSNumber])
    let expected = table.deadlines.sorted { $0.key < $1.key }.flatMap { [Int64($0.key.rawValue), $0.value] }
    #expect(list.map(\.int64Value) == expected)
    // A table written in the dictionary's own order (older states) reads the same.
    #expect(try JSONDecoder().decode(DeadlineTable.self, from: encoder.encode(table.deadlines)) == table)
    let decoded = try JSONDecoder().decode(DeadlineTable.self, from: coded)
    #expect(decoded == table && decoded.hashValue == table.hashValue)
    var copy = decoded
    #expect(copy.due(atOrBefore: 6) == table.deadlines.filter { $0.value <= 6 }.keys.sorted())
  }
}
