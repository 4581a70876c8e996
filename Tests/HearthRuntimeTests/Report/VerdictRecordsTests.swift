import HearthGeo
import HearthTrace
import Testing

@testable import HearthRuntime

@Suite("The vehicle gate's note in a recording's verdict records")
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
}
