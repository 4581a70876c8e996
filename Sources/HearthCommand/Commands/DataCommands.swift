import Foundation
import HearthGeo
import HearthTrace

/// `hearth data …`: what recorded files hold.
enum DataCommands {
  static let all: [Command] = [inspect, convert]

  static let inspect = Command(
    path: ["data", "inspect"],
    summary: "say what a recording holds: streams, rates, units, time span, gaps, rows kept and rejected",
    help: """
      usage: hearth data inspect PATH [--mapping FILE]

      Reads PATH through the import door (any format `hearth` reads) and
      prints, per stream: samples, time span, median rate, and the silences
      longer than five median intervals (how many, the longest); then the
      rows read, kept and rejected per file with the rejection reasons and
      the first rejection of each file (file, line, field, why).
      """,
    options: ["mapping"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("data inspect needs one PATH") }
    let path = arguments.positionals[0]
    let (trace, report) = try TraceImport.read(path: path, mappingPath: arguments.options["mapping"])
    let m = trace.metadata
    console.out(
      "\(path): \(m.format), platform \(m.platform.rawValue)\(m.device.map { ", device \($0)" } ?? "")"
        + (m.timeOriginMilliseconds.map { ", time origin \($0) ms since the epoch" } ?? ", no absolute time"))
    let origin = m.timeOriginMilliseconds ?? 0
    func seconds(_ fixes: FixColumns) -> [Double] {
      fixes.timeMilliseconds.map { Double($0 - origin) / 1000 }
    }
    var streams: [(String, String, [Double])] = [("fixes", "degrees, m, m/s", seconds(trace.fixes))]
    for (provider, fixes) in trace.providerFixes.sorted(by: { $0.key < $1.key }) {
      streams.append(("fixes (\(provider))", "degrees, m, m/s", seconds(fixes)))
    }
    if let a = trace.accelerometer {
      streams.append(("accelerometer (\(a.content.rawValue))", "m/s²", a.samples.seconds))
    }
    if let g = trace.gravity { streams.append(("gravity", "m/s²", g.seconds)) }
    if let g = trace.gyroscope { streams.append(("gyroscope", "rad/s", g.seconds)) }
    if let b = trace.barometer { streams.append(("barometer", "hPa", b.seconds)) }
    for (name, stream) in trace.scalars.sorted(by: { $0.key < $1.key }) {
      streams.append((name, stream.unit, stream.seconds))
    }
    for (name, unit, times) in streams where !times.isEmpty {
      console.out("  " + describe(name, unit, times))
    }
    if !trace.activities.isEmpty { console.out("  activity: \(trace.activities.count) changes") }
    for file in report.files {
      var line =
        "  \(file.file): \(file.rowsRead) rows read, \(file.rowsKept) kept, \(file.rowsRejected) rejected"
      if !file.rejectedByReason.isEmpty {
        line +=
          " ("
          + file.rejectedByReason.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value)"
          }
          .joined(separator: ", ") + ")"
      }
      if file.reorderedRows > 0 { line += ", \(file.reorderedRows) out of time order (sorted)" }
      if let why = file.skippedBecause { line += ", skipped: \(why)" }
      console.out(line)
      if let first = file.rejections.first { console.out("    first rejection: \(first)") }
    }
    return 0
  }

  /// "name: n samples over d s (from … to …), r Hz median, k silences over 5 intervals (longest s)".
  static func describe(_ name: String, _ unit: String, _ times: [Double]) -> String {
    let sorted = times.sorted()
    let span = sorted.last! - sorted.first!
    var steps = zip(sorted, sorted.dropFirst()).map { $1 - $0 }
    steps.sort()
    var text = "\(name) [\(unit)]: \(times.count) samples"
    guard !steps.isEmpty else { return text + " at \(format(sorted[0])) s" }
    let median = steps[(steps.count - 1) / 2]  // the lower median
    let silences = steps.filter { $0 > 5 * median }
    text += " over \(format(span)) s (\(format(sorted.first!)) to \(format(sorted.last!)))"
    if median > 0 { text += ", \(format(1 / median)) Hz median" }
    text +=
      silences.isEmpty
      ? ", no silence over 5 intervals"
      : ", \(silences.count) silences over 5 intervals (longest \(format(steps.last!)) s)"
    return text
  }

  private static func format(_ x: Double) -> String { String(format: abs(x) >= 100 ? "%.0f" : "%.3g", x) }

  static let convert = Command(
    path: ["data", "convert"],
    summary: "convert a recording to a trace folder (every stream) or GPX (fixes)",
    help: """
      usage: hearth data convert PATH --to folder|gpx --out DEST [--mapping FILE]

      Reads PATH through the import door and writes it as a trace folder
      (NumPy columns and JSON metadata: every stream, units normalised, what
      every hearth tool reads fastest) or as GPX 1.1 (the fixes only). Rows
      the reader rejected are reported on stderr and not written.
      """,
    options: ["to", "out", "mapping"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("data convert needs one PATH") }
    let target = try arguments.required("to")
    let out = try arguments.required("out")
    guard target == "folder" || target == "gpx" else {
      throw CLIError.usage("--to must be folder or gpx, not '\(target)'")
    }
    let (trace, report) = try TraceImport.read(
      path: arguments.positionals[0], mappingPath: arguments.options["mapping"])
    if report.rowsRejected > 0 {
      console.err(
        "\(report.rowsRejected) of \(report.rowsRead) rows were rejected on import (see hearth data inspect)"
      )
    }
    if target == "gpx" {
      try GPX.write(fixes: trace.fixes, to: out)
    } else {
      try TraceFolder.write(trace, to: out)
    }
    console.out("wrote \(out): \(trace.fixes.count) fixes\(target == "gpx" ? "" : ", every stream")")
    return 0
  }
}
