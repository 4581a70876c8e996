import Foundation
import Testing

@testable import HearthRuntime

/// JSON as every output writes it: keys sorted, non-finite numbers `null`,
/// one writer reused for many values giving the bytes a fresh one gives.
@Suite("JSONOutput")
struct JSONOutputTests {
  struct Row: Encodable {
    var b: Double
    var a: [Double]
    var text: String
  }

  @Test("non-finite numbers are null wherever they sit; text that looks like the placeholder is kept")
  func nonFiniteIsNull() throws {
    let writer = try JSONOutput.Writer()
    let text = try writer.encode(Row(b: .nan, a: [.infinity, 1.5, -.infinity], text: "hearth-non-finite"))
    #expect(
      String(decoding: text, as: UTF8.self)
        == #"{"a":[null,1.5,null],"b":null,"text":"hearth-non-finite"}"#)
    #expect(String(decoding: try writer.encode(Double.nan), as: UTF8.self) == "null")
    #expect(String(decoding: try writer.encode([Double.nan]), as: UTF8.self) == "[null]")
    #expect(String(decoding: try writer.encode("a/b"), as: UTF8.self) == #""a/b""#)
  }

  @Test("one writer for many values gives the bytes of a fresh encode each time")
  func reusedWriterIsTheSame() throws {
    let writer = try JSONOutput.Writer()
    for k in 0..<50 {
      let row = Row(
        b: k % 3 == 0 ? .nan : Double(k) / 7, a: Array(repeating: k % 2 == 0 ? .infinity : 0.1, count: k % 4),
        text: "row \(k)")
      #expect(try writer.encode(row) == JSONOutput.encode(row))
    }
  }

  @Test("the placeholder's replacement: none, at both ends, back to back, a near miss")
  func replacing() {
    let marker = Array("<m>".utf8)
    func run(_ text: String) -> String {
      String(decoding: JSONOutput.Writer.replacing(marker, withNullIn: Data(text.utf8)), as: UTF8.self)
    }
    #expect(run("") == "")
    #expect(run("<m") == "<m")
    #expect(run("<m>") == "null")
    #expect(run("<m><m>") == "nullnull")
    #expect(run("a<m>b<m") == "anullb<m")
    #expect(run("<<m>>") == "<null>")
  }
}
