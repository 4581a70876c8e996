import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// Issue 15, server path: each defect as found, on both sides of its rule.
@Suite("Server path regressions (issue 15)")
struct ServerPathRegressionTests {
  typealias W = FenceWorld
  static let t0 = W.t0

  /// Cruising east at 20 m/s (a fix every 10 s for 2 min), then a stop fix
  /// 10 s later: the crash. Person 1, device 1.
  static func crash() -> [Fix] {
    var fixes = (0...12).map { k in W.fix(Double(k) * 200, Double(k) * 10, accuracy: 8, speed: 20) }
    fixes.append(W.fix(12 * 200 + 15, 130, accuracy: 8, speed: 0))
    return fixes
  }

  static func heartbeat(_ seconds: Double, at meters: Double = 12 * 200 + 15) -> Fix {
    var f = W.fix(meters, seconds, accuracy: 8, speed: 0)
    f.source = .heartbeat
    return f
  }

  let pipeline = IngestPipeline(places: [], circlesOfPerson: [UserID(1): [7]])

  // MARK: Item 6

  @Test("a car that crashed then went quiet raises the possible incident on the server's clock")
  func aCarThatCrashedThenWentQuietRaisesThePossibleIncident() {
    let stop = Self.t0 + 130_000
    var state = IngestState()
    let uploaded = pipeline.ingest(
      FixColumns(Self.crash()), receivedAtMilliseconds: stop + 1_000, state: &state)
    #expect(uploaded.suddenStops.map(\.outcome) == [.pending])
    // Nothing more: the server's timer decides at exactly five minutes, not before.
    #expect(pipeline.advance(to: stop + 299_999, state: &state).suddenStops.isEmpty)
    let raised = pipeline.advance(to: stop + 300_000, state: &state).suddenStops
    #expect(raised.map(\.outcome) == [.raised] && raised.first?.decidedMilliseconds == stop + 300_000)
  }

  @Test("heartbeats after a crash move the clock: the incident is raised by their upload")
  func heartbeatsAfterACrashMoveTheClock() {
    let stop = Self.t0 + 130_000
    var state = IngestState()
    _ = pipeline.ingest(FixColumns(Self.crash()), receivedAtMilliseconds: stop + 1_000, state: &state)
    // A heartbeat at 4:59.999 keeps it pending; one at 5:00 raises it.
    let early = pipeline.ingest(
      FixColumns([Self.heartbeat(130 + 299.999)]), receivedAtMilliseconds: stop + 299_999, state: &state)
    #expect(early.suddenStops.isEmpty)
    let onTime = pipeline.ingest(
      FixColumns([Self.heartbeat(130 + 300)]), receivedAtMilliseconds: stop + 300_000, state: &state)
    #expect(onTime.suddenStops.map(\.outcome) == [.raised])
    // The engine alone, heartbeats only (no server clock): the heartbeat's own time decides.
    var engineState = SuddenStopState()
    let engine = SuddenStopEngine()
    let events = engine.process(FixColumns(Self.crash() + [Self.heartbeat(130 + 300)]), state: &engineState)
    #expect(events.map(\.outcome) == [.pending, .raised])
  }

