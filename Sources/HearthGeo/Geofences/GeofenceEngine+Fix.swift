/// One fix through the membership rules (SPEC §3, hysteresis, accuracy
/// gating and the start of settling). What is announced is decided in
/// GeofenceEngine+Announce.swift.
extension GeofenceEngine {
  /// What the engine carries while it works through one person's fixes.
  struct Context {
    /// The server clock of the batch or advance, ms.
    var now: Int64
    /// The person's fixes in this batch were uploaded late.
    var late: Bool
    var state: PersonGeofenceState
    /// The person's circles (nil: every place counts), looked up once per person.
    var circles: Circles? = nil
    var events: [GeofenceEvent] = []
    /// This fix saw a departure's second clear fix or cancelled a fast
    /// arrival: a waiting departure may be due at it.
    var departureMayBeDue = false

    var person: UserID { state.person }
  }

  /// A confirmed crossing waiting to be announced with the others of its moment.
  struct Crossing {
    var kind: GeofenceEventKind
    var recordIndex: Int
    var eventMilliseconds: Int64
    var reason: GeofenceReason
    /// Started or decided by a late upload.
    var late: Bool
  }

  /// The place a record is about, if the engine still has it.
  func place(of record: PlaceRecord) -> Geofence? {
    lookup.position(record.place).map { places[$0] }
  }

  /// A distance measured already: from the point `from` to the fix it goes with, m.
  struct OdometerStep {
    var from: FixPoint
    var meters: Double
  }

  /// One fix of the context's person, in time order (`fromPrevious`: the
  /// step from the batch's previous fix, when measured already; `scratch`:
  /// the lists it fills, kept from fix to fix).
  func apply(
    _ fix: Fix, fromPrevious: OdometerStep? = nil, _ context: inout Context,
    _ scratch: inout GeofenceState.Scratch
  ) {
    let accuracy = fix.horizontalAccuracyMeters
    guard accuracy <= rules.ignoreAccuracyAboveMeters else { return }  // also drops NaN
    let t = fix.timeMilliseconds
    // A later fix of the device that began a wait, a minute or more after
    // it began, ends it (that device's clock; another device's fix times
    // end nothing); the server's minute is settled per batch.
    settle(upTo: t, on: .phone(fix.device), &context, &scratch)
    // The neighbour speed costs a distance: worked out only if a place asks.
    let previousFix = context.state.lastFix
    if t > (previousFix?.time ?? .min) { context.state.lastFix = TrackPoint(fix) }
    var speedMemo: Double?? = nil
    func speed() -> Double? {
      if let known = speedMemo { return known }
      let value = speedOf(fix, after: previousFix)
      speedMemo = .some(value)
      return value
    }
    advanceOdometer(fix, fromPrevious: fromPrevious, &context.state)

    collectCandidates(
      fix.coordinate, &scratch.candidates, circles: context.circles, records: context.state.records)
    scratch.crossings.empty()
    scratch.started.empty()
    context.departureMayBeDue = false
    let network = accuracy > rules.networkAccuracyAboveMeters
    let margin = max(rules.exitBandMeters, network ? rules.networkExitErrorMultiple * accuracy : 0)
    // Candidates ascend by place id like the records, so a record inserted
    // here never shifts one already noted in `crossings`. (By position: the
    // loop holds no second reference to the list, so no retain per fix.)
    for c in scratch.candidates.indices {
      let p = scratch.candidates[c]
      let place = places[p]
      let known = context.state.records.count
      let r = context.state.recordIndex(place.id, watermark: t)
      // A new record is evaluated now (unless t is the earliest time there is).
      // (`step` moves the watermark to t, in its one write of the record.)
      if context.state.records.count == known {
        guard t > context.state.records[r].watermarkMilliseconds else { continue }
      } else if t == .min {
        continue
      }
      let inside = index.isWithin(place.radiusMeters, of: p, fix.coordinate)
      let clear = !inside && !index.isWithin(place.radiusMeters + margin, of: p, fix.coordinate)
      step(
        r, place, inside: inside, clear: clear, network: network, speed: speed, at: t, from: fix.device,
        &scratch.crossings, &scratch.started, &context)
    }
    if !scratch.crossings.isEmpty || context.departureMayBeDue {
      announce(scratch.crossings, decidedAt: t, on: .phone(fix.device), &context, &scratch)
    }
    // Said after the arrivals of the same fix (an arrival confirmed and left
    // again reads in that order); a departure dropped by an arrival elsewhere
    // was already reported as such.
    for s in scratch.started.indices {
      let r = scratch.started[s]
      guard let mark = context.state.records[r].pendingDeparture, mark.milliseconds == t,
        let place = place(of: context.state.records[r])
      else { continue }
      emit(.departure, .pending, [.leftWaitingForConfirmation], place, t, t, late: mark.late, &context)
    }
  }

  /// The fix's speed for the fast-arrival rule, m/s: measured, else the
  /// agreed speed from the person's previous fix (nil: nothing to say).
  private func speedOf(_ fix: Fix, after previous: TrackPoint?) -> Double? {
    if let measured = fix.speedMetersPerSecond { return measured }
    let current = TrackPoint(fix)
    guard let previous, previous.time < current.time else { return nil }
    return AgreedSpeed.pair(
      timeA: previous.time, previous.coordinate, previous.accuracy, previous.speed, timeB: current.time,
      current.coordinate, current.accuracy, current.speed, rules: rules.agreed)?.metersPerSecond
  }

