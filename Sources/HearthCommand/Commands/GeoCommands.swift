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
      usage: hearth geo trips PATH [--mapping FILE [--timezone ZONE] [--rate HZ]] [--stops] [--export-fixes CSV]

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
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union(["export-fixes"]), flags: ["stops"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo trips needs one PATH") }
    let trace = try ReadingFlags(arguments).read(arguments.positionals[0]).0
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
      usage: hearth geo snap PATH [--mapping FILE [--timezone ZONE] [--rate HZ]] [--changes-only]

      Projects every fix: the grid cell and its centre (never the fix's own
      position), the accuracy widened to at least 750 m, the time floored to
      5 minutes; speed, heading and activity are dropped. Prints CSV:
      time_ms,cell,latitude,longitude,accuracy_m,changed where `changed`
      says whether a viewer gets a new frame (a new cell or time slot). With
      --changes-only, only the frames a viewer receives.
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options, flags: ["changes-only"]
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo snap needs one PATH") }
    let fixes = try ReadingFlags(arguments).read(arguments.positionals[0]).0.fixes
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
      usage: hearth geo replay PATH --places FILE [--mapping FILE [--timezone ZONE] [--rate HZ]]
                               [--limit-kmh X] [--batch N]
                               [--tick SECONDS] [--until TIME_MS] [--geojson FILE]

      Feeds a history through the server's ingest path (validation, dedupe,
      presence, the privacy projection, geofences with settling, speed
      alerts, the sudden-stop check, trips), upload by upload, as the server
      received it. PATH is either
      - an upload log: a CSV whose header has received_ms, with one fix per
        row in the order the server got them: user, time_ms, latitude,
        longitude, received_ms, and optionally device (default: the user),
        accuracy_m (default 10), speed_mps (empty: unmeasured), activity
        (still, walking, running, cycling, automotive, unknown) and source
        (ordinary, heartbeat, park). Rows with the same received_ms are one
        upload, replayed exactly as logged (late, duplicated, from the future);
      - or any trace `hearth` reads, cut into uploads of at most N fixes
        (--batch, default 200) spanning at most 5 minutes, each received one
        second after its newest fix.
      The server clock moves at every upload's receipt and, between uploads,
      every --tick seconds (default 60), so waiting decisions and sudden
      stops are decided on time even when nothing arrives; at the end of the
      input it stops at the last receipt, or goes on to --until (ms since the
      epoch).
      Prints one JSON object per line: {"type": "geofence" | "speedAlert" |
      "suddenStop" | "trip" | "stay", "timeMilliseconds", "value"}; every
      refused upload and rejected fix is printed on stderr with its upload,
      index in the upload, field and reason, then the counts. --geojson also
      writes the places, each person's track, the trips and the events as a
      FeatureCollection. The places file is GeoJSON: Point features with a
      radiusMeters property (at most 100 km; optional name, circle and
      numeric id), as `hearth sim generate day` writes in places.geojson.
      Every person is in every circle of the file; --limit-kmh sets the speed
      limit of every circle (default 50; 0: none).
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union(["places", "limit-kmh", "batch", "tick", "until", "geojson"])
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo replay needs one PATH") }
    let placesPath = try arguments.required("places")
    let limit: Double = try arguments.value("limit-kmh", default: 50)
    let batchSize: Int = try arguments.value("batch", default: 200)
    let tickSeconds: Int64 = try arguments.value("tick", default: 60)
    let until: Int64? = try arguments.options["until"].map { _ in try arguments.value("until", default: Int64(0)) }
    guard limit >= 0, limit.isFinite, batchSize >= 1, tickSeconds >= 1, tickSeconds <= 86_400 else {
      throw CLIError.usage("--limit-kmh must be ≥ 0, --batch ≥ 1 and --tick between 1 and 86400")
    }
    let places = try PlacesFile.read(path: placesPath)
    let history = try ReplayHistory.read(path: arguments.positionals[0], reading: try ReadingFlags(arguments))
    for problem in history.rowProblems { console.err(problem) }
    guard !history.fixes.isEmpty else { throw CLIError.badInput("the history has no fixes") }
    let fixes = history.fixes
    let uploads = ServerUploads.cut(
      fixes, receivedAtMilliseconds: history.receivedAtMilliseconds,
      policy: ServerUploads.Policy(maximumFixes: batchSize))
    let circles = Array(Set(places.map(\.geofence.circle))).sorted()
    let people = Set(fixes.user)
    let pipeline = IngestPipeline(
      places: places.map(\.geofence),
      circlesOfPerson: Dictionary(uniqueKeysWithValues: people.map { ($0, circles) }),
      speedLimits: limit > 0
        ? Dictionary(uniqueKeysWithValues: circles.map { ($0, SpeedLimit(kilometersPerHour: limit)) }) : [:])
    var state = IngestState()
    var outputs: [IngestOutput] = []
    let tick = tickSeconds * 1000
    var clock: Int64?
    /// The server's timer between two moments.
    func ticks(upTo end: Int64) {
      guard var t = clock else { return }
      while end.subtractingReportingOverflow(t).partialValue > tick, t < end {
        t += tick
        outputs.append(pipeline.advance(to: t, state: &state))
      }
    }
    var refused = 0
    var rejected: [String: Int] = [:]
    for (k, upload) in uploads.enumerated() {
      ticks(upTo: upload.receivedAtMilliseconds)
      let output = pipeline.ingest(upload.fixes, receivedAtMilliseconds: upload.receivedAtMilliseconds, state: &state)
      clock = upload.receivedAtMilliseconds
      if let error = output.schemaError {
        refused += 1
        console.err("upload \(k + 1) (received \(upload.receivedAtMilliseconds)): \(error)")
      }
      for r in output.rejections {
        rejected[r.reason.rawValue, default: 0] += 1
        console.err(
          "upload \(k + 1) (received \(upload.receivedAtMilliseconds)): fix \(r.index): \(r.reason.field.rawValue): \(r.reason.rawValue); fix rejected"
        )
      }
      outputs.append(output)
    }
    if let until, let now = clock, until > now {
      ticks(upTo: until)
      outputs.append(pipeline.advance(to: until, state: &state))
      clock = until
    }
    let lines = ReplayLines()
    for output in outputs { try lines.add(output) }
    for line in lines.text { console.out(line) }
    let duplicates = outputs.map(\.duplicates).reduce(0, +)
    console.err(
      "replayed \(fixes.count) fixes in \(uploads.count) uploads to \(clock ?? 0) ms: \(refused) uploads refused (schema), "
        + "\(duplicates) duplicates, rejected \(rejected.isEmpty ? "none" : rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        + (history.rowProblems.isEmpty ? "" : "; \(history.rowProblems.count) rows of the history unreadable")
    )
    if let path = arguments.options["geojson"] {
      try GeoJSON.write(lines.features(places: places, fixes: fixes, outputs: outputs), to: path)
    }
    return 0
  }
}

