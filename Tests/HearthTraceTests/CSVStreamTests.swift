import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthTrace

@Suite("Streaming CSV reader: bad input is reported, nothing is lost")
struct CSVStreamTests {
  /// Reads every column as a number (or `kinds` per column) and returns the
  /// values by column plus the report.
  func read(
    _ bytes: [UInt8], kinds: [CSVColumnRequest.Kind]? = nil, options: ReadOptions = ReadOptions(),
    batchRows: Int = 65_536
  ) throws -> (numbers: [[Double]], texts: [[String]], lines: [Int], report: FileReport) {
    let folder = TemporaryFolder()
    let path = folder.write("data.csv", bytes)
    var numbers: [[Double]] = []
    var texts: [[String]] = []
    var lines: [Int] = []
    let report = try CSVStream.read(
      path: path, displayName: "data.csv", options: options, batchRows: batchRows,
      select: { header, _ in
        let requests = header.indices.map { CSVColumnRequest(index: $0, kind: kinds?[$0] ?? .number) }
        numbers = Array(repeating: [], count: requests.filter { $0.kind == .number }.count)
        texts = Array(repeating: [], count: requests.filter { $0.kind == .text }.count)
        return requests
      },
      body: { batch in
        for k in numbers.indices { numbers[k] += batch.numbers[k] }
        for k in texts.indices { texts[k] += batch.texts[k] }
        lines += batch.lines
      })
    return (numbers, texts, lines, report)
  }

  func read(_ text: String, kinds: [CSVColumnRequest.Kind]? = nil, options: ReadOptions = ReadOptions())
    throws
    -> (numbers: [[Double]], texts: [[String]], lines: [Int], report: FileReport)
  {
    try read(Array(text.utf8), kinds: kinds, options: options)
  }

  @Test("plain rows, CRLF, a byte-order mark, blank lines and no final newline")
  func layouts() throws {
    let r = try read("\u{FEFF}a,b\r\n1,2\r\n\r\n3.5,-4e2\n\n5,6")
    #expect(r.numbers == [[1, 3.5, 5], [2, -400, 6]])
    #expect(r.lines == [2, 4, 6])
    #expect(r.report.rowsRead == 3 && r.report.rowsKept == 3 && r.report.reconciles)
  }

  @Test("quoted fields hold delimiters, line breaks and doubled quotes")
  func quoting() throws {
    let r = try read(
      "name,value\n\"a,b\",1\n\"line\nbreak\",2\n\"say \"\"hi\"\"\",3\n", kinds: [.text, .number])
    #expect(r.texts == [["a,b", "line\nbreak", "say \"hi\""]])
    #expect(r.numbers == [[1, 2, 3]])
    #expect(r.lines == [2, 3, 5])
  }

  @Test("semicolons with decimal commas; tabs; quoted headers with units")
  func dialects() throws {
    let semicolon = try read("\"Time (s)\";\"Acceleration x (m/s^2)\"\n0,5;9,81\n1,5;-0,25\n")
    #expect(semicolon.numbers == [[0.5, 1.5], [9.81, -0.25]])
    let tab = try read("a\tb\n1.5\t2\n")
    #expect(tab.numbers == [[1.5], [2]])
  }