  /// The journey's odometer runs along fixes at least as sharp as 100 m.
  /// A step measured already is read when it starts at the last sharp fix
  /// (the same time and the same bits of latitude and longitude); it is
  /// bit-identical to the distance measured here.
  private func advanceOdometer(_ fix: Fix, fromPrevious: OdometerStep?, _ state: inout PersonGeofenceState) {
    let t = fix.timeMilliseconds
    state.newestMilliseconds = max(state.newestMilliseconds, t)
    guard fix.horizontalAccuracyMeters <= rules.journeyAccuracyMeters,
      t > (state.lastSharp?.milliseconds ?? .min)
    else { return }
    if let previous = state.lastSharp {
      if let step = fromPrevious, step.from.milliseconds == previous.milliseconds,
        step.from.latitudeDegrees.bitPattern == previous.latitudeDegrees.bitPattern,
        step.from.longitudeDegrees.bitPattern == previous.longitudeDegrees.bitPattern
      {
        state.odometerMeters += step.meters
      } else {
        state.odometerMeters += GreatCircle.distanceMeters(from: previous.coordinate, to: fix.coordinate)
      }
    }
    state.lastSharp = FixPoint(
      latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees, milliseconds: t)
  }

  /// Candidates: the person's places holding the fix, and the places they
  /// are in or waiting about; ascending index (= id) order.
  /// (Given the context's two parts it reads, not the context: a copy of
  /// that would retain every list it holds, per fix.)
  private func collectCandidates(
    _ point: Coordinate, _ candidates: inout [Int], circles: Circles?, records: PlaceRecords
  ) {
    candidates.empty()
    index.appendContaining(point, to: &candidates)
    if let circles { candidates.removeAllIfAny { !circles.contains(places[$0].circle) } }
    for r in records.inUse {
      if let i = lookup.position(records[r].place) { candidates.append(i) }
    }
    // Sorted, then repeats dropped in place: O(k log k) for k candidates
    // (a person in many overlapping places), no allocation. A fix usually
    // has two or three (the place it is in, found by the index and as a
    // record in use): sorted by insertion there, where the general sort's
    // set-up cost more than the sorting.
    guard candidates.count > 1 else { return }
    if candidates.count <= 16 {
      candidates.withUnsafeMutableBufferPointer { c in
        for k in 1..<c.count {
          let value = c[k]
          var j = k
          while j > 0 && c[j - 1] > value {
            c[j] = c[j - 1]
            j -= 1
          }
          c[j] = value
        }
      }
    } else {
      candidates.sort()
    }
    var kept = 1
    for k in 1..<candidates.count where candidates[k] != candidates[kept - 1] {
      candidates[kept] = candidates[k]
      kept += 1
    }
    // One by one: a repeat or two, and `removeLast()` is a few
    // instructions where the ranged removals cost about 45 a call.
    while candidates.count > kept { candidates.removeLast() }
  }

  /// The membership rules for one place and one fix: `inside` within the
  /// radius; `clear` beyond the exit distance (the test of leaving, with
  /// the accuracy gate: radius + max(40 m, 2 × error of a network fix));
  /// `network` a fix looser than 100 m; `device` sent the fix. The record
  /// is read once and written back once, its watermark moved to `t`.
  private func step(
    _ r: Int, _ place: Geofence, inside: Bool, clear: Bool, network: Bool, speed: () -> Double?, at t: Int64,
    from device: DeviceID, _ crossings: inout [Crossing], _ started: inout [Int], _ context: inout Context
  ) {
    var record = context.state.records[r]
    record.watermarkMilliseconds = t  // evaluated at t
    defer { context.state.records[r] = record }
    guard record.inside else {
      guard inside else { return }
      record.inside = true
      if let speed = speed(), speed >= rules.fastArrivalMetersPerSecond {
        record.pendingArrival = PendingArrival(
          milliseconds: t, device: device, late: context.late, receivedMilliseconds: context.now)
        emit(.arrival, .pending, [.fastArrivalWaiting], place, t, t, late: context.late, &context)
      } else {
        crossings.append(
          Crossing(kind: .arrival, recordIndex: r, eventMilliseconds: t, reason: .entered, late: context.late)
        )
      }
      return
    }
    if let arrival = record.pendingArrival {
      // Out again within the minute: driving past. Beyond the radius is
      // enough for a sharp fix (the band only decides when a membership
      // ends), but a network estimate takes nobody out unless it is clear
      // of the place by its own test of leaving (twice its error): closer,
      // it neither cancels the arrival nor ends the membership (F3).
      if !inside && (clear || !network) {
        record.pendingArrival = nil
        record.inside = false
        context.departureMayBeDue = true
        emit(.arrival, .cancelled, [.drovePast], place, arrival.milliseconds, t, late: arrival.late, &context)
      } else if inside, let speed = speed(), speed < rules.fastArrivalMetersPerSecond {
        crossings.append(
          Crossing(
            kind: .arrival, recordIndex: r, eventMilliseconds: arrival.milliseconds,
            reason: .fastArrivalSlowed,
            late: arrival.late || context.late))
      }
      return
    }
    if let departure = record.pendingDeparture {
      if inside {
        record.pendingDeparture = nil
        emit(
          .departure, .cancelled, [.backInside], place, departure.milliseconds, t, late: departure.late,
          &context)
      } else if clear {
        record.pendingDeparture?.clearSeen = true  // confirmed with this moment's decisions
        context.departureMayBeDue = true
      }
    } else if clear {
      record.pendingDeparture = DepartureMark(
        place: place.id, device: device, late: context.late, milliseconds: t,
        odometerMeters: context.state.odometerMeters, receivedMilliseconds: context.now)
      started.append(r)
    }
  }
}

extension TrackPoint {
  /// The speed rules' view of a fix.
  init(_ fix: Fix) {
    time = fix.timeMilliseconds
    latitude = fix.latitudeDegrees
    longitude = fix.longitudeDegrees
    accuracy = fix.horizontalAccuracyMeters
    speed = fix.speedMetersPerSecond
  }
}
