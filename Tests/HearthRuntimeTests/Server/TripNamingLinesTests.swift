import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthRuntime

/// SPEC §7 names on the trip lines `hearth geo replay` and
/// `hearth_ingest_events_json` print: the start from the fence's records
/// (the first departure during the trip), else by placeAt; the end from the
/// last arrival not left again.
@Suite("Trip lines name both ends (SPEC §7)")
struct TripNamingLinesTests {
  typealias Day = TripNamingDay

  static func replay(cafeMeters: Double) -> ServerReplay.Result {
    let places = Day.places(cafeMeters: cafeMeters)
    let history = ReplayHistory(fixes: Day.history())
    var settings = ServerReplay.Settings()
    settings.schedule.untilMilliseconds = history.fixes.timeMilliseconds.max()! + 3_600_000
    var state = IngestState()
    return ServerReplay(places: places.map(\.geofence), people: [UserID(1)], settings: settings).run(
      history, state: &state)
  }

  /// The trip lines of the history replayed against the places, as objects.
  static func tripLines(cafeMeters: Double) throws -> [[String: Any]] {
    let places = Day.places(cafeMeters: cafeMeters)
    let result = replay(cafeMeters: cafeMeters)
    let lines = IngestEventLines(places: places, filter: IngestEventFilter(kinds: [.trip]))
    return try zip(result.outputs, result.tripNames).flatMap { try lines.lines($0, tripNames: $1) }.map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }.filter { ($0["value"] as? [String: Any])?["isTrip"] as? Bool == true }
  }

  @Test("a start 850 m from a café (inside the 1 km cap) is named by placeAt; the end by the fence's arrival")
  func cafeWithinTheCap() throws {
    let trips = try Self.tripLines(cafeMeters: 850)
    try #require(trips.count == 2, "\(trips)")
    let first = try #require(trips[0]["value"] as? [String: Any])
    #expect((first["startPlace"] as? NSNumber)?.uint32Value == 2, "\(first)")
    #expect(first["startNamedBy"] as? String == "placeAt", "\(first)")
    let distance = (first["startPlaceDistanceMeters"] as? NSNumber)?.doubleValue ?? .nan
    #expect(abs(distance - 850) < 0.01, "\(first)")
    #expect(trips[0]["startPlaceName"] as? String == "Café")
    #expect((first["endPlace"] as? NSNumber)?.uint32Value == 3 && first["endNamedBy"] as? String == "fence")
    #expect(trips[0]["placeName"] as? String == "School")
  }

  @Test(
    "a café whose edge is 1 000 m + 1 cm from the start is past the cap: no start name; 1 000 m − 1 cm is named"
  )
  func cafeBeyondTheCap() throws {
    let beyond = try Self.tripLines(cafeMeters: 1_000.01 + Day.cafeRadiusMeters)
    let first = try #require(beyond.first?["value"] as? [String: Any])
    #expect(first["startPlace"] is NSNull && first["startNamedBy"] is NSNull, "\(first)")
    #expect(first["startPlaceDistanceMeters"] is NSNull && beyond[0]["startPlaceName"] == nil, "\(first)")
    #expect((first["endPlace"] as? NSNumber)?.uint32Value == 3, "\(first)")
    let within = try Self.tripLines(cafeMeters: 999.99 + Day.cafeRadiusMeters)
    let named = try #require(within.first?["value"] as? [String: Any])
    #expect(
      (named["startPlace"] as? NSNumber)?.uint32Value == 2 && named["startNamedBy"] as? String == "placeAt")
  }

  @Test(
    "a start the fence saw them leave is named from its departure, decided uploads before the trip closed")
  func departureSeenByTheFence() throws {
    let trips = try Self.tripLines(cafeMeters: 850)
    try #require(trips.count == 2, "\(trips)")
    let second = try #require(trips[1]["value"] as? [String: Any])
    #expect((second["startPlace"] as? NSNumber)?.uint32Value == 3, "\(second)")
    #expect(second["startNamedBy"] as? String == "fence", "\(second)")
    #expect(second["startPlaceDistanceMeters"] is NSNull, "\(second)")
    #expect(trips[1]["startPlaceName"] as? String == "School")
    #expect((second["endPlace"] as? NSNumber)?.uint32Value == 1 && second["endNamedBy"] as? String == "fence")
    #expect(trips[1]["placeName"] as? String == "Home")
  }

  @Test("the replay's GeoJSON trips carry the same names as its lines")
  func geoJSONTrips() throws {
    let result = Self.replay(cafeMeters: 850)
    let features = result.features(places: Day.places(cafeMeters: 850), fixes: Day.history())
    let trips = features.compactMap { feature -> String? in
      let properties = Dictionary(feature.properties, uniquingKeysWith: { first, _ in first })
      guard properties["kind"] == .string("trip") else { return nil }
      return ["startPlace", "startNamedBy", "endPlace", "endNamedBy"].map { properties[$0]?.text ?? "absent" }
        .joined(separator: " ")
    }
    #expect(trips == [#"2 "placeAt" 3 "fence""#, #"3 "fence" 1 "fence""#], "\(trips)")
  }
}
