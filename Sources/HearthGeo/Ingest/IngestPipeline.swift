/// The server's ingest path for one uploaded batch, end to end (SPEC §1–§5,
/// §7, §8): validation, dedupe, presence, the privacy projection, geofence
/// replay with settling, speed alerts, the sudden-stop check and trip
/// segmentation. Every stage is the library's own engine; this type only
/// wires them in the order a server runs them and keeps their state together.
///
/// The same code serves `hearth geo replay` (a recorded history against a
/// places file) and the benchmark's ingest workload, so what is measured is
/// what is shipped.
public struct IngestPipeline: Sendable {
  public let validation: ValidationRules
  public let projection: PrivacyProjection
  public let geofences: GeofenceEngine
  public let speedAlerts: SpeedAlertEngine
  public let suddenStops: SuddenStopEngine
  public let trips: TripSegmenter

  /// `places`: every circle's places (`Geofence.circle` says whose);
  /// `circlesOfPerson`: the circles each person is in; `speedLimits`:
  /// circle → limit (a circle without one has no speed alerts);
  /// `cellSizeMeters`: the place indexes' cell size, m (nil: each index
  /// picks its own from the radii, see ``GeofenceIndex``; the answers are
  /// the same, only the cost differs).
  public init(
    places: [Geofence], circlesOfPerson: [UserID: [CircleID]], speedLimits: [CircleID: SpeedLimit] = [:],
    validation: ValidationRules = ValidationRules(), projection: PrivacyProjection = PrivacyProjection(),
    cellSizeMeters: Double? = nil
  ) {
    self.validation = validation
    self.projection = projection
    geofences = GeofenceEngine(
      places: places, circlesOfPerson: circlesOfPerson, cellSizeMeters: cellSizeMeters)
    speedAlerts = SpeedAlertEngine(limits: speedLimits, circlesOfPerson: circlesOfPerson)
    suddenStops = SuddenStopEngine(
      places: places, circlesOfPerson: circlesOfPerson, cellSizeMeters: cellSizeMeters)
    trips = TripSegmenter(places: places, circlesOfPerson: circlesOfPerson, cellSizeMeters: cellSizeMeters)
  }

  /// Takes one uploaded batch received at `receivedAtMilliseconds` (the
  /// server clock). A schema error refuses the whole batch and changes no
  /// state; otherwise every fix is accounted for in the output (accepted and
  /// new, duplicate, or rejected with its reason), and after the batch every
  /// engine's clock moves to the receipt time for everybody, as
  /// ``advance(to:state:)`` does (a pending departure or sudden stop of a
  /// person who sent nothing is decided by the next batch of anyone).
  /// - Complexity: O(n log n) for a batch of n fixes (the engines sort runs
  ///   that arrive out of order), O(n) when the batch is in time order per
  ///   person; each engine's own bound applies (see their documentation).
  public func ingest(
    _ batch: FixColumns, receivedAtMilliseconds now: Int64, state: inout IngestState
  ) -> IngestOutput {
    var output = take(batch, receivedAtMilliseconds: now, state: &state)
    if output.schemaError == nil { output.merge(advance(to: now, state: &state)) }
    return output
  }

