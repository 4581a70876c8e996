import Foundation
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace

/// The sweep's results as files a person or a notebook reads. Every CSV has
/// a header, one row per record, units in the column names, and empty cells
/// where nothing was measured; every JSON has `null` there.
///
/// | file | one row per |
/// |---|---|
/// | `sweep.csv` | combination: thresholds, counts, rates, rejections |
/// | `outcomes.csv` | combination × trace (scenario × seed, drive, recording): reports, as expected |
/// | `jolts.csv` | judged jolt: every condition's measured value, the label |
/// | `configurations.json` | combination: the detector configuration it stands for |
/// | `picked-configuration.json` | the one to pass to `impact detect --config` |
/// | `sweep.json` | the whole result; `report.html` the page |
public enum SweepExport {
  /// A number as a CSV cell: shortest round-trip, empty when not finite.
  static func cell(_ v: Double?) -> String {
    guard let v, v.isFinite else { return "" }
    return "\(v)"
  }

  static let thresholdColumns = ["jolt_g", "spin_rad_s", "pressure_hpa", "moving_m_s", "free_fall_s"]

  static func thresholds(_ r: ImpactSweep.Row) -> [String] {
    [r.joltG, r.spinRadiansPerSecond, r.pressureHectopascals, r.movingMetersPerSecond, r.freeFallSeconds].map {
      cell($0)
    }
  }

  /// The combination table: index, thresholds, crash runs, true positives,
  /// misses, false alarms, reports, recall, precision, false alarms per
  /// 1 000 h and their 95 % bound, silent scenarios that reported, the median
  /// jolt-to-verdict time, and per condition the jolts it turned down.
  /// O(combinations × conditions).
  public static func csvLines(_ result: ImpactSweep.Result) -> [String] {
    let conditions = Set(result.rows.flatMap(\.rejectedBy.keys)).sorted()
    let header =
      ["combination"] + thresholdColumns + [
        "crash_runs", "true_positives", "misses", "false_alarms", "reports", "recall", "precision",
        "false_alarms_per_1000h", "false_alarms_upper_per_1000h", "silent_scenarios_reported",
        "median_latency_s",
      ] + conditions.map { "rejected_by_" + $0 }
    var lines = [header.joined(separator: ",")]
    for (i, r) in result.rows.enumerated() {
      let counts = [r.crashRuns, r.truePositives, r.misses, r.falseAlarms, r.reports].map(String.init)
      let rates = [
        r.recall, r.precision, r.falseAlarmsPer1000Hours, r.falseAlarmsUpperBoundPer1000Hours,
      ].map(cell)
      lines.append(
        ([String(i)] + thresholds(r) + counts + rates + [String(r.silentScenariosReported), cell(r.medianLatencySeconds)]
          + conditions.map { String(r.rejectedBy[$0] ?? 0) }).joined(separator: ","))
    }
    return lines
  }

  /// One row per combination × trace: the combination's thresholds, the
  /// trace (name, kind, scenario, seed, expected verdict, hours of driving),
  /// how many reports it got and whether that is what it should get.
  /// O(combinations × traces).
  public static func outcomeLines(_ result: ImpactSweep.Result) -> [String] {
    var lines = [
      (["combination"] + thresholdColumns + [
        "source", "kind", "scenario", "seed", "expected", "hours", "reports", "as_expected",
      ]).joined(separator: ",")
    ]
    for (c, row) in result.rows.enumerated() {
      let prefix = ([String(c)] + thresholds(row)).joined(separator: ",")
      for (t, source) in result.sources.enumerated() {
        let reports = result.reportCounts[c][t]
        let expected = source.expected?.rawValue ?? "silent"
        let asExpected = source.expected == .report || source.expected == .reportOnce ? reports == 1 : reports == 0
        lines.append(
          prefix + ","
            + [
              CSVField.quoted(source.name), source.kind.rawValue, source.scenarioID ?? "",
              source.seed.map(String.init) ?? "",
              expected, cell(source.hours), String(reports), asExpected ? "true" : "false",
            ].joined(separator: ","))
      }
    }
    return lines
  }

  /// The conditions in the order the jolt table prints them.
  static let conditionOrder: [ImpactCondition.Name] = [
    .jolt, .movingBeforeGPS, .movingAtJoltGPS, .movingBeforeVibration, .movingAtJoltVibration, .restWithin,
    .stayedStoppedGPS, .stoppedVibrationRatio, .spin, .pressureRise, .freeFallVeto,
  ]

