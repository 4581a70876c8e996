import Foundation
import Testing

@testable import HearthImpact

/// `ImpactConfiguration.problems` is the one rule doors check before they
/// build a detector (issue 29.2); this checks the other side: every
/// configuration it lets through runs, at the edges of every domain.
@Suite("Impact configuration: whatever passes problems runs the detector to the end")
struct ConfigurationEdgeTests {
  /// A value of `domain`: an end (just inside an open one), far inside an unbounded side, or the middle.
  static func edge(_ domain: ImpactConfiguration.Domain, _ r: inout SplitMix64) -> Double {
    let lower = domain.lower.isFinite ? (domain.lowerOpen ? domain.lower.nextUp : domain.lower) : -1e300
    let upper = domain.upper.isFinite ? (domain.upperOpen ? domain.upper.nextDown : domain.upper) : 1e300
    return [lower, upper, lower + (upper - lower) / 2, r.uniform(max(lower, -1e3), min(upper, 1e3))][
      r.pick(4)]
  }

  @Test(
    "random configurations with 1 to 6 settings at their domains' edges: each valid one runs a crash scene without a trap"
  )
  func everyValidConfigurationRuns() throws {
    let cases = DetectorPropertyTests.cases(300)
    let seed = DetectorPropertyTests.seed
    var r = SplitMix64(seed: seed)
    let base =
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(ImpactConfiguration())) as? [String: Any]
    let domains = ImpactConfiguration().domains
    var ran = 0
    for k in 0..<cases {
      var json = try #require(base)
      var changed: [String] = []
      for _ in 0..<(1 + r.pick(6)) {
        let (name, _, domain) = domains[r.pick(domains.count)]
        let value = Self.edge(domain, &r)
        json[name] = value
        changed.append("\(name) = \(value)")
      }
      let data = try JSONSerialization.data(withJSONObject: json)
      guard let c = try? JSONDecoder().decode(ImpactConfiguration.self, from: data) else { continue }
      #expect(c.problems.isEmpty)
      ran += 1
      var scene = Scene(duration: 40)
      scene.jolts = [Scene.Jolt(seconds: 20, metersPerSecondSquared: 8 * Scene.g)]
      scene.spins = [Scene.Spin(seconds: 20.2, radiansPerSecond: 6)]
      scene.speed = [Scene.Step(seconds: 0, value: 14), Scene.Step(seconds: 20.5, value: 0)]
      // A trap here ends the run; HEARTH_PROPERTY_SEED=\(seed) repeats it (case k).
      _ = (k, changed, scene.verdicts(c))
    }
    #expect(ran >= cases / 5, "only \(ran) of \(cases) random configurations were valid")
  }
}
