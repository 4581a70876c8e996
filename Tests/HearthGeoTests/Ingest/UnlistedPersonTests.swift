import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// A person that `circles_of_person` does not list (or a pipeline with no
/// table at all) is in every circle: the geofence engine always said so, but
/// the sudden stop and the trip segmenter gave such a person no places, so a
/// crash-like stop at home raised an incident (a false alarm) and a journey
/// between two named places was no trip (specrev-geo F4).
@Suite("A person the circles table leaves out is in every circle, for every engine")
struct UnlistedPersonTests {
  typealias W = FenceWorld

  /// The crash of ``ServerPathRegressionTests/crash()``: the car stops 2 415 m east of home.
  static let stopPoint = GreatCircle.destination(
    from: W.home, initialBearingDegrees: 90, distanceMeters: 2_415)
  /// A place of circle 7 around the stop.
  static let garage = Geofence(id: 9, circle: 7, center: stopPoint, radiusMeters: 80)

  @Test(
    "a sudden stop inside a place of circle 7: excluded for a person listed in 7, unlisted, or with no table; raised for one listed in 8 only",
    arguments: [
      ([UserID(1): [CircleID(7)]], false), ([UserID(2): [CircleID(7)]], false), ([:], false),
      ([UserID(1): [CircleID(8)]], true),
    ] as [([UserID: [CircleID]], Bool)])
  func suddenStopAtAPlace(circles: [UserID: [CircleID]], raised: Bool) {
    let pipeline = IngestPipeline(places: [Self.garage], circlesOfPerson: circles)
    var state = IngestState()
    let stop = W.t0 + 130_000
    let uploaded = pipeline.ingest(
      FixColumns(ServerPathRegressionTests.crash()), receivedAtMilliseconds: stop + 1_000, state: &state)
    let later = pipeline.advance(to: stop + 300_000, state: &state)
    #expect((uploaded.suddenStops + later.suddenStops).contains { $0.outcome == .raised } == raised)
    // The geofence engine agrees on who is in the place.
    let arrived = (uploaded.geofenceEvents + later.geofenceEvents).contains { $0.kind == .arrival }
    #expect(arrived == !raised)
  }

  @Test("the trips name a place for a person the table leaves out, and not one of a circle they are not in")
  func tripsNameThePlace() {
    let inside = Coordinate(
      latitudeDegrees: Self.stopPoint.latitudeDegrees, longitudeDegrees: Self.stopPoint.longitudeDegrees)
    let cases: [([UserID: [CircleID]]?, PlaceID?)] = [
      (nil, 9), ([:], 9), ([UserID(2): [7]], 9), ([UserID(1): [7]], 9), ([UserID(1): [8]], nil),
    ]
    for (circles, expected) in cases {
      let segmenter = TripSegmenter(places: [Self.garage], circlesOfPerson: circles)
      #expect(segmenter.namedPlace(inside, UserID(1)) == expected, "circles \(String(describing: circles))")
    }
  }
}
