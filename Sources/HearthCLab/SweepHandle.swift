import CHearth
import Foundation
import HearthC
import HearthImpact
import HearthLab
import HearthRuntime
import HearthTrace

/// What `hearth impact sweep` is asked, as a JSON object (every key optional).
struct SweepSpec {
  var grid: ImpactSweep.Grid
  var seeds: UInt64 = 5
  var hours: Double = 100
  var recordings: [String] = []
  var mapping: String?
  var gate: VehicleGatePolicy = .recording

  static let keys: Set<String> = [
    "base", "jolt_g", "spin_rad_s", "pressure_hpa", "moving_m_s", "free_fall_s", "seeds", "hours",
    "recordings",
    "mapping", "vehicle_gate",
  ]

  /// The keys as JSON gives them (types checked by the decoder: `true` is not a number).
  private struct Given: Decodable {
    var base: JSONValue?
    var jolt_g, spin_rad_s, pressure_hpa, moving_m_s, free_fall_s: [Double]?
    var seeds: UInt64?
    var hours: Double?
    var recordings: [String]?
    var mapping: String?
    var vehicle_gate: String?
  }

  /// The spec in `text`, defaults for what it leaves out (the command's own).
  /// - Throws: `TraceError.malformed` naming the key and why.
  init(json text: String) throws {
    func bad(_ reason: String) -> TraceError {
      .malformed(SourceLocation(file: "sweep spec", line: 0), reason: reason)
    }
    let data = Data((text.isEmpty ? "{}" : text).utf8)
    if let problem = JSONKeys.problem(in: Array(data)) { throw bad(problem) }
    guard let keys = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
      throw bad("not a JSON object")
    }
    if let unknown = keys.keys.sorted().first(where: { !Self.keys.contains($0) }) {
      throw bad(JSONKeys.unknown(unknown, known: Array(Self.keys)))
    }
    let given: Given
    do { given = try JSONDecoder().decode(Given.self, from: data) } catch {
      let key = (error as? DecodingError).flatMap(Self.key) ?? "a key"
      throw bad("\(key) has the wrong type (lists of numbers, whole seeds, paths as strings)")
    }
    var base = ImpactConfiguration()
    if let settings = given.base {
      base = try ImpactConfigurationFile.decode(try JSONEncoder().encode(settings), name: "sweep spec base")
    }
    grid = ImpactSweep.Grid(base: base)
    func list(_ key: String, _ values: [Double]?) throws -> [Double]? {
      guard let values else { return nil }
      guard !values.isEmpty, values.allSatisfy(\.isFinite) else {
        throw bad("'\(key)' must be a non-empty list of numbers")
      }
      return values
    }
    let lists: [ImpactThresholds.Setting: [Double]?] = [
      .joltG: given.jolt_g, .spinRadiansPerSecond: given.spin_rad_s,
      .pressureRiseHectopascals: given.pressure_hpa,
      .movingMetersPerSecond: given.moving_m_s, .freeFallSeconds: given.free_fall_s,
    ]
    for setting in ImpactThresholds.Setting.allCases {
      grid[setting] = try list(Self.key(setting), lists[setting] ?? nil) ?? grid[setting]
    }
    // The whole plan is checked before any task runs.
    let problems = grid.problems(name: Self.key)
    guard problems.isEmpty else { throw bad(problems.joined(separator: "; ")) }
    if let seeds = given.seeds {
      guard ImpactSweep.seedsRange.contains(seeds) else {
        throw bad(
          "'seeds' must be from \(ImpactSweep.seedsRange.lowerBound) to \(ImpactSweep.seedsRange.upperBound)")
      }
      self.seeds = seeds
    }
    if let hours = given.hours {
      guard ImpactSweep.hoursRange.contains(hours) else {
        throw bad(
          "'hours' must be from \(Int(ImpactSweep.hoursRange.lowerBound)) to \(Int(ImpactSweep.hoursRange.upperBound))"
        )
      }
      self.hours = hours
    }
    recordings = given.recordings ?? []
    // The plan's cost, estimated before any task is listed (SweepPlan lists them).
    if let tooLarge = ImpactSweep.budgetProblem(
      grid: grid, seeds: seeds, hours: hours, recordings: recordings.count)
    {
      throw bad(tooLarge)
    }
    mapping = given.mapping
    if let word = given.vehicle_gate {
      guard let policy = VehicleGatePolicy(rawValue: word) else {
        throw bad("'vehicle_gate' must be recording, on or off")
      }
      gate = policy
    }
  }

  /// The spec's key of each swept list.
  static func key(_ setting: ImpactThresholds.Setting) -> String {
    switch setting {
    case .joltG: "jolt_g"
    case .spinRadiansPerSecond: "spin_rad_s"
    case .pressureRiseHectopascals: "pressure_hpa"
    case .movingMetersPerSecond: "moving_m_s"
    case .freeFallSeconds: "free_fall_s"
    }
  }

  /// The key a decoding error is about.
  private static func key(_ error: DecodingError) -> String? {
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      context.codingPath.first.map { "'\($0.stringValue)'" }
    case .keyNotFound(let key, _): "'\(key.stringValue)'"
    @unknown default: nil
    }
  }
}

