import Foundation
import HearthGeo
import HearthSim
import HearthTrace
import Testing

@testable import HearthRuntime

@Suite("IngestEventLines and ServerReplay")
struct IngestEventLinesTests {
  /// A generated day as the server received it: its named places and its history.
  static func day(seed: UInt64 = 3) -> (places: [NamedPlace], history: ReplayHistory) {
    let day = DayGenerator.generate(seed: seed)
    let places = day.places.map {
      NamedPlace(
        geofence: Geofence(id: PlaceID(UInt32($0.id)), center: $0.center, radiusMeters: $0.radiusMeters),
        name: $0.name)
    }
    var history = ReplayHistory(fixes: day.fixesInArrivalOrder)
    history.receivedAtMilliseconds = day.uploads.flatMap { u in
      Array(repeating: u.receivedMilliseconds, count: u.fixes.count)
    }
    return (places, history)
  }

  /// A generated day replayed as the server received it, with its places named.
  static func replayedDay(seed: UInt64 = 3) -> (places: [NamedPlace], result: ServerReplay.Result) {
    let (places, history) = day(seed: seed)
    var state = IngestState()
    let result = ServerReplay(places: places.map(\.geofence), people: Set(history.fixes.user)).run(
      history, state: &state)
    return (places, result)
  }

