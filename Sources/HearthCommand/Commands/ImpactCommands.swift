import Foundation
import HearthImpact
import HearthLab
import HearthRuntime
import HearthSim
import HearthTrace

/// `hearth impact …`: the possible-impact detector on recorded traces.
enum ImpactCommands {
  /// The usage error for --seeds and --hours outside what a sweep takes
  /// (ImpactSweep.seedsRange, .hoursRange).
  static let sweepSizeUsage =
    "--seeds must be from \(ImpactSweep.seedsRange.lowerBound) to \(ImpactSweep.seedsRange.upperBound) and --hours from \(Int(ImpactSweep.hoursRange.lowerBound)) to \(Int(ImpactSweep.hoursRange.upperBound))"

  static let all: [Command] = [detect, sweep]

  /// The options every command that runs the detector takes.
  static let configurationOptions: Set<String> = [
    "config", "jolt-g", "spin", "pressure", "moving", "free-fall",
  ]

  /// The flag of each threshold a person sets (`--jolt-g` …).
  static func flag(_ setting: ImpactThresholds.Setting) -> String {
    switch setting {
    case .joltG: "--jolt-g"
    case .spinRadiansPerSecond: "--spin"
    case .pressureRiseHectopascals: "--pressure"
    case .movingMetersPerSecond: "--moving"
    case .freeFallSeconds: "--free-fall"
    }
  }

  static let configurationHelp = """
    Detector settings: --config FILE (JSON; any subset of the settings,
    e.g. the picked-configuration.json an `impact sweep --out` writes),
    then these flags over it, in SPEC §9's units: --jolt-g G, --spin RAD/S,
    --pressure HPA (rise), --moving M/S (median speed before), --free-fall S.
    A value outside its setting's range (the jolt in (0, 64] g, the others
    0 or more) is a usage error naming the flag and the range.
    """

  static let detect = Command(
    path: ["impact", "detect"],
    summary: "run the possible-impact detector over recorded traces and explain every verdict",
    help: """
      usage: hearth impact detect PATH... [--format text|json|csv]
                                  [--mapping FILE [--timezone ZONE] [--rate HZ]]
                                  [--vehicle-gate recording|on|off] [--config FILE]
                                  [--jolt-g G] [--spin RAD/S] [--pressure HPA]
                                  [--moving M/S] [--free-fall S]

      Reads each trace (Sensor Logger or phyphox folder, trace folder,
      comma2k19 segment, or CSV with a column mapping), replays it through
      ImpactDetector in 250 ms batches as the phone would, and prints every
      verdict with each condition's measured value, threshold and unit; a
      trace with no jolt gets one line too (its hours and peak |a|). The
      vehicle gate follows the recording's activity stream (on while it says
      automotive, off once it says walking, running or cycling; on when the
      recording has none); --vehicle-gate on|off overrides. Which rule set
      the gate, any stream too slow for the detector, and any stream whose
      time span overlaps no other stream's, and any file whose wall clock
      stepped against its monotonic clock (warnings, counted at the end;
      every stream is placed on the monotonic clock), is said on stderr.
      \(configurationHelp)
      \(ReadingFlags.help)
      Formats:
        text   one line per verdict (default)
        json   one JSON object per verdict (JSON Lines; NaN is null)
        csv    one row per condition:
               \(VerdictRecords.csvHeader)
      A PATH that cannot be read, or has no accelerometer with gravity (nor a
      gravity stream to add back), is reported on stderr and the others still
      run. Exit status: 0 nothing reported, 1 a possible impact was reported,
      2 usage, 3 a PATH was bad input (even if another reported).
      """,
    options: configurationOptions.union(ReadingFlags.options).union(["format", "vehicle-gate"])
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else {
      throw CLIError.usage("impact detect needs at least one PATH")
    }
    let format = try Formats.choose(arguments)
    let gate = try gatePolicy(arguments)
    let configuration = try impactConfiguration(arguments)
    let reading = try ReadingFlags(arguments)
    if format == .csv { console.out(VerdictRecords.csvHeader) }
    var reported = false
    var timeWarnings = 0
    let failed = try forEachPath(arguments.positionals, console) { path in
      // Streamed: a recording of any size in bounded memory.
      let stream = try reading.stream(path)
      let replay = try ImpactReplay.run(stream, path: path, gate: gate, configuration: configuration)
      importNotes(replay.report, path: path, console)
      console.err("\(path): vehicle gate \(replay.gate.source)")
      for warning in replay.rateWarnings { console.err("\(path): warning: \(warning)") }
      if let warning = replay.gravityWarning { console.err("\(path): warning: \(warning)") }
      for warning in replay.report.timeWarnings { console.err("\(path): warning: \(warning)") }
      timeWarnings += replay.report.timeWarnings.count
      reported = reported || replay.verdicts.contains { $0.outcome == .possibleImpact }
      let records = VerdictRecords(file: path, replay: replay, configuration: configuration)
      switch format {
      case .text: records.text.forEach(console.out)
      case .json: try records.jsonLines().forEach(console.out)
      case .csv: records.csv.forEach(console.out)
      }
    }
    if timeWarnings > 0 {
      console.err(
        "\(timeWarnings) time warning\(timeWarnings == 1 ? "" : "s"): streams that overlap no other in time, wall clocks that stepped"
      )
    }
    return failed > 0 ? 3 : reported ? 1 : 0
  }

