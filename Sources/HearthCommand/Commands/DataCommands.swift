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
      usage: hearth data inspect PATH... [--mapping FILE [--timezone ZONE] [--rate HZ]]

      Reads each PATH through the import door (any format `hearth` reads)
      and prints the time origin (UTC, and ms since the epoch), then per
      stream: samples, time span, median rate, and the silences longer than
      five median intervals (how many, the longest); a warning for each
      stream whose time span overlaps no other stream's and for each file
      whose wall clock stepped against its monotonic clock (every stream is
      placed on the monotonic one: SPEC §9); then the rows
      read, kept and rejected per file with the rejection reasons and the
      first rejection of each file (file, line, field, why). Each warning
      is also written to stderr, with the PATH. A PATH that
      cannot be read, or of which nothing was kept (a time column that does
      not parse, for one), is reported and the others still run; exit 3 at
      the end if any failed.
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else { throw CLIError.usage("data inspect needs a PATH") }
    let reading = try ReadingFlags(arguments)
    let failed = try forEachPath(arguments.positionals, console) { path in
      try inspectOne(path, reading, console)
    }
    return failed > 0 ? 3 : 0
  }

  /// One recording, streamed: any size in bounded memory.
  static func inspectOne(_ path: String, _ reading: ReadingFlags, _ console: Console) throws {
    let stream = try reading.stream(path)
    var summary = TraceSummary(metadata: stream.metadata)
    let report = try stream.forEachChunk { summary.add($0) }
    let m = stream.metadata
    console.out(
      "\(path): \(m.format), platform \(m.platform.rawValue)\(m.device.map { ", device \($0)" } ?? "")"
        + (m.timeOriginMilliseconds.map {
          ", time origin \(m.timeOriginUTC ?? "") (\($0) ms since the epoch)"
        }
          ?? ", no absolute time"))
    for stream in summary.streams { console.out("  " + stream.description) }
    let warnings = report.timeWarnings
    for warning in warnings {
      console.out("  warning: \(warning)")
      console.err("\(path): warning: \(warning)")
    }
    if !warnings.isEmpty { console.out("  \(warnings.count) time warning\(warnings.count == 1 ? "" : "s")") }
    if summary.activityCount > 0 { console.out("  activity: \(summary.activityCount) changes") }
    for file in report.files {
      console.out("  " + file.summary)
      if let units = file.units { console.out("    units: \(units)") }
      if let first = file.rejections.first { console.out("    first rejection: \(first)") }
    }
    try report.requireSomethingKept(path: path)
  }

  static let convert = Command(
    path: ["data", "convert"],
    summary: "convert a recording to a trace folder (every stream) or GPX (fixes)",
    help: """
      usage: hearth data convert PATH --to folder|gpx --out DEST
                                 [--mapping FILE [--timezone ZONE] [--rate HZ]]

      Reads PATH through the import door and writes it as a trace folder
      (NumPy columns and JSON metadata: every stream, units normalised, what
      every hearth tool reads fastest) or as GPX 1.1 (the fixes only). Rows
      the reader rejected are reported on stderr and not written; so is
      each stream whose time span overlaps no other stream's, and each file
      whose wall clock stepped against its monotonic clock (its rows are
      written where the monotonic clock puts them). A DEST folder that
      exists must be empty or a trace folder, whose streams are replaced
      (other files stay); a DEST that cannot be written exits 74.
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union(["to", "out"])
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("data convert needs one PATH") }
    let target = try arguments.required("to")
    let out = try arguments.required("out")
    guard target == "folder" || target == "gpx" else {
      throw CLIError.usage("--to must be folder or gpx, not '\(target)'")
    }
    let reading = try ReadingFlags(arguments)
    let (trace, report) = try reading.read(arguments.positionals[0])
    try report.requireSomethingKept(path: arguments.positionals[0])
    for warning in report.timeWarnings { console.err("warning: \(warning)") }
    importNotes(report, path: arguments.positionals[0], console)
    try writingOutput(out) {
      if target == "gpx" {
        try GPX.write(fixes: trace.fixes, to: out)
      } else {
        try TraceFolder.write(trace, to: out)
      }
    }
    console.out("wrote \(out): \(trace.fixes.count) fixes\(target == "gpx" ? "" : ", every stream")")
    return 0
  }
}
