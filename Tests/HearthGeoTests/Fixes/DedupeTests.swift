import Testing

@testable import HearthGeo
import struct HearthSim.SeededGenerator

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
      let batch = FixColumns(fixes)
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
      #expect(index.insert(batch) == expected, "round \(round)")
      if round % 50 == 49 {
        index.removeKeys(olderThan: 100)
        model = model.filter { $0.key.timeMilliseconds >= 100 }
      }
      #expect(index.count == model.count)
    }
    for (key, activity) in model { #expect(index.activity(for: key) == activity) }
    #expect(index.activity(for: FixKey(user: UserID(5), device: DeviceID(0), timeMilliseconds: 1)) == nil)
  }
}
