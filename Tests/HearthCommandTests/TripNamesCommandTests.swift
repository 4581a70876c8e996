import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthCommand

/// SPEC §7 names through the command's two trip outputs: `geo replay`'s
/// trip lines and `geo trips --places` name both ends the same way.
@Suite("hearth geo trips and geo replay name trips alike")
struct TripNamesCommandTests {
  typealias Day = TripNamingDay

  /// The day as a trace folder and the places file, in `folder`.
  static func write(_ folder: TemporaryFolder, cafeMeters: Double) throws {
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.fixes = Day.history()
    try TraceFolder.write(trace, to: folder.path("day"))
    try GeoJSON.write(
      Day.places(cafeMeters: cafeMeters).map {
        GeoJSON.place(
          id: String($0.geofence.id.rawValue), name: $0.name, centre: $0.geofence.center,
          radiusMeters: $0.geofence.radiusMeters, properties: [("circle", .number(7))])
      }, to: folder.path("places.geojson"))
  }

  /// (start place, how, end place, how) of each trip, as printed.
  typealias Names = [String]

  static func replayNames(_ folder: TemporaryFolder) throws -> [Names] {
    let replay = run(["geo", "replay", folder.path("day"), "--places", folder.path("places.geojson")])
    #expect(replay.code == 0, "\(replay.err)")
    return try replay.out.split(separator: "\n").compactMap { line -> Names? in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard object["type"] as? String == "trip", let value = object["value"] as? [String: Any],
        value["isTrip"] as? Bool == true
      else { return nil }
      return ["startPlace", "startNamedBy", "endPlace", "endNamedBy"].map { "\(value[$0] ?? "absent")" }
        + [object["startPlaceName"] as? String ?? "", object["placeName"] as? String ?? ""]
    }
  }

  static func tripsNames(_ folder: TemporaryFolder) throws -> [Names] {
    let trips = run([
      "geo", "trips", folder.path("day"), "--places", folder.path("places.geojson"), "--format", "json",
    ])
    #expect(trips.code == 0, "\(trips.err)")
    return try trips.out.split(separator: "\n").compactMap { line -> Names? in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard object["is_trip"] as? Bool == true else { return nil }
      func field(_ key: String) -> String {
        switch object[key] {
        case let number as NSNumber: "\(number)"
        case let text as String: text
        default: "<null>"
        }
      }
      return [field("start_place"), field("start_named_by"), field("end_place"), field("end_named_by")]
        + [object["start_place_name"] as? String ?? "", object["end_place_name"] as? String ?? ""]
    }
  }

  @Test("the café 850 m from the start: both outputs name it by placeAt, the school and home by the fence")
  func sameNames() throws {
    let folder = TemporaryFolder()
    try Self.write(folder, cafeMeters: 850)
    let replay = try Self.replayNames(folder)
    let trips = try Self.tripsNames(folder)
    #expect(
      replay == [
        ["2", "placeAt", "3", "fence", "Café", "School"], ["3", "fence", "1", "fence", "School", "Home"],
      ],
      "\(replay)")
    #expect(trips == replay, "\(trips)")
  }

  @Test("the café's edge 1 000 m + 1 cm from the start: neither output names the first start")
  func beyondTheCap() throws {
    let folder = TemporaryFolder()
    try Self.write(folder, cafeMeters: 1_000.01 + Day.cafeRadiusMeters)
    let replay = try Self.replayNames(folder)
    #expect(replay.first == ["<null>", "<null>", "3", "fence", "", "School"], "\(replay)")
    #expect(try Self.tripsNames(folder) == replay)
  }

  @Test("geo trips without --places names nothing, with the columns still there")
  func noPlaces() throws {
    let folder = TemporaryFolder()
    try Self.write(folder, cafeMeters: 850)
    let csv = run(["geo", "trips", folder.path("day")])
    #expect(csv.code == 0, "\(csv.err)")
    let lines = csv.out.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines.first?.hasSuffix(
        ",start_place,start_named_by,start_distance_m,start_place_name,end_place,end_named_by,end_place_name")
        == true, "\(lines.first ?? "")")
    #expect(
      lines.dropFirst().filter { $0.contains(",true,") }.allSatisfy { $0.hasSuffix(",,,,,,,") }, "\(csv.out)")
  }
}
