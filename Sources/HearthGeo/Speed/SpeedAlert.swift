/// A speed limit a circle set, in km/h (SPEC §4: off until set).
public struct SpeedLimit: Sendable, Hashable, Codable {
  public var kilometersPerHour: Double

  public init(kilometersPerHour: Double) { self.kilometersPerHour = kilometersPerHour }

  /// A limit given in mph: 1 mph is exactly 1.609344 km/h.
  public static func milesPerHour(_ mph: Double) -> SpeedLimit {
    SpeedLimit(kilometersPerHour: mph * 1.609_344)
  }

  public var metersPerSecond: Double { kilometersPerHour / 3.6 }
}

public struct SpeedAlertRules: Sendable, Hashable, Codable {
  /// The phone must stay over the limit for at least this long, ms.
  public var minimumOverMilliseconds: Int64 = 15_000
  /// At most one alert per circle in this long, ms.
  public var cooldownMilliseconds: Int64 = 30 * 60_000
  /// A drive uploaded late goes to the feed only (the one definition,
  /// applied to the stretch that made the alert; see ``SpeedAlertEngine``).
  public var late = LateUploadRule()
  public var agreed = AgreedSpeedRules()

  public init() {}
}

/// A speed-alert decision for one person and circle.
public struct SpeedAlertEvent: Sendable, Hashable, Codable {
  public enum Outcome: String, Sendable, Hashable, Codable {
    case announced, feedOnly, suppressed
  }
  public enum Reason: String, Sendable, Hashable, Codable {
    /// Over the limit for at least 15 s of the drive.
    case overLimitLongEnough
    /// Within 30 min of this circle's previous alert: held back, and
    /// announced later in the same stretch if it is still over the limit
    /// once the cooldown has ended.
    case cooldown
    /// Announced once the circle's cooldown ended, still over the limit.
    case cooldownEnded
    /// The drive was uploaded late: the stretch's newest fix in the upload
    /// was more than 15 min old when the server received it.
    case lateUpload
  }
  public var person: UserID
  public var circle: CircleID
  public var outcome: Outcome
  public var reasons: ReasonList<Reason>
  /// The stretch over the limit so far: first and last fix times, ms.
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  /// Fastest agreed speed in it, m/s, and the limit, m/s.
  public var agreedSpeedMetersPerSecond: Double
  public var limitMetersPerSecond: Double
}

/// What the speed alert remembers per person.
public struct SpeedAlertState: Sendable, Hashable, Codable {
  struct Run: Sendable, Hashable, Codable {
    enum Verdict: UInt8, Sendable, Hashable, Codable {
      /// Not over long enough yet.
      case open
      /// Over long enough, held back by the circle's cooldown (said once).
      case heldByCooldown
      /// Announced or fed: nothing more to say about this stretch.
      case done
    }
    var start: Int64
    var end: Int64
    var fastest: Double
    var verdict: Verdict
    /// Set while the stretch is one pair whose fixes both lack a measured
    /// speed (its first fix): one reading from the ground alone, decided only
    /// once a second pair over the limit confirms it — and dropped, that
    /// pair with it, when the fix between them was a stray one
    /// (``AgreedSpeed/isOutAndBack(_:_:_:togetherMeters:)``).
    var opening: TrackPoint? = nil
  }
  /// A circle's last announced alert, on both clocks it can be measured on.
  struct LastAlert: Sendable, Hashable, Codable {
    /// The stretch's end when it was announced, on its phone's clock, ms.
    var milliseconds: Int64
    /// When the server received the upload that announced it, ms (kept
    /// within 1900–2200).
    var receivedMilliseconds: Int64
    /// The phone whose fix it was (nil in a state saved before phones were
    /// kept: then only the server's clock counts).
    var person: UserID?
    var device: DeviceID?
  }
  var previous: [UserID: TrackPoint] = [:]
  /// Over-limit stretch per (person, circle).
  var runs: [IdentityPair: Run] = [:]
  /// The last announced alert per circle.
  var lastAlert: [CircleID: LastAlert] = [:]

  public init() {}

  private enum CodingKeys: String, CodingKey { case previous, runs, lastAlert }

