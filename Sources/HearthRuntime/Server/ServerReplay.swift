import HearthGeo
import HearthTrace

/// A recorded history through the server's ingest path, upload by upload, as
/// the server received it, with the server's timer ticking between uploads
/// (what `hearth geo replay` runs).
///
/// Everybody in the history is in every circle of the places; one speed
/// limit for every circle. The clock moves at every upload's receipt and,
/// between uploads, every `tickMilliseconds`, so waiting decisions and sudden
/// stops are decided on time when nothing arrives; at the end it stops at
/// the last receipt, or goes on to `untilMilliseconds`.
///
/// Complexity: the pipeline's, O(fixes) plus one advance per tick.
/// Deterministic: same history and settings, same outputs.
public struct ServerReplay: Sendable {
  public struct Settings: Sendable, Hashable {
    /// How a history without receipt times is cut into uploads.
    public var uploads = ServerUploads.Policy(maximumFixes: 200)
    /// The server's timer between uploads, ms (≥ 1).
    public var tickMilliseconds: Int64 = 60_000
    /// Go on ticking after the last receipt up to this time (ms since the epoch).
    public var untilMilliseconds: Int64?
    /// Every circle's speed limit, km/h; nil: none.
    public var speedLimitKilometersPerHour: Double? = 50
    /// How long after a receipt the timer keeps ticking when nothing
    /// arrives, ms; past it the clock jumps to the next receipt (or
    /// `untilMilliseconds`). Nothing the clock decides waits that long — the
    /// longest waits are the geofences' 15 min quiet window and 30 min news
    /// limit, the sudden stop's 5 min, the trips' 5 min idle gap — so the
    /// events are the same as ticking through, and a history with a gap of
    /// years costs at most this many ticks per gap, not one per minute of it.
    public var idleTickingMilliseconds: Int64 = 6 * 3_600_000
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
    /// Every refused upload and rejected fix in upload order, each with its
    /// upload number (from 1), receipt, index in the upload, field and reason.
    public var problems: [String] = []
    public var rejectedByReason: [String: Int] = [:]
    public var duplicates: Int { outputs.map(\.duplicates).reduce(0, +) }
    /// New fixes kept from the engines, by reason (``IngestOutput/notNewer``,
    /// ``IngestOutput/overruled``), summed over the uploads.
    public var notNewer: Int { outputs.map(\.notNewer).reduce(0, +) }
    public var overruled: Int { outputs.map(\.overruled).reduce(0, +) }
    /// The server clock at the end, ms since the epoch.
    public var clockMilliseconds: Int64?
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
  /// - Complexity: O(fixes) through the pipeline plus at most
  ///   `idleTickingMilliseconds / tickMilliseconds` advances per gap between
  ///   receipts.
  public func run(_ history: ReplayHistory, session: inout IngestSession) -> Result {
    let uploads = ServerUploads.cut(
      history.fixes, receivedAtMilliseconds: history.receivedAtMilliseconds, policy: settings.uploads)
    var result = Result()
    result.uploadCount = uploads.count
    let tick = max(settings.tickMilliseconds, 1)
    var clock: Int64?
    func take(_ output: IngestOutput) {
      result.outputs.append(output)
      result.tripNames.append(session.tripNames)
    }
    func ticks(upTo end: Int64) {
      guard var t = clock else { return }
      let (limit, overflow) = t.addingReportingOverflow(max(settings.idleTickingMilliseconds, 0))
      let stop = overflow ? end : min(end, limit)
      while t < stop, stop.subtractingReportingOverflow(t).partialValue > tick {
        t += tick
        take(session.advance(to: t))
      }
    }
    for (k, upload) in uploads.enumerated() {
      ticks(upTo: upload.receivedAtMilliseconds)
      let output = session.ingest(upload.fixes, receivedAtMilliseconds: upload.receivedAtMilliseconds)
      clock = upload.receivedAtMilliseconds
      let at = "upload \(k + 1) (received \(upload.receivedAtMilliseconds) ms)"
      if let error = output.schemaError {
        result.refusedUploads += 1
        result.problems.append("\(at): \(error)")
      }
      for r in output.rejections {
        result.rejectedByReason[r.reason.rawValue, default: 0] += 1
        result.problems.append(
          "\(at): fix \(r.index): \(r.reason.field.rawValue): \(r.reason.rawValue); fix rejected")
      }
      take(output)
    }
    if let until = settings.untilMilliseconds, let now = clock, until > now {
      ticks(upTo: until)
      take(session.advance(to: until))
      clock = until
    }
    result.clockMilliseconds = clock
    return result
  }
}
