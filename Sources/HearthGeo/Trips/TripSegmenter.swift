/// A segment of one person's fixes that was closed, with its verdict.
/// `isTrip` segments are trips: their points carry `id`.
public struct TripSegment: Sendable, Hashable, Codable {
  /// Unique per person: person << 32 | the person's segment number (from 1;
  /// it stops at 2³² − 1, so only after 4 · 10⁹ segments of one person
  /// would ids repeat).
  public var id: UInt64
  public var person: UserID
  public var isTrip: Bool
  /// `.valid` or `.journeyBetweenNamedPlaces` for a trip; otherwise every
  /// threshold that failed.
  public var reasons: ReasonList<TripReason>
  public var endedBy: TripEnd
  /// The points, in time order (heartbeats and network estimates left out).
  public var fixes: [Fix]
  /// Named places holding the first and last point (smallest; nil: none).
  /// The journey rule uses these; `TripNaming` names the ends for people.
  public var startPlace: PlaceID?
  public var endPlace: PlaceID?
  public var summary: TripSummary
}

/// A stay: the phone stayed within the dwell radius of a fix for longer
/// than the dwell time, then left. From the first fix at which it had
/// stopped moving (where the trip before ended) to the last fix before it
/// moved off again (where the next one starts); see ``TripRules`` for what
/// "moving" is. A stay the phone has not left yet is not reported.
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
  /// End minus start, ms (clamped to Int64's range, as every engine's time
  /// arithmetic is).
  public var durationMilliseconds: Int64 { endMilliseconds.saturatingSubtract(startMilliseconds) }

  /// The aggregates of `fixes` (time order); nil for no fixes. O(n): one
  /// pass for the steps and the distances from the start (each point's
  /// cosine once), in one scratch buffer (on the stack up to 32 fixes, else
  /// one heap allocation). The top speed leaves loose pairs out (``AgreedSpeedRules``),
  /// as the speed alert does.
  public init?(_ fixes: [Fix], rules: AgreedSpeedRules = AgreedSpeedRules()) {
    guard let first = fixes.first, let last = fixes.last else { return nil }
    startMilliseconds = first.timeMilliseconds
    endMilliseconds = last.timeMilliseconds
    start = first.coordinate
    end = last.coordinate
    let n = fixes.count
    (pathMeters, maxAgreedSpeedMetersPerSecond, displacementMeters) = withUnsafeTemporaryAllocation(
      of: Double.self, capacity: 4 * n
    ) { scratch in
      let latitudes = UnsafeMutableBufferPointer(rebasing: scratch[0..<n])
      let longitudes = UnsafeMutableBufferPointer(rebasing: scratch[n..<(2 * n)])
      let distances = UnsafeMutableBufferPointer(rebasing: scratch[(2 * n)..<(3 * n)])
      let fromStartBuffer = UnsafeMutableBufferPointer(rebasing: scratch[(3 * n)..<(4 * n)])
      // Every coordinate is written here (Doubles: writing initialises);
      // only the distances, which the kernel sees as spans, are zeroed first.
      for (i, fix) in fixes.enumerated() {
        latitudes.initializeElement(at: i, to: fix.latitudeDegrees)
        longitudes.initializeElement(at: i, to: fix.longitudeDegrees)
      }
      distances.initialize(repeating: 0)
      fromStartBuffer.initialize(repeating: 0)
      // The steps and the distances from the start in one pass (each
      // point's cosine once), bit for bit the two separate kernels.
      var steps = distances.mutableSpan
      var fromStart = fromStartBuffer.mutableSpan
      GreatCircle.stepsAndDistancesFromFirstMeters(
        latitudesDegrees: UnsafeBufferPointer(latitudes).span,
        longitudesDegrees: UnsafeBufferPointer(longitudes).span, steps: &steps, fromFirst: &fromStart)
      // The path as `trackDistancesMeters` adds it (bit-identical), and the
      // fastest neighbour agreement: `AgreedSpeed.pair` on the steps
      // already measured.
      var path = CompensatedSum()
      path.add(distances[0])
      var fastest: Double?
      for i in 1..<n {
        path.add(distances[i])
        let (a, b) = (fixes[i - 1], fixes[i])
        if let v = AgreedSpeed.pair(
          intervalMilliseconds: b.timeMilliseconds.saturatingSubtract(a.timeMilliseconds),
          distanceMeters: distances[i],
          a.horizontalAccuracyMeters, a.speedMetersPerSecond, b.horizontalAccuracyMeters,
          b.speedMetersPerSecond,
          rules: rules), v.source != .loose, v.metersPerSecond > fastest ?? -.infinity
        {
          fastest = v.metersPerSecond
        }
      }
      var farthest = 0.0
      for d in fromStartBuffer where d > farthest { farthest = d }
      return (path.value, fastest, farthest)
    }
    let seconds = Double(endMilliseconds.saturatingSubtract(startMilliseconds)) / 1000
    averageSpeedMetersPerSecond = seconds > 0 ? pathMeters / seconds : 0
  }
}

