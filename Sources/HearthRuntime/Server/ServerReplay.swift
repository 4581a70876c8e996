import HearthGeo
import HearthTrace

/// A recorded history through the server's ingest path on the server's
/// schedule (``ServerSchedule``: each phone's uploads in order of receipt,
/// the timer between them), what `hearth geo replay` runs.
///
/// Everybody in the history is in every circle of the places; one speed
/// limit for every circle.
///
/// Complexity: the schedule's and the pipeline's, O(fixes log fixes) plus
/// one advance per tick. Deterministic: same history and settings, same outputs.
public struct ServerReplay: Sendable {
  public struct Settings: Sendable, Hashable {
    /// How the history is cut into uploads and when the timer ticks.
    public var schedule = ServerSchedule.Settings()
    /// Every circle's speed limit, km/h; nil: none.
    public var speedLimitKilometersPerHour: Double? = 50
    public init() {}
  }

  /// What the replay produced and refused.
  public struct Result: Sendable {
    /// One output per upload and per tick, in the server's order.
    public var outputs: [IngestOutput] = []
    /// The SPEC §7 names of each output's segments (`tripNames[k][i]` for
    /// `outputs[k].trips.segments[i]`), from the session's `TripNaming.Memory`.
    public var tripNames: [[TripNaming.Ends]] = []
    public var uploadCount = 0
    /// Uploads refused whole (schema).
    public var refusedUploads = 0
    /// The fixes of the uploads refused whole.
    public var refusedFixes = 0
    /// Every refused upload and rejected fix in upload order, each with its
    /// upload number (from 1), receipt, index in the upload, field and
    /// reason; for an upload log, first the file and line of the fix.
    public var problems: [String] = []
    public var rejectedByReason: [String: Int] = [:]
    public var duplicates: Int { outputs.map(\.duplicates).reduce(0, +) }
    /// New fixes kept from the engines, by reason (``IngestOutput/notNewer``,
    /// ``IngestOutput/overruled``), summed over the uploads.
    public var notNewer: Int { outputs.map(\.notNewer).reduce(0, +) }
    public var overruled: Int { outputs.map(\.overruled).reduce(0, +) }
    /// The server clock at the end, ms since the epoch.
    public var clockMilliseconds: Int64?
    /// Why nothing was replayed: the schedule was refused (``ServerSchedule/refusal``).
    public var scheduleRefusal: String?
  }

  public var pipeline: IngestPipeline
  public var settings: Settings

  /// The pipeline for `places`, with every person of `people` in every circle.
  public init(places: [Geofence], people: Set<UserID>, settings: Settings = Settings()) {
    let circles = Array(Set(places.map(\.circle))).sorted()
    var limits: [CircleID: SpeedLimit] = [:]
    if let kmh = settings.speedLimitKilometersPerHour {
      for circle in circles { limits[circle] = SpeedLimit(kilometersPerHour: kmh) }
    }
    pipeline = IngestPipeline(
      places: places, circlesOfPerson: Dictionary(uniqueKeysWithValues: people.map { ($0, circles) }),
      speedLimits: limits)
    self.settings = settings
  }

  /// The pipeline a description makes (its places, circles and limits;
  /// `settings.speedLimitKilometersPerHour` is not used).
  public init(_ description: IngestDescription, settings: Settings = Settings()) {
    pipeline = description.pipeline
    self.settings = settings
  }

  /// Replays `history` from `state`, naming trips from this run's geofence
  /// events only (a fresh session of this replay's pipeline).
  public func run(_ history: ReplayHistory, state: inout IngestState) -> Result {
    var session = IngestSession(pipeline: pipeline, state: state)
    let result = run(history, session: &session)
    state = session.state
    return result
  }

  /// Replays `history` through `session` (its pipeline, state and the memory
  /// its trips are named from) on the server's schedule: each upload at its
  /// receipt, the timer between.
  /// - Complexity: ``ServerSchedule``'s steps, each through the pipeline.
  public func run(_ history: ReplayHistory, session: inout IngestSession) -> Result {
    let schedule = ServerSchedule(
      history.fixes, receivedAtMilliseconds: history.receivedAtMilliseconds, settings: settings.schedule)
    var result = Result()
    result.scheduleRefusal = schedule.refusal
    result.uploadCount = schedule.uploadCount
    var upload = 0
    for step in schedule.steps {
      guard step.isUpload else {
        result.outputs.append(session.advance(to: step.timeMilliseconds))
        result.tripNames.append(session.tripNames)
        continue
      }
      upload += 1
      let positions = schedule.positions(of: step)
      let output = session.ingest(
        history.fixes.selecting(positions), receivedAtMilliseconds: step.timeMilliseconds)
      let at = "upload \(upload) (received \(step.timeMilliseconds) ms)"
      // An upload log's fix is named by its row and column too (review26
      // F9, review30), as the log's unreadable rows are.
      func row(_ index: Int, _ field: FixField) -> String {
        guard let path = history.logPath, index >= 0, index < positions.count,
          positions[positions.startIndex + index] < history.logLines.count
        else { return "" }
        let column = ReplayHistory.logColumn(of: field).map { " (\($0))" } ?? ""
        return "\(path):\(history.logLines[positions[positions.startIndex + index]])\(column): "
      }
      if let error = output.schemaError {
        result.refusedUploads += 1
        result.refusedFixes += step.rows.count
        result.problems.append("\(row(error.index, error.field))\(at): \(error)")
      }
      for r in output.rejections {
        result.rejectedByReason[r.reason.rawValue, default: 0] += 1
        result.problems.append(
          "\(row(r.index, r.reason.field))\(at): fix \(r.index): \(r.reason.field.rawValue): \(r.reason.rawValue); fix rejected"
        )
      }
      result.outputs.append(output)
      result.tripNames.append(session.tripNames)
    }
    result.clockMilliseconds = schedule.clockMilliseconds
    return result
  }
}
