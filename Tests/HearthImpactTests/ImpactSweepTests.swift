import HearthImpact
import Testing

@testable import HearthSim

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
    grid.spinRadiansPerSecond = [3.5, 40]
    grid.pressureHectopascals = [2, 40]
    let rows = ImpactSweep.run(grid: grid, seeds: 1...2, hours: 2)
    #expect(rows.count == 4)
    let defaults = rows.first { $0.spinRadiansPerSecond == 3.5 && $0.pressureHectopascals == 2 }!
    #expect(
      defaults.recall == 1 && defaults.silentScenariosReported == 0 && defaults.precision == 1, "\(defaults)")
    let blind = rows.first { $0.spinRadiansPerSecond == 40 && $0.pressureHectopascals == 40 }!
    #expect(
      blind.recall == 0 && (blind.rejectedBy["spin"] ?? 0) > 0 && (blind.rejectedBy["pressureRise"] ?? 0) > 0)
    // Two hours say little about false alarms: the bound is honest about it.
    #expect(defaults.falseAlarmsUpperBoundPer1000Hours > 1000)
  }
}
