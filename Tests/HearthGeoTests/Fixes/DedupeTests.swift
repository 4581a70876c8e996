import Testing

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Dedupe on (user, device, time) (SPEC §1)")
struct DedupeTests {
  func fix(_ time: Int64, device: UInt32 = 1, user: UInt32 = 1, activity: Activity = .walking) -> Fix {
    Fix(
      timeMilliseconds: time, latitudeDegrees: 1, longitudeDegrees: 2, horizontalAccuracyMeters: 5,
      activity: activity, device: DeviceID(device), user: UserID(user))
  }

  @Test("a duplicate changes nothing; another device or user at the same time is new")
  func duplicates() {
    var index = DedupeIndex()
    let first = index.insert(FixColumns([fix(1000), fix(1000, device: 2), fix(1000, user: 2)]))
    #expect(first.insertedIndices == [0, 1, 2])
    let again = index.insert(FixColumns([fix(1000, activity: .automotive)]))
    #expect(again.duplicateIndices == [0] && again.insertedIndices.isEmpty)
    #expect(
      index.activity(for: FixKey(user: UserID(1), device: DeviceID(1), timeMilliseconds: 1000)) == .walking)
  }

  @Test("a re-report saying still adopts still, once")
  func stillAdoption() {
    var index = DedupeIndex()
    _ = index.insert(FixColumns([fix(1000)]))
    let key = FixKey(user: UserID(1), device: DeviceID(1), timeMilliseconds: 1000)
    let adopt = index.insert(FixColumns([fix(1000, activity: .still)]))
    #expect(adopt.stillAdoptionIndices == [0])
    #expect(index.activity(for: key) == .still)
    let repeatAdopt = index.insert(FixColumns([fix(1000, activity: .still)]))
    #expect(repeatAdopt.duplicateIndices == [0] && repeatAdopt.stillAdoptionIndices.isEmpty)
    // A later non-still re-report does not undo it.
    _ = index.insert(FixColumns([fix(1000, activity: .automotive)]))
    #expect(index.activity(for: key) == .still)
  }

  @Test("retried batches are idempotent; duplicates inside one batch count once")
  func idempotent() {
    let batch = FixColumns([fix(1), fix(2), fix(1, activity: .still), fix(3), fix(2)])
    var index = DedupeIndex()
    let first = index.insert(batch)
    #expect(first.insertedIndices == [0, 1, 3])
    #expect(first.stillAdoptionIndices == [2])
    #expect(first.duplicateIndices == [4])
    #expect(first.total == batch.count)
    let snapshot = index
    let retry = index.insert(batch)
    #expect(retry.insertedIndices.isEmpty && retry.stillAdoptionIndices.isEmpty)
    #expect(retry.duplicateIndices == [0, 1, 2, 3, 4])
    #expect(index == snapshot)
  }

  @Test("only the given indices are considered; old keys can be forgotten")
  func indicesAndPruning() {
    var index = DedupeIndex()
    let outcome = index.insert(FixColumns([fix(1), fix(2), fix(3)]), indices: [2, 0])
    #expect(outcome.insertedIndices == [2, 0] && index.count == 2)
    index.removeKeys(olderThan: 2)
    #expect(index.count == 1)
  }

  @Test(
    "random batches (late, repeated, several devices and users, still re-reports) agree with a plain dictionary"
  )
  func agreesWithAModel() {
    var generator = SeededGenerator(seed: 91)
    var index = DedupeIndex()
    var model: [FixKey: Activity] = [:]
    for round in 0..<300 {
      let fixes = (0..<Int(generator.next() % 40)).map { _ in
        fix(
          Int64(generator.next() % 400), device: UInt32(generator.next() % 3),
          user: UInt32(generator.next() % 2),
          activity: generator.next() % 3 == 0 ? .still : .walking)
      }
      let expected = Self.modelled(fixes, &model)
      #expect(index.insert(FixColumns(fixes)) == expected, "round \(round)")
      if round % 50 == 49 {
        index.removeKeys(olderThan: 100)
        model = model.filter { $0.key.timeMilliseconds >= 100 }
      }
      #expect(index.count == model.count)
    }
    for (key, activity) in model { #expect(index.activity(for: key) == activity) }
    #expect(index.activity(for: FixKey(user: UserID(5), device: DeviceID(0), timeMilliseconds: 1)) == nil)
  }

  /// The plain rule: each fix of the batch in arrival order against a dictionary.
  static func modelled(_ fixes: [Fix], _ model: inout [FixKey: Activity]) -> DedupeOutcome {
    var expected = DedupeOutcome()
    for (i, f) in fixes.enumerated() {
      let key = FixKey(user: f.user, device: f.device, timeMilliseconds: f.timeMilliseconds)
      switch model[key] {
      case nil:
        model[key] = f.activity
        expected.insertedIndices.append(i)
      case .some(let stored) where f.activity == .still && stored != .still:
        model[key] = .still
        expected.stillAdoptionIndices.append(i)
      case .some: expected.duplicateIndices.append(i)
      }
    }
    return expected
  }

  @Test(
    "long runs out of order (newest first, shuffled, repeated, late into a long log) agree with the model")
  func longRunsAreMerged() {
    var generator = SeededGenerator(seed: 7)
    var index = DedupeIndex()
    var model: [FixKey: Activity] = [:]
    // Rising after the log (appends), newest first, shuffled with repeats and
    // still re-reports, all older than the log, and around its middle; runs
    // of 1 to 300 fixes, so both the fix-by-fix and the merged way are taken.
    for round in 0..<120 {
      let length = 1 + Int(generator.next() % 300)
      let base = Int64(generator.next() % 20_000)
      var times = (0..<length).map { base + Int64($0) * Int64(1 + generator.next() % 3) }
      switch round % 4 {
      case 0: break
      case 1: times.reverse()
      case 2: times = times.map { _ in times[Int(generator.next() % UInt64(length))] }
      default: times = times.map { $0 - 10_000 }
      }
      let fixes = times.map { t in
        fix(t, device: UInt32(generator.next() % 2), activity: generator.next() % 4 == 0 ? .still : .walking)
      }
      let expected = Self.modelled(fixes, &model)
      #expect(index.insert(FixColumns(fixes)) == expected, "round \(round)")
      #expect(index.count == model.count)
    }
    for (key, activity) in model { #expect(index.activity(for: key) == activity) }
    // A newest-first upload of 200 000 fixes is one sort and one merge:
    // every fix new, then every one a duplicate.
    var big = DedupeIndex()
    let newestFirst = FixColumns((0..<200_000).reversed().map { fix(Int64($0), device: 9) })
    #expect(big.insert(newestFirst).insertedIndices.count == 200_000)
    #expect(big.insert(newestFirst).duplicateIndices.count == 200_000 && big.count == 200_000)
  }
}
