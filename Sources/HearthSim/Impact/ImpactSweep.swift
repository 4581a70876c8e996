import Foundation
import HearthImpact
import HearthLinearAlgebra

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
    /// "C3 seed 6", "drive 12".
    var source: String
    /// The catalogue scenario (nil for generated driving).
    var scenarioID: String?
    var verdicts: [ImpactVerdict]
    var excerpts: [SignalExcerpt]
    /// nil for generated driving (every report there is a false alarm).
    var expected: ExpectedVerdict?
    /// The crash's jolt, s (crash scenarios only).
    var crashJoltSeconds: Double?
    var hours: Double

    /// Whether verdict `i` is the labelled crash jolt: the first verdict
    /// within 1 s of it (a crash's secondary blows have verdicts of their own).
    func isCrash(_ i: Int) -> Bool {
      guard let jolt = crashJoltSeconds else { return false }
      return verdicts.firstIndex { abs($0.joltSeconds - jolt) < 1 } == i
    }

    /// Whether verdict `i` is a later jolt of the labelled crash's incident
    /// (a rollover's next impact): neither the crash nor a jolt without one,
    /// so left out of the model.
    func isLaterCrashJolt(_ i: Int) -> Bool {
      guard let jolt = crashJoltSeconds,
        let crash = verdicts.firstIndex(where: { abs($0.joltSeconds - jolt) < 1 }), i != crash,
        let incident = verdicts[crash].measurement?.incidentSeconds
      else { return false }
      return abs(verdicts[i].joltSeconds - jolt) < 1 || verdicts[i].measurement?.incidentSeconds == incident
    }
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
    /// How many judged jolts (at or above this jolt threshold, not
    /// reported) each condition turned down; a jolt can fail several.
    public var rejectedBy: [String: Int]
    /// Per scenario id: runs that went as expected (silence, or exactly one report).
    public var matchedByScenario: [String: Int]
  }

  /// A jolt shown in the report with its signals: every report and every
  /// near miss (one condition group short) under the featured combination.
  public struct Panel: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable { case report, nearMiss }
    public var kind: Kind
    public var source: String
    /// Whether the trace expects this jolt to be reported.
    public var expectedReport: Bool
    public var joltSeconds: Double
    public var explanation: String
    public var unmet: [String]
    public var signals: SignalExcerpt
  }

  /// A logistic model of "this jolt is a crash" over the per-jolt features,
  /// and the thresholds it suggests beside the hand-set ones.
  public struct ModelSuggestion: Sendable, Hashable, Codable {
    public struct Feature: Sendable, Hashable, Codable {
      public var name: String
      public var unit: String
      /// Coefficient per unit of the feature (not standardised).
      public var coefficient: Double
      /// The hand-set threshold of the featured combination (nil: not a threshold).
      public var handSet: Double?
      /// The value at which the model says 50 % with every other feature at
      /// the crashes' median; nil when that lies outside the values seen.
      public var suggested: Double?
    }
    public var intercept: Double
    public var features: [Feature]
    public var jolts: Int
    public var crashJolts: Int
    public var ridge: Double
    public var iterations: Int
    public var converged: Bool
    /// Jolts the model puts on the right side of 50 %.
    public var trainingAccuracy: Double
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
    public var hours: Double
    public var traces: Int
    public var jolts: Int
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
    public var batch: ImpactBatch
    public var hours: Double
    public init(name: String, batch: ImpactBatch, hours: Double) {
      self.name = name
      self.batch = batch
      self.hours = hours
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
    var extraction = ImpactConfiguration()
    extraction.joltMetersPerSecondSquared = (grid.joltG.min() ?? 4) * ImpactConfiguration.standardGravity
    extraction.suppressionSeconds = 0
    let loose = extraction
    let jobs: [(Scenario, UInt64)] = ScenarioCatalogue.all.flatMap { s in seeds.map { (s, $0) } }
    var mix = DriveMix(seed: 1, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 0))
    var planned: [DriveMix.Drive] = []
    while hours > 0, let d = mix.next() { planned.append(d) }
    let drives = planned
    let combinations = grid.combinations
    let traceCount = jobs.count + drives.count + recordings.count
    let counter = Progress(total: traceCount + combinations.count, report: progress)

    let box = Box<Trace>(count: traceCount)
    DispatchQueue.concurrentPerform(iterations: traceCount) { i in
      if i >= jobs.count + drives.count {
        let recording = recordings[i - jobs.count - drives.count]
        let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(
          [recording.batch], configuration: loose)
        box.set(
          i,
          Trace(
            source: recording.name, scenarioID: nil, verdicts: verdicts, excerpts: excerpts, expected: nil,
            crashJoltSeconds: nil, hours: recording.hours))
      } else if i < jobs.count {
        let (scenario, seed) = jobs[i]
        let s = scenario.generate(seed: seed)
        let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(
          s.batches.lazy.map { $0.impactBatch(originMilliseconds: s.plan.startEpochMilliseconds) },
          configuration: loose)
        let crash = s.label.expected == .silent ? nil : s.label.joltSeconds.first
        box.set(
          i,
          Trace(
            source: "\(scenario.id) seed \(seed)", scenarioID: scenario.id, verdicts: verdicts,
            excerpts: excerpts,
            expected: s.label.expected, crashJoltSeconds: crash, hours: 0))
      } else {
        let drive = drives[i - jobs.count]
        let origin = drive.plan.startEpochMilliseconds
        let batches = sequence(state: drive.simulator()) { simulator in
          simulator.nextBatch()?.impactBatch(originMilliseconds: origin)
        }
        let (verdicts, excerpts) = ImpactEvaluation.verdictsWithSignals(batches, configuration: loose)
        box.set(
          i,
          Trace(
            source: "drive \(drive.index)", scenarioID: nil, verdicts: verdicts, excerpts: excerpts,
            expected: nil,
            crashJoltSeconds: nil, hours: drive.plan.durationSeconds / 3600))
      }
      counter.step()
    }
    let traces = box.values
    let rows = Box<Row>(count: combinations.count)
    DispatchQueue.concurrentPerform(iterations: combinations.count) { i in
      rows.set(i, judge(traces, combinations[i]))
      counter.step()
    }
    let featured = nearestToHandSet(combinations)
    let (panels, omitted) = self.panels(traces, combinations[featured])
    return Result(
      rows: rows.values, featured: featured,
      scenarios: ScenarioCatalogue.all.map {
        ScenarioInfo(id: $0.id, name: $0.name, expected: $0.expected, runs: seeds.count)
      },
      panels: panels, panelsOmitted: omitted, model: model(traces, handSet: combinations[featured]),
      hours: traces.map(\.hours).reduce(0, +), traces: traces.count,
      jolts: traces.map(\.verdicts.count).reduce(0, +))
  }

  /// The combination closest to the detector's defaults (relative distance).
  static func nearestToHandSet(_ combinations: [ImpactConfiguration]) -> Int {
    let d = ImpactConfiguration()
    func distance(_ c: ImpactConfiguration) -> Double {
      let pairs = [
        (c.joltMetersPerSecondSquared, d.joltMetersPerSecondSquared),
        (c.spinRadiansPerSecond, d.spinRadiansPerSecond),
        (c.pressureRiseHectopascals, d.pressureRiseHectopascals),
        (c.movingMedianMetersPerSecond, d.movingMedianMetersPerSecond),
        (c.freeFallSeconds, d.freeFallSeconds),
      ]
      return pairs.map { abs($0 - $1) / max(abs($1), 1e-9) }.reduce(0, +)
    }
    return combinations.indices.min { distance(combinations[$0]) < distance(combinations[$1]) } ?? 0
  }

  /// The reports of one trace under `c`, with the 60 s suppression.
  static func reports(_ trace: Trace, _ c: ImpactConfiguration) -> [Int] {
    var reported: [Int] = []
    var lastReport = -Double.infinity
    for (i, v) in trace.verdicts.enumerated() {
      guard v.joltSeconds - lastReport >= c.suppressionSeconds else { continue }
      if v.outcome(under: c) == .possibleImpact {
        reported.append(i)
        lastReport = v.joltSeconds
      }
    }
    return reported
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
    var matched: [String: Int] = [:]
    for trace in traces {
      hours += trace.hours
      let reported = Self.reports(trace, c)
      for (i, v) in trace.verdicts.enumerated()
      where !reported.contains(i) && (v.measured(.jolt) ?? 0) >= c.joltMetersPerSecondSquared {
        for name in v.unmetConditions(under: c) { rejected[name.rawValue, default: 0] += 1 }
      }
      reports += reported.count
      latencies += reported.map { trace.verdicts[$0].decidedSeconds - trace.verdicts[$0].joltSeconds }
      var asExpected = false
      switch trace.expected {
      case nil: falseAlarms += reported.count
      case .silent?:
        asExpected = reported.isEmpty
        if !asExpected { silentReported += 1 }
      case .report?, .reportOnce?:
        crashRuns += 1
        asExpected = reported.count == 1
        if asExpected {
          crashHits += 1
          expectedReports += 1
        }
      }
      if let id = trace.scenarioID { matched[id, default: 0] += asExpected ? 1 : 0 }
    }
    let upper = ImpactEvaluation.poissonUpperBound95(count: falseAlarms)
    latencies.sort()
    return Row(
      joltG: c.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity,
      spinRadiansPerSecond: c.spinRadiansPerSecond,
      pressureHectopascals: c.pressureRiseHectopascals, movingMetersPerSecond: c.movingMedianMetersPerSecond,
      freeFallSeconds: c.freeFallSeconds, recall: Double(crashHits) / Double(max(1, crashRuns)),
      precision: reports == 0 ? 1 : Double(expectedReports) / Double(reports),
      falseAlarmsPer1000Hours: hours > 0 ? 1000 * Double(falseAlarms) / hours : .nan,
      falseAlarmsUpperBoundPer1000Hours: hours > 0 ? 1000 * upper / hours : .nan,
      silentScenariosReported: silentReported,
      medianLatencySeconds: latencies.isEmpty ? .nan : latencies[latencies.count / 2], rejectedBy: rejected,
      matchedByScenario: matched)
  }

  /// Condition groups (SPEC §9's points): a near miss fails exactly one.
  static func group(_ name: ImpactCondition.Name) -> Int {
    switch name {
    case .jolt: 0
    case .movingBeforeGPS, .movingAtJoltGPS, .movingBeforeVibration, .movingAtJoltVibration, .restWithin,
      .stayedStoppedGPS, .stoppedVibrationRatio:
      1
    case .spin, .pressureRise, .freeFallVeto: 2
    }
  }

  /// Reports and near misses under `c`, in trace order, at most `panelLimit`.
  static func panels(_ traces: [Trace], _ c: ImpactConfiguration) -> ([Panel], Int) {
    var panels: [Panel] = []
    var omitted = 0
    for trace in traces {
      let reported = Set(reports(trace, c))
      for (i, v) in trace.verdicts.enumerated() where (v.measured(.jolt) ?? 0) >= c.joltMetersPerSecondSquared
      {
        let unmet = v.unmetConditions(under: c)
        let kind: Panel.Kind
        if reported.contains(i) {
          kind = .report
        } else if !unmet.isEmpty && Set(unmet.map(group)).count == 1 {
          kind = .nearMiss
        } else {
          continue
        }
        guard panels.count < panelLimit else {
          omitted += 1
          continue
        }
        panels.append(
          Panel(
            kind: kind, source: trace.source, expectedReport: trace.isCrash(i), joltSeconds: v.joltSeconds,
            explanation: v.explanation, unmet: unmet.map(\.rawValue), signals: trace.excerpts[i]))
      }
    }
    return (panels, omitted)
  }
}

