/// The server's ingest path for one uploaded batch, end to end (SPEC §1–§5,
/// §7, §8): validation, dedupe, presence, the privacy projection, geofence
/// replay with settling, speed alerts, the sudden-stop check and trip
/// segmentation. Every stage is the library's own engine; this type only
/// wires them in the order a server runs them and keeps their state together.
///
/// The engines follow the person, not each device (SPEC §1 "one person,
/// several devices"): a new fix reaches them only if it takes the person's
/// presence row; the others are stored and counted by reason
/// (``IngestOutput/notNewer``, ``IngestOutput/overruled``).
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
  /// `cellSizeMeters`: the place index's cell size, m (nil: the index
  /// picks its own from the radii, see ``GeofenceIndex``; the answers are
  /// the same, only the cost differs).
  ///
  /// The geofences, the sudden-stop check and the trips share one index of
  /// the places (with the sudden-stop discs, in the geofence engine's
  /// order): a repeated place id keeps its first place for all three, and
  /// a million places cost one index, not three.
  public init(
    places: [Geofence], circlesOfPerson: [UserID: [CircleID]], speedLimits: [CircleID: SpeedLimit] = [:],
    validation: ValidationRules = ValidationRules(), projection: PrivacyProjection = PrivacyProjection(),
    cellSizeMeters: Double? = nil
  ) {
    self.validation = validation
    self.projection = projection
    let stopRules = SuddenStopRules()
    let index = GeofenceIndex(
      places: GeofenceEngine.indexOrder(places), cellSizeMeters: cellSizeMeters,
      exclusion: stopRules.exclusionDisc)
    geofences = GeofenceEngine(index: index, circlesOfPerson: circlesOfPerson)
    speedAlerts = SpeedAlertEngine(limits: speedLimits, circlesOfPerson: circlesOfPerson)
    suddenStops = SuddenStopEngine(index: index, circlesOfPerson: circlesOfPerson, rules: stopRules)
    trips = TripSegmenter(index: index, circlesOfPerson: circlesOfPerson)
  }

  /// Takes one uploaded batch received at `receivedAtMilliseconds` (the
  /// server clock). A schema error refuses the whole batch and changes no
  /// state; otherwise every fix is accounted for in the output (accepted and
  /// new, duplicate, or rejected with its reason; a new one passed to the
  /// engines or kept from them with its reason), and after the batch every
  /// engine's clock moves to the receipt time for everybody, as
  /// ``advance(to:state:)`` does (a pending departure or sudden stop of a
  /// person who sent nothing is decided by the next batch of anyone).
  /// - Complexity: O(n log n) for a batch of n fixes (the engines sort runs
  ///   that arrive out of order), O(n) when the batch is in time order per
  ///   person; each engine's own bound applies (see their documentation).
  public func ingest(
    _ batch: FixColumns, receivedAtMilliseconds now: Int64, state: inout IngestState
  ) -> IngestOutput {
    var (output, advanced) = ingestParts(batch, receivedAtMilliseconds: now, state: &state)
    output.merge(advanced)
    return output
  }

  /// ``ingest(_:receivedAtMilliseconds:state:)`` in its two parts: what the
  /// batch's own fixes produced (validation, dedupe, presence, frames and
  /// every engine's events for the people of the batch), and what the clock
  /// advance to the receipt time after it produced (decisions that were
  /// waiting, for anybody; empty when the batch was refused whole).
  /// `ingest` returns the two merged, each kind's batch events first. A
  /// door that replays people apart (Python's `hearth.distributed`) needs
  /// them apart: a person's clock events do not depend on whose upload
  /// moved the clock. Same bounds as `ingest`.
  public func ingestParts(
    _ batch: FixColumns, receivedAtMilliseconds now: Int64, state: inout IngestState
  ) -> (batch: IngestOutput, advance: IngestOutput) {
    let output = take(batch, receivedAtMilliseconds: now, state: &state)
    guard output.schemaError == nil else { return (output, IngestOutput()) }
    return (output, advance(to: now, state: &state))
  }

  /// `upload` with every fix stored by it that a `still` re-report in the
  /// same upload adopted (SPEC §1, *Dedupe*) saying `still`, so that presence
  /// and the engines judge the stored fix as it now reads, whichever of the
  /// two came first (before, the fix followed by its re-report was judged as
  /// it first said, and a tablet's walking fix with its `still` re-report
  /// took the row from a fresh phone; the other order was overruled;
  /// specrev-server F2). Nil when no re-report adopted a fix of this upload.
  /// O(n) when a re-report adopted anything; O(1) otherwise.
  static func adoptingStillReReports(_ upload: FixColumns, _ dedupe: DedupeOutcome) -> FixColumns? {
    guard !dedupe.stillAdoptionIndices.isEmpty else { return nil }
    func key(_ i: Int) -> FixKey {
      FixKey(user: upload.user[i], device: upload.device[i], timeMilliseconds: upload.timeMilliseconds[i])
    }
    let adopted = Set(dedupe.stillAdoptionIndices.map(key))
    var batch: FixColumns?
    for index in dedupe.insertedIndices where adopted.contains(key(index)) {
      if batch == nil { batch = upload }
      batch?.setActivity(.still, at: index)
    }
    return batch
  }

  /// The batch itself, before the clock advance.
  private func take(
    _ upload: FixColumns, receivedAtMilliseconds now: Int64, state: inout IngestState
  ) -> IngestOutput {
    var output = IngestOutput()
    let report: ValidationReport
    switch FixValidation.validate(upload, nowMilliseconds: now, rules: validation) {
    case .failure(let error):
      output.schemaError = error
      return output
    case .success(let r): report = r
    }
    output.rejections = report.rejections
    let dedupe = state.dedupe.insert(
      upload, indices: report.acceptedIndices, retentionMilliseconds: validation.keysMatterMilliseconds)
    if !dedupe.forgottenIndices.isEmpty {
      // Only after the server's clock stepped back: too old on the clock
      // that accepted the device's newer fix (SPEC §1, *Validation*).
      output.rejections += dedupe.forgottenIndices.map { Rejection(index: $0, reason: .tooOld) }
      output.rejections.sort { $0.index < $1.index }
    }
    output.duplicates = dedupe.duplicateIndices.count + dedupe.stillAdoptionIndices.count
    // A `still` re-report is adopted by presence too (stale at 35 min) for a
    // fix that holds the row already; a fix stored by this very upload is
    // judged as `still` from the start (`adoptingStillReReports`).
    for index in dedupe.stillAdoptionIndices {
      if state.people[upload.user[index]]?.presence.adoptStill(
        device: upload.device[index], timeMilliseconds: upload.timeMilliseconds[index]) == true
      {
        output.stillAdopted += 1
      }
    }
    guard !dedupe.insertedIndices.isEmpty else { return output }
    output.inserted = dedupe.insertedIndices.count
    if let adopted = Self.adoptingStillReReports(upload, dedupe) {
      takeNew(
        adopted, inserted: dedupe.insertedIndices, receivedAtMilliseconds: now, state: &state, into: &output)
    } else {
      takeNew(
        upload, inserted: dedupe.insertedIndices, receivedAtMilliseconds: now, state: &state, into: &output)
    }
    return output
  }

  /// The fixes `inserted` (indices into `batch`) of an upload already
  /// validated and deduplicated: presence, then every engine, into `output`.
  private func takeNew(
    _ batch: FixColumns, inserted: [Int], receivedAtMilliseconds now: Int64, state: inout IngestState,
    into output: inout IngestOutput
  ) {

    // One person, several devices (SPEC §1): geofences, trips and the
    // speed rules follow the person, so a fix reaches the engines only if
    // it takes the person's presence row. The rule is decided here, once,
    // for every engine. A fix kept out is stored (it is no duplicate) and
    // counted by reason: not newer than the row, which is the newest fix
    // the engines have evaluated for the person (a second device's batch of
    // old fixes, a phone's upload overtaken by a newer one), or a `still`
    // fix from a second device while the holder is fresh on the server's
    // clock (a tablet at home while the phone is out). Presence takes each
    // person's new fixes in time order, fixes of one millisecond in
    // `Presence.sameTimeRank` order, so neither the row nor what reaches
    // the engines depends on the order within the upload.
    //
    // A server batch interleaves many phones. The engines give the same
    // events either way (a test says so), but they pay per run of a
    // person's fixes (a state lookup, a sort check) and the shared
    // vectorised neighbour speeds are only of use between a person's own
    // consecutive fixes; so the batch is put in order of person, then
    // time. One sort of packed (person, position) keys groups the people
    // in upload order; then one table lookup per person, and a sort by
    // time only of a run that needs it. (Positions fit 32 bits: a batch of
    // 2³² fixes would not fit in memory.)
    //
    // The lists are the state's scratch, kept from batch to batch (taken
    // out while the engines have the state, put back at the end).
    var scratch = IngestState.Scratch()
    swap(&scratch, &state.scratch)
    defer {
      // Kept unless this batch was unusually large (a whole history
      // replayed at once): what the state holds between batches stays bounded.
      if max(scratch.keys.capacity, scratch.sorter.bufferCapacity) > IngestState.Scratch.largestKept {
        scratch = IngestState.Scratch()
      }
      swap(&scratch, &state.scratch)
    }
    scratch.keys.removeAll(keepingCapacity: true)
    for index in inserted {
      scratch.keys.append(
        UInt64(batch.user[index].rawValue) << 32 | UInt64(UInt32(truncatingIfNeeded: index)))
    }
    scratch.sorter.sort(&scratch.keys)
    let keys = scratch.keys
    func position(_ key: UInt64) -> Int { Int(key & 0xFFFF_FFFF) }
    scratch.order.removeAll(keepingCapacity: true)
    scratch.order.reserveCapacity(keys.count)
    scratch.run.reserveCapacity(keys.count)
    output.sharedFrames.reserveCapacity(keys.count)
    var start = 0
    while start < keys.count {
      let user = batch.user[position(keys[start])]
      var end = start + 1
      while end < keys.count && batch.user[position(keys[end])] == user { end += 1 }
      scratch.run.empty()
      var ordered = true
      for k in start..<end {
        let index = position(keys[k])
        let entry = (
          time: batch.timeMilliseconds[index],
          rank: Presence.sameTimeRank(activity: batch.activity[index], device: batch.device[index]),
          index: index
        )
        if let last = scratch.run.last, !((last.time, last.rank) < (entry.time, entry.rank)) {
          ordered = false
        }
        scratch.run.append(entry)
      }
      if !ordered { scratch.run.sort { ($0.time, $0.rank) < ($1.time, $1.rank) } }
      let slot = state.people.position(of: user, inserting: IngestState.Person())
      for entry in scratch.run {
        let (decision, frame) = state.people.values[slot].advance(
          with: batch[entry.index], receivedAtMilliseconds: now, projection)
        switch decision {
        case .advanced:
          output.presenceAdvanced += 1
          scratch.order.append(entry.index)
          if let frame { output.sharedFrames.append(frame) }
        case .kept(.notNewer): output.notNewer += 1
        case .kept(.stillWhileHolderFresh): output.overruled += 1
        }
      }
      start = end
    }
    let order = scratch.order
    guard !order.isEmpty else { return }
    let fixes: FixColumns
    if order.count == batch.count && order.elementsEqual(0..<batch.count) {
      fixes = batch
    } else {
      scratch.fixes.select(order, from: batch)
      fixes = scratch.fixes
    }

    // The steps between neighbouring fixes, measured once (one vectorised
    // pass) for the geofence odometer and the agreed speeds.
    scratch.measureSteps(of: fixes)
    output.geofenceEvents = geofences.process(
      fixes, receivedAtMilliseconds: now, state: &state.geofences, steps: scratch.steps)
    let agreed = AgreedSpeedBatch(fixes, steps: scratch.steps)
    output.speedAlerts = speedAlerts.process(agreed, receivedAtMilliseconds: now, state: &state.speedAlerts)
    output.suddenStops = suddenStops.process(agreed, state: &state.suddenStops)
    output.trips = trips.process(fixes, now: now, state: &state.trips)
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

    /// Presence advanced with `fix` received at `now`; the projected frame
    /// when it advanced and the viewers' frame changed (a new cell or time slot).
    mutating func advance(
      with fix: Fix, receivedAtMilliseconds now: Int64, _ projection: PrivacyProjection
    ) -> (PresenceDecision, ApproximateFix?) {
      let decision = presence.advance(with: fix, receivedAtMilliseconds: now)
      guard decision.didAdvance else { return (decision, nil) }
      guard let frame = projection.project(fix, ifChangedFrom: sharedFrame) else { return (decision, nil) }
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
  /// Lists the pipeline reuses from batch to batch, so that a batch does not
  /// allocate them again. Not state: never saved, compared or hashed (a
  /// restored state starts with empty ones).
  var scratch = Scratch()
  public init() {}

  struct Scratch: Sendable {
    /// Lists for batches of more new fixes than this are dropped after the
    /// batch (14 columns of 64 Ki fixes: about 7 MB).
    static let largestKept = 65_536
    /// (person, position) keys of the batch's new fixes, sorted.
    var keys: [UInt64] = []
    /// What sorts `keys` (its buffer and `keys` may trade storage).
    var sorter = KeySorter()
    /// One person's new fixes in time order.
    var run: [(time: Int64, rank: UInt64, index: Int)] = []
    /// Positions of the fixes that reach the engines, person by person.
    var order: [Int] = []
    /// Those fixes, gathered. (The last batch's fixes stay here until the
    /// next one overwrites them: in memory only, never saved or returned.
    /// A copy of the state shares these lists, and its next batch then
    /// allocates them anew: the cost is allocation, never a wrong value.)
    var fixes = FixColumns()
    /// The distance from each of those fixes to the one before, m.
    var steps: [Double] = []

    /// `steps` for `fixes`: `GreatCircle.stepsMeters`, its list reused. O(n).
    mutating func measureSteps(of fixes: FixColumns) {
      steps.removeAll(keepingCapacity: true)
      steps.append(contentsOf: repeatElement(0, count: fixes.count))
      var span = steps.mutableSpan
      GreatCircle.stepsMeters(
        latitudesDegrees: fixes.latitudeDegrees.span, longitudesDegrees: fixes.longitudeDegrees.span,
        steps: &span)
    }
  }

  public static func == (a: IngestState, b: IngestState) -> Bool {
    a.dedupe == b.dedupe && a.people == b.people && a.geofences == b.geofences
      && a.speedAlerts == b.speedAlerts
      && a.suddenStops == b.suddenStops && a.trips == b.trips
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(dedupe)
    hasher.combine(people)
    hasher.combine(geofences)
    hasher.combine(speedAlerts)
    hasher.combine(suddenStops)
    hasher.combine(trips)
  }

  enum CodingKeys: String, CodingKey {
    case formatVersion, dedupe, people, geofences, speedAlerts, suddenStops, trips
  }

  /// Decodes a state written by a format version this library reads
  /// (``readableFormatVersions``); another version, or none, is refused by
  /// name. The values are checked against a pipeline by ``problems(under:)``.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let version = try c.decodeIfPresent(Int.self, forKey: .formatVersion)
    guard let version, Self.readableFormatVersions.contains(version) else {
      let reads =
        "this library reads versions \(Self.readableFormatVersions.lowerBound)–\(Self.readableFormatVersions.upperBound)"
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [CodingKeys.formatVersion],
          debugDescription: version.map { "a saved ingest state of format version \($0); \(reads)" }
            ?? "a saved ingest state without a format version (written before versions, or not a saved state); \(reads)"
        ))
    }
    dedupe = try c.decode(DedupeIndex.self, forKey: .dedupe)
    people = try c.decode([UserID: Person].self, forKey: .people)
    geofences = try c.decode(GeofenceState.self, forKey: .geofences)
    speedAlerts = try c.decode(SpeedAlertState.self, forKey: .speedAlerts)
    suddenStops = try c.decode(SuddenStopState.self, forKey: .suddenStops)
    trips = try c.decode(TripSegmenterState.self, forKey: .trips)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(Self.formatVersion, forKey: .formatVersion)
    try c.encode(dedupe, forKey: .dedupe)
    try c.encodeInKeyOrder(people, forKey: .people)
    try c.encode(geofences, forKey: .geofences)
    try c.encode(speedAlerts, forKey: .speedAlerts)
    try c.encode(suddenStops, forKey: .suddenStops)
    try c.encode(trips, forKey: .trips)
  }
}

