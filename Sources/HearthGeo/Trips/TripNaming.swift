/// SPEC §7 named ends and what a finished trip says.
///
/// Every door that shows a trip (the replay's and `hearth_ingest_events_json`'s
/// lines, `hearth geo trips`, the C ABI's trip records, Python) names its
/// ends with ``ends(of:events:fence:)`` through a ``Memory``; none keeps a
/// rule of its own.
public enum TripNaming {
  /// The named ends of a trip and where each name came from.
  public struct Ends: Sendable, Hashable, Codable {
    public enum Source: String, Sendable, Hashable, Codable {
      /// The fence's own record: the first departure during the trip, or the
      /// last arrival during it that was not left again.
      case fence
      /// A start the fence never saw them leave: SPEC §3 placeAt
      /// (`GeofenceEngine.placeAt(_:for:)`).
      case placeAt
    }
    /// The start's place (nil: no departure during the trip and no place
    /// holding the start or with its edge within the placeAt cap).
    public var from: PlaceID?
    public var fromSource: Source?
    /// For a start named by placeAt, the great-circle distance from the
    /// trip's first fix to that place's centre, metres (below the radius
    /// when the place holds the start); nil otherwise.
    public var fromDistanceMeters: Double?
    /// The end's place: the last arrival during the trip not left again
    /// (nil: none). Only the fence names an end.
    public var to: PlaceID?
    /// `.fence` when `to` is named, else nil.
    public var toSource: Source?

    public init(
      from: PlaceID? = nil, fromSource: Source? = nil, fromDistanceMeters: Double? = nil, to: PlaceID? = nil,
      toSource: Source? = nil
    ) {
      self.from = from
      self.fromSource = fromSource
      self.fromDistanceMeters = fromDistanceMeters
      self.to = to
      self.toSource = toSource
    }
  }

  /// Whether a geofence event was said (announced or to the feed only):
  /// only those are the fence's records of a trip.
  static func said(_ event: GeofenceEvent) -> Bool {
    event.outcome == .announced || event.outcome == .feedOnly
  }

  /// Names `trip`'s ends (SPEC §7): the start from the first departure said
  /// during the trip (`events`: the person's geofence events, others are
  /// ignored; an event is during the trip when its fix time is within the
  /// trip's first and last fix, both included), else by `fence`'s placeAt
  /// among the places the person sees (smallest place holding the start,
  /// else the nearest centre whose edge is within 1 km), with the distance
  /// to its centre; the end from the last arrival said during the trip
  /// that no later departure during it left. Place ids are `Geofence.id`s.
  /// O(e log e) for e events, plus O(places near the start).
  public static func ends(of trip: TripSegment, events: [GeofenceEvent], fence: GeofenceEngine) -> Ends {
    let during = events.filter {
      $0.person == trip.person && said($0)
        && $0.eventMilliseconds >= trip.summary.startMilliseconds
        && $0.eventMilliseconds <= trip.summary.endMilliseconds
    }.sorted { $0.eventMilliseconds < $1.eventMilliseconds }
    var ends = Ends()
    if let departure = during.first(where: { $0.kind == .departure }) {
      ends.from = departure.place
      ends.fromSource = .fence
    } else if let place = fence.placeAt(trip.summary.start, for: trip.person) {
      ends.from = place.id
      ends.fromSource = .placeAt
      ends.fromDistanceMeters = GreatCircle.distanceMeters(from: trip.summary.start, to: place.center)
    }
    for arrival in during.reversed() where arrival.kind == .arrival {
      let leftAgain = during.contains {
        $0.kind == .departure && $0.place == arrival.place && $0.eventMilliseconds > arrival.eventMilliseconds
      }
      if !leftAgain {
        ends.to = arrival.place
        ends.toSource = .fence
        break
      }
    }
    return ends
  }