extension ImpactSweep {
  /// The per-jolt features the model sees, in order, with their units and
  /// the hand-set threshold each one is compared with (nil: none).
  static func featureNames(_ c: ImpactConfiguration) -> [(String, String, Double?)] {
    [
      ("jolt", "g", c.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity),
      ("spin", "rad/s", c.spinRadiansPerSecond),
      ("pressureRise", "hPa", c.pressureRiseHectopascals),
      ("movingBeforeGPS", "m/s", c.movingMedianMetersPerSecond),
      ("freeFall", "s", c.freeFallSeconds),
      ("stoppedAfter", "0/1", nil),
    ]
  }

  /// One jolt's features (NaN where not measured; see `model`).
  static func features(_ v: ImpactVerdict) -> [Double] {
    let stopped = v.measurement?.stopped ?? false
    return [
      (v.measured(.jolt) ?? .nan) / ImpactConfiguration.standardGravity, v.measured(.spin) ?? .nan,
      v.measured(.pressureRise) ?? .nan, v.usedGPS ? (v.measured(.movingBeforeGPS) ?? .nan) : .nan,
      v.measured(.freeFallVeto) ?? .nan, stopped ? 1 : 0,
    ]
  }

  /// Logistic regression of "this jolt is the labelled crash" on the
  /// per-jolt features of every trace (IRLS through LAPACKE's dgels, ridge
  /// λ = 1 on standardised features). A missing value (no barometer, no
  /// GPS speed, no free fall) takes the median of the jolts that have one.
  /// nil when there are no crash jolts or no others.
  static func model(_ traces: [Trace], handSet: ImpactConfiguration) -> ModelSuggestion? {
    var rows: [[Double]] = []
    var labels: [Double] = []
    for trace in traces {
      for (i, v) in trace.verdicts.enumerated() where v.outcome != .suppressed && !trace.isLaterCrashJolt(i) {
        rows.append(features(v))
        labels.append(trace.isCrash(i) ? 1 : 0)
      }
    }
    let positives = labels.count { $0 == 1 }
    guard positives > 0, positives < labels.count else { return nil }
    let names = featureNames(handSet)
    let p = names.count
    func median(_ values: [Double]) -> Double {
      let v = values.filter { !$0.isNaN }.sorted()
      return v.isEmpty ? 0 : v[v.count / 2]
    }
    let fill = (0..<p).map { j in median(rows.map { $0[j] }) }
    for r in rows.indices { for j in 0..<p where rows[r][j].isNaN { rows[r][j] = fill[j] } }
    let mean = (0..<p).map { j in rows.map { $0[j] }.reduce(0, +) / Double(rows.count) }
    var sd = [Double](repeating: 0, count: p)
    for j in 0..<p {
      var sum = 0.0
      for r in rows { sum += (r[j] - mean[j]) * (r[j] - mean[j]) }
      sd[j] = max(1e-9, (sum / Double(rows.count)).squareRoot())
    }
    let standard = Matrix(
      rowCount: rows.count, columnCount: p,
      elements: rows.flatMap { r in (0..<p).map { (r[$0] - mean[$0]) / sd[$0] } })
    let ridge = 1.0
    guard case .success(let fit) = LinearAlgebra.logisticRegression(standard, labels, ridge: ridge) else {
      return nil
    }
    // Back to the features' own units: β_j / sd_j, intercept β0 − Σ β_j mean_j / sd_j.
    let coefficients = (0..<p).map { fit.coefficients[$0 + 1] / sd[$0] }
    let intercept = fit.coefficients[0] - (0..<p).map { coefficients[$0] * mean[$0] }.reduce(0, +)
    let crashMedian = (0..<p).map { j in median(zip(rows, labels).filter { $0.1 == 1 }.map { $0.0[j] }) }
    var features: [ModelSuggestion.Feature] = []
    for j in 0..<p {
      var others = intercept
      for k in 0..<p where k != j { others += coefficients[k] * crashMedian[k] }
      let values = rows.map { $0[j] }
      var suggested: Double?
      if coefficients[j] != 0, names[j].2 != nil {
        let v = -others / coefficients[j]
        if v >= values.min()!, v <= values.max()! { suggested = v }
      }
      features.append(
        .init(
          name: names[j].0, unit: names[j].1, coefficient: coefficients[j], handSet: names[j].2,
          suggested: suggested))
    }
    var right = 0
    for (r, y) in zip(rows, labels) {
      var eta = intercept
      for j in 0..<p { eta += coefficients[j] * r[j] }
      if (eta >= 0) == (y == 1) { right += 1 }
    }
    return ModelSuggestion(
      intercept: intercept, features: features, jolts: rows.count, crashJolts: positives, ridge: ridge,
      iterations: fit.iterations, converged: fit.converged,
      trainingAccuracy: Double(right) / Double(rows.count))
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

/// Counts finished jobs and reports them (thread-safe).
final class Progress: @unchecked Sendable {
  private let lock = NSLock()
  private var done = 0
  private let total: Int
  private let report: (@Sendable (Int, Int) -> Void)?
  init(total: Int, report: (@Sendable (Int, Int) -> Void)?) {
    self.total = total
    self.report = report
  }
  func step() {
    guard let report else { return }
    let now = lock.withLock {
      done += 1
      return done
    }
    report(now, total)
  }
}
