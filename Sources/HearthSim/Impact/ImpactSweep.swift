import Foundation
import HearthImpact

/// A grid of detector thresholds over the scenario catalogue and hours of
/// generated driving. Every trace runs through the detector once, with the
/// loosest jolt of the grid and no suppression; each combination then judges
/// those verdicts again from their measured values (`ImpactVerdict.outcome(under:)`)
/// and applies the 60 s suppression itself.
public enum ImpactSweep {
  /// The swept values; every combination of them is judged.
  public struct Grid: Sendable, Hashable, Codable {
    public var joltG: [Double] = [4]
    public var spinRadiansPerSecond: [Double] = [3.5]
    public var pressureHectopascals: [Double] = [2]
    public var movingMetersPerSecond: [Double] = [7]
    public var freeFallSeconds: [Double] = [0.12]
    public init() {}

    public var combinations: [ImpactConfiguration] {
      var out: [ImpactConfiguration] = []
      for j in joltG {
        for s in spinRadiansPerSecond {
          for p in pressureHectopascals {
            for m in movingMetersPerSecond {
              for f in freeFallSeconds {
                var c = ImpactConfiguration()
                c.joltMetersPerSecondSquared = j * ImpactConfiguration.standardGravity
                c.spinRadiansPerSecond = s
                c.pressureRiseHectopascals = p
                c.movingMedianMetersPerSecond = m
                c.freeFallSeconds = f
                out.append(c)
              }
            }
          }
        }
      }
      return out
    }
  }

  /// One trace's verdicts from the extraction pass, and what it should say.
  struct Trace: Sendable {
    var verdicts: [ImpactVerdict]
    /// nil for generated driving (every report there is a false alarm).
    var expected: ExpectedVerdict?
    var hours: Double
  }

  public struct Row: Sendable, Hashable, Codable {
    public var joltG: Double
    public var spinRadiansPerSecond: Double
    public var pressureHectopascals: Double
    public var movingMetersPerSecond: Double
    public var freeFallSeconds: Double
    /// Crash scenario runs reported as expected, of all crash scenario runs.
    public var recall: Double
    /// Reports that were expected, of all reports.
    public var precision: Double
    /// Reports in generated driving, per 1 000 h, and the 95 % upper bound.
    public var falseAlarmsPer1000Hours: Double
    public var falseAlarmsUpperBoundPer1000Hours: Double
    /// Silent scenarios that reported.
    public var silentScenariosReported: Int
    /// Median jolt-to-verdict time of the reports, s.
    public var medianLatencySeconds: Double
    /// How many judged jolts each condition turned down.
    public var rejectedBy: [String: Int]
  }

  /// Extraction (in parallel over traces), then every combination.
  public static func run(grid: Grid, seeds: ClosedRange<UInt64>, hours: Double) -> [Row] {
    var extraction = ImpactConfiguration()
    extraction.joltMetersPerSecondSquared = (grid.joltG.min() ?? 4) * ImpactConfiguration.standardGravity
    extraction.suppressionSeconds = 0
    let loose = extraction
    let jobs: [(Scenario, UInt64)] = ScenarioCatalogue.all.flatMap { s in seeds.map { (s, $0) } }
    let box = Box<Trace>(count: jobs.count)
    DispatchQueue.concurrentPerform(iterations: jobs.count) { i in
      let (scenario, seed) = jobs[i]
      let s = scenario.generate(seed: seed)
      box.set(
        i,
        Trace(
          verdicts: ImpactEvaluation.verdicts(s, configuration: loose), expected: s.label.expected, hours: 0))
    }
    let scenarioTraces = box.values
    var mix = DriveMix(seed: 1, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 0))
    var planned: [DriveMix.Drive] = []
    while let d = mix.next() { planned.append(d) }
    let drives = planned
    let driveBox = Box<Trace>(count: drives.count)
    DispatchQueue.concurrentPerform(iterations: drives.count) { i in
      var simulator = drives[i].simulator()
      var detector = ImpactDetector(configuration: loose)
      var verdicts: [ImpactVerdict] = []
      while let batch = simulator.nextBatch() {
        verdicts += detector.process(
          batch.impactBatch(originMilliseconds: drives[i].plan.startEpochMilliseconds))
      }
      verdicts += detector.finish()
      driveBox.set(i, Trace(verdicts: verdicts, expected: nil, hours: drives[i].plan.durationSeconds / 3600))
    }
    let traces = scenarioTraces + driveBox.values
    let combinations = grid.combinations
    let rows = Box<Row>(count: combinations.count)
    DispatchQueue.concurrentPerform(iterations: combinations.count) { i in
      rows.set(i, judge(traces, combinations[i]))
    }
    return rows.values
  }

  /// One combination over every trace.
  static func judge(_ traces: [Trace], _ c: ImpactConfiguration) -> Row {
    var crashRuns = 0
    var crashHits = 0
    var reports = 0
    var expectedReports = 0
    var falseAlarms = 0
    var silentReported = 0
    var hours = 0.0
    var latencies: [Double] = []
    var rejected: [String: Int] = [:]
    for trace in traces {
      hours += trace.hours
      var reported: [ImpactVerdict] = []
      var lastReport = -Double.infinity
      for v in trace.verdicts {
        guard v.joltSeconds - lastReport >= c.suppressionSeconds else { continue }
        if v.outcome(under: c) == .possibleImpact {
          reported.append(v)
          lastReport = v.joltSeconds
        } else if (v.conditions.first?.measured ?? 0) >= c.joltMetersPerSecondSquared {
          for condition in v.conditions where !condition.held || condition.name == .freeFallVeto {
            if condition.name == .freeFallVeto && !(condition.measured >= c.freeFallSeconds) { continue }
            rejected[condition.name.rawValue, default: 0] += 1
          }
        }
      }
      reports += reported.count
      latencies += reported.map { $0.decidedSeconds - $0.joltSeconds }
      switch trace.expected {
      case nil: falseAlarms += reported.count
      case .silent?: if !reported.isEmpty { silentReported += 1 }
      case .report?, .reportOnce?:
        crashRuns += 1
        if reported.count == 1 {
          crashHits += 1
          expectedReports += 1
        }
      }
    }
    let bound = [3.00, 4.74, 6.30, 7.75, 9.15, 10.51]
    let k = Double(falseAlarms)
    let upper = falseAlarms < bound.count ? bound[falseAlarms] : k + 1.645 * k.squareRoot() + 2.5
    latencies.sort()
    return Row(
      joltG: c.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity,
      spinRadiansPerSecond: c.spinRadiansPerSecond,
      pressureHectopascals: c.pressureRiseHectopascals, movingMetersPerSecond: c.movingMedianMetersPerSecond,
      freeFallSeconds: c.freeFallSeconds, recall: Double(crashHits) / Double(max(1, crashRuns)),
      precision: reports == 0 ? 1 : Double(expectedReports) / Double(reports),
      falseAlarmsPer1000Hours: hours > 0 ? 1000 * k / hours : .nan,
      falseAlarmsUpperBoundPer1000Hours: hours > 0 ? 1000 * upper / hours : .nan,
      silentScenariosReported: silentReported,
      medianLatencySeconds: latencies.isEmpty ? .nan : latencies[latencies.count / 2], rejectedBy: rejected)
  }
}

/// Results written from `concurrentPerform`, one slot per index.
final class Box<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [T?]
  init(count: Int) { slots = Array(repeating: nil, count: count) }
  func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
  var values: [T] { lock.withLock { slots.map { $0! } } }
}
