import Foundation
import Testing

@testable import HearthGeo

/// Issue 28, items 1–3: one person, several devices, clocks that disagree,
/// late drives. Geofences, trips and the speed rules follow the person
/// (SPEC §1): only a fix that takes the presence row reaches them.
@Suite("One person, several devices (issue 28)")
struct PersonGateTests {
  typealias W = FenceWorld
  static let t0 = W.t0
  static let minute: Int64 = 60_000
  static let home = Geofence(id: 1, circle: 7, center: W.home, radiusMeters: 100)
  /// 3 km east of home.
  static let work = Geofence(
    id: 2, circle: 7,
    center: GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 3_000),
    radiusMeters: 100)
  let pipeline = IngestPipeline(
    places: [PersonGateTests.home, PersonGateTests.work], circlesOfPerson: [UserID(1): [7]],
    speedLimits: [7: SpeedLimit(kilometersPerHour: 50)])

  /// A fix of person 1's `device` `meters` east of home, `seconds` after t0.
  static func fix(
    _ meters: Double, _ seconds: Double, device: UInt32, activity: Activity = .unknown, speed: Double? = 0
  ) -> Fix {
    var f = W.fix(meters, seconds, speed: speed)
    f.device = DeviceID(device)
    f.activity = activity
    return f
  }

  /// The phone (device 1): `still` at home for 10 min, a drive to work at
  /// 12 m/s (under the limit), then at work (activity unknown: stale after
  /// 15 min) until `workUntilSeconds`, a fix a minute.
  static func phoneDay(workUntilSeconds: Int = 3 * 3_600) -> [Fix] {
    var fixes = stride(from: 0, through: 600, by: 60).map { fix(0, Double($0), device: 1, activity: .still) }
    fixes += stride(from: 610, through: 850, by: 10).map {
      fix(min(3_000, Double($0 - 600) * 12), Double($0), device: 1, activity: .automotive, speed: 12)
    }
    fixes += stride(from: 900, through: workUntilSeconds, by: 60).map { fix(3_000, Double($0), device: 1) }
    return fixes
  }

  /// A home tablet (device 2): `still` at home every minute from 17 s on.
  static func tabletDay(untilSeconds: Int = 3 * 3_600, activity: Activity = .still) -> [Fix] {
    stride(from: 17, through: untilSeconds, by: 60).map { fix(0, Double($0), device: 2, activity: activity) }
  }

  /// One upload; `second`: one of the fixes that must move nothing (a
  /// second device's, or a phone's own older ones).
  typealias Upload = (received: Int64, fixes: [Fix], second: Bool)

  /// One server history: the phone uploads each minute (a second after the
  /// end of the minute), the tablet every 15 min (two seconds after the end
  /// of its window). The uploads in receipt order.
  static func uploads(phone: [Fix], tablet: [Fix]) -> [Upload] {
    var out: [Upload] = []
    for (window, fixes) in Dictionary(grouping: phone, by: { ($0.timeMilliseconds - t0) / minute }) {
      out.append(
        (
          t0 + (window + 1) * minute + 1_000, fixes.sorted { $0.timeMilliseconds < $1.timeMilliseconds },
          false
        ))
    }
    for (window, fixes) in Dictionary(grouping: tablet, by: { ($0.timeMilliseconds - t0) / (15 * minute) }) {
      out.append(
        (
          t0 + (window + 1) * 15 * minute + 2_000, fixes.sorted { $0.timeMilliseconds < $1.timeMilliseconds },
          true
        ))
    }
    return out.sorted { ($0.received, $0.second ? 1 : 0) < ($1.received, $1.second ? 1 : 0) }
  }

  /// Everything the engines decided, as one comparable value.
  struct Decided: Equatable {
    var geofences: [GeofenceEvent] = []
    var speed: [SpeedAlertEvent] = []
    var stops: [SuddenStopEvent] = []
    var trips = TripOutput()
    var frames: [ApproximateFix] = []

    mutating func add(_ o: IngestOutput) {
      geofences += o.geofenceEvents
      speed += o.speedAlerts
      stops += o.suddenStops
      trips += o.trips
      frames += o.sharedFrames
    }
  }

  /// Plays the uploads; with `withoutSecond`, each `second` upload is only
  /// a clock advance at its receipt (what the engines must see if its fixes
  /// move nothing). Ends with the clock 3 h on.
  func play(_ uploads: [Upload], withoutSecond: Bool = false, state: inout IngestState) -> (
    decided: Decided, outputs: [IngestOutput]
  ) {
    var decided = Decided()
    var outputs: [IngestOutput] = []
    for u in uploads {
      let o =
        withoutSecond && u.second
        ? pipeline.advance(to: u.received, state: &state)
        : pipeline.ingest(FixColumns(u.fixes), receivedAtMilliseconds: u.received, state: &state)
      decided.add(o)
      outputs.append(o)
    }
    decided.add(pipeline.advance(to: (uploads.last?.received ?? Self.t0) + 3 * 3_600_000, state: &state))
    return (decided, outputs)
  }

  // MARK: Item 1

  @Test("a home tablet's batches of old still fixes move nothing while the phone is fresh at work")
  func aTabletsOldStillBatchesMoveNothing() {
    let uploads = Self.uploads(phone: Self.phoneDay(), tablet: Self.tabletDay())
    var withTablet = IngestState()
    var alone = IngestState()
    let (decided, _) = play(uploads, state: &withTablet)
    let (expected, _) = play(uploads, withoutSecond: true, state: &alone)
    let announced = decided.geofences.filter { $0.outcome == .announced }.map { "\($0.kind) \($0.place)" }
    #expect(announced == ["arrival 1", "departure 1", "arrival 2"])
    #expect(decided.geofences == expected.geofences)
    #expect(decided.trips == expected.trips && decided.trips.segments.filter(\.isTrip).count == 1)
    #expect(decided.speed == expected.speed && decided.stops == expected.stops)
    #expect(decided.frames == expected.frames)
    #expect(withTablet.geofences == alone.geofences && withTablet.trips == alone.trips)
  }

  @Test("a second device on the move does take over: its fixes move the person")
  func aSecondDeviceOnTheMoveTakesOver() {
    // The same tablet, saying `walking`: each of its fixes newer than the
    // row takes it (SPEC §1), so the person is seen at home again.
    let uploads = Self.uploads(phone: Self.phoneDay(), tablet: Self.tabletDay(activity: .walking))
    var state = IngestState()
    let (decided, _) = play(uploads, state: &state)
    let homeArrivals = decided.geofences.filter { $0.kind == .arrival && $0.place == 1 }
    #expect(homeArrivals.count > 1)
  }

  @Test("fixes of a phone's own upload that arrives after a newer one move nothing")
  func aPhonesOwnOlderUploadMovesNothing() {
    // Minutes 20–24 at work arrive after minutes 25–29 (a retried upload).
    let phone = Self.phoneDay(workUntilSeconds: 40 * 60)
    let older = phone.filter { (20 * 60_000..<25 * 60_000).contains($0.timeMilliseconds - Self.t0) }
    let newer = phone.filter { (25 * 60_000..<30 * 60_000).contains($0.timeMilliseconds - Self.t0) }
    let before = phone.filter { $0.timeMilliseconds - Self.t0 < 20 * 60_000 }
    let after = phone.filter { $0.timeMilliseconds - Self.t0 >= 30 * 60_000 }
    var uploads: [Upload] = [
      (Self.t0 + 20 * Self.minute, before, false), (Self.t0 + 30 * Self.minute, newer, false),
      (Self.t0 + 30 * Self.minute + 5_000, older, true), (Self.t0 + 40 * Self.minute + 1_000, after, false),
    ]
    var state = IngestState()
    var alone = IngestState()
    let (decided, outputs) = play(uploads, state: &state)
    let (expected, _) = play(uploads, withoutSecond: true, state: &alone)
    #expect(decided == expected)
    #expect(outputs[2].inserted == older.count && outputs[2].presenceAdvanced == 0)
    // The row is the phone's fix at 29 min: another device's fix (on the
    // move) at that millisecond moves nothing, one a millisecond later does.
    let row = newer.map(\.timeMilliseconds).max()!
    for (offset, reaches) in [(Int64(0), false), (1, true)] {
      var moving = Self.fix(0, 0, device: 2, activity: .walking, speed: 1)
      moving.timeMilliseconds = row + offset
      uploads[2].fixes = [moving]
      var third = IngestState()
      let (_, later) = play(Array(uploads[..<3]), state: &third)
      #expect(later[2].presenceAdvanced == (reaches ? 1 : 0), "\(offset) ms after the row")
      #expect(third.geofences.people[UserID(1)]?.newestMilliseconds == row + (reaches ? offset : 0))
    }
  }

  @Test("state saved and restored between any two uploads of a several-device history gives the straight run")
  func saveAndRestoreMidStream() throws {
    // The tablet on a clock 4 min ahead, so holders, kept-out fixes and
    // takeovers all cross a save.
    let tablet = Self.tabletDay(untilSeconds: 2 * 3_600).map {
      var f = $0
      f.timeMilliseconds += 4 * Self.minute
      return f
    }
    let uploads = Self.uploads(phone: Self.phoneDay(workUntilSeconds: 3_600), tablet: tablet)
    var straight = IngestState()
    let (whole, wholeOutputs) = play(uploads, state: &straight)
    for cut in stride(from: 1, to: uploads.count, by: 7) {
      var state = IngestState()
      var decided = Decided()
      var counts: [[Int]] = []
      for u in uploads[..<cut] {
        let o = pipeline.ingest(FixColumns(u.fixes), receivedAtMilliseconds: u.received, state: &state)
        decided.add(o)
        counts.append([o.presenceAdvanced, o.notNewer, o.overruled])
      }
      var restored = try JSONDecoder().decode(IngestState.self, from: JSONEncoder().encode(state))
      #expect(restored == state)
      let (after, afterOutputs) = play(Array(uploads[cut...]), state: &restored)
      decided.geofences += after.geofences
      decided.speed += after.speed
      decided.stops += after.stops
      decided.trips += after.trips
      decided.frames += after.frames
      counts += afterOutputs.map { [$0.presenceAdvanced, $0.notNewer, $0.overruled] }
      #expect(decided == whole, "cut before upload \(cut)")
      #expect(counts == wholeOutputs.map { [$0.presenceAdvanced, $0.notNewer, $0.overruled] })
      #expect(restored == straight, "cut before upload \(cut)")
    }
    // The history reaches every branch.
    #expect(wholeOutputs.map(\.notNewer).reduce(0, +) > 0 && wholeOutputs.map(\.overruled).reduce(0, +) > 0)
    #expect(
      whole.geofences.contains {
        $0.kind == .arrival && $0.place == 1 && $0.eventMilliseconds > Self.t0 + 3_600_000
      })
  }

  @Test("same-millisecond fixes from two devices give the same output in either upload order")
  func sameMillisecondFixesInEitherOrder() {
    // The phone at work (walking) and the tablet at home (still), both at
    // t; before them, the holder is the phone (fresh), the tablet (the
    // phone went quiet), or nobody.
    let t = 3_600.0
    let phoneFix = Self.fix(3_000, t, device: 1, activity: .walking, speed: 1)
    let tabletFix = Self.fix(0, t, device: 2, activity: .still)
    let walkingTablet = Self.fix(0, t, device: 2, activity: .walking, speed: 1)
    let histories: [[Fix]] = [
      [Self.fix(3_000, t - 60, device: 1)],
      [Self.fix(3_000, t - 3_000, device: 1), Self.fix(0, t - 60, device: 2, activity: .still)],
      [],
    ]
    for history in histories {
      for pair in [[phoneFix, tabletFix], [phoneFix, walkingTablet]] {
        var results: [(Decided, IngestState, [Int])] = []
        for order in [pair, pair.reversed()] {
          var state = IngestState()
          var decided = Decided()
          if !history.isEmpty {
            decided.add(
              pipeline.ingest(
                FixColumns(history), receivedAtMilliseconds: Self.t0 + Int64(t * 1000) - 30_000, state: &state
              ))
          }
          let o = pipeline.ingest(
            FixColumns(order), receivedAtMilliseconds: Self.t0 + Int64(t * 1000) + 1_000, state: &state)
          decided.add(o)
          decided.add(pipeline.advance(to: Self.t0 + Int64(t * 1000) + 3 * 3_600_000, state: &state))
          results.append((decided, state, [o.presenceAdvanced, o.overruled]))
        }
        #expect(results[0].0 == results[1].0, "history \(history.count) fixes, \(pair[1].activity)")
        #expect(results[0].1 == results[1].1, "history \(history.count) fixes, \(pair[1].activity)")
        #expect(results[0].2 == results[1].2, "history \(history.count) fixes, \(pair[1].activity)")
      }
    }
  }

  // MARK: Item 2

  @Test("staleness is on the server's clock: a tablet 4 min ahead does not make a 12-min-old phone stale")
  func stalenessOnTheServersClock() {
    // The phone's last fix is at work at 60 min; then it goes quiet. The
    // tablet's clock runs 4 min ahead: its `still` fix at home, sent at
    // real time r, says r + 4 min.
    let phone = Self.phoneDay(workUntilSeconds: 3_600)
    let quiet = Self.t0 + 3_600_000
    for (silentMilliseconds, takes) in [
      (Int64(12 * 60_000), false), (15 * 60_000, false), (15 * 60_000 + 1, true),
    ] {
      var state = IngestState()
      for u in Self.uploads(phone: phone, tablet: []) {
        _ = pipeline.ingest(FixColumns(u.fixes), receivedAtMilliseconds: u.received, state: &state)
      }
      let received = quiet + silentMilliseconds
      var tablet = Self.fix(0, 0, device: 2, activity: .still)
      tablet.timeMilliseconds = received + 4 * Self.minute - 1_000
      let o = pipeline.ingest(FixColumns([tablet]), receivedAtMilliseconds: received, state: &state)
      #expect(
        o.presenceAdvanced == (takes ? 1 : 0) && o.overruled == (takes ? 0 : 1),
        "silent \(silentMilliseconds) ms")
      #expect(
        o.geofenceEvents.contains { $0.kind == .arrival && $0.place == 1 } == takes,
        "silent \(silentMilliseconds) ms")
      #expect(state.people[UserID(1)]?.presence.row?.device == DeviceID(takes ? 2 : 1))
    }
  }

  // MARK: Item 3

  @Test("a late drive is feed only even when its upload ends with a fresh fix of the same phone")
  func aLateDriveWithAFreshFixIsFeedOnly() {
    // Over the 50 km/h limit at 16 m/s for a minute, then parked; the
    // upload's last fix is fresh.
    let drive = (0...6).map {
      Self.fix(Double($0) * 160, Double($0) * 10, device: 1, activity: .automotive, speed: 16)
    }
    let end = drive.last!.timeMilliseconds
    for (age, expected) in [
      (Int64(234 * 60_000), SpeedAlertEvent.Outcome.feedOnly), (15 * 60_000, .announced),
      (15 * 60_000 + 1, .feedOnly),
    ] {
      let received = end + age
      var parked = Self.fix(960, 0, device: 1, activity: .still)
      parked.timeMilliseconds = received - 1_000
      var state = IngestState()
      let o = pipeline.ingest(FixColumns(drive + [parked]), receivedAtMilliseconds: received, state: &state)
      #expect(o.speedAlerts.map(\.outcome) == [expected], "drive's last fix \(age) ms old")
      #expect(o.speedAlerts.first?.reasons.contains(.lateUpload) == (expected == .feedOnly))
    }
  }

  @Test("the speed alert engine judges lateness by the stretch's own fixes, not the person's newest")
  func theSpeedAlertJudgesTheStretch() {
    let engine = SpeedAlertEngine(
      limits: [7: SpeedLimit(kilometersPerHour: 50)], circlesOfPerson: [UserID(1): [7]])
    let drive = (0...6).map {
      Self.fix(Double($0) * 160, Double($0) * 10, device: 1, activity: .automotive, speed: 16)
    }
    let end = drive.last!.timeMilliseconds
    for (age, expected) in [
      (Int64(15 * 60_000), SpeedAlertEvent.Outcome.announced), (15 * 60_000 + 1, .feedOnly),
    ] {
      // The same phone's fresh fix, parked, ends the batch.
      var parked = Self.fix(960, 0, device: 1, activity: .still)
      parked.timeMilliseconds = end + age - 500
      var state = SpeedAlertState()
      let events = engine.process(
        FixColumns(drive + [parked]), receivedAtMilliseconds: end + age, state: &state)
      #expect(events.map(\.outcome) == [expected], "drive's last fix \(age) ms old")
    }
    // An old stretch followed by a fresh one of the same phone (too short
    // to alert) stays feed only.
    var twice = drive
    twice.append(Self.fix(7 * 160, 20 * 60, device: 1, activity: .automotive, speed: 16))
    twice.append(Self.fix(7 * 160 + 160, 20 * 60 + 10, device: 1, activity: .automotive, speed: 16))
    var state = SpeedAlertState()
    let events = engine.process(
      FixColumns(twice), receivedAtMilliseconds: twice.last!.timeMilliseconds + 1_000, state: &state)
    #expect(events.map(\.outcome) == [.feedOnly])
    // A stretch that is still over the limit at the upload's fresh end is
    // timely, however old the fix that first made it long enough.
    let long = (0...120).map {
      Self.fix(Double($0) * 160, Double($0) * 10, device: 1, activity: .automotive, speed: 16)
    }
    var longState = SpeedAlertState()
    let timely = engine.process(
      FixColumns(long), receivedAtMilliseconds: long.last!.timeMilliseconds + 1_000, state: &longState)
    #expect(
      timely.map(\.outcome) == [.announced] && timely.first?.endMilliseconds == long[2].timeMilliseconds)
  }
}