  static func objects(_ lines: [String]) throws -> [[String: Any]] {
    try lines.map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
    }
  }

  @Test("--only words: kinds, announced, both; anything else is refused")
  func parsing() throws {
    let announced = try #require(IngestEventFilter(parsing: "announced"))
    #expect(announced.announcedOnly && announced.kinds == Set(IngestEventFilter.Kind.allCases))
    let geofence = try #require(IngestEventFilter(parsing: "announced, geofence"))
    #expect(geofence.announcedOnly && geofence.kinds == [.geofence])
    let feed = try #require(IngestEventFilter(parsing: "trip,stay"))
    #expect(!feed.announcedOnly && feed.kinds == [.trip, .stay])
    #expect(IngestEventFilter(parsing: "arrivals") == nil)
    #expect(IngestEventFilter(parsing: "") == nil)
    #expect(IngestEventFilter(parsing: "trip,,stay") == nil)
  }

  @Test(
    "announced keeps exactly the notifications: announced geofence events and speed alerts, raised sudden stops"
  )
  func announcedOnly() throws {
    let (places, result) = Self.replayedDay()
    let all = IngestEventLines(places: places)
    let announced = IngestEventLines(places: places, filter: IngestEventFilter(parsing: "announced")!)
    var expected = 0
    var everything = 0
    var kept: [String] = []
    for (output, names) in zip(result.outputs, result.tripNames) {
      expected += output.geofenceEvents.filter { $0.outcome == .announced }.count
      expected += output.speedAlerts.filter { $0.outcome == .announced }.count
      expected += output.suddenStops.filter { $0.outcome == .raised }.count
      everything += try all.lines(output, tripNames: names).count
      kept += try announced.lines(output, tripNames: names)
    }
    #expect(kept.count == expected && expected > 0 && expected < everything, "\(expected) of \(everything)")
    for object in try Self.objects(kept) {
      let outcome = (object["value"] as? [String: Any])?["outcome"] as? String
      #expect(outcome == "announced" || outcome == "raised", "\(object)")
      #expect(object["type"] as? String != "trip" && object["type"] as? String != "stay")
    }
  }

  @Test("the kinds partition everything: per output, the lines of each kind in turn are all the lines")
  func kindsPartition() throws {
    let (places, result) = Self.replayedDay()
    let all = IngestEventLines(places: places)
    let kinds = IngestEventFilter.Kind.allCases.map {
      IngestEventLines(places: places, filter: IngestEventFilter(kinds: [$0]))
    }
    var seen = Set<String>()
    for (output, names) in zip(result.outputs, result.tripNames) {
      let together = try kinds.flatMap { try $0.lines(output, tripNames: names) }
      #expect(together == (try all.lines(output, tripNames: names)))
      for object in try Self.objects(together) { seen.insert(object["type"] as? String ?? "?") }
    }
    #expect(seen.isSuperset(of: ["geofence", "speedAlert", "trip"]), "\(seen)")
  }

  @Test(
    "geofence events carry their place's name, trips the names of the places they left and reached; unnamed places none"
  )
  func placeNames() throws {
    let (places, result) = Self.replayedDay()
    let names = Dictionary(uniqueKeysWithValues: places.map { ($0.geofence.id.rawValue, $0.name ?? "") })
    var named = 0
    var trips = 0
    for (output, tripNames) in zip(result.outputs, result.tripNames) {
      for object in try Self.objects(try IngestEventLines(places: places).lines(output, tripNames: tripNames))
      {
        let value = object["value"] as? [String: Any] ?? [:]
        switch object["type"] as? String {
        case "geofence":
          let place = (value["place"] as? NSNumber)?.uint32Value ?? 0
          #expect(object["placeName"] as? String == names[place], "\(object)")
          named += 1
        case "trip":
          let end = (value["endPlace"] as? NSNumber)?.uint32Value
          #expect(object["placeName"] as? String == end.flatMap { names[$0] }, "\(object)")
          let start = (value["startPlace"] as? NSNumber)?.uint32Value
          #expect(object["startPlaceName"] as? String == start.flatMap { names[$0] }, "\(object)")
          if value["isTrip"] as? Bool == true && start != nil && end != nil { trips += 1 }
        default:
          #expect(object["placeName"] == nil)
        }
      }
      let unnamed = places.map { NamedPlace(geofence: $0.geofence, name: nil) }
      #expect(
        try IngestEventLines(places: unnamed).lines(output, tripNames: tripNames).allSatisfy {
          !$0.contains("laceName")
        })
    }
    #expect(named > 0 && trips > 0)
  }

  @Test(
    "diagnostics: a refused batch's schema error, a rejected fix and the shared frames come first, only when asked"
  )
  func diagnostics() throws {
    let pipeline = IngestPipeline(places: [], circlesOfPerson: [UserID(1): []])
    let now: Int64 = 1_700_000_000_000
    func batch(_ rows: [(Int64, Double)]) -> FixColumns {
      var fixes = FixColumns()
      for (t, latitude) in rows {
        fixes.append(
          Fix(
            timeMilliseconds: t, latitudeDegrees: latitude, longitudeDegrees: 11.6,
            horizontalAccuracyMeters: 10, user: UserID(1)))
      }
      return fixes
    }
    var state = IngestState()
    let refused = pipeline.ingest(batch([(now, 95)]), receivedAtMilliseconds: now + 1_000, state: &state)
    let refusedLines = try IngestEventLines(diagnostics: true).lines(refused, tripNames: [])
    #expect(refusedLines.count == 1 && refusedLines[0].contains(#""type":"schemaError""#), "\(refusedLines)")
    // One fix a day in the future: rejected; the other is shared.
    let mixed = pipeline.ingest(
      batch([(now, 48.1), (now + 86_400_000, 48.1)]), receivedAtMilliseconds: now + 1_000, state: &state)
    let lines = try IngestEventLines(diagnostics: true).lines(mixed, tripNames: [])
    #expect(lines.first?.contains(#""type":"rejected""#) == true, "\(lines)")
    #expect(lines.contains { $0.contains(#""type":"sharedFrame""#) }, "\(lines)")
    #expect(
      try IngestEventLines().lines(refused, tripNames: []).isEmpty
        && IngestEventLines().lines(mixed, tripNames: []).isEmpty)
  }

  @Test("the same history replayed twice gives the same lines")
  func deterministic() throws {
    let a = Self.replayedDay().result
    let b = Self.replayedDay().result
    let lines = IngestEventLines()
    func all(_ r: ServerReplay.Result) throws -> [String] {
      try zip(r.outputs, r.tripNames).flatMap { try lines.lines($0, tripNames: $1) }
    }
    #expect(try all(a) == all(b))
    #expect(a.uploadCount > 0 && a.clockMilliseconds != nil)
  }

  @Test(
    "the timer stops 6 h after a receipt: the same lines as ticking through, and a gap of 50 years costs 360 ticks, not 26 million"
  )
  func idleTicking() throws {
    let day = DayGenerator.generate(seed: 3)
    let places = day.places.map {
      Geofence(id: PlaceID(UInt32($0.id)), center: $0.center, radiusMeters: $0.radiusMeters)
    }
    var history = ReplayHistory(fixes: day.fixesInArrivalOrder)
    history.receivedAtMilliseconds = day.uploads.flatMap { u in
      Array(repeating: u.receivedMilliseconds, count: u.fixes.count)
    }
    let people = Set(history.fixes.user)
    var through = ServerReplay.Settings()
    through.schedule.idleTickingMilliseconds = .max
    through.schedule.untilMilliseconds = (history.receivedAtMilliseconds?.max() ?? 0) + 12 * 3_600_000
    var bounded = through
    bounded.schedule.idleTickingMilliseconds = 6 * 3_600_000
    var a = IngestState()
    var b = IngestState()
    let all = ServerReplay(places: places, people: people, settings: through).run(history, state: &a)
    let capped = ServerReplay(places: places, people: people, settings: bounded).run(history, state: &b)
    let lines = IngestEventLines()
    func printed(_ r: ServerReplay.Result) throws -> [String] {
      try zip(r.outputs, r.tripNames).flatMap { try lines.lines($0, tripNames: $1) }
    }
    #expect(try printed(all) == printed(capped))
    #expect(capped.outputs.count < all.outputs.count && a == b)
    // Two uploads 50 years apart.
    var gap = ReplayHistory(fixes: FixColumns(Array(day.fixesInArrivalOrder.fixes.prefix(2))))
    let start: Int64 = 946_684_800_000
    gap.receivedAtMilliseconds = [start, start + 50 * 365 * 86_400_000]
    var state = IngestState()
    let replay = ServerReplay(places: places, people: people).run(gap, state: &state)
    #expect(replay.outputs.count <= 2 + 360, "\(replay.outputs.count)")
  }
}
