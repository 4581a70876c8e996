/// Everything the geofence engine remembers between batches: a plain value
/// a server keeps in a row and a phone in storage (`Codable`; people are
/// encoded in ascending id order, so with `JSONEncoder`'s `.sortedKeys` the
/// bytes are stable).
public struct GeofenceState: Sendable, Hashable, Codable {
  var people: [UInt32: PersonGeofenceState] = [:]

  public init() {}

  /// Places `person` is inside (settled or settling), ascending ids.
  public func placesInside(_ person: UserID) -> [PlaceID] {
    people[person.rawValue]?.records.filter(\.inside).map(\.place) ?? []
  }

  enum CodingKeys: String, CodingKey { case people }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let list = try container.decode([PersonGeofenceState].self, forKey: .people)
    people = Dictionary(uniqueKeysWithValues: list.map { ($0.person, $0) })
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(people.keys.sorted().map { people[$0]! }, forKey: .people)
  }
}

/// One person's memory.
struct PersonGeofenceState: Sendable, Hashable, Codable {
  var person: UInt32
  /// One record per place evaluated recently, ascending place id.
  var records: [PlaceRecord] = []
  /// Path along sharp fixes so far (metres) and the last fix counted.
  var odometerMeters = 0.0
  var lastSharp: FixPoint?
  /// The newest fix seen (any place), for the state's eviction.
  var newestMilliseconds = Int64.min
  /// The last confirmed departure, which the next arrival answers.
  var lastDeparture: DepartureMark?

  init(person: UInt32) { self.person = person }

  /// The record for `place`, inserted in order if missing.
  mutating func recordIndex(_ place: PlaceID) -> Int {
    var low = 0
    var high = records.count
    while low < high {
      let mid = (low + high) / 2
      if records[mid].place < place { low = mid + 1 } else { high = mid }
    }
    if low < records.count && records[low].place == place { return low }
    records.insert(PlaceRecord(place: place), at: low)
    return low
  }
}

struct FixPoint: Sendable, Hashable, Codable {
  var latitudeDegrees: Double
  var longitudeDegrees: Double
  var milliseconds: Int64
  var coordinate: Coordinate {
    Coordinate(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
  }
}

struct DepartureMark: Sendable, Hashable, Codable {
  var place: PlaceID
  var milliseconds: Int64
  var odometerMeters: Double
}

/// What the engine knows about one person and one place.
struct PlaceRecord: Sendable, Hashable, Codable {
  var place: PlaceID
  /// Inside (settled, or arrived and settling).
  var inside = false
  /// Fixes not newer than this are skipped for this place (idempotent replay).
  var watermarkMilliseconds = Int64.min
  /// A departure waiting for confirmation: when they left and the odometer then.
  var pendingDeparture: DepartureMark?
  /// A fast arrival waiting for its next fix.
  var pendingArrival: PendingArrival?
  /// When they last left (confirmed), for the quick-return rule.
  var lastDepartureMilliseconds: Int64?
  /// Feed only until then (after a quick return).
  var quietUntilMilliseconds: Int64?

  var isIdle: Bool { !inside && pendingDeparture == nil && pendingArrival == nil }
}

struct PendingArrival: Sendable, Hashable, Codable {
  var milliseconds: Int64
  /// Direction of travel when entering (east, north components; zero when unknown).
  var approachEast: Double
  var approachNorth: Double
}