/// What one batch (or one clock advance) produced.
public struct IngestOutput: Sendable {
  /// Set when the whole batch was refused; nothing else is then filled in.
  public var schemaError: SchemaError?
  /// Fixes refused one by one, with their index in the batch and reason.
  public var rejections: [Rejection] = []
  /// Fixes already stored (a retried upload), including `still` re-reports.
  public var duplicates = 0
  /// `still` re-reports of the fix that holds a presence row: the row became
  /// `still`. (A re-report in the upload that stored its fix makes that fix
  /// `still` before presence judges it, and counts among the duplicates only.)
  public var stillAdopted = 0
  /// New fixes stored: `presenceAdvanced + notNewer + overruled`.
  public var inserted = 0
  /// New fixes that moved a person's presence row forwards: exactly the
  /// fixes passed to the engines (geofences, speed alert, sudden stop, trips).
  public var presenceAdvanced = 0
  /// New fixes not newer than the person's presence row, which is the
  /// newest fix the person's engines already evaluated (a second device's
  /// batch of old fixes, an upload overtaken by a newer one; of two
  /// devices' fixes at one millisecond, the one that did not take the
  /// row): stored, but kept from the engines (SPEC §1, §3).
  public var notNewer = 0
  /// New `still` fixes from a second device while the presence holder was
  /// fresh on the server's clock: stored, but kept from the engines (SPEC §1).
  public var overruled = 0
  /// New fixes stored but kept from the engines: `notNewer + overruled`.
  public var keptFromEngines: Int { notNewer + overruled }
  /// Approximate frames that changed for viewers (a new cell or time slot),
  /// in the order presence took the fixes: person by person, in time order.
  public var sharedFrames: [ApproximateFix] = []
  public var geofenceEvents: [GeofenceEvent] = []
  public var speedAlerts: [SpeedAlertEvent] = []
  public var suddenStops: [SuddenStopEvent] = []
  public var trips = TripOutput()
  public init() {}

  /// Appends what a clock advance produced.
  public mutating func merge(_ other: IngestOutput) {
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
