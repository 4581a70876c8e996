import CHearth
import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace

/// The description `hearth_ingest_create` reads.
struct IngestDescription: Decodable {
  struct Place: Decodable {
    var id: UInt32
    var circle: UInt32?
    var name: String?
    var latitude_deg: Double
    var longitude_deg: Double
    var radius_m: Double
  }
  var places: [Place]?
  var places_file: String?
  var circles_of_person: [String: [UInt32]]?
  var speed_limits_kmh: [String: Double]?

  /// The pipeline it describes, and its places.
  /// - Throws: `TraceError.malformed` naming the key and why; the places file's own errors.
  func pipeline() throws -> (IngestPipeline, [NamedPlace]) {
    func bad(_ reason: String) -> TraceError {
      .malformed(SourceLocation(file: "ingest description", line: 0), reason: reason)
    }
    var named: [NamedPlace] = []
    for (i, p) in (places ?? []).enumerated() {
      guard abs(p.latitude_deg) <= 90, abs(p.longitude_deg) <= 180, p.radius_m > 0, p.radius_m.isFinite else {
        throw bad(
          "places[\(i)]: latitude_deg in [-90, 90], longitude_deg in [-180, 180] and radius_m > 0 needed")
      }
      named.append(
        NamedPlace(
          geofence: Geofence(
            id: PlaceID(p.id), circle: CircleID(p.circle ?? 0),
            center: Coordinate(latitudeDegrees: p.latitude_deg, longitudeDegrees: p.longitude_deg),
            radiusMeters: p.radius_m),
          name: p.name))
    }
    if let path = places_file { named += try PlacesFile.read(path: path) }
    var circles: [UserID: [CircleID]] = [:]
    for (key, value) in circles_of_person ?? [:] {
      guard let user = UInt32(key) else {
        throw bad("circles_of_person: '\(key.prefix(40))' is not a user id")
      }
      circles[UserID(user)] = value.sorted().map(CircleID.init(rawValue:))
    }
    var limits: [CircleID: SpeedLimit] = [:]
    for (key, kmh) in speed_limits_kmh ?? [:] {
      guard let circle = UInt32(key), kmh > 0, kmh.isFinite else {
        throw bad("speed_limits_kmh: '\(key.prefix(40))' must be a circle id with a positive limit")
      }
      limits[CircleID(circle)] = SpeedLimit(kilometersPerHour: kmh)
    }
    return (
      IngestPipeline(places: named.map(\.geofence), circlesOfPerson: circles, speedLimits: limits), named
    )
  }
}

/// What `hearth_ingest_save` writes: the pipeline's state with the trip
/// names' memory beside its keys (`tripNames`), so bytes saved before ABI
/// 1.2 (the state alone) restore, with nothing remembered.
struct SavedIngest: Codable {
  var state: IngestState
  var names: TripNaming.Memory

  init(state: IngestState, names: TripNaming.Memory) {
    self.state = state
    self.names = names
  }

  enum CodingKeys: String, CodingKey { case tripNames }

  init(from decoder: any Decoder) throws {
    state = try IngestState(from: decoder)
    names =
      try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
        TripNaming.Memory.self, forKey: .tripNames)
      ?? TripNaming.Memory()
  }

  func encode(to encoder: any Encoder) throws {
    try state.encode(to: encoder)
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(names, forKey: .tripNames)
  }
}

/// A pipeline, its state, and the output of the last batch or tick.
final class IngestHandle: Handle {
  var pipeline: IngestPipeline
  /// `hearth_ingest_events_json`'s lines: every record, diagnostics first, place names.
  var lines: IngestEventLines
  var state = IngestState()
  /// The geofence events trips still open may be named from (saved with the state).
  var names = TripNaming.Memory()
  var output = IngestOutput()
  /// The SPEC §7 names of the output's segments, in order.
  var tripNames: [TripNaming.Ends] = []
  /// The output's typed records (built once per batch).
  var events: [hearth_event] = []
  /// Both ends of each trip record, in order.
  var tripRecords: [hearth_trip_names] = []

  init(_ pipeline: IngestPipeline, places: [NamedPlace]) {
    self.pipeline = pipeline
    lines = IngestEventLines(places: places, diagnostics: true)
  }

  func take(_ output: IngestOutput) {
    self.output = output
    tripNames = names.name(
      output.trips.segments, events: output.geofenceEvents, fence: pipeline.geofences, trips: state.trips)
    events = Self.records(output, tripNames: tripNames)
    tripRecords = Self.tripRecords(events: events, tripNames: tripNames)
  }

