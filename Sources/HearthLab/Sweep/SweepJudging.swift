import HearthImpact
import HearthRuntime

/// How a combination is judged from the single extraction pass: its
/// reports with the 60 s suppression, the row of counts, and the panels.
extension ImpactSweep {
  /// A jolt shown in the report with its signals: every report and every
  /// near miss (one condition group short) under the featured combination.
  public struct Panel: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable { case report, nearMiss }
    public var kind: Kind
    /// The trace, and for generated driving the injected event at the jolt.
    public var source: String
    /// The row (combination) whose thresholds the panel shows.
    public var combination: Int
    /// Whether the trace expects this jolt to be reported.
    public var expectedReport: Bool
    public var joltSeconds: Double
    public var explanation: String
    public var unmet: [String]
    public var signals: SignalExcerpt
  }

  /// The combination closest to the hand-set `d` (relative distance).
  static func nearestToHandSet(_ combinations: [ImpactConfiguration], _ d: ImpactConfiguration) -> Int {
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
  static func reports(_ trace: SweptTrace, _ c: ImpactConfiguration) -> [Int] {
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

  /// One combination over every trace: its row and its reports per trace.
  /// `joltG`: the jolt threshold as the grid listed it (the row shows it).
  static func judge(_ traces: [SweptTrace], _ c: ImpactConfiguration, joltG: Double) -> (
    row: Row, reportsPerTrace: [Int]
  ) {
    var crashRuns = 0
    var truePositives = 0
    var reports = 0
    var falseAlarms = 0
    var silentReported = 0
    var hours = 0.0
    var latencies: [Double] = []
    var rejected: [String: Int] = [:]
    var matched: [String: Int] = [:]
    var perTrace: [Int] = []
    for trace in traces {
      hours += trace.source.hours
      let reported = Self.reports(trace, c)
      perTrace.append(reported.count)
      for (i, v) in trace.verdicts.enumerated()
      where !reported.contains(i) && (v.measured(.jolt) ?? 0) >= c.joltMetersPerSecondSquared {
        for name in v.unmetConditions(under: c) { rejected[name.rawValue, default: 0] += 1 }
      }
      reports += reported.count
      latencies += reported.map { trace.verdicts[$0].decidedSeconds - trace.verdicts[$0].joltSeconds }
      let asExpected: Bool
      switch trace.source.expected {
      case nil:
        falseAlarms += reported.count
        asExpected = reported.isEmpty
      case .silent?:
        asExpected = reported.isEmpty
        if !asExpected { silentReported += 1 }
      case .report?, .reportOnce?:
        crashRuns += 1
        // Exactly one report, and it is the crash's jolt.
        asExpected = reported.count == 1 && trace.isCrash(reported[0])
        if asExpected { truePositives += 1 }
      }
      if let id = trace.source.scenarioID { matched[id, default: 0] += asExpected ? 1 : 0 }
    }
    let upper = ImpactEvaluation.poissonUpperBound95(count: falseAlarms)
    latencies.sort()
    let row = Row(
      joltG: joltG,
      spinRadiansPerSecond: c.spinRadiansPerSecond,
      pressureHectopascals: c.pressureRiseHectopascals, movingMetersPerSecond: c.movingMedianMetersPerSecond,
      freeFallSeconds: c.freeFallSeconds, crashRuns: crashRuns, truePositives: truePositives,
      misses: crashRuns - truePositives, falseAlarms: falseAlarms, reports: reports,
      recall: Double(truePositives) / Double(max(1, crashRuns)),
      precision: reports == 0 ? 1 : Double(truePositives) / Double(reports),
      falseAlarmsPer1000Hours: hours > 0 ? 1000 * Double(falseAlarms) / hours : .nan,
      falseAlarmsUpperBoundPer1000Hours: hours > 0 ? 1000 * upper / hours : .nan,
      silentScenariosReported: silentReported,
      medianLatencySeconds: latencies.isEmpty ? .nan : latencies[latencies.count / 2], rejectedBy: rejected,
      matchedByScenario: matched)
    return (row, perTrace)
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
  static func panels(_ traces: [SweptTrace], _ c: ImpactConfiguration, combination: Int) -> ([Panel], Int) {
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
            kind: kind, source: trace.name(at: v.joltSeconds), combination: combination,
            expectedReport: trace.isCrash(i), joltSeconds: v.joltSeconds,
            explanation: ImpactUnits.describe(v, under: c),
            unmet: unmet.map(\.rawValue), signals: trace.excerpts[i]))
      }
    }
    return (panels, omitted)
  }
}