  /// `--vehicle-gate`: recording (the default), on or off.
  static func gatePolicy(_ arguments: Arguments) throws(CLIError) -> VehicleGatePolicy {
    let text = arguments.options["vehicle-gate"] ?? VehicleGatePolicy.recording.rawValue
    guard let policy = VehicleGatePolicy(rawValue: text) else {
      throw CLIError.usage("--vehicle-gate must be recording, on or off, not '\(text)'")
    }
    return policy
  }

  /// `--config FILE` over the defaults, then the threshold flags.
  static func impactConfiguration(_ arguments: Arguments) throws -> ImpactConfiguration {
    let base =
      try arguments.options["config"].map(ImpactConfigurationFile.read(path:)) ?? ImpactConfiguration()
    func value(_ name: String) throws(CLIError) -> Double? {
      guard let text = arguments.options[name] else { return nil }
      guard let v = Double(text), v.isFinite else {
        throw CLIError.usage("--\(name): cannot read '\(text)' as a number")
      }
      return v
    }
    let thresholds = ImpactThresholds(
      joltG: try value("jolt-g"), spinRadiansPerSecond: try value("spin"),
      pressureRiseHectopascals: try value("pressure"), movingMetersPerSecond: try value("moving"),
      freeFallSeconds: try value("free-fall"))
    let problems = thresholds.problems(over: base, name: flag)
    guard problems.isEmpty else { throw CLIError.usage(problems.joined(separator: "; ")) }
    return thresholds.applied(to: base)
  }

  /// The recording at `path` as the detector's feed; bad input (exit 3) when
  /// it has no accelerometer with gravity nor a gravity stream to add back.
  static func impactFeed(
    _ path: String, _ reading: ReadingFlags, gate: VehicleGatePolicy, _ console: Console
  ) throws -> ImpactFeed {
    let (trace, report) = try reading.read(path)
    importNotes(report, path: path, console)
    guard let feed = ImpactFeed(trace: trace, gate: gate) else {
      throw CLIError.badInput("no accelerometer with gravity (nor a gravity stream to add back)")
    }
    return feed
  }

