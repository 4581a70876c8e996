import Foundation
import HearthGeo

/// A named circular place as a places file gives it.
public struct NamedPlace: Sendable, Hashable, Codable {
  public var geofence: Geofence
  public var name: String?
  public init(geofence: Geofence, name: String?) {
    self.geofence = geofence
    self.name = name
  }
}

/// Reads a places file, and holds the rules every place obeys whichever way
/// it comes (a file, or an ingest description's inline places: the C ABI's
/// `hearth_ingest_create`): a position within the WGS84 ranges, a radius
/// above 0 and at most ``Geofence/maximumRadiusMeters``, an id given once.
///
/// The file is a GeoJSON FeatureCollection of Point features, each
/// with a `radiusMeters` property (> 0 and at most
/// ``Geofence/maximumRadiusMeters``, 100 km) and optionally `name`, `circle`
/// (an id, ``identity(_:)``; default 0) and a numeric feature `id` (an id;
/// default: its position). This is the shape ``GeoJSON/place(id:name:centre:radiusMeters:properties:)``
/// writes, so a file written by `hearth` reads back.
public enum PlacesFile {
  /// Largest places file read, bytes (256 MiB: a million places with names).
  public static let maximumFileBytes = 256 << 20
  /// Most places a places file may hold (issue 29.6). Reading a million
  /// takes about 100 MB; what a pipeline over them costs is in
  /// docs/guides/geofences.md.
  public static let maximumPlaces = 1_000_000

  /// The file is read in chunks and parsed as it comes (no JSON tree): the
  /// memory it takes is the places themselves (about 50 bytes each plus
  /// their names) and one 4 MiB buffer, whatever the file's size.
  /// - Throws: `TraceError.io` when the file cannot be read, is not a
  ///   regular file (a FIFO is refused, never waited on) or is larger than
  ///   ``maximumFileBytes``; `.unsupported` for UTF-16 or UTF-32 text;
  ///   `.malformed` naming the feature (1-based, in `line`) and the field
  ///   when one is missing or out of range, or the byte where the text stops
  ///   being JSON, or the feature past ``maximumPlaces``.
  ///   O(size of the file).
  public static func read(path: String) throws(TraceError) -> [NamedPlace] {
    var source: ChunkSource
    do { source = try ChunkSource(path: path, displayName: path, maximumLineBytes: 1) } catch let error
      as TraceError
    {
      throw error
    } catch {
      throw .io(path: path, reason: "\(error)")
    }
    guard source.fileBytes <= maximumFileBytes else {
      source.close()
      throw .io(
        path: path,
        reason: "\(source.fileBytes) bytes, more than the \(maximumFileBytes) bytes a places file may have")
    }
    return try parse(source, file: path, maximumPlaces: maximumPlaces)
  }

  /// What is wrong with a place, by the rules above.
  public enum Problem: Sendable, Hashable {
    /// The centre is outside the WGS84 ranges (or not a number).
    case position(latitudeDegrees: Double, longitudeDegrees: Double)
    /// The radius is not above 0, not finite, or beyond the cap.
    case radius(Double)

    /// Why, in words.
    public var reason: String {
      switch self {
      case .position(let latitude, let longitude):
        "position (\(longitude), \(latitude)) is outside the WGS84 ranges"
      case .radius(let r) where r > 0 && r.isFinite:
        "radius \(r) m is beyond the \(Int(Geofence.maximumRadiusMeters)) m a place may have"
      case .radius(let r): "radius \(r) m is not a positive number of metres"
      }
    }
  }

