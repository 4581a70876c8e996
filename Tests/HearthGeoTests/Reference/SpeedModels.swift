import Foundation

@testable import HearthGeo

/// Reference models of SPEC §4 (agreed speed, speed alert), read off the
/// SPEC text and the choices documented in docs/guides/speed-and-stops.md:
/// plain loops over every fix a person has had accepted, recomputed from
/// scratch at each fix; no previous-fix cache, no neighbour vector, no
/// stretch kept between fixes.
enum SpeedModel {
  /// SPEC §4 agreed speed of two neighbouring fixes (a before b), m/s, and
  /// whether the pair is loose; nil under half a second apart.
  static func agreed(_ a: Fix, _ b: Fix) -> (speed: Double, loose: Bool)? {
    let seconds = Double(b.timeMilliseconds - a.timeMilliseconds) / 1000
    guard seconds >= 0.5 else { return nil }
    let d = GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate)
    guard d.isFinite else { return nil }
    func isLoose(_ f: Fix) -> Bool { f.speedMetersPerSecond == nil && !(f.horizontalAccuracyMeters <= 30) }
    if isLoose(a) || isLoose(b) {
      func off(_ f: Fix) -> Double {
        f.horizontalAccuracyMeters.isFinite && f.horizontalAccuracyMeters > 0 ? f.horizontalAccuracyMeters : 0
      }
      let ground = max(0, d - off(a) - off(b)) / seconds
      return ([a.speedMetersPerSecond, b.speedMetersPerSecond].compactMap { $0 } + [ground]).min().map {
        ($0, true)
      }
    }
    var speed: Double
    switch (a.speedMetersPerSecond, b.speedMetersPerSecond) {
    case (let x?, let y?): speed = min(x, y)
    case (let x?, nil), (nil, let x?): speed = min(x, d / seconds)
    case (nil, nil): speed = d / seconds
    }
    if a.horizontalAccuracyMeters <= 30 && b.horizontalAccuracyMeters <= 30 {
      speed = min(speed, (d + 0.5 * (a.horizontalAccuracyMeters + b.horizontalAccuracyMeters)) / seconds)
    }
    return (speed, false)
  }

  /// The speed alert over batches: `batches` in the order received, each
  /// with its receipt time; every person's fixes are taken in time order
  /// within a batch, a fix no newer than the person's last accepted one is
  /// skipped. An alert is late (feed only) when the newest fix of its
  /// stretch in the batch that decided it (the over-limit pairs going on
  /// past the deciding fix, within that batch) was more than 15 min old at
  /// receipt. The circle's 30 min cooldown runs from the last announced
  /// alert on the server's clock (receipt to receipt), and for a fix of the
  /// phone that made it on that phone's clock as well. Returns the decisions
  /// in the order the engine makes them (per batch, people ascending).
  /// A stray fix, out and back: `o` without a measured speed, `a` and `b`
  /// within 50 m + their accuracies of each other, `o` further than 50 m +
  /// its accuracy + the larger of theirs from both (accuracies that are not
  /// finite and positive count 0).
  static func outAndBack(_ a: Fix, _ o: Fix, _ b: Fix) -> Bool {
    guard o.speedMetersPerSecond == nil else { return false }
    func extra(_ f: Fix) -> Double {
      f.horizontalAccuracyMeters.isFinite && f.horizontalAccuracyMeters > 0 ? f.horizontalAccuracyMeters : 0
    }
    let ab = GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate)
    let ao = GreatCircle.distanceMeters(from: a.coordinate, to: o.coordinate)
    let ob = GreatCircle.distanceMeters(from: o.coordinate, to: b.coordinate)
    return ab <= 50 + extra(a) + extra(b) && min(ao, ob) > 50 + extra(o) + max(extra(a), extra(b))
  }

  /// The current over-limit stretch of `track` (first fix's index), read
  /// forwards: consecutive pairs over `limit`, not loose; a stretch that is
  /// one pair of fixes both without a measured speed is `unconfirmed` until
  /// a second pair over the limit, and when the fix between the two was a
  /// stray one both pairs count for nothing. nil: no stretch at the end.
  static func stretch(_ track: [Fix], over limit: Double) -> (first: Int, unconfirmed: Bool)? {
    var current: (first: Int, unconfirmed: Bool)?
    for j in track.indices.dropFirst() {
      guard let pair = agreed(track[j - 1], track[j]), !pair.loose, pair.speed > limit else {
        current = nil
        continue
      }
      guard let open = current else {
        let ground = track[j - 1].speedMetersPerSecond == nil && track[j].speedMetersPerSecond == nil
        current = (j - 1, ground)
        continue
      }
      if open.unconfirmed {
        current = outAndBack(track[open.first], track[j - 1], track[j]) ? nil : (open.first, false)
      }
    }
    return current
  }

  static func speedAlerts(
    _ batches: [(received: Int64, fixes: [Fix])], limits: [CircleID: SpeedLimit],
    circlesOfPerson: [UserID: [CircleID]]
  ) -> [SpeedAlertEvent] {
    var accepted: [UserID: [Fix]] = [:]
    var events: [SpeedAlertEvent] = []
    /// (person, circle, stretch start) → said suppressed / done.
    var suppressed = Set<String>()
    var done = Set<String>()
    var announced: [CircleID: (end: Int64, received: Int64, user: UserID, device: DeviceID)] = [:]
    for batch in batches {
      // The cooldown goes to the earliest stretch: a batch is taken in time
      // order across people.
      let ordered = batch.fixes.enumerated().sorted {
        ($0.element.timeMilliseconds, $0.element.user, $0.offset) < (
          $1.element.timeMilliseconds, $1.element.user, $1.offset
        )
      }.map(\.element)
      do {
        for (k, fix) in ordered.enumerated() {
          let person = fix.user
          guard fix.timeMilliseconds > (accepted[person]?.last?.timeMilliseconds ?? .min) else { continue }
          accepted[person, default: []].append(fix)
          let track = accepted[person] ?? []
          guard track.count >= 2 else { continue }
          for circle in (circlesOfPerson[person] ?? []).sorted() {
            guard let limit = limits[circle]?.metersPerSecond else { continue }
            // The stretch of consecutive over-limit pairs ending at the newest pair.
            guard let (first, unconfirmed) = stretch(track, over: limit), !unconfirmed else { continue }
            let fastest =
              (first + 1..<track.count).compactMap { agreed(track[$0 - 1], track[$0])?.speed }.max() ?? 0
            let start = track[first].timeMilliseconds
            let end = track[track.count - 1].timeMilliseconds
            let key = "\(person) \(circle) \(start)"
            guard end - start >= 15_000, !done.contains(key) else { continue }
            // The circle's last announcement: 30 min since its receipt on
            // the server's clock, and since its end on its own phone's clock
            // for that phone.
            let cooling = announced[circle].map { last in
              batch.received - last.received < 30 * 60_000
                || (last.user == person && last.device == fix.device && end - last.end < 30 * 60_000)
            }
            var reasons: [SpeedAlertEvent.Reason] = [.overLimitLongEnough]
            var outcome = SpeedAlertEvent.Outcome.announced
            if cooling == true {
              guard !suppressed.contains(key) else { continue }
              suppressed.insert(key)
              reasons.append(.cooldown)
              outcome = .suppressed
            } else {
              if suppressed.contains(key) { reasons.append(.cooldownEnded) }
              // The stretch as far as this batch shows it.
              var newest = track[track.count - 1]
              for next in ordered[(k + 1)...]
              where next.user == person && next.timeMilliseconds > newest.timeMilliseconds {
                guard let pair = agreed(newest, next), !pair.loose, pair.speed > limit else { break }
                newest = next
              }
              if batch.received - newest.timeMilliseconds > 15 * 60_000 {
                reasons.append(.lateUpload)
                outcome = .feedOnly
              }
              done.insert(key)
            }
            if outcome == .announced {
              announced[circle] = (end, batch.received, person, fix.device)
            }
            events.append(
              SpeedAlertEvent(
                person: person, circle: circle, outcome: outcome, reasons: ReasonList(reasons),
                startMilliseconds: start,
                endMilliseconds: end, agreedSpeedMetersPerSecond: fastest, limitMetersPerSecond: limit))
          }
        }
      }
    }
    return events
  }
}

