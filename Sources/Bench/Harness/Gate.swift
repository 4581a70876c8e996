import Foundation

/// The regression gate: a baseline run against a current run, metric by
/// metric, each held to a relative threshold from a file in the repository
/// (bench/thresholds.json). Smaller is better for every metric hearth-bench
/// records (times, instructions, latencies, allocations).
enum Gate {
  /// Relative thresholds: `default` for every benchmark, overridden by the
  /// entry of the longest name prefix in `benchmarks`. A limit of 0.05 lets
  /// a metric grow by 5 %.
  struct Thresholds: Codable, Equatable {
    struct Limits: Codable, Equatable {
      /// For a primary value in ns per item (wall time, median of repetitions).
      var time: Double?
      /// For a primary value in instructions per item (callgrind).
      var instructions: Double?
      /// For the workload's own figures, by name (`batchP99Microseconds`).
      var metrics: [String: Double]?
    }
    var `default`: Limits
    var benchmarks: [String: Limits] = [:]

    /// The limit for one metric of one benchmark (nil: reported, not gated).
    func limit(benchmark: String, metric: String) -> Double? {
      let overrides = benchmarks.filter { benchmark.hasPrefix($0.key) }.sorted { $0.key.count > $1.key.count }
      for limits in overrides.map(\.value) + [`default`] {
        let value: Double? =
          switch metric {
          case "time": limits.time
          case "instructions": limits.instructions
          default: limits.metrics?[metric]
          }
        if let value { return value }
      }
      return nil
    }
  }

  struct Row: Equatable {
    enum Status: String {
      case ok, regression, improved, new, missing
      case notGated = "not gated"
      case failed = "check failed"
    }
    var benchmark: String
    /// "time", "instructions" or a workload figure's name.
    var metric: String
    var unit: String
    var baseline: Double?
    var current: Double?
    var limit: Double?
    var status: Status
    /// current / baseline − 1.
    var change: Double? {
      guard let baseline, let current, baseline > 0 else { return nil }
      return current / baseline - 1
    }
  }

  /// "time" for ns per item, "instructions" for callgrind counts.
  static func kind(ofUnit unit: String) -> String {
    unit.hasPrefix("instructions/") ? "instructions" : "time"
  }

  /// Every metric of every benchmark in either run. A benchmark that failed
  /// in the current run is one `.failed` row (metric "check"); one that
  /// failed in the baseline measured nothing, so its current figures are new.
  static func compare(baseline: BenchmarkRun, current: BenchmarkRun, thresholds: Thresholds) -> [Row] {
    func metrics(_ r: BenchmarkResult) -> [(String, String, Double)] {
      [(kind(ofUnit: r.unit), r.unit, r.value)]
        + (r.metrics ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, "", $0.value) }
    }
    func measured(_ run: BenchmarkRun) -> [String: BenchmarkResult] {
      Dictionary(
        run.results.filter { $0.failed != true }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }
    let old = measured(baseline)
    let new = measured(current)
    let failed = Set(current.results.filter { $0.failed == true }.map(\.name))
    var rows: [Row] = []
    for name in Set(old.keys).union(new.keys).union(failed).sorted() {
      if failed.contains(name) {
        rows.append(
          Row(
            benchmark: name, metric: "check", unit: "", baseline: nil, current: nil, limit: nil,
            status: .failed))
        continue
      }
      let a = old[name].map(metrics) ?? []
      let b = new[name].map(metrics) ?? []
      for metric in Set(a.map(\.0) + b.map(\.0)).sorted() {
        let before = a.first { $0.0 == metric }
        let after = b.first { $0.0 == metric }
        let limit = thresholds.limit(benchmark: name, metric: metric)
        var row = Row(
          benchmark: name, metric: metric, unit: after?.1 ?? before?.1 ?? "", baseline: before?.2,
          current: after?.2, limit: limit, status: .ok)
        if before == nil {
          row.status = .new
        } else if after == nil {
          row.status = .missing
        } else if let change = row.change, let limit {
          // 1e-9: a change of exactly the limit (130 / 100 − 1 in binary) passes.
          row.status = change > limit + 1e-9 ? .regression : change < -limit - 1e-9 ? .improved : .ok
        } else if row.change == nil || !(after!.2.isFinite) {
          row.status = limit == nil ? .notGated : .regression
        } else {
          row.status = .notGated
        }
        rows.append(row)
      }
    }
    return rows
  }

  /// A markdown summary for a CI log or a pull-request comment.
  static func markdown(_ rows: [Row], baseline: BenchmarkRun, current: BenchmarkRun) -> String {
    let regressions = rows.filter { $0.status == .regression }.count
    let failed = rows.filter { $0.status == .failed }.count
    let verdict =
      [
        regressions > 0 ? "\(regressions) regression(s)" : nil,
        failed > 0 ? "\(failed) failed check(s)" : nil,
      ]
      .compactMap { $0 }.joined(separator: ", ")
    var lines = [
      "### hearth-bench gate: \(verdict.isEmpty ? "passed" : verdict)",
      "",
      "Baseline \(baseline.commit) (\(baseline.date)) against \(current.commit) (\(current.date)) on \(current.machine.cpu), \(current.build.kind) build. Smaller is better; a metric fails when it grows by more than its limit.",
      "",
      "| benchmark | metric | baseline | current | change | limit | status |",
      "|---|---|---:|---:|---:|---:|---|",
    ]
    func number(_ v: Double?) -> String {
      guard let v else { return "–" }
      return abs(v) >= 1000 ? String(format: "%.0f", v) : String(format: "%.4g", v)
    }
    for row in rows {
      let change = row.change.map { String(format: "%+.1f %%", $0 * 100) } ?? "–"
      let limit = row.limit.map { String(format: "%.1f %%", $0 * 100) } ?? "–"
      let mark =
        row.status == .regression || row.status == .failed
        ? "**\(row.status.rawValue)**" : row.status.rawValue
      let unit = row.unit.isEmpty ? "" : " (\(row.unit))"
      lines.append(
        "| \(row.benchmark) | \(row.metric)\(unit) | \(number(row.baseline)) | \(number(row.current)) | \(change) | \(limit) | \(mark) |"
      )
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The JSON shape CI benchmark actions take ("customSmallerIsBetter" of
  /// github-action-benchmark and the like): an array of {name, unit, value}
  /// with an optional range; one entry per metric of each benchmark that
  /// did not fail.
  struct ActionEntry: Codable, Equatable {
    var name: String
    var unit: String
    var value: Double
    var range: String?
  }

  static func actionEntries(_ run: BenchmarkRun) -> [ActionEntry] {
    run.results.filter { $0.failed != true }.flatMap { r -> [ActionEntry] in
      [
        ActionEntry(
          name: r.name, unit: r.unit, value: r.value,
          range: r.repetitions > 1 ? String(format: "± %.1f%%", r.spread * 50) : nil)
      ]
        + (r.metrics ?? [:]).sorted { $0.key < $1.key }.filter { $0.value.isFinite }.map {
          ActionEntry(name: "\(r.name) \($0.key)", unit: unit(ofMetric: $0.key), value: $0.value, range: nil)
        }
    }
  }

  /// The unit a workload figure's name ends with.
  static func unit(ofMetric name: String) -> String {
    for (suffix, unit) in [("Microseconds", "µs"), ("Nanoseconds", "ns"), ("PerSecond", "1/s")]
    where name.hasSuffix(suffix) {
      return unit
    }
    return "count"
  }
}
