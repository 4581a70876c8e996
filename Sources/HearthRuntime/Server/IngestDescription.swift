import Foundation
import HearthGeo
import HearthTrace

/// What an ingest pipeline is built from: places, who is in which circle,
/// and each circle's speed limit, as the JSON description the C ABI's
/// `hearth_ingest_create` and `hearth_ingest_reconfigure` take (and Python's
/// `hearth.describe` writes):
///
///     {"places": [{"id": 1, "circle": 7, "name": "Home", "latitude_deg": 52.52,
///                  "longitude_deg": 13.405, "radius_m": 120}],
///      "places_file": "places.geojson",
///      "circles_of_person": {"42": [7]},
///      "speed_limits_kmh": {"7": 50}}
///
/// Every key is optional, and no other key is taken. Places given inline and places read from
/// `places_file` obey the same rules (``PlacesFile/problem(latitudeDegrees:longitudeDegrees:radiusMeters:)``:
/// WGS84 centre, radius above 0 and at most 100 km; ids given once across
/// both), so no door can build a pipeline a places file would refuse.
public struct IngestDescription: Sendable {
  /// Every place, inline ones first, then the file's.
  public var places: [NamedPlace]
  public var circlesOfPerson: [UserID: [CircleID]]
  public var speedLimits: [CircleID: SpeedLimit]

  public init(
    places: [NamedPlace] = [], circlesOfPerson: [UserID: [CircleID]] = [:],
    speedLimits: [CircleID: SpeedLimit] = [:]
  ) {
    self.places = places
    self.circlesOfPerson = circlesOfPerson
    self.speedLimits = speedLimits
  }

  /// The keys as JSON spells them; any other key is an error naming the
  /// nearest known one (a misspelt key silently ignored would build a
  /// pipeline without the places or limits it meant to give).
  private struct Given: Decodable {
    /// Ids are read as numbers and checked here (``identity(_:_:)``), so a
    /// bad one is named (the decoder's own error does not say where).
    struct Place: Decodable {
      var id: Double
      var circle: Double?
      var name: String?
      var latitudeDegrees: Double
      var longitudeDegrees: Double
      var radiusMeters: Double

      enum CodingKeys: String, CodingKey, CaseIterable {
        case id, circle, name
        case latitudeDegrees = "latitude_deg"
        case longitudeDegrees = "longitude_deg"
        case radiusMeters = "radius_m"
      }