/// Any JSON value, kept as given (the spec's `base` is handed on as JSON).
enum JSONValue: Codable {
  case object([String: JSONValue])
  case array([JSONValue])
  case string(String)
  case number(Double)
  case bool(Bool)
  case null

  init(from decoder: Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let v = try? c.decode(Bool.self) {
      self = .bool(v)
    } else if let v = try? c.decode(Double.self) {
      self = .number(v)
    } else if let v = try? c.decode(String.self) {
      self = .string(v)
    } else if let v = try? c.decode([JSONValue].self) {
      self = .array(v)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .object(let v): try c.encode(v)
    case .array(let v): try c.encode(v)
    case .string(let v): try c.encode(v)
    case .number(let v): try c.encode(v)
    case .bool(let v): try c.encode(v)
    case .null: try c.encodeNil()
    }
  }
}

/// The handle of a sweep plan.
typealias SweepHandle = ValueHandle<SweepPlan>

/// A sweep plan (immutable: tasks run concurrently on it) and, once merged,
/// its result.
final class SweepPlan {
  let spec: SweepSpec
  let generated: [ImpactSweep.Task]
  var result: ImpactSweep.Result?

  init(_ spec: SweepSpec) {
    self.spec = spec
    generated = ImpactSweep.tasks(seeds: 1...spec.seeds, hours: spec.hours)
  }

  var taskCount: Int { generated.count + spec.recordings.count }

  /// Task `index`: generated, or a recording read from its path (what
  /// `impact sweep PATH` does, and the same words when it cannot).
  func task(_ index: Int) throws -> ImpactSweep.Task {
    if index < generated.count { return generated[index] }
    let path = spec.recordings[index - generated.count]
    guard FileManager.default.fileExists(atPath: path) else {
      throw TraceError.io(path: path, reason: "bad input: no such file or folder")
    }
    return try recording(TraceImport.read(path: path, mappingPath: spec.mapping).0, name: path)
  }

  /// A recording task for `trace` under the plan's vehicle gate, named `name`.
  func recording(_ trace: Trace, name: String) throws -> ImpactSweep.Task {
    guard let feed = ImpactFeed(trace: trace, gate: spec.gate) else {
      throw TraceError.io(
        path: name, reason: "no accelerometer with gravity (nor a gravity stream to add back)")
    }
    return .recording(ImpactSweep.Recording(name: name, feed: feed))
  }
}

@c public func hearth_sweep_plan(
  _ spec_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    do {
      let spec = try SweepSpec(json: try string(spec_json, "spec_json") ?? "")
      return (SweepHandle(SweepPlan(spec)), HEARTH_OK)
    } catch {
      return FailedHandle.with(status(of: error), "\(error)")
    }
  }
}

@c public func hearth_sweep_task_count(_ sweep: OpaquePointer?, _ count: UnsafeMutablePointer<Int64>?)
  -> Int32
{
  guard let h = Handle.from(sweep, as: SweepHandle.self) else { return wrongHandle(sweep) }
  guard let count else { return HEARTH_ERROR_ARGUMENT }
  count.pointee = Int64(h.value.taskCount)
  return HEARTH_OK
}

@c public func hearth_sweep_run_task(
  _ sweep: OpaquePointer?, _ index: Int64, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  // Nothing is written to the plan here (tasks run concurrently on it):
  // every error goes to the bytes handed out.
  guard let h = Handle.from(sweep, as: SweepHandle.self) else {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, "sweep is not a sweep plan")
  }
  guard index >= 0 && index < h.value.taskCount else {
    return handOutFailure(
      out, HEARTH_ERROR_ARGUMENT, "task \(index) of \(h.value.taskCount) (0…\(h.value.taskCount - 1))")
  }
  do {
    let trace = ImpactSweep.extract(try h.value.task(Int(index)), grid: h.value.spec.grid)
    return handOutBytes(out, try trace.encoded())
  } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}

