import Foundation
import HearthGeo
import HearthTrace

/// Which of the ingest path's records a reader wants: by kind, and
/// optionally only what reaches a person's phone.
///
/// "Announced" means a notification: a geofence event or speed alert whose
/// outcome is `announced`, a sudden stop that was `raised`. Trips and stays
/// are feed records, never announced, so `announced` alone leaves them out.
public struct IngestEventFilter: Sendable, Hashable {
  /// The record kinds, named as the `type` of a JSON line.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case geofence, speedAlert, suddenStop, trip, stay
  }

  /// Kinds kept.
  public var kinds: Set<Kind>
  /// Keep only announced geofence events and speed alerts and raised sudden stops.
  public var announcedOnly: Bool

  public init(kinds: Set<Kind> = Set(Kind.allCases), announcedOnly: Bool = false) {
    self.kinds = kinds
    self.announcedOnly = announcedOnly
  }

  /// Every record.
  public static let everything = IngestEventFilter()

  /// Parses a comma-separated list of `announced` and kinds
  /// (`geofence,speedAlert,suddenStop,trip,stay`): the kinds named (all when
  /// none is), announced only when `announced` is in the list.
  /// `"announced,geofence"` = announced geofence events only.
  /// - Returns: nil, with no filter, when a word is neither.
  public init?(parsing text: String) {
    var kinds: Set<Kind> = []
    var announced = false
    for word in text.split(separator: ",", omittingEmptySubsequences: false) {
      let word = word.trimmingCharacters(in: .whitespaces)
      if word == "announced" {
        announced = true
      } else if let kind = Kind(rawValue: word) {
        kinds.insert(kind)
      } else {
        return nil
      }
    }
    self.init(kinds: kinds.isEmpty ? Set(Kind.allCases) : kinds, announcedOnly: announced)
  }

  /// Whether a record of `kind` whose outcome is (or is not) a notification is kept.
  public func keeps(_ kind: Kind, notifies: Bool) -> Bool {
    kinds.contains(kind) && (!announcedOnly || notifies)
  }
}

/// The ingest path's output as JSON Lines, one object per record, the shape
/// `hearth geo replay` prints and `hearth_ingest_events_json` hands out:
///
/// `{"type": "geofence" | "speedAlert" | "suddenStop" | "trip" | "stay",
///   "timeMilliseconds": when it was decided or ended (ms since the epoch),
///   "value": the record (every field with its unit in its name),
///   "placeName": the place's name, for geofence events and trips ending at a named place,
///   "startPlaceName": the name of a trip's start place}`
///
/// A trip's value names both ends by SPEC §7 (``TripNaming``, passed in by
/// the caller): `startPlace` and `startNamedBy` (`"fence"`: the first
/// departure during the trip; `"placeAt"`: a start the fence never saw them
/// leave, with `startPlaceDistanceMeters` to that place's centre), `endPlace`
/// and `endNamedBy` (`"fence"`: the last arrival not left again); `null`
/// where an end has no name.
///
/// With `diagnostics`, the batch's `schemaError`, `rejected` fixes and
/// `sharedFrame`s come first (what a server logs; the command prints
/// refusals on stderr instead). Keys sorted, NaN and ±∞ as `null`
/// (``JSONOutput``), so equal outputs give equal bytes.
///
/// Complexity: O(records) per output.
public struct IngestEventLines: Sendable {
  public var placeNames: [PlaceID: String]
  public var filter: IngestEventFilter
  public var diagnostics: Bool

  public init(
    placeNames: [PlaceID: String] = [:], filter: IngestEventFilter = .everything, diagnostics: Bool = false
  ) {
    self.placeNames = placeNames
    self.filter = filter
    self.diagnostics = diagnostics
  }

  /// The names of the places that have one (the first place of a repeated
  /// id, as the geofence engine keeps).
  public init(places: [NamedPlace], filter: IngestEventFilter = .everything, diagnostics: Bool = false) {
    var names: [PlaceID: String] = [:]
    for place in places where names[place.geofence.id] == nil {
      if let name = place.name { names[place.geofence.id] = name }
    }
    self.init(placeNames: names, filter: filter, diagnostics: diagnostics)
  }

