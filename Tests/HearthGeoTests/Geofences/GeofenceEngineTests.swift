import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// A small world around one place for the rule tests.
struct FenceWorld {
  static let home = point(48.137, 11.575)
  static let t0: Int64 = 1_700_000_000_000
  var places: [Geofence]
  var engine: GeofenceEngine
  var state = GeofenceState()

  init(_ places: [Geofence] = [Geofence(id: 1, center: FenceWorld.home, radiusMeters: 100)]) {
    self.places = places
    engine = GeofenceEngine(places: places)
  }

  /// A fix `meters` from `from` (default: home) at bearing `bearing`, `seconds` after t0.
  static func fix(
    _ meters: Double, _ seconds: Double, bearing: Double = 90, accuracy: Double = 10, speed: Double? = 0,
    from origin: Coordinate = home, person: UInt32 = 1
  ) -> Fix {
    let p = GreatCircle.destination(from: origin, initialBearingDegrees: bearing, distanceMeters: meters)
    return Fix(
      timeMilliseconds: t0 + Int64((seconds * 1000).rounded()), latitudeDegrees: p.latitudeDegrees,
      longitudeDegrees: p.longitudeDegrees, horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speed,
      user: UserID(person))
  }

  /// Processes fixes as one timely batch (received at the newest fix's time).
  @discardableResult
  mutating func feed(_ fixes: [Fix], receivedAt: Int64? = nil) -> [GeofenceEvent] {
    let now = receivedAt ?? fixes.map(\.timeMilliseconds).max()!
    return engine.process(FixColumns(fixes), receivedAtMilliseconds: now, state: &state)
  }

  /// (kind, outcome, place) of each event, for compact expectations.
  static func summary(_ events: [GeofenceEvent]) -> [String] {
    events.map { "\($0.kind.rawValue) \($0.outcome.rawValue) \($0.place)" }
  }
}

@Suite("Geofence engine (SPEC §3)")
struct GeofenceEngineTests {
  typealias W = FenceWorld

  @Test("enter at the radius, not a millimetre beyond")
  func enter() {
    var w = W()
    #expect(W.summary(w.feed([W.fix(99.999, 0)])) == ["arrival announced 1"])
    var v = W()
    #expect(v.feed([W.fix(100.001, 0)]).isEmpty)
    #expect(v.state.placesInside(UserID(1)).isEmpty)
  }

  @Test("leave only beyond radius + 40 m; the band holds")
  func exitBand() {
    var w = W()
    w.feed([W.fix(0, 0)])
    #expect(w.feed([W.fix(139.999, 10)]).isEmpty)  // in the band
    let left = w.feed([W.fix(140.001, 20)])
    #expect(W.summary(left) == ["departure pending 1"] && left[0].reasons == [.leftWaitingForConfirmation])
    let confirmed = w.feed([W.fix(300, 30)])
    #expect(W.summary(confirmed) == ["departure announced 1"] && confirmed[0].reasons == [.secondFixClear])
    #expect(confirmed[0].eventMilliseconds == W.t0 + 20_000)
  }

  @Test("fixes looser than 250 m are ignored; 250 m counts")
  func ignoreLoose() {
    var w = W()
    #expect(w.feed([W.fix(0, 0, accuracy: 250.001)]).isEmpty)
    #expect(w.feed([W.fix(0, 1, accuracy: .nan)]).isEmpty)
    #expect(W.summary(w.feed([W.fix(0, 2, accuracy: 250)])) == ["arrival announced 1"])
  }

  @Test("network fixes bring people in, but take them out only from beyond 2× their error")
  func networkExit() {
    var w = W()
    #expect(W.summary(w.feed([W.fix(50, 0, accuracy: 150)])) == ["arrival announced 1"])
    // 150 m error: exit distance 100 + 300 m.
    #expect(w.feed([W.fix(399.99, 10, accuracy: 150)]).isEmpty)
    #expect(W.summary(w.feed([W.fix(400.01, 20, accuracy: 150)])) == ["departure pending 1"])
    // 100 m is not a network fix: the 40 m band applies; 100.001 m is.
    var sharp = W()
    sharp.feed([W.fix(0, 0)])
    #expect(W.summary(sharp.feed([W.fix(140.01, 10, accuracy: 100)])) == ["departure pending 1"])
    var network = W()
    network.feed([W.fix(0, 0)])
    #expect(network.feed([W.fix(140.01, 10, accuracy: 100.001)]).isEmpty)
    // Small network error: the 40 m band is the larger and applies.
    var small = W()
    small.feed([W.fix(0, 0)])
    #expect(small.feed([W.fix(139.99, 10, accuracy: 101)]).isEmpty)
    // 101 m error: exit beyond 100 + 202 m; 301.99 m stays in (issue 15 item 19: the near side too).
    #expect(small.feed([W.fix(301.99, 15, accuracy: 101)]).isEmpty)
    #expect(small.feed([W.fix(302.01, 20, accuracy: 101)]).count == 1)
  }

