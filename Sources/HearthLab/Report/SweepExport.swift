import Foundation
import HearthTrace

/// The sweep's results as files a person or a notebook reads: one CSV row
/// per combination, the whole result as JSON, and the HTML report.
public enum SweepExport {
  /// The combination table as CSV lines, header first: the thresholds
  /// (units in the column names), recall, precision, false alarms per
  /// 1 000 h and their 95 % bound, silent scenarios that reported, the median
  /// jolt-to-verdict time, and per condition the jolts it turned down.
  /// Numbers to four significant digits. O(combinations × conditions).
  public static func csvLines(_ result: ImpactSweep.Result) -> [String] {
    let conditions = Set(result.rows.flatMap(\.rejectedBy.keys)).sorted()
    let header =
      [
        "jolt_g", "spin_rad_s", "pressure_hpa", "moving_m_s", "free_fall_s", "recall", "precision",
        "false_alarms_per_1000h", "false_alarms_upper_per_1000h", "silent_scenarios_reported",
        "median_latency_s",
      ] + conditions.map { "rejected_by_" + $0 }
    var lines = [header.joined(separator: ",")]
    for r in result.rows {
      let values: [Double] = [
        r.joltG, r.spinRadiansPerSecond, r.pressureHectopascals, r.movingMetersPerSecond, r.freeFallSeconds,
        r.recall, r.precision, r.falseAlarmsPer1000Hours, r.falseAlarmsUpperBoundPer1000Hours,
        Double(r.silentScenariosReported), r.medianLatencySeconds,
      ]
      lines.append(
        (values.map { String(format: "%.4g", $0) } + conditions.map { String(r.rejectedBy[$0] ?? 0) })
          .joined(separator: ","))
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

  /// Writes `folder/sweep.csv`, `folder/sweep.json` and `folder/report.html`
  /// (creating the folder). Byte-identical for the same result.
  /// - Throws: `TraceError.io` naming the file that cannot be written.
  public static func write(_ result: ImpactSweep.Result, to folder: String) throws {
    func write(_ data: Data, _ name: String) throws {
      let path = (folder as NSString).appendingPathComponent(name)
      do { try data.write(to: URL(fileURLWithPath: path)) } catch {
        throw TraceError.io(path: path, reason: "cannot write: \(error.localizedDescription)")
      }
    }
    do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
      throw TraceError.io(path: folder, reason: "cannot create the folder: \(error.localizedDescription)")
    }
    try write(Data((csvLines(result).joined(separator: "\n") + "\n").utf8), "sweep.csv")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let json: Data
    do { json = try encoder.encode(result) } catch {
      throw TraceError.io(path: folder, reason: "cannot encode the result: \(error)")
    }
    try write(json, "sweep.json")
    let title = "hearth impact sweep: \(result.rows.count) combinations"
    try write(Data(SweepReport.html(result, title: title).utf8), "report.html")
  }
}