  /// Reads a saved state; a state saved when `lastAlert` held only the
  /// stretch's end (a time per circle) reads that time as its receipt too,
  /// with no phone.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    previous = try c.decode([UserID: TrackPoint].self, forKey: .previous)
    runs = try c.decode([IdentityPair: Run].self, forKey: .runs)
    if let times = try? c.decode([CircleID: Int64].self, forKey: .lastAlert) {
      lastAlert = times.mapValues { LastAlert(milliseconds: $0, receivedMilliseconds: $0) }
    } else {
      lastAlert = try c.decode([CircleID: LastAlert].self, forKey: .lastAlert)
    }
  }

  /// Each table in ascending key order (SavedTables.swift).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeInKeyOrder(previous, forKey: .previous)
    try c.encodeInKeyOrder(runs, forKey: .runs)
    try c.encodeInKeyOrder(lastAlert, forKey: .lastAlert)
  }

  static func key(_ person: UserID, _ circle: CircleID) -> IdentityPair { IdentityPair(person, circle) }
}

/// SPEC §4 speed alert: fires when a person stays over a circle's limit for
/// at least 15 s of the drive, judged on agreed speeds, so one fast reading
/// never counts (its neighbours agree on less), two in a row at 1 Hz cover
/// only a second, and two fixes a minute apart, both over, cover a minute.
/// A stretch that is one pair of fixes without a measured speed (the ground
/// alone) waits for a second pair over the limit, and a stray fix between
/// them, out and back, counts for nothing (``SpeedAlertState/Run/opening``).
/// At most one alert per circle every 30 min, but not never: a stretch held
/// back by the cooldown is said once as `suppressed`, and announced (reason
/// `cooldownEnded`) at its first later fix still over the limit once the
/// cooldown has ended. The 30 min count on the server's clock, from the
/// receipt of the upload that announced the last alert to this upload's,
/// for every phone: phones of a circle keep their own clocks, and one
/// running 4 min ahead of another must not shorten the circle's quiet to
/// 26 min; one upload is one moment, so a long upload or a phone clock that
/// steps forwards gives no second alert minutes after the first. For the
/// fixes of the phone that made the last alert the 30 min must also have
/// passed on that phone's own clock since the stretch's end, so a drive
/// uploaded late does not count the upload's delay as quiet. Loose pairs
/// (``AgreedSpeedRules``) never count as over the limit.
///
/// A drive uploaded late goes to the feed only (``LateUploadRule``). The
/// lateness belongs to the stretch that made the alert: the newest of its
/// own fixes in the upload that decided it (the stretch as far as this
/// upload shows it, past the fix that made it long enough) more than
/// 15 min old at receipt. Never the upload's or the person's newest fix: a
/// drive from hours ago followed in its upload by one fresh fix is feed
/// only, and a stretch still over the limit at a fresh fix is timely
/// however old the fix that first made it long enough.
///
/// Stream and batch are one code path (`process` on any batch); fixes not
/// newer than the person's previous fix are skipped (idempotent replay).
/// - Complexity: O(1) per fix and circle of the person.
public struct SpeedAlertEngine: Sendable {
  public let limits: [CircleID: SpeedLimit]
  public let circlesOfPerson: [UserID: [CircleID]]
  public let rules: SpeedAlertRules
  /// Room the first event of a batch reserves (``Array/append(_:reservingOnFirst:)``).
  static let firstEventRoom = 8

  /// `limits`: circle → limit (a circle without one never alerts);
  /// `circlesOfPerson`: the circles each person is in.
  public init(
    limits: [CircleID: SpeedLimit], circlesOfPerson: [UserID: [CircleID]],
    rules: SpeedAlertRules = SpeedAlertRules()
  ) {
    self.limits = limits
    self.circlesOfPerson = circlesOfPerson.mapValues { $0.sorted() }
    self.rules = rules
  }

  /// Fixes in time order per person (a batch may hold several people),
  /// uploaded at `receivedAtMilliseconds`.
  /// - Complexity: O(n × circles of the person); the neighbour distances
  ///   come from one vector pass over the batch, and the person's state is
  ///   looked up once per run of their fixes.
  public func process(
    _ fixes: FixColumns, receivedAtMilliseconds now: Int64, state: inout SpeedAlertState
  ) -> [SpeedAlertEvent] {
    process(AgreedSpeedBatch(fixes, rules: rules.agreed), receivedAtMilliseconds: now, state: &state)
  }

