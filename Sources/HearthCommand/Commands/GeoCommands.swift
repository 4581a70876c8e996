import Foundation
import HearthGeo
import HearthLab
import HearthRuntime
import HearthTrace

/// `hearth geo …`: the location rules on a recorded trace.
enum GeoCommands {
  static let all: [Command] = [replay, trips, snap]

  static let trips = Command(
    path: ["geo", "trips"],
    summary: "segment recorded traces into trips (SPEC §7), or list their stays",
    help: """
      usage: hearth geo trips PATH... [--places FILE] [--format csv|json|text] [--stops]
                              [--export-fixes CSV] [--mapping FILE [--timezone ZONE] [--rate HZ]]

      Reads each PATH (any trace `hearth` reads: Sensor Logger or phyphox
      folder, GPX, tracktable .traj, trace folder, comma2k19 segment, or CSV
      with a column mapping), runs each device's fixes through TripSegmenter
      in time order (the device id is the `user` column), and prints one
      record per segment (trip or not, with its reasons): file, user, id,
      is_trip, reasons, ended_by, started_ms, finished_ms, points, path_m,
      max_agreed_speed_mps (empty when no speed was agreed), and both ends'
      names (SPEC §7, as `geo replay` names them): start_place,
      start_named_by (fence: the first departure the geofences saw during
      it; placeAt: the smallest place holding the start, else the nearest
      centre whose edge is within 1 km), start_distance_m (to that place's
      centre, for placeAt), start_place_name, end_place, end_named_by
      (fence: the last arrival not left again), end_place_name — empty
      where an end has no name. --places FILE gives the places (the GeoJSON
      file `geo replay --places` reads; every device sees every place);
      without it nothing is named. With --stops
      it prints the stays instead (those the device left): file, user,
      started_ms, finished_ms, latitude_deg, longitude_deg — from the first
      fix of a stay (where the trip before ended) to its last fix (where the
      next one starts). CSV (the default, one header), JSON Lines or text.
      --export-fixes writes the fixes as read (user, time_ms, latitude,
      longitude; one PATH) so a peer can run on exactly the same input.
      A PATH that cannot be read is reported and the others still run;
      exit 3 at the end if any failed.
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union(["export-fixes", "format", "places"]), flags: ["stops"]
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else { throw CLIError.usage("geo trips needs a PATH") }
    let places = try arguments.options["places"].map { try PlacesFile.read(path: $0) } ?? []
    let placeNames = IngestEventLines(places: places).placeNames
    let fence = GeofenceEngine(places: places.map(\.geofence))
    let segmenter = TripSegmenter(index: fence.index)
    let export = arguments.options["export-fixes"]
    guard export == nil || arguments.positionals.count == 1 else {
      throw CLIError.usage("--export-fixes takes one PATH")
    }
    var printer = RecordPrinter(try Formats.choose(arguments, default: .csv), console)
    let reading = try ReadingFlags(arguments)
    let failed = try forEachPath(arguments.positionals, console) { path in
      let (trace, report) = try reading.read(path)
      importNotes(report, path: path, console)
      // Each device is followed on its own (a trace may hold several, e.g.
      // AIS vessels): its id becomes the person's.
      let fixes = FixColumns(
        trace.fixes.fixes.map { fix in
          var f = fix
          f.user = UserID(fix.device.rawValue)
          return f
        }
        .sorted { ($0.user, $0.timeMilliseconds) < ($1.user, $1.timeMilliseconds) })
      guard let newest = fixes.timeMilliseconds.max() else {
        throw CLIError.badInput("\(path): the trace has no fixes")
      }
      if let export { try writingOutput(export) { try FixTable.write([fixes], to: export) } }
      // The segmenter and the geofences on the same fixes, received at
      // once; two hours on, everything open has closed.
      let now = newest + 2 * 3_600_000
      var state = TripSegmenterState()
      let output = segmenter.process(fixes, now: now, state: &state)
      var fenceState = GeofenceState()
      let events =
        fence.process(fixes, receivedAtMilliseconds: newest, state: &fenceState)
        + fence.advance(to: now, state: &fenceState)
      var memory = TripNaming.Memory()
      let names = memory.name(output.segments, events: events, fence: fence, trips: state)
      if arguments.flags.contains("stops") {
        for stay in output.stays.sorted(by: {
          ($0.person, $0.startMilliseconds) < ($1.person, $1.startMilliseconds)
        }) {
          try printer.print(
            Record([
              ("file", .text(path)), ("user", .integer(Int64(stay.person.rawValue))),
              ("started_ms", .integer(stay.startMilliseconds)),
              ("finished_ms", .integer(stay.endMilliseconds)),
              ("latitude_deg", .number(stay.coordinate.latitudeDegrees)),
              ("longitude_deg", .number(stay.coordinate.longitudeDegrees)),
            ]))
        }
        return
      }
      let segments = zip(output.segments, names).sorted {
        ($0.0.person, $0.0.summary.startMilliseconds) < ($1.0.person, $1.0.summary.startMilliseconds)
      }
      for (s, ends) in segments {
        func place(_ id: PlaceID?) -> Record.Value { id.map { .integer(Int64($0.rawValue)) } ?? .missing }
        func name(_ id: PlaceID?) -> Record.Value {
          id.flatMap { placeNames[$0] }.map { .text($0) } ?? .missing
        }
        func source(_ how: TripNaming.Ends.Source?) -> Record.Value {
          how.map { .text($0.rawValue) } ?? .missing
        }
        try printer.print(
          Record([
            ("file", .text(path)), ("user", .integer(Int64(s.person.rawValue))), ("id", .unsigned(s.id)),
            ("is_trip", .bool(s.isTrip)),
            ("reasons", .text(s.reasons.map(\.rawValue).joined(separator: "+"))),
            ("ended_by", .text(s.endedBy.rawValue)), ("started_ms", .integer(s.summary.startMilliseconds)),
            ("finished_ms", .integer(s.summary.endMilliseconds)), ("points", .integer(Int64(s.fixes.count))),
            ("path_m", .number((s.summary.pathMeters * 10).rounded() / 10)),
            (
              "max_agreed_speed_mps",
              s.summary.maxAgreedSpeedMetersPerSecond.map { .number(($0 * 100).rounded() / 100) } ?? .missing
            ),
            ("start_place", place(ends.from)), ("start_named_by", source(ends.fromSource)),
            (
              "start_distance_m",
              ends.fromDistanceMeters.map { .number(($0 * 100).rounded() / 100) } ?? .missing
            ),
            ("start_place_name", name(ends.from)), ("end_place", place(ends.to)),
            ("end_named_by", source(ends.toSource)), ("end_place_name", name(ends.to)),
          ]))
      }
    }
    return failed > 0 ? 3 : 0
  }

  static let snap = Command(
    path: ["geo", "snap"],
    summary: "what a viewer with approximate sharing sees of traces (the 750 m privacy grid, SPEC §2)",
    help: """
      usage: hearth geo snap PATH... [--format csv|json|text] [--changes-only]
                             [--mapping FILE [--timezone ZONE] [--rate HZ]]

      Projects every fix of each PATH: the grid cell and its centre (never
      the fix's own position), the accuracy widened to at least 750 m, the
      time floored to 5 minutes; speed, heading and activity are dropped.
      Prints one record per fix: file, time_ms, cell, latitude_deg,
      longitude_deg, accuracy_m, changed — whether a viewer gets a new
      frame (a new cell or time slot). With --changes-only, only the frames
      a viewer receives. CSV (the default, one header), JSON Lines or text.
      A PATH that cannot be read is reported and the others still run;
      exit 3 at the end if any failed.
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union(["format"]), flags: ["changes-only"]
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else { throw CLIError.usage("geo snap needs a PATH") }
    var printer = RecordPrinter(try Formats.choose(arguments, default: .csv), console)
    let projection = PrivacyProjection()
    let onlyChanges = arguments.flags.contains("changes-only")
    let reading = try ReadingFlags(arguments)
    let failed = try forEachPath(arguments.positionals, console) { path in
      let (trace, report) = try reading.read(path)
      importNotes(report, path: path, console)
      let fixes = trace.fixes
      // As `geo trips` and `data inspect`: a path with no usable fix fails.
      guard !fixes.isEmpty else { throw CLIError.badInput("\(path): the trace has no fixes") }
      var last: ApproximateFix?
      for frame in projection.project(fixes) {
        let changed = projection.changed(from: last, to: frame)
        last = frame
        if onlyChanges && !changed { continue }
        try printer.print(
          Record([
            ("file", .text(path)), ("time_ms", .integer(frame.timeMilliseconds)),
            ("cell", .integer(frame.cell.rawValue)),
            ("latitude_deg", .number(frame.coordinate.latitudeDegrees)),
            ("longitude_deg", .number(frame.coordinate.longitudeDegrees)),
            ("accuracy_m", .number(frame.horizontalAccuracyMeters)), ("changed", .bool(changed)),
          ]))
      }
    }
    return failed > 0 ? 3 : 0
  }

  static let replay = Command(
    path: ["geo", "replay"],
    summary:
      "replay a recorded history against a places file: geofence events, trips, speed alerts, sudden stops",
    help: """
      usage: hearth geo replay PATH (--places FILE [--limit-kmh X] | --description FILE)
                               [--mapping FILE [--timezone ZONE] [--rate HZ]] [--batch N]
                               [--tick SECONDS] [--until TIME_MS] [--only WHAT] [--geojson FILE]

      Feeds a history through the server's ingest path (validation, dedupe,
      presence, the privacy projection, geofences with settling, speed
      alerts, the sudden-stop check, trips), upload by upload, as the server
      received it. PATH is either
      - an upload log: a CSV whose header has received_ms, with one fix per
        row in the order the server got them: user, time_ms, latitude,
        longitude, received_ms (user and device whole numbers 0 to
        4294967295, times whole ms), and optionally device (default: the user),
        accuracy_m (default 10), speed_mps (empty: unmeasured), activity
        (still, walking, running, cycling, automotive, unknown) and source
        (ordinary, heartbeat, park). Rows with the same received_ms are one
        upload, replayed exactly as logged (late, duplicated, from the future);
      - or any trace `hearth` reads: each phone's (user, device) fixes cut
        into uploads of at most N fixes (--batch, default 200) spanning at
        most 5 minutes, each received one second after its newest fix.
      Either way a phone uploads only its own fixes and never receives an
      upload before its previous one; the server takes every phone's uploads
      in order of receipt (the same millisecond: in the order their first
      fix comes in PATH). This schedule is the library's, the one Python's
      hearth.Ingest.replay and hearth.distributed.replay run.
      The server clock moves at every upload's receipt and, between uploads,
      every --tick seconds (default 60) for up to 6 h after a receipt (nothing
      waits longer; then it jumps to the next receipt), so waiting decisions
      and sudden stops are decided on time even when nothing arrives; at the
      end of the input it stops at the last receipt, or goes on to --until
      (ms since the epoch; one before the last receipt is noted on stderr).
      A receipt or --until outside 1900–2200 is refused. Unreadable rows and
      rejected fixes are listed on stderr by file, line and column.
      Prints one JSON object per line: {"type": "geofence" | "speedAlert" |
      "suddenStop" | "trip" | "stay", "timeMilliseconds", "value",
      "placeName" (geofence events and trips ending at a named place)};
      NaN as null. --only keeps some of them: a comma-separated list of
      types and `announced` (announced geofence events and speed alerts,
      raised sudden stops: what reaches a phone), e.g. --only announced or
      --only announced,geofence or --only trip,stay.
      Every refused upload and rejected fix is printed on stderr with its
      upload, index in the upload, field and reason, then the counts; a
      history whose every fix is rejected (a GPX or tracktable trace has no
      accuracy) replays nothing and exits 3.
      --geojson also writes the places, each person's track, the trips and
      the events as a FeatureCollection. The places file is GeoJSON: Point
      features with a radiusMeters property (at most 100 km; optional name,
      circle and numeric id), as `hearth sim generate day` writes in
      places.geojson. Every person is in every circle of the file;
      --limit-kmh sets the speed limit of every circle (default 50; 0: none).
      --description FILE instead gives places, circles and limits as the
      JSON hearth_ingest_create and Python's hearth.describe take (places,
      places_file, circles_of_person, speed_limits_kmh); a person that
      circles_of_person does not list sees every circle's places and gets
      no speed alert, as the engines take a person they know no circles of
      (noted on stderr when circles_of_person lists others).
      \(ReadingFlags.help)
      """,
    options: ReadingFlags.options.union([
      "places", "description", "limit-kmh", "batch", "tick", "until", "only", "geojson",
    ])
  ) { arguments, console in
    guard arguments.positionals.count == 1 else { throw CLIError.usage("geo replay needs one PATH") }
    let descriptionPath = arguments.options["description"]
    guard (descriptionPath == nil) != (arguments.options["places"] == nil),
      descriptionPath == nil || arguments.options["limit-kmh"] == nil
    else {
      throw CLIError.usage("geo replay takes --places (with --limit-kmh) or --description, one of them")
    }
    let limit: Double = try arguments.value("limit-kmh", default: 50)
    let batchSize: Int = try arguments.value("batch", default: 200)
    let tickSeconds: Int64 = try arguments.value("tick", default: 60)
    let until: Int64? = try arguments.options["until"].map { _ in
      try arguments.value("until", default: Int64(0))
    }
    // Each flag's own domain, named with the value given (review26 F10).
    guard limit >= 0, limit.isFinite else {
      throw CLIError.usage("--limit-kmh must be a finite speed ≥ 0 km/h (0: no limit), not \(limit)")
    }
    guard batchSize >= 1 else { throw CLIError.usage("--batch must be ≥ 1 fix, not \(batchSize)") }
    guard tickSeconds >= 1, tickSeconds <= 86_400 else {
      throw CLIError.usage("--tick must be between 1 and 86400 s, not \(tickSeconds)")
    }
    if let until, let why = FixValidation.serverClockProblem(until) {
      throw CLIError.usage("--until: \(why)")
    }
    let only = arguments.options["only"]
    guard let filter = only.map(IngestEventFilter.init(parsing:)) ?? .everything else {
      throw CLIError.usage(
        "--only takes announced and types (geofence, speedAlert, suddenStop, trip, stay), comma-separated, not '\(only ?? "")'"
      )
    }
    let description = try descriptionPath.map(IngestDescription.read(path:))
    let places = try description?.places ?? PlacesFile.read(path: try arguments.required("places"))
    let reading = try ReadingFlags(arguments)
    let history = try ReplayHistory.read(
      path: arguments.positionals[0], mapping: reading.mappingPath, options: reading.options)
    if let report = history.importReport { importNotes(report, path: arguments.positionals[0], console) }
    for problem in history.rowProblems { console.err(problem) }
    let unreadable = history.unreadableRowCount
    if unreadable > history.rowProblems.count {
      console.err("… and \(unreadable - history.rowProblems.count) more unreadable rows, not listed")
    }
    guard !history.fixes.isEmpty else {
      throw CLIError.badInput(
        "\(arguments.positionals[0]): the history has no fixes"
          + (unreadable > 0 ? " (its \(unreadable) rows could not be read: see above)" : ""))
    }
    for note in description?.notes(people: history.fixes.user) ?? [] { console.err("note: \(note)") }
    var settings = ServerReplay.Settings()
    settings.schedule.uploads = ServerUploads.Policy(maximumFixes: batchSize)
    settings.schedule.tickMilliseconds = tickSeconds * 1000
    settings.schedule.untilMilliseconds = until
    settings.speedLimitKilometersPerHour = limit > 0 ? limit : nil
    let replay =
      description.map { ServerReplay($0, settings: settings) }
      ?? ServerReplay(places: places.map(\.geofence), people: Set(history.fixes.user), settings: settings)
    var state = IngestState()
    let result = replay.run(history, state: &state)
    if let why = result.scheduleRefusal { throw CLIError.badInput(why) }
    for line in result.problems { console.err(line) }
    let lines = IngestEventLines(places: places, filter: filter)
    for (output, names) in zip(result.outputs, result.tripNames) {
      for line in try lines.lines(output, tripNames: names) { console.out(line) }
    }
    let rejected = result.rejectedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    console.err(
      "replayed \(history.fixes.count) fixes in \(result.uploadCount) uploads to \(result.clockMilliseconds ?? 0) ms: "
        + "\(result.refusedUploads) uploads refused (schema), \(result.duplicates) duplicates, "
        + "kept from the engines \(result.notNewer) not newer and \(result.overruled) overruled, rejected "
        + (rejected.isEmpty ? "none" : rejected.joined(separator: ", "))
        + (unreadable == 0 ? "" : "; \(unreadable) rows of the history unreadable")
    )
    // --until only goes on after the last receipt (review26 F10: an earlier
    // one was silently ignored).
    if let until, let clock = result.clockMilliseconds, until < clock {
      console.err(
        "note: --until \(until) ms is before the last receipt (\(clock) ms): the replay ended there")
    }
    // Every fix rejected is no replay: say so rather than exit 0 with nothing
    // on stdout (review26 F3: a GPX or tracktable trace carries no accuracy).
    if result.rejectedByReason.values.reduce(0, +) + result.refusedFixes == history.fixes.count {
      let missing = result.rejectedByReason[RejectionReason.accuracyMissing.rawValue] == history.fixes.count
      throw CLIError.badInput(
        "\(arguments.positionals[0]): every one of its \(history.fixes.count) fixes was rejected or in an upload refused, nothing replayed"
          + (missing
            ? " (none carries an accuracy: as an upload log, with accuracy_m or its default of 10 m, it replays)"
            : ""))
    }
    if let path = arguments.options["geojson"] {
      let features = result.features(places: places, fixes: history.fixes)
      try writingOutput(path) { try GeoJSON.write(features, to: path) }
    }
    return 0
  }
}
