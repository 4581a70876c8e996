import Foundation
import HearthImpact
import HearthLinearAlgebra
import HearthRuntime
import HearthSim

/// A grid of detector thresholds over the scenario catalogue and hours of
/// generated driving. Every trace runs through the detector once, with the
/// loosest jolt of the grid and no suppression; each combination then judges
/// those verdicts again from their measured values (`ImpactVerdict.outcome(under:)`)
/// and applies the 60 s suppression itself.
public enum ImpactSweep {
  /// Hours of generated driving a sweep (or an evaluation) takes: 0 to 10⁶.
  /// Every door checks its value against this one range: beyond it the
  /// drive list would not fit in memory, and the generator's running total
  /// would stop advancing (10²⁰ s + 1 800 s is 10²⁰ s).
  public static let hoursRange: ClosedRange<Double> = 0...1_000_000
  /// Seeds per catalogue scenario a sweep takes: 1 to 10⁶.
  public static let seedsRange: ClosedRange<UInt64> = 1...1_000_000

  /// The swept values; every combination of them is judged.
  public struct Grid: Sendable, Hashable, Codable {
    /// The settings every combination starts from (the swept ones replaced).
    public var base: ImpactConfiguration
    public var joltG: [Double]
    public var spinRadiansPerSecond: [Double]
    public var pressureHectopascals: [Double]
    public var movingMetersPerSecond: [Double]
    public var freeFallSeconds: [Double]

    /// One combination: `base` itself.
    public init(base: ImpactConfiguration = ImpactConfiguration()) {
      self.base = base
      joltG = [base.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity]
      spinRadiansPerSecond = [base.spinRadiansPerSecond]
      pressureHectopascals = [base.pressureRiseHectopascals]
      movingMetersPerSecond = [base.movingMedianMetersPerSecond]
      freeFallSeconds = [base.freeFallSeconds]
    }

    /// The values listed for `setting`.
    public subscript(setting: ImpactThresholds.Setting) -> [Double] {
      get {
        switch setting {
        case .joltG: joltG
        case .spinRadiansPerSecond: spinRadiansPerSecond
        case .pressureRiseHectopascals: pressureHectopascals
        case .movingMetersPerSecond: movingMetersPerSecond
        case .freeFallSeconds: freeFallSeconds
        }
      }
      set {
        switch setting {
        case .joltG: joltG = newValue
        case .spinRadiansPerSecond: spinRadiansPerSecond = newValue
        case .pressureRiseHectopascals: pressureHectopascals = newValue
        case .movingMetersPerSecond: movingMetersPerSecond = newValue
        case .freeFallSeconds: freeFallSeconds = newValue
        }
      }
    }

    /// Every combination, the jolt outermost, the free fall innermost.
    public var combinations: [ImpactConfiguration] { listedCombinations.map(\.configuration) }

    /// Every combination (in ``combinations``' order) with its jolt
    /// threshold as listed, g: the sweep's tables show this value, not one
    /// recomputed from the configuration's m/s² (3.5 × g / g is
    /// 3.4999999999999996). O(combinations).
    public var listedCombinations: [(configuration: ImpactConfiguration, joltG: Double)] {
      var out = [(configuration: base, joltG: ImpactThresholds.Setting.joltG.value(in: base))]
      for setting in ImpactThresholds.Setting.allCases {
        out = out.flatMap { c in
          self[setting].map { value in
            var next = c
            setting.set(value, in: &next.configuration)
            if setting == .joltG { next.joltG = value }
            return next
          }
        }
      }
      return out
    }

