import Foundation

/// Everything one run of hearth-bench measured, as written to the JSON file.
struct BenchmarkRun: Codable, Equatable {
  /// Identifies the file layout.
  var schema = "hearth-bench/1"
  /// ISO 8601, UTC.
  var date: String
  /// `git rev-parse --short HEAD`, with "+dirty" when the tree has changes.
  var commit: String
  var machine: MachineInfo
  var build: BuildInfo
  var results: [BenchmarkResult]
}

struct MachineInfo: Codable, Equatable {
  var cpu: String
  var cores: Int
  var memoryGiB: Int
  var os: String

  static func current() -> MachineInfo {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    let info = ProcessInfo.processInfo
    return MachineInfo(
      cpu: model, cores: info.activeProcessorCount,
      memoryGiB: Int((Double(info.physicalMemory) / 1_073_741_824).rounded()),
      os: info.operatingSystemVersionString)
  }
}

struct BuildInfo: Codable, Equatable {
  /// "native" (AVX2 or better, targets use the native column) or "portable".
  var kind: String
  /// A free-form label passed by the caller (the build command).
  var label: String
  /// Instruction-set extensions the build was compiled for.
  var cpuFeatures: [String]
  /// How the C reference was compiled, or why there is none.
  var cReference: String
  var cCompiler: String
}

enum Report {
  /// The results table for one run.
  static func table(_ run: BenchmarkRun) -> String {
    var lines: [String] = []
    lines.append("hearth-bench \(run.commit) \(run.date)")
    lines.append("machine: \(run.machine.cpu), \(run.machine.cores) cores, \(run.machine.memoryGiB) GiB")
    lines.append(
      "build: \(run.build.kind) [\(run.build.cpuFeatures.joined(separator: " "))] \(run.build.label)")
    lines.append("C reference: \(run.build.cReference)")
    lines.append("")
    let header = ["benchmark", "items", "Swift", "MB/s", "reference", "Swift/ref", "target", "spread"]
    let rows = run.results.flatMap { result -> [[String]] in
      if result.failed == true {
        return [[result.name, "\(result.itemCount)", "FAILED", "-", "-", "-", "-", "-"]]
      }
      let row: [String] = [
        result.name, "\(result.itemCount)", "\(number(result.value)) \(result.unit)",
        result.megabytesPerSecond.map { String(format: "%.0f", $0) } ?? "-",
        result.referenceValue.map { "\(result.referenceName ?? "C") \(number($0))" } ?? "-",
        result.ratio.map(ratio) ?? "-",
        targetCell(result),
        String(format: "%.0f%%", result.spread * 100),
      ]
      return [row] + peerRows(result).map { [$0.label, "", "", "", $0.time, $0.ratio, "-", ""] }
    }
    lines.append(contentsOf: align([header] + rows))
    lines += figures(run.results)
    lines += failures(run.results, heading: "failed (nothing timed):")
    return lines.joined(separator: "\n")
  }

  /// The benchmarks that failed, each with why, under `heading`; nothing
  /// when none failed.
  static func failures(_ results: [BenchmarkResult], heading: String) -> [String] {
    let failed = results.filter { $0.failed == true }
    guard !failed.isEmpty else { return [] }
    return ["", heading] + failed.map { "  \($0.name): \($0.check)" }
  }

