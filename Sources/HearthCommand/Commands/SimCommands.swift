import Foundation
import HearthLab
import HearthRuntime
import HearthSim
import HearthTrace

/// `hearth sim …`: the scenario catalogue and the generators.
enum SimCommands {
  static let all: [Command] = [
    list, scenario, day, mix, set, calibrate, evaluateGeofences, evaluateSpeed, evaluateTrips, evaluateImpact,
  ]

  static let list = Command(
    path: ["sim", "list"], summary: "list the scenario catalogue with expected verdicts",
    help: """
      usage: hearth sim list [--format text|json|csv]

      One record per scenario: id, expected verdict, deciding gate, name,
      summary (text: aligned columns without the summary; json: one object
      per line; csv: a header, then one row each).
      """,
    options: ["format"]
  ) { arguments, console in
    let format = try Formats.choose(arguments)
    if format == .csv { console.out("id,expected,deciding_gate,name,summary") }
    for s in ScenarioCatalogue.all {
      switch format {
      case .text:
        console.out(
          "\(s.id.padding(toLength: 4, withPad: " ", startingAt: 0)) \(s.expected.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(s.decidingGate.padding(toLength: 36, withPad: " ", startingAt: 0)) \(s.name)"
        )
      case .csv:
        console.out(
          [s.id, s.expected.rawValue, s.decidingGate, s.name, s.summary].map(CSVField.quoted).joined(
            separator: ","))
      case .json:
        console.out(String(decoding: try JSONOutput.encode(ScenarioRecord(s)), as: UTF8.self))
      }
    }
    return 0
  }

  /// One catalogue entry as `sim list --format json` prints it.
  struct ScenarioRecord: Encodable {
    var id, expected, decidingGate, name, summary: String
    init(_ s: Scenario) {
      (id, expected, decidingGate, name, summary) = (
        s.id, s.expected.rawValue, s.decidingGate, s.name, s.summary
      )
    }
  }