    /// What is wrong with the grid (empty: every combination, and the
    /// extraction pass's configuration, is one the detector takes): the
    /// base's problems, an empty list, and each listed value that breaks
    /// ``ImpactConfiguration/problems`` over the base, named by `name` (the
    /// door's name for the list) and the value. The rule checks each swept
    /// setting on its own (no rule ties two of them), so checking each value
    /// over the base judges every combination; a test holds that on random
    /// grids. Doors call it before any task runs. O(values listed).
    public func problems(name: (ImpactThresholds.Setting) -> String = \.rawValue) -> [String] {
      let bad = base.problems
      guard bad.isEmpty else { return bad.map { "base: " + $0 } }
      var out: [String] = []
      for setting in ImpactThresholds.Setting.allCases {
        guard !self[setting].isEmpty else {
          out.append("\(name(setting)): needs at least one value")
          continue
        }
        for value in self[setting] { out += setting.problems(value, over: base, name: name(setting)) }
      }
      return out
    }
  }

  /// Where a swept trace came from.
  public enum SourceKind: String, Sendable, Hashable, Codable {
    /// A catalogue scenario variant (it has an expected verdict).
    case scenario
    /// A drive of generated everyday driving (no crash: every report is a false alarm).
    case drive
    /// A recording passed as a PATH (no known crash: every report is a false alarm).
    case recording
  }

  /// One swept trace, as the exports and the report name it.
  public struct Source: Sendable, Hashable, Codable {
    /// "C3 seed 6", "drive 12", or the recording's path.
    public var name: String
    public var kind: SourceKind
    /// The catalogue scenario and seed (scenarios only).
    public var scenarioID: String?
    public var seed: UInt64?
    /// What the detector should say (nil for driving and recordings: silence).
    public var expected: ExpectedVerdict?
    /// Hours of driving it contributes to the false-alarm rate (0 for scenarios).
    public var hours: Double
  }

  /// One trace's verdicts from the extraction pass, and what it should say:
  /// what one task of a distributed sweep sends back (``encoded()``), and what
  /// ``assemble(_:grid:seeds:progress:)`` merges.
  public struct SweptTrace: Sendable, Codable {
    var source: Source
    var verdicts: [ImpactVerdict]
    var excerpts: [SignalExcerpt]
    /// The crash's jolt, s (crash scenarios only).
    var crashJoltSeconds: Double?
    /// Injected events of a generated drive (drive-relative times), to name its panels.
    var events: [DriveMix.MixEvent] = []
    /// The extraction configuration it was made under, spelled out
    /// (``ImpactSweep/extractionStamp(_:)``), so a merge refuses the
    /// extraction of another plan; nil from a library before the stamp.
    var extraction: String?

    /// Whether verdict `i` is the labelled crash jolt: the first verdict
    /// within 1 s of it (a crash's secondary blows have verdicts of their own).
    func isCrash(_ i: Int) -> Bool {
      guard let jolt = crashJoltSeconds else { return false }
      return verdicts.firstIndex { abs($0.joltSeconds - jolt) < 1 } == i
    }

    /// Whether verdict `i` is a later jolt of the labelled crash's incident
    /// (a rollover's next impact): neither the crash nor a jolt without one.
    func isLaterCrashJolt(_ i: Int) -> Bool {
      guard let jolt = crashJoltSeconds,
        let crash = verdicts.firstIndex(where: { abs($0.joltSeconds - jolt) < 1 }), i != crash,
        let incident = verdicts[crash].measurement?.incidentSeconds
      else { return false }
      return abs(verdicts[i].joltSeconds - jolt) < 1 || verdicts[i].measurement?.incidentSeconds == incident
    }

    /// The trace's name at `seconds`, with the injected event there if any
    /// ("drive 12, pothole at 340.2 s").
    func name(at seconds: Double) -> String {
      guard let event = events.min(by: { abs($0.driveSeconds - seconds) < abs($1.driveSeconds - seconds) }),
        abs(event.driveSeconds - seconds) <= 2
      else { return source.name }
      return source.name + ", " + event.kind + " at " + String(format: "%.1f", event.driveSeconds) + " s"
    }
  }

