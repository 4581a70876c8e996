import Foundation
import HearthImpact
import HearthSim
import HearthTrace

// The sweep cut into independent tasks and one merge, so it can run in
// pieces anywhere (threads, processes, a cluster): `tasks` lists the
// extraction pass's traces, `extract` runs one of them through the detector,
// `assemble` judges every combination from the extracted traces. `run` is
// exactly these three in one process; any other scheduler that hands
// `assemble` the same traces in task order gets the same result, bit for bit.

extension ImpactSweep {
  /// One trace of the extraction pass.
  public enum Task: Sendable {
    /// A catalogue scenario generated with a seed (its expected verdict known).
    case scenario(Scenario, seed: UInt64)
    /// A drive of generated everyday driving.
    case drive(DriveMix.Drive)
    /// A recording swept as driving with no known crash.
    case recording(Recording)

    /// The name its trace goes by: "C3 seed 6", "drive 12", or the
    /// recording's name (its path).
    public var name: String {
      switch self {
      case .scenario(let scenario, let seed): "\(scenario.id) seed \(seed)"
      case .drive(let drive): "drive \(drive.index)"
      case .recording(let recording): recording.name
      }
    }
  }

  /// The generated tasks in sweep order: every catalogue scenario × seed,
  /// then the drives of `hours` of generated driving (none for 0). Recordings
  /// follow them (``Task/recording(_:)``), in the order given.
  /// - Complexity: O(scenarios × seeds + drives); nothing is simulated yet.
  public static func tasks(seeds: ClosedRange<UInt64>, hours: Double) -> [Task] {
    var out: [Task] = ScenarioCatalogue.all.flatMap { s in seeds.map { Task.scenario(s, seed: $0) } }
    var mix = DriveMix(seed: 1, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 0))
    while hours > 0, let drive = mix.next() { out.append(.drive(drive)) }
    return out
  }

  /// The configuration of the single extraction pass: the grid's base with
  /// its loosest jolt and no suppression (each combination applies its own).
  public static func extractionConfiguration(_ grid: Grid) -> ImpactConfiguration {
    var extraction = grid.base
    extraction.joltMetersPerSecondSquared = (grid.joltG.min() ?? 4) * ImpactConfiguration.standardGravity
    extraction.suppressionSeconds = 0
    return extraction
  }

  /// The extraction configuration of `grid` spelled out in full (every
  /// setting, numbers as shortest round-trip decimals): equal exactly when
  /// two plans extract alike. Stored in each ``SweptTrace``.
  public static func extractionStamp(_ grid: Grid) -> String {
    String(describing: extractionConfiguration(grid))
  }

  /// Why `traces` cannot be merged for a plan whose generated tasks are
  /// `generated` followed by up to `recordings` recordings, with `grid`; nil
  /// when they can. Every trace must carry this plan's extraction stamp; the
  /// generated tasks must each be there once, in task order (a lost or
  /// repeated result of a retried task would change every rate without a
  /// word); recordings follow, at most as many as the plan lists (a failed
  /// one is left out, as the command leaves it out).
  /// - Complexity: O(traces + generated tasks).
  public static func mergeProblem(
    _ traces: [SweptTrace], generated: [Task], recordings: Int, grid: Grid
  ) -> String? {
    let stamp = extractionStamp(grid)
    for (i, trace) in traces.enumerated() where trace.extraction != stamp {
      return trace.extraction == nil
        ? "extraction \(i) (\(trace.source.name)) carries no extraction stamp: made by an older library; run its task again"
        : "extraction \(i) (\(trace.source.name)) was made under another plan's extraction configuration (\(trace.extraction ?? "")), not this plan's (\(stamp))"
    }
    var next = 0
    for (i, trace) in traces.enumerated() {
      if trace.source.kind == .recording {
        guard next == generated.count else {
          return
            "extraction \(i) is the recording \(trace.source.name) but the plan's task \(next) (\(generated[next].name)) comes first: extractions go in task order"
        }
        continue
      }
      guard next < generated.count else {
        return
          "extraction \(i) (\(trace.source.name)) is one more generated task than the plan's \(generated.count)"
      }
      guard trace.source.name == generated[next].name else {
        let earlier = generated[..<next].contains { $0.name == trace.source.name }
        return earlier
          ? "extraction \(i) (\(trace.source.name)) repeats an earlier task; the plan's task \(next) is \(generated[next].name)"
          : "extraction \(i) is \(trace.source.name) where the plan's task \(next) (\(generated[next].name)) belongs: a task is missing or out of order"
      }
      next += 1
    }
    guard next == generated.count else {
      return
        "the plan's task \(next) (\(generated[next].name)) has no extraction: \(generated.count - next) of its \(generated.count) generated tasks are missing"
    }
    let given = traces.count - next
    guard given <= recordings else {
      return "\(given) recording extractions for a plan of \(recordings) recordings"
    }
    return nil
  }

  /// One task through the detector under ``extractionConfiguration(_:)``:
  /// its verdicts, the signals around each, and what it should say. Pure;
  /// the same task and grid give the same trace on any machine.
  /// - Complexity: one detector pass over the trace (simulated first for
  ///   generated tasks).
  public static func extract(_ task: Task, grid: Grid) -> SweptTrace {
    var trace = extractUnstamped(task, grid: grid)
    trace.extraction = extractionStamp(grid)
    return trace
  }

  private static func extractUnstamped(_ task: Task, grid: Grid) -> SweptTrace {
    let loose = extractionConfiguration(grid)
    switch task {
    case .recording(let recording):
      let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(
        recording.feed.batches(), configuration: loose)
      return SweptTrace(
        source: Source(name: task.name, kind: .recording, hours: recording.hours), verdicts: verdicts,
        excerpts: excerpts)
    case .scenario(let scenario, let seed):
      let s = scenario.generate(seed: seed)
      let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(
        s.batches.lazy.map { $0.impactBatch(originMilliseconds: s.plan.startEpochMilliseconds) },
        configuration: loose)
      let crash = s.label.expected == .silent ? nil : s.label.joltSeconds.first
      return SweptTrace(
        source: Source(
          name: task.name, kind: .scenario, scenarioID: scenario.id, seed: seed,
          expected: s.label.expected, hours: 0),
        verdicts: verdicts, excerpts: excerpts, crashJoltSeconds: crash)
    case .drive(let drive):
      let origin = drive.plan.startEpochMilliseconds
      let batches = sequence(state: drive.simulator()) { simulator in
        simulator.nextBatch()?.impactBatch(originMilliseconds: origin)
      }
      let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(batches, configuration: loose)
      return SweptTrace(
        source: Source(name: task.name, kind: .drive, hours: drive.plan.durationSeconds / 3600),
        verdicts: verdicts, excerpts: excerpts, events: drive.events)
    }
  }

  /// Every combination of `grid` judged over `traces` (in task order), the
  /// featured combination's panels and the logistic model: the sweep's
  /// result. `seeds` is the range the scenario tasks were generated with
  /// (the scenario table reports it). `finished()` is called once per
  /// combination judged (from any thread).
  /// - Complexity: O(combinations × jolts), in parallel over combinations.
  public static func assemble(
    _ traces: [SweptTrace], grid: Grid, seeds: ClosedRange<UInt64>, finished: @Sendable () -> Void = {}
  ) -> Result {
    let listed = grid.listedCombinations
    let combinations = listed.map(\.configuration)
    let judged = ParallelDriver.map(count: combinations.count, finished: finished) { i in
      judge(traces, combinations[i], joltG: listed[i].joltG)
    }
    let featured = nearestToHandSet(combinations, grid.base)
    let (panels, omitted) = self.panels(traces, combinations[featured], combination: featured)
    let joltTable = self.joltTable(traces)
    return Result(
      rows: judged.map(\.row), featured: featured,
      scenarios: ScenarioCatalogue.all.map {
        ScenarioInfo(id: $0.id, name: $0.name, expected: $0.expected, runs: seeds.count)
      },
      panels: panels, panelsOmitted: omitted, model: model(joltTable, handSet: combinations[featured]),
      hours: traces.map(\.source.hours).reduce(0, +), traces: traces.count,
      jolts: traces.map(\.verdicts.count).reduce(0, +), sources: traces.map(\.source),
      reportCounts: judged.map(\.reportsPerTrace), joltTable: joltTable)
  }
}

