import CHearth
import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace

/// The runtime's ingest session (pipeline, state, the trip names' memory,
/// the last output and its names) and the header's records of that output.
final class IngestHandle: Handle {
  var session: IngestSession
  /// The output's typed records (built once per batch).
  var events: [hearth_event] = []
  /// Both ends of each trip record, in order.
  var tripRecords: [hearth_trip_names] = []
  /// Where each of `events` came from (HEARTH_ORIGIN_*).
  var origins: [Int32] = []

  init(_ session: IngestSession) {
    self.session = session
  }

  /// The header's records of the session's last output.
  func recordOutput() {
    events = Self.records(session.output, tripNames: session.tripNames)
    tripRecords = Self.tripRecords(events: events, tripNames: session.tripNames)
    origins = Self.origins(events: events, clockPart: session.clockPart)
  }

  /// Each record's origin: of each kind's records, the last as many as the
  /// clock part has of that kind are the clock's (``IngestSession/clockPart``).
  static func origins(events: [hearth_event], clockPart c: IngestOutput) -> [Int32] {
    let clock: [Int32: Int] = [
      HEARTH_EVENT_GEOFENCE: c.geofenceEvents.count, HEARTH_EVENT_SPEED_ALERT: c.speedAlerts.count,
      HEARTH_EVENT_SUDDEN_STOP: c.suddenStops.count, HEARTH_EVENT_TRIP: c.trips.segments.count,
      HEARTH_EVENT_STAY: c.trips.stays.count, HEARTH_EVENT_REJECTED: c.rejections.count,
      HEARTH_EVENT_SHARED_FRAME: c.sharedFrames.count,
    ]
    var left = [Int32: Int]()
    for e in events { left[e.kind, default: 0] += 1 }
    return events.map { e in
      left[e.kind, default: 0] -= 1
      return left[e.kind, default: 0] < clock[e.kind, default: 0] ? HEARTH_ORIGIN_CLOCK : HEARTH_ORIGIN_BATCH
    }
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

/// The description in `json` (NULL or "": the empty one), or why not.
private func description(_ json: UnsafePointer<CChar>?) -> Result<IngestDescription, Error> {
  Result { try IngestDescription.decode(try string(json, "description_json") ?? "") }
}

@c public func hearth_ingest_create(
  _ description_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    switch description(description_json) {
    case .success(let d): return (IngestHandle(IngestSession(d)), HEARTH_OK)
    case .failure(let error): return FailedHandle.with(status(of: error), "\(error)")
    }
  }
}

@c public func hearth_ingest_batch(
  _ ingest: OpaquePointer?, _ fixes: UnsafePointer<hearth_fixes>?, _ received_ms: Int64
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
    if let why = FixValidation.serverClockProblem(received_ms) {
      throw ArgumentError(reason: "received_ms: \(why)")
    }
    let batch = try FixColumns(fixes.pointee)
    h.session.ingest(batch, receivedAtMilliseconds: received_ms)
    h.recordOutput()
    if let error = h.session.output.schemaError { return h.fail(HEARTH_ERROR_SCHEMA, error.description) }
    return h.succeed()
  }
}

@c public func hearth_ingest_tick(_ ingest: OpaquePointer?, _ now_ms: Int64) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    if let why = FixValidation.serverClockProblem(now_ms) { throw ArgumentError(reason: "now_ms: \(why)") }
    h.session.advance(to: now_ms)
    h.recordOutput()
    return h.succeed()
  }
}

@c public func hearth_ingest_count(
  _ ingest: OpaquePointer?, _ events: UnsafeMutablePointer<Int64>?, _ inserted: UnsafeMutablePointer<Int64>?,
  _ duplicates: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  events?.pointee = Int64(h.events.count)
  inserted?.pointee = Int64(h.session.output.inserted)
  duplicates?.pointee = Int64(h.session.output.duplicates)
  return h.succeed()
}

@c public func hearth_ingest_kept(
  _ ingest: OpaquePointer?, _ not_newer: UnsafeMutablePointer<Int64>?,
  _ overruled: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  not_newer?.pointee = Int64(h.session.output.notNewer)
  overruled?.pointee = Int64(h.session.output.overruled)
  return h.succeed()
}

@c public func hearth_ingest_events(
  _ ingest: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_event>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return copyOut(h.events, capacity: capacity, to: out, on: h, "events")
}

@c public func hearth_ingest_events_json(
  _ ingest: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  do { return handOutBytes(out, text(try h.session.lines(diagnostics: true))) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "cannot encode an event: \(error)")
  }
}

@c public func hearth_ingest_trip_names(
  _ ingest: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_trip_names>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return copyOut(h.tripRecords, capacity: capacity, to: out, on: h, "trips")
}

@c public func hearth_ingest_reconfigure(
  _ ingest: OpaquePointer?, _ description_json: UnsafePointer<CChar>?, _ dropped: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  switch description(description_json) {
  case .failure(let error): return h.fail(status(of: error), "\(error); the pipeline is unchanged")
  case .success(let d):
    let report = h.session.reconfigure(d)
    h.recordOutput()
    dropped?.pointee = Int64(
      report.droppedPlaceRecords + report.droppedPendingDepartures + report.droppedPendingArrivals
        + report.droppedSpeedStretches)
    return h.succeed()
  }
}

@c public func hearth_ingest_save(_ ingest: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?)
  -> Int32
{
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  do { return handOutBytes(out, try h.session.saved()) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}

@c public func hearth_ingest_restore(_ ingest: OpaquePointer?, _ state: UnsafePointer<UInt8>?, _ size: Int64)
  -> Int32
{
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return guarded(h) { () throws(ArgumentError) in
    let bytes = try input(state, try checkedCount(size, "size"), "state")
    do { try h.session.restore(Data(bytes)) } catch {
      return h.fail(HEARTH_ERROR_BAD_INPUT, "\(error)")
    }
    h.recordOutput()
    return h.succeed()
  }
}

@c public func hearth_ingest_origins(
  _ ingest: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<Int32>?
) -> Int32 {
  guard let h = Handle.from(ingest, as: IngestHandle.self) else { return wrongHandle(ingest) }
  return copyOut(h.origins, capacity: capacity, to: out, on: h, "events")
}
