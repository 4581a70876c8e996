/// SPEC §6 parking ("stop call") and the park fix.
public struct ParkingRules: Sendable, Hashable, Codable {
  /// Parked once the phone stays this long inside the parking circle, ms.
  public var stayMilliseconds: Int64 = 5 * 60_000
  /// The parking circle's radius: 60 m, or 1.5 × the distance filter where wider.
  public var minimumRadiusMeters = 60.0
  public var distanceFilterMultiple = 1.5
  public var distanceFilterMeters = 60.0
  /// Only a fix at least this sharp can end a stop, m.
  public var leaveAccuracyMeters = 100.0
  /// The journey guard: travelled more than this in the last 10 min (m) or
  /// this fast in the last 3 min (m/s) → a `still` verdict alone does not park.
  public var guardDistanceMeters = 400.0
  public var guardDistanceWindowMilliseconds: Int64 = 10 * 60_000
  public var guardSpeedMetersPerSecond = 3.0
  public var guardSpeedWindowMilliseconds: Int64 = 3 * 60_000
  /// Park fix: made up if no fresh fix comes within this long of parking, ms…
  public var parkFixAfterMilliseconds: Int64 = 30_000
  /// …from the newest real fix if younger than this, else from the anchor, ms.
  public var parkFixFromFixWithinMilliseconds: Int64 = 2 * 60_000

  public init() {}

  /// 60 m, or 1.5 × the distance filter where wider (60 m filter → 90 m).
  public var radiusMeters: Double { max(minimumRadiusMeters, distanceFilterMultiple * distanceFilterMeters) }
}

public struct ParkingDecision: Sendable, Hashable, Codable {
  public enum Reason: String, Sendable, Hashable, Codable {
    /// A new anchor: the stay starts here.
    case newAnchor
    /// Still inside the circle, not long enough yet.
    case insideNotLongEnough
    /// Five minutes inside the circle: parked.
    case parkedByPosition
    /// A `still` verdict with no recent journey: parked.
    case parkedByStillVerdict
    /// A `still` verdict during the journey guard: the position must agree first.
    case stillIgnoredJourneyGuard
    /// Parked, and this fix does not end it (inside, or not clear by its error, or too loose).
    case stillParked
    /// A sharp fix clear of the anchor by more than its own error: moving again.
    case leftParking
  }
  public var parked: Bool
  public var reason: Reason
}

/// The parking state machine of one phone. A plain `Codable` value.
public struct ParkingDetector: Sendable, Hashable, Codable {
  public var rules: ParkingRules
  public private(set) var parked = false
  /// The anchor: where the current stay began.
  public private(set) var anchor: Fix?
  /// When the phone parked, and whether a real fix arrived since.
  public private(set) var parkedAtMilliseconds: Int64?
  private var freshFixSinceParking = false
  private var parkFixMade = false
  /// Recent fixes for the journey guard (time, position, speed): those
  /// within 10 min of the last fix offered, either side of it.
  private(set) var recent: [Fix] = []

  public init(rules: ParkingRules = ParkingRules()) { self.rules = rules }

  /// The journey guard at `time`: travelled > 400 m in the last 10 min, or
  /// ≥ 3 m/s in the last 3 min. A fix dated after `time` (the clock stepped
  /// back, or fixes came out of order) counts when it lies as close to
  /// `time` as the window's length. O(recent fixes).
  public func journeyGuardActive(at time: Int64) -> Bool { journeyGuardActive(at: time, arriving: nil) }

