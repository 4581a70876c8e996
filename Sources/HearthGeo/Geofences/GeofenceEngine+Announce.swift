/// What is announced (SPEC §3 settling, smallest place, quiet windows,
/// stale and late news), at each moment a decision is made: a fix, or a
/// deadline the clock passes.
extension GeofenceEngine {
  // MARK: Clock

  /// Decides every waiting decision whose moment on `clock` comes at or
  /// before `time` (a fix's time on the phone's clock; a receipt or the
  /// timer on the server's), earliest first (equal deadlines together):
  /// fast arrivals whose minute passed, and — once no fast arrival waits —
  /// departures whose minute passed or whose second clear fix came while
  /// they were held back. Each is decided at its deadline on that clock.
  @inline(__always)
  func settle(
    upTo time: Int64, on clock: SettlingClock, _ context: inout Context,
    _ scratch: inout GeofenceState.Scratch
  ) {
    // Most calls (every fix) find nothing waiting: no deadline to look for,
    // and no call made.
    if context.state.hasPending { settleWaiting(upTo: time, on: clock, &context, &scratch) }
  }

  @inline(never)
  private func settleWaiting(
    upTo time: Int64, on clock: SettlingClock, _ context: inout Context,
    _ scratch: inout GeofenceState.Scratch
  ) {
    while let deadline = context.state.nextDeadline(rules, on: clock), deadline <= time {
      scratch.deadlineCrossings.empty()
      // Waiting decisions are on records in use; only those can change.
      for r in context.state.records.inUse {
        guard let a = context.state.records[r].pendingArrival,
          a.start(on: clock)?.saturatingAdd(rules.fastArrivalWaitMilliseconds) == deadline
        else { continue }
        scratch.deadlineCrossings.append(
          Crossing(
            kind: .arrival, recordIndex: r, eventMilliseconds: a.milliseconds,
            reason: .fastArrivalMinutePassed,
            late: a.late))
      }
      // Every decision clears a waiting arrival or departure and none sets
      // one, so the count of them falls with every deadline that decides
      // something; never spin on one that did not.
      let waiting = context.state.records.arrivalsWaiting + context.state.records.departuresWaiting
      announce(scratch.deadlineCrossings, decidedAt: deadline, on: clock, &context, &scratch)
      guard context.state.records.arrivalsWaiting + context.state.records.departuresWaiting < waiting else {
        return
      }
    }
  }

  /// The departures due at `t` on `clock`: each waiting departure whose
  /// second clear fix came or whose minute on that clock has passed, unless
  /// a fast arrival still waits (then they wait with it). The arrivals of
  /// the same moment are already off the waiting list.
  private func dueDepartures(
    at t: Int64, on clock: SettlingClock, into due: inout [Crossing], _ context: Context
  ) {
    due.empty()
    guard !context.state.arrivalWaiting else { return }
    for r in context.state.records.inUse {
      guard let d = context.state.records[r].pendingDeparture else { continue }
      if d.clearSeen {
        due.append(
          Crossing(
            kind: .departure, recordIndex: r, eventMilliseconds: d.milliseconds, reason: .secondFixClear,
            late: d.late))
      } else if let start = d.start(on: clock), start.saturatingAdd(rules.departureSettleMilliseconds) <= t {
        due.append(
          Crossing(
            kind: .departure, recordIndex: r, eventMilliseconds: d.milliseconds, reason: .minuteWithoutReturn,
            late: d.late))
      }
    }
  }

  // MARK: Announcing

