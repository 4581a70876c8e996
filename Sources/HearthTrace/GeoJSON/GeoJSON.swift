import Foundation
import HearthGeo

/// A JSON value for GeoJSON properties. Non-finite numbers are written as null
/// (JSON has no NaN).
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text == b.text }
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }

  /// Compact JSON text; object keys keep their order.
  public var text: String {
    var out = ""
    write(into: &out)
    return out
  }

  func write(into out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += JSONValue.numberText(n)
    case .string(let s): JSONValue.writeString(s, into: &out)
    case .array(let items):
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        item.write(into: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (i, (key, value)) in members.enumerated() {
        if i > 0 { out += "," }
        JSONValue.writeString(key, into: &out)
        out += ":"
        value.write(into: &out)
      }
      out += "}"
    }
  }

  /// Shortest text that reads back to the same double; integers without ".0".
  static func numberText(_ n: Double) -> String {
    guard n.isFinite else { return "null" }
    if n == n.rounded() && abs(n) < 1e15 { return String(Int64(n)) }
    return "\(n)"
  }

  static func writeString(_ s: String, into out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }
}

/// RFC 7946 GeoJSON writing for tracks, trips, places and events.
///
/// Positions are [longitude, latitude(, altitude)] in WGS84 degrees (and
/// metres), as RFC 7946 §3.1.1 requires; times go in properties as ISO 8601
/// UTC strings and as milliseconds since the epoch.
public enum GeoJSON {
  public enum Geometry: Sendable, Hashable {
    case point(Coordinate)
    case lineString([Coordinate])
    case multiLineString([[Coordinate]])
    case polygon([[Coordinate]])
  }

  public struct Feature: Sendable, Hashable {
    public var geometry: Geometry
    public var properties: [(String, JSONValue)]
    public var id: String?

    public init(geometry: Geometry, properties: [(String, JSONValue)] = [], id: String? = nil) {
      self.geometry = geometry
      self.properties = properties
      self.id = id
    }

    public static func == (a: Feature, b: Feature) -> Bool { a.json.text == b.json.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(json.text) }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [("type", .string("Feature"))]
      if let id { members.append(("id", .string(id))) }
      members.append(("geometry", GeoJSON.json(geometry)))
      members.append(("properties", .object(properties)))
      return .object(members)
    }
  }

  /// A fix track as a LineString, with the fixes' times and accuracies as
  /// parallel property arrays. A track of one fix is a Point.
  public static func track(_ fixes: FixColumns, properties: [(String, JSONValue)] = []) -> Feature {
    let points = (0..<fixes.count).map { fixes[$0].coordinate }
    var all = properties
    all.append(("times", .array(fixes.timeMilliseconds.map { .string(ISOTime.string(milliseconds: $0)) })))
    all.append(("timesMilliseconds", .array(fixes.timeMilliseconds.map { .number(Double($0)) })))
    all.append(("horizontalAccuracyMeters", .array(fixes.horizontalAccuracyMeters.map { .number($0) })))
    return Feature(geometry: points.count == 1 ? .point(points[0]) : .lineString(points), properties: all)
  }

  /// A circular place: its centre as a Point with `radiusMeters`, `id` and
  /// `name` properties (the circle itself is not a GeoJSON geometry).
  public static func place(
    id: String, name: String?, centre: Coordinate, radiusMeters: Double,
    properties: [(String, JSONValue)] = []
  ) -> Feature {
    var all: [(String, JSONValue)] = [("kind", .string("place")), ("radiusMeters", .number(radiusMeters))]
    if let name { all.append(("name", .string(name))) }
    return Feature(geometry: .point(centre), properties: all + properties, id: id)
  }

  /// An event (an arrival, an alert) at a place and time.
  public static func event(
    kind: String, at point: Coordinate, timeMilliseconds: Int64, properties: [(String, JSONValue)] = []
  ) -> Feature {
    let all: [(String, JSONValue)] = [
      ("kind", .string(kind)), ("time", .string(ISOTime.string(milliseconds: timeMilliseconds))),
      ("timeMilliseconds", .number(Double(timeMilliseconds))),
    ]
    return Feature(geometry: .point(point), properties: all + properties)
  }

  /// The FeatureCollection text, one feature per line.
  public static func document(_ features: [Feature]) -> String {
    var out = "{\"type\":\"FeatureCollection\",\"features\":[\n"
    for (i, feature) in features.enumerated() {
      if i > 0 { out += ",\n" }
      feature.json.write(into: &out)
    }
    out += "\n]}\n"
    return out
  }

  /// Writes ``document(_:)`` to `path`.
  public static func write(_ features: [Feature], to path: String) throws {
    do {
      try Data(document(features).utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw TraceError.io(path: path, reason: FolderListing.reason(error))
    }
  }

  static func json(_ geometry: Geometry) -> JSONValue {
    func position(_ c: Coordinate) -> JSONValue {
      .array([.number(c.longitudeDegrees), .number(c.latitudeDegrees)])
    }
    switch geometry {
    case .point(let c):
      return .object([("type", .string("Point")), ("coordinates", position(c))])
    case .lineString(let cs):
      return .object([("type", .string("LineString")), ("coordinates", .array(cs.map(position)))])
    case .multiLineString(let lines):
      return .object([
        ("type", .string("MultiLineString")), ("coordinates", .array(lines.map { .array($0.map(position)) })),
      ])
    case .polygon(let rings):
      return .object([
        ("type", .string("Polygon")), ("coordinates", .array(rings.map { .array($0.map(position)) })),
      ])
    }
  }
}
