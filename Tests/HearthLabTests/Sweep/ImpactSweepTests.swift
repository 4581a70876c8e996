import Foundation
import HearthImpact
import HearthRuntime
import HearthSim
import Testing

@testable import HearthLab

@Suite("Threshold sweep: judging again from measured values equals running the detector")
struct ImpactSweepTests {
  static var changed: [ImpactConfiguration] {
    var a = ImpactConfiguration()
    a.spinRadiansPerSecond = 4.5
    a.pressureRiseHectopascals = 3
    var b = ImpactConfiguration()
    b.joltMetersPerSecondSquared = 6 * ImpactConfiguration.standardGravity
    b.movingMedianMetersPerSecond = 9
    b.freeFallSeconds = 0.3
    var c = ImpactConfiguration()
    c.spinRadiansPerSecond = 3
    c.pressureRiseHectopascals = 1.2
    return [ImpactConfiguration(), a, b, c]
  }

  @Test("every scenario (seed 1) under four configurations: the same reports either way")
  func rejudgeMatchesDirect() {
    var loose = ImpactConfiguration()
    loose.suppressionSeconds = 0
    for scenario in ScenarioCatalogue.all {
      let s = scenario.generate(seed: 1)
      let extracted = ImpactEvaluation.verdicts(s, configuration: loose)
      for c in Self.changed {
        let direct = ImpactEvaluation.verdicts(s, configuration: c).filter { $0.outcome == .possibleImpact }
          .map(\.joltSeconds)
        var judged: [Double] = []
        var last = -Double.infinity
        for v in extracted
        where v.joltSeconds - last >= c.suppressionSeconds && v.outcome(under: c) == .possibleImpact {
          judged.append(v.joltSeconds)
          last = v.joltSeconds
        }
        // A higher jolt threshold may date the incident a few samples later
        // (still within its first second); everything else is exact.
        #expect(
          direct.count == judged.count && zip(direct, judged).allSatisfy { abs($0 - $1) < 1 },
          "\(scenario.id) spin \(c.spinRadiansPerSecond) jolt \(c.joltMetersPerSecondSquared)")
      }
    }
  }

  @Test("a small grid: the defaults reproduce the evaluation; a spin threshold no crash reaches loses recall")
  func grid() {
    var grid = ImpactSweep.Grid()
    #expect(grid.combinations == [ImpactConfiguration()])
    grid.spinRadiansPerSecond = [3.5, 40]
    grid.pressureHectopascals = [2, 40]
    let calls = Counter()
    let result = ImpactSweep.run(grid: grid, seeds: 1...2, hours: 2) { _, _ in calls.add() }
    let rows = result.rows
    #expect(rows.count == 4)
    let defaults = rows.first { $0.spinRadiansPerSecond == 3.5 && $0.pressureHectopascals == 2 }!
    #expect(
      defaults.recall == 1 && defaults.silentScenariosReported == 0 && defaults.precision == 1, "\(defaults)")
    #expect(rows[result.featured] == defaults)
    #expect(
      defaults.matchedByScenario.values.allSatisfy { $0 == 2 } && defaults.matchedByScenario.count == 30)
    let blind = rows.first { $0.spinRadiansPerSecond == 40 && $0.pressureHectopascals == 40 }!
    #expect(
      blind.recall == 0 && (blind.rejectedBy["spin"] ?? 0) > 0 && (blind.rejectedBy["pressureRise"] ?? 0) > 0)
    // Spin alone at 40 rad/s: the crashes with an airbag's pressure step still report.
    let spinBlind = rows.first { $0.spinRadiansPerSecond == 40 && $0.pressureHectopascals == 2 }!
    #expect(spinBlind.recall > 0 && spinBlind.recall < 1)
    // Two hours say little about false alarms: the bound is honest about it.
    #expect(defaults.falseAlarmsUpperBoundPer1000Hours > 1000)
    // Every trace and every combination reported progress once.
    #expect(calls.value == result.traces + rows.count)
    // Panels: every crash report (2 seeds of each crash scenario) with its signals around the jolt.
    let reports = result.panels.filter { $0.kind == .report }
    #expect(reports.count == Int(defaults.recall * Double(rows.count > 0 ? 2 * crashScenarios : 0)))
    #expect(reports.allSatisfy { $0.expectedReport && $0.signals.accelerationG.count == 130 })
    for p in reports {
      let at = Int(((p.joltSeconds - p.signals.startSeconds) / SignalExcerpt.binSeconds).rounded(.down))
      let peak = p.signals.accelerationG[max(0, at - 2)...min(129, at + 2)].max()!
      #expect(Double(peak) >= 4, "\(p.source) \(peak)")
    }
    // Counts agree with one another and with the per-trace reports, for every combination.
    for (c, row) in rows.enumerated() {
      #expect(row.truePositives + row.misses == row.crashRuns && row.crashRuns == 2 * crashScenarios)
      let driving = result.sources.indices.filter { result.sources[$0].kind != .scenario }
      #expect(row.falseAlarms == driving.map { result.reportCounts[c][$0] }.reduce(0, +))
      #expect(row.reports == result.reportCounts[c].reduce(0, +))
      #expect(abs(row.recall - Double(row.truePositives) / Double(row.crashRuns)) < 1e-12)
    }
    #expect(result.sources.count == result.traces && result.reportCounts.count == rows.count)
    // The per-jolt table: one labelled crash jolt per crash run, features in g and the SPEC's units.
    #expect(result.joltTable.filter(\.isCrash).count == 2 * crashScenarios)
    #expect(result.joltTable.allSatisfy { ($0.joltG ?? 0) >= 4 })
    let model = try! #require(result.model)
    #expect(model.converged && model.crashJolts == 2 * crashScenarios && model.trainingAccuracy > 0.8)
    #expect(model.features.first { $0.name == "spin" }!.coefficient > 0)
  }

  var crashScenarios: Int { ScenarioCatalogue.all.count { $0.expected != .silent } }

  @Test("the sweep's rows hold each jolt threshold as listed (3.5, not 3.5 × g / g = 3.4999999999999996)")
  func listedJoltThresholds() {
    #expect(3.5 * ImpactConfiguration.standardGravity / ImpactConfiguration.standardGravity != 3.5)
    var grid = ImpactSweep.Grid()
    grid.joltG = [3.5, 4.1]
    grid.spinRadiansPerSecond = [3, 4]
    #expect(grid.listedCombinations.map(\.joltG) == [3.5, 3.5, 4.1, 4.1])
    #expect(grid.listedCombinations.map(\.configuration) == grid.combinations)
    let result = ImpactSweep.assemble([], grid: grid, seeds: 1...1)
    #expect(result.rows.map(\.joltG) == [3.5, 3.5, 4.1, 4.1])
    #expect(result.rows.map(\.spinRadiansPerSecond) == [3, 4, 3, 4])
  }

  @Test(
    "a sweep over a base configuration: every combination keeps the base's other settings, the featured one is nearest the base"
  )
  func baseConfiguration() {
    var base = ImpactConfiguration()
    base.spinRadiansPerSecond = 5
    base.restWithinSeconds = 4
    var grid = ImpactSweep.Grid(base: base)
    grid.spinRadiansPerSecond = [3.5, 5, 6]
    #expect(grid.combinations.allSatisfy { $0.restWithinSeconds == 4 })
    #expect(grid.combinations.map(\.spinRadiansPerSecond) == [3.5, 5, 6])
    #expect(ImpactSweep.nearestToHandSet(grid.combinations, base) == 1)
  }

  @Test(
    "a grid value outside its setting's domain is named with its list and value; an empty list and a bad base too"
  )
  func gridProblemsNameTheValue() {
    var grid = ImpactSweep.Grid()
    #expect(grid.problems().isEmpty)
    grid.joltG = [3.5, -4, 0]
    grid.spinRadiansPerSecond = [3.5, -1]
    grid.freeFallSeconds = []
    let found = grid.problems { "list " + $0.rawValue }
    #expect(found.count == 4, "\(found)")
    #expect(found[0].hasPrefix("list joltG -4: joltMetersPerSecondSquared: "), "\(found)")
    #expect(
      found[1].hasPrefix("list joltG 0: joltMetersPerSecondSquared: 0 m/s² is outside (0, "), "\(found)")
    #expect(
      found[2] == "list spinRadiansPerSecond -1: spinRadiansPerSecond: -1 rad/s is outside [0, ∞) rad/s")
    #expect(found[3] == "list freeFallSeconds: needs at least one value")
    var base = ImpactConfiguration()
    base.lateDataSeconds = -1
    #expect(ImpactSweep.Grid(base: base).problems().first?.hasPrefix("base: lateDataSeconds: ") == true)
  }

  @Test(
    "checking each swept value alone over the base judges every combination: random grids agree with the whole product"
  )
  func gridProblemsCoverEveryCombination() {
    var random = SeededGenerator(seed: 29)
    let pool: [Double] = [-1, 0, 0.5, 4, 64, 65, 1e308, .nan]
    for _ in 0..<200 {
      var grid = ImpactSweep.Grid()
      for setting in ImpactThresholds.Setting.allCases {
        grid[setting] = (0..<Int.random(in: 1...3, using: &random)).map { _ in
          pool.randomElement(using: &random)!
        }
      }
      let whole = grid.combinations.contains { !$0.problems.isEmpty }
      #expect(grid.problems().isEmpty == !whole, "\(grid)")
      if grid.problems().isEmpty {
        #expect(ImpactSweep.extractionConfiguration(grid).problems.isEmpty)
      }
    }
  }

  /// A distributed sweep's merge took whatever it was handed: a retried
  /// task's result twice, a lost one, or another plan's extraction changed
  /// every rate without a word.
  @Test(
    "a merge takes each generated task once, in order, of this plan's extraction; recordings after, at most the plan's"
  )
  func mergeChecksTheExtractions() {
    var grid = ImpactSweep.Grid()
    grid.joltG = [4, 5]
    let generated = Array(ImpactSweep.tasks(seeds: 1...1, hours: 0).prefix(3))
    let stamp = ImpactSweep.extractionStamp(grid)
    func trace(_ name: String, _ kind: ImpactSweep.SourceKind = .scenario, stamp: String? = stamp)
      -> ImpactSweep.SweptTrace
    {
      var t = ImpactSweep.SweptTrace(
        source: .init(name: name, kind: kind, hours: 0), verdicts: [], excerpts: [])
      t.extraction = stamp
      return t
    }
    let names = generated.map(\.name)
    let good = names.map { trace($0) }
    func problem(_ traces: [ImpactSweep.SweptTrace], recordings: Int = 1) -> String? {
      ImpactSweep.mergeProblem(traces, generated: generated, recordings: recordings, grid: grid)
    }
    #expect(problem(good) == nil)
    #expect(problem(good + [trace("a.csv", .recording)]) == nil)
    #expect(
      problem(good + [trace("a.csv", .recording)], recordings: 0)?.contains("plan of 0 recordings") == true)
    #expect(problem([good[0], good[1], good[1], good[2]])?.contains("repeats an earlier task") == true)
    #expect(
      problem([good[0], good[2]])?.contains("is \(names[2]) where the plan's task 1 (\(names[1]))") == true)
    #expect(problem([good[0], good[1]])?.contains("task 2 (\(names[2])) has no extraction") == true)
    #expect(problem([good[0], trace("a.csv", .recording), good[1], good[2]])?.contains("task order") == true)
    #expect(problem(good + [good[2]])?.contains("one more generated task") == true)
    // Another plan's extraction (its loosest jolt 3 g), and one without a stamp.
    var other = grid
    other.joltG = [3, 4]
    #expect(ImpactSweep.extractionStamp(other) != stamp)
    #expect(
      problem([good[0], trace(names[1], stamp: ImpactSweep.extractionStamp(other)), good[2]])?
        .contains("extraction 1 (\(names[1])) was made under another plan") == true)
    #expect(
      problem([good[0], good[1], trace(names[2], stamp: nil)])?.contains("no extraction stamp") == true)
    // A real extraction carries this plan's stamp, through bytes and back.
    let extracted = ImpactSweep.extract(generated[0], grid: grid)
    #expect(extracted.extraction == stamp && extracted.source.name == names[0])
    let back = try? ImpactSweep.SweptTrace(encoded: (try? extracted.encoded()) ?? Data())
    #expect(back?.extraction == stamp)
  }

  @Test("panels of generated driving are named by the injected event at the jolt")
  func panelNames() {
    let event = DriveMix.MixEvent(
      atSeconds: 900, driveIndex: 3, driveSeconds: 340.2, kind: "pothole", expected: .silent)
    let trace = ImpactSweep.SweptTrace(
      source: .init(name: "drive 3", kind: .drive, hours: 0.5), verdicts: [], excerpts: [], events: [event])
    #expect(trace.name(at: 341) == "drive 3, pothole at 340.2 s")
    #expect(trace.name(at: 343) == "drive 3")
  }

  @Test("the signal excerpt is the same whether the phone's batches or the whole trace are replayed")
  func excerptsAreStreamingIndependent() {
    let s = ScenarioCatalogue.all.first { $0.expected == .report }!.generate(seed: 1)
    let batches = s.batches.map { $0.impactBatch(originMilliseconds: s.plan.startEpochMilliseconds) }
    var whole = ImpactBatch(vehicleGate: true)
    for b in batches {
      whole.accelerometer += b.accelerometer
      whole.gyroscope += b.gyroscope
      whole.barometer += b.barometer
      whole.fixes += b.fixes
    }
    let streamed = ImpactEvaluation.verdictsWithSignals(batches, configuration: ImpactConfiguration())
    let once = ImpactEvaluation.verdictsWithSignals([whole], configuration: ImpactConfiguration())
    #expect(!streamed.1.isEmpty)
    #expect(streamed.0 == once.0)
    #expect(streamed.1.map(\.accelerationG.description) == once.1.map(\.accelerationG.description))
  }
}

final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  func add() { lock.withLock { n += 1 } }
  var value: Int { lock.withLock { n } }
}
