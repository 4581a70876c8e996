import Testing

@testable import HearthGeo

@Suite("Time arithmetic at the ends of Int64: exact comparisons, no trap in any engine")
struct SaturatingTimeTests {
  @Test("isLater(than:byMoreThan:) is exact on both sides of the limit and across overflow")
  func isLaterIsExact() {
    #expect(Int64(1_001).isLater(than: 0, byMoreThan: 1_000))
    #expect(!Int64(1_000).isLater(than: 0, byMoreThan: 1_000))
    #expect(Int64.max.isLater(than: .min, byMoreThan: .max))
    #expect(!Int64.min.isLater(than: .max, byMoreThan: .min))
    #expect(!Int64(-1).isLater(than: .max, byMoreThan: 0))
    #expect(Int64(0).isLater(than: .min, byMoreThan: .max))  // 0 − min = 2⁶³
    #expect(!Int64(-1).isLater(than: .min, byMoreThan: .max))  // −1 − min = 2⁶³ − 1
  }

  @Test("saturatingAdd and saturatingSubtract clamp only past the ends")
  func saturatingClamps() {
    #expect(Int64(5).saturatingAdd(7) == 12)
    #expect(Int64.max.saturatingAdd(1) == .max)
    #expect((Int64.max - 1).saturatingAdd(1) == .max)
    #expect(Int64.min.saturatingAdd(-1) == .min)
    #expect(Int64(5).saturatingSubtract(7) == -2)
    #expect(Int64.max.saturatingSubtract(-1) == .max)
    #expect(Int64.min.saturatingSubtract(1) == .min)
    #expect((Int64.min + 1).saturatingSubtract(1) == .min)
    #expect(Int64(0).saturatingSubtract(.min) == .max)
    // Compared with any limit in range, the clamped difference decides as
    // the exact one would.
    #expect(Int64.max.saturatingSubtract(.min) >= .max)
    #expect(Int64.min.saturatingSubtract(.max) < .min + 1)
  }

  /// Times at and near both ends of Int64, and ordinary ones.
  static let ends: [Int64] = [.min, .min + 1, -86_400_000, -1, 0, 1, 1_700_000_000_000, .max - 1, .max]

  /// The orders an engine is offered the times in: rising, falling, and
  /// jumping between the ends.
  static let orders: [[Int64]] = [
    ends, ends.reversed(), [.min, .max, .min + 1, .max - 1, 0, .min, .max, 1_700_000_000_000, .max],
  ]

  /// Fixes at `times`, alternating between two points 5 km apart at
  /// 30 m/s (or the same point, standing still), for two people.
  static func fixes(_ times: [Int64], moving: Bool, person: UInt32 = 1) -> FixColumns {
    FixColumns(
      times.enumerated().map { i, t in
        let away = moving && i % 2 == 1
        return Fix(
          timeMilliseconds: t, latitudeDegrees: away ? 48.90 : 48.855, longitudeDegrees: 2.35,
          horizontalAccuracyMeters: 5, speedMetersPerSecond: moving ? 30 : 0,
          activity: moving ? .automotive : .still, device: DeviceID(UInt32(i % 2)), user: UserID(person))
      })
  }

  static let place = Geofence(
    id: 1, circle: 7, center: Coordinate(latitudeDegrees: 48.855, longitudeDegrees: 2.35), radiusMeters: 150)
  static let circles: [UserID: [CircleID]] = [UserID(1): [7], UserID(2): [7]]

  /// Every order, each offered as one batch and as one fix per batch, the
  /// clock at each fix's time, then at both ends.
  static func drive(_ body: (FixColumns, Int64) -> Void, advance: (Int64) -> Void) {
    for order in orders {
      for moving in [true, false] {
        body(fixes(order, moving: moving), order.max() ?? 0)
        for t in order {
          body(fixes([t], moving: moving, person: 2), t)
          advance(t)
        }
        advance(.max)
        advance(.min)
      }
    }
  }

  @Test("agreed speeds: pairs and batches of fixes at any Int64 times")
  func agreedSpeeds() {
    for order in Self.orders {
      let fixes = Self.fixes(order, moving: true)
      _ = AgreedSpeed.pairs(fixes)
      _ = AgreedSpeed.stretch(fixes)
      _ = AgreedSpeedBatch(fixes)
      for a in 0..<max(0, fixes.count - 1) {
        _ = AgreedSpeed.pair(fixes[a], fixes[a + 1])
      }
    }
  }

  @Test("speed alert and sudden stop at any Int64 times and clocks")
  func speedEngines() {
    let alert = SpeedAlertEngine(
      limits: [7: SpeedLimit(kilometersPerHour: 50)], circlesOfPerson: Self.circles)
    let stop = SuddenStopEngine(places: [Self.place], circlesOfPerson: Self.circles)
    var alerts = SpeedAlertState()
    var stops = SuddenStopState()
    Self.drive(
      { fixes, now in
        _ = alert.process(fixes, receivedAtMilliseconds: now, state: &alerts)
        _ = stop.process(fixes, state: &stops)
      },
      advance: { now in _ = stop.advance(to: now, state: &stops) })
  }

  @Test("geofences and trips at any Int64 times and clocks")
  func placeEngines() {
    let fence = GeofenceEngine(places: [Self.place], circlesOfPerson: Self.circles)
    let trips = TripSegmenter(places: [Self.place], circlesOfPerson: Self.circles)
    var fences = GeofenceState()
    var segments = TripSegmenterState()
    var closed: [TripSegment] = []
    Self.drive(
      { fixes, now in
        _ = fence.process(fixes, receivedAtMilliseconds: now, state: &fences)
        closed += trips.process(fixes, now: now, state: &segments).segments
      },
      advance: { now in
        _ = fence.advance(to: now, state: &fences)
        closed += trips.advance(to: now, state: &segments).segments
      })
    for segment in closed { _ = (segment.summary.durationMilliseconds, segment.trail()) }
  }

  @Test("the phone's thinning, parking and trail at any Int64 times")
  func phoneEngines() {
    for order in Self.orders {
      for moving in [true, false] {
        let fixes = Self.fixes(order, moving: moving)
        var thinner = Thinner()
        _ = thinner.offer(fixes)
        var parking = ParkingDetector()
        var timeline = ActivityTimeline()
        for i in 0..<fixes.count {
          _ = parking.offer(fixes[i])
          _ = parking.parkFix(now: fixes.timeMilliseconds[i])
          timeline.record(fixes[i].activity, at: fixes.timeMilliseconds[i])
          _ = parking.journeyGuardActive(at: .min)
          _ = parking.journeyGuardActive(at: .max)
        }
        _ = parking.parkFix(now: .max)
        _ = timeline.label(fixes)
        _ = LiveTrail(fixes)
        _ = PresenceStatus.wakeTimes(lastFixMilliseconds: .max, parked: true)
        _ = PresenceStatus.wakeTimes(lastFixMilliseconds: .max, parked: false)
      }
    }
  }

  @Test("the whole pipeline at any Int64 clocks and times, validation aside")
  func pipeline() {
    let pipeline = IngestPipeline(
      places: [Self.place], circlesOfPerson: Self.circles, speedLimits: [7: SpeedLimit(kilometersPerHour: 50)]
    )
    var state = IngestState()
    Self.drive(
      { fixes, now in _ = pipeline.ingest(fixes, receivedAtMilliseconds: now, state: &state) },
      advance: { now in _ = pipeline.advance(to: now, state: &state) })
  }
}