  static let sweep = Command(
    path: ["impact", "sweep"],
    summary: "judge a grid of detector thresholds over the scenario catalogue and generated driving",
    help: """
      usage: hearth impact sweep [PATH...] [--jolt-g LIST] [--spin LIST] [--pressure LIST]
                                 [--moving LIST] [--free-fall LIST] [--config FILE]
                                 [--seeds N] [--hours H]
                                 [--mapping FILE [--timezone ZONE] [--rate HZ]]
                                 [--vehicle-gate recording|on|off] [--out DIR [--pick N]]

      LIST is comma-separated values (g, rad/s, hPa, m/s, s); every
      combination is judged, each over the settings of --config FILE (the
      defaults without it). Each scenario (seeds 1…N, default 5) and each
      drive of H hours (default 100) of generated driving runs through the
      detector once, in parallel on all cores; the combinations are then
      judged from the measured values. Recorded traces given as PATHs
      (any format `hearth` reads) are swept too, as driving with no known
      crash: every report on them counts as a false alarm over their
      hours with data (pauses left out); their vehicle gate is set as for
      `impact detect`. A PATH that cannot be read is reported and left out
      (exit 3 at the end). --hours 0 leaves generated driving out. Prints
      one CSV row per combination (numbered from 0): thresholds, crash runs,
      true positives, misses, false alarms, reports, recall, precision,
      false alarms per 1 000 h and their 95 % upper bound, silent scenarios
      that reported, median jolt-to-verdict time, and how many jolts each
      condition turned down. --out DIR also writes there:
        sweep.csv                  the same table
        outcomes.csv               combination × trace: reports, as expected
        jolts.csv                  every judged jolt: each condition's value, the label is_crash
        configurations.json        the detector configuration of every combination
        picked-configuration.json  combination N (--pick N; default: the one
                                   nearest the defaults), for impact detect --config
        sweep.json                 everything above as one JSON document
        report.html                a self-contained page: recall against false
                                   alarms, the scenario × combination matrix,
                                   counts and sources, the signals around every
                                   report and near miss, a logistic model's
                                   suggested thresholds
      A progress bar is drawn on stderr when it is a terminal. A plan whose
      estimated memory (traces × combinations, from --seeds, --hours and
      the lists, before anything runs) is over 2 GiB is a usage error
      (exit 2) that gives the estimate.
      \(ReadingFlags.help)
      """,
    options: configurationOptions.union(ReadingFlags.options).union([
      "seeds", "hours", "vehicle-gate", "out", "pick",
    ])
  ) { arguments, console in
    func list(_ flag: String, _ fallback: Double) throws(CLIError) -> [Double] {
      guard let text = arguments.options[String(flag.dropFirst(2))] else { return [fallback] }
      var values: [Double] = []
      for part in text.split(separator: ",") {
        guard let v = Double(part.trimmingCharacters(in: .whitespaces)), v.isFinite else {
          throw CLIError.usage("\(flag): cannot read '\(part)' as a number")
        }
        values.append(v)
      }
      guard !values.isEmpty else { throw CLIError.usage("\(flag) needs at least one value") }
      return values
    }
    let base =
      try arguments.options["config"].map(ImpactConfigurationFile.read(path:)) ?? ImpactConfiguration()
    var grid = ImpactSweep.Grid(base: base)
    for setting in ImpactThresholds.Setting.allCases {
      grid[setting] = try list(flag(setting), setting.value(in: base))
    }
    let problems = grid.problems(name: flag)
    guard problems.isEmpty else { throw CLIError.usage(problems.joined(separator: "; ")) }
    let seeds: UInt64 = try arguments.value("seeds", default: 5)
    let hours: Double = try arguments.value("hours", default: 100)
    guard ImpactSweep.seedsRange.contains(seeds), ImpactSweep.hoursRange.contains(hours) else {
      throw CLIError.usage(ImpactCommands.sweepSizeUsage)
    }
    // The plan's cost, estimated before any task is listed or trace read.
    if let tooLarge = ImpactSweep.budgetProblem(
      grid: grid, seeds: seeds, hours: hours, recordings: arguments.positionals.count)
    {
      throw CLIError.usage(tooLarge)
    }
    let picked: Int? = try arguments.options["pick"].map { _ in try arguments.value("pick", default: 0) }
    if let picked {
      guard arguments.options["out"] != nil else { throw CLIError.usage("--pick needs --out DIR") }
      let count = Int(grid.combinationCount)  // within the budget checked above
      guard (0..<count).contains(picked) else {
        throw CLIError.usage(
          "--pick \(picked): the grid has \(count) combination\(count == 1 ? "" : "s") (0…\(count - 1))")
      }
    }
    let gate = try gatePolicy(arguments)
    let reading = try ReadingFlags(arguments)
    var recordings: [ImpactSweep.Recording] = []
    let failed = try forEachPath(arguments.positionals, console) { path in
      recordings.append(
        ImpactSweep.Recording(name: path, feed: try impactFeed(path, reading, gate: gate, console)))
    }
    let result = ImpactSweep.run(
      grid: grid, seeds: 1...seeds, hours: hours, recordings: recordings,
      progress: console.progressBar("impact sweep"))
    for line in SweepExport.csvLines(result) { console.out(line) }
    if let model = result.model { console.err(SweepExport.modelSummary(model)) }
    if let out = arguments.options["out"] {
      try writingOutput(out) {
        try SweepExport.write(result, configurations: grid.combinations, picked: picked, to: out)
      }
    }
    return failed > 0 ? 3 : 0
  }
}