@c public func hearth_sweep_run_trace(
  _ sweep: OpaquePointer?, _ trace: OpaquePointer?, _ name: UnsafePointer<CChar>?,
  _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  // As hearth_sweep_run_task: the plan and the trace are only read.
  guard let h = Handle.from(sweep, as: SweepHandle.self) else {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, "sweep is not a sweep plan")
  }
  guard let t = Handle.from(trace, as: TraceHandle.self) else {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, "trace is not a trace handle")
  }
  let recordingName: String
  do throws(ArgumentError) { recordingName = try requiredString(name, "name") } catch {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, error.reason)
  }
  do {
    // Read without keeping it on the trace: tasks run concurrently on one trace.
    let whole = try t.snapshot().get()
    let extraction = ImpactSweep.extract(
      try h.value.recording(whole.trace, name: recordingName), grid: h.value.spec.grid)
    return handOutBytes(out, try extraction.encoded())
  } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}

@c public func hearth_sweep_merge(
  _ sweep: OpaquePointer?, _ count: Int64, _ extractions: UnsafePointer<UnsafePointer<UInt8>?>?,
  _ sizes: UnsafePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(sweep, as: SweepHandle.self) else { return wrongHandle(sweep) }
  return guarded(h) { () throws(ArgumentError) in
    h.value.result = nil  // a refused merge leaves no result, not an earlier one
    let n = try checkedCount(count)
    let (pointers, lengths) = (try input(extractions, n, "extractions"), try input(sizes, n, "sizes"))
    var traces: [ImpactSweep.SweptTrace] = []
    for i in 0..<n {
      let bytes = try input(pointers[i], try checkedCount(lengths[i], "sizes[\(i)]"), "extractions[\(i)]")
      do { traces.append(try ImpactSweep.SweptTrace(encoded: Data(bytes))) } catch {
        return h.fail(HEARTH_ERROR_BAD_INPUT, "extraction \(i): \(error)")
      }
    }
    if let problem = ImpactSweep.mergeProblem(
      traces, generated: h.value.generated, recordings: h.value.spec.recordings.count, grid: h.value.spec.grid
    ) {
      return h.fail(HEARTH_ERROR_BAD_INPUT, problem)
    }
    h.value.result = ImpactSweep.assemble(traces, grid: h.value.spec.grid, seeds: 1...h.value.spec.seeds)
    return h.succeed()
  }
}

/// The merged result's files, or the status saying why there are none.
private func files(_ h: SweepHandle, picked: Int?) -> Result<[(name: String, contents: Data)], Fault> {
  guard let result = h.value.result else {
    return .failure(Fault(HEARTH_ERROR_STATE, "the sweep is not merged yet"))
  }
  do {
    return .success(
      try SweepExport.files(result, configurations: h.value.spec.grid.combinations, picked: picked))
  } catch {
    return .failure(Fault(HEARTH_ERROR_ARGUMENT, "\(error)"))
  }
}

/// A status with its message.
struct Fault: Error {
  var status: Int32
  var message: String
  init(_ status: Int32, _ message: String) {
    self.status = status
    self.message = message
  }
}

@c public func hearth_sweep_export(
  _ sweep: OpaquePointer?, _ what: Int32, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let h = Handle.from(sweep, as: SweepHandle.self) else { return wrongHandle(sweep) }
  let names = [
    HEARTH_SWEEP_TABLE: "sweep.csv", HEARTH_SWEEP_OUTCOMES: "outcomes.csv", HEARTH_SWEEP_JOLTS: "jolts.csv",
    HEARTH_SWEEP_CONFIGURATIONS: "configurations.json", HEARTH_SWEEP_RESULT: "sweep.json",
    HEARTH_SWEEP_REPORT: "report.html",
  ]
  guard let name = names[what] else {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, "unknown export \(what)")
  }
  switch files(h, picked: nil) {
  case .failure(let fault): return handOutFailure(out, fault.status, fault.message)
  case .success(let all):
    return handOutBytes(out, all.first { $0.name == name }?.contents ?? Data())
  }
}

@c public func hearth_sweep_write(_ sweep: OpaquePointer?, _ folder: UnsafePointer<CChar>?, _ picked: Int64)
  -> Int32
{
  guard let h = Handle.from(sweep, as: SweepHandle.self) else { return wrongHandle(sweep) }
  let path: String
  do throws(ArgumentError) { path = try requiredString(folder, "folder") } catch {
    return h.fail(HEARTH_ERROR_ARGUMENT, error.reason)
  }
  guard let result = h.value.result else { return h.fail(HEARTH_ERROR_STATE, "the sweep is not merged yet") }
  do {
    try SweepExport.write(
      result, configurations: h.value.spec.grid.combinations, picked: picked < 0 ? nil : Int(picked),
      to: path)
    return h.succeed()
  } catch {
    return h.fail(
      picked >= 0 && "\(error)".contains("--pick") ? HEARTH_ERROR_ARGUMENT : HEARTH_ERROR_BAD_INPUT,
      "\(error)")
  }
}