  /// The same, with `fix` (dated `time`) counted too: the step from the
  /// last fix offered to it and its own speed. The fix that says `still`
  /// may itself be the 400th metre or the 3 m/s (specrev-phone F7).
  private func journeyGuardActive(at time: Int64, arriving fix: Fix?) -> Bool {
    var travelled = 0.0
    for (a, b) in zip(recent, recent.dropFirst())
    where Self.within(rules.guardDistanceWindowMilliseconds, b.timeMilliseconds, of: time) {
      travelled += GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate)
    }
    var fast = recent.contains {
      Self.within(rules.guardSpeedWindowMilliseconds, $0.timeMilliseconds, of: time)
        && ($0.speedMetersPerSecond ?? 0) >= rules.guardSpeedMetersPerSecond
    }
    if let fix {
      if let last = recent.last,
        Self.within(rules.guardDistanceWindowMilliseconds, last.timeMilliseconds, of: time)
      {
        // A fix that is not a position adds nothing (a NaN would make the
        // sum, and so the guard, false).
        let step = GreatCircle.distanceMeters(from: last.coordinate, to: fix.coordinate)
        if step.isFinite { travelled += step }
      }
      fast = fast || (fix.speedMetersPerSecond ?? 0) >= rules.guardSpeedMetersPerSecond
    }
    return travelled > rules.guardDistanceMeters || fast
  }

  /// Whether `t` lies within `window` ms of `time`, before or after it
  /// (never for a negative window). For fixes in time order only "before"
  /// happens; "after" keeps fixes from before a clock stepped back out of
  /// the guard's window, so the guard's list stays bounded by what one
  /// window on either side holds whatever order fixes come in.
  @inline(__always)
  static func within(_ window: Int64, _ t: Int64, of time: Int64) -> Bool {
    time.saturatingSubtract(t) <= window && t.saturatingSubtract(time) <= window
  }

  /// Offers a fix (time order); `still` on the fix's activity counts as the
  /// classifier's verdict. O(recent fixes): those within the guard's 10 min
  /// of this one (a fix older than the last ones offered, as after the
  /// phone's clock stepped back, drops those more than 10 min after it).
  /// After the phone's clock steps back past the stay's start, the stay
  /// waits for the clock to pass that start again: fixes cannot tell a step
  /// from a batch of late fixes, and counting the stay from a late fix would
  /// park a phone that has not stayed (review36).
  public mutating func offer(_ fix: Fix) -> ParkingDecision {
    let time = fix.timeMilliseconds
    let guardActive = journeyGuardActive(at: time, arriving: fix)
    recent.append(fix)
    recent.removeAll { !Self.within(rules.guardDistanceWindowMilliseconds, $0.timeMilliseconds, of: time) }
    if parked {
      freshFixSinceParking = true
      guard let anchor else { return ParkingDecision(parked: true, reason: .stillParked) }
      let separation = GreatCircle.Separation(anchor.coordinate, fix.coordinate)
      let accuracy = fix.horizontalAccuracyMeters
      if accuracy <= rules.leaveAccuracyMeters && separation.isAbove(rules.radiusMeters + accuracy) {
        parked = false
        parkedAtMilliseconds = nil
        self.anchor = fix
        return ParkingDecision(parked: false, reason: .leftParking)
      }
      return ParkingDecision(parked: true, reason: .stillParked)
    }
    // A fix looser than 100 m cannot end a stop (SPEC §6), nor does it
    // restart one on its way: outside the circle, it changes nothing.
    if let anchor, fix.horizontalAccuracyMeters > rules.leaveAccuracyMeters,
      GreatCircle.Separation(anchor.coordinate, fix.coordinate).isAbove(rules.radiusMeters)
    {
      if time.saturatingSubtract(anchor.timeMilliseconds) >= rules.stayMilliseconds {
        park(at: time)
        return ParkingDecision(parked: true, reason: .parkedByPosition)
      }
      if fix.activity == .still { return stillVerdict(guardActive, time) }
      return ParkingDecision(parked: false, reason: .insideNotLongEnough)
    }
    guard let anchor, GreatCircle.Separation(anchor.coordinate, fix.coordinate).isAtMost(rules.radiusMeters)
    else {
      self.anchor = fix
      if fix.activity == .still { return stillVerdict(guardActive, time) }
      return ParkingDecision(parked: false, reason: .newAnchor)
    }
    if time.saturatingSubtract(anchor.timeMilliseconds) >= rules.stayMilliseconds {
      park(at: time)
      return ParkingDecision(parked: true, reason: .parkedByPosition)
    }
    if fix.activity == .still { return stillVerdict(guardActive, time) }
    return ParkingDecision(parked: false, reason: .insideNotLongEnough)
  }

  /// The clock moved to `now` with no fix: a phone that stays put gets no
  /// fixes from an OS with a distance filter, so silence inside the
  /// circle is staying. Parked (at the anchor's time + 5 min, whenever the
  /// tick comes) once 5 min have passed since the anchor and no fix since
  /// left the circle; nil when nothing changes (already parked, no anchor,
  /// too soon). Ticks never undo anything, and a tick's result is the one
  /// a fix inside the circle at the same moment would give. O(1).
  public mutating func advance(to now: Int64) -> ParkingDecision? {
    guard !parked, let anchor else { return nil }
    let due = anchor.timeMilliseconds.saturatingAdd(rules.stayMilliseconds)
    guard now >= due, (recent.last?.timeMilliseconds ?? anchor.timeMilliseconds) <= due else {
      return nil
    }
    park(at: due)
    return ParkingDecision(parked: true, reason: .parkedByPosition)
  }

  private mutating func stillVerdict(_ guardActive: Bool, _ time: Int64) -> ParkingDecision {
    if guardActive { return ParkingDecision(parked: false, reason: .stillIgnoredJourneyGuard) }
    park(at: time)
    return ParkingDecision(parked: true, reason: .parkedByStillVerdict)
  }

  private mutating func park(at time: Int64) {
    parked = true
    parkedAtMilliseconds = time
    freshFixSinceParking = false
    parkFixMade = false
  }

  /// SPEC §6 park fix: when the phone parked and no fresh fix came within
  /// 30 s, one is made up, once: from the newest real fix with its accuracy
  /// if under 2 min old, else from the anchor; dated `now`, `still`, source
  /// `park`. Nil when none is due. A `now` before the moment of parking
  /// (the clock stepped back) moves that moment to `now`.
  public mutating func parkFix(now: Int64) -> Fix? {
    // A clock stepped back past the moment of parking: the 30 s count
    // again from the step.
    if let parkedAt = parkedAtMilliseconds, now < parkedAt { parkedAtMilliseconds = now }
    guard parked, !parkFixMade, !freshFixSinceParking, let parkedAt = parkedAtMilliseconds,
      now.isLater(than: parkedAt, byMoreThan: rules.parkFixAfterMilliseconds.saturatingSubtract(1)),
      var base = anchor ?? recent.last
    else { return nil }
    parkFixMade = true
    if let newest = recent.last,
      now.saturatingSubtract(newest.timeMilliseconds) < rules.parkFixFromFixWithinMilliseconds
    {
      base = newest
    }
    base.timeMilliseconds = now
    base.activity = .still
    base.source = .park
    base.speedMetersPerSecond = 0
    return base
  }
}

