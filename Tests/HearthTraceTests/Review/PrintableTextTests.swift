import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// review26 F11: text from a hostile file was echoed raw, so an escape
/// sequence in a field retitled or cleared the terminal reading the report.
@Suite("Text from a file is echoed printable: control characters as their codes")
struct PrintableTextTests {
  @Test("every C0 and C1 control character and DEL is shown as its code; the rest as it is")
  func printable() {
    #expect(Excerpt.printable("\u{1B}]0;pwned\u{07}\u{1B}[2J") == #"\u{1B}]0;pwned\u{7}\u{1B}[2J"#)
    #expect(Excerpt.printable("a\0b\tc\nd\r\u{7F}\u{9F}") == #"a\u{0}b\u{9}c\u{A}d\u{D}\u{7F}\u{9F}"#)
    for text in ["plain", "Café 🏠", "\u{A0}non-breaking", ""] { #expect(Excerpt.printable(text) == text) }
    for scalar in (0..<0x100).compactMap(Unicode.Scalar.init) {
      let shown = Excerpt.printable(String(Character(scalar)))
      #expect(
        !shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
        "U+\(String(scalar.value, radix: 16)) stays a control character")
    }
    // Bidirectional embeddings, overrides and isolates reorder what a terminal shows after
    // them: shown as codes too (review30); the marks beside them are not controls.
    for value in Array(0x202A...0x202E) + Array(0x2066...0x2069) {
      let scalar = Unicode.Scalar(UInt32(value))!
      #expect(Excerpt.printable("a\(scalar)b") == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
    }
    for kept in ["\u{2029}", "\u{2065}", "\u{206A}", "\u{200E}"] { #expect(Excerpt.printable(kept) == kept) }
    // Shortened after it is made printable, counting the bytes given.
    #expect(
      Excerpt.of(String(repeating: "\u{1B}", count: 100), bytes: 20) == #"\u{1B}\u{1B}\u{1B}"#
        + "… (100 bytes)")
  }

  @Test("a rejection's value is cut at 61 characters between codes, never inside one")
  func rejectionCut() {
    for prefix in 0..<70 {
      let detail = String(repeating: "x", count: prefix) + String(repeating: "\u{1B}", count: 30)
      let rejection = RowRejection(
        location: SourceLocation(file: "f", line: 1), reason: .notANumber, detail: detail)
      let shown = rejection.detail.hasSuffix("…") ? String(rejection.detail.dropLast()) : rejection.detail
      #expect(shown.count <= 64, "\(prefix)")
      #expect(
        shown.replacingOccurrences(of: #"\u{1B}"#, with: "").allSatisfy { $0 == "x" },
        "\(prefix): \(rejection.detail)")
    }
  }

  @Test("a GPX value with an escape sequence is rejected with its code shown, not the sequence")
  func rejectionDetail() throws {
    let folder = TemporaryFolder()
    let gpx = folder.write(
      "esc.gpx",
      "<gpx><trk><trkseg><trkpt lat=\"40\u{1B}[31m\" lon=\"-75\"><time>2023-08-01T12:00:00Z</time></trkpt>"
        + "<trkpt lat=\"40\" lon=\"-75\"><time>2023-08-01T12:00:01Z</time></trkpt></trkseg></trk></gpx>")
    let (trace, report) = try TraceImport.read(path: gpx)
    #expect(trace.fixes.count == 1)
    let first = report.files.first?.rejections.first?.description ?? ""
    #expect(first.hasSuffix(#"lat: 40\u{1B}[31m"#) && !first.contains("\u{1B}"), "\(first)")
  }
}
