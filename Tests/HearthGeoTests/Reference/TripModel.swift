import Foundation

@testable import HearthGeo

/// A reference model of SPEC §7 (trips) with the choices docs/guides/trips.md
/// names, written from the rules rather than from the engine. It keeps only
/// what it was given (every fix with the call that brought it, every call's
/// clock and places) and decides everything again from the whole history at
/// every call: which fixes are considered (newer than the watermark, at
/// least the idle gap old), then one scan of the person's considered fixes
/// in time order for silences, stays and segments, then the trip criteria
/// and aggregates by plain loops over the points (exact great-circle
/// distances, every pair for the agreed speed, every place for a name). No
/// pending list, no open-segment buffer, no schedule of when to look again.
struct TripModel {
  // SPEC §7's numbers and the guide's choices, written out.
  static let idleGap: Int64 = 5 * 60_000
  static let splitGap: Int64 = 5 * 60_000
  static let dwellMeters = 100.0
  static let dwell: Int64 = 5 * 60_000
  static let journeySilence: Int64 = 45 * 60_000
  static let skipLooserThanMeters = 100.0
  /// "Moving" and "travelled through": 1 m/s (guide).
  static let moving = 1.0
  static let minimumPoints = 3
  static let minimumDuration: Int64 = 2 * 60_000
  static let minimumPathMeters = 250.0
  static let minimumDisplacementMeters = 150.0
  static let stoppedNotice: Int64 = 30 * 60_000
  static let placeAtCapMeters = 1_000.0

  struct Call {
    var now: Int64
    var places: [Geofence]
  }

  let circlesOfPerson: [UserID: [CircleID]]
  private(set) var places: [Geofence]
  private(set) var calls: [Call] = []
  /// Every fix offered, in the order offered, with the call that brought it.
  private(set) var offered: [(fix: Fix, call: Int)] = []

  init(places: [Geofence], circlesOfPerson: [UserID: [CircleID]]) {
    self.places = places
    self.circlesOfPerson = circlesOfPerson
  }

  mutating func upload(_ fixes: [Fix], now: Int64) {
    for fix in fixes { offered.append((fix, calls.count)) }
    calls.append(Call(now: now, places: places))
  }

  mutating func tick(_ now: Int64) { calls.append(Call(now: now, places: places)) }

  /// The places from the next call on.
  mutating func edit(_ places: [Geofence]) { self.places = places }

  var people: [UserID] { Set(offered.map(\.fix.user)).sorted() }

  /// The places `person` sees among `places`.
  func visible(_ places: [Geofence], _ person: UserID) -> [Geofence] {
    let circles = circlesOfPerson[person] ?? []
    return places.filter { circles.contains($0.circle) }
  }

  /// The smallest visible place holding `point` (ties: the one listed first).
  func namedPlace(_ point: Coordinate, _ person: UserID, _ places: [Geofence]) -> PlaceID? {
    var best: Geofence?
    for place in visible(places, person)
    where GreatCircle.distanceMeters(from: place.center, to: point) <= place.radiusMeters {
      if best.map({ place.radiusMeters < $0.radiusMeters }) ?? true { best = place }
    }
    return best?.id
  }

  // MARK: What was decided

  /// What one call closed for one person, and the counts after it.
  struct Closed {
    var segments: [Segment] = []
    var stays: [TripStay] = []
  }

  /// Everything decided for one person, call by call.
  struct Decided {
    /// Per call (the order of `calls`): the segments and stays it closed.
    var perCall: [Closed] = []
    var droppedLate = 0
    var skipped = 0
    /// A second fix at a millisecond already taken (the first one received stays).
    var duplicates = 0
    var considered = 0
    var offered = 0
  }