      init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try c.decode(Double.self, forKey: .id)
        circle = try c.decodeIfPresent(Double.self, forKey: .circle)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        latitudeDegrees = try c.decode(Double.self, forKey: .latitudeDegrees)
        longitudeDegrees = try c.decode(Double.self, forKey: .longitudeDegrees)
        radiusMeters = try c.decode(Double.self, forKey: .radiusMeters)
      }
    }
    var places: [Place]?
    var placesFile: String?
    var circlesOfPerson: [String: [Double]]?
    var speedLimitsKilometersPerHour: [String: Double]?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case places
      case placesFile = "places_file"
      case circlesOfPerson = "circles_of_person"
      case speedLimitsKilometersPerHour = "speed_limits_kmh"
    }

    init(from decoder: any Decoder) throws {
      let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
      places = try c.decodeIfPresent([Place].self, forKey: .places)
      placesFile = try c.decodeIfPresent(String.self, forKey: .placesFile)
      circlesOfPerson = try c.decodeIfPresent([String: [Double]].self, forKey: .circlesOfPerson)
      speedLimitsKilometersPerHour = try c.decodeIfPresent(
        [String: Double].self, forKey: .speedLimitsKilometersPerHour)
    }
  }

  /// The description in `text` ("" is the empty description); reads
  /// `places_file` when it names one. `name` says where the text came from
  /// in errors (the file's path for ``read(path:)``).
  /// - Throws: `TraceError.malformed` naming the key (and the place, by its
  ///   index in `places`) and why (a number beyond a Double's range, `1e400`,
  ///   by its path; text that is not JSON or nests deeper than 512 levels,
  ///   by its byte); the places file's own errors.
  /// - Complexity: O(size of the text and of the places file).
  public static func decode(_ text: String, name: String = "ingest description") throws -> IngestDescription {
    try decode(bytes: Array(text.utf8), name: name)
  }

  /// The same from the bytes of a file, so bytes that are not UTF-8 are
  /// refused by position, not read as U+FFFD.
  static func decode(bytes: [UInt8], name: String) throws -> IngestDescription {
    func bad(_ reason: String) -> TraceError {
      .malformed(SourceLocation(file: name, line: 0), reason: reason)
    }
    let text = bytes.isEmpty ? Array("{}".utf8) : bytes
    if let problem = JSONKeys.problem(in: text) {
      throw bad("not a description of places and circles: \(problem)")
    }
    let given: Given
    do {
      given = try DecodingProblem.decoding(text) {
        try JSONDecoder().decode(Given.self, from: $0)
      }
    } catch {
      throw bad(
        "not a description of places and circles (places, places_file, circles_of_person, speed_limits_kmh): "
          + error.reason)
    }
    /// A whole number from 0 to UInt32.max, or the reason `at` is not one.
    func identity(_ x: Double, _ at: String) throws -> UInt32 {
      guard let id = PlacesFile.identity(x) else {
        throw bad("\(at): \(x) is not an id (\(PlacesFile.identityDomain))")
      }
      return id
    }
    var description = IngestDescription()
    var ids = Set<PlaceID>()
    for (i, p) in (given.places ?? []).enumerated() {
      let id = PlaceID(try identity(p.id, "places[\(i)].id"))
      let circle = CircleID(try identity(p.circle ?? 0, "places[\(i)].circle"))
      if let problem = PlacesFile.problem(
        latitudeDegrees: p.latitudeDegrees, longitudeDegrees: p.longitudeDegrees, radiusMeters: p.radiusMeters
      ) {
        throw bad("places[\(i)]: \(problem.reason) (latitude_deg, longitude_deg, radius_m)")
      }
      guard ids.insert(id).inserted else {
        throw bad("places[\(i)]: \(PlacesFile.usedTwice(id))")
      }
      description.places.append(
        NamedPlace(
          geofence: Geofence(
            id: id, circle: circle,
            center: Coordinate(latitudeDegrees: p.latitudeDegrees, longitudeDegrees: p.longitudeDegrees),
            radiusMeters: p.radiusMeters),
          name: p.name))
    }
    if let path = given.placesFile {
      for place in try PlacesFile.read(path: path) {
        guard ids.insert(place.geofence.id).inserted else {
          throw bad(
            "places_file \(path): \(PlacesFile.usedTwice(place.geofence.id)) (inline and in the file)")
        }
        description.places.append(place)
      }
    }
    /// The id a key names, written as the id is ("7": not "07" or "+7",
    /// which name the same id: two such keys made the description depend
    /// on the order of a hash table, review27 R4).
    func key(_ key: String) -> UInt32? { UInt32(key).flatMap { String($0) == key ? $0 : nil } }
    for (text, value) in (given.circlesOfPerson ?? [:]).sorted(by: { $0.key < $1.key }) {
      let shown = Excerpt.of(String(text.prefix(40)), bytes: 160)
      guard let user = key(text) else {
        throw bad("circles_of_person: '\(shown)' is not a user id (0 to \(UInt32.max), digits only)")
      }
      description.circlesOfPerson[UserID(user)] = try value.enumerated().map { k, circle in
        CircleID(try identity(circle, "circles_of_person.\(shown)[\(k)]"))
      }.sorted()
    }
    for (text, kmh) in (given.speedLimitsKilometersPerHour ?? [:]).sorted(by: { $0.key < $1.key }) {
      guard let circle = key(text), kmh > 0, kmh.isFinite else {
        throw bad(
          "speed_limits_kmh: '\(Excerpt.of(String(text.prefix(40)), bytes: 160))' must be a circle id (digits only) with a positive limit"
        )
      }
      description.speedLimits[CircleID(circle)] = SpeedLimit(kilometersPerHour: kmh)
    }
    return description
  }

  /// The description in the file at `path` (what `hearth geo replay
  /// --description` reads; the JSON `hearth_ingest_create` takes).
  /// - Throws: `TraceError.io` when the file cannot be read, with the
  ///   system's reason ("not a regular file (a FIFO)", larger than a places
  ///   file may be); as ``decode(_:)``.
  public static func read(path: String) throws -> IngestDescription {
    let bytes = try RegularFile.read(path, limit: PlacesFile.maximumFileBytes)
    return try decode(bytes: bytes, name: path)
  }

  /// The pipeline the description makes.
  public var pipeline: IngestPipeline {
    IngestPipeline(places: places.map(\.geofence), circlesOfPerson: circlesOfPerson, speedLimits: speedLimits)
  }
}

extension IngestDescription {
  /// What the description does that its writer probably did not mean, in
  /// words, for a door to show beside a run of `people` (review26 F8: a
  /// typo in an id was silent):
  /// - people of `people` missing from a non-empty `circles_of_person`:
  ///   they see every circle's places and get no speed alert;
  /// - speed limits of circles no listed person is in: they alert nobody.
  ///
  /// Nothing here changes the pipeline (an unlisted person seeing every
  /// place is the rule of ``GeofenceEngine``). At most ten ids are named
  /// per note, then the count. O(people + circles listed).
  public func notes(people: some Sequence<UserID>) -> [String] {
    func named<ID: HearthIdentity>(_ ids: [ID]) -> String {
      ids.prefix(10).map(\.description).joined(separator: ", ")
        + (ids.count > 10 ? ", … (\(ids.count) in all)" : "")
    }
    var notes: [String] = []
    let unlisted = Set(people).filter { circlesOfPerson[$0] == nil }.sorted()
    if !circlesOfPerson.isEmpty && !unlisted.isEmpty {
      notes.append(
        "user \(named(unlisted)) not in circles_of_person: sees every circle's places and gets no speed alert"
      )
    }
    let joined = Set(circlesOfPerson.values.joined())
    let idle = speedLimits.keys.filter { !joined.contains($0) }.sorted()
    if !idle.isEmpty {
      notes.append(
        "speed_limits_kmh of circle \(named(idle)), which no one in circles_of_person is in: it alerts nobody"
      )
    }
    return notes
  }
}
