import HearthGeo
import Testing

import HearthSim
@testable import HearthLab

@Suite("Trips on generated days")
struct TripEvaluationTests {
  @Test("trips found match the labelled trips; ends land near the true ones")
  func generatedDays() {
    let m = TripEvaluation.evaluate(seeds: 1...40)
    #expect(m.labelled > 150)
    #expect(m.precision >= 0.97 && m.recall >= 0.93, "\(m.precision) \(m.recall)")
    let ends = Calibration.quantiles(m.endMeters, [0.5, 0.9])
    let starts = Calibration.quantiles(m.startSeconds.map(abs), [0.5, 0.9])
    #expect(ends[0] < 60 && ends[1] < 150, "\(ends)")
    #expect(starts[0] < 30 && starts[1] < 90, "\(starts)")
  }
}
