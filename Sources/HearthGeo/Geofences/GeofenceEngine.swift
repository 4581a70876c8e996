import Foundation

/// SPEC §3: who is inside which place, and what gets announced.
///
/// Membership: a fix within the radius brings a person in; only a fix beyond
/// radius + 40 m takes them out. Fixes looser than 250 m are ignored. A
/// network estimate (looser than 100 m) may bring somebody in, but takes
/// them out only from more than twice its accuracy outside the radius: the
/// exit distance is radius + max(40 m, 2 × accuracy); the band and the error
/// margin do not add up, the larger one applies (docs/guides/geofences.md).
///
/// Settling, feed-only rules and the journey follow SPEC §3 clause by clause;
/// every decision is a `GeofenceEvent` with its reasons, including pending
/// and cancelled ones. Deadlines ("a minute") are inclusive: a fix exactly a
/// minute after a departure finds it already confirmed.
///
/// Streaming and batch are the same code: `process` takes any batch (one
/// fix, a whole upload, a day) and `advance` moves the clock. Fixes not
/// newer than a place's last evaluation are skipped for that place, so
/// replaying a batch adds nothing; the events are the same however the fixes
/// are split into timely batches and after the state is saved and restored.
///
/// Complexity: O(candidates) per fix via `GeofenceIndex` (the places whose
/// cell holds the fix plus those the person is in); no allocation per fix
/// beyond the events.
public struct GeofenceEngine: Sendable {
  public let index: GeofenceIndex
  public let rules: GeofenceRules
  private let lookup: Lookup

  /// Place ids → index positions, and the circles each person belongs to
  /// (a person not listed sees every place). Immutable; a class so copies
  /// of the engine share it.
  private final class Lookup: Sendable {
    /// Place ids in index order (ascending: the engine indexes its places sorted by id).
    let ids: [PlaceID]
    let circlesOfPerson: [UInt32: Set<CircleID>]
    init(ids: [PlaceID], circlesOfPerson: [UInt32: Set<CircleID>]) {
      self.ids = ids
      self.circlesOfPerson = circlesOfPerson
    }

    /// The index position of place `id` (binary search), if it exists.
    func position(_ id: PlaceID) -> Int? {
      var low = 0
      var high = ids.count
      while low < high {
        let mid = (low + high) / 2
        if ids[mid] < id { low = mid + 1 } else { high = mid }
      }
      return low < ids.count && ids[low] == id ? low : nil
    }
  }

  /// The place a record is about.
  private func place(of record: PlaceRecord) -> Geofence { places[lookup.position(record.place)!] }

  public init(
    places: [Geofence], circlesOfPerson: [UserID: [CircleID]] = [:], rules: GeofenceRules = GeofenceRules(),
    cellSizeMeters: Double? = nil
  ) {
    // Indexed in id order, so candidate positions sort like ids.
    let sorted = places.sorted { $0.id < $1.id }
    for (a, b) in zip(sorted, sorted.dropFirst()) {
      precondition(a.id != b.id, "GeofenceEngine: place ids must be unique (\(a.id))")
    }
    index = GeofenceIndex(places: sorted, cellSizeMeters: cellSizeMeters)
    self.rules = rules
    lookup = Lookup(
      ids: sorted.map(\.id),
      circlesOfPerson: Dictionary(
        uniqueKeysWithValues: circlesOfPerson.map { ($0.key.rawValue, Set($0.value)) }))
  }

  public var places: [Geofence] { index.places }

  /// SPEC §3 placeAt for a person's circles (nil: no place close enough).
  public func placeAt(_ point: Coordinate) -> Geofence? {
    index.placeAt(point, capMeters: rules.placeAtNearestCapMeters).map { places[$0] }
  }

  // MARK: Processing