  /// The workloads' own figures under the table: throughput for per-fix
  /// results, and every recorded metric (latency percentiles, allocations).
  static func figures(_ results: [BenchmarkResult]) -> [String] {
    let withFigures = results.filter { $0.metrics?.isEmpty == false }
    guard !withFigures.isEmpty else { return [] }
    var lines = ["", "workload figures:"]
    for r in withFigures {
      var parts: [String] = []
      if r.unit.hasPrefix("ns/") {
        parts.append(String(format: "%.2f M ", 1e3 / r.value) + r.unit.dropFirst(3) + "/s")
      }
      parts += (r.metrics ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \(number($0.value))" }
      lines.append("  \(r.name): " + parts.joined(separator: ", "))
    }
    return lines
  }

  /// A side-by-side table of a native and a portable run of the same commit.
  static func comparison(native: BenchmarkRun, portable: BenchmarkRun) -> String {
    var lines: [String] = []
    lines.append("hearth-bench \(native.commit) \(native.date)")
    lines.append("machine: \(native.machine.cpu), \(native.machine.cores) cores")
    lines.append("native build: [\(native.build.cpuFeatures.joined(separator: " "))] \(native.build.label)")
    lines.append(
      "portable build: [\(portable.build.cpuFeatures.joined(separator: " "))] \(portable.build.label)")
    lines.append("C reference (Geo rows): \(native.build.cReference)")
    lines.append(
      "Python references (pandas, pyarrow, numpy, haversine, h3, scikit-learn, movingpandas, trackintel): Scripts/peers/, pinned in Scripts/peers/requirements.txt"
    )
    lines.append("")
    let header = [
      "benchmark", "unit", "reference", "native", "MB/s", "native/ref", "target", "portable", "portable/ref",
      "target",
    ]
    let portableByName = Dictionary(portable.results.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    let rows = native.results.flatMap { result -> [[String]] in
      let other = portableByName[result.name]
      let nativeFailed = result.failed == true
      let portableFailed = other?.failed == true
      let otherPeers = other.map(peerRows) ?? []
      let peers = nativeFailed ? [] : peerRows(result)
      let row: [String] = [
        result.name, result.unit,
        result.referenceValue.map { "\(result.referenceName ?? "C") \(number($0))" } ?? "-",
        nativeFailed ? "FAILED" : number(result.value),
        result.megabytesPerSecond.map { String(format: "%.0f", $0) } ?? "-",
        result.ratio.map(ratio) ?? "-",
        nativeFailed ? "-" : targetCell(result),
        portableFailed ? "FAILED" : other.map { number($0.value) } ?? "-",
        other?.ratio.map(ratio) ?? "-",
        portableFailed ? "-" : other.map { targetCell($0) } ?? "-",
      ]
      let peerLines = peers.map { peer -> [String] in
        let portableRatio = portableFailed ? nil : otherPeers.first { $0.label == peer.label }?.ratio
        return [peer.label, "", peer.time, "", "", peer.ratio, "-", "", portableRatio ?? "-", "-"]
      }
      return [row] + peerLines
    }
    lines.append(contentsOf: align([header] + rows))
    lines += figures(native.results).map {
      $0.replacingOccurrences(of: "workload figures:", with: "workload figures (native):")
    }
    lines += failures(native.results, heading: "failed in the native build (nothing timed):")
    lines += failures(portable.results, heading: "failed in the portable build (nothing timed):")
    return lines.joined(separator: "\n")
  }

  static func encode(_ run: BenchmarkRun) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(run)
  }

  static func decode(_ data: Data) throws -> BenchmarkRun {
    try JSONDecoder().decode(BenchmarkRun.self, from: data)
  }

  /// One line per further peer of `result`, shown under its row: the
  /// label ("  vs pyarrow"), the peer's time per item and Swift/peer.
  private static func peerRows(_ result: BenchmarkResult) -> [(label: String, time: String, ratio: String)] {
    (result.peers ?? []).map { ("  vs \($0.name)", "\($0.name) \(number($0.value))", ratio($0.ratio)) }
  }

  private static func targetCell(_ result: BenchmarkResult) -> String {
    var parts: [String] = []
    if let target = result.targetRatio { parts.append("≤\(ratio(target))") }
    if let ceiling = result.targetValue { parts.append("≤\(number(ceiling)) ns") }
    guard !parts.isEmpty else { return "-" }
    return parts.joined(separator: ", ") + (result.meetsTarget == true ? " ok" : " MISSED")
  }

  /// Two decimals, or two significant digits for ratios under 0.1 (the
  /// generators run thousands of times faster than real time).
  private static func ratio(_ value: Double) -> String {
    value >= 0.1 || value == 0 ? String(format: "%.2f", value) : String(format: "%.2g", value)
  }

  private static func number(_ value: Double) -> String {
    value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
  }

  /// Pads columns: the first left-aligned, the rest right-aligned.
  static func align(_ rows: [[String]]) -> [String] {
    guard let columns = rows.first?.count else { return [] }
    let widths = (0..<columns).map { c in rows.map { $0[c].count }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { c, cell in
        let padding = String(repeating: " ", count: widths[c] - cell.count)
        return c == 0 ? cell + padding : padding + cell
      }.joined(separator: "  ")
    }
  }
}