  /// The batch itself, before the clock advance.
  private func take(
    _ batch: FixColumns, receivedAtMilliseconds now: Int64, state: inout IngestState
  ) -> IngestOutput {
    var output = IngestOutput()
    let report: ValidationReport
    switch FixValidation.validate(batch, nowMilliseconds: now, rules: validation) {
    case .failure(let error):
      output.schemaError = error
      return output
    case .success(let r): report = r
    }
    output.rejections = report.rejections
    let dedupe = state.dedupe.insert(batch, indices: report.acceptedIndices)
    output.duplicates = dedupe.duplicateIndices.count + dedupe.stillAdoptionIndices.count
    // A `still` re-report is adopted by presence too (stale at 35 min).
    for index in dedupe.stillAdoptionIndices {
      let user = batch.user[index]
      if state.people[user]?.presence.adoptStill(
        device: batch.device[index], timeMilliseconds: batch.timeMilliseconds[index]) == true
      {
        output.stillAdopted += 1
      }
    }
    guard !dedupe.insertedIndices.isEmpty else { return output }
    let inserted = dedupe.insertedIndices
    output.inserted = inserted.count

    // Presence decides whose word counts: a `still` fix from a second device
    // (a tablet at home) while the holder's position is fresh moves nothing,
    // here or in the engines below; late fixes go on (each engine has its
    // own rule for them). Presence sees each person's fixes in upload order,
    // as a live server would (a person's row depends on their fixes alone).
    //
    // A server batch interleaves many phones. The engines give the same
    // events either way (a test says so), but they pay per run of a
    // person's fixes (a state lookup, a sort check) and the shared
    // vectorised neighbour speeds are only of use between a person's own
    // consecutive fixes; so the batch is put in order of person, then time,
    // device and position in the batch. One sort of packed (person,
    // position) keys groups the people in upload order; then one table
    // lookup per person, and a sort by time only of a run that needs it.
    // (Positions fit 32 bits: a batch of 2³² fixes would not fit in memory.)
    var keys = inserted.map { UInt64(batch.user[$0].rawValue) << 32 | UInt64(UInt32(truncatingIfNeeded: $0)) }
    keys.sort()
    func position(_ key: UInt64) -> Int { Int(key & 0xFFFF_FFFF) }
    var order: [Int] = []
    order.reserveCapacity(keys.count)
    var frames: [(index: Int, frame: ApproximateFix)] = []
    var run: [(time: Int64, tie: UInt64)] = []
    var start = 0
    while start < keys.count {
      let user = batch.user[position(keys[start])]
      var end = start + 1
      while end < keys.count && batch.user[position(keys[end])] == user { end += 1 }
      let slot = state.people.position(of: user, inserting: IngestState.Person())
      run.empty()
      var ordered = true
      for k in start..<end {
        let index = position(keys[k])
        let fix = batch[index]
        let (decision, frame) = state.people.values[slot].advance(with: fix, projection)
        switch decision {
        case .advanced:
          output.presenceAdvanced += 1
          if let frame { frames.append((index, frame)) }
        case .kept(.stillWhileHolderFresh):
          output.overruled += 1
          continue
        case .kept(.notNewer): break
        }
        // Ties in time: device, then position in the batch.
        let entry = (
          fix.timeMilliseconds, UInt64(fix.device.rawValue) << 32 | UInt64(UInt32(truncatingIfNeeded: index))
        )
        if let last = run.last, !(last < entry) { ordered = false }
        run.append(entry)
      }
      if !ordered { run.sort { $0 < $1 } }
      for entry in run { order.append(Int(entry.tie & 0xFFFF_FFFF)) }
      start = end
    }
    // Viewers' frames in upload order, as presence met them.
    frames.sort { $0.index < $1.index }
    output.sharedFrames = frames.map(\.frame)
    guard !order.isEmpty else { return output }
    let fixes =
      order.count == batch.count && order.elementsEqual(0..<batch.count) ? batch : batch.selecting(order)

    output.geofenceEvents = geofences.process(fixes, receivedAtMilliseconds: now, state: &state.geofences)
    let agreed = AgreedSpeedBatch(fixes)
    output.speedAlerts = speedAlerts.process(agreed, receivedAtMilliseconds: now, state: &state.speedAlerts)
    output.suddenStops = suddenStops.process(agreed, state: &state.suddenStops)
    output.trips = trips.process(fixes, now: now, state: &state.trips)
    return output
  }

  /// Moves every clock to `now` with no new fixes (the server's timer, and
  /// every batch's receipt): waiting departures and arrivals are decided,
  /// pending sudden stops whose five minutes have passed are raised, and idle
  /// trips close. Only people with something waiting are visited.
  /// - Complexity: O(w log w) for w people with something waiting.
  public func advance(to now: Int64, state: inout IngestState) -> IngestOutput {
    var output = IngestOutput()
    output.geofenceEvents = geofences.advance(to: now, state: &state.geofences)
    output.suddenStops = suddenStops.advance(to: now, state: &state.suddenStops)
    output.trips = trips.advance(to: now, state: &state.trips)
    return output
  }