  /// The same, reusing a batch's neighbour speeds (shared with the sudden-stop check).
  ///
  /// The circle's cooldown goes to the earliest stretch: when people who
  /// share a limited circle are in one batch, their fixes are walked in
  /// time order across people (otherwise person by person, which is the
  /// same and cheaper). Events come out in the order decided.
  public func process(
    _ batch: AgreedSpeedBatch, receivedAtMilliseconds now: Int64, state: inout SpeedAlertState
  ) -> [SpeedAlertEvent] {
    let batch = batch.under(rules.agreed)
    let fixes = batch.fixes
    var events: [SpeedAlertEvent] = []
    // Every walker's circles in one buffer kept for the batch (a list per
    // person was most of this engine's allocations). First it holds the
    // batch's limited circles, to see whether people share one: a batch's
    // limited circles are few, so a list beats hashing.
    var slots: [Walker.Slot] = []
    slots.reserveCapacity(16)  // a batch's limited circles, usually few: one allocation
    var shared = false
    var runCount = 0
    fixes.forEachPersonRun { person, _ in
      runCount += 1
      guard !shared else { return }
      for circle in circlesOfPerson[person] ?? [] where limits[circle] != nil {
        if slots.contains(where: { $0.circle == circle }) {
          shared = true
        } else {
          slots.append((circle, 0, IdentityPair(rawValue: 0), nil))
        }
      }
    }
    guard shared else {
      // Person by person: one walker at a time, its circles at the buffer's start.
      fixes.forEachPersonRun { person, run in
        slots.removeAll(keepingCapacity: true)
        var walker = Walker(self, person, run, now, &state, &slots)
        var i = run.lowerBound
        while i < run.upperBound {
          i = walker.skipQuiet(from: i, before: run.upperBound, batch)
          guard i < run.upperBound else { break }
          walker.step(i, batch, &state, &events, &slots)
          i += 1
        }
        walker.store(&state, slots)
      }
      return events
    }
    // People sharing a circle: one walker each (a person's circles taken
    // once, at their first run), fixes in time order across people.
    slots.removeAll(keepingCapacity: true)
    var walkers: [Walker] = []
    var walkerOfPerson: [UserID: Int] = [:]
    walkerOfPerson.reserveCapacity(runCount)
    var order: [(time: Int64, user: UInt32, index: Int, walker: Int)] = []
    order.reserveCapacity(fixes.count)
    fixes.forEachPersonRun { person, run in
      let w: Int
      if let known = walkerOfPerson[person] {
        w = known
      } else {
        w = walkers.count
        walkerOfPerson[person] = w
        walkers.append(Walker(self, person, run, now, &state, &slots))
      }
      for i in run { order.append((fixes.timeMilliseconds[i], person.rawValue, i, w)) }
    }
    order.sort { ($0.time, $0.user, $0.index) < ($1.time, $1.user, $1.index) }
    for entry in order { walkers[entry.walker].step(entry.index, batch, &state, &events, &slots) }
    // Written back in person order, as the state's tables were always filled.
    walkers.sort { $0.person < $1.person }
    for walker in walkers { walker.store(&state, slots) }
    return events
  }

  /// One person's walk through a batch: their circles with a limit and
  /// open stretches, and the previous fix, read from the state and written
  /// back by `store` (read and overwritten rather than removed and
  /// re-inserted: a removal rehashes its neighbours).
  private struct Walker {
    let engine: SpeedAlertEngine
    let person: UserID
    /// The end of the person's run of fixes in the batch.
    let runEnd: Int
    /// The batch's receipt, ms.
    let now: Int64
    /// A circle with a limit: its limit (m/s), state key and open stretch.
    typealias Slot = (circle: CircleID, limit: Double, key: IdentityPair, run: SpeedAlertState.Run?)
    /// Where this person's circles sit in the batch's slot buffer.
    let circles: Range<Int>
    /// The lowest of `circles`' limits (+∞: none), and how many of them
    /// have an open stretch: a pair at or under the lowest limit with no
    /// stretch open changes nothing but the previous fix (the common case,
    /// kept out of the per-circle loop).
    var lowestLimit = Double.infinity
    var openRuns = 0
    var previous: TrackPoint?
    var previousIndex = Int.min  // where `previous` sits in this batch (not here yet)

