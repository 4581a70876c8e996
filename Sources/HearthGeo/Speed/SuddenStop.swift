/// SPEC §5: the server's "possible incident" from fixes alone.
public struct SuddenStopRules: Sendable, Hashable, Codable {
  /// Cruising: the agreed speed into the last fix before the stop, m/s (35 km/h).
  public var cruisingMetersPerSecond = 35 / 3.6
  /// Stopped: a measured speed at or below this, m/s.
  public var stoppedMetersPerSecond = 1.0
  /// The stop fix must come at most this long after the cruising fix, ms…
  public var nextFixWithinMilliseconds: Int64 = 40_000
  /// …or this long when every fix after the stop is too rough to place a street.
  public var roughNextFixWithinMilliseconds: Int64 = 120_000
  /// Too rough to place a street: accuracy worse than this, m.
  public var roughAccuracyMeters = 50.0
  /// Fixes this close (Live, 1 Hz) show the slowing: the speed must drop at
  /// this rate or more on average, m/s².
  public var liveIntervalMilliseconds: Int64 = 5_000
  public var liveDecelerationMetersPerSecondSquared = 4.5
  /// Nothing may move for this long after the stop, ms.
  public var stillForMilliseconds: Int64 = 5 * 60_000
  /// Moved: a fix this far from the stop (plus its accuracy), m, or faster
  /// than `stoppedMetersPerSecond`.
  public var movedMeters = 50.0
  /// Places: only the first 200 m of a radius count, plus a 40 m edge.
  public var placeRadiusCapMeters = 200.0
  public var placeEdgeMeters = 40.0
  /// At most one incident per person in this long, ms.
  public var oncePerMilliseconds: Int64 = 3_600_000
  /// Dropped later when a fix this sharp (m) lies further than `droveOnMeters` from the stop.
  public var cancelAccuracyMeters = 250.0
  public var droveOnMeters = 300.0
  /// Raised incidents stay cancellable this long, ms.
  public var cancellableForMilliseconds: Int64 = 24 * 3_600_000
  public var agreed = AgreedSpeedRules()

  public init() {}
}

/// A decision of the sudden-stop check.
public struct SuddenStopEvent: Sendable, Hashable, Codable {
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// Conditions 1, 2 and 4 hold; waiting out the five minutes.
    case pending
    /// All four held: possible incident.
    case raised
    /// A pending stop that failed a condition.
    case rejected
    /// A raised incident dropped: they drove on.
    case cancelled
  }
  public enum Reason: String, Sendable, Hashable, Codable {
    case cruisedThenStopped
    case stillForFiveMinutes
    case movedWithinFiveMinutes
    case insidePlace
    case nextFixTooLate
    case sharpFixAfterLongGap
    case gentleStopOnLive
    case onceAnHour
    case droveOn
  }
  public var person: UserID
  public var outcome: Outcome
  public var reasons: [Reason]
  /// The stop fix: time (ms) and position.
  public var stopMilliseconds: Int64
  public var coordinate: Coordinate
  /// The cruising speed to quote (agreed), m/s.
  public var cruisingMetersPerSecond: Double
  /// When decided, ms.
  public var decidedMilliseconds: Int64
}

/// What the check remembers per person.
public struct SuddenStopState: Sendable, Hashable, Codable {
  struct Point: Sendable, Hashable, Codable {
    var time: Int64
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var speed: Double?
    var coordinate: Coordinate { Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude) }
  }
  struct Candidate: Sendable, Hashable, Codable {
    var stop: Point
    var cruising: Double
    /// The stop came after the 40 s limit: only fine if every later fix is rough.
    var needsRoughFixes: Bool
  }
  struct PersonState: Sendable, Hashable, Codable {
    var last: Point?
    /// Agreed speed into `last`.
    var lastAgreed: Double?
    var candidate: Candidate?
    var lastRaised: Int64?
    var raised: [Candidate] = []
  }
  var people: [UInt32: PersonState] = [:]

  public init() {}
}

/// SPEC §5, all four conditions: (1) cruising at 35 km/h or more; (2) the
/// very next fix shows the car stopped at most 40 s later (2 min when every
/// fix after the stop is too rough to place a street; at Live cadence the
/// speed must drop at ≥ 4.5 m/s² on average); (3) nothing moves for 5 min;
/// (4) not inside a place or within 40 m of its edge (only the first 200 m
/// of a radius count). Heartbeat fixes are ignored. Once an hour per person;
/// a raised incident is dropped when a sharp fix lands over 300 m away.
///
/// `process` takes any batch of one person's fixes in time order (fixes not
/// newer than the last one are skipped); `advance` moves the clock (the five
/// minutes can pass with no fix at all).
public struct SuddenStopEngine: Sendable {
  public let places: [Geofence]
  public let rules: SuddenStopRules

  public init(places: [Geofence] = [], rules: SuddenStopRules = SuddenStopRules()) {
    self.places = places
    self.rules = rules
  }

  public func process(_ fixes: FixColumns, state: inout SuddenStopState) -> [SuddenStopEvent] {
    var events: [SuddenStopEvent] = []
    for i in 0..<fixes.count where fixes.source[i] != .heartbeat {
      let person = fixes.user[i]
      var s = state.people[person.rawValue] ?? .init()
      step(
        SuddenStopState.Point(
          time: fixes.timeMilliseconds[i], latitude: fixes.latitudeDegrees[i], longitude: fixes.longitudeDegrees[i],
          accuracy: fixes.horizontalAccuracyMeters[i], speed: fixes[i].speedMetersPerSecond),
        person, &s, &events)
      state.people[person.rawValue] = s
    }
    return events
  }

