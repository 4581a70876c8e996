import Foundation
import HearthGeo
import HearthTrace

/// `hearth geo …`: the location rules on a recorded trace.
enum GeoCommands {
  static let all: [Command] = [replay, trips, snap]

  static let trips = Command(
    path: ["geo", "trips"],
    summary: "segment a recorded trace into trips (SPEC §7), or list its stays",
    help: """
      usage: hearth geo trips PATH [--mapping FILE] [--stops] [--export-fixes CSV]

      Reads any trace `hearth` reads (Sensor Logger or phyphox folder, GPX,
      tracktable .traj, trace folder, comma2k19 segment, or CSV with a column
      mapping), runs each device's fixes through TripSegmenter in time order
      (the device id is the `user` column), and prints
      one CSV line per segment (trip or not, with its reasons). With --stops it
      prints the stays instead (those the device left): from the first fix of
      a stay (where the trip before ended) to its last fix (where the next
      one starts).
      --export-fixes writes the fixes as read (user, time_ms, latitude,
      longitude) so a peer can run on exactly the same input.
      """,
    options: ["mapping", "export-fixes"], flags: ["stops"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo trips needs one PATH") }
    let trace = try TraceImport.read(path: arguments.positionals[0], mappingPath: arguments.options["mapping"]).0
    // Each device is followed on its own (a trace may hold several, e.g.
    // AIS vessels): its id becomes the person's.
    let fixes = FixColumns(
      trace.fixes.fixes.map { fix in
        var f = fix
        f.user = UserID(fix.device.rawValue)
        return f
      }
      .sorted { ($0.user.rawValue, $0.timeMilliseconds) < ($1.user.rawValue, $1.timeMilliseconds) })
    guard let newest = fixes.timeMilliseconds.max() else { throw CLIError.badInput("the trace has no fixes") }
    if let path = arguments.options["export-fixes"] { try FixTable.write([fixes], to: path) }
    var state = TripSegmenterState()
    let output = TripSegmenter().process(fixes, now: newest + 2 * 3_600_000, state: &state)
    let segments = output.segments
      .sorted {
        ($0.person.rawValue, $0.summary.startMilliseconds) < (
          $1.person.rawValue, $1.summary.startMilliseconds
        )
      }
    if arguments.flags.contains("stops") {
      console.out("user,started_ms,finished_ms,latitude,longitude")
      for stay in output.stays.sorted(by: {
        ($0.person, $0.startMilliseconds) < ($1.person, $1.startMilliseconds)
      }) {
        console.out(
          "\(stay.person.rawValue),\(stay.startMilliseconds),\(stay.endMilliseconds),\(stay.coordinate.latitudeDegrees),\(stay.coordinate.longitudeDegrees)"
        )
      }
    } else {
      console.out(
        "user,id,is_trip,reasons,ended_by,started_ms,finished_ms,points,path_m,max_agreed_speed_mps")
      for s in segments {
        let reasons = s.reasons.map(\.rawValue).joined(separator: "+")
        let top = s.summary.maxAgreedSpeedMetersPerSecond.map { String(format: "%.2f", $0) } ?? ""
        console.out(
          "\(s.person.rawValue),\(s.id),\(s.isTrip),\(reasons),\(s.endedBy.rawValue),\(s.summary.startMilliseconds),\(s.summary.endMilliseconds),\(s.fixes.count),\(String(format: "%.1f", s.summary.pathMeters)),\(top)"
        )
      }
    }
    return 0
  }

  static let snap = Command(
    path: ["geo", "snap"],
    summary: "what a viewer with approximate sharing sees of a trace (the 750 m privacy grid, SPEC §2)",
    help: """
      usage: hearth geo snap PATH [--mapping FILE] [--changes-only]

      Projects every fix: the grid cell and its centre (never the fix's own
      position), the accuracy widened to at least 750 m, the time floored to
      5 minutes; speed, heading and activity are dropped. Prints CSV:
      time_ms,cell,latitude,longitude,accuracy_m,changed where `changed`
      says whether a viewer gets a new frame (a new cell or time slot). With
      --changes-only, only the frames a viewer receives.
      """,
    options: ["mapping"], flags: ["changes-only"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo snap needs one PATH") }
    let fixes = try TraceImport.read(path: arguments.positionals[0], mappingPath: arguments.options["mapping"])
      .0.fixes
    let projection = PrivacyProjection()
    let onlyChanges = arguments.flags.contains("changes-only")
    console.out("time_ms,cell,latitude,longitude,accuracy_m,changed")
    var last: ApproximateFix?
    for frame in projection.project(fixes) {
      let changed = projection.changed(from: last, to: frame)
      last = frame
      if onlyChanges && !changed { continue }
      console.out(
        "\(frame.timeMilliseconds),\(frame.cell.rawValue),\(frame.coordinate.latitudeDegrees),\(frame.coordinate.longitudeDegrees),\(frame.horizontalAccuracyMeters),\(changed)"
      )
    }
    return 0
  }

  static let replay = Command(
    path: ["geo", "replay"],
    summary:
      "replay a recorded history against a places file: geofence events, trips, speed alerts, sudden stops",
    help: """
      usage: hearth geo replay PATH --places FILE [--mapping FILE] [--limit-kmh X] [--batch N]
                               [--geojson FILE]

      Feeds the trace's fixes, in the order recorded, through the server's
      ingest path (validation, dedupe, presence, the privacy projection,
      geofences with settling, speed alerts, the sudden-stop check, trips) in
      uploads of at most N fixes (default 200) spanning at most 5 minutes,
      each received one second after its newest fix; then moves the clock
      two hours on so waiting decisions close. Prints one JSON object per
      line: {"type": "geofence" | "speedAlert" | "suddenStop" | "trip" |
      "stay", "timeMilliseconds", "value"}; --geojson also writes the places,
      each person's track, the trips and the events as a FeatureCollection.
      The places file is GeoJSON: Point features with a radiusMeters property
      (optional name, circle and numeric id), as `hearth sim generate day`
      writes in places.geojson. Every person is in every circle of the file;
      --limit-kmh sets the speed limit of every circle (default 50; 0: none).
      Rejected and duplicate fixes are counted on stderr.
      """,
    options: ["places", "mapping", "limit-kmh", "batch", "geojson"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo replay needs one PATH") }
    let placesPath = try arguments.required("places")
    let limit: Double = try arguments.value("limit-kmh", default: 50)
    let batchSize: Int = try arguments.value("batch", default: 200)
    guard limit >= 0, limit.isFinite, batchSize >= 1 else {
      throw CLIError.usage("--limit-kmh must be ≥ 0 and --batch ≥ 1")
    }
    let places = try PlacesFile.read(path: placesPath)
    let fixes = try TraceImport.read(
      path: arguments.positionals[0], mappingPath: arguments.options["mapping"]
    )
    .0.fixes
    guard !fixes.isEmpty else { throw CLIError.badInput("the trace has no fixes") }
    let circles = Array(Set(places.map(\.geofence.circle))).sorted()
    let people = Set(fixes.user)
    let pipeline = IngestPipeline(
      places: places.map(\.geofence),
      circlesOfPerson: Dictionary(uniqueKeysWithValues: people.map { ($0, circles) }),
      speedLimits: limit > 0
        ? Dictionary(uniqueKeysWithValues: circles.map { ($0, SpeedLimit(kilometersPerHour: limit)) }) : [:])
    var state = IngestState()
    var outputs: [IngestOutput] = []
    var clock = Int64.min
    var start = 0
    var batches = 0
    while start < fixes.count {
      var end = start + 1
      while end < fixes.count && end - start < batchSize
        && fixes.timeMilliseconds[end] - fixes.timeMilliseconds[start] <= 300_000
      {
        end += 1
      }
      let batch = fixes.selecting(start..<end)
      clock = max(clock, batch.timeMilliseconds.max()! + 1000)
      outputs.append(pipeline.ingest(batch, receivedAtMilliseconds: clock, state: &state))
      batches += 1
      start = end
    }
    outputs.append(pipeline.advance(to: clock + 2 * 3_600_000, state: &state))

    var rejected: [String: Int] = [:]
    var schemaErrors = 0
    var duplicates = 0
    let lines = ReplayLines()
    for output in outputs {
      if output.schemaError != nil { schemaErrors += 1 }
      for r in output.rejections { rejected[r.reason.rawValue, default: 0] += 1 }
      duplicates += output.duplicates
      try lines.add(output)
    }
    for line in lines.text { console.out(line) }
    console.err(
      "replayed \(fixes.count) fixes in \(batches) uploads: \(schemaErrors) uploads refused (schema), "
        + "\(duplicates) duplicates, rejected \(rejected.isEmpty ? "none" : rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
    )
    if let path = arguments.options["geojson"] {
      try GeoJSON.write(lines.features(places: places, fixes: fixes, outputs: outputs), to: path)
    }
    return 0
  }
}

/// The JSON Lines and GeoJSON of a replay.
private final class ReplayLines {
  private(set) var text: [String] = []
  private let encoder: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    e.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return e
  }()

  private struct Line<T: Encodable>: Encodable {
    var type: String
    var timeMilliseconds: Int64
    var value: T
  }

  private func add<T: Encodable>(_ type: String, _ time: Int64, _ value: T) throws {
    text.append(
      String(
        decoding: try encoder.encode(Line(type: type, timeMilliseconds: time, value: value)), as: UTF8.self))
  }

  func add(_ output: IngestOutput) throws {
    for e in output.geofenceEvents { try add("geofence", e.decidedMilliseconds, e) }
    for e in output.speedAlerts { try add("speedAlert", e.endMilliseconds, e) }
    for e in output.suddenStops { try add("suddenStop", e.decidedMilliseconds, e) }
    for s in output.trips.segments {
      try add(
        "trip", s.summary.endMilliseconds,
        TripLine(
          id: s.id, person: s.person.rawValue, isTrip: s.isTrip, reasons: s.reasons.map(\.rawValue),
          endedBy: s.endedBy.rawValue, startPlace: s.startPlace, endPlace: s.endPlace, summary: s.summary))
    }
    for s in output.trips.stays { try add("stay", s.endMilliseconds, s) }
  }

  /// A segment without its fixes (they are the trace's own).
  private struct TripLine: Encodable {
    var id: UInt64
    var person: UInt32
    var isTrip: Bool
    var reasons: [String]
    var endedBy: String
    var startPlace: PlaceID?
    var endPlace: PlaceID?
    var summary: TripSummary
  }

  func features(places: [NamedPlace], fixes: FixColumns, outputs: [IngestOutput]) -> [GeoJSON.Feature] {
    var features = places.map {
      GeoJSON.place(
        id: String($0.geofence.id.rawValue), name: $0.name, centre: $0.geofence.center,
        radiusMeters: $0.geofence.radiusMeters,
        properties: [("circle", .number(Double($0.geofence.circle.rawValue)))])
    }
    var byPerson: [UInt32: [Int]] = [:]
    for i in 0..<fixes.count { byPerson[fixes.user[i].rawValue, default: []].append(i) }
    for person in byPerson.keys.sorted() {
      let own = fixes.selecting(
        byPerson[person]!.sorted { fixes.timeMilliseconds[$0] < fixes.timeMilliseconds[$1] })
      features.append(
        GeoJSON.track(own, properties: [("kind", .string("track")), ("person", .number(Double(person)))]))
    }
    let centre = Dictionary(uniqueKeysWithValues: places.map { ($0.geofence.id, $0.geofence.center) })
    for output in outputs {
      for s in output.trips.segments where s.isTrip {
        var f = GeoJSON.track(
          FixColumns(s.fixes),
          properties: [
            ("kind", .string("trip")), ("id", .number(Double(s.id))),
            ("person", .number(Double(s.person.rawValue))),
          ])
        f.id = "trip-\(s.id)"
        features.append(f)
      }
      for e in output.geofenceEvents {
        guard let at = centre[e.place] else { continue }
        features.append(
          GeoJSON.event(
            kind: e.kind.rawValue, at: at, timeMilliseconds: e.eventMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)), ("place", .number(Double(e.place.rawValue))),
              ("person", .number(Double(e.person.rawValue))),
            ]))
      }
      for e in output.suddenStops {
        features.append(
          GeoJSON.event(
            kind: "suddenStop", at: e.coordinate, timeMilliseconds: e.stopMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)), ("person", .number(Double(e.person.rawValue))),
            ]))
      }
      for e in output.speedAlerts {
        // Where the fastest stretch ended: the person's fix at that time.
        guard
          let i = (0..<fixes.count).first(where: {
            fixes.user[$0] == e.person && fixes.timeMilliseconds[$0] == e.endMilliseconds
          })
        else { continue }
        features.append(
          GeoJSON.event(
            kind: "speedAlert", at: fixes[i].coordinate, timeMilliseconds: e.endMilliseconds,
            properties: [
              ("outcome", .string(e.outcome.rawValue)),
              ("agreedSpeedMetersPerSecond", .number(e.agreedSpeedMetersPerSecond)),
              ("person", .number(Double(e.person.rawValue))),
            ]))
      }
    }
    return features
  }
}