  @Test("a departure is confirmed by a minute without return; a fix back inside before then cancels it")
  func departureMinute() {
    var w = W()
    w.feed([W.fix(0, 0)])
    w.feed([W.fix(200, 100)])
    #expect(w.engine.advance(to: W.t0 + 159_999, state: &w.state).isEmpty)
    let done = w.engine.advance(to: W.t0 + 160_000, state: &w.state)
    #expect(W.summary(done) == ["departure announced 1"] && done[0].reasons == [.minuteWithoutReturn])
    #expect(done[0].decidedMilliseconds == W.t0 + 160_000)

    var back = W()
    back.feed([W.fix(0, 0)])
    back.feed([W.fix(200, 100)])
    let cancelled = back.feed([W.fix(10, 159.999)])
    #expect(W.summary(cancelled) == ["departure cancelled 1"] && cancelled[0].reasons == [.backInside])
    #expect(back.state.placesInside(UserID(1)) == [1])

    // Exactly a minute: already confirmed, and the return is a quick one
    // (announced: the pair; the place goes quiet after it).
    var late = W()
    late.feed([W.fix(0, 0)])
    late.feed([W.fix(200, 100)])
    let events = late.feed([W.fix(10, 160)])
    #expect(W.summary(events) == ["departure announced 1", "arrival announced 1"])
    #expect(events[1].reasons == [.entered, .returnedSoon])
  }

  @Test("arrivals at 5 m/s or more wait; the far side cancels, anything else confirms")
  func fastArrival() {
    var slow = W()
    #expect(
      W.summary(slow.feed([W.fix(300, 0, bearing: 270), W.fix(50, 10, bearing: 270, speed: 4.999)])) == [
        "arrival announced 1"
      ])

    // Driving west to east through the place: in at 50 m west, out 150 m east.
    var past = W()
    let entering = past.feed([W.fix(300, 0, bearing: 270, speed: 12), W.fix(50, 20, bearing: 270, speed: 12)])
    #expect(W.summary(entering) == ["arrival pending 1"] && entering[0].reasons == [.fastArrivalWaiting])
    let out = past.feed([W.fix(150, 30, bearing: 90, speed: 12)])
    #expect(W.summary(out) == ["arrival cancelled 1"] && out[0].reasons == [.drovePast])
    #expect(past.state.placesInside(UserID(1)).isEmpty)