  @Test("another person's upload moves everyone's clock: a waiting departure is decided by it")
  func anotherPersonsUploadMovesEveryonesClock() {
    let place = Geofence(id: 1, circle: 7, center: W.home, radiusMeters: 100)
    let both = IngestPipeline(places: [place], circlesOfPerson: [UserID(1): [7], UserID(2): [7]])
    var state = IngestState()
    _ = both.ingest(
      FixColumns([W.fix(0, 0), W.fix(300, 100)]), receivedAtMilliseconds: Self.t0 + 101_000, state: &state)
    // The minute runs on the server's clock from the departure's receipt (review 2 F2).
    let other = W.fix(5_000, 160.999, person: 2)
    #expect(
      both.ingest(FixColumns([other]), receivedAtMilliseconds: Self.t0 + 160_999, state: &state)
        .geofenceEvents
        .filter { $0.person == UserID(1) }.isEmpty)
    let later = both.ingest(
      FixColumns([W.fix(5_000, 161, person: 2)]), receivedAtMilliseconds: Self.t0 + 161_000, state: &state)
    let departure = later.geofenceEvents.filter { $0.person == UserID(1) }
    #expect(departure.map(\.outcome) == [.announced] && departure.first?.reasons == [.minuteWithoutReturn])
  }

  // MARK: Item 7

  @Test("a parked phone with two 150 m fixes 400 m apart raises nothing and alerts nothing")
  func aParkedPhoneWithTwoLooseFixesRaisesNothing() {
    let limited = IngestPipeline(
      places: [], circlesOfPerson: [UserID(1): [7]], speedLimits: [7: SpeedLimit(kilometersPerHour: 30)])
    var fixes: [Fix] = []
    // Network fixes flipping 400 m apart every 30 s (48 km/h on the raw ground), no speed.
    for k in 0..<30 { fixes.append(W.fix(k % 2 == 0 ? 0 : 400, Double(k) * 30, accuracy: 150, speed: nil)) }
    var state = IngestState()
    var outputs = [
      limited.ingest(FixColumns(fixes), receivedAtMilliseconds: Self.t0 + 900_000, state: &state)
    ]
    outputs.append(limited.advance(to: Self.t0 + 3_600_000, state: &state))
    #expect(outputs.flatMap(\.speedAlerts).isEmpty)
    #expect(outputs.flatMap(\.suddenStops).isEmpty)
    // The pair says what the ground allows once both accuracies are off: (400 − 300) / 30 s.
    let pair = AgreedSpeed.pair(fixes[0], fixes[1])
    #expect(pair?.source == .loose && abs((pair?.metersPerSecond ?? 0) - 100.0 / 30) < 1e-9)
  }

  @Test(
    "loose means looser than 30 m with no measured speed: 30 m is sharp, 30.01 m loose, a measured speed never"
  )
  func loosenessThreshold() {
    func pair(_ accuracy: Double, _ speed: Double?) -> AgreedSpeed.Source? {
      AgreedSpeed.pair(
        W.fix(0, 0, accuracy: accuracy, speed: speed), W.fix(400, 30, accuracy: accuracy, speed: speed))?
        .source
    }
    #expect(pair(30, nil) == .cappedByGround || pair(30, nil) == .ground)
    #expect(pair(30.01, nil) == .loose)
    #expect(pair(150, 13) == .bothMeasured)
    // A loose pair is no cruise: the sudden-stop check ignores 48 km/h from network fixes.
    var state = SuddenStopState()
    let stops = SuddenStopEngine().process(
      FixColumns([
        W.fix(0, 0, accuracy: 150, speed: nil), W.fix(1_200, 30, accuracy: 150, speed: nil),
        W.fix(1_210, 40, accuracy: 8, speed: 0), W.fix(1_212, 400, accuracy: 8, speed: 0),
      ]), state: &state)
    #expect(stops.isEmpty)
  }

  // MARK: Item 8

  @Test("a late drive uploaded with another person's fresh fix goes to the feed only")
  func aLateDriveUploadedWithAFreshFixIsFeedOnly() {
    let engine = SpeedAlertEngine(
      limits: [7: SpeedLimit(kilometersPerHour: 50)], circlesOfPerson: [UserID(1): [7], UserID(2): [8]])
    let drive = (0..<6).map { W.fix(Double($0) * 160, Double($0) * 10, accuracy: 8, speed: 16) }
    for (after, expected) in [(Int64(900_000), SpeedAlertEvent.Outcome.announced), (900_001, .feedOnly)] {
      let received = drive.last!.timeMilliseconds + after
      let fresh = W.fix(0, Double(received - Self.t0) / 1000, person: 2)
      var state = SpeedAlertState()
      let events = engine.process(
        FixColumns(drive + [fresh]), receivedAtMilliseconds: received, state: &state)
      #expect(events.map(\.outcome) == [expected], "received \(after) ms after")
    }
    // The geofence engine reads the same rule.
    let late = LateUploadRule()
    #expect(!late.isLate(newestFixMilliseconds: 0, receivedAtMilliseconds: 900_000))
    #expect(late.isLate(newestFixMilliseconds: 0, receivedAtMilliseconds: 900_001))
    #expect(!late.isLate(newestFixMilliseconds: .max, receivedAtMilliseconds: .min))
    #expect(late.isLate(newestFixMilliseconds: .min, receivedAtMilliseconds: .max))
  }

  @Test("what a late upload leaves waiting is feed only when the clock decides it")
  func aLateUploadsWaitingDepartureIsFeedOnlyWhenDecidedByTheClock() {
    var w = W()
    w.feed([W.fix(0, 0)])
    // Left at 100 s, uploaded 20 min later: the server's minute runs from
    // the receipt (review 2 F2), so the clock decides it a minute later,
    // and it stays feed only.
    let received = Self.t0 + 100_000 + 1_200_000
    let left = w.feed([W.fix(300, 100)], receivedAt: received)
    #expect(W.summary(left) == ["departure pending 1"])
    let decided = w.engine.advance(to: received + 60_000, state: &w.state)
    #expect(W.summary(decided) == ["departure feedOnly 1"])
    #expect(decided.last?.reasons == [.minuteWithoutReturn, .lateBatch])
  }

  // MARK: Item 9

  @Test(
    "saved state naming a deleted place no longer crashes the next batch: the pending work is dropped and counted"
  )
  func stateNamingADeletedPlaceDoesNotCrash() throws {
    let home = Geofence(id: 1, circle: 7, center: W.home, radiusMeters: 100)
    let shop = Geofence(
      id: 2, circle: 7,
      center: GreatCircle.destination(from: W.home, initialBearingDegrees: 0, distanceMeters: 2_000),
      radiusMeters: 100)
    let before = IngestPipeline(places: [home, shop], circlesOfPerson: [UserID(1): [7]])
    var state = IngestState()
    _ = before.ingest(
      FixColumns([W.fix(0, 0), W.fix(300, 100)]), receivedAtMilliseconds: Self.t0 + 100_000, state: &state)
    #expect(state.geofences.people[UserID(1)]?.records.first?.pendingDeparture != nil)
    let saved = try JSONEncoder().encode(state)
    // The home is deleted between batches. Without adopting the state first:
    let after = IngestPipeline(places: [shop], circlesOfPerson: [UserID(1): [7]])
    var restored = try JSONDecoder().decode(IngestState.self, from: saved)
    let next = after.ingest(
      FixColumns([W.fix(400, 110)]), receivedAtMilliseconds: Self.t0 + 110_000, state: &restored)
    #expect(
      next.geofenceEvents.map(\.reasons) == [[.placeRemoved]] && next.geofenceEvents[0].outcome == .feedOnly)
    #expect(restored.geofences.droppedForRemovedPlaces == 1)
    _ = after.ingest(
      FixColumns([W.fix(500, 120)]), receivedAtMilliseconds: Self.t0 + 120_000, state: &restored)
    // Adopting it explicitly counts what was dropped and keeps everything else.
    var adopted = try JSONDecoder().decode(IngestState.self, from: saved)
    let report = after.adopt(&adopted)
    #expect(report.droppedPendingDepartures == 1 && report.droppedPlaceRecords == 1)
    #expect(adopted.dedupe == state.dedupe && adopted.people == state.people)
    // A person who left the circle: their open speeding stretch goes too.
    let limited = IngestPipeline(
      places: [], circlesOfPerson: [UserID(1): [7]], speedLimits: [7: SpeedLimit(kilometersPerHour: 30)])
    var speeding = IngestState()
    _ = limited.ingest(
      FixColumns([W.fix(0, 0, speed: 20), W.fix(200, 10, speed: 20)]),
      receivedAtMilliseconds: Self.t0 + 10_000,
      state: &speeding)
    let left = IngestPipeline(
      places: [], circlesOfPerson: [UserID(1): [8]], speedLimits: [7: SpeedLimit(kilometersPerHour: 30)])
    #expect(left.adopt(&speeding).droppedSpeedStretches == 1)
  }

  @Test("corrupted saved state is a decoding error, never a trap")
  func corruptedSavedStateIsADecodingError() throws {
    var state = IngestState()
    _ = IngestPipeline(places: [Geofence(id: 1, center: W.home, radiusMeters: 100)], circlesOfPerson: [:])
      .ingest(
        FixColumns([W.fix(0, 0), W.fix(10, 10), W.fix(300, 20)]), receivedAtMilliseconds: Self.t0 + 20_000,
        state: &state)
    let json = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any])
    func decodes(_ edit: (inout [String: Any]) -> Void) -> Bool {
      var copy = json
      edit(&copy)
      guard let data = try? JSONSerialization.data(withJSONObject: copy) else { return false }
      return (try? JSONDecoder().decode(IngestState.self, from: data)) != nil
    }
    #expect(decodes { _ in })
    // The same person twice in the geofence state.
    #expect(
      !decodes { j in
        var g = j["geofences"] as! [String: Any]
        let people = g["people"] as! [Any]
        g["people"] = people + people
        j["geofences"] = g
      })
    // A device log whose times and activities differ in length.
    #expect(
      !decodes { j in
        var d = j["dedupe"] as! [String: Any]
        var devices = d["devices"] as! [Any]
        var log = devices[1] as! [String: Any]
        log["activities"] = []
        devices[1] = log
        d["devices"] = devices
        j["dedupe"] = d
      })
    // A dedupe count that does not match its logs.
    #expect(
      !decodes { j in
        var d = j["dedupe"] as! [String: Any]
        d["count"] = 99
        j["dedupe"] = d
      })
    // A trip anchor outside its segment.
    #expect(
      !decodes { j in
        var t = j["trips"] as! [String: Any]
        var people = t["people"] as! [Any]
        var person = people[1] as! [String: Any]
        person["anchor"] = 7
        person["segment"] = []
        people[1] = person
        t["people"] = people
        j["trips"] = t
      })
    // Counts past 0…2⁵³ (review15: Int.max trapped at the next increment).
    for value in [(1 << 53) + 1, -1] {
      #expect(
        !decodes { j in
          var g = j["geofences"] as! [String: Any]
          g["droppedForRemovedPlaces"] = value
          j["geofences"] = g
        })
    }
    #expect(
      decodes { j in
        var g = j["geofences"] as! [String: Any]
        g["droppedForRemovedPlaces"] = 1 << 53
        j["geofences"] = g
      })
    #expect(TripSummary([]) == nil)
  }

  // MARK: Item 12

  @Test("a still re-report adopts still in presence too: stale at 35 min, not 15")
  func aStillReReportKeepsPresenceFreshFor35Minutes() {
    var state = IngestState()
    let fix = W.fix(0, 0)
    _ = pipeline.ingest(FixColumns([fix]), receivedAtMilliseconds: Self.t0 + 1_000, state: &state)
    var still = fix
    still.activity = .still
    let again = pipeline.ingest(FixColumns([still]), receivedAtMilliseconds: Self.t0 + 2_000, state: &state)
    #expect(again.duplicates == 1 && again.stillAdopted == 1)
    let row = state.people[UserID(1)]?.presence.row
    #expect(row?.activity == .still)
    let rules = PresenceRules()
    #expect(
      !rules.isStale(
        fixTimeMilliseconds: Self.t0, activity: row?.activity ?? .unknown,
        nowMilliseconds: Self.t0 + 2_100_000))
    #expect(
      rules.isStale(
        fixTimeMilliseconds: Self.t0, activity: row?.activity ?? .unknown,
        nowMilliseconds: Self.t0 + 2_100_001))
    // A `still` re-report of a fix that no longer holds the row changes the
    // stored fix (dedupe) but not presence.
    _ = pipeline.ingest(
      FixColumns([W.fix(5, 30), W.fix(5, 60)]), receivedAtMilliseconds: Self.t0 + 61_000, state: &state)
    var oldStill = W.fix(5, 30)
    oldStill.activity = .still
    let old = pipeline.ingest(FixColumns([oldStill]), receivedAtMilliseconds: Self.t0 + 62_000, state: &state)
    #expect(old.duplicates == 1 && old.stillAdopted == 0)
    #expect(state.people[UserID(1)]?.presence.row?.activity == .unknown)
  }

  @Test(
    "a still re-report in the same upload as its fix: the row says still, so a tablet's still fix 20 min later is overruled"
  )
  func aStillReReportInItsOwnUploadAdopts() {
    // Found by PersonGatePropertyTests (seed 940310561, case 297): the
    // adoption ran before the fix took the row, and dedupe's log already
    // said `still`, so no later re-report adopted it either; the row went
    // stale at 15 min and a second device's `still` fix took it.
    var state = IngestState()
    let phone = W.fix(0, 0)
    var still = phone
    still.activity = .still
    let first = pipeline.ingest(
      FixColumns([phone, still]), receivedAtMilliseconds: Self.t0 + 1_000, state: &state)
    // The fix is judged as `still` from the start (specrev-server F2), so no row needs adopting.
    #expect(first.inserted == 1 && first.duplicates == 1 && first.stillAdopted == 0)
    #expect(state.people[UserID(1)]?.presence.row?.activity == .still)
    // The same upload retried changes nothing.
    let retried = pipeline.ingest(
      FixColumns([phone, still]), receivedAtMilliseconds: Self.t0 + 2_000, state: &state)
    #expect(retried.duplicates == 2 && retried.stillAdopted == 0 && retried.inserted == 0)
    // A tablet's `still` fix, received 20 min after the phone's fix: the
    // phone is fresh (35 min for `still`), so the tablet is overruled.
    var tablet = W.fix(900, 1_190)
    tablet.activity = .still
    tablet.device = DeviceID(2)
    let later = pipeline.ingest(
      FixColumns([tablet]), receivedAtMilliseconds: Self.t0 + 1_200_000, state: &state)
    #expect(later.overruled == 1 && later.presenceAdvanced == 0)
    // The other order within the upload (the `still` report first) gives the same row.
    var other = IngestState()
    _ = pipeline.ingest(FixColumns([still, phone]), receivedAtMilliseconds: Self.t0 + 1_000, state: &other)
    #expect(other.people[UserID(1)]?.presence.row == state.people[UserID(1)]?.presence.row)
  }

  /// Found by a review (specrev-server F2): a second device's fix followed,
  /// in the same upload, by its own `still` re-report was judged as it
  /// first said (walking), took the row from the fresh phone and announced
  /// an arrival home while the person was 3 km away; the other order was
  /// overruled.
  @Test(
    "a tablet's fix and its own still re-report in one upload: overruled while the phone is fresh, in either order"
  )
  func aSecondDevicesStillReReportInItsOwnUpload() {
    let home = IngestPipeline(
      places: [Geofence(id: 1, circle: 7, center: W.home, radiusMeters: 100)],
      circlesOfPerson: [UserID(1): [7]])
    var phone = W.fix(3_000, 0)
    phone.activity = .walking
    var walking = W.fix(0, 60)
    walking.device = DeviceID(2)
    walking.activity = .walking
    var still = walking
    still.activity = .still
    var rows: [PresenceRow?] = []
    for upload in [[walking, still], [still, walking]] {
      var state = IngestState()
      _ = home.ingest(FixColumns([phone]), receivedAtMilliseconds: Self.t0 + 1_000, state: &state)
      let out = home.ingest(FixColumns(upload), receivedAtMilliseconds: Self.t0 + 61_000, state: &state)
      #expect(out.inserted == 1 && out.duplicates == 1 && out.overruled == 1 && out.presenceAdvanced == 0)
      #expect(out.geofenceEvents.isEmpty && out.trips.segments.isEmpty)
      #expect(state.people[UserID(1)]?.presence.row?.device == phone.device)
      rows.append(state.people[UserID(1)]?.presence.row)
    }
    #expect(rows[0] == rows[1])
  }

  @Test(
    "regression 2026-12-05: a door's clock near Int64.min for one batch and near Int64.max for the next no longer gives two fixes whose interval overflows (a trap in the speed alert)"
  )
  func fixesAtBothEndsOfTheClock() {
    let pipeline = IngestPipeline(
      places: [], circlesOfPerson: [UserID(1): [7]], speedLimits: [7: SpeedLimit(kilometersPerHour: 50)])
    var state = IngestState()
    func fix(_ time: Int64, _ latitude: Double) -> FixColumns {
      FixColumns([
        Fix(
          timeMilliseconds: time, latitudeDegrees: latitude, longitudeDegrees: 2.35,
          horizontalAccuracyMeters: 5,
          speedMetersPerSecond: 30, user: UserID(1))
      ])
    }
    let early = Int64.min + 1_000_000
    let late = Int64.max - 1_000_000
    let first = pipeline.ingest(fix(early, 48.85), receivedAtMilliseconds: early + 10, state: &state)
    let second = pipeline.ingest(fix(late, 48.86), receivedAtMilliseconds: late + 10, state: &state)
    #expect(first.rejections.map(\.reason) == [.tooOld] && second.rejections.map(\.reason) == [.inFuture])
    #expect(state.dedupe.count == 0)
    _ = pipeline.advance(to: .max, state: &state)
    _ = pipeline.advance(to: .min, state: &state)
  }
}
