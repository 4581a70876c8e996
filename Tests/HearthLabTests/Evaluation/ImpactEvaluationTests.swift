import Foundation
import HearthImpact
import HearthLab
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@Suite("Impact detector on generated driving and real recordings")
struct ImpactEvaluationTests {
  @Test("20 h of generated driving with road and cabin events: no false alarm")
  func mix() {
    let score = ImpactEvaluation.mix(hours: 20, seed: 3)
    #expect(score.hours > 19 && score.injectedEvents > 50)
    #expect(score.falseAlarms == 0, "\(score.explanations)")
  }

  @Test("the real comma2k19 drive and every real phone drop injected into a drive stay silent")
  func real() throws {
    let score = try ImpactEvaluation.real(SharedDatasets(root: TestPaths.sharedDatasets.path))
    // (The MEMS-Nav drives carry fixes only; comma2k19's car IMU is the real motion we have.)
    #expect(score.driveAccelerometerSamples > 5_000)
    #expect(
      !score.driveVerdicts.contains { $0.outcome == .possibleImpact }, "\(score.driveVerdicts.map(\.explanation))")
    #expect(score.drops.count >= 10)
    for drop in score.drops {
      #expect(drop.silent, "\(drop.name): \(drop.verdicts.map(\.explanation))")
      // The drop's fall is seen: the veto holds (the car also carried on).
      #expect(drop.verdicts.first?.conditions.contains { $0.name == .freeFallVeto && $0.held } == true, "\(drop.name)")
    }
  }

}