  /// Applies a batch of fixes (any people, any order; sorted here by person
  /// and time) received at `receivedAtMilliseconds`, then moves each
  /// person's clock to that time. Returns every decision, per person in
  /// the order made.
  public func process(
    _ fixes: FixColumns, receivedAtMilliseconds now: Int64, state: inout GeofenceState
  ) -> [GeofenceEvent] {
    func before(_ i: Int, _ j: Int) -> Bool {
      let a = (fixes.user[i].rawValue, fixes.timeMilliseconds[i], fixes.device[i].rawValue)
      let b = (fixes.user[j].rawValue, fixes.timeMilliseconds[j], fixes.device[j].rawValue)
      return a != b ? a < b : i < j
    }
    var order = Array(fixes.timeMilliseconds.indices)
    if !zip(order, order.dropFirst()).allSatisfy({ before($0, $1) }) { order.sort(by: before) }
    // One context for the whole batch: its buffers and event list are reused
    // person after person; each person's state is moved in and out of the
    // dictionary (not copied) while it changes.
    var context = Context(now: now, late: false, person: UserID(0), state: PersonGeofenceState(person: 0))
    var start = 0
    while start < order.count {
      let person = fixes.user[order[start]].rawValue
      var end = start
      var newest = Int64.min
      while end < order.count && fixes.user[order[end]].rawValue == person {
        newest = max(newest, fixes.timeMilliseconds[order[end]])
        end += 1
      }
      context.late = now - newest > rules.lateBatchMilliseconds
      context.person = UserID(person)
      context.circles = lookup.circlesOfPerson[person]
      context.state = state.people.removeValue(forKey: person) ?? PersonGeofenceState(person: person)
      for k in start..<end { apply(fixes[order[k]], &context) }
      settle(upTo: now, &context)
      evict(&context.state)
      state.people[person] = context.state
      start = end
    }
    return context.events
  }

  /// Moves every person's clock to `now` (a timer on the server): waiting
  /// departures and fast arrivals whose minute has passed are decided.
  public func advance(to now: Int64, state: inout GeofenceState) -> [GeofenceEvent] {
    var events: [GeofenceEvent] = []
    for person in state.people.keys.sorted() {
      var context = Context(
        now: now, late: false, person: UserID(person), state: state.people.removeValue(forKey: person)!)
      settle(upTo: now, &context)
      state.people[person] = context.state
      events += context.events
    }
    return events
  }

  /// SPEC §3 reseed: memberships start again from the newest fix at least
  /// as sharp as the network threshold, with no events and nothing pending.
  public func reseed(_ person: UserID, from fixes: FixColumns, state: inout GeofenceState) {
    var newest: Int?
    for i in 0..<fixes.count where fixes.user[i] == person {
      let accuracy = fixes.horizontalAccuracyMeters[i]
      guard accuracy <= rules.networkAccuracyAboveMeters else { continue }
      if newest == nil || fixes.timeMilliseconds[i] > fixes.timeMilliseconds[newest!] { newest = i }
    }
    var fresh = PersonGeofenceState(person: person.rawValue)
    if let i = newest {
      let fix = fixes[i]
      fresh.newestMilliseconds = fix.timeMilliseconds
      fresh.lastSharp = FixPoint(
        latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees,
        milliseconds: fix.timeMilliseconds)
      index.forEachContaining(fix.coordinate) { p in
        guard sees(person.rawValue, p) else { return }
        let r = fresh.recordIndex(places[p].id)
        fresh.records[r].inside = true
        fresh.records[r].watermarkMilliseconds = fix.timeMilliseconds
      }
    }
    state.people[person.rawValue] = fresh
  }

  // MARK: One fix

  struct Context {
    var now: Int64
    var late: Bool
    var person: UserID
    var state: PersonGeofenceState
    /// The person's circles (nil: every place counts), looked up once per person.
    var circles: Set<CircleID>? = nil
    var events: [GeofenceEvent] = []
    /// Reused per fix (no allocation in the steady state).
    var candidates: [Int] = []
    var crossings: [Crossing] = []
    var started: [Int] = []
  }

  /// A confirmed crossing waiting to be announced with the others of its moment.
  struct Crossing {
    var kind: GeofenceEventKind
    var recordIndex: Int
    var eventMilliseconds: Int64
    var reason: GeofenceReason
  }

  private func sees(_ person: UInt32, _ placeIndex: Int) -> Bool {
    guard let circles = lookup.circlesOfPerson[person] else { return true }
    return circles.contains(places[placeIndex].circle)
  }