  @Test("empty and missing values read as NaN; garbage is rejected with line, column and reason")
  func badFields() throws {
    let r = try read("a,b,c\n1,,NaN\n2,x,3\n4,5\n6,7,8,9\n10,11,12\n")
    #expect(r.numbers[0] == [1, 10])
    #expect(r.numbers[1][0].isNaN && r.numbers[2][0].isNaN)
    #expect(r.report.rowsRead == 5 && r.report.rowsKept == 2 && r.report.reconciles)
    #expect(r.report.rejectedByReason == [.notANumber: 1, .wrongFieldCount: 2])
    let bad = r.report.rejections[0]
    // Named by column number and name (review26 F9), on the quoted path too.
    #expect(bad.location == SourceLocation(file: "data.csv", line: 3, column: 2, columnName: "b"))
    #expect(bad.reason == .notANumber && bad.detail == "x")
    #expect("\(bad)".hasPrefix("data.csv:3:2 (b): notANumber"), "\(bad)")
    let quoted = try read("a,\"b\u{1B}[2J\"\n1,\"x\"\n")
    #expect(
      quoted.report.rejections.first?.location.columnName == #"b\u{1B}[2J"#, "\(quoted.report.rejections)")
    #expect(r.report.rejections[1].detail == "expected 3 fields, found 2")
    #expect(r.report.rejections[2].detail == "expected 3 fields, found 4")
  }

  @Test("non-UTF-8 bytes: a number column rejects the row, a text column too, others are untouched")
  func invalidUTF8() throws {
    let bytes =
      Array("t,name\n1,ok\n2,".utf8) + [0xFF, 0xFE] + Array("\n".utf8) + [0xC3] + Array(",x\n3,fine\n".utf8)
    let r = try read(bytes, kinds: [.number, .text])
    #expect(r.numbers == [[1, 3]])
    #expect(r.texts == [["ok", "fine"]])
    #expect(r.report.rejectedByReason == [.invalidUTF8: 1, .notANumber: 1])
  }

  @Test("a truncated file: an unclosed quote or a cut row is rejected, the rest kept")
  func truncated() throws {
    let cut = try read("a,b\n1,2\n3")
    #expect(cut.numbers == [[1], [2]])
    #expect(cut.report.rejectedByReason == [.wrongFieldCount: 1])
    let quote = try read("a,b\n1,2\n\"3,4\n", kinds: [.text, .number])
    #expect(quote.texts == [["1"]])
    #expect(quote.report.rejectedByReason == [.unterminatedQuote: 1])
    let badQuote = try read("a,b\n\"x\"y,1\n2,3\n", kinds: [.text, .number])
    #expect(badQuote.report.rejectedByReason == [.badQuote: 1] && badQuote.numbers == [[3]])
  }