/// SPEC §8 "whose outage is it?" read off the text, and presence (§1).
enum PresenceModel {
  /// Whether to hold offline alerts at `now` given every earlier moment's
  /// phones: hold when now's conditions hold, or they held at some earlier
  /// moment no more than 30 min ago (the hold lasts 30 min after it was
  /// last justified). A server with a single phone never holds (unless the
  /// push provider failed).
  static func holds(
    _ history: [(now: Int64, phones: [PresenceStatus.PhoneView], pushFailure: Int64?)], at k: Int
  ) -> Bool {
    func justified(_ m: Int) -> Bool {
      let (now, phones, failure) = history[m]
      if let failure, now - failure <= 30 * 60_000 { return true }
      let counting = phones.filter(\.counts)
      if counting.count <= 1 { return false }
      if counting.count < 8 {
        return counting.filter { $0.quiet && !$0.announced }.count >= 2 && counting.allSatisfy { !$0.fresh }
      }
      return counting.filter(\.quiet).count > counting.filter { !$0.quiet }.count
    }
    if justified(k) { return true }
    let (now, phones, failure) = history[k]
    if phones.filter(\.counts).count <= 1 && !(failure.map { now - $0 <= 30 * 60_000 } ?? false) {
      // A single phone cannot tell; an earlier hold does not carry over.
      return false
    }
    return (0..<k).contains { justified($0) && now < history[$0].now + 30 * 60_000 }
  }