  /// Applies the announcing rules to the arrivals confirmed at one moment
  /// `t` on `clock` and the departures due then (`scratch.dueDepartures`
  /// holds those while they are announced).
  func announce(
    _ arrivals: [Crossing], decidedAt t: Int64, on clock: SettlingClock, _ context: inout Context,
    _ scratch: inout GeofenceState.Scratch
  ) {
    // The arrivals of this moment stop waiting before departures are judged.
    for arrival in arrivals { context.state.records[arrival.recordIndex].pendingArrival = nil }
    dueDepartures(at: t, on: clock, into: &scratch.dueDepartures, context)
    guard !arrivals.isEmpty || !scratch.dueDepartures.isEmpty else { return }
    let departures = scratch.dueDepartures
    let smallestDeparture = smallest(departures, context)
    let smallestArrival = smallest(arrivals, context)
    for departure in departures {
      confirmDeparture(
        departure, smallest: departure.recordIndex == smallestDeparture, arrivedElsewhere: !arrivals.isEmpty,
        t,
        &context)
    }
    var announcedArrival = false
    for arrival in arrivals {
      let announced = confirmArrival(arrival, smallest: arrival.recordIndex == smallestArrival, t, &context)
      announcedArrival = announcedArrival || announced
    }
    if announcedArrival { dropWaitingDepartures(except: arrivals, t, &context) }
  }

  /// The record index of the smallest place among `crossings` (radius, then id).
  private func smallest(_ crossings: [Crossing], _ context: Context) -> Int? {
    crossings.min { a, b in
      let x = place(of: context.state.records[a.recordIndex])
      let y = place(of: context.state.records[b.recordIndex])
      return (x?.radiusMeters ?? .infinity, x?.id ?? 0) < (y?.radiusMeters ?? .infinity, y?.id ?? 0)
    }?.recordIndex
  }

  private func confirmDeparture(
    _ departure: Crossing, smallest: Bool, arrivedElsewhere: Bool, _ t: Int64, _ context: inout Context
  ) {
    let r = departure.recordIndex
    guard let mark = context.state.records[r].pendingDeparture else { return }
    context.state.records[r].pendingDeparture = nil
    context.state.records[r].inside = false
    context.state.records[r].lastDepartureMilliseconds = mark.milliseconds
    guard let place = place(of: context.state.records[r]) else { return }
    var reasons: ReasonList<GeofenceReason> = [departure.reason]
    if arrivedElsewhere { reasons.append(.arrivedElsewhere) }
    if smallest {
      // What the next arrival's journey needs (its receipt is settling's only).
      var left = mark
      left.receivedMilliseconds = nil
      left.device = nil
      context.state.lastDeparture = left
    } else {
      reasons.append(.smallerPlaceAnnounced)
    }
    emitDecided(.departure, reasons, place, mark.milliseconds, t, r, nil, late: departure.late, &context)
  }

  /// Returns whether the arrival was announced.
  private func confirmArrival(_ arrival: Crossing, smallest: Bool, _ t: Int64, _ context: inout Context)
    -> Bool
  {
    let r = arrival.recordIndex
    guard let place = place(of: context.state.records[r]) else { return false }
    var reasons: ReasonList<GeofenceReason> = [arrival.reason]
    if !smallest { reasons.append(.smallerPlaceAnnounced) }
    // Quiet windows: judged against the window as it was, then a quick
    // return opens or extends it (the windows chain).
    let quiet =
      context.state.records[r].quietUntilMilliseconds.map { arrival.eventMilliseconds < $0 } ?? false
    if quiet { reasons.append(.placeQuiet) }
    if let left = context.state.records[r].lastDepartureMilliseconds,
      !arrival.eventMilliseconds.isLater(than: left, byMoreThan: rules.returnWithinMilliseconds)
    {
      reasons.append(.returnedSoon)
      let until = arrival.eventMilliseconds.saturatingAdd(rules.quietForMilliseconds)
      context.state.records[r].quietUntilMilliseconds = max(
        context.state.records[r].quietUntilMilliseconds ?? .min, until)
    }
    var journey: Journey?
    if smallest, let left = context.state.lastDeparture {
      journey = Journey(
        fromPlace: left.place, departedMilliseconds: left.milliseconds,
        distanceMeters: context.state.odometerMeters - left.odometerMeters,
        durationMilliseconds: arrival.eventMilliseconds.saturatingSubtract(left.milliseconds))
      context.state.lastDeparture = nil
    }
    return emitDecided(
      .arrival, reasons, place, arrival.eventMilliseconds, t, r, journey, late: arrival.late, &context)
  }

