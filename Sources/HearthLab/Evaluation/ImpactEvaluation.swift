import Foundation
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace

/// The impact detector scored on labelled synthetic scenarios, on hours of
/// generated mixed driving, and on real recordings. Crash positives are all
/// synthetic: no real crash recording is available.
public enum ImpactEvaluation {
  /// The phone's batches of a generated scenario through one detector.
  public static func verdicts(
    _ s: SimulatedScenario, configuration: ImpactConfiguration = ImpactConfiguration()
  )
    -> [ImpactVerdict]
  {
    var detector = ImpactDetector(configuration: configuration)
    var out: [ImpactVerdict] = []
    for batch in s.batches {
      out += detector.process(batch.impactBatch(originMilliseconds: s.plan.startEpochMilliseconds))
    }
    return out + detector.finish()
  }

  /// Whether the verdicts are what the scenario's label expects: silence, or
  /// exactly one report for the first jolt, decided within 10.5 s of it.
  public static func matches(_ label: ScenarioLabel, _ verdicts: [ImpactVerdict]) -> Bool {
    let reports = verdicts.filter { $0.outcome == .possibleImpact }
    switch label.expected {
    case .silent: return reports.isEmpty
    case .report, .reportOnce:
      guard reports.count == 1, let jolt = label.joltSeconds.first else { return false }
      return abs(reports[0].joltSeconds - jolt) < 1
        && reports[0].decidedSeconds - reports[0].joltSeconds <= 10.5
    }
  }

  public struct ScenarioScore: Sendable, Hashable, Codable {
    public var id: String
    public var expected: ExpectedVerdict
    public var runs = 0
    public var matching = 0
    /// Jolt to verdict, s, for the reports.
    public var latencySeconds: [Double] = []
    /// One explanation per mismatch.
    public var mismatches: [String] = []
  }

  /// Every catalogue scenario over `seeds`, in parallel (results in catalogue order).
  public static func scenarios(
    seeds: ClosedRange<UInt64>, configuration: ImpactConfiguration = ImpactConfiguration()
  ) -> [ScenarioScore] {
    let all = ScenarioCatalogue.all
    return ParallelDriver.map(count: all.count) { i in
      var score = ScenarioScore(id: all[i].id, expected: all[i].expected)
      for seed in seeds {
        let s = all[i].generate(seed: seed)
        let v = verdicts(s, configuration: configuration)
        score.runs += 1
        if matches(s.label, v) {
          score.matching += 1
        } else {
          score.mismatches.append("seed \(seed): " + (v.map(\.explanation).joined(separator: " | ")))
        }
        for r in v where r.outcome == .possibleImpact {
          score.latencySeconds.append(r.decidedSeconds - r.joltSeconds)
        }
      }
      return score
    }
  }

  public struct MixScore: Sendable, Hashable, Codable {
    public var hours = 0.0
    public var drives = 0
    public var injectedEvents = 0
    /// Reports with no crash injected (every mix event here is a road or cabin event).
    public var falseAlarms = 0
    public var explanations: [String] = []
    /// One-sided 95 % upper bound on false alarms per hour
    /// (``ImpactEvaluation/poissonUpperBound95(count:)`` over the hours).
    public var upperBoundPerHour: Double { ImpactEvaluation.poissonUpperBound95(count: falseAlarms) / hours }
  }

  /// One-sided 95 % upper bound on a Poisson mean after seeing `count`
  /// events: 3.00 for none (the rule of three), then 4.74, 6.30, 7.75,
  /// 9.15, 10.51 (exact, from the χ² quantiles); beyond five, the
  /// approximation k + 1.645 √k + 2.5 (within 2 % of exact). O(1).
  public static func poissonUpperBound95(count: Int) -> Double {
    let table = [3.00, 4.74, 6.30, 7.75, 9.15, 10.51]
    let k = Double(count)
    return count < table.count ? table[count] : k + 1.645 * k.squareRoot() + 2.5
  }

  /// `hours` of generated mixed driving (potholes, bumps, doors, drops,
  /// hard braking, roundabouts, hills…; no crashes), each drive through a
  /// fresh detector, streamed (constant memory).
  public static func mix(
    hours: Double, seed: UInt64 = 1, configuration: ImpactConfiguration = ImpactConfiguration()
  ) -> MixScore {
    var score = MixScore()
    var mix = DriveMix(seed: seed, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 0))
    while let drive = mix.next() {
      var simulator = drive.simulator()
      var detector = ImpactDetector(configuration: configuration)
      var verdicts: [ImpactVerdict] = []
      while let batch = simulator.nextBatch() {
        verdicts += detector.process(batch.impactBatch(originMilliseconds: drive.plan.startEpochMilliseconds))
      }
      verdicts += detector.finish()
      score.drives += 1
      score.hours += drive.plan.durationSeconds / 3600
      score.injectedEvents += drive.events.count
      for v in verdicts where v.outcome == .possibleImpact {
        score.falseAlarms += 1
        score.explanations.append("drive \(drive.index): " + v.explanation)
      }
    }
    return score
  }

  /// A real recording replayed with the vehicle gate on (drives) — nothing
  /// happened in any of them, so every report is a false alarm.
  public static func realRecording(
    _ trace: Trace, configuration: ImpactConfiguration = ImpactConfiguration()
  ) -> [ImpactVerdict]? {
    ImpactFeed(trace: trace, gate: .on)?.verdicts(configuration: configuration)
  }

  /// The detector on the shared real recordings: the comma2k19 highway drive
  /// (the MEMS-Nav drives carry fixes only) and every real phone drop
  /// injected into a generated drive. Nothing happened in any of them.
  public struct RealScore: Sendable {
    public var driveName: String
    public var driveAccelerometerSamples: Int
    public var driveVerdicts: [ImpactVerdict]
    /// Per drop folder: its verdicts, and whether they were as expected (silent).
    public var drops: [(name: String, silent: Bool, verdicts: [ImpactVerdict])]
  }

  /// Reads and scores the real recordings under `datasets`.
  /// - Throws: `TraceError` when a recording cannot be read or holds no
  ///   accelerometer.
  public static func real(
    _ datasets: SharedDatasets, configuration: ImpactConfiguration = ImpactConfiguration()
  ) throws -> RealScore {
    let (drive, _) = try TraceFolder.readComma2k19Segment(datasets.comma2k19Segment)
    guard let driveVerdicts = realRecording(drive, configuration: configuration) else {
      throw TraceError.malformed(
        SourceLocation(file: datasets.comma2k19Segment, line: 0), reason: "no accelerometer")
    }
    var score = RealScore(
      driveName: "comma2k19", driveAccelerometerSamples: drive.accelerometer?.samples.count ?? 0,
      driveVerdicts: driveVerdicts, drops: [])
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: datasets.phoneDrops).sorted() } catch {
      throw TraceError.io(path: datasets.phoneDrops, reason: "cannot list the drop recordings")
    }
    for name in names {
      let motion = try RealPhoneDrop.load(phyphoxFolder: (datasets.phoneDrops as NSString).appendingPathComponent(name))
      let s = ScenarioCatalogue.realPhoneDrop(motion).generate(seed: 1)
      let v = verdicts(s, configuration: configuration)
      score.drops.append((name, matches(s.label, v), v))
    }
    return score
  }
}