  /// What naming needs to remember between a pipeline's outputs: a trip
  /// closes minutes after the departure that names its start was decided,
  /// usually in a later batch or tick, so each person's said geofence
  /// events are kept until no trip that has not closed yet can contain
  /// them (older than ``TripSegmenterState/earliestOpenStartMilliseconds(_:)``),
  /// and at most ``eventsPerPerson`` of them (the newest).
  ///
  /// A plain `Codable` value: save it with the pipeline's state (the C
  /// ABI's saved bytes carry it) so a restored pipeline names trips as an
  /// uninterrupted one does. People in ascending id order when encoded.
  public struct Memory: Sendable, Hashable, Codable {
    /// Per person, the said events kept, by fix time (ties: as decided).
    var people: [UserID: [GeofenceEvent]] = [:]
    /// At most this many events are kept per person (the oldest go first).
    /// The trip state bounds the memory for everyone whose fixes reach the
    /// segmenter; this bounds it for a phone whose fixes never do (network
    /// estimates only). 256 is far more than one trip's arrivals and
    /// departures, so no name changes below it.
    public let eventsPerPerson: Int

    public init(eventsPerPerson: Int = 256) {
      self.eventsPerPerson = max(1, eventsPerPerson)
    }

    /// Events kept for `person` (what the next trips may be named from).
    public func remembered(_ person: UserID) -> [GeofenceEvent] { people[person] ?? [] }

    /// Takes one output's geofence `events` (only said ones are kept),
    /// names each of its closed `segments` (the same batch's or tick's)
    /// with ``TripNaming/ends(of:events:fence:)``, then forgets what no
    /// trip still open can use, by `trips` (the segmenter's state after
    /// that batch or tick). Returns one `Ends` per segment, in order.
    /// - Complexity: O(e log e) for the e events kept of a person, per segment
    ///   and per person touched.
    public mutating func name(
      _ segments: [TripSegment], events: [GeofenceEvent], fence: GeofenceEngine, trips: TripSegmenterState
    ) -> [Ends] {
      var touched = Set<UserID>()
      for event in events where said(event) {
        people[event.person, default: []].append(event)
        touched.insert(event.person)
      }
      for person in touched {
        // Stable: same-time events keep their order of decision.
        people[person]?.sort { $0.eventMilliseconds < $1.eventMilliseconds }
      }
      let names = segments.map { TripNaming.ends(of: $0, events: people[$0.person] ?? [], fence: fence) }
      for person in touched.union(segments.map(\.person)) {
        guard var kept = people[person] else { continue }
        if let bound = trips.earliestOpenStartMilliseconds(person) {
          kept.removeAll { $0.eventMilliseconds < bound }
        }
        if kept.count > eventsPerPerson { kept.removeFirst(kept.count - eventsPerPerson) }
        people[person] = kept.isEmpty ? nil : kept
      }
      return names
    }

    enum CodingKeys: String, CodingKey { case people, eventsPerPerson }

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      eventsPerPerson = max(1, try c.decode(Int.self, forKey: .eventsPerPerson))
      for event in try c.decode([GeofenceEvent].self, forKey: .people) {
        people[event.person, default: []].append(event)
      }
      for person in Array(people.keys) {
        people[person]?.sort { $0.eventMilliseconds < $1.eventMilliseconds }
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(people.keys.sorted().flatMap { people[$0] ?? [] }, forKey: .people)
      try c.encode(eventsPerPerson, forKey: .eventsPerPerson)
    }
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
    guard now.saturatingSubtract(trip.summary.endMilliseconds) <= rules.stoppedNoticeMilliseconds else {
      return .nothing
    }
    var best: (PlaceID, Double)?
    for place in places {
      let d = GreatCircle.distanceMeters(from: place.center, to: trip.summary.end)
      if best.map({ (d, place.id) < ($0.1, $0.0) }) ?? true { best = (place.id, d) }
    }
    guard let (place, meters) = best else { return .nothing }
    return .stoppedNear(place: place, meters: meters)
  }
}