  /// Replays the whole history for `person`: at each call, the fixes it
  /// brought are accepted or not (late: at or before the watermark, the
  /// newest considered fix; skipped; a second fix at the same millisecond),
  /// those at least the idle gap old by the call's clock are considered,
  /// and the person's considered fixes are scanned again from the first.
  /// What the scan closed beyond the previous call's scan is what the call
  /// closed. The considered fixes only ever grow at their newest end (each
  /// is newer than the watermark), so the scans extend each other.
  func decided(_ person: UserID) -> Decided {
    var result = Decided()
    var watermark = Int64.min
    /// Accepted fixes by time, and the call at which each was considered.
    var accepted: [Int64: Fix] = [:]
    var consideredAt: [Int64: Int] = [:]
    /// Segments the clock closed: the time of their last fix → the call.
    var closedByClock: [Int64: Int] = [:]
    var before = (segments: 0, stays: 0)
    var byCall = [[Fix]](repeating: [], count: calls.count)
    for (fix, call) in offered where fix.user == person { byCall[call].append(fix) }
    var history = Scan()
    var scanned = (considered: -1, closedByClock: -1)
    for k in calls.indices {
      for fix in byCall[k] {
        result.offered += 1
        if fix.timeMilliseconds <= watermark {
          result.droppedLate += 1
        } else if fix.source == .heartbeat || fix.horizontalAccuracyMeters > Self.skipLooserThanMeters {
          result.skipped += 1
        } else if accepted[fix.timeMilliseconds] != nil {
          result.duplicates += 1
        } else {
          accepted[fix.timeMilliseconds] = fix
        }
      }
      let now = calls[k].now
      for t in accepted.keys where t <= now - Self.idleGap && consideredAt[t] == nil { consideredAt[t] = k }
      let considered = accepted.values.filter { consideredAt[$0.timeMilliseconds] != nil }
        .sorted { $0.timeMilliseconds < $1.timeMilliseconds }
      watermark = max(watermark, considered.last?.timeMilliseconds ?? .min)
      // (A scan depends only on the considered fixes and the clock's closes.)
      if scanned != (considered.count, closedByClock.count) {
        history = scan(considered, consideredAt, closedByClock, person)
        scanned = (considered.count, closedByClock.count)
      }
      if let last = considered.last, let first = history.openSegment,
        closesByClock(considered, segmentFrom: first, now: now, places: calls[k].places, person)
      {
        closedByClock[last.timeMilliseconds] = k
        history = scan(considered, consideredAt, closedByClock, person)
        scanned = (considered.count, closedByClock.count)
      }
      result.perCall.append(
        Closed(
          segments: Array(history.segments[before.segments...]), stays: Array(history.stays[before.stays...]))
      )
      before = (history.segments.count, history.stays.count)
    }
    result.considered = consideredAt.count
    return result
  }

  // MARK: The rules