  private func apply(_ fix: Fix, _ context: inout Context) {
    let accuracy = fix.horizontalAccuracyMeters
    guard accuracy <= rules.ignoreAccuracyAboveMeters else { return }  // also drops NaN
    let t = fix.timeMilliseconds
    settle(upTo: t, &context)
    let point = fix.coordinate
    let previous = context.state.lastSharp
    if accuracy <= rules.journeyAccuracyMeters && t > (previous?.milliseconds ?? .min) {
      if let previous {
        context.state.odometerMeters += GreatCircle.distanceMeters(from: previous.coordinate, to: point)
      }
      context.state.lastSharp = FixPoint(
        latitudeDegrees: point.latitudeDegrees, longitudeDegrees: point.longitudeDegrees, milliseconds: t)
    }
    context.state.newestMilliseconds = max(context.state.newestMilliseconds, t)

    // Candidates: places holding the fix, and places the person is in.
    var candidates: [Int] = []
    var crossings: [Crossing] = []
    var started: [Int] = []  // departures that begin waiting on this fix
    swap(&candidates, &context.candidates)
    swap(&crossings, &context.crossings)
    swap(&started, &context.started)
    candidates.removeAll(keepingCapacity: true)
    crossings.removeAll(keepingCapacity: true)
    started.removeAll(keepingCapacity: true)
    defer {
      swap(&candidates, &context.candidates)
      swap(&crossings, &context.crossings)
      swap(&started, &context.started)
    }
    let circles = context.circles
    index.appendContaining(point, to: &candidates)
    if let circles { candidates.removeAll { !circles.contains(places[$0].circle) } }
    for record in context.state.records where !record.isIdle {
      if let i = lookup.position(record.place), !candidates.contains(i) { candidates.append(i) }
    }
    candidates.sort()

    let network = accuracy > rules.networkAccuracyAboveMeters
    // Candidates ascend by place id like the records, so a record inserted
    // here never shifts one already noted in `crossings`.
    for p in candidates {
      let place = places[p]
      let r = context.state.recordIndex(place.id)
      guard t > context.state.records[r].watermarkMilliseconds else { continue }
      context.state.records[r].watermarkMilliseconds = t
      let inside = index.isWithin(place.radiusMeters, of: p, point)
      let margin = max(rules.exitBandMeters, network ? rules.networkExitErrorMultiple * accuracy : 0)
      let clear = !inside && !index.isWithin(place.radiusMeters + margin, of: p, point)
      var record = context.state.records[r]
      defer { context.state.records[r] = record }
      if record.inside {
        if let arrival = record.pendingArrival {
          record.pendingArrival = nil
          if !inside && isFarSide(point, of: place, approach: arrival) {
            record.inside = false
            emit(.arrival, .cancelled, [.drovePast], place, arrival.milliseconds, t, &context)
            continue
          }
          crossings.append(
            Crossing(
              kind: .arrival, recordIndex: r, eventMilliseconds: arrival.milliseconds,
              reason: .fastArrivalConfirmed))
        }
        if let departure = record.pendingDeparture {
          if inside {
            record.pendingDeparture = nil
            emit(.departure, .cancelled, [.backInside], place, departure.milliseconds, t, &context)
          } else if clear {
            crossings.append(
              Crossing(
                kind: .departure, recordIndex: r, eventMilliseconds: departure.milliseconds,
                reason: .secondFixClear))
          }
        } else if clear {
          record.pendingDeparture = DepartureMark(
            place: place.id, milliseconds: t, odometerMeters: context.state.odometerMeters)
          started.append(r)
        }
      } else if inside {
        record.inside = true
        if let speed = fix.speedMetersPerSecond, speed >= rules.fastArrivalMetersPerSecond {
          record.pendingArrival = approach(to: point, from: previous, heading: fix.headingDegrees, at: t)
          emit(.arrival, .pending, [.fastArrivalWaiting], place, t, t, &context)
        } else {
          crossings.append(Crossing(kind: .arrival, recordIndex: r, eventMilliseconds: t, reason: .entered))
        }
      }
    }
    announce(crossings, decidedAt: t, &context)
    // Said after the arrivals of the same fix (an arrival confirmed and left
    // again reads in that order); a departure dropped by an arrival elsewhere
    // was already reported as such.
    for r in started {
      guard let mark = context.state.records[r].pendingDeparture, mark.milliseconds == t else { continue }
      let place = place(of: context.state.records[r])
      emit(.departure, .pending, [.leftWaitingForConfirmation], place, t, t, &context)
    }
  }

