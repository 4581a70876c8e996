import Testing

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("A person's pending fixes (trips)")
struct PendingFixesTests {
  static func fix(_ second: Int64) -> Fix {
    Fix(
      timeMilliseconds: second * 1000, latitudeDegrees: 48.85, longitudeDegrees: 2.35,
      horizontalAccuracyMeters: 10,
      user: UserID(1))
  }

  @Test("fixes leave from the front as from an array, in any pattern of arrivals and departures")
  func behavesAsAnArray() {
    var queue = PendingFixes()
    var array: [Fix] = []
    var next: Int64 = 0
    var generator = SeededGenerator(seed: 33)
    for step in 0..<2_000 {
      // Arrivals at the back, now and then a late one in its place.
      for _ in 0..<Int.random(in: 0...3, using: &generator) {
        next += 2
        queue.append(Self.fix(next))
        array.append(Self.fix(next))
      }
      if step % 7 == 0, let last = array.last {
        let late = Self.fix(last.timeMilliseconds / 1000 - 1)
        let k = array.count - 1
        queue.merge([late])
        array.insert(late, at: k)
      }
      let leaving = Int.random(in: 0...min(3, array.count), using: &generator)
      queue.removeFirst(leaving)
      array.removeFirst(leaving)
      #expect(Array(queue.fixes) == array)
      #expect(queue.count == array.count && queue.first == array.first && queue.last == array.last)
      if !array.isEmpty { #expect(queue[array.count - 1] == array[array.count - 1]) }
    }
  }

  @Test(
    "merging sorted fixes in gives the sorted union, whatever lies waiting or has left", arguments: 0..<40)
  func mergeSortsIn(seed: UInt64) {
    var generator = SeededGenerator(seed: 900 + seed)
    var seconds = Array(
      Set(
        (0..<Int.random(in: 0...60, using: &generator)).map { _ in
          Int64.random(in: 0...200, using: &generator)
        })
    ).sorted()  // (a set's order varies from run to run; the shuffle below must not)
    seconds.shuffle(using: &generator)
    let cut = Int.random(in: 0...seconds.count, using: &generator)
    let waiting = seconds[..<cut].sorted()
    let arriving = seconds[cut...].sorted()
    var queue = PendingFixes((waiting + [1_000, 1_001]).map(Self.fix))
    let leaving = Int.random(in: 0...waiting.count, using: &generator)
    queue.removeFirst(leaving)  // some may have left already
    var expected = (waiting.dropFirst(leaving) + [1_000, 1_001] + arriving).sorted()
    queue.merge(arriving.map(Self.fix))
    #expect(queue.fixes.map { $0.timeMilliseconds / 1000 } == expected, "seed \(seed)")
    // Later ones go at the back.
    queue.merge([Self.fix(1_002), Self.fix(1_003)])
    expected += [1_002, 1_003]
    #expect(queue.fixes.map { $0.timeMilliseconds / 1000 } == expected, "seed \(seed)")
  }

  @Test("a backlog's storage is not kept once it has left; a few minutes' worth is")
  func aBacklogsStorageIsLetGo() {
    var queue = PendingFixes()
    queue.merge((0..<10_000).map { Self.fix(Int64($0)) })
    queue.removeFirst(9_990)  // the last ten wait on, in storage of their own size
    #expect(queue.count == 10 && queue.fixes.first?.timeMilliseconds == 9_990_000)
    queue.removeFirst(10)
    queue.merge([Self.fix(20_000)])
    var few = PendingFixes()
    few.merge((0..<300).map { Self.fix(Int64($0)) })
    let room = few.storageCapacity
    few.removeFirst(300)
    few.merge([Self.fix(400)])
    #expect(queue.storageCapacity < 64 && room >= 300 && few.storageCapacity == room)
  }

  @Test("equality and hashing see only the waiting fixes, not where they sit")
  func valueSemantics() {
    var moved = PendingFixes([Self.fix(1), Self.fix(2), Self.fix(3), Self.fix(4), Self.fix(5)])
    moved.removeFirst(1)  // one of four dropped: the rest stay where they are
    let fresh = PendingFixes([Self.fix(2), Self.fix(3), Self.fix(4), Self.fix(5)])
    #expect(moved == fresh && moved.hashValue == fresh.hashValue)
    moved.removeFirst(1)
    #expect(moved != fresh)
  }

  @Test("a fix leaving the front moves the rest O(1) times amortised, not the whole list every time")
  func amortisedMoves() {
    // A steady queue of 1 000 waiting fixes, one joining and one leaving per
    // step: the storage is compacted only when the dropped part is as long
    // as what waits, so about every 1 000 steps.
    var queue = PendingFixes()
    for s in 0..<1_000 { queue.append(Self.fix(Int64(s))) }
    var compactions = 0
    var previousFirstPosition = -1
    for s in 1_000..<11_000 {
      queue.append(Self.fix(Int64(s)))
      queue.removeFirst(1)
      let position = queue.fixes.startIndex
      if position < previousFirstPosition { compactions += 1 }
      previousFirstPosition = position
    }
    #expect(compactions >= 5 && compactions <= 11, "compacted \(compactions) times in 10 000 steps")
    #expect(queue.count == 1_000 && queue.first?.timeMilliseconds == 10_000_000)
  }
}