  /// Presence over fixes offered in order, each with the time the server
  /// received it: the newest fix wins unless it is `still`, from another
  /// device than the holder's, and the holder's fix is not stale when the
  /// new one is received (its age on the server's clock: 15 min; 35 min
  /// after `still`).
  static func presence(_ offered: [(fix: Fix, received: Int64)]) -> Fix? {
    var holder: Fix?
    for (fix, received) in offered {
      guard let current = holder else {
        holder = fix
        continue
      }
      guard fix.timeMilliseconds > current.timeMilliseconds else { continue }
      let limit: Int64 = current.activity == .still ? 35 * 60_000 : 15 * 60_000
      let stale = received - current.timeMilliseconds > limit
      if fix.device == current.device || fix.activity != .still || stale { holder = fix }
    }
    return holder
  }
}

/// SPEC §5 read plainly, with the choices docs/guides/speed-and-stops.md
/// names: each person's accepted fixes kept whole; the cruise before a stop
/// found by scanning back over the track, not remembered; the place test
/// against every place with the exact distance.
struct SuddenStopModel {
  struct Candidate {
    var stop: Fix
    var cruising: Double
    var needsRough: Bool
    var previousAway = false
    var confirmed = false
  }
  struct Person {
    var track: [Fix] = []
    /// The cruising reading into each fix of `track` (see `step`).
    var readings: [Double?] = []
    var candidate: Candidate?
    var lastRaised: Int64?
    var raised: [Candidate] = []
  }
  let places: [Geofence]
  let circlesOfPerson: [UserID: [CircleID]]?
  var people: [UserID: Person] = [:]
  var events: [SuddenStopEvent] = []

  static let cruising = 35 / 3.6

  func insidePlace(_ point: Coordinate, _ person: UserID) -> Bool {
    places.contains { place in
      if let circles = circlesOfPerson, !(circles[person] ?? []).contains(place.circle) { return false }
      return GreatCircle.distanceMeters(from: place.center, to: point) <= min(place.radiusMeters, 200) + 40
    }
  }

  mutating func event(
    _ person: UserID, _ outcome: SuddenStopEvent.Outcome, _ reasons: [SuddenStopEvent.Reason], _ c: Candidate,
    _ at: Int64
  ) {
    events.append(
      SuddenStopEvent(
        person: person, outcome: outcome, reasons: ReasonList(reasons),
        stopMilliseconds: c.stop.timeMilliseconds,
        coordinate: c.stop.coordinate, accuracyMeters: c.stop.horizontalAccuracyMeters,
        cruisingMetersPerSecond: c.cruising,
        decidedMilliseconds: at))
  }

