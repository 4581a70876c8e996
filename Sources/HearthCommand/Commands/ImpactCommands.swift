import Foundation
import HearthImpact
import HearthLab
import HearthSim
import HearthTrace

/// `hearth impact …`: the possible-impact detector on recorded traces.
enum ImpactCommands {
  static let all: [Command] = [detect, sweep]

  static let detect = Command(
    path: ["impact", "detect"],
    summary: "run the possible-impact detector over recorded traces and explain every verdict",
    help: """
      usage: hearth impact detect PATH... [--format text|jsonl|csv] [--mapping FILE]
                                  [--vehicle-gate recording|on|off]

      Reads each trace (Sensor Logger or phyphox folder, trace folder,
      comma2k19 segment, or CSV with a column mapping), replays it through
      ImpactDetector in 250 ms batches as the phone would, and prints every
      verdict with each condition's measured value and threshold. The vehicle
      gate follows the recording's activity stream (on while it says
      automotive, off once it says walking, running or cycling; on when the
      recording has none); --vehicle-gate on|off overrides. Which rule set
      the gate is printed on stderr. Formats:
        text   one line per verdict (default)
        jsonl  one JSON object per verdict: {"file", "verdict"}
        csv    one row per condition: file,jolt_s,outcome,condition,held,measured,threshold
      A trace with no accelerometer that includes gravity (or gravity to add
      back) is bad input. Exit status: 0 nothing reported, 1 a possible impact
      was reported, 2 usage, 3 bad input.
      """,
    options: ["format", "mapping", "vehicle-gate"]
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else {
      throw CLIError.usage("impact detect needs at least one PATH")
    }
    let format = arguments.options["format"] ?? "text"
    guard ["text", "jsonl", "csv"].contains(format) else {
      throw CLIError.usage("--format must be text, jsonl or csv, not '\(format)'")
    }
    let gate = try gatePolicy(arguments)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    if format == "csv" { console.out("file,jolt_s,outcome,condition,held,measured,threshold") }
    var reported = false
    for path in arguments.positionals {
      let feed = try impactFeed(path, arguments, gate: gate)
      console.err("\(path): vehicle gate \(feed.gate.source)")
      let verdicts = feed.verdicts()
      reported = reported || verdicts.contains { $0.outcome == .possibleImpact }
      switch format {
      case "jsonl":
        for v in verdicts {
          let data = try encoder.encode(Line(file: path, verdict: v))
          console.out(String(decoding: data, as: UTF8.self))
        }
      case "csv":
        for v in verdicts {
          for c in v.conditions {
            console.out(
              "\(csvField(path)),\(v.joltSeconds),\(v.outcome.rawValue),\(c.name.rawValue),\(c.held),\(c.measured),\(c.threshold)"
            )
          }
        }
      default:
        if verdicts.isEmpty { console.out("\(path): no jolt of 4 g or more") }
        for v in verdicts { console.out("\(path): \(v.explanation)") }
      }
    }
    return reported ? 1 : 0
  }

  /// `--vehicle-gate`: recording (the default), on or off.
  static func gatePolicy(_ arguments: Arguments) throws(CLIError) -> VehicleGatePolicy {
    let text = arguments.options["vehicle-gate"] ?? VehicleGatePolicy.recording.rawValue
    guard let policy = VehicleGatePolicy(rawValue: text) else {
      throw CLIError.usage("--vehicle-gate must be recording, on or off, not '\(text)'")
    }
    return policy
  }

  /// The recording at `path` as the detector's feed; bad input (exit 3) when
  /// it has no accelerometer with gravity nor a gravity stream to add back.
  static func impactFeed(_ path: String, _ arguments: Arguments, gate: VehicleGatePolicy) throws -> ImpactFeed {
    let trace = try TraceImport.read(path: path, mappingPath: arguments.options["mapping"]).0
    guard let feed = ImpactFeed(trace: trace, gate: gate) else {
      throw CLIError.badInput("\(path): no accelerometer with gravity (nor a gravity stream to add back)")
    }
    return feed
  }

