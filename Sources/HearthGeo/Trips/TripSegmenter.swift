/// A segment of one person's fixes that was closed, with its verdict.
/// `isTrip` segments are trips: their points carry `id`.
public struct TripSegment: Sendable, Hashable, Codable {
  /// Unique per person: person << 32 | the person's segment number (from 1).
  public var id: UInt64
  public var person: UserID
  public var isTrip: Bool
  /// `.valid` or `.journeyBetweenNamedPlaces` for a trip; otherwise every
  /// threshold that failed.
  public var reasons: [TripReason]
  public var endedBy: TripEnd
  /// The points, in time order (heartbeats and network estimates left out).
  public var fixes: [Fix]
  /// Named places holding the first and last point (smallest; nil: none).
  /// The journey rule uses these; `TripNaming` names the ends for people.
  public var startPlace: PlaceID?
  public var endPlace: PlaceID?
  public var summary: TripSummary
}

/// A stay: the phone stayed within the dwell radius of its first fix for
/// longer than the dwell time, then left. From that first fix (where the
/// trip before ended) to the last fix inside (where the next one starts).
/// A stay the phone has not left yet is not reported.
public struct TripStay: Sendable, Hashable, Codable {
  public var person: UserID
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  /// The stay's first fix.
  public var coordinate: Coordinate
}

/// What a call closed: segments (trips or not) and stays, each in the order closed.
public struct TripOutput: Sendable, Hashable {
  public var segments: [TripSegment] = []
  public var stays: [TripStay] = []

  public init() {}

  public static func += (a: inout TripOutput, b: TripOutput) {
    a.segments += b.segments
    a.stays += b.stays
  }
}

/// Aggregates of a segment (SPEC §7).
public struct TripSummary: Sendable, Hashable, Codable {
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  public var start: Coordinate
  public var end: Coordinate
  /// Sum of the great-circle steps between the points, m.
  public var pathMeters: Double
  /// The farthest any point got from the first one, m.
  public var displacementMeters: Double
  /// The fastest pair agreement (`AgreedSpeed`, as the speed alert uses), m/s; nil: none.
  public var maxAgreedSpeedMetersPerSecond: Double?
  /// Path over duration, m/s (0 for a zero-length segment).
  public var averageSpeedMetersPerSecond: Double
  public var durationMilliseconds: Int64 { endMilliseconds - startMilliseconds }

  /// The aggregates of `fixes` (time order, at least one). O(n): one
  /// vectorised pass for the steps and one for the distances from the start.
  public init(_ fixes: [Fix], rules: AgreedSpeedRules = AgreedSpeedRules()) {
    startMilliseconds = fixes.first!.timeMilliseconds
    endMilliseconds = fixes.last!.timeMilliseconds
    start = fixes.first!.coordinate
    end = fixes.last!.coordinate
    let latitudes = fixes.map(\.latitudeDegrees)
    let longitudes = fixes.map(\.longitudeDegrees)
    var steps: [Double] = []
    var cumulative: [Double] = []
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: latitudes, longitudesDegrees: longitudes, steps: &steps, cumulative: &cumulative)
    pathMeters = cumulative.last ?? 0
    // The fastest neighbour agreement: `AgreedSpeed.stretch` on the steps
    // already measured (bit-identical distances).
    var fastest: Double?
    for i in fixes.indices.dropFirst() {
      let (a, b) = (fixes[i - 1], fixes[i])
      if let v = AgreedSpeed.pair(
        intervalMilliseconds: b.timeMilliseconds - a.timeMilliseconds, distanceMeters: steps[i],
        a.horizontalAccuracyMeters, a.speedMetersPerSecond, b.horizontalAccuracyMeters,
        b.speedMetersPerSecond,
        rules: rules)?.metersPerSecond, v > fastest ?? -.infinity
      {
        fastest = v
      }
    }
    maxAgreedSpeedMetersPerSecond = fastest
    var farthest = 0.0
    GreatCircle.distancesMeters(
      from: start, toLatitudesDegrees: latitudes, longitudesDegrees: longitudes, into: &steps)
    for d in steps where d > farthest { farthest = d }
    displacementMeters = farthest
    let seconds = Double(endMilliseconds - startMilliseconds) / 1000
    averageSpeedMetersPerSecond = seconds > 0 ? pathMeters / seconds : 0
  }
}

