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

  @Test("a number beyond a Double's range is named by its path and text, not called invalid JSON")
  func numberOutOfRange() throws {
    let cases: [(text: String, said: String)] = [
      (
        #"{"places": [\#(Self.place()), {"id": 2, "circle": 7, "latitude_deg": 1e400, "longitude_deg": 13.4, "radius_m": 100}]}"#,
        "places[1].latitude_deg: the number 1e400 is out of range"
      ),
      (#"{"speed_limits_kmh": {"7": -1.5e309}}"#, "speed_limits_kmh.7: the number -1.5e309 is out of range"),
      (
        #"{"circles_of_person": {"42": [1, 2E999]}}"#,
        "circles_of_person.42[1]: the number 2E999 is out of range"
      ),
      (#"{"places": [{"id": 1e400}]}"#, "places[0].id: the number 1e400 is out of range"),
    ]
    for (text, said) in cases {
      let refused = try #require(Self.refusal(text), "\(text)")
      #expect(refused.contains(said), "\(refused)")
      #expect(!refused.contains("not valid JSON"), "\(refused)")
    }
    // The largest Double is a number: its place is refused by the place rules instead.
    let largest = try #require(Self.refusal(#"{"places": [\#(Self.place(latitude: 1.7e308))]}"#))
    #expect(largest.contains("places[0]") && largest.contains("WGS84"), "\(largest)")
    // Text that is not JSON at all is still said to be so, at its byte.
    #expect(
      Self.refusal(#"{"places": [}"#)?.contains("at byte 12: not JSON: unexpected character '}'") == true)
  }

  /// A session with the one place after one fix there, and its saved text.
  static func sessionAfterOneFix() throws -> (IngestSession, String) {
    var session = IngestSession(try IngestDescription.decode(#"{"places": [\#(Self.place())]}"#))
    session.ingest(
      FixColumns([
        Fix(
          timeMilliseconds: 1_700_000_000_000, latitudeDegrees: 52.52, longitudeDegrees: 13.405,
          horizontalAccuracyMeters: 5)
      ]), receivedAtMilliseconds: 1_700_000_001_000)
    return (session, String(decoding: try session.saved(), as: UTF8.self))
  }

  @Test("a saved state with a number beyond a Double's range names its path; the state is unchanged")
  func savedNumberOutOfRange() throws {
    var (session, saved) = try Self.sessionAfterOneFix()
    let edited = saved.replacingOccurrences(
      of: #""horizontalAccuracyMeters":5"#, with: #""horizontalAccuracyMeters":1e400"#)
    #expect(edited != saved)
    let before = session.state
    #expect {
      try session.restore(Data(edited.utf8))
    } throws: {
      "\($0)".contains("people[1].presence.row.horizontalAccuracyMeters: the number 1e400 is out of range")
    }
    #expect(session.state == before)
  }

  @Test(
    "a saved whole number that its field cannot hold (1.5, 1e30, 2⁶⁴ for a time in ms) is named by its path, not called invalid JSON"
  )
  func savedNumberItsFieldCannotHold() throws {
    var (session, saved) = try Self.sessionAfterOneFix()
    let before = session.state
    for bad in ["1.5", "1e30", "18446744073709551616", "1700000000000.5"] {
      let edited = saved.replacingOccurrences(
        of: #""newestMilliseconds":1700000000000"#, with: #""newestMilliseconds":\#(bad)"#)
      let changed = edited != saved
      #expect(changed)
      #expect {
        try session.restore(Data(edited.utf8))
      } throws: {
        "\($0)".contains("geofences.people[0].newestMilliseconds: the number \(bad) does not fit this field")
      }
      #expect(session.state == before)
    }
    // The number the text holds in a Double's field is no cause: 1.5 there restores.
    let accuracy = saved.replacingOccurrences(
      of: #""horizontalAccuracyMeters":5"#, with: #""horizontalAccuracyMeters":1.5"#)
    let accuracyChanged = accuracy != saved
    #expect(accuracyChanged)
    try session.restore(Data(accuracy.utf8))
    // Text that is not JSON is still said to be so.
    #expect {
      try session.restore(Data(saved.dropLast().utf8))
    } throws: { "\($0)".contains("not valid JSON") }
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
      history.fixes, receivedAtMilliseconds: history.receivedAtMilliseconds,
      policy: replay.settings.schedule.uploads)
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
  /// One person's events of an output, kind by kind, as strings (equal
  /// strings, equal events).
  static func events(of person: UserID, in o: IngestOutput) -> [String] {
    o.geofenceEvents.filter { $0.person == person }.map { "\($0)" }
      + o.speedAlerts.filter { $0.person == person }.map { "\($0)" }
      + o.suddenStops.filter { $0.person == person }.map { "\($0)" }
      + o.trips.segments.filter { $0.person == person }.map { "\($0)" }
      + o.trips.stays.filter { $0.person == person }.map { "\($0)" }
  }

  @Test(
    "a batch's own events apart from its clock advance's: people replayed apart, others' uploads as ticks, get the same events"
  )
  func clockPart() throws {
    // Two generated days, one person each, their uploads interleaved by the schedule.
    let (places, first) = IngestEventLinesTests.day(seed: 3)
    let (_, second) = IngestEventLinesTests.day(seed: 4)
    var fixes = first.fixes
    for i in 0..<second.fixes.count {
      var f = second.fixes[i]
      (f.user, f.device) = (UserID(2), DeviceID(2))
      fixes.append(f)
    }
    let history = ReplayHistory(fixes: fixes)
    let people = Set(fixes.user)
    #expect(people.count == 2)
    // No speed limit: its cooldown is per circle, the one state two people of
    // a circle share (why hearth.distributed keeps a circle in one partition).
    var unlimited = ServerReplay.Settings()
    unlimited.speedLimitKilometersPerHour = nil
    let pipeline = ServerReplay(places: places.map(\.geofence), people: people, settings: unlimited).pipeline
    var settings = ServerSchedule.Settings()
    settings.lingerMilliseconds = 2 * 3_600_000
    let schedule = ServerSchedule(history.fixes, settings: settings)
    var whole = IngestSession(pipeline: pipeline, places: places)
    var apart = Dictionary(
      uniqueKeysWithValues: people.map { ($0, IngestSession(pipeline: pipeline, places: places)) })
    var clockEventsOfOthers = 0
    for step in schedule.steps {
      let batch = history.fixes.selecting(schedule.positions(of: step))
      let uploader = batch.user.first
      if step.isUpload {
        whole.ingest(batch, receivedAtMilliseconds: step.timeMilliseconds)
      } else {
        whole.advance(to: step.timeMilliseconds)
      }
      for person in people {
        if person == uploader {
          apart[person]?.ingest(batch, receivedAtMilliseconds: step.timeMilliseconds)
        } else {
          apart[person]?.advance(to: step.timeMilliseconds)
        }
        let alone = try #require(apart[person])
        #expect(Self.events(of: person, in: whole.output) == Self.events(of: person, in: alone.output))
        // What the clock decided for the uploader is in the clock part, as alone.
        #expect(Self.events(of: person, in: whole.clockPart) == Self.events(of: person, in: alone.clockPart))
        if person != uploader, step.isUpload {
          #expect(Self.events(of: person, in: whole.output) == Self.events(of: person, in: whole.clockPart))
          clockEventsOfOthers += Self.events(of: person, in: whole.clockPart).count
        }
      }
    }
    #expect(clockEventsOfOthers > 0)  // someone's event was decided by the other's upload
  }
}
