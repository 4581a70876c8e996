import HearthImpact
import HearthSim
import Testing

@Suite("Every HearthSim scenario gives its expected verdict")
struct ScenarioVerdictTests {
  /// Feeds the scenario's batches as the phone delivers them.
  static func verdicts(_ s: SimulatedScenario) -> [ImpactVerdict] {
    var detector = ImpactDetector()
    var out: [ImpactVerdict] = []
    for batch in s.batches { out += detector.process(batch.impactBatch(originMilliseconds: s.plan.startEpochMilliseconds)) }
    return out + detector.finish()
  }

  static func matches(_ s: SimulatedScenario, _ verdicts: [ImpactVerdict]) -> Bool {
    let reports = verdicts.filter { $0.outcome == .possibleImpact }
    switch s.label.expected {
    case .silent: return reports.isEmpty
    case .report, .reportOnce:
      guard reports.count == 1, let jolt = s.label.joltSeconds.first else { return false }
      let r = reports[0]
      return abs(r.joltSeconds - jolt) < 1 && r.decidedSeconds - r.joltSeconds <= 10.5
    }
  }

  @Test("seed 1 of every scenario", arguments: ScenarioCatalogue.all.map(\.id))
  func seedOne(_ id: String) {
    let s = ScenarioCatalogue.scenario(id)!.generate(seed: 1)
    let v = Self.verdicts(s)
    let ok = Self.matches(s, v)
    #expect(ok, "\(id) expected \(s.label.expected) at \(s.label.joltSeconds): \(v.map(\.explanation))")
  }
}