  /// The first rule a place with this centre and radius breaks, nil when
  /// it breaks none. O(1).
  public static func problem(latitudeDegrees: Double, longitudeDegrees: Double, radiusMeters: Double)
    -> Problem?
  {
    guard (-90...90).contains(latitudeDegrees), (-180...180).contains(longitudeDegrees) else {
      return .position(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
    }
    guard radiusMeters > 0, radiusMeters.isFinite, radiusMeters <= Geofence.maximumRadiusMeters else {
      return .radius(radiusMeters)
    }
    return nil
  }

  /// The id a number read from outside stands for (a place's, a circle's,
  /// a person's): ``identityDomain``, nil for anything else (a fraction,
  /// below 0, 2³² and beyond, NaN). O(1).
  public static func identity(_ value: Double) -> UInt32? { UInt32(exactly: value) }

  /// The number a string id of only ASCII digits (at most 10) spells, nil
  /// for any other string. O(length).
  static func digits(_ text: String) -> Double? {
    guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    return Double(text)
  }

  /// What ``identity(_:)`` takes, in words.
  public static let identityDomain = "a whole number from 0 to 4294967295"

  /// Why a list of places is refused when `id` comes a second time.
  public static func usedTwice(_ id: PlaceID) -> String { "id \(id.rawValue) is used twice" }

  /// The same from bytes (`file` names the source in errors).
  public static func parse(_ data: Data, file: String) throws(TraceError) -> [NamedPlace] {
    try parse(ChunkSource(bytes: Array(data), displayName: file), file: file, maximumPlaces: maximumPlaces)
  }

  /// What one feature said, as far as the places rules care.
  private struct Feature {
    var geometryIsObject = false
    var geometryIsPoint = false
    var longitude: Double?
    var latitude: Double?
    var positionCount = 0
    var radius: Double?
    /// nil: absent; .some(nil): present but not a number.
    var circle: Double??
    var id: Double??
    var name: String?
  }

  /// Parses the text of `source` (closed on return) as it is read.
  /// `maximumPlaces` is a parameter so tests can reach it with small files.
  static func parse(_ source: ChunkSource, file: String, maximumPlaces: Int) throws(TraceError)
    -> [NamedPlace]
  {
    var scanner = JSONPullScanner(source)
    defer { scanner.close() }
    do {
      return try parse(&scanner, file: file, maximumPlaces: maximumPlaces)
    } catch let error as TraceError {
      throw error
    } catch let failure as JSONPullScanner.Failure {
      throw .malformed(
        SourceLocation(file: file, line: 0),
        reason:
          "\(failure.repeatedMember ? "ambiguous: " : failure.notJSON ? "not JSON: " : "")\(failure.reason) at byte \(failure.byteOffset)"
      )
    } catch {
      throw .malformed(SourceLocation(file: file, line: 0), reason: "not JSON: \(error)")
    }
  }

  private static func parse(_ scanner: inout JSONPullScanner, file: String, maximumPlaces: Int) throws
    -> [NamedPlace]
  {
    func fail(_ feature: Int, _ field: String, _ reason: String) -> TraceError {
      .malformed(
        // Line 0: the feature is named by its number, not as a line of the
        // file it is not (review30: "p.json:2" for a feature on line 9).
        SourceLocation(file: file, line: 0, columnName: field), reason: "feature \(feature): \(reason)")
    }
    let notACollection = TraceError.malformed(
      SourceLocation(file: file, line: 0), reason: "expected a GeoJSON FeatureCollection")
    guard try scanner.peekKind() == .object else {
      try scanner.skipValue()
      try scanner.expectEnd()
      throw notACollection
    }
    var places: [NamedPlace] = []
    var ids = Set<UInt32>()
    var isCollection = false
    var sawFeatures = false
    try scanner.open(.object)
    var first = true
    var names = Set<[UInt8]>()
    while try scanner.more(.object, first: first) {
      first = false
      try scanner.key(distinctFrom: &names)
      if scanner.scratchIs("type") {
        // The value is read once (review26 F10: a lone Feature's type was
        // read, then skipped again, and the file called "not JSON").
        let type = try scanner.peekKind() == .string ? try scanner.string() : nil
        if type == nil { try scanner.skipValue() }
        guard type == "FeatureCollection" else {
          try skipToEnd(&scanner)
          guard let type else { throw notACollection }
          throw TraceError.malformed(
            SourceLocation(file: file, line: 0),
            reason: type == "Feature"
              ? "expected a GeoJSON FeatureCollection, found a single Feature: put it in "
                + #"{"type": "FeatureCollection", "features": [...]}"#
              : "expected a GeoJSON FeatureCollection, found type '\(Excerpt.of(type, bytes: 60))'")
        }
        isCollection = true
      } else if scanner.scratchIs("features"), try scanner.peekKind() == .array {
        sawFeatures = true
        try scanner.open(.array)
        var n = 0
        while try scanner.more(.array, first: n == 0) {
          n += 1
          guard places.count < maximumPlaces else {
            throw fail(n, "features", "more than the \(maximumPlaces) places a places file may hold")
          }
          let feature = try readFeature(&scanner)
          places.append(try place(feature, n, fail))
          guard ids.insert(places[places.count - 1].geofence.id.rawValue).inserted else {
            throw fail(n, "id", Self.usedTwice(places[places.count - 1].geofence.id))
          }
        }
      } else {
        if scanner.scratchIs("features") { sawFeatures = false }
        try scanner.skipValue()
      }
    }
    try scanner.expectEnd()
    guard isCollection, sawFeatures else { throw notACollection }
    return places
  }

  /// Reads the rest of the text so a JSON error there comes before ours.
  private static func skipToEnd(_ scanner: inout JSONPullScanner) throws {
    var first = false
    while try scanner.more(.object, first: first) {
      first = false
      try scanner.key()
      try scanner.skipValue()
    }
    try scanner.expectEnd()
  }

  /// One element of `features`, read whatever its members' order.
  private static func readFeature(_ scanner: inout JSONPullScanner) throws -> Feature {
    var feature = Feature()
    guard try scanner.peekKind() == .object else {
      try scanner.skipValue()
      return feature
    }
    try scanner.open(.object)
    var first = true
    var names = Set<[UInt8]>()
    while try scanner.more(.object, first: first) {
      first = false
      try scanner.key(distinctFrom: &names)
      if scanner.scratchIs("geometry") {
        feature.geometryIsObject = false
        feature.geometryIsPoint = false
        feature.longitude = nil
        feature.latitude = nil
        feature.positionCount = 0
        guard try scanner.peekKind() == .object else {
          try scanner.skipValue()
          continue
        }
        feature.geometryIsObject = true
        try scanner.open(.object)
        var firstMember = true
        var memberNames = Set<[UInt8]>()
        while try scanner.more(.object, first: firstMember) {
          firstMember = false
          try scanner.key(distinctFrom: &memberNames)
          if scanner.scratchIs("type") {
            if try scanner.peekKind() == .string {
              feature.geometryIsPoint = try scanner.string() == "Point"
            } else {
              feature.geometryIsPoint = false
              try scanner.skipValue()
            }
          } else if scanner.scratchIs("coordinates"), try scanner.peekKind() == .array {
            (feature.longitude, feature.latitude, feature.positionCount) = (nil, nil, 0)
            try scanner.open(.array)
            while try scanner.more(.array, first: feature.positionCount == 0) {
              feature.positionCount += 1
              if feature.positionCount <= 2, try scanner.peekKind() == .number {
                let value = try scanner.number()
                if feature.positionCount == 1 { feature.longitude = value } else { feature.latitude = value }
              } else {
                try scanner.skipValue()
              }
            }
          } else {
            if scanner.scratchIs("coordinates") { (feature.longitude, feature.latitude) = (nil, nil) }
            try scanner.skipValue()
          }
        }
      } else if scanner.scratchIs("properties") {
        (feature.radius, feature.circle, feature.name) = (nil, nil, nil)
        guard try scanner.peekKind() == .object else {
          try scanner.skipValue()
          continue
        }
        try scanner.open(.object)
        var firstMember = true
        var memberNames = Set<[UInt8]>()
        while try scanner.more(.object, first: firstMember) {
          firstMember = false
          try scanner.key(distinctFrom: &memberNames)
          let kind = try scanner.peekKind()
          if scanner.scratchIs("radiusMeters") {
            feature.radius = kind == .number ? try scanner.number() : nil
            if kind != .number { try scanner.skipValue() }
          } else if scanner.scratchIs("circle") {
            feature.circle = .some(kind == .number ? try scanner.number() : nil)
            if kind != .number { try scanner.skipValue() }
          } else if scanner.scratchIs("name") {
            feature.name = kind == .string ? try scanner.string() : nil
            if kind != .string { try scanner.skipValue() }
          } else {
            try scanner.skipValue()
          }
        }
      } else if scanner.scratchIs("id") {
        switch try scanner.peekKind() {
        case .number: feature.id = .some(try scanner.number())
        // A string id is plain digits, as an ingest description's id keys
        // (review32: "+7", "0x10" and "1e3" were read as numbers).
        case .string: feature.id = .some(PlacesFile.digits(try scanner.string()))
        default:
          feature.id = .some(nil)
          try scanner.skipValue()
        }
      } else {
        try scanner.skipValue()
      }
    }
    return feature
  }

  /// The place feature `n` describes, by the rules above.
  private static func place(_ feature: Feature, _ n: Int, _ fail: (Int, String, String) -> TraceError) throws
    -> NamedPlace
  {
    guard feature.geometryIsObject, feature.geometryIsPoint, feature.positionCount >= 2,
      let longitude = feature.longitude, let latitude = feature.latitude
    else { throw fail(n, "geometry", "expected a Point with [longitude, latitude]") }
    guard let radius = feature.radius else {
      throw fail(n, "radiusMeters", "needs a positive radiusMeters property")
    }
    if let problem = Self.problem(
      latitudeDegrees: latitude, longitudeDegrees: longitude, radiusMeters: radius)
    {
      switch problem {
      case .position: throw fail(n, "geometry", problem.reason)
      case .radius: throw fail(n, "radiusMeters", problem.reason)
      }
    }
    // The ids' one domain, as an ingest description's (review26 F10: ids
    // from 4e9 to 2³² − 1 were refused as "not a non-negative integer").
    func identity(_ value: Double??, _ field: String) throws(TraceError) -> UInt32? {
      guard let value else { return nil }
      guard let number = value, let id = Self.identity(number) else {
        throw fail(
          n, field,
          value.map { "\(field) \($0) is not \(Self.identityDomain)" }
            ?? "\(field) is not a number (\(Self.identityDomain) is wanted)")
      }
      return id
    }
    let circle = try identity(feature.circle, "circle") ?? 0
    let id = try identity(feature.id, "id") ?? UInt32(n - 1)
    return NamedPlace(
      geofence: Geofence(
        id: PlaceID(id), circle: CircleID(circle),
        center: Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude), radiusMeters: radius),
      name: feature.name)
  }
}