/// Everything the segmenter remembers between calls (`Codable`).
public struct TripSegmenterState: Sendable, Hashable, Codable {
  struct Person: Sendable, Hashable, Codable {
    /// Fixes received but not yet considered (newer than the watermark, not
    /// yet idle-gap old), time order.
    var pending: [Fix] = []
    /// Everything at or before this was considered; later arrivals that old are dropped.
    var watermark = Int64.min
    /// The open segment.
    var segment: [Fix] = []
    /// Index in `segment` of the first fix of the current possible stay.
    var anchor = 0
    /// Dwelling: the stay's first fix (the segment then holds its latest fix only).
    var dwellAnchor: Fix?
    var segmentsClosed: UInt32 = 0

    /// The open segment becomes `fix` alone (its storage is kept: no
    /// allocation per fix while the phone stays put).
    mutating func restart(at fix: Fix) {
      segment.removeAll(keepingCapacity: true)
      segment.append(fix)
      anchor = 0
    }
    var droppedLate = 0
    var skipped = 0
  }
  var people: [UInt32: Person] = [:]

  public init() {}

  /// Fixes that arrived after their time had already been considered, per person.
  public func droppedLate(_ person: UserID) -> Int { people[person.rawValue]?.droppedLate ?? 0 }
  /// Heartbeats and network estimates skipped, per person.
  public func skipped(_ person: UserID) -> Int { people[person.rawValue]?.skipped ?? 0 }
}

/// SPEC §7 trip segmentation, incremental per person.
///
/// Fixes are considered once they are older than the idle gap (5 min) and
/// newer than the person's watermark, in time order, so a batch and the same
/// fixes in any number of calls give the same segments. Heartbeats and fixes
/// looser than 100 m (network estimates) are skipped. A segment splits on a
/// silence over 5 min that the phone did not travel through, and where the
/// phone stays within 100 m of a stay's first fix for more than 5 min (the
/// trip ends at that first fix; the next starts at the stay's last fix). A
/// silence up to 45 min from a fix at one named place to a fix inside
/// another is a journey, and a journey is a trip whatever its length.
/// - Complexity: O(1) amortised per fix, plus O(n) aggregates per closed
///   segment and O(places near a point) per named-place check.
public struct TripSegmenter: Sendable {
  public let rules: TripRules
  public let places: GeofenceIndex?
  public let circlesOfPerson: [UserID: [CircleID]]?

  /// `places`: named places (`Geofence.circle` says whose); `circlesOfPerson`:
  /// each person's circles (nil: every place counts for everyone).
  public init(
    places: [Geofence] = [], circlesOfPerson: [UserID: [CircleID]]? = nil, rules: TripRules = TripRules()
  ) {
    self.rules = rules
    self.places = places.isEmpty ? nil : GeofenceIndex(places: places)
    self.circlesOfPerson = circlesOfPerson
  }

  /// Takes a batch (any people, any order), then considers the batch's
  /// people's fixes older than `now` − idle gap (`advance` does everyone).
  /// Returns the segments and stays closed.
  public func process(_ fixes: FixColumns, now: Int64, state: inout TripSegmenterState) -> TripOutput {
    // Sorted by person (each person one run, ids ascending), a person's
    // fixes are taken and advanced in one visit of their state; otherwise
    // all are taken first and the people advanced afterwards, in id order.
    var previous: UInt32?
    var sortedByPerson = true
    fixes.forEachPersonRun { user, _ in
      if let p = previous, p >= user.rawValue { sortedByPerson = false }
      previous = user.rawValue
    }
    var closed = TripOutput()
    var people = Set<UInt32>()
    fixes.forEachPersonRun { user, run in
      if !sortedByPerson { people.insert(user.rawValue) }
      take(
        fixes, run, now: now, advancing: sortedByPerson, user.rawValue,
        &state.people[user.rawValue, default: .init()], &closed)
    }
    if !sortedByPerson { closed += advance(to: now, people: people.sorted(), state: &state) }
    return closed
  }

  /// One person's run of a batch into their pending fixes (late ones,
  /// heartbeats and network estimates counted and left out), then, when
  /// `advancing`, the advance to `now`.
  private func take(
    _ fixes: FixColumns, _ run: Range<Int>, now: Int64, advancing: Bool, _ key: UInt32,
    _ person: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    for i in run {
      if fixes.timeMilliseconds[i] <= person.watermark {
        person.droppedLate += 1
      } else if fixes.source[i] == .heartbeat
        || fixes.horizontalAccuracyMeters[i] > rules.skipAccuracyAboveMeters
      {
        // (An unknown accuracy, NaN, is no sign of a network estimate: kept.)
        person.skipped += 1
      } else {
        insert(fixes[i], into: &person.pending)
      }
    }
    if advancing { advance(to: now, key, &person, &closed) }
  }

