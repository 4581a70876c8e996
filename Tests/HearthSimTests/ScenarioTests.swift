import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthSim

@Suite("Scenario catalogue")
struct ScenarioTests {
  let t = ScenarioCatalogue.joltSeconds

  @Test("ids are unique and every expected verdict and gate is stated")
  func catalogue() {
    let ids = ScenarioCatalogue.all.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ScenarioCatalogue.all.count == 30)
    #expect(ScenarioCatalogue.all.allSatisfy { !$0.decidingGate.isEmpty && !$0.summary.isEmpty })
    #expect(ScenarioCatalogue.scenario("C1")?.expected == .report)
  }

  @Test("the same seed gives byte-identical batches; another seed does not")
  func determinism() {
    for id in ["C1", "N10", "C4"] {
      let scenario = ScenarioCatalogue.scenario(id)!
      let a = scenario.generate(seed: 7)
      let b = scenario.generate(seed: 7)
      let c = scenario.generate(seed: 8)
      #expect(a.batches == b.batches, "\(id)")
      #expect(a.trace == b.trace && a.label == b.label)
      #expect(a.trace.accelerometer!.samples.x != c.trace.accelerometer!.samples.x)
    }
  }

  @Test("every labelled crash really has its pulse: a jolt of at least 4 g near the jolt time (20 seeds)")
  func crashPulses() {
    for scenario in ScenarioCatalogue.all where scenario.expected != .silent {
      for seed in UInt64(1)...20 {
        let s = scenario.generate(seed: seed)
        #expect(!s.label.crashPulses.isEmpty, "\(scenario.id)")
        let probe = TraceProbe(trace: s.trace)
        for jolt in s.label.joltSeconds {
          let peak = probe.peakDynamic(jolt - 0.3, jolt + 0.3)
          #expect(peak >= 4 * probe.g, "\(scenario.id) seed \(seed): jolt \(peak / probe.g) g at \(jolt)")
        }
      }
    }
  }

  @Test("corroboration is where the labels say: spin, pressure, and the near-threshold pairs")
  func corroboration() {
    func probe(_ id: String, _ seed: UInt64 = 3) -> TraceProbe {
      TraceProbe(trace: ScenarioCatalogue.scenario(id)!.generate(seed: seed).trace)
    }
    #expect(probe("C1").pressureRise(at: t) >= 2.3)
    #expect(probe("C3").peakSpin(t - 0.2, t + 1) >= 3.5)
    #expect(probe("C4").peakSpin(t - 0.2, t + 1) >= 3.5)
    #expect(probe("C5").pressureRise(at: t) >= 2.3)
    let c10 = probe("C10").pressureRise(at: t)
    let c11 = probe("C11").pressureRise(at: t)
    #expect(c10 > 1.6 && c10 < 2.0, "C10 \(c10)")
    #expect(c11 > 2.0 && c11 < 2.5, "C11 \(c11)")
    #expect(probe("C14").peakDynamic(t - 0.3, t + 0.3) < 4 * 9.806_65)
    #expect(probe("C15").peakDynamic(t - 0.3, t + 0.3) > 4 * 9.806_65)
    // C13: the spin and the pressure rise are 8 s early, not in the window.
    let c13 = probe("C13")
    #expect(c13.peakSpin(t - 0.2, t + 1) < 2 && c13.peakSpin(t - 9, t - 7) > 3)
    #expect(c13.pressureRise(at: t) < 1)
  }

  @Test("negatives: road, manoeuvres and stops stay far below a crash")
  func negatives() {
    for id in ["N1", "N2", "N5", "N11", "N12", "N13", "N14"] {
      let probe = TraceProbe(trace: ScenarioCatalogue.scenario(id)!.generate(seed: 4).trace)
      #expect(probe.peakDynamic(0, 2000) < 3 * probe.g, "\(id) \(probe.peakDynamic(0, 2000) / probe.g) g")
    }
    // N9 and N10: the phone falls (|a| near 0) before its impact.
    for id in ["N9", "N10"] {
      let trace = ScenarioCatalogue.scenario(id)!.generate(seed: 4).trace
      let a = trace.accelerometer!.samples
      var fallSamples = 0
      for i in 0..<a.count where a.seconds[i] > t - 0.5 && a.seconds[i] < t {
        let squared: Double = a.x[i] * a.x[i] + a.y[i] * a.y[i] + a.z[i] * a.z[i]
        if squared.squareRoot() < 0.3 * 9.806_65 { fallSamples += 1 }
      }
      #expect(fallSamples >= 6, "\(id): \(fallSamples) free-fall samples")
    }
  }

  @Test("moving before and stopped after follow the labels (GPS)")
  func motion() {
    let c1 = TraceProbe(trace: ScenarioCatalogue.scenario("C1")!.generate(seed: 5).trace)
    #expect(c1.speeds(t - 10, t - 2).allSatisfy { $0 > 12 })
    #expect(c1.speeds(t + 2, t + 20).allSatisfy { $0 < 1 })
    let c9 = TraceProbe(trace: ScenarioCatalogue.scenario("C9")!.generate(seed: 5).trace)
    #expect(c9.speeds(t + 3, t + 20).allSatisfy { $0 > 8 })
    let late = TraceProbe(trace: ScenarioCatalogue.scenario("C4b")!.generate(seed: 5).trace)
    #expect(late.speeds(t + 4.5, t + 5.5).allSatisfy { $0 > 1.5 })
    let c7 = ScenarioCatalogue.scenario("C7")!.generate(seed: 5)
    #expect(c7.trace.fixes.isEmpty)
    #expect(!ScenarioCatalogue.scenario("W1")!.generate(seed: 5).batches.contains { $0.vehicleGate })
  }

  @Test("batches arrive every 250 ± 30 ms with 50/10/5/1 Hz streams")
  func delivery() {
    let s = ScenarioCatalogue.scenario("C1")!.generate(seed: 9)
    let gaps = zip(s.batches, s.batches.dropFirst()).map { $1.deliveredAtSeconds - $0.deliveredAtSeconds }
    #expect(gaps.allSatisfy { $0 > 0.21 && $0 < 0.29 })
    #expect(abs(s.trace.accelerometer!.samples.meanRateHz - 50) < 0.1)
    #expect(abs(s.trace.gyroscope!.meanRateHz - 10) < 0.05)
    #expect(abs(s.trace.barometer!.count - 400) <= 1)
    #expect(abs(s.trace.fixes.count - 80) <= 1)
    // Every sample is delivered after it was taken.
    for batch in s.batches {
      #expect(batch.accelerometer.seconds.allSatisfy { $0 <= batch.deliveredAtSeconds + 0.001 })
    }
  }
}

@Suite("Simulator documentation")
struct SimulatorDocTests {
  @Test("the guide lists every scenario with its expected verdict and deciding criterion")
  func guide() throws {
    let text = try String(
      contentsOf: TestPaths.repositoryRoot.appendingPathComponent("docs/guides/simulator.md"), encoding: .utf8
    )
    let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") }
    for scenario in ScenarioCatalogue.all {
      let row = rows.first { $0.hasPrefix("| \(scenario.id) |") }
      #expect(
        row?.contains("| \(scenario.expected.rawValue) | \(scenario.decidingGate) |") == true,
        "\(scenario.id)")
    }
  }
}
