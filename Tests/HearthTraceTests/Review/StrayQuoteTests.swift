import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Issue 16, second review: a stray `"` must cost one line, never the rest of
/// the file, in the fast path and the RFC 4180 path, read whole or streamed.
@Suite("A stray quote rejects one line and reading goes on")
struct StrayQuoteTests {
  /// A Sensor Logger folder at 100 Hz, `n` rows, row `bad` (0-based) ending
  /// in `"0,0.0` instead of `0,0.0`.
  static func folder(rows n: Int, strayAt bad: Int) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording epoch time,platform\n3,Pixel,1700000000000,android\n")
    var text = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<n {
      let x = i == n - 10 ? "78.48" : "0.0"  // a jolt after the stray quote
      text += "\(1_700_000_000_000_000_000 + Int64(i) * 10_000_000),\(Double(i) / 100),9.81,"
      text += i == bad ? "\"0,\(x)\n" : "0,\(x)\n"
    }
    folder.write("TotalAcceleration.csv", text)
    return folder
  }

  /// The accelerometer and its file report, read whole and streamed.
  func readBothWays(_ path: String, samples: Int) throws -> [([Double], FileReport)] {
    let (whole, wholeReport) = try TraceImport.read(path: path)
    let stream = try TraceImport.stream(path: path)
    var x: [Double] = []
    let streamedReport = try stream.forEachChunk(samples: samples) { chunk in
      x += chunk.trace.accelerometer?.samples.x ?? []
    }
    return try [
      (whole.accelerometer?.samples.x ?? [], #require(wholeReport.file(endingWith: "TotalAcceleration.csv"))),
      (x, #require(streamedReport.file(endingWith: "TotalAcceleration.csv"))),
    ]
  }

  @Test(
    "regression 2026-12-02: a stray quote threw away the rest of a CSV file uncounted (whole and streamed)",
    arguments: [1, 97, 65_536])
  func strayQuoteKeepsTheRest(samples: Int) throws {
    let folder = Self.folder(rows: 6000, strayAt: 100)
    for (x, file) in try readBothWays(folder.path, samples: samples) {
      #expect(file.rowsRead == 6000 && file.rowsKept == 5999 && file.reconciles)
      #expect(file.rejectedByReason == [.unterminatedQuote: 1])
      #expect(file.rejections.first?.location.line == 102, "the header is line 1")
      #expect(x.count == 5999 && x.max() == 78.48, "the jolt after the stray quote is read")
    }
  }

  @Test(
    "regression 2026-12-02: a stray quote in the last row, or two stray quotes, lose only their own lines")
  func strayQuotesAtTheEdges() throws {
    for bad in [0, 5999] {
      let folder = Self.folder(rows: 6000, strayAt: bad)
      for (_, file) in try readBothWays(folder.path, samples: 500) {
        #expect(
          file.rowsRead == 6000 && file.rowsKept == 5999 && file.rejectedByReason == [.unterminatedQuote: 1])
      }
    }
  }

  /// Every column read as `kind`; the kept values of column 1 and the report.
  func read(_ text: String, kind: CSVColumnRequest.Kind, options: ReadOptions = ReadOptions()) throws -> (
    kept: [String], report: FileReport
  ) {
    let folder = TemporaryFolder()
    let path = folder.write("data.csv", Array(text.utf8))
    var kept: [String] = []
    let report = try CSVStream.read(
      path: path, displayName: "data.csv", options: options, batchRows: 3,
      select: { header, _ in
        [CSVColumnRequest(index: 0, kind: .number), CSVColumnRequest(index: 1, kind: kind)]
      },
      body: { batch in
        kept += kind == .text ? batch.texts[0] : batch.numbers[1].map { "\($0)" }
      })
    return (kept, report)
  }

  @Test(
    "regression 2026-12-02: an unclosed quote in a file with a text column rejects its first line, the rest is read"
  )
  func unclosedQuoteWithText() throws {
    let r = try read("t,name\n1,ok\n2,\"open\n3,fine\n4,also\n", kind: .text)
    #expect(r.kept == ["ok", "fine", "also"])
    #expect(
      r.report.rowsRead == 4 && r.report.rejectedByReason == [.unterminatedQuote: 1] && r.report.reconciles)
    // A closed quote still spans lines when text is read: one row, kept.
    let spanning = try read("t,name\n1,\"two\nlines\"\n2,x\n", kind: .text)
    #expect(spanning.kept == ["two\nlines", "x"] && spanning.report.rowsRead == 2)
  }

  @Test("a file read only for numbers: a quoted field ends at its line (a line break there is a stray quote)")
  func numbersDoNotSpanLines() throws {
    // The same bytes as the spanning text row above: with only numbers read
    // the open quote is rejected on its line and the next line is a row of
    // its own (here not a number: `2"`).
    let r = try read("t,v\n1,\"2\n3\",4\n5,6\n", kind: .number)
    #expect(r.kept == ["6.0"])
    #expect(r.report.rowsRead == 3 && r.report.reconciles)
    #expect(r.report.rejectedByReason == [.unterminatedQuote: 1, .notANumber: 1])
    // A quoted number on one line is a number.
    #expect(try read("t,v\n1,\"2.5\"\n", kind: .number).kept == ["2.5"])
  }

  @Test(
    "regression 2026-12-02: an unclosed quote longer than the line limit is one lineTooLong row, whatever the buffering"
  )
  func unclosedQuoteOverTheLimit() throws {
    let long = String(repeating: "9", count: 300)
    let text = "t,name\n1,\"" + long + "\n" + (2..<40).map { "\($0),x\n" }.joined()
    for limit in [64, 4096] {
      let r = try read(text, kind: .text, options: ReadOptions(maximumLineBytes: limit))
      #expect(r.kept.count == 38 && r.report.rowsRead == 39 && r.report.reconciles)
      #expect(r.report.rejectedByReason == [limit == 64 ? .lineTooLong : .unterminatedQuote: 1])
    }
  }
}
