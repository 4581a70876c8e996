import HearthGeo
import Testing

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
}
