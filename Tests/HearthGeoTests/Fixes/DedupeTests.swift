import Foundation
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

  @Test("only the given indices are considered")
  func indices() {
    var index = DedupeIndex()
    let outcome = index.insert(FixColumns([fix(1), fix(2), fix(3)]), indices: [2, 0])
    #expect(outcome.insertedIndices == [2, 0] && index.count == 2)
  }

  static let day: Int64 = 86_400_000
  static let week: Int64 = 7 * day

  @Test(
    "a device forgets what is older than its newest by the retention, once a day past it; older fixes are set apart"
  )
  func forgetting() throws {
    let t0: Int64 = 1_700_000_000_000
    var index = DedupeIndex()
    _ = index.insert(
      FixColumns([fix(t0), fix(t0 + 1), fix(t0 + 2, device: 2)]), retentionMilliseconds: Self.week)
    // Newest exactly retention + 1 day after the oldest: nothing is due yet.
    _ = index.insert(FixColumns([fix(t0 + Self.week + Self.day)]), retentionMilliseconds: Self.week)
    #expect(index.count == 4)
    // One millisecond later the oldest is due: every time before
    // newest − retention goes (t0 and t0 + 1), the other device keeps its own.
    let newest = t0 + Self.week + Self.day + 1
    _ = index.insert(FixColumns([fix(newest)]), retentionMilliseconds: Self.week)
    #expect(index.count == 3)
    let keepFrom = newest - Self.week
    let probe = index.insert(
      FixColumns([fix(keepFrom - 1), fix(keepFrom), fix(t0, device: 2), fix(t0 + 1), fix(newest)]),
      retentionMilliseconds: Self.week)
    #expect(probe.forgottenIndices == [0, 3])
    #expect(probe.insertedIndices == [1, 2] && probe.duplicateIndices == [4] && probe.total == 5)
    #expect(index.count == 5)
    // Without a retention a log forgets nothing, but what it forgot stays forgotten.
    let late = index.insert(FixColumns([fix(t0 + 1), fix(t0 - 5 * Self.week, device: 2)]))
    #expect(late.forgottenIndices == [0] && late.insertedIndices == [1])
    // Saved and restored, the index keeps what it forgot; a log that never
    // forgot is written as before.
    let restored = try JSONDecoder().decode(DedupeIndex.self, from: JSONEncoder().encode(index))
    #expect(restored == index)
    let untouched = String(decoding: try JSONEncoder().encode(DedupeIndex()), as: UTF8.self)
    #expect(!untouched.contains("forgottenBefore"))
    var fresh = DedupeIndex()
    _ = fresh.insert(FixColumns([fix(t0)]))
    #expect(!String(decoding: try JSONEncoder().encode(fresh), as: UTF8.self).contains("forgottenBefore"))
  }

  @Test("a saved log holding a time it claims to have forgotten is refused")
  func forgottenTimeInASavedLogIsRefused() throws {
    var index = DedupeIndex()
    _ = index.insert(FixColumns([fix(0), fix(Self.week + Self.day + 1)]), retentionMilliseconds: Self.week)
    let text = String(decoding: try JSONEncoder().encode(index), as: UTF8.self)
    #expect(text.contains("\"forgottenBefore\":\(Self.day + 1)"))
    let corrupted = text.replacingOccurrences(
      of: "\"forgottenBefore\":\(Self.day + 1)", with: "\"forgottenBefore\":\(Self.day + Self.week + 2)")
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(DedupeIndex.self, from: Data(corrupted.utf8))
    }
  }

  @Test(
    "weeks of uploads on a clock that never steps back: forgetting under the validation window changes no outcome"
  )
  func forgettingIsInvisibleToValidatedFixes() {
    let rules = ValidationRules()
    for seed in UInt64(1)...6 {
      var generator = SeededGenerator(seed: seed)
      var forgetting = DedupeIndex()
      var keeping = DedupeIndex()
      var now: Int64 = 1_700_000_000_000
      for round in 0..<400 {
        now += Int64(generator.next() % UInt64(6 * 3_600_000))
        // New fixes near the clock (up to 5 min ahead), late ones up to
        // 8 days back (some too old), and re-sends at window edges.
        let fixes = (0..<Int(1 + generator.next() % 12)).map { _ -> Fix in
          let device = UInt32(generator.next() % 3)
          let back: Int64 =
            switch generator.next() % 4 {
            case 0: Int64(generator.next() % UInt64(8 * Self.day))
            case 1: rules.maximumAgeMilliseconds + Int64(generator.next() % 3) - 1
            default: Int64(generator.next() % 600_000) - 300_000
            }
          return fix(now - back, device: device, activity: generator.next() % 3 == 0 ? .still : .walking)
        }
        let batch = FixColumns(fixes)
        guard case .success(let report) = FixValidation.validate(batch, nowMilliseconds: now, rules: rules)
        else {
          Issue.record("seed \(seed) round \(round): a valid batch was refused")
          return
        }
        let a = forgetting.insert(
          batch, indices: report.acceptedIndices, retentionMilliseconds: rules.keysMatterMilliseconds)
        let b = keeping.insert(batch, indices: report.acceptedIndices)
        #expect(a == b, "seed \(seed) round \(round)")
      }
      // About 50 days of uploads: each log holds at most the retention and
      // a day of them, the keeping index all of them.
      #expect(forgetting.count < keeping.count / 3, "seed \(seed): \(forgetting.count) of \(keeping.count)")
    }
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
