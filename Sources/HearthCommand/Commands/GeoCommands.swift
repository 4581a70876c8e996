import Foundation
import HearthGeo
import HearthTrace

/// `hearth geo …`: the location rules on a recorded trace.
enum GeoCommands {
  static let all: [Command] = [trips, snap]

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
    let trace: Trace
    do {
      trace = try TraceImport.read(path: arguments.positionals[0], mappingPath: arguments.options["mapping"])
        .0
    } catch { throw CLIError.badInput("\(error)") }
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
    if let path = arguments.options["export-fixes"] {
      var text = "user,time_ms,latitude,longitude\n"
      for i in 0..<fixes.count {
        text +=
          "\(fixes.user[i].rawValue),\(fixes.timeMilliseconds[i]),\(fixes.latitudeDegrees[i]),\(fixes.longitudeDegrees[i])\n"
      }
      do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
        throw CLIError.badInput("cannot write \(path): \(error)")
      }
    }
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
    let fixes: FixColumns
    do {
      fixes = try TraceImport.read(path: arguments.positionals[0], mappingPath: arguments.options["mapping"])
        .0.fixes
    } catch { throw CLIError.badInput("\(error)") }
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
}
