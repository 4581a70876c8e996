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
  /// Too rough to place a street: accuracy worse than this (or unknown), m.
  /// After a stop fix later than `nextFixWithinMilliseconds`, any fix this
  /// sharp or sharper rejects the stop (`sharpFixAfterLongGap`).
  public var roughAccuracyMeters = 50.0
  /// Fixes this close (Live, 1 Hz) show the slowing: the speed must drop at
  /// this rate or more on average, m/s². The interval must stay under
  /// (`cruisingMetersPerSecond` − `stoppedMetersPerSecond`) /
  /// `liveDecelerationMetersPerSecondSquared` (1.94 s by default), or a car
  /// stopped dead between two fixes (a crash) could fail the rule: 5 s, the
  /// old default, rejected a crash at 72 km/h between fixes 5 s apart. 1.5 s
  /// is one fix a second with room for jitter.
  public var liveIntervalMilliseconds: Int64 = 1_500
  public var liveDecelerationMetersPerSecondSquared = 4.5
  /// Nothing may move for this long after the stop, ms.
  public var stillForMilliseconds: Int64 = 5 * 60_000
  /// Moved: two fixes in a row this far from the stop (plus their accuracy),
  /// m, or one fix faster than `stoppedMetersPerSecond`.
  ///
  /// The same disc says where a later fix *stands at the stop* (what a stop
  /// fix without a measured speed needs, else `stopNotConfirmed`): within
  /// `movedMeters` + its own accuracy of the stop fix, and either with a
  /// measured speed (at most `stoppedMetersPerSecond`, or it would have
  /// rejected the stop) or, without one — every rough fix, whose zero is
  /// unmeasured (SPEC §1) — late enough that a car still doing
  /// `cruisingMetersPerSecond` from the stop fix would have left that disc:
  /// seconds since the stop × `cruisingMetersPerSecond` > `movedMeters` +
  /// accuracy (80 m: 130 m, after 13.37 s), and no looser than
  /// `positionShowsStopAccuracyMeters`. The stop fix itself shows the stop
  /// the same way against the cruising fix before it: within that disc of
  /// it, that long after it (its speed derived from that neighbour, SPEC §1).
  public var movedMeters = 50.0
  /// A fix without a measured speed shows the car standing at the stop from
  /// its position only when at least this sharp, m (250: the accuracy SPEC
  /// §5 trusts to say they drove on; a looser disc would take in a car that
  /// rolled on for hundreds of metres). Unknown accuracy never shows it.
  public var positionShowsStopAccuracyMeters = 250.0
  /// Places: only the first 200 m of a radius count, plus a 40 m edge.
  public var placeRadiusCapMeters = 200.0
  public var placeEdgeMeters = 40.0
  /// The disc around a place that excludes a stop: min(r, `placeRadiusCapMeters`) + `placeEdgeMeters`.
  public var exclusionDisc: GeofenceIndex.ExclusionDisc {
    GeofenceIndex.ExclusionDisc(capMeters: placeRadiusCapMeters, edgeMeters: placeEdgeMeters)
  }
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
    /// The stop fix had no measured speed and no later fix stood at the stop
    /// (``SuddenStopRules/movedMeters`` says what standing there is).
    case stopNotConfirmed
  }
  public var person: UserID
  public var outcome: Outcome
  public var reasons: ReasonList<Reason>
  /// The stop fix: time (ms), position and accuracy (m).
  public var stopMilliseconds: Int64
  public var coordinate: Coordinate
  public var accuracyMeters: Double
  /// The cruising speed to quote (agreed), m/s.
  public var cruisingMetersPerSecond: Double
  /// When decided, ms.
  public var decidedMilliseconds: Int64
}