    // Same approach, the next fix is inside and slower than 5 m/s:
    // confirmed at the entering time.
    var stays = W()
    stays.feed([W.fix(300, 0, bearing: 270, speed: 12), W.fix(50, 20, bearing: 270, speed: 12)])
    let confirmed = stays.feed([W.fix(5, 30, speed: 1)])
    #expect(
      W.summary(confirmed) == ["arrival announced 1"] && confirmed[0].reasons == [.fastArrivalSlowed])
    #expect(confirmed[0].eventMilliseconds == W.t0 + 20_000)

    // Turned back: out again on the near side within the minute is no
    // arrival either (issue 15 item 16: any fix outside within the minute).
    var turned = W()
    turned.feed([W.fix(300, 0, bearing: 270, speed: 12), W.fix(50, 20, bearing: 270, speed: 12)])
    #expect(W.summary(turned.feed([W.fix(150, 30, bearing: 270, speed: 12)])) == ["arrival cancelled 1"])

    // No next fix: announced when the minute is up (inclusive).
    var quiet = W()
    quiet.feed([W.fix(300, 0, bearing: 270, speed: 12), W.fix(50, 20, bearing: 270, speed: 12)])
    #expect(quiet.engine.advance(to: W.t0 + 79_999, state: &quiet.state).isEmpty)
    let minute = quiet.engine.advance(to: W.t0 + 80_000, state: &quiet.state)
    #expect(W.summary(minute) == ["arrival announced 1"] && minute[0].reasons == [.fastArrivalMinutePassed])
  }

  @Test("places crossed on the same fix announce only the smallest")
  func smallest() {
    let big = Geofence(id: 1, center: W.home, radiusMeters: 400)
    let small = Geofence(id: 2, center: W.home, radiusMeters: 60)
    var w = W([big, small])
    let arrivals = w.feed([W.fix(10, 0)])
    #expect(W.summary(arrivals) == ["arrival feedOnly 1", "arrival announced 2"])
    #expect(arrivals[0].reasons == [.entered, .smallerPlaceAnnounced])
    w.feed([W.fix(1000, 100)])
    let departures = w.feed([W.fix(1200, 110)])
    #expect(W.summary(departures) == ["departure feedOnly 1", "departure announced 2"])
  }

  @Test("back within 10 min: the return is the pair's second half, then the place stays quiet for 15 min")
  func quickReturn() {
    func world(returnAfter seconds: Double) -> [GeofenceEvent] {
      var w = W()
      w.feed([W.fix(0, 0)])
      w.feed([W.fix(300, 100)])
      w.feed([W.fix(400, 110)])  // departure confirmed, left at t = 100 s
      return w.feed([W.fix(0, 100 + seconds)])
    }
    #expect(world(returnAfter: 600)[0].outcome == .announced)
    #expect(world(returnAfter: 600)[0].reasons == [.entered, .returnedSoon])
    #expect(world(returnAfter: 600.001)[0].outcome == .announced)
    #expect(world(returnAfter: 600.001)[0].reasons == [.entered])

    var w = W()
    w.feed([W.fix(0, 0)])
    w.feed([W.fix(300, 100)])
    w.feed([W.fix(400, 110)])
    w.feed([W.fix(0, 400)])  // quick return at 400 s: quiet until 1300 s
    w.feed([W.fix(300, 1299.999)])
    let quietDeparture = w.feed([W.fix(300, 1310)])
    #expect(
      quietDeparture[0].reasons == [.secondFixClear, .placeQuiet] && quietDeparture[0].outcome == .feedOnly)
    var v = W()
    v.feed([W.fix(0, 0)])
    v.feed([W.fix(300, 100)])
    v.feed([W.fix(400, 110)])
    v.feed([W.fix(0, 400)])
    v.feed([W.fix(300, 1300)])
    #expect(v.feed([W.fix(300, 1310)])[0].outcome == .announced)
  }

  @Test("news older than 30 min, or from a batch older than 15 min, goes to the feed only")
  func staleAndLate() {
    for (receivedAfter, expected) in [(1_800_000, GeofenceOutcome.announced), (1_800_001, .feedOnly)] {
      var w = W()
      let fixes = [W.fix(0, 0), W.fix(300, 1500)]
      let events = w.feed(fixes, receivedAt: W.t0 + Int64(receivedAfter))
      let arrival = events.first { $0.kind == .arrival }!
      #expect(arrival.outcome == expected)
      #expect(arrival.reasons.contains(.staleNews) == (expected == .feedOnly))
    }
    for (lag, late) in [(900_000, false), (900_001, true)] {
      var w = W()
      let events = w.feed([W.fix(0, 0)], receivedAt: W.t0 + Int64(lag))
      #expect(events[0].reasons.contains(.lateBatch) == late)
    }
  }

  @Test(
    "an arrival elsewhere drops a waiting departure; a departure confirmed inside another place is feed only")
  func arrivalElsewhere() {
    let work = Geofence(
      id: 2, center: GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 400),
      radiusMeters: 100)
    var w = W([Geofence(id: 1, center: W.home, radiusMeters: 100), work])
    w.feed([W.fix(0, 0)])
    #expect(W.summary(w.feed([W.fix(200, 10)])) == ["departure pending 1"])
    let events = w.feed([W.fix(400, 20)])  // inside work, clear of home: confirms and arrives together
    #expect(W.summary(events) == ["departure feedOnly 1", "arrival announced 2"])
    #expect(events[0].reasons == [.secondFixClear, .arrivedElsewhere])

    // A place overlapping home's band: the fix that leaves home arrives
    // there; the departure that began waiting on it is dropped.
    let near = Geofence(
      id: 3, center: GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 140),
      radiusMeters: 20)
    var v = W([Geofence(id: 1, center: W.home, radiusMeters: 100), near])
    v.feed([W.fix(0, 0)])
    let dropped = v.feed([W.fix(145, 10)])
    #expect(W.summary(dropped) == ["arrival announced 3", "departure feedOnly 1"])
    #expect(dropped[1].reasons == [.supersededByArrival])
    #expect(v.state.placesInside(UserID(1)) == [3])
  }

  @Test("an arrival carries the journey since the departure it answers")
  func journey() {
    let work = Geofence(
      id: 2, center: GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 3000),
      radiusMeters: 100)
    var w = W([Geofence(id: 1, center: W.home, radiusMeters: 100), work])
    var fixes = [W.fix(0, 0)]
    for k in 1...20 { fixes.append(W.fix(Double(k) * 150, Double(k) * 20)) }
    let events = w.feed(fixes)
    let arrival = events.first { $0.kind == .arrival && $0.place == 2 }!
    #expect(arrival.outcome == .announced)
    let journey = arrival.journey!
    #expect(journey.fromPlace == 1)
    // Left at the first clear fix (150 m, t = 20 s), arrived at 3 000 m (t = 400 s).
    #expect(journey.departedMilliseconds == W.t0 + 20_000)
    #expect(journey.durationMilliseconds == 380_000)
    #expect(abs(journey.distanceMeters - 2850) < 0.01)
  }

  @Test("replaying a batch adds nothing; reseed sets memberships without events")
  func idempotentAndReseed() {
    var w = W()
    let batch = [W.fix(0, 0), W.fix(300, 10), W.fix(400, 20), W.fix(0, 2000)]
    let first = w.feed(batch)
    #expect(!first.isEmpty)
    #expect(w.feed(batch).isEmpty)
    #expect(w.feed(Array(batch.prefix(2))).isEmpty)

    var r = W()
    r.engine.reseed(
      UserID(1), circle: 0,
      from: FixColumns([W.fix(0, 0, accuracy: 150), W.fix(10, 5), W.fix(500, 9, accuracy: 101)]),
      state: &r.state)
    #expect(r.state.placesInside(UserID(1)) == [1])
    #expect(W.summary(r.feed([W.fix(200, 30)])) == ["departure pending 1"])
    // Only a fix at least as sharp as 100 m seeds.
    var n = W()
    n.engine.reseed(UserID(1), circle: 0, from: FixColumns([W.fix(0, 0, accuracy: 100.5)]), state: &n.state)
    #expect(n.state.placesInside(UserID(1)).isEmpty)
  }

  @Test(
    "an over-confident outlier next to home (200 m off, claiming 2 m): the minute absorbs it, a sleeping phone does not"
  )
  func overConfidentOutlier() {
    var w = W()
    var fixes: [Fix] = []
    for k in 0..<10 { fixes.append(W.fix(15, Double(k) * 30)) }
    w.feed(fixes)
    let spike = w.feed([W.fix(200, 300, accuracy: 2)])
    #expect(W.summary(spike) == ["departure pending 1"])
    let next = w.feed([W.fix(12, 330)])
    #expect(W.summary(next) == ["departure cancelled 1"])
    // No notification went out. But if the phone sleeps after the spike, a
    // minute passes with no fix back inside and the false departure goes out:
    // settling cannot tell, only a second fix can.
    var sleepy = W()
    sleepy.feed(fixes)
    sleepy.feed([W.fix(200, 300, accuracy: 2)])
    let later = sleepy.feed([W.fix(12, 600)])
    #expect(W.summary(later) == ["departure announced 1", "arrival announced 1"])
    #expect(later[1].reasons == [.entered, .returnedSoon])
  }

  @Test("a person sees only the places of their circles")
  func circles() {
    let a = Geofence(id: 1, circle: 10, center: W.home, radiusMeters: 100)
    let b = Geofence(id: 2, circle: 20, center: W.home, radiusMeters: 80)
    let engine = GeofenceEngine(places: [a, b], circlesOfPerson: [UserID(1): [10]])
    var state = GeofenceState()
    let events = engine.process(FixColumns([W.fix(0, 0)]), receivedAtMilliseconds: W.t0, state: &state)
    #expect(W.summary(events) == ["arrival announced 1"] && events[0].circle == 10)
  }

  // MARK: Issue 15

  /// Item 10: reseed reset the person in every circle.
  @Test("reseed is per circle: the other circle's memberships and waiting decisions stay")
  func reseedIsPerCircle() {
    let a = Geofence(id: 1, circle: 10, center: W.home, radiusMeters: 100)
    let b = Geofence(id: 2, circle: 20, center: W.home, radiusMeters: 300)
    let engine = GeofenceEngine(places: [a, b], circlesOfPerson: [UserID(1): [10, 20]])
    var state = GeofenceState()
    _ = engine.process(FixColumns([W.fix(0, 0)]), receivedAtMilliseconds: W.t0, state: &state)
    #expect(state.placesInside(UserID(1)) == [1, 2])
    // Sharing with circle 10 becomes precise again, the newest sharp fix 200 m out.
    engine.reseed(UserID(1), circle: 10, from: FixColumns([W.fix(200, 10)]), state: &state)
    #expect(state.placesInside(UserID(1)) == [2])
    engine.reseed(UserID(1), circle: 20, from: FixColumns([W.fix(0, 20)]), state: &state)
    #expect(state.placesInside(UserID(1)) == [2])
    engine.reseed(UserID(1), circle: 10, from: FixColumns([W.fix(0, 30)]), state: &state)
    #expect(state.placesInside(UserID(1)) == [1, 2])
  }

  /// Item 14: a fast arrival with no measured speed was announced at once.
  @Test("a fast arrival with unmeasured speed uses the agreed speed from its previous fix")
  func aFastArrivalWithUnmeasuredSpeedWaits() {
    // 250 m in 20 s (12.5 m/s) into the place, no speed measured: waits.
    var fast = W()
    fast.feed([W.fix(300, 0, bearing: 270, speed: nil)])
    #expect(W.summary(fast.feed([W.fix(50, 20, bearing: 270, speed: nil)])) == ["arrival pending 1"])
    // 250 m in 50.1 s (4.99 m/s): at once.
    var slow = W()
    slow.feed([W.fix(300, 0, bearing: 270, speed: nil)])
    #expect(W.summary(slow.feed([W.fix(50, 50.1, bearing: 270, speed: nil)])) == ["arrival announced 1"])
    // 250 m in 49.9 s (5.01 m/s): waits.
    var edge = W()
    edge.feed([W.fix(300, 0, bearing: 270, speed: nil)])
    #expect(W.summary(edge.feed([W.fix(50, 49.9, bearing: 270, speed: nil)])) == ["arrival pending 1"])
    // No previous fix: nothing says it was fast.
    var first = W()
    #expect(W.summary(first.feed([W.fix(50, 0, speed: nil)])) == ["arrival announced 1"])
  }

  /// Item 14: what a waiting departure does while the arrival elsewhere waits too.
  @Test(
    "a departure waits with a fast arrival elsewhere: dropped if the arrival goes out, its own rule if not")
  func aWaitingDepartureWaitsForAWaitingArrival() {
    let shopCentre = GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 400)
    let places = [
      Geofence(id: 1, center: W.home, radiusMeters: 100),
      Geofence(id: 2, center: shopCentre, radiusMeters: 100),
    ]
    func start() -> FenceWorld {
      var w = W(places)
      w.feed([W.fix(0, 0, speed: 0)])
      // Out of home at 150 m (pending), then into the shop at 12 m/s 10 s later.
      #expect(W.summary(w.feed([W.fix(150, 100, speed: 12)])) == ["departure pending 1"])
      #expect(W.summary(w.feed([W.fix(380, 110, speed: 12)])) == ["arrival pending 2"])
      return w
    }
    // The shop fix is also a second fix clear of home, but the departure
    // waits for the arrival's verdict; its minute passes too: nothing yet.
    var a = start()
    #expect(a.engine.advance(to: W.t0 + 169_999, state: &a.state).isEmpty)
    // The arrival's minute: it goes out, and the departure only to the feed.
    let both = a.engine.advance(to: W.t0 + 170_000, state: &a.state)
    #expect(W.summary(both) == ["departure feedOnly 1", "arrival announced 2"])
    #expect(both.first?.reasons == [.secondFixClear, .arrivedElsewhere])
    // A drive-by at the shop: the departure is decided by its own rule at that fix.
    var b = start()
    let past = b.feed([W.fix(600, 120, speed: 12)])
    #expect(W.summary(past) == ["arrival cancelled 2", "departure announced 1"])
    #expect(past.last?.reasons == [.secondFixClear] && past.last?.decidedMilliseconds == W.t0 + 120_000)
  }

  /// Item 15: after 15 min of pacing, a second pair went out.
  @Test(
    "pacing a boundary for an hour gives one pair of notifications: each quick return extends the quiet window"
  )
  func pacingABoundaryForAnHourGivesOnePair() {
    var w = W()
    var events = w.feed([W.fix(0, 0)])
    var t = 60.0
    while t < 3_600 {
      events += w.feed([W.fix(200, t)])  // out
      events += w.feed([W.fix(300, t + 10)])  // clear: departure confirmed
      events += w.feed([W.fix(0, t + 120)])  // back two minutes later
      t += 240
    }
    let announced = events.filter { $0.outcome == .announced }
    #expect(
      announced.map { "\($0.kind.rawValue) \($0.eventMilliseconds - W.t0)" } == [
        "arrival 0", "departure 60000", "arrival 180000",
      ])
    // The last quick return was at 3 540 s: quiet until 4 440 s, and no longer.
    let lastReturn = events.last { $0.kind == .arrival }?.eventMilliseconds ?? 0
    #expect(lastReturn == W.t0 + 3_540_000)
    var quiet = w
    quiet.feed([W.fix(200, 4_439.998)])
    #expect(W.summary(quiet.feed([W.fix(300, 4_439.999)])) == ["departure feedOnly 1"])
    var open = w
    open.feed([W.fix(200, 4_440)])
    #expect(W.summary(open.feed([W.fix(300, 4_441)])) == ["departure announced 1"])
  }

  /// Issue 28 item 5: driving past a place at 15 m/s, one fix inside and the
  /// next outside the radius but inside the 40 m leaving band. "Out the far
  /// side" is judged against the radius, not the band: the fix after the
  /// one inside is beyond the radius, so further from the centre than that
  /// fix (moving away), and the arrival is never announced.
  @Test(
    "a drive-by at 15 m/s: the next fix a hair beyond the radius cancels, a hair inside waits; 45 m and 500 m places"
  )
  func aDriveByIsJudgedAgainstTheRadiusNotTheBand() {
    for radius in [45.0, 500] {
      let place = Geofence(id: 1, center: W.home, radiusMeters: radius)
      /// Approach from the west at 15 m/s, a fix halfway to the centre's
      /// east, then the next fix `next` metres east (negative: west).
      func drive(next: Double, speed: Double = 15) -> (W, [GeofenceEvent]) {
        var w = W([place])
        let inside = radius / 2
        let tInside = (radius + 100 + inside) / 15
        var events = w.feed([W.fix(radius + 100, 0, bearing: 270, speed: 15)])
        events += w.feed([W.fix(inside, tInside, speed: 15)])
        events += w.feed([
          W.fix(abs(next), tInside + abs(next - inside) / 15, bearing: next < 0 ? 270 : 90, speed: speed)
        ])
        return (w, events)
      }
      func summary(_ events: [GeofenceEvent]) -> [String] {
        events.map { "\($0.outcome.rawValue) \($0.reasons.map(\.rawValue))" }
      }
      let waiting = "pending [\"fastArrivalWaiting\"]"
      let drovePast = "cancelled [\"drovePast\"]"
      // A hair beyond the radius on the far side, in the band, at its edge: never announced.
      for next in [radius + 0.01, radius + 20, radius + 39.99, radius + 40.01] {
        var (w, events) = drive(next: next)
        events += w.engine.advance(to: W.t0 + 3_600_000, state: &w.state)
        #expect(summary(events) == [waiting, drovePast], "r \(radius), next \(next)")
        #expect(w.state.placesInside(UserID(1)).isEmpty, "r \(radius), next \(next)")
      }
      // A hair inside: still waiting; announced when the minute is up…
      var (w, events) = drive(next: radius - 0.01)
      #expect(summary(events) == [waiting], "r \(radius)")
      let entered = W.t0 + Int64(((radius + 100 + radius / 2) / 15 * 1000).rounded())
      #expect(w.engine.advance(to: entered + 59_999, state: &w.state).isEmpty, "r \(radius)")
      events = w.engine.advance(to: entered + 60_000, state: &w.state)
      #expect(summary(events) == ["announced [\"fastArrivalMinutePassed\"]"], "r \(radius)")
      // …or at once when that fix is slower than 5 m/s.
      #expect(
        summary(drive(next: radius - 0.01, speed: 4.999).1) == [
          waiting, "announced [\"fastArrivalSlowed\"]",
        ],
        "r \(radius)")
      // Turned back: the next fix out on the near side, closer to the centre
      // than the approach fix but further than the fix inside: moving away
      // from the place too, never announced.
      #expect(summary(drive(next: -(radius + 50)).1) == [waiting, drovePast], "r \(radius)")
    }
  }

  /// Review 2, F2: the settling minute started at the fix's own time and was
  /// checked against the server's receipt, so on a phone whose clock lags
  /// 90 s every stray fix was announced as a departure and a return.
  @Test(
    "the server's minute runs from the departure's receipt: back inside received at 59.999 s cancels, at 60 s is too late; any phone clock"
  )
  func theDepartureMinuteRunsOnTheServersClock() {
    for lag: Int64 in [0, 90_000] {
      /// At home, then a fix 200 m out at +100 s (phone clock), each
      /// received `lag` after it was taken (a phone clock `lag` behind).
      func left() -> (W, received: Int64) {
        var w = W()
        w.feed([W.fix(0, 0)], receivedAt: W.t0 + lag)
        let received = W.t0 + 100_000 + lag
        let pending = w.feed([W.fix(200, 100)], receivedAt: received)
        #expect(W.summary(pending) == ["departure pending 1"], "lag \(lag)")
        return (w, received)
      }
      // Back inside 10 s later (phone clock), received 59.999 s after the departure: cancelled.
      var (w, received) = left()
      let back = w.feed([W.fix(10, 110)], receivedAt: received + 59_999)
      #expect(W.summary(back) == ["departure cancelled 1"] && back[0].reasons == [.backInside], "lag \(lag)")
      #expect(w.state.placesInside(UserID(1)) == [1], "lag \(lag)")
      // Received 60 s after: the minute is over (inclusive) before the fix
      // is heard: the departure, then the return (the one pair).
      (w, received) = left()
      let late = w.feed([W.fix(10, 110)], receivedAt: received + 60_000)
      #expect(W.summary(late) == ["departure announced 1", "arrival announced 1"], "lag \(lag)")
      #expect(late[0].reasons == [.minuteWithoutReturn] && late[0].decidedMilliseconds == received + 60_000)
      #expect(late[1].reasons == [.entered, .returnedSoon], "lag \(lag)")
      // The timer: the same edge.
      (w, received) = left()
      #expect(w.engine.advance(to: received + 59_999, state: &w.state).isEmpty, "lag \(lag)")
      let timer = w.engine.advance(to: received + 60_000, state: &w.state)
      #expect(W.summary(timer) == ["departure announced 1"] && timer[0].reasons == [.minuteWithoutReturn])
      #expect(timer[0].decidedMilliseconds == received + 60_000, "lag \(lag)")
    }
  }

  @Test(
    "the phone's own fix a minute after the departure (its clock), not back inside, still ends the minute at once"
  )
  func thePhonesLaterFixEndsTheMinute() {
    for (seconds, decided) in [(159.999, false), (160, true)] {
      // The departure's upload reaches the server 30 s late; the next fix,
      // in the band, 1 s after it is taken (well within the server's minute).
      var w = W()
      w.feed([W.fix(0, 0)])
      #expect(W.summary(w.feed([W.fix(200, 100)], receivedAt: W.t0 + 130_000)) == ["departure pending 1"])
      let next = w.feed([W.fix(120, seconds)], receivedAt: W.t0 + Int64(seconds * 1000) + 1_000)
      if decided {
        #expect(W.summary(next) == ["departure announced 1"] && next[0].reasons == [.minuteWithoutReturn])
        #expect(next[0].decidedMilliseconds == W.t0 + 160_000)
      } else {
        #expect(next.isEmpty, "at \(seconds) s")
      }
    }
    // Both in one upload received 90 s late: the same at the phone's +60 s.
    var one = W()
    one.feed([W.fix(0, 0)])
    let events = one.feed([W.fix(200, 100), W.fix(120, 160)], receivedAt: W.t0 + 250_000)
    #expect(W.summary(events) == ["departure pending 1", "departure announced 1"])
    var short = W()
    short.feed([W.fix(0, 0)])
    #expect(
      W.summary(short.feed([W.fix(200, 100), W.fix(120, 159.999)], receivedAt: W.t0 + 250_000)) == [
        "departure pending 1"
      ])
  }

  @Test("a drive-by is a drive-by whatever the phone's clock; a fast arrival's minute runs from its receipt")
  func aFastArrivalsMinuteRunsOnTheServersClock() {
    for lag: Int64 in [0, 90_000] {
      func enter() -> W {
        var w = W()
        w.feed([W.fix(300, 0, bearing: 270, speed: 15)], receivedAt: W.t0 + lag)
        let pending = w.feed([W.fix(50, 20, bearing: 270, speed: 15)], receivedAt: W.t0 + 20_000 + lag)
        #expect(W.summary(pending) == ["arrival pending 1"], "lag \(lag)")
        return w
      }
      var past = enter()
      let out = past.feed([W.fix(150, 30, speed: 15)], receivedAt: W.t0 + 30_000 + lag)
      #expect(W.summary(out) == ["arrival cancelled 1"] && out[0].reasons == [.drovePast], "lag \(lag)")
      #expect(past.engine.advance(to: W.t0 + 3_600_000, state: &past.state).isEmpty, "lag \(lag)")
      var stays = enter()
      #expect(stays.engine.advance(to: W.t0 + 79_999 + lag, state: &stays.state).isEmpty, "lag \(lag)")
      let minute = stays.engine.advance(to: W.t0 + 80_000 + lag, state: &stays.state)
      #expect(
        W.summary(minute) == ["arrival announced 1"] && minute[0].reasons == [.fastArrivalMinutePassed],
        "lag \(lag)")
      #expect(minute[0].decidedMilliseconds == W.t0 + 80_000 + lag, "lag \(lag)")
    }
  }

  @Test("a state saved before receipts were kept reads as before: its minute runs from the fix's own time")
  func aStateSavedWithoutReceiptsReadsAsBefore() throws {
    var w = W()
    w.feed([W.fix(0, 0)])
    w.feed([W.fix(200, 100)], receivedAt: W.t0 + 130_000)
    let saved = try JSONEncoder().encode(w.state)
    let text = try #require(String(data: saved, encoding: .utf8))
    #expect(text.contains("\"receivedMilliseconds\":1700000130000"))
    let old = text.replacingOccurrences(of: ",\"receivedMilliseconds\":1700000130000", with: "")
      .replacingOccurrences(of: "\"receivedMilliseconds\":1700000130000,", with: "")
    #expect(!old.contains("receivedMilliseconds"))
    var restored = try JSONDecoder().decode(GeofenceState.self, from: Data(old.utf8))
    #expect(w.engine.advance(to: W.t0 + 159_999, state: &restored).isEmpty)
    let done = w.engine.advance(to: W.t0 + 160_000, state: &restored)
    #expect(W.summary(done) == ["departure announced 1"] && done[0].decidedMilliseconds == W.t0 + 160_000)
    // The state as saved now: a minute from the receipt.
    var current = try JSONDecoder().decode(GeofenceState.self, from: saved)
    #expect(w.engine.advance(to: W.t0 + 189_999, state: &current).isEmpty)
    #expect(W.summary(w.engine.advance(to: W.t0 + 190_000, state: &current)) == ["departure announced 1"])
  }

  @Test("the lists reused between batches are not state: not saved, compared or hashed, and never kept huge")
  func reusedListsAreNotState() throws {
    var w = W()
    w.feed([W.fix(0, 0)])
    w.feed([W.fix(10, 30)])
    // `w.state` holds the candidate list a batch used; a restored state does not.
    let restored = try JSONDecoder().decode(GeofenceState.self, from: JSONEncoder().encode(w.state))
    #expect(w.state.scratch.candidates.capacity > 0 && restored.scratch.candidates.capacity == 0)
    #expect(w.state.scratch.candidates.isEmpty && w.state.scratch.crossings.isEmpty)
    #expect(restored == w.state && restored.hashValue == w.state.hashValue)
    // Both hear the next fix alike.
    var copy = W()
    copy.state = restored
    let next = W.fix(300, 60)
    #expect(copy.feed([next]) == w.feed([next]) && copy.state == w.state)
    // Every list is empty after each batch: an arrival (crossings), a
    // departure starting (started), its minute passing at the phone's next
    // fix (deadlines, due departures).
    func lists(_ state: GeofenceState) -> [(count: Int, capacity: Int)] {
      let s = state.scratch
      return [
        (s.candidates.count, s.candidates.capacity), (s.crossings.count, s.crossings.capacity),
        (s.started.count, s.started.capacity), (s.deadlineCrossings.count, s.deadlineCrossings.capacity),
        (s.dueDepartures.count, s.dueDepartures.capacity),
      ]
    }
    #expect(W.summary(w.feed([W.fix(300, 200)])) == ["departure announced 1"])
    #expect(lists(w.state).allSatisfy { $0.count == 0 })
    // A person among more places than the room kept: each list that grew
    // past it is dropped after its batch, whichever list it is.
    let many = GeofenceState.Scratch.largestKept + 1
    var crowded = W((1...many).map { Geofence(id: PlaceID(UInt32($0)), center: W.home, radiusMeters: 100) })
    // In at once; leaving (still in while the departures wait); out a minute later.
    for (meters, seconds, inside) in [(0.0, 0.0, many), (300, 10, many), (300, 200, 0)] {
      crowded.feed([W.fix(meters, seconds)])
      #expect(
        lists(crowded.state).allSatisfy { $0.count == 0 && $0.capacity <= GeofenceState.Scratch.largestKept })
      #expect(crowded.state.placesInside(UserID(1)).count == inside)
    }
  }

  /// Review 2, F3: a 200 m network estimate 10 m outside the radius
  /// cancelled a waiting fast arrival (`drovePast`) and ended the membership.
  @Test(
    "a network fix cancels a fast arrival only from more than twice its error beyond the radius; 100 m is sharp"
  )
  func aLooseNetworkFixDoesNotCancelAFastArrival() {
    /// Arrives from the west at 12 m/s (inside at +20 s), then one fix
    /// `meters` east of the centre at +30 s with `accuracy`, at rest.
    func arrive(thenAt meters: Double, accuracy: Double) -> (W, [GeofenceEvent]) {
      var w = W()
      var events = w.feed([W.fix(300, 0, bearing: 270, speed: 12), W.fix(50, 20, bearing: 270, speed: 12)])
      events += w.feed([W.fix(meters, 30, accuracy: accuracy, speed: 0)])
      return (w, events)
    }
    func reasons(_ events: [GeofenceEvent]) -> [String] {
      events.map { "\($0.outcome.rawValue) \($0.reasons.map(\.rawValue))" }
    }
    let waiting = "pending [\"fastArrivalWaiting\"]"
    let drovePast = "cancelled [\"drovePast\"]"
    let minutePassed = "announced [\"fastArrivalMinutePassed\"]"
    // 10 m beyond the radius: a 100 m fix is sharp and out the far side…
    let (sharp, events) = arrive(thenAt: 110, accuracy: 100)
    #expect(reasons(events) == [waiting, drovePast])
    #expect(sharp.state.placesInside(UserID(1)).isEmpty)
    // …a 100.001 m fix is a network estimate: nothing changes (it is not
    // inside either, so its 0 m/s does not confirm), and the minute passes
    // with the person inside.
    var (network, more) = arrive(thenAt: 110, accuracy: 100.001)
    #expect(reasons(more) == [waiting])
    #expect(network.state.placesInside(UserID(1)) == [1])
    #expect(network.engine.advance(to: W.t0 + 79_999, state: &network.state).isEmpty)
    #expect(reasons(network.engine.advance(to: W.t0 + 80_000, state: &network.state)) == [minutePassed])
    // A 200 m estimate takes the person out only from more than 400 m
    // beyond the radius: at 400 m minus a hair it waits, a hair beyond it cancels.
    var (near, held) = arrive(thenAt: 499.99, accuracy: 200)
    #expect(reasons(held) == [waiting])
    #expect(near.state.placesInside(UserID(1)) == [1])
    #expect(reasons(near.engine.advance(to: W.t0 + 80_000, state: &near.state)) == [minutePassed])
    var (far, cancelled) = arrive(thenAt: 500.01, accuracy: 200)
    #expect(reasons(cancelled) == [waiting, drovePast])
    #expect(far.state.placesInside(UserID(1)).isEmpty)
    #expect(far.engine.advance(to: W.t0 + 3_600_000, state: &far.state).isEmpty)
  }

  /// Item 16: a drive-by with two inside fixes at 15 m/s announced the arrival.
  @Test("a drive-by with two inside fixes at 15 m/s announces nothing if it goes out within the minute")
  func aDriveByWithTwoInsideFixesAnnouncesNothing() {
    var w = W()
    var events = w.feed([W.fix(300, 0, bearing: 270, speed: 15)])
    events += w.feed([W.fix(60, 16, bearing: 270, speed: 15)])
    events += w.feed([W.fix(60, 24, bearing: 90, speed: 15)])  // still inside, still fast
    events += w.feed([W.fix(180, 32, bearing: 90, speed: 15)])  // out the far side
    #expect(W.summary(events) == ["arrival pending 1", "arrival cancelled 1"])
    #expect(!events.contains { $0.outcome == .announced })
    // Inside and fast for a whole minute: announced at the minute.
    var parked = W()
    parked.feed([W.fix(300, 0, bearing: 270, speed: 15)])
    parked.feed([W.fix(60, 16, bearing: 270, speed: 15)])
    #expect(parked.feed([W.fix(50, 75.999, speed: 6)]).isEmpty)
    let minute = parked.feed([W.fix(40, 76, speed: 6)])
    #expect(W.summary(minute) == ["arrival announced 1"] && minute[0].reasons == [.fastArrivalMinutePassed])
    // Slowing inside (4.999 m/s) confirms at once, at the entering time.
    var slowed = W()
    slowed.feed([W.fix(300, 0, bearing: 270, speed: 15)])
    slowed.feed([W.fix(60, 16, bearing: 270, speed: 15)])
    let stop = slowed.feed([W.fix(10, 30, speed: 4.999)])
    #expect(W.summary(stop) == ["arrival announced 1"] && stop[0].eventMilliseconds == W.t0 + 16_000)
  }
}