  public struct Row: Sendable, Hashable, Codable {
    public var joltG: Double
    public var spinRadiansPerSecond: Double
    public var pressureHectopascals: Double
    public var movingMetersPerSecond: Double
    public var freeFallSeconds: Double
    /// Crash scenario runs, those reported exactly once at the crash (true
    /// positives), and those not (misses).
    public var crashRuns: Int
    public var truePositives: Int
    public var misses: Int
    /// Reports in generated driving and recordings (every one a false alarm).
    public var falseAlarms: Int
    /// Every report under this combination.
    public var reports: Int
    /// True positives of all crash scenario runs.
    public var recall: Double
    /// Reports that were expected, of all reports.
    public var precision: Double
    /// False alarms per 1 000 h of driving, and the 95 % upper bound.
    public var falseAlarmsPer1000Hours: Double
    public var falseAlarmsUpperBoundPer1000Hours: Double
    /// Silent scenarios that reported.
    public var silentScenariosReported: Int
    /// Median jolt-to-verdict time of the reports, s.
    public var medianLatencySeconds: Double
    /// How many judged jolts (at or above this jolt threshold, not
    /// reported) each condition turned down; a jolt can fail several.
    public var rejectedBy: [String: Int]
    /// Per scenario id: runs that went as expected (silence, or exactly one report).
    public var matchedByScenario: [String: Int]
  }

  /// Everything a sweep produces.
  public struct Result: Sendable, Hashable, Codable {
    public var rows: [Row]
    /// The row of the hand-set thresholds (or the grid point nearest them).
    public var featured: Int
    /// Catalogue scenarios in order: id, name, expected verdict, runs.
    public var scenarios: [ScenarioInfo]
    public var panels: [Panel]
    /// Panels left out past `panelLimit`.
    public var panelsOmitted: Int
    public var model: ModelSuggestion?
    /// Hours of driving (generated and recorded) behind the false-alarm rates.
    public var hours: Double
    public var traces: Int
    public var jolts: Int
    /// Every trace in sweep order (scenarios, then drives, then recordings).
    public var sources: [Source]
    /// Reports per combination (outer, as `rows`) and trace (inner, as `sources`).
    public var reportCounts: [[Int]]
    /// Every jolt the extraction pass judged, with its features and label.
    public var joltTable: [JoltFeatures]
  }

  public struct ScenarioInfo: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var expected: ExpectedVerdict
    public var runs: Int
  }

  public static let panelLimit = 60

  /// A recording to sweep beside the generated traces: no crash in it is
  /// known, so every report it gets counts as a false alarm over its hours.
  public struct Recording: Sendable {
    public var name: String
    public var feed: ImpactFeed
    /// Hours with data (pauses left out), over which its reports are counted.
    public var hours: Double
    public init(name: String, feed: ImpactFeed) {
      self.name = name
      self.feed = feed
      self.hours = feed.statistics.hoursWithData
    }
  }

  /// Extraction (in parallel over traces), then every combination (in
  /// parallel), the featured combination's panels and the logistic model.
  /// `seeds` may be empty (no catalogue runs: recall is then 0 of 0) and
  /// `hours` zero (no generated driving); `recordings` are swept as driving.
  /// `progress(done, total)` is called as traces and combinations finish
  /// (from any thread). Deterministic: the same arguments give the same
  /// result on any number of cores.
  public static func run(
    grid: Grid, seeds: ClosedRange<UInt64>, hours: Double, recordings: [Recording] = [],
    progress: (@Sendable (Int, Int) -> Void)? = nil
  ) -> Result {
    let tasks = self.tasks(seeds: seeds, hours: hours) + recordings.map(Task.recording)
    let counter = ProgressCounter(total: tasks.count + grid.combinations.count, report: progress)
    let traces = ParallelDriver.map(count: tasks.count, finished: counter.step) { i in
      extract(tasks[i], grid: grid)
    }
    return assemble(traces, grid: grid, seeds: seeds, finished: counter.step)
  }
}
