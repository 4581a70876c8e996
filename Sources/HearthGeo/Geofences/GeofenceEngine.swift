/// SPEC §3: who is inside which place, and what gets announced.
///
/// Membership: a fix within the radius brings a person in; only a fix beyond
/// radius + 40 m takes them out. Fixes looser than 250 m are ignored. A
/// network estimate (looser than 100 m) may bring somebody in, but takes
/// them out only from more than twice its accuracy outside the radius: the
/// exit distance is radius + max(40 m, 2 × accuracy); the band and the error
/// margin do not add up, the larger one applies (docs/guides/geofences.md).
///
/// Settling (every choice is documented in the guide):
/// - A departure waits for a second fix clear of the place, or a minute with
///   no fix back inside; a fix back inside first cancels it. The minute runs
///   on two clocks and ends on the first to run out: the phone's (a later
///   fix of the phone a minute or more after the one that left, on its own
///   clock) and the server's (a minute after the server received the fix
///   that left: a batch received then or later, or the timer). A phone's
///   clock or its upload delay never shortens the server's minute.
/// - An arrival is announced at once, unless the phone was doing 5 m/s or
///   more (its measured speed, else the agreed speed from its previous fix):
///   then it waits until a fix inside is slower, or a minute passes inside
///   (on the same two clocks);
///   a fix outside the radius before then is a drive-by (cancelled); a
///   network estimate only when it is also beyond its exit distance.
/// - While a fast arrival waits, departures elsewhere wait with it: if the
///   arrival goes out, they are dropped (only the arrival is announced); if
///   it is cancelled or fed only, each is decided by its own rule then.
/// - Coming back within 10 min of leaving opens a 15-min quiet window on the
///   place (that return is still announced: one pair of notifications);
///   while it is open everything there is feed only, and each quick return
///   extends it to 15 min after that return.
/// - News older than 30 min when decided, and anything a late upload
///   (``LateUploadRule``, per person) started or decided, is feed only.
///
/// Every decision is a `GeofenceEvent` with its reasons, including pending
/// and cancelled ones. Deadlines ("a minute") are inclusive: a fix exactly a
/// minute after a departure (on the phone's clock), or a batch received
/// exactly a minute after the one that held it, finds it already confirmed.
///
/// Streaming and batch are the same code: `process` takes any batch (one
/// fix, a whole upload, a day) and `advance` moves the clock. Fixes not
/// newer than a place's last evaluation are skipped for that place, so
/// replaying a batch adds nothing; the events are the same however one
/// receipt's fixes are split into batches, streaming each fix as it is taken
/// gives what one batch of them gives, and saving and restoring the state
/// changes nothing. (When fixes are received is part of the history: the
/// server's minute starts at a receipt.)
///
/// Complexity: O(candidates) per fix via `GeofenceIndex` (the places whose
/// cell holds the fix plus those the person is in); no allocation per fix
/// beyond the events.
public struct GeofenceEngine: Sendable {
  public let index: GeofenceIndex
  public let rules: GeofenceRules
  /// Room the first event of a batch reserves (``Array/append(_:reservingOnFirst:)``).
  static let firstEventRoom = 16
  let lookup: Lookup

  /// Place ids → index positions, and the circles each person belongs to
  /// (a person not listed sees every place). Immutable; a class so copies
  /// of the engine share it.
  final class Lookup: Sendable {
    /// Place ids in index order (ascending: the engine indexes its places sorted by id).
    let ids: [PlaceID]
    let circlesOfPerson: [UserID: Circles]
    /// Open addressing over the ids (at most half full): a slot holds id << 32
    /// | (position + 1), 0 when empty. A lookup usually touches one cache
    /// line, where a binary search over a million ids touched twenty
    /// (issue 33: every record in use is looked up once per fix).
    private let table: [UInt64]
    private let mask: Int