  /// One row per judged jolt: the trace, the jolt's and the verdict's
  /// times, which path judged moving and stopped, the jolt in g, every
  /// condition's measured value (unit in the column name), whether the stop
  /// held, and the label `is_crash` (0/1) — ready for
  /// `sklearn.metrics.roc_curve(table.is_crash, table.jolt_g)`. O(jolts).
  public static func joltLines(_ result: ImpactSweep.Result) -> [String] {
    var lines = [
      ([
        "source", "kind", "scenario", "seed", "jolt_time_s", "decided_time_s", "moving_from", "jolt_g",
      ] + conditionOrder.map(ImpactUnits.column) + ["stopped_after", "is_crash"]).joined(separator: ",")
    ]
    for j in result.joltTable {
      let s = result.sources[j.source]
      lines.append(
        ([
          CSVField.quoted(s.name), s.kind.rawValue, s.scenarioID ?? "", s.seed.map(String.init) ?? "",
          cell(j.joltSeconds),
          cell(j.decidedSeconds), j.usedGPS ? "gps" : "vibration", cell(j.joltG),
        ] + conditionOrder.map { cell(j.measured[$0.rawValue]) } + [
          j.stoppedAfter ? "1" : "0", j.isCrash ? "1" : "0",
        ]).joined(separator: ","))
    }
    return lines
  }

  /// One line: the model's suggested thresholds beside the hand-set ones.
  public static func modelSummary(_ model: ImpactSweep.ModelSuggestion) -> String {
    "logistic model (\(model.jolts) jolts, \(model.crashJolts) crashes): "
      + model.features.compactMap { f in
        f.handSet.map {
          let suggested = f.suggested.map { (f.coefficient > 0 ? "≥ " : "≤ ") + String(format: "%.3g", $0) }
          return "\(f.name) hand-set \(String(format: "%.3g", $0)) suggested \(suggested ?? "–") \(f.unit)"
        }
      }.joined(separator: "; ")
  }

  /// A combination and the configuration it stands for.
  public struct Combination: Sendable, Hashable, Codable {
    public var combination: Int
    public var configuration: ImpactConfiguration
  }

  /// Every file of the table above, named, in the order ``write(_:configurations:picked:to:)``
  /// writes them; `picked` is the combination of `picked-configuration.json`
  /// (the featured one when nil). Byte-identical for the same result.
  /// - Throws: `TraceError.malformed` when `picked` is not a combination;
  ///   `TraceError.io` when a value cannot be encoded (never for a real result).
  public static func files(
    _ result: ImpactSweep.Result, configurations: [ImpactConfiguration], picked: Int? = nil
  ) throws -> [(name: String, contents: Data)] {
    let chosen = picked ?? result.featured
    guard configurations.indices.contains(chosen) else {
      throw TraceError.malformed(
        SourceLocation(file: "--pick", line: 0),
        reason: "no combination \(chosen): the sweep judged \(configurations.count) (0…\(configurations.count - 1))")
    }
    func lines(_ l: [String]) -> Data { Data((l.joined(separator: "\n") + "\n").utf8) }
    let title = "hearth impact sweep: \(result.rows.count) combinations"
    return [
      ("sweep.csv", lines(csvLines(result))),
      ("outcomes.csv", lines(outcomeLines(result))),
      ("jolts.csv", lines(joltLines(result))),
      (
        "configurations.json",
        try JSONOutput.encode(
          configurations.enumerated().map { Combination(combination: $0, configuration: $1) }, pretty: true)
      ),
      ("picked-configuration.json", try ImpactConfigurationFile.encode(configurations[chosen])),
      ("sweep.json", try JSONOutput.encode(result, pretty: true)),
      ("report.html", Data(SweepReport.html(result, title: title).utf8)),
    ]
  }

  /// Writes every file of ``files(_:configurations:picked:)`` into `folder`
  /// (creating it).
  /// - Throws: `TraceError.io` naming the file that cannot be written;
  ///   `TraceError.malformed` when `picked` is not a combination.
  public static func write(
    _ result: ImpactSweep.Result, configurations: [ImpactConfiguration], picked: Int? = nil, to folder: String
  ) throws {
    let files = try files(result, configurations: configurations, picked: picked)
    do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
      throw TraceError.io(path: folder, reason: "cannot create the folder: \(error.localizedDescription)")
    }
    for (name, contents) in files {
      let path = (folder as NSString).appendingPathComponent(name)
      do { try contents.write(to: URL(fileURLWithPath: path)) } catch {
        throw TraceError.io(path: path, reason: "cannot write: \(error.localizedDescription)")
      }
    }
  }
}
