import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace
import Testing
import _HearthTestSupport

/// One ingest session for every door: the description's places obey the
/// places file's rules, and the trip names' memory lives with the state.
@Suite("IngestSession and IngestDescription")
struct IngestSessionTests {
  static func place(id: UInt32 = 1, radius: Double = 100, latitude: Double = 52.52) -> String {
    #"{"id": \#(id), "circle": 7, "name": "Home", "latitude_deg": \#(latitude), "longitude_deg": 13.405, "radius_m": \#(radius)}"#
  }

  static func refusal(_ text: String) -> String? {
    do {
      _ = try IngestDescription.decode(text)
      return nil
    } catch { return "\(error)" }
  }

  @Test("an inline place obeys the places file's cap: 100 km is a place, 100.000001 km is refused, named")
  func cap() throws {
    let kept = try IngestDescription.decode(#"{"places": [\#(Self.place(radius: 100_000))]}"#)
    #expect(kept.places.map(\.geofence.radiusMeters) == [Geofence.maximumRadiusMeters])
    let refused = try #require(Self.refusal(#"{"places": [\#(Self.place(radius: 100_000.001))]}"#))
    #expect(refused.contains("places[0]") && refused.contains("beyond the 100000 m"))
    for radius in ["0", "-1"] {
      #expect(
        Self.refusal(#"{"places": [\#(Self.place(radius: Double(radius)!))]}"#)?.contains("places[0]") == true
      )
    }
    #expect(Self.refusal(#"{"places": [\#(Self.place(latitude: 90.5))]}"#)?.contains("WGS84") == true)
    #expect(Self.refusal(#"{"places": [\#(Self.place(latitude: 90))]}"#) == nil)
  }

  @Test("an id is given once: inline, in the file, or across the two")
  func ids() throws {
    let twice = try #require(Self.refusal(#"{"places": [\#(Self.place()), \#(Self.place(latitude: 52.6))]}"#))
    #expect(twice.contains("places[1]") && twice.contains("id 1 is used twice"))
    let folder = TemporaryFolder()
    folder.write(
      "p.geojson",
      #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": 1, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}, "properties": {"radiusMeters": 50}}]}"#
    )
    let file = #""places_file": "\#(folder.path("p.geojson"))""#
    #expect(try IngestDescription.decode("{\(file)}").places.count == 1)
    #expect(try IngestDescription.decode(#"{\#(file), "places": [\#(Self.place(id: 2))]}"#).places.count == 2)
    let across = try #require(Self.refusal(#"{\#(file), "places": [\#(Self.place())]}"#))
    #expect(across.contains("id 1 is used twice"))
  }

  @Test("saved and restored mid-history (the memory with the state), a session names the same trips")
  func savedMemory() throws {
    let (places, history) = IngestEventLinesTests.day()
    let replay = ServerReplay(places: places.map(\.geofence), people: Set(history.fixes.user))
    let uploads = ServerUploads.cut(
      history.fixes, receivedAtMilliseconds: history.receivedAtMilliseconds, policy: replay.settings.schedule.uploads)
    var whole = IngestSession(pipeline: replay.pipeline, places: places)
    var resumed = IngestSession(pipeline: replay.pipeline, places: places)
    var forgetful = IngestSession(pipeline: replay.pipeline, places: places)
    var linesWhole: [String] = []
    var linesResumed: [String] = []
    for (k, upload) in uploads.enumerated() {
      if k == uploads.count / 2 {
        let bytes = try resumed.saved()
        resumed = IngestSession(pipeline: replay.pipeline, places: places)
        try resumed.restore(bytes)
        // The state alone (what ABI 1.0–1.1 saved) restores with nothing remembered.
        var object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        object["tripNames"] = nil
        let stateOnly = try JSONSerialization.data(withJSONObject: object)
        forgetful = IngestSession(pipeline: replay.pipeline, places: places)
        try forgetful.restore(stateOnly)
        #expect(forgetful.state == resumed.state && forgetful.names == TripNaming.Memory())
      }
      whole.ingest(upload.fixes, receivedAtMilliseconds: upload.receivedAtMilliseconds)
      resumed.ingest(upload.fixes, receivedAtMilliseconds: upload.receivedAtMilliseconds)
      linesWhole += try whole.lines()
      linesResumed += try resumed.lines()
    }
    #expect(linesResumed == linesWhole)
    #expect(linesWhole.contains { $0.contains(#""startNamedBy":"fence""#) })
    // Bad bytes change nothing.
    let before = resumed.state
    #expect(throws: TraceError.self) { try resumed.restore(Data("not a state".utf8)) }
    #expect(resumed.state == before)
  }

  @Test("`geo replay`'s schedule over a session == the session driven upload by upload")
  func replayIsSessions() throws {
    let (places, history) = IngestEventLinesTests.day()
    var settings = ServerReplay.Settings()
    settings.schedule.tickMilliseconds = 10 * 60_000
    let replay = ServerReplay(
      places: places.map(\.geofence), people: Set(history.fixes.user), settings: settings)
    var session = IngestSession(pipeline: replay.pipeline, places: places)
    let result = replay.run(history, session: &session)
    var state = IngestState()
    let byState = replay.run(history, state: &state)
    #expect(state == session.state)
    let lines = IngestEventLines(places: places)
    func printed(_ r: ServerReplay.Result) throws -> [String] {
      try zip(r.outputs, r.tripNames).flatMap { try lines.lines($0, tripNames: $1) }
    }
    #expect(try printed(result) == (try printed(byState)))
    #expect(result.outputs.count > result.uploadCount)  // the timer ticked between uploads
  }
}