  /// A departure still waiting when an arrival elsewhere goes out is dropped.
  /// - Complexity: O((k + a) log a) for k records in use and a arrivals: the
  ///   arrived records are sorted once and looked up by bisection (a fix
  ///   inside many overlapping places made a × k comparisons, review26 F1).
  private func dropWaitingDepartures(except arrived: [Crossing], _ t: Int64, _ context: inout Context) {
    withUnsafeTemporaryAllocation(of: Int.self, capacity: arrived.count) { buffer in
      var sorted = buffer
      for (i, arrival) in arrived.enumerated() { sorted.initializeElement(at: i, to: arrival.recordIndex) }
      sorted.sort()
      // By position in the list of records in use, which loses the record
      // when it falls idle here: each turn drops one or steps past one.
      var k = 0
      while k < context.state.records.inUse.count {
        let r = context.state.records.inUse[k]
        defer { if k < context.state.records.inUse.count && context.state.records.inUse[k] == r { k += 1 } }
        guard !Self.holds(UnsafeBufferPointer(sorted), r),
          let mark = context.state.records[r].pendingDeparture
        else { continue }
        context.state.records[r].pendingDeparture = nil
        context.state.records[r].inside = false
        context.state.records[r].lastDepartureMilliseconds = mark.milliseconds
        guard let place = place(of: context.state.records[r]) else { continue }
        emit(
          .departure, .feedOnly, [.supersededByArrival], place, mark.milliseconds, t, late: mark.late,
          &context)
      }
    }
  }

  /// Whether ascending `sorted` holds `value`, by bisection. O(log n).
  private static func holds(_ sorted: UnsafeBufferPointer<Int>, _ value: Int) -> Bool {
    var (low, high) = (0, sorted.count)
    // The range halves each turn, so the loop ends.
    while low < high {
      let middle = low + (high - low) / 2
      if sorted[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low < sorted.count && sorted[low] == value
  }

  /// Emits a confirmed crossing, adding the quiet rule for departures (an
  /// arrival has judged its own), then the stale and late rules. Returns
  /// whether it was announced.
  @discardableResult
  private func emitDecided(
    _ kind: GeofenceEventKind, _ reasons: ReasonList<GeofenceReason>, _ place: Geofence, _ eventTime: Int64,
    _ decided: Int64, _ record: Int, _ journey: Journey?, late: Bool, _ context: inout Context
  ) -> Bool {
    var reasons = reasons
    if kind == .departure, let quiet = context.state.records[record].quietUntilMilliseconds, eventTime < quiet
    {
      reasons.append(.placeQuiet)
    }
    let outcome: GeofenceOutcome = reasons.contains(where: \.makesFeedOnly) ? .feedOnly : .announced
    return emit(kind, outcome, reasons, place, eventTime, decided, journey: journey, late: late, &context)
      == .announced
  }

  /// Appends one event; an announcement or feed entry older than 30 min, or
  /// from a late upload, goes to the feed only. Returns the final outcome.
  @discardableResult
  func emit(
    _ kind: GeofenceEventKind, _ outcome: GeofenceOutcome, _ reasons: ReasonList<GeofenceReason>,
    _ place: Geofence, _ eventTime: Int64, _ decided: Int64, journey: Journey? = nil, late: Bool,
    _ context: inout Context
  ) -> GeofenceOutcome {
    var outcome = outcome
    var reasons = reasons
    if outcome == .announced || outcome == .feedOnly {
      if context.now.isLater(than: eventTime, byMoreThan: rules.staleNewsMilliseconds) {
        reasons.append(.staleNews)
        outcome = .feedOnly
      }
      if late {
        reasons.append(.lateBatch)
        outcome = .feedOnly
      }
    }
    context.events.append(
      GeofenceEvent(
        kind: kind, outcome: outcome, reasons: reasons, place: place.id, circle: place.circle,
        person: context.person, eventMilliseconds: eventTime, decidedMilliseconds: decided, journey: journey),
      reservingOnFirst: Self.firstEventRoom)
    return outcome
  }
}