  /// Direction of travel into a place: from the previous sharp fix, else the
  /// fix's heading, else unknown (zero).
  private func approach(to point: Coordinate, from previous: FixPoint?, heading: Double?, at t: Int64)
    -> PendingArrival
  {
    var east = 0.0
    var north = 0.0
    if let previous, previous.milliseconds < t {
      north = point.latitudeDegrees - previous.latitudeDegrees
      east =
        GreatCircle.reducedLongitudeDifferenceDegrees(point.longitudeDegrees - previous.longitudeDegrees)
        * HaversineKernel.cosineOfLatitude(point.latitudeDegrees)
    }
    if east == 0 && north == 0, let heading {
      east = sin(heading * HaversineKernel.radiansPerDegree)
      north = cos(heading * HaversineKernel.radiansPerDegree)
    }
    return PendingArrival(milliseconds: t, approachEast: east, approachNorth: north)
  }

  /// Out the far side: outside the radius, beyond the centre along the
  /// direction of travel (any outside fix when the direction is unknown).
  private func isFarSide(_ point: Coordinate, of place: Geofence, approach: PendingArrival) -> Bool {
    let north = point.latitudeDegrees - place.center.latitudeDegrees
    let east =
      GreatCircle.reducedLongitudeDifferenceDegrees(point.longitudeDegrees - place.center.longitudeDegrees)
      * HaversineKernel.cosineOfLatitude(place.center.latitudeDegrees)
    if approach.approachEast == 0 && approach.approachNorth == 0 { return true }
    return east * approach.approachEast + north * approach.approachNorth > 0
  }

  // MARK: Clock

  /// Decides every waiting departure and fast arrival whose minute ends at
  /// or before `time`, earliest deadline first (equal deadlines together).
  private func settle(upTo time: Int64, _ context: inout Context) {
    while true {
      var deadline = Int64.max
      for record in context.state.records {
        if let d = record.pendingDeparture {
          deadline = min(deadline, d.milliseconds + rules.departureSettleMilliseconds)
        }
        if let a = record.pendingArrival {
          deadline = min(deadline, a.milliseconds + rules.fastArrivalWaitMilliseconds)
        }
      }
      guard deadline <= time else { return }
      var crossings: [Crossing] = []
      for r in context.state.records.indices {
        let record = context.state.records[r]
        if let a = record.pendingArrival, a.milliseconds + rules.fastArrivalWaitMilliseconds == deadline {
          context.state.records[r].pendingArrival = nil
          crossings.append(
            Crossing(
              kind: .arrival, recordIndex: r, eventMilliseconds: a.milliseconds,
              reason: .fastArrivalMinutePassed))
        }
        if let d = record.pendingDeparture, d.milliseconds + rules.departureSettleMilliseconds == deadline {
          crossings.append(
            Crossing(
              kind: .departure, recordIndex: r, eventMilliseconds: d.milliseconds,
              reason: .minuteWithoutReturn))
        }
      }
      announce(crossings, decidedAt: deadline, &context)
    }
  }

  // MARK: Announcing