  /// Makes `state`, kept under another configuration (places, circle
  /// memberships or limits edited between batches), fit this pipeline:
  /// everything still meaningful is kept (dedupe, presence, open trips,
  /// memberships of places that still exist and are still seen), and
  /// pending work about places that were removed or are no longer in the
  /// person's circles, and open speeding stretches of circles the person
  /// left or that lost their limit, are dropped and counted. Call it once
  /// before the first batch under the new configuration; the engines also
  /// tolerate state that names unknown places (they skip it) without it.
  /// - Complexity: O(size of the state).
  public func adopt(_ state: inout IngestState) -> ReconfigurationReport {
    var report = geofences.reconcile(&state.geofences)
    report.droppedSpeedStretches = speedAlerts.reconcile(&state.speedAlerts)
    trips.reconcile(&state.trips)  // open segments looked at again (nothing dropped)
    return report
  }
}

/// What ``IngestPipeline/adopt(_:)`` dropped.
public struct ReconfigurationReport: Sendable, Hashable, Codable {
  /// Per-person place records of removed or no longer visible places.
  public var droppedPlaceRecords = 0
  /// Departures waiting for confirmation at such places (never announced).
  public var droppedPendingDepartures = 0
  /// Fast arrivals waiting at such places (never announced).
  public var droppedPendingArrivals = 0
  /// Over-limit stretches of circles the person left or that lost their limit.
  public var droppedSpeedStretches = 0
  public init() {}
}

/// Everything the ingest path remembers between batches. A value: save it
/// (Codable), restore it, replay from it.
public struct IngestState: Sendable, Hashable, Codable {
  /// What the pipeline itself keeps per person.
  public struct Person: Sendable, Hashable, Codable {
    /// "Where they are now".
    public var presence = Presence()
    /// The last approximate frame the person's viewers received.
    public var sharedFrame: ApproximateFix?

    /// Presence advanced with `fix`; the projected frame when it advanced
    /// and the viewers' frame changed (a new cell or time slot).
    mutating func advance(with fix: Fix, _ projection: PrivacyProjection) -> (
      PresenceDecision, ApproximateFix?
    ) {
      let decision = presence.advance(with: fix)
      guard decision.didAdvance else { return (decision, nil) }
      let frame = projection.project(fix)
      guard projection.changed(from: sharedFrame, to: frame) else { return (decision, nil) }
      sharedFrame = frame
      return (decision, frame)
    }
  }

  public var dedupe = DedupeIndex()
  /// Presence and the shared frame per person.
  public var people: [UserID: Person] = [:]
  public var geofences = GeofenceState()
  public var speedAlerts = SpeedAlertState()
  public var suddenStops = SuddenStopState()
  public var trips = TripSegmenterState()
  public init() {}
}

/// What one batch (or one clock advance) produced.
public struct IngestOutput: Sendable {
  /// Set when the whole batch was refused; nothing else is then filled in.
  public var schemaError: SchemaError?
  /// Fixes refused one by one, with their index in the batch and reason.
  public var rejections: [Rejection] = []
  /// Fixes already stored (a retried upload), including `still` re-reports.
  public var duplicates = 0
  /// `still` re-reports of the fix that holds a presence row: the row became `still`.
  public var stillAdopted = 0
  /// New fixes stored and passed to the engines.
  public var inserted = 0
  /// New fixes that moved a person's presence row forwards.
  public var presenceAdvanced = 0
  /// New `still` fixes from a second device while the presence holder was
  /// fresh: stored, but not passed to the engines.
  public var overruled = 0
  /// Approximate frames that changed for viewers (a new cell or time slot).
  public var sharedFrames: [ApproximateFix] = []
  public var geofenceEvents: [GeofenceEvent] = []
  public var speedAlerts: [SpeedAlertEvent] = []
  public var suddenStops: [SuddenStopEvent] = []
  public var trips = TripOutput()
  public init() {}

  /// Appends what a clock advance produced.
  mutating func merge(_ other: IngestOutput) {
    geofenceEvents += other.geofenceEvents
    speedAlerts += other.speedAlerts
    suddenStops += other.suddenStops
    trips += other.trips
  }

  /// How many things the batch produced (events, alerts, stops, closed
  /// segments and stays, changed frames).
  public var producedCount: Int {
    sharedFrames.count + geofenceEvents.count + speedAlerts.count + suddenStops.count + trips.segments.count
      + trips.stays.count
  }
}
