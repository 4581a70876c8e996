/// SPEC §7 named ends and what a finished trip says.
public enum TripNaming {
  /// The named ends of a trip and where each name came from.
  public struct Ends: Sendable, Hashable, Codable {
    public enum Source: String, Sendable, Hashable, Codable {
      /// The fence's own record: the first departure during the trip, or the
      /// last arrival during it that was not left again.
      case fence
      /// A start the fence never saw them leave: `GeofenceIndex.placeAt`.
      case placeAt
    }
    public var from: PlaceID?
    public var fromSource: Source?
    public var to: PlaceID?
  }

  /// Names `trip`'s ends from `events` (the person's geofence events; only
  /// announced and feed-only ones count) and, for an unnamed start, from
  /// `places.placeAt` (1 km cap). Place ids are `Geofence.id`s.
  /// O(events + places near the start).
  public static func ends(of trip: TripSegment, events: [GeofenceEvent], places: GeofenceIndex?) -> Ends {
    let during = events.filter {
      $0.person == trip.person && ($0.outcome == .announced || $0.outcome == .feedOnly)
        && $0.eventMilliseconds >= trip.summary.startMilliseconds
        && $0.eventMilliseconds <= trip.summary.endMilliseconds
    }.sorted { $0.eventMilliseconds < $1.eventMilliseconds }
    var ends = Ends()
    if let departure = during.first(where: { $0.kind == .departure }) {
      ends.from = departure.place
      ends.fromSource = .fence
    } else if let places, let i = places.placeAt(trip.summary.start) {
      ends.from = places.places[i].id
      ends.fromSource = .placeAt
    }
    for arrival in during.reversed() where arrival.kind == .arrival {
      let leftAgain = during.contains {
        $0.kind == .departure && $0.place == arrival.place && $0.eventMilliseconds > arrival.eventMilliseconds
      }
      if !leftAgain {
        ends.to = arrival.place
        break
      }
    }
    return ends
  }

  /// What a closed trip yields.
  public enum Notice: Sendable, Hashable, Codable {
    /// It ended at a named place: the feed only (the arrival already spoke).
    case feedOnly(place: PlaceID)
    /// "Stopped X km from <place>": the nearest place and the distance to its centre, m.
    case stoppedNear(place: PlaceID, meters: Double)
    /// Ended elsewhere, but more than 30 min ago (or no place at all): nothing to say.
    case nothing
  }

  /// SPEC §7: a trip ending at a named place is feed-only; elsewhere, up to
  /// 30 min after it ended, it yields "stopped X km from <place>" with the
  /// place whose centre is nearest. O(places).
  public static func notice(
    for trip: TripSegment, ends: Ends, places: [Geofence], now: Int64, rules: TripRules = TripRules()
  ) -> Notice {
    if let to = ends.to { return .feedOnly(place: to) }
    guard now - trip.summary.endMilliseconds <= rules.stoppedNoticeMilliseconds else { return .nothing }
    var best: (PlaceID, Double)?
    for place in places {
      let d = GreatCircle.distanceMeters(from: place.center, to: trip.summary.end)
      if best.map({ (d, place.id) < ($0.1, $0.0) }) ?? true { best = (place.id, d) }
    }
    guard let (place, meters) = best else { return .nothing }
    return .stoppedNear(place: place, meters: meters)
  }
}