  /// The agreed speed into track[i] when it is not loose.
  static func into(_ track: [Fix], _ i: Int) -> Double? {
    guard i >= 1, let pair = SpeedModel.agreed(track[i - 1], track[i]), !pair.loose else { return nil }
    return pair.speed
  }

  mutating func process(_ fixes: [Fix]) {
    for person in Set(fixes.map(\.user)).sorted() {
      var p = people[person] ?? Person()
      for fix in fixes.filter({ $0.user == person }).sorted(by: { $0.timeMilliseconds < $1.timeMilliseconds })
      {
        if fix.source == .heartbeat {
          settle(fix.timeMilliseconds, device: fix.device, person, &p)
          continue
        }
        guard fix.timeMilliseconds > (p.track.last?.timeMilliseconds ?? .min) else { continue }
        step(fix, person, &p)
      }
      people[person] = p
    }
  }

  mutating func advance(to now: Int64) {
    for person in people.keys.sorted() {
      var p = people[person]!
      settle(now, device: nil, person, &p)
      people[person] = p
    }
  }

  /// `now` on the server's clock (`device` nil) or a fix time of `device`,
  /// whose clock ends only the wait of a stop it sent.
  private mutating func settle(_ now: Int64, device: DeviceID?, _ person: UserID, _ p: inout Person) {
    guard let c = p.candidate, device == nil || device == c.stop.device,
      now - c.stop.timeMilliseconds >= 300_000
    else { return }
    p.candidate = nil
    let decided = c.stop.timeMilliseconds + 300_000
    if c.stop.speedMetersPerSecond == nil && !c.confirmed {
      event(person, .rejected, [.stillForFiveMinutes, .stopNotConfirmed], c, decided)
    } else if let last = p.lastRaised, decided - last < 3_600_000 {
      event(person, .rejected, [.stillForFiveMinutes, .onceAnHour], c, decided)
    } else {
      p.lastRaised = decided
      p.raised.append(c)
      event(person, .raised, [.cruisedThenStopped, .stillForFiveMinutes], c, decided)
    }
  }

