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

/// Reads a places file: a GeoJSON FeatureCollection of Point features, each
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
      guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
        throw fail(n, "geometry", "position (\(longitude), \(latitude)) is outside the WGS84 ranges")
      }
      let properties = feature["properties"] as? [String: Any] ?? [:]
      guard let radius = (properties["radiusMeters"] as? NSNumber)?.doubleValue, radius > 0, radius.isFinite
      else { throw fail(n, "radiusMeters", "needs a positive radiusMeters property") }
      guard radius <= Geofence.maximumRadiusMeters else {
        throw fail(
          n, "radiusMeters",
          "radiusMeters \(radius) is beyond the \(Int(Geofence.maximumRadiusMeters)) m a place may have")
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
      guard ids.insert(id).inserted else { throw fail(n, "id", "id \(id) is used twice") }
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