    init(ids: [PlaceID], circlesOfPerson: [UserID: [CircleID]]) {
      self.ids = ids
      self.circlesOfPerson = circlesOfPerson.mapValues(Circles.init)
      var capacity = 16
      while capacity < 2 * ids.count { capacity *= 2 }
      var table = [UInt64](repeating: 0, count: capacity)
      for (k, id) in ids.enumerated() {
        var slot = Self.hash(id) & (capacity - 1)
        while table[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
        table[slot] = UInt64(id.rawValue) << 32 | UInt64(k + 1)
      }
      self.table = table
      mask = capacity - 1
    }

    @inline(__always)
    private static func hash(_ id: PlaceID) -> Int {
      Int(truncatingIfNeeded: (UInt64(id.rawValue) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// The index position of place `id`, if it exists. O(1) expected.
    func position(_ id: PlaceID) -> Int? {
      var slot = Self.hash(id) & mask
      while true {
        let entry = table[slot]
        if entry == 0 { return nil }
        if UInt32(truncatingIfNeeded: entry >> 32) == id.rawValue {
          return Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
        }
        slot = (slot + 1) & mask
      }
    }
  }

  /// A person's circles, ascending without repeats: a membership test is a
  /// short scan or a binary search, not a hash (people are in few circles,
  /// and the test runs for every place a fix falls in).
  struct Circles: Sendable {
    let ids: [CircleID]
    init(_ circles: [CircleID]) { ids = Array(Set(circles)).sorted() }

    /// Whether `circle` is one of them. O(log k) for k circles.
    func contains(_ circle: CircleID) -> Bool {
      guard ids.count > 8 else { return ids.contains(circle) }
      var low = 0
      var high = ids.count
      while low < high {
        let mid = (low + high) / 2
        if ids[mid] < circle { low = mid + 1 } else { high = mid }
      }
      return low < ids.count && ids[low] == circle
    }
  }

  /// Places may carry any id; a repeated id keeps its first place (by
  /// position in `places`) and the repeats are left out.
  public init(
    places: [Geofence], circlesOfPerson: [UserID: [CircleID]] = [:], rules: GeofenceRules = GeofenceRules(),
    cellSizeMeters: Double? = nil
  ) {
    self.init(
      index: GeofenceIndex(places: Self.indexOrder(places), cellSizeMeters: cellSizeMeters),
      circlesOfPerson: circlesOfPerson, rules: rules)
  }

  /// The same engine over an index already built (a pipeline shares one
  /// among its engines). Its places must be in ``indexOrder(_:)`` (ids
  /// ascending, none repeated); an index that is not is indexed again in
  /// that order. O(places) to check.
  public init(
    index: GeofenceIndex, circlesOfPerson: [UserID: [CircleID]] = [:], rules: GeofenceRules = GeofenceRules()
  ) {
    let ordered = zip(index.places, index.places.dropFirst()).allSatisfy { $0.id < $1.id }
    self.index =
      ordered
      ? index
      : GeofenceIndex(
        places: Self.indexOrder(index.places), cellSizeMeters: index.grid.cellSizeMeters,
        exclusion: index.exclusion)
    self.rules = rules
    lookup = Lookup(ids: self.index.places.map(\.id), circlesOfPerson: circlesOfPerson)
  }

  /// The places as the engine indexes them: ascending by id (so candidate
  /// positions sort like ids), a repeated id keeping its first place by
  /// position in `places`. O(n log n).
  public static func indexOrder(_ places: [Geofence]) -> [Geofence] {
    var sorted: [Geofence] = []
    sorted.reserveCapacity(places.count)
    for place in places.enumerated().sorted(by: {
      $0.element.id < $1.element.id || ($0.element.id == $1.element.id && $0.offset < $1.offset)
    })
    where sorted.last?.id != place.element.id {
      sorted.append(place.element)
    }
    return sorted
  }

  public var places: [Geofence] { index.places }

  /// SPEC §3 placeAt among the places `person` sees (their circles'; every
  /// place for a person not listed, as for their events): the smallest
  /// place holding `point`, else the nearest centre whose edge is within
  /// ``GeofenceRules/placeAtNearestCapMeters`` (1 km); nil when there is
  /// none. O(places near the point).
  public func placeAt(_ point: Coordinate, for person: UserID) -> Geofence? {
    index.placeAt(point, capMeters: rules.placeAtNearestCapMeters, admitting: { sees(person, $0) }).map {
      places[$0]
    }
  }

  /// Whether `person` sees place `placeIndex` (its circle is one of theirs,
  /// or the person's circles are not listed).
  func sees(_ person: UserID, _ placeIndex: Int) -> Bool {
    guard let circles = lookup.circlesOfPerson[person] else { return true }
    return circles.contains(places[placeIndex].circle)
  }

  // MARK: Processing

  /// Applies a batch of fixes (any people, any order; sorted here by person
  /// and time) received at `receivedAtMilliseconds` (the server's clock,
  /// ms). For each person in it, first decides what the server's minute
  /// has decided by then (as `advance` would), then hears the fixes, then
  /// moves their clock to that time. Returns every decision, per person in
  /// the order made.
  public func process(
    _ fixes: FixColumns, receivedAtMilliseconds now: Int64, state: inout GeofenceState
  ) -> [GeofenceEvent] {
    process(fixes, receivedAtMilliseconds: now, state: &state, steps: nil)
  }

  /// ``process(_:receivedAtMilliseconds:state:)`` with the batch's steps
  /// measured already (`steps[i]`: `GreatCircle.stepsMeters` from fix i − 1
  /// to fix i, bit-identical to the scalar distance), as the ingest
  /// pipeline measures them once for this and the agreed speeds. The
  /// odometer reads a step instead of measuring it when its last sharp fix
  /// is the batch's previous fix; the events are identical.
  func process(
    _ fixes: FixColumns, receivedAtMilliseconds now: Int64, state: inout GeofenceState, steps: [Double]?
  ) -> [GeofenceEvent] {
    func before(_ i: Int, _ j: Int) -> Bool {
      let a = (fixes.user[i].rawValue, fixes.timeMilliseconds[i], fixes.device[i].rawValue)
      let b = (fixes.user[j].rawValue, fixes.timeMilliseconds[j], fixes.device[j].rawValue)
      return a != b ? a < b : i < j
    }
    // The batch's own order when it is sorted already (the pipeline's
    // batches are): no list of positions.
    let inOrder = fixes.count < 2 || (1..<fixes.count).allSatisfy { before($0 - 1, $0) }
    let order = inOrder ? [] : Array(fixes.timeMilliseconds.indices).sorted(by: before)
    let count = fixes.count
    @inline(__always) func at(_ k: Int) -> Int { inOrder ? k : order[k] }
    // One context for the whole batch: its buffers and event list are reused
    // person after person; each person's state is moved in and out of the
    // dictionary (not copied) while it changes.
    var context = Context(now: now, late: false, state: PersonGeofenceState(person: UserID(0)))
    // Room for a fix among many places at once, not grown step by step.
    state.scratch.candidates.reserveCapacity(64)
    var start = 0
    while start < count {
      let person = fixes.user[at(start)]
      var end = start
      var newest = Int64.min
      while end < count && fixes.user[at(end)] == person {
        newest = max(newest, fixes.timeMilliseconds[at(end)])
        end += 1
      }
      context.late = rules.late.isLate(newestFixMilliseconds: newest, receivedAtMilliseconds: now)
      context.circles = lookup.circlesOfPerson[person]
      // Swapped out of the table and back at the same position (one lookup,
      // no copy, no deletion).
      let slot = state.people.position(of: person, inserting: PersonGeofenceState(person: person))
      swap(&context.state, &state.people.values[slot])
      let waited = context.state.hasPending
      // Only records in use can name a place that is gone (idle ones age
      // out); a change of circles is `reconcile`'s (`IngestPipeline.adopt`).
      if context.state.records.inUse.contains(where: {
        lookup.position(context.state.records[$0].place) == nil
      }) {
        dropRecordsOfUnseenPlaces(&context, dropped: &state.droppedForRemovedPlaces)
      }
      // The server's minute first: a wait whose minute since its receipt
      // has run out by this receipt is decided before this batch's fixes
      // are heard (whether or not the timer ran in between), then again
      // after them (a departure held back by an arrival they ended).
      settle(upTo: now, on: .server, &context, &state.scratch)
      for k in start..<end {
        // The step from the batch's previous fix of this person, when the
        // batch is in its own order (so fix k − 1 is the one before).
        var fromPrevious: OdometerStep? = nil
        if inOrder, k > start, let steps {
          fromPrevious = OdometerStep(
            from: FixPoint(
              latitudeDegrees: fixes.latitudeDegrees[k - 1], longitudeDegrees: fixes.longitudeDegrees[k - 1],
              milliseconds: fixes.timeMilliseconds[k - 1]),
            meters: steps[k])
        }
        apply(fixes[at(k)], fromPrevious: fromPrevious, &context, &state.scratch)
      }
      settle(upTo: now, on: .server, &context, &state.scratch)
      evict(&context.state)
      updateWaiting(context.state, in: &state, waited: waited)
      swap(&context.state, &state.people.values[slot])
      start = end
    }
    state.scratch.endCall()
    return context.events
  }

  /// Moves every person's clock to `now` (a timer on the server, and every
  /// batch's receipt): waiting departures and fast arrivals whose minute has
  /// passed are decided. Only people with something waiting are visited,
  /// in ascending id order.
  /// - Complexity: O(k log w + their records) for k people of the w
  ///   waiting whose earliest mark is older than the shorter wait.
  public func advance(to now: Int64, state: inout GeofenceState) -> [GeofenceEvent] {
    guard !state.waiting.isEmpty else { return [] }
    // The table holds each person's earliest pending mark; no decision
    // falls due before that mark plus the shorter wait, so only those
    // people are candidates, and each is then checked exactly.
    let shorterWait = min(rules.fastArrivalWaitMilliseconds, rules.departureSettleMilliseconds)
    let (bound, overflow) = now.subtractingReportingOverflow(shorterWait)
    let candidates = state.waiting.due(atOrBefore: overflow ? (shorterWait > 0 ? .min : .max) : bound)
    let due = candidates.filter {
      state.people[$0]?.nextDeadline(rules, on: .server).map { $0 <= now } ?? true
    }
    guard !due.isEmpty else { return [] }
    var context = Context(now: now, late: false, state: PersonGeofenceState(person: UserID(0)))
    for person in due {
      guard let personState = state.people.removeValue(forKey: person) else {
        state.waiting[person] = nil
        continue
      }
      context.state = personState
      context.circles = lookup.circlesOfPerson[person]
      dropRecordsOfUnseenPlaces(&context, dropped: &state.droppedForRemovedPlaces)
      settle(upTo: now, on: .server, &context, &state.scratch)
      store(&context.state, in: &state, waited: true)
    }
    state.scratch.endCall()
    return context.events
  }

  /// Puts a person's state back and keeps the waiting list true
  /// (`waited`: whether they were on it; nil: not known).
  private func store(_ person: inout PersonGeofenceState, in state: inout GeofenceState, waited: Bool? = nil)
  {
    updateWaiting(person, in: &state, waited: waited)
    state.people[person.person] = person
  }

  /// Keeps the waiting list true for `person` (`waited`: whether they were
  /// on it; nil: not known).
  private func updateWaiting(_ person: PersonGeofenceState, in state: inout GeofenceState, waited: Bool?) {
    if let mark = person.earliestPendingMilliseconds {
      state.waiting[person.person] = mark
    } else if waited ?? true {
      state.waiting[person.person] = nil
    }
  }

  /// SPEC §3 reseed: when `person`'s sharing with `circle` becomes precise
  /// again, their memberships of that circle's places start again from the
  /// newest of `fixes` at least as sharp as a network estimate (≤ 100 m),
  /// with no events; other circles' memberships and waiting decisions are
  /// untouched. Without such a fix, the circle's memberships are cleared.
  public func reseed(_ person: UserID, circle: CircleID, from fixes: FixColumns, state: inout GeofenceState) {
    var newest: (time: Int64, index: Int)?
    for i in 0..<fixes.count where fixes.user[i] == person {
      guard fixes.horizontalAccuracyMeters[i] <= rules.networkAccuracyAboveMeters else { continue }
      if newest.map({ fixes.timeMilliseconds[i] > $0.time }) ?? true {
        newest = (fixes.timeMilliseconds[i], i)
      }
    }
    var fresh = state.people.removeValue(forKey: person) ?? PersonGeofenceState(person: person)
    fresh.records.removeAll { record in
      guard let p = lookup.position(record.place) else { return false }
      return places[p].circle == circle
    }
    if let (time, i) = newest {
      let fix = fixes[i]
      fresh.newestMilliseconds = max(fresh.newestMilliseconds, time)
      index.forEachContaining(fix.coordinate) { p in
        guard places[p].circle == circle, sees(person, p) else { return }
        let r = fresh.recordIndex(places[p].id, watermark: time)
        fresh.records[r].inside = true
        fresh.records[r].watermarkMilliseconds = time
      }
    }
    store(&fresh, in: &state)
  }

  /// Drops every person's records of places this engine does not have or
  /// the person no longer sees (places removed, circle memberships
  /// changed), counting the pending decisions dropped with them (each also
  /// becomes a `placeRemoved` event on the person's next batch or advance —
  /// here they are only counted). O(records).
  public func reconcile(_ state: inout GeofenceState) -> ReconfigurationReport {
    var report = ReconfigurationReport()
    for person in state.people.keys.sorted() {
      guard var p = state.people.removeValue(forKey: person) else { continue }
      p.records.removeAll { record in
        if let i = lookup.position(record.place), sees(person, i) { return false }
        report.droppedPlaceRecords += 1
        if record.pendingDeparture != nil { report.droppedPendingDepartures += 1 }
        if record.pendingArrival != nil { report.droppedPendingArrivals += 1 }
        return true
      }
      store(&p, in: &state)
    }
    state.droppedForRemovedPlaces += report.droppedPendingDepartures + report.droppedPendingArrivals
    return report
  }

  /// The records of a person that name places this engine no longer has,
  /// or no longer shows the person, are dropped as the person is loaded
  /// (called for people with a record in use; idle records of such places
  /// are never candidates and age out): a waiting decision there is
  /// reported (feed only, `placeRemoved`) and counted, the rest is
  /// forgotten. O(waiting records × log places), O(records) to drop.
  private func dropRecordsOfUnseenPlaces(_ context: inout Context, dropped: inout Int) {
    func seen(_ record: PlaceRecord) -> Bool {
      guard let i = lookup.position(record.place) else { return false }
      return context.circles.map { $0.contains(places[i].circle) } ?? true
    }
    guard context.state.records.inUse.contains(where: { !seen(context.state.records[$0]) }) else { return }
    var kept: [PlaceRecord] = []
    for record in context.state.records {
      if seen(record) {
        kept.append(record)
        continue
      }
      let waiting: [(GeofenceEventKind, Int64?)] = [
        (.departure, record.pendingDeparture?.milliseconds), (.arrival, record.pendingArrival?.milliseconds),
      ]
      for case (let kind, let time?) in waiting {
        dropped += 1
        context.events.append(
          GeofenceEvent(
            kind: kind, outcome: .feedOnly, reasons: [.placeRemoved], place: record.place, circle: 0,
            person: context.state.person, eventMilliseconds: time, decidedMilliseconds: context.now,
            journey: nil), reservingOnFirst: Self.firstEventRoom)
      }
    }
    context.state.records = PlaceRecords(kept)
  }

  /// Forgets idle records older than a week (fixes that old are rejected at
  /// ingest) and keeps at most 512 idle records per person.
  private func evict(_ state: inout PersonGeofenceState) {
    guard state.records.count > 32 else { return }
    // (Saturating: a fix time within a week of the earliest there is.)
    let (back, overflow) = state.newestMilliseconds.subtractingReportingOverflow(7 * 86_400_000)
    let horizon = overflow ? Int64.min : back
    // Scanned only when an idle record may be that old.
    if horizon > state.records.idleEvictionBound {
      state.records.removeAll { $0.isIdle && PlaceRecords.evictionKey($0) < horizon }
      state.records.refreshEvictionBound()
    }
    guard state.records.count - state.records.inUse.count > 512 else { return }
    let idle = state.records.filter(\.isIdle)
    if idle.count > 512 {
      let cutoff = idle.map(\.watermarkMilliseconds).sorted()[idle.count - 512]
      state.records.removeAll { $0.isIdle && $0.watermarkMilliseconds < cutoff }
    }
  }
}
