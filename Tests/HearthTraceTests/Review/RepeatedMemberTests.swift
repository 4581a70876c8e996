import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// review26 F7: a member named twice in one object was read silently, the
/// first value winning in the decoders and the last in the places reader
/// and in Python's json; a repeated member is now refused by name.
@Suite("A JSON member named twice in one object is refused, naming it and the byte")
struct RepeatedMemberTests {
  @Test("repeated members found at any depth, escapes decoded; the same name in sibling objects is fine")
  func scanner() {
    let repeated: [(String, String)] = [
      (#"{"a": 1, "a": 2}"#, #"the member "a" appears twice"#),
      (#"{"x": {"unit": "g", "column": "ax", "unit": "m/s^2"}}"#, #""unit" appears twice"#),
      (#"[1, {"k": [{"b": 1, "c": 2, "b": null}]}]"#, #""b" appears twice"#),
      (#"{"\u0061": 1, "a": 2}"#, #""a" appears twice"#),
    ]
    for (text, why) in repeated {
      let problem = JSONKeys.problem(in: Array(text.utf8))
      #expect(
        problem?.contains(why) == true && problem?.hasPrefix("at byte ") == true,
        "\(text): \(problem ?? "nil")")
    }
    for text in [
      #"{"a": {"k": 1}, "b": {"k": 2}}"#, #"[{"a": 1}, {"a": 2}]"#, #"{"a": 1, "A": 2, "a ": 3}"#, "{}", "[]",
      "7", "\u{FEFF}{}",
    ] {
      #expect(JSONKeys.problem(in: Array(text.utf8)) == nil, "\(text)")
    }
    // Not JSON: named with the byte (review26 F10: the decoder named none).
    for (text, expected) in [
      (#"{"a": 1,"#, "at byte 8: not JSON: expected a member name"),
      ("", "at byte 0: not JSON: the text ends"),
      ("{\"a\": 1} x", "at byte 9: not JSON: more text after the value"),
      (#"{"a": [1,}"#, "at byte 9: not JSON: unexpected character '}'"),
    ] {
      let problem = JSONKeys.problem(in: Array(text.utf8))
      #expect(problem?.hasPrefix(expected) == true, "\(text): \(problem ?? "nil")")
    }
    // Bytes that are not UTF-8 in a value or a name it skips (review30: a decoder read them
    // as U+FFFD); text in UTF-8 of every length is fine.
    for bytes in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3]] as [[UInt8]] {
      for (open, close) in [(#"{"a": "x"#, #""}"#), (#"{"x"#, #"": 1}"#)] {
        let problem = JSONKeys.problem(in: Array(open.utf8) + bytes + Array(close.utf8))
        #expect(
          problem?.contains("not JSON: a string is not valid UTF-8") == true, "\(bytes): \(problem ?? "nil")")
      }
    }
    #expect(JSONKeys.problem(in: Array(#"{"é€😀": "é€😀\u00e9"}"#.utf8)) == nil)
    // A string or number past the places reader's 64 KiB token limit is JSON the decoder
    // reads: not refused (review32: a trace's long device name was "not JSON").
    let long = String(repeating: "d", count: 70_000)
    #expect(
      JSONKeys.problem(
        in: Array(#"{"device": "\#(long)", "n": 1\#(String(repeating: "0", count: 70_000))}"#.utf8)) == nil)
    // UTF-16 is named as every reader names it.
    let utf16: [UInt8] = [0xFF, 0xFE, UInt8(ascii: "{"), 0, UInt8(ascii: "}"), 0]
    #expect(JSONKeys.problem(in: utf16)?.hasPrefix("UTF-16 text (little-endian") == true)
    // Both placed at the string's opening quote, as a repeated name is (review30).
    #expect(
      JSONKeys.problem(in: Array(#"{"a":1,"a":2}"#.utf8))?.hasPrefix(#"at byte 7: the member "a""#) == true)
    #expect(
      JSONKeys.problem(in: Array(#"{"a": "x"#.utf8) + [0xFF, 0x22, 0x7D])?.hasPrefix("at byte 6: not JSON")
        == true)
    // As deep as JSONDecoder reads (512 levels) and one deeper, and far
    // deeper: named, no trap, no recursion.
    func nested(_ levels: Int) -> [UInt8] {
      Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
    }
    #expect(JSONKeys.problem(in: nested(512)) == nil)
    /// Lists in lists, as JSONDecoder reads them.
    struct Nest: Decodable {
      init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        while !list.isAtEnd { _ = try list.decode(Nest.self) }
      }
    }
    #expect((try? JSONDecoder().decode(Nest.self, from: Data(nested(512)))) != nil)
    for levels in [513, 200_000] {
      #expect(JSONKeys.problem(in: nested(levels)) == "at byte 512: nested deeper than 512 levels")
    }
    #expect((try? JSONDecoder().decode(Nest.self, from: Data(nested(513)))) == nil)
  }

  /// review27 R1: each name was compared with every earlier one, so a
  /// 40 000-person description took 43 s.
  @Test(
    "an object of 200 000 members is checked in linear time: a repeat at its end found, none in a distinct one",
    .timeLimit(.minutes(1)))
  func wideObject() {
    let members = (0..<200_000).map { "\"p\($0)\": [7]" }
    let distinct = "{" + members.joined(separator: ",") + "}"
    #expect(JSONKeys.problem(in: Array(distinct.utf8)) == nil)
    let repeated = "{" + members.joined(separator: ",") + ", \"p0\": [8]}"
    #expect(JSONKeys.problem(in: Array(repeated.utf8))?.contains(#""p0" appears twice"#) == true)
  }

  @Test("the repeated name is shown printable")
  func printableName() {
    let problem = JSONKeys.problem(in: Array(#"{"\u001b[2J": 1, "\u001b[2J": 2}"#.utf8)) ?? ""
    #expect(
      problem.contains(#"the member "\u{1B}[2J" appears twice"#) && !problem.contains("\u{1B}"), "\(problem)")
  }

  @Test("a column mapping with a unit named twice is refused, naming the file and the member")
  func mapping() throws {
    let folder = TemporaryFolder()
    folder.write("d.csv", "t,lat,lon\n1690891200000,40,-75\n")
    let once =
      #"{"name": "m", "files": [{"file": "d.csv", "time": {"column": "t", "format": "epoch-milliseconds"}, "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"}}}]}"#
    folder.write("once.json", once)
    let (trace, _) = try TraceImport.read(path: folder.path, mappingPath: folder.path("once.json"))
    #expect(trace.fixes.count == 1)
    folder.write(
      "twice.json",
      once.replacingOccurrences(of: #""unit": "deg"}}"#, with: #""unit": "deg", "unit": "rad"}}"#))
    do {
      _ = try TraceImport.read(path: folder.path, mappingPath: folder.path("twice.json"))
      Issue.record("a mapping with a repeated unit was read")
    } catch let TraceError.malformed(location, reason) {
      #expect(
        location.file.hasSuffix("twice.json") && reason.contains(#"the member "unit" appears twice"#),
        "\(reason)")
    }
  }

  @Test(
    "a trace folder whose trace.json names a member twice is refused (review27 R11: two decoders kept different ones)"
  )
  func traceManifest() throws {
    let folder = TemporaryFolder()
    var trace = Trace(metadata: TraceMetadata(format: "first"))
    trace.gravity = VectorStream(seconds: [0], x: [0], y: [0], z: [9.8])
    try TraceFolder.write(trace, to: folder.path("t"))
    let manifest = folder.path("t/trace.json")
    let text = try String(contentsOfFile: manifest, encoding: .utf8)
    try text.replacingOccurrences(of: #""format":"first""#, with: #""format":"first","format":"other""#)
      .write(toFile: manifest, atomically: true, encoding: .utf8)
    do {
      _ = try TraceFolder.read(folder.path("t"))
      Issue.record("a manifest with a repeated member was read")
    } catch let TraceError.io(path, reason) {
      #expect(
        path == manifest && reason.contains(#"not a trace manifest: at byte"#)
          && reason.contains(#""format""#),
        "\(reason)")
    }
  }

  @Test("a places file with a radius named twice is ambiguous; the same member in two features is not")
  func places() throws {
    func collection(_ properties: String) -> Data {
      Data(
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[2,48]},"properties":{\#(properties)}},{"type":"Feature","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"radiusMeters":80}}]}"#
          .utf8)
    }
    #expect(try PlacesFile.parse(collection(#""radiusMeters":100"#), file: "p.geojson").count == 2)
    for properties in [
      #""radiusMeters":100,"radiusMeters":1e9"#, #""radiusMeters":100,"extra":{"a":1,"a":2}"#,
    ] {
      do {
        _ = try PlacesFile.parse(collection(properties), file: "p.geojson")
        Issue.record("\(properties) was read")
      } catch {
        guard case .malformed(_, let reason) = error else { return }
        #expect(reason.hasPrefix("ambiguous: the member ") && reason.contains("appears twice"), "\(reason)")
      }
    }
  }
}