  private struct Line<T: Encodable>: Encodable {
    var type: String
    var timeMilliseconds: Int64
    var value: T
    var placeName: String?
    var startPlaceName: String?
  }

  /// A trip segment without its fixes (they are the history's own), its
  /// ends named by ``TripNaming`` (every key written, `null` when unnamed).
  private struct TripLine: Encodable {
    var id: UInt64
    var person: UserID
    var isTrip: Bool
    var reasons: [String]
    var endedBy: String
    var ends: TripNaming.Ends
    var summary: TripSummary

    enum CodingKeys: String, CodingKey {
      case id, person, isTrip, reasons, endedBy, startPlace, startNamedBy, startPlaceDistanceMeters, endPlace
      case endNamedBy, summary
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(id, forKey: .id)
      try c.encode(person, forKey: .person)
      try c.encode(isTrip, forKey: .isTrip)
      try c.encode(reasons, forKey: .reasons)
      try c.encode(endedBy, forKey: .endedBy)
      try c.encode(ends.from, forKey: .startPlace)
      try c.encode(ends.fromSource, forKey: .startNamedBy)
      try c.encode(ends.fromDistanceMeters, forKey: .startPlaceDistanceMeters)
      try c.encode(ends.to, forKey: .endPlace)
      try c.encode(ends.toSource, forKey: .endNamedBy)
      try c.encode(summary, forKey: .summary)
    }
  }

  /// One output's lines, in the order: diagnostics, geofence events, speed
  /// alerts, sudden stops, trips, stays (each in the engine's order).
  /// `tripNames[i]` names `output.trips.segments[i]` (what
  /// `TripNaming.Memory.name` returned for this output; a segment without
  /// one is printed unnamed).
  /// - Throws: `TraceError.io` only if a value cannot be encoded.
  public func lines(_ output: IngestOutput, tripNames: [TripNaming.Ends]) throws -> [String] {
    var lines: [String] = []
    let json = try JSONOutput.Writer()
    func add<T: Encodable>(
      _ type: String, _ time: Int64, _ value: T, place: PlaceID? = nil, startPlace: PlaceID? = nil
    ) throws {
      let line = Line(
        type: type, timeMilliseconds: time, value: value, placeName: place.flatMap { placeNames[$0] },
        startPlaceName: startPlace.flatMap { placeNames[$0] })
      lines.append(String(decoding: try json.encode(line), as: UTF8.self))
    }
    if diagnostics {
      if let error = output.schemaError { try add("schemaError", 0, error.description) }
      for r in output.rejections { try add("rejected", 0, r) }
      for f in output.sharedFrames { try add("sharedFrame", f.timeMilliseconds, f) }
    }
    for e in output.geofenceEvents where filter.keeps(.geofence, notifies: e.outcome == .announced) {
      try add("geofence", e.decidedMilliseconds, e, place: e.place)
    }
    for e in output.speedAlerts where filter.keeps(.speedAlert, notifies: e.outcome == .announced) {
      try add("speedAlert", e.endMilliseconds, e)
    }
    for e in output.suddenStops where filter.keeps(.suddenStop, notifies: e.outcome == .raised) {
      try add("suddenStop", e.decidedMilliseconds, e)
    }
    for (i, s) in output.trips.segments.enumerated() where filter.keeps(.trip, notifies: false) {
      let ends = i < tripNames.count ? tripNames[i] : TripNaming.Ends()
      let line = TripLine(
        id: s.id, person: s.person, isTrip: s.isTrip, reasons: s.reasons.map(\.rawValue),
        endedBy: s.endedBy.rawValue, ends: ends, summary: s.summary)
      try add("trip", s.summary.endMilliseconds, line, place: ends.to, startPlace: ends.from)
    }
    for s in output.trips.stays where filter.keeps(.stay, notifies: false) {
      try add("stay", s.endMilliseconds, s)
    }
    return lines
  }
}