    init(
      _ engine: SpeedAlertEngine, _ person: UserID, _ run: Range<Int>, _ now: Int64,
      _ state: inout SpeedAlertState, _ slots: inout [Slot]
    ) {
      self.engine = engine
      self.person = person
      runEnd = run.upperBound
      self.now = now
      let first = slots.count
      for circle in engine.circlesOfPerson[person] ?? [] {
        guard let limit = engine.limits[circle]?.metersPerSecond else { continue }
        let key = SpeedAlertState.key(person, circle)
        let run = state.runs[key]
        slots.append((circle, limit, key, run))
        lowestLimit = min(lowestLimit, limit)
        if run != nil { openRuns += 1 }
      }
      circles = first..<slots.count
      previous = state.previous[person]
    }

    mutating func step(
      _ i: Int, _ batch: AgreedSpeedBatch, _ state: inout SpeedAlertState, _ events: inout [SpeedAlertEvent],
      _ slots: inout [Slot]
    ) {
      let current = TrackPoint(batch.fixes, i)
      guard let before = previous else {
        (previous, previousIndex) = (current, i)
        return
      }
      guard current.time > before.time else { return }
      let agreed = batch.speed(from: before, at: previousIndex, to: current, at: i)
      (previous, previousIndex) = (current, i)
      if openRuns == 0 {
        // Nothing open: only a pair over some circle's limit can open a stretch.
        guard let (speed, loose) = agreed, !loose, speed > lowestLimit else { return }
      }
      openRuns = 0
      defer {
        for c in circles where slots[c].run != nil { openRuns += 1 }
      }
      for c in circles {
        guard let (speed, loose) = agreed, !loose, speed > slots[c].limit else {
          slots[c].run = nil
          continue
        }
        var stretch =
          slots[c].run
          ?? .init(
            start: before.time, end: current.time, fastest: speed, verdict: .open,
            opening: before.speed == nil && current.speed == nil ? before : nil)
        if let opening = stretch.opening, stretch.end == before.time {
          // The second pair of a stretch on the ground alone: a stray fix
          // between the two (out and back) voids it and this pair;
          // otherwise it confirms it.
          if AgreedSpeed.isOutAndBack(opening, before, current) {
            slots[c].run = nil
            continue
          }
          stretch.opening = nil
        }
        stretch.end = current.time
        stretch.fastest = max(stretch.fastest, speed)
        let limit = slots[c].limit
        if stretch.verdict != .done && stretch.opening == nil
          && stretch.end.saturatingSubtract(stretch.start) >= engine.rules.minimumOverMilliseconds,
          let event = engine.decide(
            person, batch.fixes.device[i], slots[c].circle, &stretch, limit: limit,
            late: { newestOfStretch(from: current, at: i, over: limit, batch) }, receivedAtMilliseconds: now,
            state: &state)
        {
          events.append(event, reservingOnFirst: SpeedAlertEngine.firstEventRoom)
        }
        slots[c].run = stretch
      }
    }

    /// The fixes from `start` that ``step(_:_:_:_:_:)`` would only take as
    /// the previous fix, passed over in one tight loop over the batch's
    /// columns: while no stretch is open and each fix is newer than the one
    /// before it in the batch, a pair that is unmeasured, loose or at most
    /// the lowest limit changes nothing else (what `step` checks first, so
    /// the walk is the same). Returns the first fix it did not pass over
    /// (`end` when it passed every one). O(fixes passed over), at least one
    /// when it returns more than `start`.
    @inline(__always)
    mutating func skipQuiet(from start: Int, before end: Int, _ batch: AgreedSpeedBatch) -> Int {
      guard openRuns == 0, previousIndex == start - 1, start < end else { return start }
      let time = batch.fixes.timeMilliseconds
      let speed = batch.neighbourMetersPerSecond
      let loose = batch.neighbourIsLoose
      let lowest = lowestLimit
      var i = start
      while i < end && time[i] > time[i - 1] && (loose[i] || !(speed[i] > lowest)) {  // (NaN: not over)
        i += 1
      }
      if i > start { (previous, previousIndex) = (TrackPoint(batch.fixes, i - 1), i - 1) }
      return i
    }