/// What the check remembers per person.
public struct SuddenStopState: Sendable, Hashable, Codable {
  struct Candidate: Sendable, Hashable, Codable {
    var stop: TrackPoint
    /// The stop came after the 40 s limit: only fine if every later fix is rough.
    var needsRoughFixes: Bool
    /// The previous fix lay away from the stop (but claimed to stand still).
    var previousAway = false
    /// The stop fix without a speed stood where the cruising fix was, or a
    /// later fix stood at the stop (needed when the stop fix had no speed;
    /// ``SuddenStopRules/movedMeters`` says what standing there is).
    var confirmed = false
    /// The device that sent the stop fix: only its later fixes end the five
    /// minutes on their clock (another device's clock may run minutes
    /// apart); the server's clock ends them for anybody. Nil in a state
    /// saved before it was kept: any device's, as then. Declared with the
    /// flags, before `cruising`, to sit in the padding after `stop`: the
    /// candidate keeps its size.
    var device: DeviceID?
    var cruising: Double
  }
  struct PersonState: Sendable, Hashable, Codable {
    var last: TrackPoint?
    /// The fix before `last` when the pair between them cruised and the
    /// phone was not cruising into it (otherwise nil, or an older one, never
    /// read; nil in states saved before it was kept): says whether `last`
    /// was a stray fix, out and back.
    var beforeLast: TrackPoint?
    /// Agreed speed into `last`.
    var lastAgreed: Double?
    /// The last cruising fix and its speed, and whether every fix since came
    /// at Live cadence (so the slowing was visible fix by fix).
    var lastCruise: TrackPoint?
    var lastCruiseSpeed = 0.0
    var liveSinceCruise = false
    var candidate: Candidate?
    var lastRaised: Int64?
    var raised: [Candidate] = []
  }
  var people: [UserID: PersonState] = [:]
  /// People with a pending stop and when its five minutes end, ms: what a
  /// clock advance visits (not everybody).
  var waiting = DeadlineTable()

  public init() {}

  enum CodingKeys: String, CodingKey { case people, waiting }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    people = try c.decode([UserID: PersonState].self, forKey: .people)
    waiting = try c.decode(DeadlineTable.self, forKey: .waiting)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeInKeyOrder(people, forKey: .people)
    try c.encode(waiting, forKey: .waiting)
  }

  /// Notes whether `person` now has a pending stop.
  mutating func track(_ person: UserID, _ s: PersonState, rules: SuddenStopRules) {
    if let candidate = s.candidate {
      waiting[person] = candidate.stop.time.saturatingAdd(rules.stillForMilliseconds)
    } else {
      waiting[person] = nil
    }
  }
}

/// SPEC §5, all four conditions: (1) cruising at 35 km/h or more; (2) the
/// very next fix shows the car stopped at most 40 s later (2 min when every
/// fix after the stop is too rough to place a street; at Live cadence, where
/// the slowing shows in fixes of its own, the speed must drop from the last
/// cruising fix at ≥ 4.5 m/s² on average); (3) nothing moves for 5 min;
/// (4) not inside a place or within 40 m of its edge (only the first 200 m
/// of a radius count). A stop fix without a measured speed (every rough
/// fix: SPEC §1) counts once a later fix stands at the stop, which a rough
/// fix shows from its position (``SuddenStopRules/movedMeters``). Heartbeat fixes are ignored as fixes, but their time
/// moves the person's clock (a phone that only sends heartbeats after a
/// crash still has its five minutes counted). Loose pairs
/// (``AgreedSpeedRules``) never count as cruising. Once an hour per person;
/// a raised incident is dropped when a sharp fix lands over 300 m away.
///
/// `process` takes any batch of one person's fixes in time order (fixes not
/// newer than the last one are skipped); `advance` moves the clock (the five
/// minutes can pass with no fix at all): the server calls it on its timer
/// and at every batch's receipt time (`IngestPipeline` does both).
public struct SuddenStopEngine: Sendable {
  /// Every circle's places (`Geofence.circle` says whose): the index's.
  public var places: [Geofence] { index.places }
  /// The circles each person is in; nil: every place counts for everyone,
  /// and so it does for a person the table does not list (as in
  /// ``GeofenceEngine``).
  public let circlesOfPerson: [UserID: [CircleID]]?
  public let rules: SuddenStopRules
  /// Room the first event of a batch reserves (``Array/append(_:reservingOnFirst:)``).
  static let firstEventRoom = 16
  /// The places, indexed with each one's excluded disc (the first 200 m of
  /// its radius plus the 40 m edge, `rules.exclusionDisc`); possibly
  /// shared with other engines.
  public let index: GeofenceIndex

  /// `places`: every circle's places (`Geofence.circle` says whose);
  /// `circlesOfPerson`: the circles each person is in, so only their own
  /// circles' places exclude a stop (nil, or a person it does not list:
  /// every place counts). A place
  /// whose radius is not a positive finite number excludes nothing.
  public init(
    places: [Geofence] = [], circlesOfPerson: [UserID: [CircleID]]? = nil,
    rules: SuddenStopRules = SuddenStopRules(), cellSizeMeters: Double? = nil
  ) {
    self.circlesOfPerson = circlesOfPerson
    self.rules = rules
    index = GeofenceIndex(places: places, cellSizeMeters: cellSizeMeters, exclusion: rules.exclusionDisc)
  }

