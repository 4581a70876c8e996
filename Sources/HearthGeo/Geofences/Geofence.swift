/// A circular place shared with a circle of people (SPEC §3).
public struct Geofence: Sendable, Hashable, Codable {
  /// Unique across the engine.
  public var id: PlaceID
  /// The circle of people the place belongs to.
  public var circle: CircleID
  public var center: Coordinate
  /// Metres, > 0.
  public var radiusMeters: Double

  /// The largest radius a places file may give a place, metres (100 km: a
  /// region, far beyond any home, school or town). The index and engines
  /// accept any radius from the library API; this cap is what a file reader
  /// enforces so a hostile file cannot describe the whole globe.
  public static let maximumRadiusMeters = 100_000.0

  public init(id: PlaceID, circle: CircleID = 0, center: Coordinate, radiusMeters: Double) {
    self.id = id
    self.circle = circle
    self.center = center
    self.radiusMeters = radiusMeters
  }
}

/// The numbers of SPEC §3, in one place. The defaults are the spec's.
public struct GeofenceRules: Sendable, Hashable, Codable {
  /// Leave only beyond radius + this band, metres.
  public var exitBandMeters = 40.0
  /// Fixes looser than this are ignored, metres.
  public var ignoreAccuracyAboveMeters = 250.0
  /// Fixes looser than this are network estimates: they may bring somebody
  /// in, but take them out only from more than `networkExitErrorMultiple` ×
  /// their accuracy outside the radius (where that exceeds the band).
  public var networkAccuracyAboveMeters = 100.0
  public var networkExitErrorMultiple = 2.0
  /// A departure waits for a second clear fix or this long without a fix back inside.
  public var departureSettleMilliseconds: Int64 = 60_000
  /// Arrivals at this speed or faster wait (driving past?), m/s. The speed
  /// is the fix's own measured speed, else the agreed speed (``AgreedSpeed``)
  /// from the person's previous fix to it.
  public var fastArrivalMetersPerSecond = 5.0
  /// …until a fix inside is slower, or this long has passed inside; a fix
  /// outside the radius before then is a drive-by.
  public var fastArrivalWaitMilliseconds: Int64 = 60_000
  /// Coming back within this long after a departure…
  public var returnWithinMilliseconds: Int64 = 600_000
  /// …keeps the place to the feed only until this long after the return;
  /// every later quick return extends it (the windows chain).
  public var quietForMilliseconds: Int64 = 900_000
  /// News older than this when decided goes to the feed only.
  public var staleNewsMilliseconds: Int64 = 1_800_000
  /// A person's fixes uploaded late: what they decide goes to the feed only.
  public var late = LateUploadRule()
  /// `placeAt` falls back to the nearest centre only if its edge is this close, metres.
  public var placeAtNearestCapMeters = 1_000.0
  /// Journeys are measured over fixes at least this sharp, metres.
  public var journeyAccuracyMeters = 100.0
  /// Neighbour speeds for the fast-arrival test.
  public var agreed = AgreedSpeedRules()

  public init() {}
}

/// Arrival or departure.
public enum GeofenceEventKind: String, Sendable, Hashable, Codable {
  case arrival, departure
}

/// What became of an event.
public enum GeofenceOutcome: String, Sendable, Hashable, Codable {
  /// Notify the circle.
  case announced
  /// Recorded in the feed, no notification.
  case feedOnly
  /// Waiting (settling); a later record with the same place and event time
  /// says how it ended.
  case pending
  /// Withdrawn: it did not happen after all.
  case cancelled
}

/// Why an event got its outcome. Every decision carries at least one.
public enum GeofenceReason: String, Sendable, Hashable, Codable {
  /// A fix within the radius of a place the person was outside.
  case entered
  /// A fix beyond the exit distance; waiting for confirmation.
  case leftWaitingForConfirmation
  /// Departure confirmed by a second fix clear of the place.
  case secondFixClear
  /// Departure confirmed: a minute without a fix back inside.
  case minuteWithoutReturn
  /// Departure cancelled: a fix back inside within the minute.
  case backInside
  /// Arriving at 5 m/s or more: waiting up to a minute (driving past?).
  case fastArrivalWaiting
  /// The fast arrival confirmed: a fix inside slower than 5 m/s.
  case fastArrivalSlowed
  /// The fast arrival confirmed: a minute passed with the phone inside.
  case fastArrivalMinutePassed
  /// Cancelled: a fix outside the radius within the minute (drove past).
  case drovePast
  /// Several places crossed on one fix: only the smallest is announced.
  case smallerPlaceAnnounced
  /// Back within 10 min of leaving: the place goes quiet for 15 min (the
  /// first such return is still announced: leaving and coming back is the
  /// one pair of notifications somebody pacing a boundary gets).
  case returnedSoon
  /// The place is quiet (15 min after a quick return): feed only.
  case placeQuiet
  /// Older than 30 min when decided.
  case staleNews
  /// From a batch whose newest fix was over 15 min old on arrival.
  case lateBatch
  /// A departure still waiting when an arrival elsewhere went out: dropped.
  case supersededByArrival
  /// The fix that confirmed the departure was already inside another place.
  case arrivedElsewhere
  /// The place was removed, or left the person's circles, while this waited.
  case placeRemoved

  /// Whether the reason keeps a decided event to the feed only.
  public var makesFeedOnly: Bool {
    switch self {
    case .smallerPlaceAnnounced, .placeQuiet, .staleNews, .lateBatch, .supersededByArrival,
      .arrivedElsewhere, .placeRemoved:
      true
    case .entered, .leftWaitingForConfirmation, .secondFixClear, .minuteWithoutReturn, .backInside,
      .fastArrivalWaiting, .fastArrivalSlowed, .fastArrivalMinutePassed, .drovePast, .returnedSoon:
      false
    }
  }
}

/// Distance and time travelled since the departure an arrival answers.
public struct Journey: Sendable, Hashable, Codable {
  /// The place left (nil when the departure was not from a place we know).
  public var fromPlace: PlaceID?
  public var departedMilliseconds: Int64
  /// Path along the sharp fixes since the departure, metres.
  public var distanceMeters: Double
  public var durationMilliseconds: Int64
}

/// One decision of the geofence engine.
public struct GeofenceEvent: Sendable, Hashable, Codable {
  public var kind: GeofenceEventKind
  public var outcome: GeofenceOutcome
  public var reasons: ReasonList<GeofenceReason>
  public var place: PlaceID
  public var circle: CircleID
  public var person: UserID
  /// When it happened: the fix that crossed, ms since the epoch.
  public var eventMilliseconds: Int64
  /// When it was decided (a fix's time or the clock), ms since the epoch.
  public var decidedMilliseconds: Int64
  /// Arrivals that were announced or fed: the journey since the last departure.
  public var journey: Journey?
}