  /// Applies the announcing rules to the crossings confirmed at one moment.
  private func announce(_ crossings: [Crossing], decidedAt t: Int64, _ context: inout Context) {
    guard !crossings.isEmpty else { return }
    let arrivals = crossings.filter { $0.kind == .arrival }
    let departures = crossings.filter { $0.kind == .departure }
    func smallest(_ list: [Crossing]) -> Int? {
      list.min {
        let a = place(of: context.state.records[$0.recordIndex])
        let b = place(of: context.state.records[$1.recordIndex])
        return (a.radiusMeters, a.id) < (b.radiusMeters, b.id)
      }?.recordIndex
    }
    let smallestDeparture = smallest(departures)
    let smallestArrival = smallest(arrivals)

    for departure in departures {
      let r = departure.recordIndex
      let mark = context.state.records[r].pendingDeparture!
      context.state.records[r].pendingDeparture = nil
      context.state.records[r].inside = false
      context.state.records[r].lastDepartureMilliseconds = mark.milliseconds
      var reasons = [departure.reason]
      if !arrivals.isEmpty { reasons.append(.arrivedElsewhere) }
      if r != smallestDeparture { reasons.append(.smallerPlaceAnnounced) }
      if r == smallestDeparture { context.state.lastDeparture = mark }
      let place = place(of: context.state.records[r])
      emitDecided(
        .departure, reasons, feedOnly: reasons.count > 1, place, mark.milliseconds, t, r, nil, &context)
    }

    var announcedArrival = false
    for arrival in arrivals {
      let r = arrival.recordIndex
      let place = place(of: context.state.records[r])
      var reasons = [arrival.reason]
      if r != smallestArrival { reasons.append(.smallerPlaceAnnounced) }
      if let left = context.state.records[r].lastDepartureMilliseconds,
        arrival.eventMilliseconds - left <= rules.returnWithinMilliseconds,
        context.state.records[r].quietUntilMilliseconds.map({ arrival.eventMilliseconds >= $0 }) ?? true
      {
        reasons.append(.returnedSoon)
        context.state.records[r].quietUntilMilliseconds =
          arrival.eventMilliseconds + rules.quietForMilliseconds
      }
      var journey: Journey?
      if r == smallestArrival, let left = context.state.lastDeparture {
        journey = Journey(
          fromPlace: left.place, departedMilliseconds: left.milliseconds,
          distanceMeters: context.state.odometerMeters - left.odometerMeters,
          durationMilliseconds: arrival.eventMilliseconds - left.milliseconds)
        context.state.lastDeparture = nil
      }
      let announced = emitDecided(
        .arrival, reasons, feedOnly: reasons.count > 1, place, arrival.eventMilliseconds, t, r, journey,
        &context)
      announcedArrival = announcedArrival || announced
    }

    // A departure still waiting when an arrival goes out is dropped.
    if announcedArrival {
      let arrived = Set(arrivals.map(\.recordIndex))
      for r in context.state.records.indices where !arrived.contains(r) {
        guard let mark = context.state.records[r].pendingDeparture else { continue }
        context.state.records[r].pendingDeparture = nil
        context.state.records[r].inside = false
        context.state.records[r].lastDepartureMilliseconds = mark.milliseconds
        let place = place(of: context.state.records[r])
        emit(.departure, .feedOnly, [.supersededByArrival], place, mark.milliseconds, t, &context)
      }
    }
  }

  /// Emits a confirmed crossing, adding the quiet, stale and late rules.
  /// Returns whether it was announced.
  @discardableResult
  private func emitDecided(
    _ kind: GeofenceEventKind, _ reasons: [GeofenceReason], feedOnly: Bool, _ place: Geofence,
    _ eventTime: Int64,
    _ decided: Int64, _ record: Int, _ journey: Journey?, _ context: inout Context
  ) -> Bool {
    var reasons = reasons
    if let quiet = context.state.records[record].quietUntilMilliseconds, eventTime < quiet,
      !reasons.contains(.returnedSoon)
    {
      reasons.append(.placeQuiet)
    }
    let outcome: GeofenceOutcome = feedOnly || reasons.count > 1 ? .feedOnly : .announced
    emit(kind, outcome, reasons, place, eventTime, decided, journey: journey, &context)
    return context.events.last!.outcome == .announced
  }

  private func emit(
    _ kind: GeofenceEventKind, _ outcome: GeofenceOutcome, _ reasons: [GeofenceReason], _ place: Geofence,
    _ eventTime: Int64, _ decided: Int64, journey: Journey? = nil, _ context: inout Context
  ) {
    var outcome = outcome
    var reasons = reasons
    if outcome == .announced || outcome == .feedOnly {
      if context.now - eventTime > rules.staleNewsMilliseconds {
        reasons.append(.staleNews)
        outcome = .feedOnly
      }
      if context.late {
        reasons.append(.lateBatch)
        outcome = .feedOnly
      }
    }
    context.events.append(
      GeofenceEvent(
        kind: kind, outcome: outcome, reasons: reasons, place: place.id, circle: place.circle,
        person: context.person,
        eventMilliseconds: eventTime, decidedMilliseconds: decided, journey: journey))
  }

  /// Forgets idle records older than a week (fixes that old are rejected at
  /// ingest) and keeps at most 512 idle records per person.
  private func evict(_ state: inout PersonGeofenceState) {
    guard state.records.count > 32 else { return }
    let horizon = state.newestMilliseconds == .min ? Int64.min : state.newestMilliseconds - 7 * 86_400_000
    state.records.removeAll {
      $0.isIdle && $0.watermarkMilliseconds < horizon
        && $0.lastDepartureMilliseconds.map { $0 < horizon } ?? true
    }
    let idle = state.records.filter(\.isIdle)
    if idle.count > 512 {
      let cutoff = idle.map(\.watermarkMilliseconds).sorted()[idle.count - 512]
      state.records.removeAll { $0.isIdle && $0.watermarkMilliseconds < cutoff }
    }
  }
}