  static let scenario = Command(
    path: ["sim", "generate", "scenario"], summary: "generate one scenario variant (trace folder + label)",
    help: """
      usage: hearth sim generate scenario <ID> --out DIR [--seed N]

      Writes DIR/trace/ (accelerometer 50 Hz, gyroscope 10 Hz, barometer 5 Hz,
      GPS 1 Hz as .npy columns), DIR/label.json and DIR/plan.json.
      --seed N   variant seed (default 1); the same seed gives the same bytes.
      """,
    options: ["out", "seed"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else {
      throw CLIError.usage("give exactly one scenario id (see hearth sim list)")
    }
    let id = arguments.positionals[0]
    guard let scenario = ScenarioCatalogue.scenario(id) else {
      throw CLIError.usage("unknown scenario '\(id)' (see hearth sim list)")
    }
    let out = try arguments.required("out")
    let seed: UInt64 = try arguments.value("seed", default: 1)
    let generated = scenario.generate(seed: seed)
    try writingOutput(out) { _ = try SimOutput.write(generated, to: out) }
    console.out(
      "\(id) seed \(seed): \(generated.trace.accelerometer?.samples.count ?? 0) accelerometer samples, \(generated.trace.fixes.count) fixes, expected \(scenario.expected.rawValue) → \(out)"
    )
    return 0
  }

  static let day = Command(
    path: ["sim", "generate", "day"], summary: "generate a day of fixes with its trips, stops and visits",
    help: """
      usage: hearth sim generate day --out DIR [--seed N] [--phones 1|2] [--no-tablet]

      Writes DIR/trace/ (every uploaded fix in arrival order), DIR/day.json
      (places, upload boundaries, options) and DIR/labels.json (trips, stops,
      visits, over-limit stretches, sudden stops, gaps, outliers).
      """,
    options: ["out", "seed", "phones"], flags: ["no-tablet"]
  ) { arguments, console in
    let out = try arguments.required("out")
    let seed: UInt64 = try arguments.value("seed", default: 1)
    var options = DayOptions()
    options.carriedPhones = try arguments.value("phones", default: 1)
    guard (1...2).contains(options.carriedPhones) else { throw CLIError.usage("--phones must be 1 or 2") }
    options.homeTablet = !arguments.flags.contains("no-tablet")
    let generated = DayGenerator.generate(seed: seed, options: options)
    try writingOutput(out) { _ = try SimOutput.write(generated, to: out) }
    let labels = generated.labels
    console.out(
      "day seed \(seed): \(generated.fixesInArrivalOrder.count) fixes in \(generated.uploads.count) uploads, \(labels.trips.count) trips, \(labels.stops.count) stops, \(labels.visits.count) visits → \(out)"
    )
    return 0
  }

  static let mix = Command(
    path: ["sim", "generate", "mix"], summary: "generate hours of driving with injected events",
    help: """
      usage: hearth sim generate mix --hours H --out DIR [--seed N] [--events-per-hour E] [--crashes-per-hour C]

      Writes one trace folder per drive and DIR/events.jsonl (every injected
      event with its time and expected verdict). An hour is about 50 MB; long
      soaks should stream DriveMix in process instead of writing it.
      """,
    options: ["out", "seed", "hours", "events-per-hour", "crashes-per-hour"]
  ) { arguments, console in
    let out = try arguments.required("out")
    let hours: Double = try arguments.value("hours", default: .nan)
    guard hours > 0 && hours <= 100 else { throw CLIError.usage("--hours must be in (0, 100]") }
    var generator = DriveMix(
      seed: try arguments.value("seed", default: 1),
      options: .init(
        hours: hours, eventsPerHour: try arguments.value("events-per-hour", default: 6),
        crashesPerHour: try arguments.value("crashes-per-hour", default: 0)))
    var files: [String] = []
    try writingOutput(out) { files = try SimOutput.writeMix(&generator, to: out) }
    console.out("mix: \(files.count - 1) drives, \(hours) h → \(out)")
    return 0
  }

  static let set = Command(
    path: ["sim", "generate", "set"], summary: "generate a set listed in datasets/sim/manifest.json",
    help: """
      usage: hearth sim generate set <NAME> [--manifest PATH] [--out DIR]

      Generates a committed or cached set from its manifest entry; the default
      output is .build/sim-cache/<NAME>. Streamed sets (1 000 h mixes) are not
      written: generate them in process with DriveMix.
      """,
    options: ["manifest", "out"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("give exactly one set name") }
    let manifestPath = arguments.options["manifest"] ?? "datasets/sim/manifest.json"
    let sets: [SimSet]
    sets = try SimDatasets.manifest(at: manifestPath)
    guard let entry = sets.first(where: { $0.name == arguments.positionals[0] }) else {
      throw CLIError.usage(
        "no set '\(arguments.positionals[0])' in \(manifestPath): \(sets.map(\.name).joined(separator: ", "))"
      )
    }
    guard entry.storage != .stream else {
      throw CLIError.usage(
        "'\(entry.name)' is streamed, never stored: use DriveMix(seed: \(entry.seed), …) in process")
    }
    let out = arguments.options["out"] ?? ".build/sim-cache/\(entry.name)"
    let files = try SimDatasets.materialize(entry, into: out)
    console.out("\(entry.name): \(files.count) files → \(out)")
    return 0
  }

  static let calibrate = Command(
    path: ["sim", "calibrate"], summary: "compare generated vibration, speeds and fixes with real recordings",
    help: """
      usage: hearth sim calibrate [--datasets DIR]

      Prints a Markdown table: road vibration against comma2k19, speeds, fix
      intervals and network accuracy against the mems-nav drives
      (docs/guides/simulator-calibration.md). DIR defaults to $HEARTH_SHARED_DATASETS, else ../shared/datasets.
      """,
    options: ["datasets"]
  ) { arguments, console in
    let datasets = arguments.options["datasets"].map(SharedDatasets.init(root:)) ?? .standard()
    let rows: [Calibration.Row]
    rows = try Calibration.compare(datasets)
    console.out(Calibration.markdown(rows))
    return 0
  }

  static let evaluateGeofences = Command(
    path: ["sim", "evaluate", "geofences"], summary: "score the geofence engine on generated days",
    help: """
      usage: hearth sim evaluate geofences [--days N] [--first-seed S] [--independent-indoor-errors]

      Replays N generated days (seeds S…S+N−1) through the geofence engine and
      prints precision and recall of announced arrivals and departures against
      the true visits, and the announce latency (p50 / p90).
      """,
    options: ["days", "first-seed"], flags: ["independent-indoor-errors"]
  ) { arguments, console in
    let days: UInt64 = try arguments.value("days", default: 1000)
    let first: UInt64 = try arguments.value("first-seed", default: 1)
    guard days >= 1 else { throw CLIError.usage("--days must be at least 1") }
    var options = DayOptions()
    options.correlatedIndoorErrors = !arguments.flags.contains("independent-indoor-errors")
    let m = GeofenceEvaluation.evaluate(seeds: first...(first + days - 1), options: options)
    func pct(_ x: Double) -> String { String(format: "%.1f %%", 100 * x) }
    func latency(_ values: [Double]) -> String {
      let s = values.sorted()
      guard !s.isEmpty else { return "-" }
      return String(format: "%.0f s / %.0f s", s[s.count / 2], s[min(s.count - 1, s.count * 9 / 10)])
    }
    console.out("days \(m.days), visits \(m.visits) (\(m.endedVisits) ended before midnight)")
    console.out(
      "arrivals:   precision \(pct(m.arrivalPrecision)) (\(m.arrivalsAnnouncedMatching)/\(m.arrivalsAnnounced)), recall \(pct(m.arrivalRecall)) (\(m.visitsWithArrival)/\(m.visits - m.seededVisits)), latency p50/p90 \(latency(m.arrivalLatencySeconds))"
    )
    console.out(
      "departures: precision \(pct(m.departurePrecision)) (\(m.departuresAnnouncedMatching)/\(m.departuresAnnounced)), recall \(pct(m.departureRecall)) (\(m.visitsWithDeparture)/\(m.endedVisits)), latency p50/p90 \(latency(m.departureLatencySeconds))"
    )
    let falseCount =
      m.arrivalsAnnounced - m.arrivalsAnnouncedMatching + m.departuresAnnounced
      - m.departuresAnnouncedMatching
    console.out(
      "false announcements \(falseCount), of which after a labelled outlier fix \(m.falseAfterOutlier); feed-only \(m.feedOnly), cancelled \(m.cancelled)"
    )
    return 0
  }

  static let evaluateSpeed = Command(
    path: ["sim", "evaluate", "speed"],
    summary: "score agreed speed, speed alerts and sudden stops on real and generated data",
    help: """
      usage: hearth sim evaluate speed [--days N] [--datasets DIR] [--mappings DIR]

      Agreed speed against comma2k19's CAN speed and MEMS-Nav's 1 Hz speeds
      (fixes every 1 s and 30 s); the speed alert (50 km/h) and the sudden-stop
      check over N generated days (sudden stops in half the drives); the
      sudden-stop check on the real drives, where nothing happened.
      """,
    options: ["days", "datasets", "mappings"]
  ) { arguments, console in
    let days: UInt64 = try arguments.value("days", default: 1000)
    let datasets = arguments.options["datasets"].map(SharedDatasets.init(root:)) ?? .standard()
    let mappings = arguments.options["mappings"] ?? "datasets/mappings"
    func f(_ x: Double) -> String { String(format: "%.2f", x) }
    for s in try SpeedEvaluation.comma2k19(segment: datasets.comma2k19Segment)
      + SpeedEvaluation.memsNav(
        processedFolder: datasets.memsNavProcessed, mappingPath: mappings + "/mems-nav-processed-1hz.json")
    {
      console.out(
        "\(s.name): \(s.pairs) pairs, mean error \(f(s.meanError)) m/s, |error| p50 \(f(s.medianAbsoluteError)) p90 \(f(s.p90AbsoluteError)) max \(f(s.maxAbsoluteError))"
      )
    }
    let alerts = SpeedEvaluation.speedAlerts(seeds: 1...days)
    console.out(
      "speed alert (50 km/h), \(days) days: precision \(f(100 * alerts.precision)) % (\(alerts.decisionsMatching)/\(alerts.decisions)), recall by stretch length 15–30 s \(alerts.stretchesDecided[0])/\(alerts.stretches[0]), 30–60 s \(alerts.stretchesDecided[1])/\(alerts.stretches[1]), ≥ 60 s \(alerts.stretchesDecided[2])/\(alerts.stretches[2]); announced \(alerts.announced)"
    )
    var options = DayOptions()
    options.suddenStopProbabilityPerDrive = 0.5
    let stops = SpeedEvaluation.suddenStops(seeds: 1...days, options: options)
    console.out(
      "sudden stop, \(days) days: precision \(f(100 * stops.precision)) % (\(stops.raisedMatching)/\(stops.raised)), recall \(f(100 * stops.recall)) % (\(stops.labelledRaised)/\(stops.labelled - stops.labelledWithinTheHour); \(stops.labelledWithinTheHour) more within the hour of an earlier one; \(stops.labelledInGap) in a tunnel); \(stops.raisedThenDropped) raised and dropped later"
    )
    return 0
  }

  static let evaluateTrips = Command(
    path: ["sim", "evaluate", "trips"],
    summary: "score trip segmentation against the labelled trips of generated days",
    help: """
      usage: hearth sim evaluate trips [--days N] [--first-seed S]

      Runs the carried phone's uploads of N generated days through
      TripSegmenter with the day's places and matches the trips found with
      the labelled ones (overlap of at least half the shorter): precision,
      recall, and the time and position errors of the ends (p50 / p90).
      """,
    options: ["days", "first-seed"]
  ) { arguments, console in
    let days: UInt64 = try arguments.value("days", default: 1000)
    let first: UInt64 = try arguments.value("first-seed", default: 1)
    guard days >= 1 else { throw CLIError.usage("--days must be at least 1") }
    let m = TripEvaluation.evaluate(seeds: first...(first + days - 1))
    func q(_ values: [Double]) -> String {
      Calibration.quantiles(values.map(abs), [0.5, 0.9]).map { String(format: "%.0f", $0) }.joined(
        separator: " / ")
    }
    console.out(
      "trips, \(days) days: precision \(String(format: "%.2f", 100 * m.precision)) % (\(m.foundMatching)/\(m.found)), recall \(String(format: "%.2f", 100 * m.recall)) % (\(m.labelledFound)/\(m.labelled)); \(m.journeys) journeys between named places; \(m.rejectedSegments) segments rejected"
    )
    console.out(
      "ends (p50 / p90): start \(q(m.startSeconds)) s, \(q(m.startMeters)) m; end \(q(m.endSeconds)) s, \(q(m.endMeters)) m"
    )
    return 0
  }

  static let evaluateImpact = Command(
    path: ["sim", "evaluate", "impact"],
    summary: "score the possible-impact detector on scenarios, generated driving and real recordings",
    help: """
      usage: hearth sim evaluate impact [--seeds N] [--hours H] [--datasets DIR] [--config FILE]
                                        [--jolt-g G] [--spin RAD/S] [--pressure HPA]
                                        [--moving M/S] [--free-fall S]

      Every catalogue scenario over seeds 1…N (default 20): matches, reports
      and jolt-to-verdict time; H hours (default 1000) of generated mixed
      driving with road and cabin events and no crash: false alarms and the
      95 % upper bound; the real comma2k19 drive and the real phone drops (injected
      into a drive) under DIR: every report explained. Crash positives are
      synthetic.
      \(ImpactCommands.configurationHelp)
      """,
    options: ImpactCommands.configurationOptions.union(["seeds", "hours", "datasets"])
  ) { arguments, console in
    let seeds: UInt64 = try arguments.value("seeds", default: 20)
    let hours: Double = try arguments.value("hours", default: 1000)
    let datasets = arguments.options["datasets"].map(SharedDatasets.init(root:)) ?? .standard()
    guard ImpactSweep.seedsRange.contains(seeds), ImpactSweep.hoursRange.contains(hours), hours > 0 else {
      throw CLIError.usage(ImpactCommands.sweepSizeUsage)
    }
    var latencies: [Double] = []
    let configuration = try ImpactCommands.impactConfiguration(arguments)
    for score in ImpactEvaluation.scenarios(seeds: 1...seeds, configuration: configuration) {
      latencies += score.latencySeconds
      console.out("\(score.id) (\(score.expected.rawValue)): \(score.matching)/\(score.runs) as expected")
      for m in score.mismatches.prefix(3) { console.out("  \(m)") }
    }
    let q = Calibration.quantiles(latencies, [0.5, 0.9, 1])
    console.out(String(format: "jolt to verdict: p50 %.1f s, p90 %.1f s, max %.1f s", q[0], q[1], q[2]))
    let real = try ImpactEvaluation.real(datasets, configuration: configuration)
    console.out(
      "real drive (\(real.driveName), \(real.driveAccelerometerSamples) accelerometer samples): \(real.driveVerdicts.filter { $0.outcome == .possibleImpact }.count) reports, \(real.driveVerdicts.count) jolts judged"
    )
    for v in real.driveVerdicts { console.out("  \(v.explanation)") }
    for drop in real.drops {
      console.out(
        "real drop \(drop.name) in a drive: \(drop.silent ? "silent" : "REPORTED") — \(drop.verdicts.map(\.explanation).joined(separator: " | "))"
      )
    }
    let mix = ImpactEvaluation.mix(hours: hours, configuration: configuration)
    console.out(
      String(
        format:
          "generated driving: %.0f h, %d drives, %d injected road/cabin events: %d false alarms (95 %% upper bound %.4f per hour)",
        mix.hours, mix.drives, mix.injectedEvents, mix.falseAlarms, mix.upperBoundPerHour))
    for e in mix.explanations.prefix(10) { console.out("  \(e)") }
    return 0
  }
}