  private mutating func step(_ fix: Fix, _ person: UserID, _ p: inout Person) {
    let t = fix.timeMilliseconds
    settle(t, device: fix.device, person, &p)
    if fix.horizontalAccuracyMeters <= 250 {
      var kept: [Candidate] = []
      for r in p.raised {
        guard t - r.stop.timeMilliseconds <= 24 * 3_600_000 else { continue }
        if GreatCircle.distanceMeters(from: r.stop.coordinate, to: fix.coordinate) > 300 {
          event(person, .cancelled, [.droveOn], r, t)
        } else {
          kept.append(r)
        }
      }
      p.raised = kept
    }
    // A stop fix without a speed, not confirmed, that this fix lies clearly
    // beyond (further than both accuracies + 50 m): the car was still going.
    var leftProvisional = false
    if var c = p.candidate {
      let distance = GreatCircle.distanceMeters(from: c.stop.coordinate, to: fix.coordinate)
      let away = distance > 50 + fix.horizontalAccuracyMeters
      // …or a sharper fix with a measured speed, away from it: a better
      // sighting of where the car is than the rough stop fix.
      leftProvisional =
        c.stop.speedMetersPerSecond == nil && !c.confirmed
        && (distance > 50 + fix.horizontalAccuracyMeters + c.stop.horizontalAccuracyMeters
          || (away && fix.speedMetersPerSecond != nil
            && fix.horizontalAccuracyMeters < c.stop.horizontalAccuracyMeters))
      if fix.horizontalAccuracyMeters <= 250 && distance > 300 {
        event(person, .rejected, [.movedWithinFiveMinutes, .droveOn], c, t)
        p.candidate = nil
      } else if (fix.speedMetersPerSecond ?? 0) > 1 || (away && c.previousAway) || leftProvisional {
        event(person, .rejected, [.movedWithinFiveMinutes], c, t)
        p.candidate = nil
      } else if c.needsRough && fix.horizontalAccuracyMeters <= 50 {
        event(person, .rejected, [.sharpFixAfterLongGap], c, t)
        p.candidate = nil
      } else {
        c.previousAway = away
        // Standing at the stop (issue 28 item 4): a measured speed, or the
        // position once a car still doing 35 km/h would have left the disc.
        let seconds = Double(t - c.stop.timeMilliseconds) / 1000
        c.confirmed =
          c.confirmed
          || (!away
            && (fix.speedMetersPerSecond != nil
              || (fix.horizontalAccuracyMeters <= 250
                && seconds * Self.cruising > 50 + fix.horizontalAccuracyMeters)))
        p.candidate = c
      }
    }
    p.track.append(fix)
    let track = p.track
    let i = track.count - 1
    // The cruising reading into each fix: the agreed pair into it, not loose;
    // none when the fix before it was a stray one (out and back, after a
    // cruising reading into it, the phone not cruising into the fix before
    // that: a car that drove in, turned back and stopped is no outlier),
    // whose pairs say nothing; nor is anything before a stray fix a cruise.
    let stray =
      i >= 2 && (p.readings[i - 1] ?? 0) >= Self.cruising && (p.readings[i - 2] ?? 0) < Self.cruising
      && SpeedModel.outAndBack(track[i - 2], track[i - 1], fix)
    p.readings.append(stray ? nil : Self.into(track, i))
    if stray { p.readings = p.readings.map { _ in nil } }
    guard i >= 1 else { return }
    let previous = track[i - 1]
    let stopped = fix.speedMetersPerSecond.map { $0 <= 1 } ?? true
    let live = t - previous.timeMilliseconds <= 1_500
    guard p.candidate == nil && stopped else { return }
    if let cruising = p.readings[i - 1], cruising >= Self.cruising {
      // Not when the cruising fix was a stray one, out and back.
      if !stray { consider(fix, after: previous, cruising: cruising, live: live, person, &p) }
      return
    }
    // The provisional stop said nothing: this fix is the first after the
    // last cruising fix that does (Live when every step since was).
    if leftProvisional, let j = (1..<i).last(where: { (p.readings[$0] ?? 0) >= Self.cruising }),
      t - track[j].timeMilliseconds <= 40_000
    {
      let everyStepLive = (j + 1...i).allSatisfy {
        track[$0].timeMilliseconds - track[$0 - 1].timeMilliseconds <= 1_500
      }
      consider(fix, after: track[j], cruising: p.readings[j] ?? 0, live: everyStepLive, person, &p)
      return
    }
    // Live: the last cruising fix, every step since at Live cadence.
    guard live, let j = (1..<i).last(where: { (p.readings[$0] ?? 0) >= Self.cruising }),
      (j + 1...i).allSatisfy({ track[$0].timeMilliseconds - track[$0 - 1].timeMilliseconds <= 1_500 }),
      t - track[j].timeMilliseconds <= 40_000
    else { return }
    consider(fix, after: track[j], cruising: p.readings[j] ?? 0, live: true, person, &p)
  }

  private mutating func consider(
    _ stop: Fix, after cruise: Fix, cruising: Double, live: Bool, _ person: UserID, _ p: inout Person
  ) {
    let gap = stop.timeMilliseconds - cruise.timeMilliseconds
    var c = Candidate(stop: stop, cruising: cruising, needsRough: gap > 40_000)
    // A stop fix without a speed standing where the cruising fix was, long
    // after a 35 km/h car would have left: its own position shows the stop.
    if stop.speedMetersPerSecond == nil {
      let disc = 50 + stop.horizontalAccuracyMeters
      c.confirmed =
        GreatCircle.distanceMeters(from: cruise.coordinate, to: stop.coordinate) <= disc
        && stop.horizontalAccuracyMeters <= 250 && Double(gap) / 1000 * Self.cruising > disc
    }
    if gap > 120_000 { return event(person, .rejected, [.nextFixTooLate], c, stop.timeMilliseconds) }
    if live && (cruising - (stop.speedMetersPerSecond ?? 0)) / (Double(gap) / 1000) < 4.5 {
      return event(person, .rejected, [.gentleStopOnLive], c, stop.timeMilliseconds)
    }
    if insidePlace(stop.coordinate, person) {
      return event(person, .rejected, [.insidePlace], c, stop.timeMilliseconds)
    }
    c.previousAway = false
    p.candidate = c
    event(person, .pending, [.cruisedThenStopped], c, stop.timeMilliseconds)
  }
}