  @Test(
    "review26 F10: lines ending in a carriage return alone are refused by name; CRLF and a CR in quotes are read"
  )
  func carriageReturnLineEnds() throws {
    for text in ["a,b\r1,2\r3,4\r", "a,b\r1,2", "\"x\",b\r1,2\n"] {
      #expect {
        try read(text)
      } throws: { error in
        "\(error)".contains(
          "data.csv:1: unsupported: lines end with a carriage return alone (classic Mac OS)")
      }
    }
    // Named on the header's own line, after blank lines too.
    #expect {
      try read("\n\na,b\r1,2\r")
    } throws: { "\($0)".contains("data.csv:3: unsupported: lines end with a carriage return alone") }
    #expect(try read("a,b\r\n1,2\r\n").numbers == [[1], [2]])
    #expect(try read("a,b\r").numbers == [[], []])
    let quoted = try read("\"a\rb\",c\n1,2\n")
    #expect(quoted.numbers == [[1], [2]] && quoted.report.reconciles)
  }

  @Test("empty files and files with only blank lines have no header: a clear error")
  func empty() {
    for text in ["", "\n\n", "\r\n"] {
      #expect(throws: TraceError.self) { try read(text) }
    }
    let headerOnly = try? read("a,b\n")
    #expect(headerOnly?.report.rowsRead == 0)
  }

  @Test("a line longer than the limit is rejected without being buffered; the next rows are kept")
  func longLine() throws {
    let long = String(repeating: "9", count: 200_000)
    let r = try read(
      "a,b\n1,2\n\(long),3\n4,5\n", options: ReadOptions(maximumLineBytes: 10_000))
    #expect(r.numbers == [[1, 4], [2, 5]])
    #expect(r.report.rejectedByReason == [.lineTooLong: 1] && r.report.reconciles)
    #expect(r.lines == [2, 4])
  }

  @Test("strict mode throws on the first bad row, naming it")
  func strict() {
    #expect {
      try read("a\n1\nx\n2\n", options: ReadOptions(strict: true))
    } throws: { error in
      guard case TraceError.rejectedInStrictMode(let rejection) = error else { return false }
      return rejection.location.line == 3 && rejection.reason == .notANumber
    }
  }

  @Test("rows crossing the 4 MiB chunk boundary and batch boundaries read the same (seeded)")
  func boundaries() throws {
    var generator = SeededGenerator(seed: 5)
    var text = "t,x,label\n"
    var expected: [Double] = []
    var expectedLabels: [String] = []
    while text.utf8.count < 9_000_000 {
      let x = generator.nextDouble(in: -1000, 1000)
      let label = generator.next() % 7 == 0 ? "\"multi\nline, \"\"quoted\"\"\"" : "plain"
      text += "\(expected.count),\(x),\(label)\n"
      expected.append(x)
      expectedLabels.append(label.hasPrefix("\"") ? "multi\nline, \"quoted\"" : "plain")
    }
    for batchRows in [1, 977, 65_536] {
      let r = try read(Array(text.utf8), kinds: [.number, .number, .text], batchRows: batchRows)
      #expect(r.numbers[1] == expected, "batchRows \(batchRows)")
      #expect(r.texts[0] == expectedLabels)
      #expect(r.report.rowsKept == expected.count && r.report.rowsRejected == 0)
    }
  }

  @Test("batches a caller keeps keep their values while later batches reuse the memory of those it let go")
  func keptBatches() throws {
    let rows = 1_000
    let text = "t,x\n" + (0..<rows).map { "\($0),\(Double($0) + 0.5)\n" }.joined()
    let folder = TemporaryFolder()
    let path = folder.write("kept.csv", text)
    let select: ([String], CSVDialect) -> [CSVColumnRequest] = { _, _ in
      [CSVColumnRequest(index: 0, kind: .integer), CSVColumnRequest(index: 1, kind: .number)]
    }
    var kept: [CSVBatch] = []
    var everyOther: [CSVBatch] = []
    _ = try CSVStream.read(path: path, batchRows: 64, select: select) { batch in
      kept.append(batch)
      if kept.count % 2 == 0 { everyOther.append(batch) }
    }
    #expect(kept.count == 16 && kept.map(\.count).reduce(0, +) == rows)
    #expect(kept.flatMap { $0.integers[0] } == (0..<rows).map { Int64($0) })
    #expect(kept.flatMap { $0.numbers[0] } == (0..<rows).map { Double($0) + 0.5 })
    #expect(kept.flatMap(\.lines) == Array(2..<(rows + 2)))
    var k = 1
    for batch in everyOther {
      #expect(batch.integers[0].first == Int64(k * 64) && batch.lines.first == k * 64 + 2)
      k += 2
    }
    // A caller that lets go of each batch sees the same values.
    var streamed: [Double] = []
    _ = try CSVStream.read(path: path, batchRows: 64, select: select) { streamed += $0.numbers[0] }
    #expect(streamed == (0..<rows).map { Double($0) + 0.5 })
  }

  @Test("random bytes never trap, and every row is kept or rejected (seeded)")
  func garbage() throws {
    var generator = SeededGenerator(seed: 6)
    let alphabet = Array("0123456789.,;-+eE\"\n\r \tNaN".utf8) + [0xFF, 0x00, 0xC3]
    for _ in 0..<300 {
      var bytes = Array("a,b,c\n".utf8)
      for _ in 0..<Int(generator.next() % 2000) {
        bytes.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
      }
      let r = try read(bytes, kinds: [.number, .text, .integer])
      #expect(r.report.reconciles)
      #expect(r.numbers.allSatisfy { $0.count == r.report.rowsKept })
    }
  }
}
