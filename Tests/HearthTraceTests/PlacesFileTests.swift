import Foundation
import HearthGeo
import Testing

@testable import HearthTrace

@Suite struct PlacesFileTests {
  func parse(_ text: String) throws(TraceError) -> [NamedPlace] {
    try PlacesFile.parse(Data(text.utf8), file: "p.geojson")
  }

  @Test func whatGeoJSONPlaceWritesReadsBack() throws {
    let centre = Coordinate(latitudeDegrees: 48.137, longitudeDegrees: 11.575)
    let text = GeoJSON.document([
      GeoJSON.place(
        id: "4", name: "Home", centre: centre, radiusMeters: 120, properties: [("circle", .number(2))]),
      GeoJSON.place(id: "9", name: nil, centre: centre, radiusMeters: 80),
    ])
    let places = try parse(text)
    #expect(places.map(\.geofence.id) == [4, 9] && places.map(\.name) == ["Home", nil])
    #expect(places[0].geofence == Geofence(id: 4, circle: 2, center: centre, radiusMeters: 120))
  }

  @Test func featuresWithoutIdsAreNumberedInOrder() throws {
    let point =
      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50}}"#
    let places = try parse(#"{"type":"FeatureCollection","features":[\#(point),\#(point)]}"#)
    #expect(places.map(\.geofence.id) == [0, 1])
  }

  @Test func everyProblemNamesTheFeatureAndField() {
    func error(_ features: String) -> String {
      do {
        _ = try parse(#"{"type":"FeatureCollection","features":[\#(features)]}"#)
        return "no error"
      } catch { return error.description }
    }
    let good =
      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50}}"#
    #expect(
      error(#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[]},"properties":{}}"#)
        .contains("p.geojson (geometry): feature 1"))
    #expect(
      error(
        good + ","
          + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,91]},"properties":{"radiusMeters":5}}"#
      ).contains("p.geojson (geometry): feature 2"))
    #expect(
      error(
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":0}}"#
      ).contains("(radiusMeters)"))
    #expect(
      error(
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":5,"circle":-1}}"#
      ).contains("(circle)"))
    #expect(
      error(
        #"{"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":5}},{"type":"Feature","id":"3","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":5}}"#
      ).contains("id 3 is used twice"))
    #expect(throws: TraceError.self) { try parse("[1,2]") }
    #expect(throws: TraceError.self) { try parse("{") }
  }

  /// Issue 16: one circle of 2·10⁷ m drove the geofence index to 5 GB or an
  /// abort. The file reader refuses radii beyond the documented cap.
  @Test func aPlaceWiderThanTheCapIsRefusedWithItsFieldAndReason() throws {
    func place(_ radius: String) -> String {
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":\#(radius)}}]}"#
    }
    #expect(try parse(place("100000")).map(\.geofence.radiusMeters) == [Geofence.maximumRadiusMeters])
    for radius in ["100000.001", "2e7", "1e308"] {
      do {
        _ = try parse(place(radius))
        Issue.record("radius \(radius) accepted")
      } catch {
        #expect(error.description.contains("p.geojson (radiusMeters): feature 1"), "\(error)")
        #expect(error.description.contains("beyond the 100000 m"), "\(error)")
      }
    }
  }

  /// Issue 29.6: the reader streams the text (no JSON tree), so it must
  /// take members in any order, skip what it does not read at any depth,
  /// and refuse text that is not JSON by the byte where it stops being so.
  @Test func membersInAnyOrderAndUnknownMembersAtAnyDepthAreTaken() throws {
    let text = #"""
      {"bbox":[0,1,{"deep":[[[{"x":"\"]"}]]]}],"features":[
        {"properties":{"extra":{"a":[1,2,{"b":null}]},"name":"Caf\u00e9 \ud83c\udfe0","radiusMeters":1.5e2,"circle":3},
         "geometry":{"coordinates":[11.5,-48.1e0,520],"type":"Point"},"id":"7","type":"Feature"},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[-0.5,0]},"properties":{"radiusMeters":50,"name":null}}
      ],"type":"FeatureCollection"}
      """#
    let places = try parse(text)
    #expect(places.map(\.geofence.id) == [7, 1] && places.map(\.name) == ["Café 🏠", nil])
    #expect(
      places[0].geofence
        == Geofence(
          id: 7, circle: 3, center: Coordinate(latitudeDegrees: -48.1, longitudeDegrees: 11.5),
          radiusMeters: 150))
  }

  @Test func textThatIsNotJSONIsRefusedWithTheByte() {
    for bad in [
      #"{"type":"FeatureCollection","features":[],}"#, #"{"type":"FeatureCollection","features":[01]}"#,
      #"{"type":"FeatureCollection","features":[]} x"#, #"{"type":"FeatureCollection","features":[NaN]}"#,
      #"{"type":"FeatureCollection","features":["\ud800"]}"#, #"{"type":"FeatureCollection""#,
    ] {
      do {
        _ = try parse(bad)
        Issue.record("accepted: \(bad.prefix(60))")
      } catch {
        #expect(error.description.contains("not JSON") && error.description.contains("at byte"), "\(error)")
      }
    }
    // Past the depth it follows: said so, not called "not JSON" (review32).
    #expect {
      try parse(String(repeating: "[", count: 20_000))
    } throws: { "\($0)".hasSuffix("p.geojson: nested deeper than 10000 levels at byte 10000") }
  }

  @Test("review26 F10: a lone Feature, or another type, is named as what it is, not called 'not JSON'")
  func notACollectionIsNamed() {
    let feature =
      #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}, "properties": {}}"#
    let cases: [(String, String)] = [
      (feature, "found a single Feature: put it in {\"type\": \"FeatureCollection\""),
      (#"{"type": "Point\u001b[2J", "coordinates": [1, 2]}"#, "found type 'Point\\u{1B}[2J'"),
      (#"{"type": 7, "features": []}"#, "expected a GeoJSON FeatureCollection"),
    ]
    for (text, expected) in cases {
      do {
        _ = try parse(text)
        Issue.record("accepted: \(text)")
      } catch {
        #expect(error.description.contains(expected) && !error.description.contains("not JSON"), "\(error)")
      }
    }
    // Broken JSON after the type is still named as broken JSON first.
    do {
      _ = try parse(#"{"type": "Feature", "geometry": }"#)
      Issue.record("accepted")
    } catch {
      #expect(error.description.contains("not JSON"), "\(error)")
    }
  }

  @Test(
    "review26 F10: ids and circles take every UInt32 (4e9 and 2³² − 1 included), 2³² and fractions are refused, named"
  )
  func identityDomain() throws {
    func place(_ id: String, circle: String = "0") -> String {
      #"{"type":"FeatureCollection","features":[{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50,"circle":\#(circle)}}]}"#
    }
    for (id, expected) in [("0", 0), ("-0", 0), ("4000000000", 4_000_000_000), ("4294967295", UInt32.max)]
      as [(String, UInt32)]
    {
      #expect(try parse(place(id)).first?.geofence.id.rawValue == expected, "\(id)")
      #expect(try parse(place("1", circle: id)).first?.geofence.circle.rawValue == expected, "\(id)")
    }
    for (id, shown) in [("4294967296", "4294967296.0"), ("-1", "-1.0"), ("1.5", "1.5")] {
      #expect(throws: TraceError.self) { try parse(place(id)) }
      do {
        _ = try parse(place("1", circle: id))
        Issue.record("accepted circle \(id)")
      } catch {
        #expect(
          error.description.contains("circle \(shown) is not a whole number from 0 to 4294967295"), "\(error)"
        )
      }
    }
    do {
      _ = try parse(place("null"))
      Issue.record("accepted a null id")
    } catch {
      #expect(
        error.description.contains("id is not a number (a whole number from 0 to 4294967295 is wanted)"),
        "\(error)")
    }
    #expect(PlacesFile.identity(.nan) == nil && PlacesFile.identity(-.infinity) == nil)
    // A string id is plain digits, as a description's id keys (review32).
    #expect(try parse(place(#""7""#)).first?.geofence.id.rawValue == 7)
    for id in [#""+7""#, #""0x10""#, #""1e3""#, #""-0""#, #"" 7""#, #""""#, #""42949672950""#] {
      #expect(throws: TraceError.self, "\(id)") { try parse(place(id)) }
    }
    // Text a places file skips need not be UTF-8, as before (only the pre-check of the
    // documents handed to a decoder asks it).
    let latin1 =
      Array(
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50,"note":"caf"#
          .utf8) + [0xE9] + Array(#""}}]}"#.utf8)
    #expect(try PlacesFile.parse(Data(latin1), file: "p.geojson").count == 1)
    #expect(JSONKeys.problem(in: latin1)?.contains("not JSON: a string is not valid UTF-8") == true)
  }

  @Test(
    "review26 F10: a byte order mark is skipped as the trace readers skip it; a stray byte is shown by its code"
  )
  func byteOrderMarkIsSkipped() throws {
    let collection =
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50}}]}"#
    #expect(try parse("\u{FEFF}" + collection).map(\.geofence.radiusMeters) == [50])
    // From a file too, where the first chunk is read inside the scanner.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bom-\(getpid()).geojson").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data([0xEF, 0xBB, 0xBF] + Array(collection.utf8)).write(to: URL(fileURLWithPath: path))
    #expect(try PlacesFile.read(path: path).count == 1)
    // A BOM alone is an empty text; two BOMs are one too many.
    for (text, expected) in [
      ("\u{FEFF}", "the text ends where a value should be at byte 3"),
      ("\u{FEFF}\u{FEFF}" + collection, "unexpected byte 0xEF where a value should be at byte 3"),
      ("\u{1B}[2J" + collection, "unexpected byte 0x1B where a value should be at byte 0"),
      ("é", "unexpected byte 0xC3"),
    ] {
      do {
        _ = try parse(text)
        Issue.record("accepted: \(text.debugDescription)")
      } catch {
        #expect(error.description.contains(expected), "\(error)")
      }
    }
  }

  @Test("a repeated member is found after a byte order mark as well")
  func repeatedMemberAfterByteOrderMark() {
    let problem = JSONKeys.problem(in: [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1, "a": 2}"#.utf8))
    #expect(problem?.hasPrefix(#"at byte 12: the member "a" appears twice"#) == true, "\(problem ?? "nil")")
  }

  /// The count limit, on both sides (a small limit stands in for the
  /// million so the test stays small; the command test holds the million).
  @Test func theCountLimitIsTakenAndOneMoreIsRefusedByName() throws {
    func collection(_ count: Int) -> [UInt8] {
      let feature =
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":50}}"#
      return Array(
        #"{"type":"FeatureCollection","features":[\#(Array(repeating: feature, count: count).joined(separator: ","))]}"#
          .utf8)
    }
    let three = try PlacesFile.parse(
      ChunkSource(bytes: collection(3), displayName: "p"), file: "p", maximumPlaces: 3)
    #expect(three.count == 3)
    do {
      _ = try PlacesFile.parse(
        ChunkSource(bytes: collection(4), displayName: "p"), file: "p", maximumPlaces: 3)
      Issue.record("four places accepted under a limit of three")
    } catch {
      #expect(
        error.description.contains("p (features): feature 4")
          && error.description.contains("more than the 3 places"))
    }
  }
}