  /// The header's record of each trip's names; `event` is the index of the
  /// trip's record in `events` (trip records come in segment order).
  static func tripRecords(events: [hearth_event], tripNames: [TripNaming.Ends]) -> [hearth_trip_names] {
    func how(_ source: TripNaming.Ends.Source?) -> Int32 {
      switch source {
      case nil: HEARTH_NAMED_NONE
      case .fence: HEARTH_NAMED_BY_FENCE
      case .placeAt: HEARTH_NAMED_BY_PLACE_AT
      }
    }
    let indices = events.indices.filter { events[$0].kind == HEARTH_EVENT_TRIP }
    return zip(indices, tripNames).map { index, ends in
      hearth_trip_names(
        event: Int64(index), start_place: ends.from?.rawValue ?? 0, start_named_by: how(ends.fromSource),
        end_place: ends.to?.rawValue ?? 0, end_named_by: how(ends.toSource),
        start_distance_m: ends.fromDistanceMeters ?? .nan)
    }
  }

  /// Every event of an output as the header's record, kind by kind; a
  /// trip's `place` is its end's SPEC §7 name (`tripNames`, 0: none).
  static func records(_ o: IngestOutput, tripNames: [TripNaming.Ends]) -> [hearth_event] {
    func event(_ kind: Int32) -> hearth_event {
      hearth_event(
        kind: kind, code: 0, announced: 0, user: 0, device: 0, circle: 0, place: 0, index: 0, time_ms: 0,
        end_ms: 0,
        cell_id: 0, latitude_deg: .nan, longitude_deg: .nan, value: .nan)
    }
    var out: [hearth_event] = []
    for r in o.rejections {
      var e = event(HEARTH_EVENT_REJECTED)
      e.index = Int64(r.index)
      e.code = r.reason.code
      out.append(e)
    }
    for f in o.sharedFrames {
      var e = event(HEARTH_EVENT_SHARED_FRAME)
      (e.user, e.device, e.cell_id, e.time_ms) = (
        f.user.rawValue, f.device.rawValue, f.cell.rawValue, f.timeMilliseconds
      )
      (e.latitude_deg, e.longitude_deg) = (f.coordinate.latitudeDegrees, f.coordinate.longitudeDegrees)
      e.value = f.horizontalAccuracyMeters
      e.announced = 1
      out.append(e)
    }
    for g in o.geofenceEvents {
      var e = event(HEARTH_EVENT_GEOFENCE)
      e.code = g.kind == .arrival ? 0 : 1
      e.announced = g.outcome == .announced ? 1 : 0
      (e.user, e.circle, e.place, e.time_ms, e.end_ms) = (
        g.person.rawValue, g.circle.rawValue, g.place.rawValue, g.eventMilliseconds, g.decidedMilliseconds
      )
      out.append(e)
    }
    for s in o.speedAlerts {
      var e = event(HEARTH_EVENT_SPEED_ALERT)
      e.announced = s.outcome == .announced ? 1 : 0
      (e.user, e.circle, e.time_ms, e.end_ms, e.value) = (
        s.person.rawValue, s.circle.rawValue, s.startMilliseconds, s.endMilliseconds,
        s.agreedSpeedMetersPerSecond
      )
      out.append(e)
    }
    for s in o.suddenStops {
      var e = event(HEARTH_EVENT_SUDDEN_STOP)
      e.announced = s.outcome == .raised ? 1 : 0
      (e.user, e.time_ms, e.end_ms, e.value) = (
        s.person.rawValue, s.stopMilliseconds, s.decidedMilliseconds, s.cruisingMetersPerSecond
      )
      (e.latitude_deg, e.longitude_deg) = (s.coordinate.latitudeDegrees, s.coordinate.longitudeDegrees)
      out.append(e)
    }
    for (i, s) in o.trips.segments.enumerated() {
      var e = event(HEARTH_EVENT_TRIP)
      e.code = s.isTrip ? 1 : 0
      (e.user, e.time_ms, e.end_ms, e.value) = (
        s.person.rawValue, s.summary.startMilliseconds, s.summary.endMilliseconds, s.summary.pathMeters
      )
      (e.latitude_deg, e.longitude_deg) = (s.summary.end.latitudeDegrees, s.summary.end.longitudeDegrees)
      e.place = (i < tripNames.count ? tripNames[i].to : nil)?.rawValue ?? 0
      out.append(e)
    }
    for s in o.trips.stays {
      var e = event(HEARTH_EVENT_STAY)
      (e.user, e.time_ms, e.end_ms) = (s.person.rawValue, s.startMilliseconds, s.endMilliseconds)
      (e.latitude_deg, e.longitude_deg) = (s.coordinate.latitudeDegrees, s.coordinate.longitudeDegrees)
      out.append(e)
    }
    return out
  }
}

@c public func hearth_ingest_create(
  _ description_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    let text = string(description_json) ?? ""
    do {
      let description = try JSONDecoder().decode(
        IngestDescription.self, from: Data((text.isEmpty ? "{}" : text).utf8))
      let (pipeline, places) = try description.pipeline()
      return (IngestHandle(pipeline, places: places), HEARTH_OK)
    } catch let error as TraceError {
      return FailedHandle.with(HEARTH_ERROR_BAD_INPUT, "\(error)")
    } catch {
      return FailedHandle.with(
        HEARTH_ERROR_BAD_INPUT,
        "ingest description: not a description of places and circles (places, places_file, circles_of_person, speed_limits_kmh)"
      )
    }
  }
}