  private struct Line: Encodable {
    var file: String
    var verdict: ImpactVerdict
  }

  /// A CSV field, quoted when it holds a comma, quote or line break.
  private static func csvField(_ s: String) -> String {
    s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
      ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
  }

  static let sweep = Command(
    path: ["impact", "sweep"],
    summary: "judge a grid of detector thresholds over the scenario catalogue and generated driving",
    help: """
      usage: hearth impact sweep [PATH...] [--jolt-g LIST] [--spin LIST] [--pressure LIST]
                                 [--moving LIST] [--free-fall LIST] [--seeds N] [--hours H]
                                 [--mapping FILE] [--vehicle-gate recording|on|off] [--out DIR]

      LIST is comma-separated values (g, rad/s, hPa, m/s, s); every
      combination is judged. Each scenario (seeds 1…N, default 5) and each
      drive of H hours (default 100) of generated driving runs through the
      detector once, in parallel on all cores; the combinations are then
      judged from the measured values. Recorded traces given as PATHs
      (any format `hearth` reads) are swept too, as driving with no known
      crash: every report on them counts as a false alarm over their
      hours with data (pauses left out); their vehicle gate is set as for
      `impact detect`. --hours 0 leaves generated driving out. Prints one CSV row per combination:
      recall, precision, false alarms per 1 000 h and their 95 % upper bound,
      silent scenarios that reported, median jolt-to-verdict time, and how
      many jolts each condition turned down. --out DIR also writes there
      sweep.csv, sweep.json (rows, per-scenario counts, the signals shown,
      the model) and report.html: a self-contained page with recall against
      false alarms per combination, the per-scenario verdicts, the signals
      around every report and near miss of the combination nearest the
      defaults, and the thresholds a logistic model over the per-jolt
      features suggests beside the hand-set ones. A progress bar is drawn on
      stderr when it is a terminal.
      """,
    options: [
      "jolt-g", "spin", "pressure", "moving", "free-fall", "seeds", "hours", "mapping", "vehicle-gate", "out",
    ]
  ) { arguments, console in
    func list(_ name: String, _ fallback: [Double]) throws(CLIError) -> [Double] {
      guard let text = arguments.options[name] else { return fallback }
      var values: [Double] = []
      for part in text.split(separator: ",") {
        guard let v = Double(part.trimmingCharacters(in: .whitespaces)), v.isFinite else {
          throw CLIError.usage("--\(name): cannot read '\(part)' as a number")
        }
        values.append(v)
      }
      guard !values.isEmpty else { throw CLIError.usage("--\(name) needs at least one value") }
      return values
    }
    var grid = ImpactSweep.Grid()
    grid.joltG = try list("jolt-g", grid.joltG)
    grid.spinRadiansPerSecond = try list("spin", grid.spinRadiansPerSecond)
    grid.pressureHectopascals = try list("pressure", grid.pressureHectopascals)
    grid.movingMetersPerSecond = try list("moving", grid.movingMetersPerSecond)
    grid.freeFallSeconds = try list("free-fall", grid.freeFallSeconds)
    let seeds: UInt64 = try arguments.value("seeds", default: 5)
    let hours: Double = try arguments.value("hours", default: 100)
    guard seeds >= 1, hours >= 0, hours.isFinite else {
      throw CLIError.usage("--seeds must be positive and --hours not negative")
    }
    let gate = try gatePolicy(arguments)
    let recordings = try arguments.positionals.map { path in
      ImpactSweep.Recording(name: path, feed: try impactFeed(path, arguments, gate: gate))
    }
    let result = ImpactSweep.run(
      grid: grid, seeds: 1...seeds, hours: hours, recordings: recordings,
      progress: console.progressBar("impact sweep"))
    for line in SweepExport.csvLines(result) { console.out(line) }
    if let model = result.model { console.err(SweepExport.modelSummary(model)) }
    if let out = arguments.options["out"] { try SweepExport.write(result, to: out) }
    return 0
  }
}