  /// The same engine over an index already built (a pipeline shares one
  /// among its engines): used as it is when it was built with
  /// `rules.exclusionDisc`, else its places are indexed again with it.
  public init(
    index: GeofenceIndex, circlesOfPerson: [UserID: [CircleID]]? = nil,
    rules: SuddenStopRules = SuddenStopRules()
  ) {
    self.circlesOfPerson = circlesOfPerson
    self.rules = rules
    self.index =
      index.exclusion == rules.exclusionDisc
      ? index
      : GeofenceIndex(
        places: index.places, cellSizeMeters: index.grid.cellSizeMeters, exclusion: rules.exclusionDisc)
  }

  /// Whether `point` lies in an excluded disc of one of `person`'s circles;
  /// a person the table does not list (or no table) is in every circle, as
  /// in ``GeofenceEngine``. O(places near the point).
  func insidePlace(_ point: Coordinate, _ person: UserID) -> Bool {
    let circles = circlesOfPerson?[person]
    return index.anyExclusionHolds(point) { i in
      circles.map { $0.contains(index.places[i].circle) } ?? true
    }
  }

  /// - Complexity: O(n) plus O(places) per candidate stop; the neighbour
  ///   distances come from one vector pass over the batch, and each person's
  ///   state is looked up once per run of their fixes.
  public func process(_ fixes: FixColumns, state: inout SuddenStopState) -> [SuddenStopEvent] {
    process(AgreedSpeedBatch(fixes, rules: rules.agreed), state: &state)
  }

  /// The same, reusing a batch's neighbour speeds (shared with the speed alert).
  public func process(_ batch: AgreedSpeedBatch, state: inout SuddenStopState) -> [SuddenStopEvent] {
    var events: [SuddenStopEvent] = []
    let batch = batch.under(rules.agreed)
    let fixes = batch.fixes
    fixes.forEachPersonRun { person, run in
      // Owned outright while the run is processed (no copy on write), and
      // put back at the same position (one lookup, no deletion).
      let slot = state.people.position(of: person, inserting: .init())
      var s = SuddenStopState.PersonState()
      swap(&s, &state.people.values[slot])
      let waited = s.candidate != nil
      var lastIndex = Int.min  // where `s.last` sits in this batch (not here yet)
      for i in run {
        guard fixes.source[i] != .heartbeat else {
          // Not a fix for the rules, but the phone's clock moved.
          settle(fixes.timeMilliseconds[i], on: fixes.device[i], person, &s, &events)
          continue
        }
        if step(TrackPoint(fixes, i), at: i, of: batch, lastIndex: lastIndex, person, &s, &events) {
          lastIndex = i
        }
      }
      if waited || s.candidate != nil { state.track(person, s, rules: rules) }
      swap(&s, &state.people.values[slot])
    }
    return events
  }

  /// Decides every pending stop whose five minutes have passed by `now`
  /// (the server's clock), people in ascending id order.
  /// - Complexity: O(k log w) for k of the w people with a pending stop due.
  public func advance(to now: Int64, state: inout SuddenStopState) -> [SuddenStopEvent] {
    var events: [SuddenStopEvent] = []
    guard state.waiting.anyDue(atOrBefore: now) else { return events }
    for person in state.waiting.due(atOrBefore: now) {
      guard var s = state.people[person] else {
        state.waiting[person] = nil
        continue
      }
      settle(now, on: nil, person, &s, &events)
      state.track(person, s, rules: rules)
      state.people[person] = s
    }
    return events
  }

