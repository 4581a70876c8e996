import Foundation
import HearthGeo
import HearthImpact
import HearthTrace
import Testing

@testable import HearthRuntime

@Suite("A recording's verdict records: the vehicle gate's note, what was judged and from what")
struct VerdictRecordsTests {
  static func gate(_ readings: [(Double, Activity)]) -> VehicleGateTimeline {
    VehicleGateTimeline(
      policy: .recording, activities: readings.map { ActivitySample(seconds: $0.0, activity: $0.1) })
  }

  @Test("no note while the gate is on from the first sample; off spans named otherwise")
  func gateNote() {
    // In a vehicle from the first sample (or before it): on throughout, no note.
    #expect(VerdictRecords.gateNote(Self.gate([(0, .automotive)]), firstSampleSeconds: 0) == nil)
    #expect(VerdictRecords.gateNote(Self.gate([(-2, .automotive)]), firstSampleSeconds: 0) == nil)
    // The first in-vehicle reading 0.1 s after the first sample: off until then.
    let late = VerdictRecords.gateNote(Self.gate([(0, .unknown), (5.1, .automotive)]), firstSampleSeconds: 5)
    #expect(late?.hasPrefix("vehicle gate off until 5.1 s (recording:") == true, "\(late ?? "nil")")
    // Never in a vehicle: off throughout.
    let never = VerdictRecords.gateNote(Self.gate([(0, .walking)]), firstSampleSeconds: 0)
    #expect(never?.hasPrefix("vehicle gate off throughout") == true, "\(never ?? "nil")")
    // On, then still at 30 s: off from 30 s.
    let stop = VerdictRecords.gateNote(Self.gate([(0, .automotive), (30, .still)]), firstSampleSeconds: 0)
    #expect(stop?.hasPrefix("vehicle gate off from 30.0 s") == true, "\(stop ?? "nil")")
    // No activity stream: on, no note.
    #expect(VerdictRecords.gateNote(Self.gate([]), firstSampleSeconds: 0) == nil)
  }

  /// Found by a review: the text said "not judged" of a suppressed jolt,
  /// while the CSV and JSON records still said "vibration".
  @Test("a suppressed jolt: not judged in the text, no moving_from in the CSV or the JSON record")
  func suppressedIsNotJudged() throws {
    let c = ImpactConfiguration()
    let jolt = ImpactCondition(
      .jolt, held: true, measured: 6 * ImpactConfiguration.standardGravity,
      threshold: c.joltMetersPerSecondSquared)
    let suppressed = ImpactVerdict(
      outcome: .suppressed, joltSeconds: 40, decidedSeconds: 40.5, usedGPS: false, conditions: [jolt])
    let judged = ImpactVerdict(
      outcome: .silent, joltSeconds: 140, decidedSeconds: 146, usedGPS: false, conditions: [jolt])
    let r = VerdictRecords(file: "f", verdicts: [suppressed, judged], configuration: c, hours: 0.1, peakG: 6)
    #expect(r.records.map(\.movingFrom) == [nil, "vibration"])
    #expect(r.csv.map { $0.split(separator: ",", omittingEmptySubsequences: false)[4] } == ["", "vibration"])
    #expect(r.text[0].contains("not judged") && r.text[1].contains("moving and stopped from vibration"))
    let json = try r.jsonLines()
    #expect(!json[0].contains("movingFrom") && json[1].contains("\"movingFrom\":\"vibration\""))
  }

  /// Found by a review: GPS read "moving" and left the stop to the
  /// vibration, and the line said "moving and stopped from GPS".
  @Test("the text line names each source: moving from GPS, stopped from vibration")
  func sourcesNamedApart() {
    let g = ImpactConfiguration.standardGravity
    var b = ImpactBatch(vehicleGate: true)
    // 60 s at 50 Hz: road vibration until the 6 g jolt at 30 s, a stopped car's after.
    for k in 0..<3_000 {
      let t = Double(k) / 50
      let amplitude = t < 31 ? 0.6 : 0.05
      b.accelerometer.append(Sample3(t, k == 1_500 ? 6 * g : 0, 0, g + amplitude * sin(2 * .pi * 12 * t)))
    }
    for k in 0..<600 {
      let t = Double(k) / 10
      b.gyroscope.append(Sample3(t, t >= 30.2 && t <= 30.4 ? 5 : 0.01, 0, 0))
    }
    // Fixes at 14 m/s until the jolt, none after it: GPS reads "moving", the vibration the stop.
    for t in 0..<30 { b.fixes.append(Sample1(Double(t), 14)) }
    let v = ImpactDetector.replay(b, configuration: ImpactConfiguration())
    let r = VerdictRecords(
      file: "f", verdicts: v, configuration: ImpactConfiguration(), hours: 0.02, peakG: 6)
    #expect(v.map(\.outcome) == [.possibleImpact], "\(r.text)")
    #expect(r.text.first?.contains("moving from GPS, stopped from vibration") == true, "\(r.text)")
  }
}
