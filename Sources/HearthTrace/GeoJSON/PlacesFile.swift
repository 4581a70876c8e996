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
/// (a non-negative integer, default 0) and a numeric feature `id` (default:
/// its position). This is the shape ``GeoJSON/place(id:name:centre:radiusMeters:properties:)``
/// writes, so a file written by `hearth` reads back.
public enum PlacesFile {
  /// Largest places file read, bytes (64 MiB: hundreds of thousands of places).
  public static let maximumFileBytes = 64 << 20

  /// - Throws: `TraceError.io` when the file cannot be read, is not a
  ///   regular file (a FIFO is refused, never waited on) or is larger than
  ///   ``maximumFileBytes``; `.malformed` naming the feature (1-based, in
  ///   `line`) and the field when one is missing or out of range.
  ///   O(size of the file).
  public static func read(path: String) throws(TraceError) -> [NamedPlace] {
    let bytes: [UInt8]
    do { bytes = try RegularFile.read(path, limit: maximumFileBytes) } catch let error as TraceError {
      throw error
    } catch {
      throw .io(path: path, reason: "\(error)")
    }
    return try parse(Data(bytes), file: path)
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

  /// Why a list of places is refused when `id` comes a second time.
  public static func usedTwice(_ id: PlaceID) -> String { "id \(id.rawValue) is used twice" }

  /// The same from bytes (`file` names the source in errors).
  public static func parse(_ data: Data, file: String) throws(TraceError) -> [NamedPlace] {
    func fail(_ feature: Int, _ field: String, _ reason: String) -> TraceError {
      .malformed(
        SourceLocation(file: file, line: feature, columnName: field), reason: "feature \(feature): \(reason)")
    }
    let root: Any
    do { root = try JSONSerialization.jsonObject(with: data) } catch {
      throw .malformed(SourceLocation(file: file, line: 0), reason: "not JSON: \(error.localizedDescription)")
    }
    guard let object = root as? [String: Any], object["type"] as? String == "FeatureCollection",
      let features = object["features"] as? [Any]
    else {
      throw .malformed(SourceLocation(file: file, line: 0), reason: "expected a GeoJSON FeatureCollection")
    }
    var places: [NamedPlace] = []
    var ids = Set<UInt32>()
    for (k, item) in features.enumerated() {
      let n = k + 1
      guard let feature = item as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
        geometry["type"] as? String == "Point", let position = geometry["coordinates"] as? [Any],
        position.count >= 2, let longitude = (position[0] as? NSNumber)?.doubleValue,
        let latitude = (position[1] as? NSNumber)?.doubleValue
      else { throw fail(n, "geometry", "expected a Point with [longitude, latitude]") }
      let properties = feature["properties"] as? [String: Any] ?? [:]
      guard let radius = (properties["radiusMeters"] as? NSNumber)?.doubleValue else {
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
      var circle: UInt32 = 0
      if let value = properties["circle"] {
        guard let c = (value as? NSNumber)?.doubleValue, c >= 0, c < 4e9, c == c.rounded() else {
          throw fail(n, "circle", "circle must be a non-negative integer")
        }
        circle = UInt32(c)
      }
      var id = UInt32(k)
      if let value = feature["id"] {
        let number = (value as? NSNumber)?.doubleValue ?? (value as? String).flatMap(Double.init)
        guard let number, number >= 0, number < 4e9, number == number.rounded() else {
          throw fail(n, "id", "id must be a non-negative integer")
        }
        id = UInt32(number)
      }
      guard ids.insert(id).inserted else { throw fail(n, "id", Self.usedTwice(PlaceID(id))) }
      places.append(
        NamedPlace(
          geofence: Geofence(
            id: PlaceID(id), circle: CircleID(circle),
            center: Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude), radiusMeters: radius),
          name: properties["name"] as? String))
    }
    return places
  }
}
