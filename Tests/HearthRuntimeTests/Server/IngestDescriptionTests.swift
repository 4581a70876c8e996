import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace
import Testing

@Suite("Ingest descriptions: every key known, every problem named")
struct IngestDescriptionTests {
  /// The reason the description in `text` is refused (nil: it is taken).
  func refusal(_ text: String) -> String? {
    do {
      _ = try IngestDescription.decode(text)
      return nil
    } catch {
      guard case .malformed(_, let reason) = error as? TraceError else { return "\(error)" }
      return reason
    }
  }

  static let place = #"{"id": 1, "circle": 7, "latitude_deg": 52.5, "longitude_deg": 13.4, "radius_m": 100}"#

  @Test("a key named twice in one object is refused by name (review26 F7: the first one counted)")
  func repeatedKey() {
    let twice = Self.place.replacingOccurrences(
      of: #""radius_m": 100"#, with: #""radius_m": 100, "radius_m": 1e8"#)
    #expect(refusal(#"{"places": [\#(Self.place)]}"#) == nil)
    let why = refusal(#"{"places": [\#(twice)]}"#) ?? ""
    #expect(why.contains(#"the member "radius_m" appears twice in one object"#), "\(why)")
  }

  @Test(
    "an id key is written as the id: '07' or '+7' is refused (the same person twice, resolved by hash order)")
  func canonicalIdKeys() throws {
    let place = #"{"places": [\#(Self.place)], "#
    #expect(refusal(place + #""circles_of_person": {"7": [7], "0": [], "4294967295": [7]}}"#) == nil)
    #expect(refusal(place + #""speed_limits_kmh": {"7": 30}}"#) == nil)
    for key in ["07", "+7", " 7", "7.0", "4294967296", "-0", ""] {
      let circles = refusal(place + #""circles_of_person": {"\#(key)": [7], "7": [8]}}"#) ?? ""
      #expect(circles.contains("is not a user id"), "\(key): \(circles)")
      let limits = refusal(place + #""speed_limits_kmh": {"\#(key)": 30}}"#) ?? ""
      #expect(limits.contains("must be a circle id"), "\(key): \(limits)")
    }
  }

  @Test("the known keys build the pipeline; the empty text is the empty description")
  func knownKeys() throws {
    let d = try IngestDescription.decode(
      #"{"places": [\#(Self.place)], "circles_of_person": {"42": [7]}, "speed_limits_kmh": {"7": 50}}"#)
    #expect(d.places.map(\.geofence.id) == [1] && d.circlesOfPerson[UserID(42)] == [7])
    #expect(d.speedLimits[CircleID(7)] == SpeedLimit(kilometersPerHour: 50))
    #expect(try IngestDescription.decode("").places.isEmpty)
    #expect(try IngestDescription.decode("{}").speedLimits.isEmpty)
  }

  @Test("a misspelt key is refused with the nearest known one, at the top and in a place")
  func unknownKeys() {
    #expect(refusal(#"{"placez": []}"#)?.contains("unknown key 'placez' (nearest known: 'places'") == true)
    #expect(
      refusal(#"{"speed_limit_kmh": {"7": 30}}"#)?.contains("nearest known: 'speed_limits_kmh'") == true)
    #expect(refusal(#"{"unknown": 1}"#)?.contains("unknown key 'unknown'") == true)
    let misspelt = #"{"places": [{"id": 1, "latitude": 52.5, "longitude_deg": 13.4, "radius_m": 100}]}"#
    #expect(
      refusal(misspelt)?.contains("places[0]: unknown key 'latitude' (nearest known: 'latitude_deg'") == true)
  }

  @Test("a bad value names where it is: a fractional or negative id, a missing radius, a null limit")
  func badValues() {
    #expect(
      refusal(#"{"places": [{"id": 1.5, "latitude_deg": 1, "longitude_deg": 1, "radius_m": 1}]}"#)?
        .contains("places[0].id: ") == true)
    #expect(
      refusal(#"{"places": [{"id": -1, "latitude_deg": 1, "longitude_deg": 1, "radius_m": 1}]}"#)?
        .contains("places[0].id: ") == true)
    #expect(
      refusal(#"{"places": [{"id": 1, "latitude_deg": 1, "longitude_deg": 1}]}"#)?
        .contains("places[0].radius_m: missing") == true)
    #expect(refusal(#"{"speed_limits_kmh": {"7": null}}"#)?.contains("speed_limits_kmh") == true)
    #expect(
      refusal(#"{"circles_of_person": {"42": [7, 4294967296]}}"#)?.contains("circles_of_person.42[1]: ")
        == true)
    #expect(refusal(#"{"circles_of_person": {"42": [7, 4294967295]}}"#) == nil)
    #expect(refusal("[]")?.contains("not a description of places and circles") == true)
  }

  @Test(
    "review26 F8: a person left out of circles_of_person and a limit nobody is under are noted; else nothing")
  func notesOnWhatWasProbablyMeant() throws {
    let text =
      #"{"places": [{"id": 1, "circle": 7, "latitude_deg": 40, "longitude_deg": -75, "radius_m": 100}], "circles_of_person": {"2": [7], "3": []}, "speed_limits_kmh": {"7": 50, "8": 30}}"#
    let description = try IngestDescription.decode(text)
    // Listed people (an empty list too) draw no note; user 1 does; circle 8 has nobody.
    #expect(
      description.notes(people: [2, 3]) == [
        "speed_limits_kmh of circle 8, which no one in circles_of_person is in: it alerts nobody"
      ])
    #expect(
      description.notes(people: [1, 2, 1]).first
        == "user 1 not in circles_of_person: sees every circle's places and gets no speed alert")
    // No circles_of_person at all: every person in every circle is the plain
    // description, not a mistake; its limits alert nobody, and say so.
    let open = try IngestDescription.decode(#"{"speed_limits_kmh": {"7": 50}}"#)
    #expect(
      open.notes(people: [1]) == [
        "speed_limits_kmh of circle 7, which no one in circles_of_person is in: it alerts nobody"
      ])
    #expect(try IngestDescription.decode("").notes(people: [1, 2]).isEmpty)
    // Many: ten named, then the count.
    let many = description.notes(people: (100..<125).map(UserID.init))
    #expect(
      many.first?.hasPrefix("user 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, … (25 in all) not in")
        == true, "\(many)")
  }

  @Test(
    "review26 F10: a description that is not JSON, or nests deeper than 512 levels, is named by its byte and file"
  )
  func notJSONIsPlaced() throws {
    func refusal(_ text: String, name: String = "ingest description") -> String? {
      do {
        _ = try IngestDescription.decode(text, name: name)
        return nil
      } catch { return "\(error)" }
    }
    #expect(
      refusal(#"{"places": [1,}"#)?.contains(
        "ingest description: not a description of places and circles: at byte 14: not JSON") == true)
    let deep = #"{"x": "# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}"
    #expect(
      refusal(deep, name: "d.json")?.contains(
        "d.json: not a description of places and circles: at byte 517: nested deeper than 512 levels") == true
    )
    // 512 levels are JSON the decoder reads: refused for the unknown key, not the depth.
    let deepest = #"{"x": "# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
    #expect(refusal(deepest)?.contains("unknown key 'x'") == true, "\(refusal(deepest) ?? "nil")")
    #expect(refusal("") == nil && refusal("\u{FEFF}{}") == nil)
    // A type in words, not Swift's name for it; a key's DEL and C1 codes shown as codes (review30).
    let list = refusal(#"{"circles_of_person": {"1": 7}}"#) ?? ""
    #expect(list.hasSuffix(": not a list") && !list.contains("Array"), "\(list)")
    #expect(refusal(#"{"places": [{"id": "x"}]}"#)?.hasSuffix("places[0].id: not a number") == true)
    let hostile = refusal("{\"places\": [], \"x\": {\"\u{7F}\u{9B}\": [1e400]}}") ?? ""
    #expect(hostile.contains(#"x.\u{7F}\u{9B}[0]: the number 1e400 is out of range"#), "\(hostile)")
    // A file whose place name is not UTF-8 is refused by its byte, not read with U+FFFD (review30).
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("d-\(getpid()).json").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let named =
      #"{"places": [{"id": 1, "latitude_deg": 40, "longitude_deg": -75, "radius_m": 100, "name": "h"#
    try Data(Array(named.utf8) + [0xFF] + Array(#""}]}"#.utf8)).write(to: URL(fileURLWithPath: path))
    #expect {
      try IngestDescription.read(path: path)
    } throws: {
      "\($0)".contains(
        "\(path): not a description of places and circles: at byte 89: not JSON: a string is not valid UTF-8")
    }
  }
}
