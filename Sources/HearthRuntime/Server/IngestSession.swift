import Foundation
import HearthGeo
import HearthTrace

/// The server's ingest path as every door runs it: a pipeline, its state,
/// the memory trip names are drawn from, and the last output with the names
/// of its trips.
///
/// `hearth geo replay` (through ``ServerReplay``) and libhearth's ingest
/// handle (and therefore Python's `hearth.Ingest`, Node's and the JVM's)
/// hold one of these: each batch and each clock advance goes through
/// ``IngestPipeline`` and its trips are named by SPEC §7 from one
/// ``TripNaming/Memory`` kept beside the state (saved and restored with it),
/// so every door names a trip the same way.
public struct IngestSession: Sendable {
  public private(set) var pipeline: IngestPipeline
  /// The places with their names (for the event lines).
  public private(set) var places: [NamedPlace]
  public private(set) var state: IngestState
  /// The geofence events trips still open may be named from.
  public private(set) var names: TripNaming.Memory
  /// What the last batch or advance produced (empty after a restore or a
  /// reconfiguration).
  public private(set) var output = IngestOutput()
  /// The SPEC §7 names of `output`'s segments, in order.
  public private(set) var tripNames: [TripNaming.Ends] = []
  /// The part of `output` the clock advance produced: for a batch, the
  /// advance to its receipt after its own fixes (``IngestPipeline/ingestParts(_:receivedAtMilliseconds:state:)``);
  /// for an advance, all of `output`. In `output` each kind's clock events
  /// come after the batch's own, so the last `clockPart.geofenceEvents.count`
  /// geofence events of `output` (and so on, kind by kind) are the clock's.
  public private(set) var clockPart = IngestOutput()

  /// A session of `pipeline` from `state` (empty by default).
  public init(
    pipeline: IngestPipeline, places: [NamedPlace] = [], state: IngestState = IngestState(),
    names: TripNaming.Memory = TripNaming.Memory()
  ) {
    self.pipeline = pipeline
    self.places = places
    self.state = state
    self.names = names
  }

  /// A fresh session of the pipeline `description` makes.
  public init(_ description: IngestDescription) {
    self.init(pipeline: description.pipeline, places: description.places)
  }

  /// One uploaded batch received at `receivedAtMilliseconds` (the server
  /// clock), through every stage; its trips named. O(n log n) in the batch
  /// (the pipeline's bound), plus the naming's O(segments × events).
  @discardableResult
  public mutating func ingest(_ batch: FixColumns, receivedAtMilliseconds: Int64) -> IngestOutput {
    var (output, advanced) = pipeline.ingestParts(
      batch, receivedAtMilliseconds: receivedAtMilliseconds, state: &state)
    output.merge(advanced)
    return take(output, clockPart: advanced)
  }

  /// Moves every clock to `nowMilliseconds` with no fixes (the server's
  /// timer); its trips named. The pipeline's bound.
  @discardableResult
  public mutating func advance(to nowMilliseconds: Int64) -> IngestOutput {
    let output = pipeline.advance(to: nowMilliseconds, state: &state)
    return take(output, clockPart: output)
  }

  private mutating func take(_ output: IngestOutput, clockPart: IngestOutput = IngestOutput()) -> IngestOutput
  {
    self.output = output
    self.clockPart = clockPart
    tripNames = names.name(
      output.trips.segments, events: output.geofenceEvents, fence: pipeline.geofences, trips: state.trips)
    return output
  }

  /// Takes a new description between batches, keeping the state the new
  /// pipeline can use (``IngestPipeline/adopt(_:)``); the last output is
  /// cleared. O(state).
  /// - Returns: what the state lost (records and waits of removed places,
  ///   speeding stretches of circles without a limit).
  @discardableResult
  public mutating func reconfigure(_ description: IngestDescription) -> ReconfigurationReport {
    let next = description.pipeline
    let report = next.adopt(&state)
    pipeline = next
    places = description.places
    _ = take(IngestOutput())
    return report
  }

  /// The event lines of the last output (``IngestEventLines``: the place
  /// names of this session's places).
  /// - Throws: `TraceError.io` only if a value cannot be encoded.
  public func lines(filter: IngestEventFilter = .everything, diagnostics: Bool = false) throws -> [String] {
    try IngestEventLines(places: places, filter: filter, diagnostics: diagnostics).lines(
      output, tripNames: tripNames)
  }

  // MARK: Saved state

  /// The state and the trip names' memory as bytes (JSON, keys sorted,
  /// non-finite numbers as strings): the state's own keys with the memory
  /// under `tripNames`, so bytes saved before the memory was kept (the state
  /// alone) still restore, with nothing remembered.
  /// - Throws: `TraceError.io` when the state cannot be encoded (never in practice).
  public func saved() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do { return try encoder.encode(Saved(state: state, names: names)) } catch {
      throw TraceError.io(path: "-", reason: "cannot encode the state: \(error)")
    }
  }

  /// Replaces the state and the memory with saved bytes (from a session of
  /// the same description); the last output is cleared. The bytes are
  /// decoded (the state's ``IngestState/formatVersion`` checked by name) and
  /// then every value the pipeline or the trip naming will compute with is
  /// audited (``IngestState/problems(under:)``,
  /// ``TripNaming/Memory/problems()``: times, lengths, speeds, counts,
  /// places); bad bytes change nothing.
  /// O(size of the state).
  /// - Throws: `TraceError.malformed` naming where the bytes are not a saved
  ///   state, or the path and reason of each refused value.
  public mutating func restore(_ bytes: Data) throws(TraceError) {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let location = SourceLocation(file: "saved ingest state", line: 0)
    let restored: Saved
    do {
      restored = try DecodingProblem.decoding(Array(bytes)) { try decoder.decode(Saved.self, from: $0) }
    } catch {
      throw .malformed(
        location,
        reason: "not a saved ingest state (\(bytes.count) bytes): \(error.reason); the state is unchanged")
    }
    let problems =
      restored.state.problems(under: pipeline) + restored.names.problems().map { "tripNames.\($0)" }
    guard problems.isEmpty else {
      throw .malformed(
        location,
        reason: "saved ingest state refused: \(problems.joined(separator: "; ")); the state is unchanged")
    }
    state = restored.state
    names = restored.names
    _ = take(IngestOutput())
  }

  /// The saved form: the state's keys, the memory beside them.
  private struct Saved: Codable {
    var state: IngestState
    var names: TripNaming.Memory

    init(state: IngestState, names: TripNaming.Memory) {
      self.state = state
      self.names = names
    }

    enum CodingKeys: String, CodingKey { case tripNames }

    init(from decoder: any Decoder) throws {
      state = try IngestState(from: decoder)
      names =
        try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
          TripNaming.Memory.self, forKey: .tripNames)
        ?? TripNaming.Memory()
    }

    func encode(to encoder: any Encoder) throws {
      try state.encode(to: encoder)
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(names, forKey: .tripNames)
    }
  }
}
