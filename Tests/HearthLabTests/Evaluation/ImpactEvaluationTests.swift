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
    let root = TestPaths.sharedDatasets.path
    // (The MEMS-Nav drives carry fixes only; comma2k19's car IMU is the real motion we have.)
    let drive = try TraceFolder.readComma2k19Segment(
      root + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40"
    ).0
    let batch = try #require(drive.impactBatch())
    #expect(batch.accelerometer.count > 5_000)
    let verdicts = ImpactDetector.replay(batch)
    #expect(!verdicts.contains { $0.outcome == .possibleImpact }, "\(verdicts.map(\.explanation))")
    let drops = root + "/phone-drop-freefall/raw_data"
    let names = try FileManager.default.contentsOfDirectory(atPath: drops).sorted()
    #expect(names.count >= 10)
    for name in names {
      let s = ScenarioCatalogue.realPhoneDrop(try RealPhoneDrop.load(phyphoxFolder: drops + "/" + name)).generate(
        seed: 1)
      let v = ImpactEvaluation.verdicts(s)
      #expect(ImpactEvaluation.matches(s.label, v), "\(name): \(v.map(\.explanation))")
      // The drop's fall is seen: the veto holds (the car also carried on).
      #expect(v.first?.conditions.contains { $0.name == .freeFallVeto && $0.held } == true, "\(name)")
    }
  }
}