@c public func hearth_ingest_batch(
  _ ingest: OpaquePointer?, _ fixes: UnsafePointer<hearth_fixes>?, _ received_ms: Int64
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
    let batch = try FixColumns(fixes.pointee)
    h.take(h.pipeline.ingest(batch, receivedAtMilliseconds: received_ms, state: &h.state))
    if let error = h.output.schemaError { return h.fail(HEARTH_ERROR_SCHEMA, error.description) }
    return h.succeed()
  }
}

@c public func hearth_ingest_tick(_ ingest: OpaquePointer?, _ now_ms: Int64) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  h.take(h.pipeline.advance(to: now_ms, state: &h.state))
  return h.succeed()
}

@c public func hearth_ingest_count(
  _ ingest: OpaquePointer?, _ events: UnsafeMutablePointer<Int64>?, _ inserted: UnsafeMutablePointer<Int64>?,
  _ duplicates: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  events?.pointee = Int64(h.events.count)
  inserted?.pointee = Int64(h.output.inserted)
  duplicates?.pointee = Int64(h.output.duplicates)
  return h.succeed()
}

@c public func hearth_ingest_kept(
  _ ingest: OpaquePointer?, _ not_newer: UnsafeMutablePointer<Int64>?,
  _ overruled: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  not_newer?.pointee = Int64(h.output.notNewer)
  overruled?.pointee = Int64(h.output.overruled)
  return h.succeed()
}

@c public func hearth_ingest_events(
  _ ingest: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_event>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    guard try checkedCount(capacity, "capacity") >= h.events.count else {
      return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(h.events.count) events")
    }
    let records = try output(out, h.events.count, "out")
    for (i, e) in h.events.enumerated() { records[i] = e }
    return h.succeed()
  }
}

@c public func hearth_ingest_events_json(
  _ ingest: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  do { return handOutBytes(out, text(try h.lines.lines(h.output, tripNames: h.tripNames))) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "cannot encode an event: \(error)")
  }
}

@c public func hearth_ingest_trip_names(
  _ ingest: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_trip_names>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    guard try checkedCount(capacity, "capacity") >= h.tripRecords.count else {
      return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(h.tripRecords.count) trips")
    }
    let records = try output(out, h.tripRecords.count, "out")
    for (i, r) in h.tripRecords.enumerated() { records[i] = r }
    return h.succeed()
  }
}

@c public func hearth_ingest_reconfigure(
  _ ingest: OpaquePointer?, _ description_json: UnsafePointer<CChar>?, _ dropped: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  let text = string(description_json) ?? ""
  let pipeline: IngestPipeline
  let places: [NamedPlace]
  do {
    let description = try JSONDecoder().decode(
      IngestDescription.self, from: Data((text.isEmpty ? "{}" : text).utf8))
    (pipeline, places) = try description.pipeline()
  } catch let error as TraceError {
    return h.fail(HEARTH_ERROR_BAD_INPUT, "\(error); the pipeline is unchanged")
  } catch {
    return h.fail(
      HEARTH_ERROR_BAD_INPUT,
      "ingest description: not a description of places and circles (places, places_file, circles_of_person, speed_limits_kmh); the pipeline is unchanged"
    )
  }
  let report = pipeline.adopt(&h.state)
  h.pipeline = pipeline
  h.lines = IngestEventLines(places: places, diagnostics: true)
  h.take(IngestOutput())
  dropped?.pointee = Int64(
    report.droppedPlaceRecords + report.droppedPendingDepartures + report.droppedPendingArrivals
      + report.droppedSpeedStretches)
  return h.succeed()
}

@c public func hearth_ingest_save(_ ingest: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?)
  -> Int32
{
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  encoder.nonConformingFloatEncodingStrategy = .convertToString(
    positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
  do { return handOutBytes(out, try encoder.encode(SavedIngest(state: h.state, names: h.names))) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "cannot encode the state: \(error)")
  }
}

@c public func hearth_ingest_restore(_ ingest: OpaquePointer?, _ state: UnsafePointer<UInt8>?, _ size: Int64)
  -> Int32
{
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    let bytes = try input(state, try checkedCount(size, "size"), "state")
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    guard let restored = try? decoder.decode(SavedIngest.self, from: Data(bytes)) else {
      return h.fail(
        HEARTH_ERROR_BAD_INPUT, "not a saved ingest state (\(size) bytes); the state is unchanged")
    }
    h.state = restored.state
    h.names = restored.names
    h.take(IngestOutput())
    return h.succeed()
  }
}