  /// Decides every pending stop whose five minutes have passed by `now`.
  public func advance(to now: Int64, state: inout SuddenStopState) -> [SuddenStopEvent] {
    var events: [SuddenStopEvent] = []
    for person in state.people.keys.sorted() {
      var s = state.people[person]!
      settle(now, UserID(person), &s, &events)
      state.people[person] = s
    }
    return events
  }

  private func step(
    _ point: SuddenStopState.Point, _ person: UserID, _ s: inout SuddenStopState.PersonState,
    _ events: inout [SuddenStopEvent]
  ) {
    guard point.time > (s.last?.time ?? .min) else { return }
    settle(point.time, person, &s, &events)
    // Drove on: a raised incident is dropped by a sharp fix far away.
    if point.accuracy <= rules.cancelAccuracyMeters {
      s.raised.removeAll { raised in
        guard point.time - raised.stop.time <= rules.cancellableForMilliseconds else { return true }
        guard GreatCircle.distanceMeters(from: raised.stop.coordinate, to: point.coordinate) > rules.droveOnMeters
        else { return false }
        events.append(event(person, .cancelled, [.droveOn], raised, point.time))
        return true
      }
    }
    // A pending stop: did anything move, or did a sharp fix spoil a long gap?
    if let candidate = s.candidate {
      let away = GreatCircle.distanceMeters(from: candidate.stop.coordinate, to: point.coordinate)
      if (point.speed ?? 0) > rules.stoppedMetersPerSecond || away > rules.movedMeters + point.accuracy {
        events.append(event(person, .rejected, [.movedWithinFiveMinutes], candidate, point.time))
        s.candidate = nil
      } else if candidate.needsRoughFixes && point.accuracy <= rules.roughAccuracyMeters {
        events.append(event(person, .rejected, [.sharpFixAfterLongGap], candidate, point.time))
        s.candidate = nil
      }
    }
    // A new stop after cruising?
    var agreed: Double?
    if let last = s.last {
      agreed =
        AgreedSpeed.pair(
          timeA: last.time, last.coordinate, last.accuracy, last.speed, timeB: point.time, point.coordinate,
          point.accuracy, point.speed, rules: rules.agreed)?.metersPerSecond
      if s.candidate == nil, let cruising = s.lastAgreed, cruising >= rules.cruisingMetersPerSecond,
        point.speed.map({ $0 <= rules.stoppedMetersPerSecond }) ?? true
      {
        consider(point, after: last, cruising: cruising, person, &s, &events)
      }
    }
    s.last = point
    s.lastAgreed = agreed
  }

  private func consider(
    _ stop: SuddenStopState.Point, after cruise: SuddenStopState.Point, cruising: Double, _ person: UserID,
    _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) {
    let gap = stop.time - cruise.time
    var candidate = SuddenStopState.Candidate(stop: stop, cruising: cruising, needsRoughFixes: false)
    if gap > rules.roughNextFixWithinMilliseconds {
      events.append(event(person, .rejected, [.nextFixTooLate], candidate, stop.time))
      return
    }
    if gap > rules.nextFixWithinMilliseconds { candidate.needsRoughFixes = true }
    if gap <= rules.liveIntervalMilliseconds {
      let deceleration = (cruising - (stop.speed ?? 0)) / (Double(gap) / 1000)
      if deceleration < rules.liveDecelerationMetersPerSecondSquared {
        events.append(event(person, .rejected, [.gentleStopOnLive], candidate, stop.time))
        return
      }
    }
    for place in places {
      let reach = min(place.radiusMeters, rules.placeRadiusCapMeters) + rules.placeEdgeMeters
      if GreatCircle.distanceMeters(from: place.center, to: stop.coordinate) <= reach {
        events.append(event(person, .rejected, [.insidePlace], candidate, stop.time))
        return
      }
    }
    s.candidate = candidate
    events.append(event(person, .pending, [.cruisedThenStopped], candidate, stop.time))
  }

  private func settle(
    _ now: Int64, _ person: UserID, _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) {
    guard let candidate = s.candidate, now - candidate.stop.time >= rules.stillForMilliseconds else { return }
    s.candidate = nil
    let decided = candidate.stop.time + rules.stillForMilliseconds
    if let last = s.lastRaised, decided - last < rules.oncePerMilliseconds {
      events.append(event(person, .rejected, [.stillForFiveMinutes, .onceAnHour], candidate, decided))
      return
    }
    s.lastRaised = decided
    s.raised.append(candidate)
    events.append(event(person, .raised, [.cruisedThenStopped, .stillForFiveMinutes], candidate, decided))
  }

  private func event(
    _ person: UserID, _ outcome: SuddenStopEvent.Outcome, _ reasons: [SuddenStopEvent.Reason],
    _ candidate: SuddenStopState.Candidate, _ decided: Int64
  ) -> SuddenStopEvent {
    SuddenStopEvent(
      person: person, outcome: outcome, reasons: reasons, stopMilliseconds: candidate.stop.time,
      coordinate: candidate.stop.coordinate, cruisingMetersPerSecond: candidate.cruising, decidedMilliseconds: decided)
  }
}