/// A history for `geo replay`: its fixes in arrival order and, for an
/// upload log, each fix's receipt time.
private struct ReplayHistory {
  var fixes = FixColumns()
  var receivedAtMilliseconds: [Int64]?
  /// Rows of an upload log that could not be read, each with its line, field and reason.
  var rowProblems: [String] = []

  static func read(path: String, reading: ReadingFlags) throws -> ReplayHistory {
    if reading.mappingPath == nil, path.lowercased().hasSuffix(".csv"), let log = try readUploadLog(path: path) {
      return log
    }
    var history = ReplayHistory()
    history.fixes = try reading.read(path).0.fixes
    return history
  }

  /// The columns of an upload log: (name, kind, required).
  private static let columns: [(String, CSVColumnRequest.Kind, Bool)] = [
    ("user", .integer, true), ("time_ms", .integer, true), ("latitude", .number, true),
    ("longitude", .number, true), ("received_ms", .integer, true), ("device", .integer, false),
    ("accuracy_m", .number, false), ("speed_mps", .number, false), ("activity", .text, false),
    ("source", .text, false),
  ]

  /// Nil when the CSV has no received_ms column (then it is read as a trace).
  private static func readUploadLog(path: String) throws -> ReplayHistory? {
    var history = ReplayHistory()
    var receipts: [Int64] = []
    var present: [String: (kind: CSVColumnRequest.Kind, slot: Int)] = [:]
    var isLog = true
    let activities = Dictionary(
      uniqueKeysWithValues: Activity.allCases.map { ("\($0)", $0) } + [("driving", .automotive)])
    let sources = Dictionary(uniqueKeysWithValues: FixSource.allCases.map { ("\($0)", $0) })
    let report = try CSVStream.read(
      path: path,
      select: { header, _ in
        guard header.contains("received_ms") else {
          isLog = false
          return []
        }
        var requests: [CSVColumnRequest] = []
        var slots: [CSVColumnRequest.Kind: Int] = [:]
        for (name, kind, required) in columns {
          guard let index = header.firstIndex(of: name) else {
            if required { throw CLIError.badInput("\(path): the upload log has no column \(name)") }
            continue
          }
          requests.append(CSVColumnRequest(index: index, kind: kind))
          present[name] = (kind, slots[kind, default: 0])
          slots[kind, default: 0] += 1
        }
        return requests
      },
      body: { batch in
        func integer(_ name: String, _ i: Int) -> Int64? { present[name].map { batch.integers[$0.slot][i] } }
        func number(_ name: String, _ i: Int) -> Double? { present[name].map { batch.numbers[$0.slot][i] } }
        func text(_ name: String, _ i: Int) -> String? { present[name].map { batch.texts[$0.slot][i] } }
        for i in 0..<batch.count {
          func problem(_ field: String, _ reason: String) {
            history.rowProblems.append("\(path):\(batch.lines[i]) (\(field)): \(reason); row skipped")
          }
          guard let user = integer("user", i), let userID = UInt32(exactly: user) else {
            problem("user", "not a user id (0 to 4294967295)")
            continue
          }
          let deviceValue = integer("device", i) ?? user
          guard let device = UInt32(exactly: deviceValue) else {
            problem("device", "not a device id (0 to 4294967295)")
            continue
          }
          let activityText = text("activity", i) ?? ""
          guard let activity = activityText.isEmpty ? .unknown : activities[activityText.lowercased()] else {
            problem("activity", "'\(activityText.prefix(40))' is not an activity")
            continue
          }
          let sourceText = text("source", i) ?? ""
          guard let source = sourceText.isEmpty ? .ordinary : sources[sourceText.lowercased()] else {
            problem("source", "'\(sourceText.prefix(40))' is not a source")
            continue
          }
          let speed = number("speed_mps", i) ?? .nan
          // Positions go through as logged: the server's validation refuses
          // what is out of range, with the upload and index.
          history.fixes.append(
            Fix(
              timeMilliseconds: integer("time_ms", i) ?? 0, latitudeDegrees: number("latitude", i) ?? .nan,
              longitudeDegrees: number("longitude", i) ?? .nan,
              horizontalAccuracyMeters: number("accuracy_m", i) ?? 10,
              speedMetersPerSecond: speed.isNaN ? nil : SpeedReading.speedMetersPerSecond(
                raw: speed, horizontalAccuracyMeters: number("accuracy_m", i) ?? 10),
              activity: activity, source: source, device: DeviceID(device), user: UserID(userID)))
          receipts.append(integer("received_ms", i) ?? 0)
        }
      })
    guard isLog else { return nil }
    for rejection in report.rejections { history.rowProblems.append("\(rejection); row skipped") }
    history.receivedAtMilliseconds = receipts
    return history
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