  /// One fix; false when it is not newer than the last one (skipped).
  /// `point` is fix `i` of `batch`; `s.last` is fix `lastIndex` when it is in the batch.
  private func step(
    _ point: TrackPoint, at i: Int, of batch: AgreedSpeedBatch, lastIndex: Int, _ person: UserID,
    _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) -> Bool {
    guard point.time > (s.last?.time ?? .min) else { return false }
    settle(point.time, on: batch.fixes.device[i], person, &s, &events)
    // Drove on: a raised incident is dropped by a sharp fix far away.
    if point.accuracy <= rules.cancelAccuracyMeters && !s.raised.isEmpty {
      s.raised.removeAll { raised in
        guard point.time.saturatingSubtract(raised.stop.time) <= rules.cancellableForMilliseconds else {
          return true
        }
        let separation = GreatCircle.Separation(raised.stop.coordinate, point.coordinate)
        guard separation.isAbove(rules.droveOnMeters) else { return false }
        say(person, .cancelled, [.droveOn], raised, point.time, to: &events)
        return true
      }
    }
    // A pending stop: did anything move, or did a sharp fix spoil a long gap?
    // A stop fix without a speed that the car has clearly left was no stop.
    var leftProvisionalStop = false
    if s.candidate != nil { leftProvisionalStop = watch(point, person, &s, &events) }
    // A new stop after cruising?
    var agreed: (metersPerSecond: Double, loose: Bool)?
    if let last = s.last {
      agreed = batch.speed(from: last, at: lastIndex, to: point, at: i)
      let stopped = point.speed.map({ $0 <= rules.stoppedMetersPerSecond }) ?? true
      let live = point.time.saturatingSubtract(last.time) <= rules.liveIntervalMilliseconds
      // Only after a cruising reading, or for a stop that may follow a cruise
      // a few fixes back, is there anything to look at (kept out of `step`).
      let mayStop = s.candidate == nil && stopped
      let afterCruise = (s.lastAgreed ?? 0) >= rules.cruisingMetersPerSecond
      if (afterCruise && (mayStop || last.speed == nil))
        || (mayStop && (leftProvisionalStop || (live && s.liveSinceCruise)))
      {
        // A stray `last` says nothing: the pair out of it is no cruise either.
        if lookForStop(
          point, from: batch.fixes.device[i], after: last, stopped: stopped, live: live,
          leftProvisionalStop: leftProvisionalStop,
          person, &s, &events)
        {
          // Nor was it ever the last cruising fix.
          agreed = nil
          s.lastCruise = nil
          s.liveSinceCruise = false
        }
      }
      if let a = agreed, !a.loose, a.metersPerSecond >= rules.cruisingMetersPerSecond {
        // Only a fix with a cruising reading into it can be asked whether it
        // was stray, so only then is the fix before it kept — and only when
        // the phone was not already cruising into that one: a car that
        // drove in, turned back and stopped is no parked phone's outlier.
        s.beforeLast = (s.lastAgreed ?? 0) >= rules.cruisingMetersPerSecond ? nil : last
        s.lastCruise = point
        s.lastCruiseSpeed = a.metersPerSecond
        s.liveSinceCruise = true
      } else if !live {
        s.liveSinceCruise = false
      }
    }
    s.last = point
    // A loose pair is no cruising reading.
    s.lastAgreed = agreed.flatMap { $0.loose ? nil : $0.metersPerSecond }
    return true
  }

  /// A new stop after cruising? `point` follows `last`; returns whether
  /// `last` was a stray fix. The pair into `last` cruised: was `last` out
  /// and back (a parked phone's outlier cruises in and out on the ground
  /// alone, SPEC §4)? Then neither of its pairs is a reading: no stop after
  /// it, and the pair out of it is no cruise. Otherwise, when `point` is
  /// stopped and nothing waits: the very next fix after cruising; the fix
  /// after a withdrawn provisional stop; or, at Live cadence, the slowing
  /// judged from the last cruising fix. Outlined: `step` stays small enough
  /// to be inlined in the per-fix loop (written inside it, Tracking/pipeline
  /// cost about 12 % more instructions, callgrind).
  @inline(never)
  private func lookForStop(
    _ point: TrackPoint, from device: DeviceID, after last: TrackPoint, stopped: Bool, live: Bool,
    leftProvisionalStop: Bool,
    _ person: UserID, _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) -> Bool {
    let cruising = s.lastAgreed.flatMap { $0 >= rules.cruisingMetersPerSecond ? $0 : nil }
    let stray =
      cruising != nil && last.speed == nil
      && (s.beforeLast.map { AgreedSpeed.isOutAndBack($0, last, point, togetherMeters: rules.movedMeters) }
        ?? false)
    guard s.candidate == nil && stopped else { return stray }
    if let cruising {
      // The very next fix after cruising shows the stop.
      if !stray {
        consider(point, from: device, after: last, cruising: cruising, live: live, person, &s, &events)
      }
    } else if leftProvisionalStop, let cruise = s.lastCruise,
      point.time.saturatingSubtract(cruise.time) <= rules.nextFixWithinMilliseconds
    {
      // The stop fix without a speed was the car still going (its speed,
      // derived from its neighbours, SPEC §1): it showed nothing, so this
      // fix, within 40 s of the cruise, is the next one that does. (Not
      // later: a run of rough fixes driving on is no cruise to stop from.)
      consider(
        point, from: device, after: cruise, cruising: s.lastCruiseSpeed, live: live && s.liveSinceCruise,
        person,
        &s, &events)
    } else if live, s.liveSinceCruise, let cruise = s.lastCruise,
      point.time.saturatingSubtract(cruise.time) <= rules.nextFixWithinMilliseconds
    {
      // Live: the slowing shows in fixes of its own; judge it from the
      // last cruising fix by its average deceleration.
      consider(
        point, from: device, after: cruise, cruising: s.lastCruiseSpeed, live: true, person, &s, &events)
    }
    return stray
  }