/// SPEC §6 late batches: the tracker's activity verdicts kept for an hour,
/// so fixes handed over late are labelled with what the tracker believed
/// when each was recorded.
public struct ActivityTimeline: Sendable, Hashable, Codable {
  public var keepMilliseconds: Int64 = 3_600_000
  private(set) var verdicts: [Verdict] = []

  struct Verdict: Sendable, Hashable, Codable {
    var time: Int64
    var activity: Activity
  }

  public init() {}

  /// Records a verdict dated `time`, and forgets every verdict dated before
  /// the one in force an hour before `time` (that one still covers the
  /// hour's start). By date, not by the order recorded, so a clock that
  /// stepped back forgets nothing dated after it. At most
  /// ``maximumVerdicts`` are kept (the earliest recorded go first), whatever
  /// the clock does. O(verdicts kept).
  public mutating func record(_ activity: Activity, at time: Int64) {
    verdicts.append(Verdict(time: time, activity: activity))
    let horizon = time.saturatingSubtract(keepMilliseconds)
    var inForce: Int64?
    for verdict in verdicts where verdict.time <= horizon {
      inForce = max(inForce ?? verdict.time, verdict.time)
    }
    if let inForce { verdicts.removeAll { $0.time < inForce } }
    if verdicts.count > Self.maximumVerdicts { verdicts.removeFirst(verdicts.count - Self.maximumVerdicts) }
  }

  /// The most verdicts a timeline keeps: an hour of two verdicts a second
  /// (an OS classifier reports at most about one a second).
  public static let maximumVerdicts = 7_200

  /// The verdict in force at `time`: the one dated latest at or before it
  /// (of several at that time, the last recorded), or `.unknown` when none
  /// that old is kept. By date, not by the order recorded: after the
  /// phone's clock stepped back, a verdict recorded since is dated before
  /// the older ones and rules only times before them (specrev-phone F3).
  /// O(verdicts kept).
  public func activity(at time: Int64) -> Activity {
    var inForce: Verdict?
    for verdict in verdicts where verdict.time <= time {
      if let found = inForce, verdict.time < found.time { continue }
      inForce = verdict
    }
    return inForce?.activity ?? .unknown
  }

  /// Labels a late batch: each fix gets the activity in force when it was recorded.
  public func label(_ fixes: FixColumns) -> FixColumns {
    FixColumns(
      fixes.fixes.map {
        var fix = $0
        fix.activity = activity(at: fix.timeMilliseconds)
        return fix
      })
  }
}
