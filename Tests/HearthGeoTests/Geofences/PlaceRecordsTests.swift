import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// A person's place records keep, beside the records, the positions of
/// those in use, the counts of waiting decisions and a bound on the oldest
/// idle record (issue 33: the per-fix scans visit only the records in use).
/// What is derived must always equal what the records say, and the
/// engine's memory rules (a week; 512 idle records) must hold on both sides.
@Suite("Geofence place records: derived views and eviction")
struct PlaceRecordsTests {
  /// The derived views recomputed from scratch.
  static func problem(_ records: PlaceRecords) -> String? {
    let fresh = PlaceRecords(Array(records))
    if records.inUse != fresh.inUse { return "in use \(records.inUse), recomputed \(fresh.inUse)" }
    if records.arrivalsWaiting != fresh.arrivalsWaiting
      || records.departuresWaiting != fresh.departuresWaiting
      || records.waitingCount != fresh.waitingCount
    {
      return
        "waiting \(records.arrivalsWaiting)/\(records.departuresWaiting)/\(records.waitingCount), recomputed \(fresh.arrivalsWaiting)/\(fresh.departuresWaiting)/\(fresh.waitingCount)"
    }
    if records.idleEvictionBound > fresh.idleEvictionBound {
      return
        "eviction bound \(records.idleEvictionBound) above the oldest idle key \(fresh.idleEvictionBound)"
    }
    return nil
  }

  @Test("after any sequence of inserts, edits and removals the derived views equal a recomputation")
  func derivedViewsFollowTheRecords() {
    for seed in 0..<200 {
      var g = PropertyRandom(seed: UInt64(seed))
      var records = PlaceRecords()
      var nextPlace: UInt32 = 0
      for step in 0..<200 {
        switch g.int(0, 9) {
        case 0...2:
          let position = g.int(0, records.count)
          // Ids stay ascending: renumber by position below.
          records.insertIdle(PlaceID(nextPlace), watermark: Int64(g.int(-5, 1_000)), at: position)
          nextPlace += 1
        case 3...7 where !records.isEmpty:
          let r = g.int(0, records.count - 1)
          var record = records[r]
          record.inside = g.chance(0.5)
          record.pendingArrival = g.chance(0.3) ? PendingArrival(milliseconds: Int64(g.int(0, 99))) : nil
          record.pendingDeparture =
            g.chance(0.3)
            ? DepartureMark(place: record.place, milliseconds: Int64(g.int(0, 99)), odometerMeters: 0) : nil
          record.watermarkMilliseconds = Int64(g.int(-5, 2_000))
          record.lastDepartureMilliseconds = g.chance(0.5) ? Int64(g.int(0, 3_000)) : nil
          records[r] = record
        case 8 where !records.isEmpty:
          let cut = Int64(g.int(0, 1_000))
          records.removeAll { $0.isIdle && PlaceRecords.evictionKey($0) < cut }
        default:
          records.refreshEvictionBound()
        }
        if let problem = Self.problem(records) {
          Issue.record("seed \(seed), step \(step): \(problem)")
          return
        }
      }
    }
  }

  /// A walk through `count` places 1 km apart (radius 100 m), a minute inside
  /// each and out again, so each record ends idle; returns the world.
  static func visit(_ count: Int) -> FenceWorld {
    let places = (0..<count).map { k in
      Geofence(
        id: PlaceID(UInt32(k)),
        center: GreatCircle.destination(
          from: FenceWorld.home, initialBearingDegrees: 90, distanceMeters: Double(k) * 1_000),
        radiusMeters: 100)
    }
    var world = FenceWorld(places)
    for k in 0..<count {
      let base = Double(k) * 300
      world.feed([
        FenceWorld.fix(Double(k) * 1_000, base), FenceWorld.fix(Double(k) * 1_000, base + 60),
        FenceWorld.fix(Double(k) * 1_000 + 400, base + 120),
        FenceWorld.fix(Double(k) * 1_000 + 400, base + 240),
      ])
    }
    return world
  }

  @Test(
    "an idle record is forgotten once its last evaluation is more than a week older than the newest fix, not at a week"
  )
  func aWeekOldIdleRecordIsForgotten() throws {
    var world = Self.visit(40)
    let records = try #require(world.state.people[UserID(1)]?.records)
    #expect(records.count == 40 && records.inUse.isEmpty)
    let first = PlaceRecords.evictionKey(records[0])
    let week: Int64 = 7 * 86_400_000
    let far = 60_000.0  // metres east of home: no place there
    let atAWeek = (Double(first + week - FenceWorld.t0)) / 1000
    world.feed([FenceWorld.fix(far, atAWeek)])
    #expect(world.state.people[UserID(1)]?.records.first?.place == 0)
    world.feed([FenceWorld.fix(far, atAWeek + 0.001)])
    #expect(world.state.people[UserID(1)]?.records.first?.place == 1)
  }

  @Test(
    "regression 2026-12-04: a fix within a week of the earliest time there is, with more than 32 records, does not trap working out the week's horizon"
  )
  func aWeekBeforeTheEarliestTime() {
    let places = (0..<40).map {
      Geofence(id: PlaceID(UInt32($0)), center: FenceWorld.home, radiusMeters: 100)
    }
    var world = FenceWorld(places)
    var fix = FenceWorld.fix(0, 0)
    fix.timeMilliseconds = .min + 5
    let events = world.feed([fix])
    #expect(events.contains { $0.kind == .arrival })
    #expect(world.state.people[UserID(1)]?.records.count == 40)
  }

  @Test("at most 512 idle records per person: 512 are all kept, of 513 the oldest goes")
  func atMost512IdleRecords() {
    let kept = Self.visit(512)
    #expect(kept.state.people[UserID(1)]?.records.count == 512)
    let trimmed = Self.visit(513)
    #expect(trimmed.state.people[UserID(1)]?.records.count == 512)
    #expect(trimmed.state.people[UserID(1)]?.records.first?.place == 1)
  }
}