  /// A later fix against the pending stop: moved, spoilt by a sharp fix
  /// after a long gap, or standing at it. Returns true when the pending stop
  /// was a *provisional* one — a stop fix without a measured speed that
  /// nothing has confirmed — and `point` lies beyond both fixes' accuracy
  /// plus ``SuddenStopRules/movedMeters`` from it (the car was still going
  /// there: a rough fix while cruising), or away from it (beyond
  /// `movedMeters` + its own accuracy) as a sharper fix with a measured
  /// speed (a better sighting of where the car is than the rough stop fix):
  /// the stop is withdrawn (`movedWithinFiveMinutes`) and `point` may be
  /// the stop after the cruise.
  /// Kept out of `step` (it runs only
  /// while a stop waits), which keeps `step` inlined in the per-fix loop:
  /// written inside it, issue 28's confirmation grew `step` past what the
  /// optimiser inlines, and Tracking/suddenStop cost 535 instead of 496
  /// instructions a fix (callgrind); outlined, 495.
  @inline(never)
  private func watch(
    _ point: TrackPoint, _ person: UserID, _ s: inout SuddenStopState.PersonState,
    _ events: inout [SuddenStopEvent]
  ) -> Bool {
    guard var candidate = s.candidate else { return false }
    let disc = rules.movedMeters + point.accuracy
    let distance = GreatCircle.distanceMeters(from: candidate.stop.coordinate, to: point.coordinate)
    let away = distance > disc
    // Not a position the provisional stop's own accuracy could explain (an
    // unknown accuracy explains anything: never left).
    let leftProvisional =
      candidate.stop.speed == nil && !candidate.confirmed
      && (distance > disc + candidate.stop.accuracy
        || (away && point.speed != nil && point.accuracy < candidate.stop.accuracy))
    // Moved: a fix faster than "stopped", or two fixes in a row away from
    // the stop. One far fix that claims to stand still is an outlier,
    // unless it is one that would drop the incident once raised (sharp
    // enough and further than `droveOnMeters`): raising it at the five
    // minutes would be a false alarm nothing later takes back.
    let moving = (point.speed ?? 0) > rules.stoppedMetersPerSecond
    if point.accuracy <= rules.cancelAccuracyMeters && distance > rules.droveOnMeters {
      say(person, .rejected, [.movedWithinFiveMinutes, .droveOn], candidate, point.time, to: &events)
      s.candidate = nil
      return leftProvisional
    } else if moving || (away && candidate.previousAway) || leftProvisional {
      say(person, .rejected, [.movedWithinFiveMinutes], candidate, point.time, to: &events)
      s.candidate = nil
      return leftProvisional
    } else if candidate.needsRoughFixes && point.accuracy <= rules.roughAccuracyMeters {
      say(person, .rejected, [.sharpFixAfterLongGap], candidate, point.time, to: &events)
      s.candidate = nil
    } else {
      candidate.previousAway = away
      // Standing at the stop: a measured speed says so; without one the
      // position does, once a car still cruising would have left the disc.
      candidate.confirmed =
        candidate.confirmed
        || (!away
          && (point.speed != nil || positionShowsStanding(point, at: candidate.stop, distance: distance)))
      s.candidate = candidate
    }
    return false
  }