/// Everything the segmenter remembers between calls (`Codable`).
public struct TripSegmenterState: Sendable, Hashable, Codable {
  struct Person: Sendable, Hashable, Codable {
    /// Fixes received but not yet considered (newer than the watermark, not
    /// yet idle-gap old), time order.
    var pending = PendingFixes()
    /// Everything at or before this was considered; later arrivals that old are dropped.
    var watermark = Int64.min
    /// The open segment.
    var segment: [Fix] = []
    /// Index in `segment` of the first fix of the current possible stay.
    var anchor = 0
    /// Dwelling: the fix whose dwell-radius disc the phone stays in (the
    /// segment then holds the fixes since the phone last stood still, so a
    /// trip leaving the stay starts at its last stationary fix).
    var dwellAnchor: Fix?
    /// Dwelling: the first fix at which the phone had stopped (the stay's start).
    var stayStart: Fix?
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
    /// A second fix at a millisecond already pending (another phone of the
    /// person, or a retry the dedupe did not see): the first one stays.
    var duplicates = 0

    init() {}

    enum CodingKeys: String, CodingKey {
      case pending, watermark, segment, anchor, dwellAnchor, stayStart, segmentsClosed, droppedLate, skipped
      case duplicates
    }

    // The fixes go through `SavedFix`: a fix with no accuracy (NaN, kept on
    // purpose) would otherwise make the state impossible to save as JSON.
    init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      pending = PendingFixes(try c.decode([SavedFix].self, forKey: .pending).map(\.fix))
      watermark = try c.decode(Int64.self, forKey: .watermark)
      segment = try c.decode([SavedFix].self, forKey: .segment).map(\.fix)
      anchor = try c.decode(Int.self, forKey: .anchor)
      dwellAnchor = try c.decodeIfPresent(SavedFix.self, forKey: .dwellAnchor)?.fix
      stayStart = try c.decodeIfPresent(SavedFix.self, forKey: .stayStart)?.fix
      segmentsClosed = try c.decode(UInt32.self, forKey: .segmentsClosed)
      if let problem = SavedCount.closedSegmentsProblem(segmentsClosed) {
        throw DecodingError.dataCorruptedError(forKey: .segmentsClosed, in: c, debugDescription: problem)
      }
      droppedLate = try SavedCount.checked(c.decode(Int.self, forKey: .droppedLate), .droppedLate, in: c)
      skipped = try SavedCount.checked(c.decode(Int.self, forKey: .skipped), .skipped, in: c)
      // (Absent from older states.)
      duplicates = try SavedCount.checked(
        c.decodeIfPresent(Int.self, forKey: .duplicates) ?? 0, .duplicates, in: c)
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(pending.fixes.map(SavedFix.init), forKey: .pending)
      try c.encode(watermark, forKey: .watermark)
      try c.encode(segment.map(SavedFix.init), forKey: .segment)
      try c.encode(anchor, forKey: .anchor)
      try c.encodeIfPresent(dwellAnchor.map(SavedFix.init), forKey: .dwellAnchor)
      try c.encodeIfPresent(stayStart.map(SavedFix.init), forKey: .stayStart)
      try c.encode(segmentsClosed, forKey: .segmentsClosed)
      try c.encode(droppedLate, forKey: .droppedLate)
      try c.encode(skipped, forKey: .skipped)
      try c.encode(duplicates, forKey: .duplicates)
    }
  }

  /// A fix as saved: `Fix`'s own fields, except that an unknown accuracy
  /// (NaN, which JSON cannot hold) is saved as 0 with `accuracyUnknown`.
  /// A fix saved before this existed decodes as it was.
  struct SavedFix: Codable {
    var fix: Fix
    enum CodingKeys: String, CodingKey { case accuracyUnknown }

    init(_ fix: Fix) { self.fix = fix }

    init(from decoder: any Decoder) throws {
      fix = try Fix(from: decoder)
      let c = try decoder.container(keyedBy: CodingKeys.self)
      if try c.decodeIfPresent(Bool.self, forKey: .accuracyUnknown) == true {
        fix.horizontalAccuracyMeters = .nan
      }
    }

    func encode(to encoder: any Encoder) throws {
      var saved = fix
      let unknown = fix.horizontalAccuracyMeters.isNaN
      if unknown { saved.horizontalAccuracyMeters = 0 }
      try saved.encode(to: encoder)
      if unknown {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(true, forKey: .accuracyUnknown)
      }
    }
  }
  var people: [UserID: Person] = [:]
  /// People with pending fixes or an open segment, and the earliest time a
  /// clock advance can change anything for them (what `advance` visits).
  var waiting = DeadlineTable()

  public init() {}

  enum CodingKeys: String, CodingKey { case people, waiting }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    people = try container.decode([UserID: Person].self, forKey: .people)
    for (key, person) in people {
      // What the segmenter indexes must be in range: a corrupted state is an error, not a trap.
      guard person.segment.isEmpty ? person.anchor == 0 : person.segment.indices.contains(person.anchor),
        zip(person.pending.fixes, person.pending.fixes.dropFirst()).allSatisfy({
          $0.timeMilliseconds < $1.timeMilliseconds
        })
      else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: [CodingKeys.people], debugDescription: "trip state of person \(key) is inconsistent"))
      }
    }
    waiting = try container.decode(DeadlineTable.self, forKey: .waiting)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeInKeyOrder(people, forKey: .people)
    try container.encode(waiting, forKey: .waiting)
  }

  /// Fixes that arrived after their time had already been considered, per person.
  public func droppedLate(_ person: UserID) -> Int { people[person]?.droppedLate ?? 0 }
  /// Heartbeats and network estimates skipped, per person.
  public func skipped(_ person: UserID) -> Int { people[person]?.skipped ?? 0 }
  /// Fixes left out because one at the same millisecond was already pending, per person.
  public func duplicates(_ person: UserID) -> Int { people[person]?.duplicates ?? 0 }

  /// The earliest time a segment of `person` that has not closed yet can
  /// start at, ms since the epoch: the open segment's first fix, else just
  /// after the watermark (fixes at or before it are dropped as late); nil
  /// for a person the segmenter has never been given. `TripNaming.Memory`
  /// forgets what is older. O(1).
  public func earliestOpenStartMilliseconds(_ person: UserID) -> Int64? {
    guard let p = people[person] else { return nil }
    return p.segment.first?.timeMilliseconds ?? p.watermark.saturatingAdd(1)
  }
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
  /// each person's circles (nil: every place counts for everyone; a person
  /// it does not list sees every place, as in ``GeofenceEngine``).
  public init(
    places: [Geofence] = [], circlesOfPerson: [UserID: [CircleID]]? = nil, rules: TripRules = TripRules(),
    cellSizeMeters: Double? = nil
  ) {
    self.rules = rules
    self.places = places.isEmpty ? nil : GeofenceIndex(places: places, cellSizeMeters: cellSizeMeters)
    self.circlesOfPerson = circlesOfPerson
  }

  /// The same segmenter over an index of the named places already built
  /// (a pipeline shares one among its engines; nil: no named places).
  public init(
    index: GeofenceIndex?, circlesOfPerson: [UserID: [CircleID]]? = nil, rules: TripRules = TripRules()
  ) {
    self.rules = rules
    places = index.flatMap { $0.places.isEmpty ? nil : $0 }
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
    var people = Set<UserID>()
    // Fixes that go before one already pending (none, usually): sorted in
    // once per person, after all of the person's runs are taken, so that
    // people's fixes interleaved in the batch do not cost a merge per run.
    var before: [Int] = []
    fixes.forEachPersonRun { user, run in
      if !sortedByPerson { people.insert(user) }
      take(
        fixes, run, now: now, advancing: sortedByPerson, user.rawValue,
        &state.people[user, default: .init()], &before, &closed)
      if sortedByPerson { track(user, state: &state) }
    }
    if !sortedByPerson {
      before.sort {
        (fixes.user[$0].rawValue, fixes.timeMilliseconds[$0], $0) < (
          fixes.user[$1].rawValue, fixes.timeMilliseconds[$1], $1
        )
      }
      var start = 0
      while start < before.count {
        let key = fixes.user[before[start]]
        var end = start + 1
        while end < before.count && fixes.user[before[end]] == key { end += 1 }
        sortIn(before[start..<end], of: fixes, &state.people[key, default: .init()])
        start = end
      }
      closed += advance(to: now, people: people.sorted(), state: &state)
    }
    return closed
  }

  /// One person's run of a batch into their pending fixes (late ones,
  /// heartbeats and network estimates counted and left out), then, when
  /// `advancing` (the person's only run), the advance to `now`. A fix
  /// later than every pending one joins at the back; the positions of the
  /// others are added to `before`, sorted in here when advancing, else by
  /// the caller once every run is taken.
  private func take(
    _ fixes: FixColumns, _ run: Range<Int>, now: Int64, advancing: Bool, _ key: UInt32,
    _ person: inout TripSegmenterState.Person, _ before: inout [Int], _ closed: inout TripOutput
  ) {
    if advancing, !run.isEmpty,
      fixes.timeMilliseconds[run.lowerBound] > person.pending.last?.timeMilliseconds ?? .min,
      strictlyIncreasing(fixes.timeMilliseconds, run)
    {
      takeInOrder(fixes, run, now: now, key, &person, &closed)
      return
    }
    // Room for the whole run at once: one allocation at most, not a
    // doubling series per batch.
    person.pending.reserveRoom(for: run.count)
    for i in run {
      if fixes.timeMilliseconds[i] <= person.watermark {
        person.droppedLate += 1
      } else if fixes.source[i] == .heartbeat
        || fixes.horizontalAccuracyMeters[i] > rules.skipAccuracyAboveMeters
      {
        // (An unknown accuracy, NaN, is no sign of a network estimate: kept.)
        person.skipped += 1
      } else if let last = person.pending.last, fixes.timeMilliseconds[i] <= last.timeMilliseconds {
        before.append(i)
      } else {
        person.pending.append(fixes[i])
      }
    }
    guard advancing else { return }
    if !before.isEmpty {
      before.sort { (fixes.timeMilliseconds[$0], $0) < (fixes.timeMilliseconds[$1], $1) }
      sortIn(before[...], of: fixes, &person)
      before.removeAll(keepingCapacity: true)
    }
    advance(to: now, key, &person, &closed)
  }

  /// Sorts one person's fixes at `positions`, ordered by (time, position
  /// in the batch), into their pending list. One at a time from the back
  /// was O(p k) for k fixes and p pending (a day uploaded in reverse
  /// order, 86 400 fixes, moved 3.7 · 10⁹ of them); this merge is
  /// O(log p + k + the pending fixes after the earliest of them). A fix at
  /// a millisecond already pending, or taken by an earlier fix of these,
  /// is a duplicate: the first one received stays (a fix that joined at
  /// the back before one of these with its time was received before it).
  private func sortIn(
    _ positions: ArraySlice<Int>, of fixes: FixColumns, _ person: inout TripSegmenterState.Person
  ) {
    guard let earliest = positions.first else { return }
    var fresh: [Fix] = []
    fresh.reserveCapacity(positions.count)
    // The first pending fix not before the one considered (found by
    // halving for the earliest, then walked).
    var p = person.pending.firstIndex(notBefore: fixes.timeMilliseconds[earliest])
    for i in positions {
      let time = fixes.timeMilliseconds[i]
      while p < person.pending.count && person.pending[p].timeMilliseconds < time { p += 1 }
      if (p < person.pending.count && person.pending[p].timeMilliseconds == time)
        || fresh.last?.timeMilliseconds == time
      {
        person.duplicates += 1
      } else {
        fresh.append(fixes[i])
      }
    }
    person.pending.merge(fresh)
  }

  /// Whether the times of `run` rise strictly. O(run).
  private func strictlyIncreasing(_ time: [Int64], _ run: Range<Int>) -> Bool {
    time.withUnsafeBufferPointer { time in
      var i = run.lowerBound &+ 1
      while i < run.upperBound {
        if time[i] <= time[i &- 1] { return false }
        i &+= 1
      }
      return true
    }
  }

  /// `take` then `advance` for a run whose times rise strictly and all come
  /// after every pending fix (the usual upload): the pending fixes older
  /// than the idle gap are considered, then the run's, straight from the
  /// batch, in the order the pending list would have sorted them into (no
  /// duplicates can occur, and the late ones are a prefix), and only the
  /// rest wait in `pending`. Identical to the general path.
  private func takeInOrder(
    _ fixes: FixColumns, _ run: Range<Int>, now: Int64, _ key: UInt32,
    _ person: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    // (Saturating: any clock a door hands over, Int64.min included.)
    let frontier = now.saturatingSubtract(rules.idleGapMilliseconds)
    let watermark = person.watermark
    var considered = Int64.min
    let ready = person.pending.fixes.prefix { $0.timeMilliseconds <= frontier }.count
    person.segment.reserveRoom(for: ready + run.count)
    if ready > 0 {
      for fix in person.pending.fixes.prefix(ready) { consume(fix, UserID(key), &person, &closed) }
      considered = person.pending[ready - 1].timeMilliseconds
      person.pending.removeFirst(ready)
    }
    for i in run {
      let time = fixes.timeMilliseconds[i]
      if time <= watermark {
        person.droppedLate += 1
      } else if fixes.source[i] == .heartbeat
        || fixes.horizontalAccuracyMeters[i] > rules.skipAccuracyAboveMeters
      {
        person.skipped += 1
      } else if time <= frontier {
        consume(fixes[i], UserID(key), &person, &closed)
        considered = time
      } else {
        person.pending.append(fixes[i])
      }
    }
    if considered != .min { person.watermark = considered }
    closeIfIdle(now: now, UserID(key), &person, &closed)
  }

  /// Considers every pending fix older than `now` − idle gap and closes
  /// segments nothing can continue any more. People in ascending id order;
  /// only those for whom something can change by `now` are visited (the
  /// others would be left as they are).
  /// - Complexity: O(w log n) plus the work done, for w people due of n waiting.
  public func advance(to now: Int64, state: inout TripSegmenterState) -> TripOutput {
    guard state.waiting.anyDue(atOrBefore: now) else { return TripOutput() }
    let due = state.waiting.due(atOrBefore: now)
    guard !due.isEmpty else { return TripOutput() }
    return advance(to: now, people: due, state: &state)
  }

  private func advance(to now: Int64, people: [UserID], state: inout TripSegmenterState) -> TripOutput {
    var closed = TripOutput()
    for key in people {
      // (A saved state may list a person it does not hold: forget the entry.)
      guard var person = state.people.removeValue(forKey: key) else {
        state.waiting[key] = nil
        continue
      }
      advance(to: now, key.rawValue, &person, &closed)
      state.people[key] = person
      track(key, state: &state, now: now)
    }
    return closed
  }

  /// Makes `state`, kept under other places or circle memberships, fit this
  /// segmenter: every open segment is looked at again by the next clock
  /// advance, since the places decide whether it waits as a possible journey
  /// origin (one whose origin was removed closes then, not after the 45 min
  /// journey silence it was scheduled for). Nothing is dropped. Returns how
  /// many people were rescheduled. Call it once before the first batch
  /// under the new configuration (`IngestPipeline.adopt` does).
  /// - Complexity: O(people with state).
  @discardableResult
  public func reconcile(_ state: inout TripSegmenterState) -> Int {
    var rescheduled = 0
    for (key, person) in state.people where person.dwellAnchor == nil {
      guard let last = person.segment.last else { continue }
      let user = key
      let soonest = last.timeMilliseconds.saturatingAdd(rules.idleGapMilliseconds)
        .saturatingAdd(rules.splitGapMilliseconds).saturatingAdd(1)
      state.waiting[user] = min(state.waiting[user] ?? soonest, soonest)
      rescheduled += 1
    }
    return rescheduled
  }

  /// Notes when a clock advance can next change anything for `user`: the
  /// earlier of when their oldest pending fix leaves the idle gap and when
  /// the open segment can be closed as idle (after the split gap, then after
  /// the journey silence; fixes still pending do not hold it open, see
  /// `closeIfIdle`); nothing when neither can happen.
  private func track(_ user: UserID, state: inout TripSegmenterState, now: Int64 = .min) {
    guard let person = state.people[user] else {
      state.waiting[user] = nil
      return
    }
    var deadline = person.pending.first.map { $0.timeMilliseconds.saturatingAdd(rules.idleGapMilliseconds) }
    if person.dwellAnchor == nil, let last = person.segment.last {
      let idleFrom = last.timeMilliseconds.saturatingAdd(rules.idleGapMilliseconds)
      let afterSplit = idleFrom.saturatingAdd(rules.splitGapMilliseconds).saturatingAdd(1)
      let closing =
        now < afterSplit
        ? afterSplit : idleFrom.saturatingAdd(rules.journeySilenceMilliseconds).saturatingAdd(1)
      deadline = min(deadline ?? closing, closing)
    }
    state.waiting[user] = deadline
  }

  /// One person's pending fixes older than `now` − idle gap, then the idle check.
  private func advance(
    to now: Int64, _ key: UInt32, _ person: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    // (Saturating: any clock a door hands over, Int64.min included.)
    let frontier = now.saturatingSubtract(rules.idleGapMilliseconds)
    let ready = person.pending.fixes.prefix { $0.timeMilliseconds <= frontier }.count
    if ready > 0 {
      // Room for every fix this advance can add to the open segment (a
      // segment closed on the way hands its storage over; the next one
      // grows from the stay's fixes or from empty).
      person.segment.reserveRoom(for: ready)
      for fix in person.pending.fixes.prefix(ready) { consume(fix, UserID(key), &person, &closed) }
      person.watermark = person.pending[ready - 1].timeMilliseconds
      person.pending.removeFirst(ready)
    }
    closeIfIdle(now: now, UserID(key), &person, &closed)
  }

  // MARK: The rules

  /// The smallest named place of the person's circles holding `point`; a
  /// person the table does not list (or no table) sees every circle's
  /// places, as in ``GeofenceEngine``.
  func namedPlace(_ point: Coordinate, _ person: UserID) -> PlaceID? {
    guard let places else { return nil }
    let circles = circlesOfPerson?[person]
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
    let gap = fix.timeMilliseconds.saturatingSubtract(last.timeMilliseconds)
    if gap > rules.splitGapMilliseconds {
      let continues: Bool
      if gap > rules.journeySilenceMilliseconds {
        continues = false
      } else if let from = namedPlace(last.coordinate, person), let to = namedPlace(fix.coordinate, person),
        from != to
      {
        continues = true  // a journey between two named places
        if s.dwellAnchor == nil { startJourney(at: from, &s, person, &closed) }
      } else {
        let across =
          GreatCircle.distanceMeters(from: last.coordinate, to: fix.coordinate) / (Double(gap) / 1000)
        continues = moving(s.segment) && across >= rules.travelledThroughMetersPerSecond
      }
      if !continues {
        // A silence ends the segment (`.gap`), whether the server learns of
        // it from this fix or from its clock first (`closeIfIdle`): the
        // same segments and stays however the fixes were uploaded.
        if s.dwellAnchor == nil {
          endAtStay(&s)
          close(&s, person, .gap, &closed)
        }
        if let stay = s.dwellAnchor,
          GreatCircle.Separation(stay.coordinate, fix.coordinate).isAbove(rules.dwellRadiusMeters)
        {
          leave(stay, &s, person, &closed)
        }
        s.restart(at: fix)
        return
      }
    }
    if let stay = s.dwellAnchor {
      if GreatCircle.Separation(stay.coordinate, fix.coordinate).isAtMost(rules.dwellRadiusMeters) {
        // Still staying. The segment keeps the fixes since the phone last
        // stood still (a moving run inside the disc longer than the dwell
        // time is staying too), so the next trip starts at the stay's last
        // stationary fix.
        if let last = s.segment.last, moving(last, fix),
          fix.timeMilliseconds.saturatingSubtract(s.segment.first?.timeMilliseconds ?? fix.timeMilliseconds)
            <= rules.dwellMilliseconds
        {
          s.segment.append(fix)
        } else {
          s.restart(at: fix)
        }
        return
      }
      leave(stay, &s, person, &closed)
      s.segment.append(fix)
      s.anchor = s.segment.count - 1
      return
    }
    s.segment.append(fix)
    let anchor = s.segment[s.anchor]
    if GreatCircle.Separation(anchor.coordinate, fix.coordinate).isAbove(rules.dwellRadiusMeters) {
      s.anchor = s.segment.count - 1  // left the possible stay: a new one may start here
      return
    }
    if fix.timeMilliseconds.saturatingSubtract(anchor.timeMilliseconds) > rules.dwellMilliseconds {
      // A stay: the segment ends at the first fix where the phone had
      // stopped; the stay's fixes since it last stood still are kept for
      // the next trip's start.
      var tail = Array(s.segment[s.anchor...])
      let stopped = endAtStay(&s)
      close(&s, person, .dwell, &closed)
      s.dwellAnchor = anchor
      s.stayStart = stopped
      // The stay goes on in the tail's own storage: the trip's (handed to
      // the closed segment) would be held for as long as the person stays.
      tail.removeFirst(lastStationary(tail))
      s.segment = tail
      s.anchor = 0
    }
  }

  /// A journey from the named place `origin` goes on from the segment's
  /// last fix (SPEC §7: the trip starts at the last fix at the origin). The
  /// fixes before it are a segment of their own, closed (`.gap`) at the
  /// first of the fixes at the origin that end it: the drive that came to
  /// the origin, not part of the journey (specrev-geo F1: it was, so a trip
  /// from home through school to work was one trip). A segment with no fix
  /// before that run closes nothing. Not while staying: a stay already
  /// ends the segment, and the journey starts where the phone last stood
  /// still. O(segment) named-place checks, only on a journey.
  private func startJourney(
    at origin: PlaceID, _ s: inout TripSegmenterState.Person, _ person: UserID, _ closed: inout TripOutput
  ) {
    guard let last = s.segment.last else { return }
    var first = s.segment.count - 1
    while first > 0 && namedPlace(s.segment[first - 1].coordinate, person) == origin { first -= 1 }
    if first + 1 < s.segment.count { s.segment.removeSubrange((first + 1)...) }
    close(&s, person, .gap, &closed)
    s.restart(at: last)
  }

  /// Whether the step from `a` to `b` is moving (where a stay ends and
  /// starts): either fix measured at least `travelledThroughMetersPerSecond`,
  /// or the ground between them, with both accuracies taken off, allows no
  /// less. So the step off a stay (a stationary fix, then a walking one) is
  /// moving, and jitter within the fixes' accuracy is not.
  func moving(_ a: Fix, _ b: Fix) -> Bool {
    let v = rules.travelledThroughMetersPerSecond
    if (a.speedMetersPerSecond ?? 0) >= v || (b.speedMetersPerSecond ?? 0) >= v { return true }
    let seconds = Double(b.timeMilliseconds.saturatingSubtract(a.timeMilliseconds)) / 1000
    guard seconds > 0 else { return false }
    func allowance(_ accuracy: Double) -> Double { accuracy.isFinite && accuracy > 0 ? accuracy : 0 }
    let (allowanceA, allowanceB) = (
      allowance(a.horizontalAccuracyMeters), allowance(b.horizontalAccuracyMeters)
    )
    // (distance − allowances) / seconds ≥ v, decided without the distance
    // where it is clearly above or below what that needs; near the line,
    // exactly as written. (With v > 0 every term of the threshold is
    // positive, so Separation's margins are far wider than the rounding of
    // the two forms; otherwise, exactly as written.)
    let separation = GreatCircle.Separation(a.coordinate, b.coordinate)
    switch v > 0 ? separation.side(of: v * seconds + allowanceA + allowanceB) : 0 {
    case -1: return false
    case 1: return true
    default: return (separation.meters - allowanceA - allowanceB) / seconds >= v
    }
  }

  /// The index in `fixes` of the last fix whose step in was not moving
  /// (0 when every step was): where the phone last stood still.
  func lastStationary(_ fixes: [Fix]) -> Int {
    var k = fixes.count - 1
    while k > 0 && moving(fixes[k - 1], fixes[k]) { k -= 1 }
    return max(0, k)
  }

  /// The phone left the stay whose disc is around `stay`: report it, from
  /// the fix where it had stopped to the one where it last stood still.
  private func leave(
    _ stay: Fix, _ s: inout TripSegmenterState.Person, _ person: UserID, _ closed: inout TripOutput
  ) {
    let start = s.stayStart ?? stay
    let end = s.segment.first ?? start
    closed.stays.append(
      TripStay(
        person: person, startMilliseconds: start.timeMilliseconds,
        endMilliseconds: max(start.timeMilliseconds, end.timeMilliseconds), coordinate: start.coordinate),
      reservingOnFirst: 8)
    s.dwellAnchor = nil
    s.stayStart = nil
  }

  /// Ends the segment where the phone stopped in the stay it ends in (every
  /// fix from the anchor on lies within the dwell radius of the anchor): at
  /// the first fix from the anchor on whose next step is not moving (or the
  /// last fix). Returns that fix.
  @discardableResult
  private func endAtStay(_ s: inout TripSegmenterState.Person) -> Fix? {
    guard s.segment.indices.contains(s.anchor) else { return s.segment.last }
    var e = s.anchor
    while e + 1 < s.segment.count && moving(s.segment[e], s.segment[e + 1]) { e += 1 }
    if e + 1 < s.segment.count { s.segment.removeSubrange((e + 1)...) }
    return s.segment.last
  }

  /// Closes the open segment when no later fix could continue it: over the
  /// journey silence, or over the split gap when the last fix was not moving
  /// and is not at a named place (a possible journey origin). Fixes still
  /// waiting out the idle gap do not keep it open: each lies beyond the
  /// split gap after the last fix, so by these rules it cannot continue the
  /// segment either (what makes a batch and the same fixes in any split
  /// close the same segments the same way; found by the split property).
  private func closeIfIdle(
    now: Int64, _ person: UserID, _ s: inout TripSegmenterState.Person, _ closed: inout TripOutput
  ) {
    guard s.dwellAnchor == nil, let last = s.segment.last else { return }
    let idle = now.saturatingSubtract(rules.idleGapMilliseconds).saturatingSubtract(last.timeMilliseconds)
    guard idle > rules.splitGapMilliseconds else { return }
    let origin = namedPlace(last.coordinate, person) != nil
    guard idle > rules.journeySilenceMilliseconds || !(moving(s.segment) || origin) else { return }
    endAtStay(&s)
    close(&s, person, .gap, &closed)
    s.segment = []
    s.anchor = 0
  }

  private func close(
    _ s: inout TripSegmenterState.Person, _ person: UserID, _ end: TripEnd, _ closed: inout TripOutput
  ) {
    // A lone fix (the start of the next move, a stay's last fix) is no segment.
    guard s.segment.count >= 2 else { return }
    let points = withoutStrayFixes(s.segment)
    guard let summary = TripSummary(points, rules: rules.agreed) else { return }
    // Saturating: a decoded state holds fewer than UInt32.max, so only
    // 4 · 10⁹ segments of one person (a segment a minute for 8 000 years)
    // could bring ids to repeat; none traps.
    s.segmentsClosed = s.segmentsClosed == .max ? .max : s.segmentsClosed + 1
    let startPlace = namedPlace(summary.start, person)
    let endPlace = namedPlace(summary.end, person)
    var reasons = failedThresholds(pointCount: points.count, summary)
    let journey = startPlace != nil && endPlace != nil && startPlace != endPlace
    let isTrip = reasons.isEmpty || journey
    if reasons.isEmpty { reasons = [.valid] }
    if journey { reasons.append(.journeyBetweenNamedPlaces) }
    closed.segments.append(
      TripSegment(
        id: UInt64(person.rawValue) << 32 | UInt64(s.segmentsClosed), person: person, isTrip: isTrip,
        reasons: reasons, endedBy: end, fixes: points, startPlace: startPlace, endPlace: endPlace,
        summary: summary), reservingOnFirst: 8)
  }

  /// `segment` without its stray fixes (``TripRules/strayFixMetersPerSecond``),
  /// each judged between the last fix kept before it and the next one; the
  /// first and last fix are always kept. The same array when there are none.
  /// - Complexity: O(n): a fix with a measured speed is never stray, one
  ///   without costs up to three distances; a copy only when one is found.
  func withoutStrayFixes(_ segment: [Fix]) -> [Fix] {
    guard segment.count >= 3 else { return segment }
    func fast(_ a: Fix, _ b: Fix) -> Bool {
      let seconds = Double(b.timeMilliseconds.saturatingSubtract(a.timeMilliseconds)) / 1000
      return GreatCircle.distanceMeters(from: a.coordinate, to: b.coordinate)
        >= rules.strayFixMetersPerSecond * seconds
    }
    /// `middle` between `before` and `after` (`earlier` the fix kept before
    /// `before`, if any): a phone already driving into `before` that turned
    /// back is no parked phone's outlier.
    func stray(_ earlier: Fix?, _ before: Fix, _ middle: Fix, _ after: Fix) -> Bool {
      guard middle.speedMetersPerSecond == nil else { return false }  // a reading of its own
      return AgreedSpeed.isOutAndBack(TrackPoint(before), TrackPoint(middle), TrackPoint(after))
        && fast(before, middle) && fast(middle, after) && !(earlier.map { fast($0, before) } ?? false)
    }
    guard
      let first = (1..<segment.count - 1).first(where: {
        stray($0 >= 2 ? segment[$0 - 2] : nil, segment[$0 - 1], segment[$0], segment[$0 + 1])
      })
    else { return segment }
    var kept = Array(segment[..<first])
    for i in first + 1..<segment.count {
      let earlier = kept.count >= 2 ? kept[kept.count - 2] : nil
      if i < segment.count - 1, stray(earlier, kept[kept.count - 1], segment[i], segment[i + 1]) { continue }
      kept.append(segment[i])
    }
    return kept
  }

  /// The validity thresholds a segment misses (empty: it is valid).
  func failedThresholds(pointCount: Int, _ summary: TripSummary) -> ReasonList<TripReason> {
    var reasons: ReasonList<TripReason> = []
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