    /// The time of the stretch's newest fix in this batch: from the fix at
    /// `i`, on through the person's later fixes while each next pair is
    /// still over `limit` (fixes not newer than the one before are skipped,
    /// as `step` skips them). Asked only when a decision is announced or
    /// fed, so O(the stretch's fixes) once per alert.
    private func newestOfStretch(
      from current: TrackPoint, at i: Int, over limit: Double, _ batch: AgreedSpeedBatch
    ) -> Int64 {
      var (before, beforeIndex) = (current, i)
      var j = i + 1
      while j < runEnd {
        let next = TrackPoint(batch.fixes, j)
        if next.time > before.time {
          guard let (speed, loose) = batch.speed(from: before, at: beforeIndex, to: next, at: j), !loose,
            speed > limit
          else { break }
          (before, beforeIndex) = (next, j)
        }
        j += 1
      }
      return before.time
    }

    func store(_ state: inout SpeedAlertState, _ slots: [Slot]) {
      state.previous[person] = previous
      // A stretch that ended is dropped; one still open is kept.
      for c in circles { state.runs[slots[c].key] = slots[c].run }
    }
  }

  /// Drops open stretches of (person, circle) pairs this engine no longer
  /// has (the person left the circle, or its limit was removed); returns
  /// how many. O(stretches).
  public func reconcile(_ state: inout SpeedAlertState) -> Int {
    var valid = Set<IdentityPair>()
    for (person, circles) in circlesOfPerson {
      for circle in circles where limits[circle] != nil { valid.insert(SpeedAlertState.key(person, circle)) }
    }
    let before = state.runs.count
    state.runs = state.runs.filter { valid.contains($0.key) }
    return before - state.runs.count
  }

  /// A stretch has been over the limit long enough: announce it, or say why
  /// not (a stretch held by the cooldown is said once, then waits for the
  /// cooldown to end; nil while it waits). `newestOfStretch`: the time of
  /// the stretch's newest fix in the upload, asked only when the cooldown
  /// does not hold the stretch back.
  fileprivate func decide(
    _ person: UserID, _ device: DeviceID, _ circle: CircleID, _ run: inout SpeedAlertState.Run, limit: Double,
    late newestOfStretch: () -> Int64, receivedAtMilliseconds now: Int64, state: inout SpeedAlertState
  ) -> SpeedAlertEvent? {
    var reasons: ReasonList<SpeedAlertEvent.Reason> = [.overLimitLongEnough]
    var outcome = SpeedAlertEvent.Outcome.announced
    let held = run.verdict == .heldByCooldown
    if let last = state.lastAlert[circle], !cooled(since: last, person, device, end: run.end, now: now) {
      guard !held else { return nil }
      reasons.append(.cooldown)
      outcome = .suppressed
      run.verdict = .heldByCooldown
    } else {
      if held { reasons.append(.cooldownEnded) }
      if rules.late.isLate(newestFixMilliseconds: newestOfStretch(), receivedAtMilliseconds: now) {
        reasons.append(.lateUpload)
        outcome = .feedOnly
      }
      run.verdict = .done
      if outcome == .announced {
        // The receipt is kept on the window a saved state takes (a Swift
        // caller's clock is not checked at a door).
        let window = FixValidation.plausibleMilliseconds
        state.lastAlert[circle] = .init(
          milliseconds: run.end,
          receivedMilliseconds: min(max(now, window.lowerBound), window.upperBound - 1),
          person: person, device: device)
      }
    }
    return SpeedAlertEvent(
      person: person, circle: circle, outcome: outcome, reasons: reasons, startMilliseconds: run.start,
      endMilliseconds: run.end, agreedSpeedMetersPerSecond: run.fastest, limitMetersPerSecond: limit)
  }

  /// Whether the circle's cooldown since `last` is over for a stretch of
  /// `person`'s `device` ending at `end` (its clock) in an upload received
  /// at `now`: 30 min since `last`'s receipt on the server's clock (the
  /// clock every alert is heard on), and, for the phone that made `last`,
  /// 30 min since its end on that phone's own clock too (review22 F1: its
  /// clock alone let a long upload or a clock stepping forwards give a
  /// second alert minutes after the first). O(1).
  private func cooled(
    since last: SpeedAlertState.LastAlert, _ person: UserID, _ device: DeviceID, end: Int64, now: Int64
  ) -> Bool {
    guard now.saturatingSubtract(last.receivedMilliseconds) >= rules.cooldownMilliseconds else {
      return false
    }
    let sameClock = last.person == person && last.device == device
    return !sameClock || end.saturatingSubtract(last.milliseconds) >= rules.cooldownMilliseconds
  }

}