  private func consider(
    _ stop: TrackPoint, from device: DeviceID, after cruise: TrackPoint, cruising: Double, live: Bool,
    _ person: UserID,
    _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) {
    let gap = stop.time.saturatingSubtract(cruise.time)
    var candidate = SuddenStopState.Candidate(
      stop: stop, needsRoughFixes: false, device: device, cruising: cruising)
    if gap > rules.roughNextFixWithinMilliseconds {
      say(person, .rejected, [.nextFixTooLate], candidate, stop.time, to: &events)
      return
    }
    if gap > rules.nextFixWithinMilliseconds { candidate.needsRoughFixes = true }
    // A stop fix without a measured speed shows the stop by its own position
    // when it stands where the cruising fix was, long after a car still
    // cruising would have left (SPEC §1: the speed derived from the
    // neighbour before it); otherwise a later fix must stand at it.
    if stop.speed == nil {
      candidate.confirmed = positionShowsStanding(
        stop, at: cruise, distance: GreatCircle.distanceMeters(from: cruise.coordinate, to: stop.coordinate))
    }
    if live {
      let deceleration = (cruising - (stop.speed ?? 0)) / (Double(gap) / 1000)
      if deceleration < rules.liveDecelerationMetersPerSecondSquared {
        say(person, .rejected, [.gentleStopOnLive], candidate, stop.time, to: &events)
        return
      }
    }
    if insidePlace(stop.coordinate, person) {
      say(person, .rejected, [.insidePlace], candidate, stop.time, to: &events)
      return
    }
    s.candidate = candidate
    say(person, .pending, [.cruisedThenStopped], candidate, stop.time, to: &events)
  }

  /// Whether `point`, `distance` metres from `anchor`, shows the car
  /// standing where `anchor` was though `point` has no measured speed:
  /// within ``SuddenStopRules/movedMeters`` + its accuracy, no looser than
  /// ``SuddenStopRules/positionShowsStopAccuracyMeters`` (unknown accuracy
  /// never), and late enough that a car still doing
  /// ``SuddenStopRules/cruisingMetersPerSecond`` from `anchor` would have
  /// left that disc. O(1).
  private func positionShowsStanding(_ point: TrackPoint, at anchor: TrackPoint, distance: Double) -> Bool {
    let disc = rules.movedMeters + point.accuracy
    return distance <= disc && point.accuracy <= rules.positionShowsStopAccuracyMeters
      && Double(point.time.saturatingSubtract(anchor.time)) / 1000 * rules.cruisingMetersPerSecond > disc
  }

  /// Decides the pending stop whose five minutes have passed by `now`: the
  /// server's clock (`device` nil), or a fix time of `device`, which ends
  /// them only when it sent the stop fix (another device's clock may run
  /// minutes apart: review20). Inlined for the common case, nothing
  /// pending (outlined whole, it cost 2 % more instructions per fix).
  @inline(__always)
  private func settle(
    _ now: Int64, on device: @autoclosure () -> DeviceID?, _ person: UserID,
    _ s: inout SuddenStopState.PersonState, _ events: inout [SuddenStopEvent]
  ) {
    if s.candidate != nil { settlePending(now, on: device(), person, &s, &events) }
  }

  @inline(never)
  private func settlePending(
    _ now: Int64, on device: DeviceID?, _ person: UserID, _ s: inout SuddenStopState.PersonState,
    _ events: inout [SuddenStopEvent]
  ) {
    guard let candidate = s.candidate,
      device == nil || candidate.device == nil || candidate.device == device,
      now.saturatingSubtract(candidate.stop.time) >= rules.stillForMilliseconds
    else { return }
    s.candidate = nil
    let decided = candidate.stop.time.saturatingAdd(rules.stillForMilliseconds)
    // A stop fix without a measured speed says nothing by itself: a later
    // fix must have stood there.
    if candidate.stop.speed == nil && !candidate.confirmed {
      say(person, .rejected, [.stillForFiveMinutes, .stopNotConfirmed], candidate, decided, to: &events)
      return
    }
    if let last = s.lastRaised, decided.saturatingSubtract(last) < rules.oncePerMilliseconds {
      say(person, .rejected, [.stillForFiveMinutes, .onceAnHour], candidate, decided, to: &events)
      return
    }
    s.lastRaised = decided
    s.raised.append(candidate)
    say(person, .raised, [.cruisedThenStopped, .stillForFiveMinutes], candidate, decided, to: &events)
  }

  /// Appends a decision about `candidate` to `events` (the batch's first
  /// reserves room for several: ``Array/append(_:reservingOnFirst:)``).
  private func say(
    _ person: UserID, _ outcome: SuddenStopEvent.Outcome, _ reasons: ReasonList<SuddenStopEvent.Reason>,
    _ candidate: SuddenStopState.Candidate, _ decided: Int64, to events: inout [SuddenStopEvent]
  ) {
    events.append(
      SuddenStopEvent(
        person: person, outcome: outcome, reasons: reasons, stopMilliseconds: candidate.stop.time,
        coordinate: candidate.stop.coordinate, accuracyMeters: candidate.stop.accuracy,
        cruisingMetersPerSecond: candidate.cruising, decidedMilliseconds: decided),
      reservingOnFirst: Self.firstEventRoom)
  }
}