  /// Considers every pending fix older than `now` − idle gap and closes
  /// segments nothing can continue any more. People in ascending id order.
  public func advance(to now: Int64, state: inout TripSegmenterState) -> TripOutput {
    advance(to: now, people: state.people.keys.sorted(), state: &state)
  }

  private func advance(to now: Int64, people: [UInt32], state: inout TripSegmenterState) -> TripOutput {
    var closed = TripOutput()
    for key in people {
      var person = state.people.removeValue(forKey: key)!
      advance(to: now, key, &person, &closed)
      state.people[key] = person
    }
    return closed
  }

  /// One person's pending fixes older than `now` − idle gap, then the idle check.
  private func advance(
    to now: Int64, _ key: UInt32, _ person: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    let frontier = now - rules.idleGapMilliseconds
    let ready = person.pending.prefix { $0.timeMilliseconds <= frontier }.count
    if ready > 0 {
      for fix in person.pending[..<ready] { consume(fix, UserID(key), &person, &closed) }
      person.watermark = person.pending[ready - 1].timeMilliseconds
      person.pending.removeFirst(ready)
    }
    closeIfIdle(now: now, UserID(key), &person, &closed)
  }

  // MARK: The rules

  private func insert(_ fix: Fix, into pending: inout [Fix]) {
    // Usually in order: append; otherwise find the place (same time: the
    // first one received stays, the later one is a duplicate).
    if let last = pending.last, fix.timeMilliseconds <= last.timeMilliseconds {
      var i = pending.count
      while i > 0 && pending[i - 1].timeMilliseconds > fix.timeMilliseconds { i -= 1 }
      if i > 0 && pending[i - 1].timeMilliseconds == fix.timeMilliseconds { return }
      pending.insert(fix, at: i)
    } else {
      pending.append(fix)
    }
  }

  /// The smallest named place of the person's circles holding `point`.
  func namedPlace(_ point: Coordinate, _ person: UserID) -> PlaceID? {
    guard let places else { return nil }
    let circles = circlesOfPerson.map { $0[person] ?? [] }
    var found: PlaceID?
    places.forEachContaining(point) { i in
      guard found == nil else { return }
      if let circles, !circles.contains(places.places[i].circle) { return }
      found = places.places[i].id
    }
    return found
  }

  /// Whether the fix before a silence was moving (its own speed, or the
  /// agreed speed from the fix before it).
  private func moving(_ segment: [Fix]) -> Bool {
    guard let last = segment.last else { return false }
    if let speed = last.speedMetersPerSecond { return speed >= rules.travelledThroughMetersPerSecond }
    guard segment.count >= 2,
      let agreed = AgreedSpeed.pair(segment[segment.count - 2], last, rules: rules.agreed)?.metersPerSecond
    else { return false }
    return agreed >= rules.travelledThroughMetersPerSecond
  }

  private func consume(
    _ fix: Fix, _ person: UserID, _ s: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    guard let last = s.segment.last else {
      s.restart(at: fix)
      return
    }
    let gap = fix.timeMilliseconds - last.timeMilliseconds
    if gap > rules.splitGapMilliseconds {
      let continues: Bool
      if gap > rules.journeySilenceMilliseconds {
        continues = false
      } else if let from = namedPlace(last.coordinate, person), let to = namedPlace(fix.coordinate, person),
        from != to
      {
        continues = true  // a journey between two named places
      } else {
        let across =
          GreatCircle.distanceMeters(from: last.coordinate, to: fix.coordinate) / (Double(gap) / 1000)
        continues = moving(s.segment) && across >= rules.travelledThroughMetersPerSecond
      }
      if !continues {
        if s.dwellAnchor == nil {
          // Back within the stay that had begun before the silence: a dwell.
          let stay = s.segment[s.anchor]
          let back =
            GreatCircle.distanceMeters(from: stay.coordinate, to: fix.coordinate) <= rules.dwellRadiusMeters
          endAtStay(&s)
          close(&s, person, back ? .dwell : .gap, &closed)
          if back {
            s.dwellAnchor = stay
          }
        }
        if let stay = s.dwellAnchor,
          GreatCircle.distanceMeters(from: stay.coordinate, to: fix.coordinate) > rules.dwellRadiusMeters
        {
          leave(stay, &s, person, &closed)
        }
        s.restart(at: fix)
        return
      }
    }
    if let stay = s.dwellAnchor {
      if GreatCircle.distanceMeters(from: stay.coordinate, to: fix.coordinate) <= rules.dwellRadiusMeters {
        s.restart(at: fix)  // still staying: the next trip starts at the stay's last fix
        return
      }
      leave(stay, &s, person, &closed)
      s.segment.append(fix)
      s.anchor = s.segment.count - 1
      return
    }
    s.segment.append(fix)
    let anchor = s.segment[s.anchor]
    if GreatCircle.distanceMeters(from: anchor.coordinate, to: fix.coordinate) > rules.dwellRadiusMeters {
      s.anchor = s.segment.count - 1  // left the possible stay: a new one may start here
      return
    }
    if fix.timeMilliseconds - anchor.timeMilliseconds > rules.dwellMilliseconds {
      // A stay: the segment ends at its first fix.
      endAtStay(&s)
      close(&s, person, .dwell, &closed)
      s.dwellAnchor = anchor
      s.restart(at: fix)
    }
  }