  /// The guide's moving step: either fix measured at least 1 m/s, or the
  /// ground between them beyond both accuracies allows 1 m/s.
  static func moving(_ a: Fix, _ b: Fix) -> Bool {
    if (a.speedMetersPerSecond ?? 0) >= moving || (b.speedMetersPerSecond ?? 0) >= moving { return true }
    let seconds = Double(b.timeMilliseconds - a.timeMilliseconds) / 1000
    guard seconds > 0 else { return false }
    func off(_ accuracy: Double) -> Double { accuracy.isFinite && accuracy > 0 ? accuracy : 0 }
    let ground =
      GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate) - off(a.horizontalAccuracyMeters)
      - off(b.horizontalAccuracyMeters)
    return ground / seconds >= moving
  }

  /// Whether the phone was moving at fix `i` of `fixes`: its measured speed,
  /// or when unmeasured the agreed speed from the fix before it when that
  /// one is in the same segment (from fix `first` on; the guide's choice: a
  /// pair across a silence that split says nothing of the speed at `i`).
  static func movingAt(_ i: Int, _ fixes: [Fix], segmentFrom first: Int) -> Bool {
    if let speed = fixes[i].speedMetersPerSecond { return speed >= moving }
    guard i > first, let agreed = SpeedModel.agreed(fixes[i - 1], fixes[i]) else { return false }
    return agreed.speed >= moving
  }

  /// Whether the silence before fix `j` (over the split gap) does not split:
  /// up to 45 min, and a journey (from one named place to another) or
  /// travelled through (moving before it, 1 m/s or more across it).
  func continues(_ fixes: [Fix], _ j: Int, segmentFrom first: Int, places: [Geofence], _ person: UserID)
    -> Bool
  {
    let (a, b) = (fixes[j - 1], fixes[j])
    let silence = b.timeMilliseconds - a.timeMilliseconds
    guard silence <= Self.journeySilence else { return false }
    if let from = namedPlace(a.coordinate, person, places), let to = namedPlace(b.coordinate, person, places),
      from != to
    {
      return true
    }
    let across = GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate) / (Double(silence) / 1000)
    return Self.movingAt(j - 1, fixes, segmentFrom: first) && across >= Self.moving
  }

  /// Whether, at `now`, nothing considered later could continue the open
  /// segment ending at the last fix: the silence since is over the split gap
  /// (counted from the idle-gap frontier) and either over the journey
  /// silence, or the last fix was neither moving nor at a named place.
  func closesByClock(
    _ fixes: [Fix], segmentFrom first: Int, now: Int64, places: [Geofence], _ person: UserID
  ) -> Bool {
    guard let last = fixes.last else { return false }
    let idle = now - Self.idleGap - last.timeMilliseconds
    guard idle > Self.splitGap else { return false }
    if idle > Self.journeySilence { return true }
    return
      !(Self.movingAt(fixes.count - 1, fixes, segmentFrom: first)
      || namedPlace(last.coordinate, person, places) != nil)
  }

  /// The segments and stays of a person's considered fixes (time order).
  struct Scan {
    var segments: [Segment] = []
    var stays: [TripStay] = []
    /// The first fix of the segment open after the last fix (not staying,
    /// not closed by the clock); nil: none.
    var openSegment: Int?
  }

  /// One pass over the considered fixes. A silence over 5 min that does not
  /// continue ends the open segment (`.gap`); the sliding anchor finds a
  /// stay (within 100 m of its first fix for over 5 min), which ends the
  /// segment (`.dwell`) at the first fix from the anchor on whose next step
  /// is not moving; a stay lasts until a fix is over 100 m from its anchor,
  /// across any silence, and the next segment starts at its last
  /// stationary fix (a moving run inside the disc over 5 min is staying).
  /// Segments the clock closed end after their last fix.
  func scan(
    _ fixes: [Fix], _ consideredAt: [Int64: Int], _ closedByClock: [Int64: Int], _ person: UserID
  ) -> Scan {
    var out = Scan()
    var closedCount: UInt32 = 0
    func placesWhenConsidered(_ j: Int) -> [Geofence] {
      calls[consideredAt[fixes[j].timeMilliseconds] ?? 0].places
    }
    /// The first fix from `anchor` on whose next step is not moving (at most `last`).
    func stop(from anchor: Int, through last: Int) -> Int {
      var e = anchor
      while e < last && Self.moving(fixes[e], fixes[e + 1]) { e += 1 }
      return e
    }
    func close(_ first: Int, _ last: Int, _ end: TripEnd, places: [Geofence]) {
      guard last > first else { return }
      // Stray fixes left out: out and back between the last kept fix and the
      // next, without a measured speed, both legs at least 35 km/h on the ground.
      var points: [Fix] = []
      for k in first...last {
        if k > first && k < last, let before = points.last {
          let (middle, after) = (fixes[k], fixes[k + 1])
          func fast(_ a: Fix, _ b: Fix) -> Bool {
            GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate)
              >= 35 / 3.6 * Double(b.timeMilliseconds - a.timeMilliseconds) / 1000
          }
          // (Not when the phone was already driving into `before`: a turn back.)
          let driving = points.count >= 2 && fast(points[points.count - 2], before)
          if SpeedModel.outAndBack(before, middle, after) && fast(before, middle) && fast(middle, after)
            && !driving
          {
            continue
          }
        }
        points.append(fixes[k])
      }
      closedCount += 1
      out.segments.append(
        segment(points, id: UInt64(person.rawValue) << 32 | UInt64(closedCount), end, places, person))
    }
    // The open segment's first fix and the anchor of the possible stay; nil: none open.
    var start: Int?
    var anchor = 0
    // Staying: the stay's anchor, the fix where it stopped, and where it last stood still.
    var stay: (anchor: Int, stop: Int, still: Int)?
    func leave(_ s: (anchor: Int, stop: Int, still: Int)) {
      let begin = fixes[s.stop]
      out.stays.append(
        TripStay(
          person: person, startMilliseconds: begin.timeMilliseconds,
          endMilliseconds: max(begin.timeMilliseconds, fixes[s.still].timeMilliseconds),
          coordinate: begin.coordinate))
    }
    for j in fixes.indices {
      let fix = fixes[j]
      // A journey (a silence over 5 min, up to 45, from a named place to
      // another) starts at the last fix at the origin: the fixes before the
      // run of fixes at the origin are a segment of their own, closed at the
      // run's first fix (not while staying).
      if j > 0, stay == nil, let first = start,
        fix.timeMilliseconds - fixes[j - 1].timeMilliseconds > Self.splitGap,
        fix.timeMilliseconds - fixes[j - 1].timeMilliseconds <= Self.journeySilence,
        let from = namedPlace(fixes[j - 1].coordinate, person, placesWhenConsidered(j)),
        let to = namedPlace(fix.coordinate, person, placesWhenConsidered(j)), from != to
      {
        var runStart = j - 1
        while runStart > first
          && namedPlace(fixes[runStart - 1].coordinate, person, placesWhenConsidered(j)) == from
        {
          runStart -= 1
        }
        close(first, runStart, .gap, places: placesWhenConsidered(j))
        start = j - 1
        anchor = j - 1
      }
      if j == 0 || (start == nil && stay == nil) {
        start = j
        anchor = j
      } else if fix.timeMilliseconds - fixes[j - 1].timeMilliseconds > Self.splitGap,
        !continues(
          fixes, j, segmentFrom: stay?.still ?? start ?? j - 1, places: placesWhenConsidered(j), person)
      {
        if let s = stay {
          if GreatCircle.distanceMeters(from: fixes[s.anchor].coordinate, to: fix.coordinate)
            <= Self.dwellMeters
          {
            stay?.still = j
            continue
          }
          leave(s)
          stay = nil
        } else if let first = start {
          close(first, stop(from: anchor, through: j - 1), .gap, places: placesWhenConsidered(j))
        }
        start = j
        anchor = j
      } else if let s = stay {
        if GreatCircle.distanceMeters(from: fixes[s.anchor].coordinate, to: fix.coordinate)
          <= Self.dwellMeters
        {
          if !(Self.moving(fixes[j - 1], fix)
            && fix.timeMilliseconds - fixes[s.still].timeMilliseconds <= Self.dwell)
          {
            stay?.still = j
          }
          continue
        }
        leave(s)
        stay = nil
        start = s.still
        anchor = j
      } else if GreatCircle.distanceMeters(from: fixes[anchor].coordinate, to: fix.coordinate)
        > Self.dwellMeters
      {
        anchor = j
      } else if fix.timeMilliseconds - fixes[anchor].timeMilliseconds > Self.dwell, let first = start {
        let stopped = stop(from: anchor, through: j)
        close(first, stopped, .dwell, places: placesWhenConsidered(j))
        var still = j
        while still > anchor && Self.moving(fixes[still - 1], fixes[still]) { still -= 1 }
        stay = (anchor, stopped, still)
        start = nil
      }
      if let call = closedByClock[fix.timeMilliseconds], stay == nil, let first = start {
        close(first, stop(from: anchor, through: j), .gap, places: calls[call].places)
        start = nil
      }
    }
    out.openSegment = stay == nil ? start : nil
    return out
  }

  /// A closed segment as the model sees it: its points, verdict and
  /// aggregates (compared with the engine's `TripSegment` field by field,
  /// distances to a micrometre: the engine sums vectorised steps).
  struct Segment {
    var id: UInt64
    var person: UserID
    var isTrip: Bool
    var reasons: [TripReason]
    var endedBy: TripEnd
    var fixes: [Fix]
    var startPlace: PlaceID?
    var endPlace: PlaceID?
    var pathMeters: Double
    var displacementMeters: Double
    var maxAgreedSpeedMetersPerSecond: Double?
    var averageSpeedMetersPerSecond: Double
    var startMilliseconds: Int64 { fixes[0].timeMilliseconds }
    var endMilliseconds: Int64 { fixes[fixes.count - 1].timeMilliseconds }
  }

  /// A closed segment with its verdict and aggregates (SPEC §7 by plain
  /// loops): the path as the sum of the steps, the farthest point from the
  /// first, the fastest agreed speed of any neighbouring pair that is not
  /// loose (§4, the speed alert's rule), path over duration.
  func segment(_ points: [Fix], id: UInt64, _ end: TripEnd, _ places: [Geofence], _ person: UserID) -> Segment
  {
    var path = 0.0
    var farthest = 0.0
    var fastest: Double?
    for i in points.indices.dropFirst() {
      path += GreatCircle.distanceMeters(from: points[i - 1].coordinate, to: points[i].coordinate)
      farthest = max(
        farthest, GreatCircle.distanceMeters(from: points[0].coordinate, to: points[i].coordinate))
      if let v = SpeedModel.agreed(points[i - 1], points[i]), !v.loose {
        fastest = max(fastest ?? v.speed, v.speed)
      }
    }
    let duration = points[points.count - 1].timeMilliseconds - points[0].timeMilliseconds
    var reasons: [TripReason] = []
    if points.count < Self.minimumPoints { reasons.append(.tooFewPoints) }
    if duration < Self.minimumDuration { reasons.append(.tooShortInTime) }
    if path < Self.minimumPathMeters { reasons.append(.tooShortInPath) }
    if farthest < Self.minimumDisplacementMeters { reasons.append(.tooLittleDisplacement) }
    let valid = reasons.isEmpty
    if valid { reasons = [.valid] }
    let from = namedPlace(points[0].coordinate, person, places)
    let to = namedPlace(points[points.count - 1].coordinate, person, places)
    let journey = from != nil && to != nil && from != to
    if journey { reasons.append(.journeyBetweenNamedPlaces) }
    return Segment(
      id: id, person: person, isTrip: valid || journey, reasons: reasons, endedBy: end, fixes: points,
      startPlace: from, endPlace: to, pathMeters: path, displacementMeters: farthest,
      maxAgreedSpeedMetersPerSecond: fastest,
      averageSpeedMetersPerSecond: duration > 0 ? path / (Double(duration) / 1000) : 0)
  }

  /// What differs between the engine's segment and the model's, or nil.
  static func difference(_ e: TripSegment, _ m: Segment) -> String? {
    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(1, abs(a), abs(b)) }
    var out: [String] = []
    if e.id != m.id { out.append("id") }
    if e.person != m.person { out.append("person") }
    if e.isTrip != m.isTrip || Array(e.reasons) != m.reasons { out.append("verdict") }
    if e.endedBy != m.endedBy { out.append("ended by") }
    if e.fixes != m.fixes { out.append("points") }
    if e.startPlace != m.startPlace || e.endPlace != m.endPlace { out.append("places") }
    let s = e.summary
    if s.startMilliseconds != m.startMilliseconds || s.endMilliseconds != m.endMilliseconds
      || s.start != m.fixes[0].coordinate || s.end != m.fixes[m.fixes.count - 1].coordinate
    {
      out.append("endpoints")
    }
    if !near(s.pathMeters, m.pathMeters) { out.append("path") }
    if !near(s.displacementMeters, m.displacementMeters) { out.append("displacement") }
    if !near(s.averageSpeedMetersPerSecond, m.averageSpeedMetersPerSecond) { out.append("average speed") }
    switch (s.maxAgreedSpeedMetersPerSecond, m.maxAgreedSpeedMetersPerSecond) {
    case (nil, nil): break
    case (let a?, let b?) where near(a, b): break
    default: out.append("agreed max speed")
    }
    return out.isEmpty ? nil : out.joined(separator: ", ")
  }

  // MARK: Names and notices

  /// SPEC §3 placeAt over the `places` `person` sees (a person not in
  /// `circlesOfPerson` sees them all; listed order breaks ties): the
  /// smallest place holding the point, else the nearest centre among places
  /// whose edge is within 1 km; with the distance to its centre.
  static func placeAt(
    _ point: Coordinate, _ places: [Geofence], person: UserID, circlesOfPerson: [UserID: [CircleID]]
  ) -> (place: PlaceID, meters: Double)? {
    var inside: (Geofence, Double)?
    var nearest: (Geofence, Double)?
    for place in places where circlesOfPerson[person].map({ $0.contains(place.circle) }) ?? true {
      let d = GreatCircle.distanceMeters(from: place.center, to: point)
      if d <= place.radiusMeters, inside.map({ place.radiusMeters < $0.0.radiusMeters }) ?? true {
        inside = (place, d)
      }
      if d - place.radiusMeters <= placeAtCapMeters, nearest.map({ d < $0.1 }) ?? true {
        nearest = (place, d)
      }
    }
    return (inside ?? nearest).map { ($0.0.id, $0.1) }
  }

  /// SPEC §7 names: the first departure during the trip (else placeAt of
  /// the start, with its distance), the last arrival during it not left
  /// again; only events that were said (announced or to the feed) count.
  static func ends(
    of trip: TripSegment, events: [GeofenceEvent], places: [Geofence], circlesOfPerson: [UserID: [CircleID]]
  ) -> TripNaming.Ends {
    let said = events.filter {
      $0.person == trip.person && ($0.outcome == .announced || $0.outcome == .feedOnly)
        && $0.eventMilliseconds >= trip.summary.startMilliseconds
        && $0.eventMilliseconds <= trip.summary.endMilliseconds
    }
    var ends = TripNaming.Ends()
    var firstDeparture: GeofenceEvent?
    for e in said where e.kind == .departure {
      if firstDeparture.map({ e.eventMilliseconds < $0.eventMilliseconds }) ?? true { firstDeparture = e }
    }
    if let d = firstDeparture {
      ends.from = d.place
      ends.fromSource = .fence
    } else if let p = placeAt(
      trip.summary.start, places, person: trip.person, circlesOfPerson: circlesOfPerson)
    {
      ends.from = p.place
      ends.fromSource = .placeAt
      ends.fromDistanceMeters = p.meters
    }
    var lastArrival: GeofenceEvent?
    for a in said where a.kind == .arrival {
      let leftAgain = said.contains {
        $0.kind == .departure && $0.place == a.place && $0.eventMilliseconds > a.eventMilliseconds
      }
      if !leftAgain, lastArrival.map({ a.eventMilliseconds >= $0.eventMilliseconds }) ?? true {
        lastArrival = a
      }
    }
    ends.to = lastArrival?.place
    ends.toSource = lastArrival == nil ? nil : .fence
    return ends
  }

  /// SPEC §7: feed-only at a named end; elsewhere "stopped X km from" the
  /// place with the nearest centre up to 30 min after the end; else nothing.
  static func notice(for trip: TripSegment, ends: TripNaming.Ends, places: [Geofence], now: Int64)
    -> TripNaming.Notice
  {
    if let to = ends.to { return .feedOnly(place: to) }
    guard now - trip.summary.endMilliseconds <= stoppedNotice else { return .nothing }
    var best: (Double, PlaceID)?
    for place in places {
      let d = GreatCircle.distanceMeters(from: place.center, to: trip.summary.end)
      if best.map({ (d, place.id) < $0 }) ?? true { best = (d, place.id) }
    }
    return best.map { .stoppedNear(place: $0.1, meters: $0.0) } ?? .nothing
  }

  // MARK: Printing

  static func describe(_ s: TripSegment) -> String {
    describe(
      Segment(
        id: s.id, person: s.person, isTrip: s.isTrip, reasons: Array(s.reasons), endedBy: s.endedBy,
        fixes: s.fixes,
        startPlace: s.startPlace, endPlace: s.endPlace, pathMeters: s.summary.pathMeters,
        displacementMeters: s.summary.displacementMeters,
        maxAgreedSpeedMetersPerSecond: s.summary.maxAgreedSpeedMetersPerSecond,
        averageSpeedMetersPerSecond: s.summary.averageSpeedMetersPerSecond))
  }

  static func describe(_ s: Segment) -> String {
    String(
      format:
        "segment %u.%u %.3f…%.3f s %@ %@ %d fixes path %.2f m disp %.2f m max %@ m/s places %@→%@ ended by %@",
      UInt32(s.id >> 32), UInt32(s.id & 0xFFFF_FFFF),
      Double(s.startMilliseconds - ServerScenario.t0) / 1000,
      Double(s.endMilliseconds - ServerScenario.t0) / 1000,
      s.isTrip ? "TRIP" : "not a trip", s.reasons.map(\.rawValue).joined(separator: ","), s.fixes.count,
      s.pathMeters, s.displacementMeters,
      s.maxAgreedSpeedMetersPerSecond.map { String(format: "%.3f", $0) } ?? "-",
      s.startPlace.map { "\($0.rawValue)" } ?? "-", s.endPlace.map { "\($0.rawValue)" } ?? "-",
      s.endedBy.rawValue)
  }

  static func describe(_ s: TripStay) -> String {
    let (e, n) = ServerScenario.local(s.coordinate)
    return String(
      format: "stay p%u %.3f…%.3f s at (%.1f E, %.1f N)", s.person.rawValue,
      Double(s.startMilliseconds - ServerScenario.t0) / 1000,
      Double(s.endMilliseconds - ServerScenario.t0) / 1000, e, n)
  }
}
