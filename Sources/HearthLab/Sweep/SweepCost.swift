import HearthImpact
import HearthRuntime
import HearthSim

// What a sweep plan will cost, estimated from its sizes alone (nothing is
// generated, listed or allocated), and the one budget every door holds a plan
// to before it lists a task: `hearth impact sweep`, `hearth_sweep_plan` (and
// through it `hearth.sweep` and the distributed sweep).

extension ImpactSweep.Grid {
  /// How many combinations the grid has: the product of its list lengths,
  /// as a Double so that no grid overflows it. O(settings); nothing is
  /// listed (``combinations`` lists them).
  public var combinationCount: Double {
    ImpactThresholds.Setting.allCases.reduce(1.0) { $0 * Double(self[$1].count) }
  }
}

extension ImpactSweep {
  /// The estimated cost of a sweep plan, from its sizes only.
  public struct Cost: Sendable, Hashable, CustomStringConvertible {
    /// Threshold combinations judged.
    public var combinations: Double
    /// Traces through the detector: catalogue scenarios × seeds, the drives
    /// of the generated hours (at their mean length), and the recordings.
    public var traces: Double
    /// Sensor samples simulated for the generated traces (recordings not counted).
    public var samples: Double
    /// Estimated peak memory of the sweep, bytes.
    public var bytes: Double

    /// "4 800 traces × 36 combinations, 1.1e+08 samples, about 0.77 GB".
    public var description: String {
      func n(_ x: Double) -> String { x < 1e6 ? String(Int(x)) : String(format: "%.2g", x) }
      return "\(n(traces)) traces × \(n(combinations)) combinations, \(n(samples)) samples, about "
        + String(format: "%.3g", bytes / 1e9) + " GB"
    }
  }

  /// The most estimated memory a sweep plan may take, bytes (2 GiB): every
  /// door refuses a plan whose ``cost(grid:seeds:hours:recordings:)`` is
  /// above it, before it lists a task. A sweep keeps every trace's verdicts
  /// until all are judged, so its memory grows with seeds and hours; 2 GiB
  /// takes the default plan (5 seeds, 100 h, about 53 MB) many times over
  /// (up to about 4 300 seeds with no driving, or about 100 000 h of
  /// driving with 5 seeds, one combination), and refuses the
  /// ranges' far ends (``seedsRange``, ``hoursRange``), which would need
  /// terabytes.
  public static let memoryBudgetBytes: Double = 2 * 1024 * 1024 * 1024

  /// The figures the estimate is made of, from the peak resident memory of
  /// `hearth impact sweep` as seeds, hours and combinations grow (measured
  /// with `/usr/bin/time -f %M`; the figures in CHANGELOG's entry for issue
  /// 29.7), rounded up.
  public enum CostModel {
    /// Memory of a sweep before any trace: the catalogue, the runtime, 48 MB.
    public static let baseBytes = 48e6
    /// Memory per catalogue scenario run kept until judging (its task,
    /// verdicts and signal excerpts), bytes: 11 kB measured (seeds 4 → 8
    /// at no driving: 57.4 → 58.7 MB over 120 runs).
    public static let bytesPerScenarioRun = 16e3
    /// Memory per generated drive (its plan in the task list, its verdicts
    /// and excerpts), bytes.
    public static let bytesPerDrive = 6e3
    /// Memory per combination (its configuration listed twice, its row)
    /// plus, per combination and trace, one report count, bytes.
    public static let bytesPerCombination = 4e3
    public static let bytesPerCombinationTrace = 16.0
    /// Mean drive length of the generated driving (drives are drawn from
    /// 300 to 1 800 s), s.
    public static let meanDriveSeconds = 1_050.0
    /// Simulated samples per second (accelerometer 50, gyroscope 10,
    /// barometer 5, GPS 1 Hz) and the seconds of one scenario run.
    public static let samplesPerSecond = 66.0
    public static let scenarioSeconds = 300.0
  }

  /// The estimated cost of sweeping `grid` over `seeds` seeds per catalogue
  /// scenario, `hours` of generated driving and `recordings` recordings
  /// (their own size not counted: the readers cap what a file may cost).
  /// Any inputs, however large, give a finite or infinite estimate (never a
  /// trap): Doubles throughout. O(settings).
  public static func cost(grid: Grid, seeds: UInt64, hours: Double, recordings: Int = 0) -> Cost {
    let m = CostModel.self
    let runs = Double(ScenarioCatalogue.all.count) * Double(seeds)
    let hours = hours.isNaN ? .infinity : max(0, hours)
    let drives = hours > 0 ? (hours * 3600 / m.meanDriveSeconds).rounded(.up) : 0
    let traces = runs + drives + Double(max(0, recordings))
    let combinations = grid.combinationCount
    let samples = (runs * m.scenarioSeconds + hours * 3600) * m.samplesPerSecond
    let bytes =
      m.baseBytes + runs * m.bytesPerScenarioRun + drives * m.bytesPerDrive
      + combinations * (m.bytesPerCombination + traces * m.bytesPerCombinationTrace)
    return Cost(combinations: combinations, traces: traces, samples: samples, bytes: bytes)
  }

  /// Why the plan is refused (nil: within `budgetBytes`, default
  /// ``memoryBudgetBytes``), naming the estimate and the budget. O(settings).
  public static func budgetProblem(
    grid: Grid, seeds: UInt64, hours: Double, recordings: Int = 0, budgetBytes: Double = memoryBudgetBytes
  ) -> String? {
    let estimate = cost(grid: grid, seeds: seeds, hours: hours, recordings: recordings)
    guard !(estimate.bytes <= budgetBytes) else { return nil }
    return "the sweep is too large: \(estimate), over the budget of "
      + String(format: "%.3g", budgetBytes / 1e9) + " GB (fewer seeds, hours or listed values)"
  }
}
