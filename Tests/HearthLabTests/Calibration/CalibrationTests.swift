import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthLab
@testable import HearthSim

/// The generators against the real recordings (the table in
/// docs/guides/simulator-calibration.md comes from the same comparison).
@Suite("Calibration against real recordings")
struct CalibrationTests {
  @Test("vibration, speeds, fix intervals and network accuracy sit near the real ones")
  func calibration() throws {
    let rows = try Calibration.compare(SharedDatasets(root: TestPaths.sharedDatasets.path))
    func row(_ prefix: String) -> Calibration.Row { rows.first { $0.statistic.hasPrefix(prefix) }! }
    let highway = row("vertical vibration, 1-s RMS, highway")
    #expect(abs(highway.synthetic[1] / highway.real[1] - 1) < 0.2, "\(highway)")
    #expect(highway.synthetic[2] > 1.3 * highway.synthetic[0])  // spread, not a constant level
    let speed = row("speed while moving")
    #expect(abs(speed.synthetic[1] / speed.real[1] - 1) < 0.25, "\(speed)")
    #expect(row("GPS fix interval").synthetic[1] == row("GPS fix interval").real[1])
    let network = row("network fix accuracy")
    #expect(
      network.synthetic[0] < 3 * network.real[0] && network.synthetic[2] > network.real[2] / 3, "\(network)")
    // Rough roads and cobbles keep their impact-physics levels.
    #expect(abs(row("vertical vibration, 1-s RMS, cobbles").synthetic[1] / 2.0 - 0.85) < 0.15)
  }

  @Test("the vibration statistic reads a known sine back")
  func vibrationStatistic() {
    var stream = VectorStream()
    for i in 0..<1000 {
      let t = Double(i) / 100
      // 1 m/s² amplitude at 5 Hz on top of gravity along y: RMS 1/√2.
      stream.append(seconds: t, x: 0, y: 9.81 + SimMath.sin(2 * SimMath.pi * 5 * t + 0.3), z: 0)
    }
    let levels = Calibration.verticalVibrationRMS(stream)
    #expect(levels.count == 10)
    // 20 ms bins average pairs of 100 Hz samples: cos(π·5·0.01) of the amplitude survives.
    let expected = SimMath.cos(SimMath.pi * 5 * 0.01) / 2.0.squareRoot()
    #expect(levels.allSatisfy { abs($0 - expected) < 0.01 }, "\(levels)")
  }
}