extension ImpactSweep.SweptTrace {
  /// Non-finite numbers as JSON strings, so NaN measurements survive the trip.
  private static let nonFinite = (positive: "inf", negative: "-inf", nan: "nan")

  /// The trace as bytes another process decodes with ``init(encoded:)`` into
  /// an identical value (every Double and Float round-trips exactly: JSON
  /// with shortest round-trip numbers, NaN and ±∞ spelled out).
  /// - Throws: `TraceError.io` if it cannot be encoded (never for a real trace).
  public func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: Self.nonFinite.positive, negativeInfinity: Self.nonFinite.negative,
      nan: Self.nonFinite.nan)
    do { return try encoder.encode(self) } catch {
      throw TraceError.io(path: "-", reason: "cannot encode the swept trace: \(error)")
    }
  }

  /// The trace ``encoded()`` wrote.
  /// - Throws: `TraceError.malformed` when `data` is not an encoded swept trace.
  public init(encoded data: Data) throws {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: Self.nonFinite.positive, negativeInfinity: Self.nonFinite.negative,
      nan: Self.nonFinite.nan)
    do { self = try decoder.decode(Self.self, from: data) } catch {
      throw TraceError.malformed(
        SourceLocation(file: "swept trace", line: 0),
        reason: "not an encoded swept trace (\(data.count) bytes)")
    }
  }

  /// The trace's name and kind, as the exports list it.
  public var name: String { source.name }
}
