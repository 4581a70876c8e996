import Foundation
import HearthGeo
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthLab

@Suite("Geofences on generated days and a real drive")
struct GeofenceEvaluationTests {
  @Test("generated days: announced arrivals and departures match true visits")
  func simulatedDays() {
    // Over 1 000 days (hearth sim evaluate geofences): 93 % / 98 % for both;
    // most false announcements follow an over-confident outlier heartbeat
    // (docs/guides/geofences.md). Forty days hold the same floor.
    let m = GeofenceEvaluation.evaluate(seeds: 1...40)
    #expect(m.visits > 150)
    #expect(m.arrivalPrecision >= 0.9, "\(m)")
    #expect(m.arrivalRecall >= 0.95, "\(m)")
    #expect(m.departurePrecision >= 0.9, "\(m)")
    #expect(m.departureRecall >= 0.95, "\(m)")
    #expect(m.falseAfterOutlier > 0)
    let sorted = m.departureLatencySeconds.sorted()
    #expect(sorted[sorted.count / 2] < 120, "median departure latency \(sorted[sorted.count / 2]) s")
  }

  /// The mems-nav raw drive: places at its start and at the car park where it stops.
  static func realDrive() throws -> (fixes: FixColumns, network: FixColumns, places: [Geofence]) {
    let folder = TestPaths.sharedDatasets.appendingPathComponent("mems-nav-drives/raw/2023-08-04_214758").path
    let (trace, _) = try SensorLoggerReader.read(folder: folder)
    let start = trace.fixes[0].coordinate
    let carPark = Coordinate(latitudeDegrees: 41.159_45, longitudeDegrees: -75.337_05)
    let places = [
      Geofence(id: 1, center: start, radiusMeters: 100),
      Geofence(id: 2, center: carPark, radiusMeters: 100),
    ]
    return (trace.fixes, trace.providerFixes["network"] ?? FixColumns(), places)
  }

  @Test(
    "a real drive with its network fixes: one departure, one arrival, and the network fixes change nothing")
  func realDrive() throws {
    let (fixes, network, places) = try Self.realDrive()
    #expect(
      network.count == 758, "758 rows; 29 repeat the fix before them 20–80 s later, each a fix of its own")
    let engine = GeofenceEngine(places: places)
    func replay(_ batch: FixColumns) -> [GeofenceEvent] {
      var state = GeofenceState()
      // Uploaded a minute at a time, as the phone would.
      var events: [GeofenceEvent] = []
      let order = batch.timeMilliseconds.indices.sorted {
        batch.timeMilliseconds[$0] < batch.timeMilliseconds[$1]
      }
      var chunk: [Int] = []
      for i in order {
        if let first = chunk.first, batch.timeMilliseconds[i] - batch.timeMilliseconds[first] >= 60_000 {
          events += engine.process(
            batch.selecting(chunk), receivedAtMilliseconds: batch.timeMilliseconds[chunk.last!], state: &state
          )
          chunk = []
        }
        chunk.append(i)
      }
      events += engine.process(
        batch.selecting(chunk), receivedAtMilliseconds: batch.timeMilliseconds[chunk.last!], state: &state)
      return events + engine.advance(to: batch.timeMilliseconds.max()! + 3_600_000, state: &state)
    }
    var merged = fixes
    merged.append(contentsOf: network)
    let without = replay(fixes).filter { $0.outcome != .pending }
    let with = replay(merged).filter { $0.outcome != .pending }
    let summary = with.map { "\($0.kind.rawValue) \($0.outcome.rawValue) \($0.place)" }
    #expect(summary == ["arrival announced 1", "departure announced 1", "arrival announced 2"], "\(with)")
    let confirmed = { (events: [GeofenceEvent]) in
      events.filter { $0.outcome == .announced }.map {
        "\($0.kind) \($0.place) \($0.eventMilliseconds / 60_000)"
      }
    }
    #expect(confirmed(with) == confirmed(without))
    // Network fixes a kilometre or more out never took anyone out of the car park.
    let far = (0..<network.count).filter { network.horizontalAccuracyMeters[$0] > 100 }
    #expect(far.count > 50)
  }
}