  /// The phone left the stay that began at `stay`: report it.
  private func leave(
    _ stay: Fix, _ s: inout TripSegmenterState.Person, _ person: UserID, _ closed: inout TripOutput
  ) {
    closed.stays.append(
      TripStay(
        person: person, startMilliseconds: stay.timeMilliseconds,
        endMilliseconds: s.segment.last!.timeMilliseconds, coordinate: stay.coordinate))
    s.dwellAnchor = nil
  }

  /// Drops the fixes after the first fix of the stay the segment ends in
  /// (all within the dwell radius of it): the trip ended where the phone stopped.
  private func endAtStay(_ s: inout TripSegmenterState.Person) {
    if s.anchor + 1 < s.segment.count { s.segment.removeSubrange((s.anchor + 1)...) }
  }

  /// Closes the open segment when no later fix could continue it: over the
  /// journey silence, or over the split gap when the last fix was not moving
  /// and is not a possible journey origin (a single fix at a named place).
  private func closeIfIdle(
    now: Int64, _ person: UserID, _ s: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    guard s.dwellAnchor == nil, let last = s.segment.last, s.pending.isEmpty else { return }
    let idle = now - rules.idleGapMilliseconds - last.timeMilliseconds
    guard idle > rules.splitGapMilliseconds else { return }
    let origin = s.segment.count == 1 && namedPlace(last.coordinate, person) != nil
    guard idle > rules.journeySilenceMilliseconds || !(moving(s.segment) || origin) else { return }
    endAtStay(&s)
    close(&s, person, .idle, &closed)
    s.segment = []
    s.anchor = 0
  }

  private func close(
    _ s: inout TripSegmenterState.Person, _ person: UserID, _ end: TripEnd, _ closed: inout TripOutput
  ) {
    // A lone fix (the start of the next move, a stay's last fix) is no segment.
    guard s.segment.count >= 2 else { return }
    s.segmentsClosed += 1
    let summary = TripSummary(s.segment, rules: rules.agreed)
    let startPlace = namedPlace(summary.start, person)
    let endPlace = namedPlace(summary.end, person)
    var reasons = failedThresholds(pointCount: s.segment.count, summary)
    let journey = startPlace != nil && endPlace != nil && startPlace != endPlace
    let isTrip = reasons.isEmpty || journey
    if reasons.isEmpty { reasons = [.valid] }
    if journey { reasons.append(.journeyBetweenNamedPlaces) }
    closed.segments.append(
      TripSegment(
        id: UInt64(person.rawValue) << 32 | UInt64(s.segmentsClosed), person: person, isTrip: isTrip,
        reasons: reasons, endedBy: end, fixes: s.segment, startPlace: startPlace, endPlace: endPlace,
        summary: summary))
  }

  /// The validity thresholds a segment misses (empty: it is valid).
  func failedThresholds(pointCount: Int, _ summary: TripSummary) -> [TripReason] {
    var reasons: [TripReason] = []
    if pointCount < rules.minimumPoints { reasons.append(.tooFewPoints) }
    if summary.durationMilliseconds < rules.minimumDurationMilliseconds { reasons.append(.tooShortInTime) }
    if summary.pathMeters < rules.minimumPathMeters { reasons.append(.tooShortInPath) }
    if summary.displacementMeters < rules.minimumDisplacementMeters { reasons.append(.tooLittleDisplacement) }
    return reasons
  }
}

extension TripSegment {
  /// The drawn line: the §6 live-trail filter with its dashed silences.
  public func trail(rules: LiveTrailRules = LiveTrailRules()) -> LiveTrail {
    LiveTrail(FixColumns(fixes), rules: rules)
  }
}
