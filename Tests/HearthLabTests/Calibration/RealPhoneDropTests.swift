import Foundation
import HearthLab
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@Suite("Real phone drops")
struct RealPhoneDropTests {
  @Test("a real phyphox drop, resampled to 50 Hz, keeps its free fall and its impact")
  func realDrop() throws {
    let folder = TestPaths.sharedDatasets.appendingPathComponent("phone-drop-freefall/raw_data/fall_1").path
    let motion = try RealPhoneDrop.load(phyphoxFolder: folder)
    #expect(motion.count == 101)
    #expect(motion.peakG > 8, "\(motion.peakG) g")
    let g = 9.806_65
    let magnitudes = (0..<motion.count).map { (i: Int) -> Double in
      let squared: Double = motion.x[i] * motion.x[i] + motion.y[i] * motion.y[i] + motion.z[i] * motion.z[i]
      return squared.squareRoot()
    }
    let fallSamples = magnitudes[..<motion.impactIndex].filter { $0 < 0.3 * g }.count
    #expect(fallSamples >= 10)
    // Injected into a drive, the recording is what the phone reads at the jolt.
    let scenario = ScenarioCatalogue.realPhoneDrop(motion).generate(seed: 2)
    let a = scenario.trace.accelerometer!.samples
    let k = a.seconds.firstIndex { abs($0 - ScenarioCatalogue.joltSeconds) < 0.005 }!
    #expect(abs(a.x[k] - motion.x[motion.impactIndex]) < 0.2)
    let probe = TraceProbe(trace: scenario.trace)
    #expect(probe.peakDynamic(39.8, 40.2) > 4 * g)
    #expect(probe.speeds(41, 60).allSatisfy { $0 > 12 })
    // Not a drop: a phone lying still (no free fall) is refused with a reason.
    let still = TemporaryFolder()
    var rows =
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n"
    for i in 0..<400 { rows += "\(Double(i) * 0.005),0.01,0.02,\(9.8 + (i == 200 ? 3 : 0))\n" }
    _ = still.write("Raw Data.csv", rows)
    #expect(throws: TraceError.self) { try RealPhoneDrop.load(phyphoxFolder: still.path) }
  }
}
