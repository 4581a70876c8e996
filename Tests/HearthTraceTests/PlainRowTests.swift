import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthTrace

/// Issue 33: the plain row path (`CSVParser+PlainRow`) keeps exactly the rows
/// the general path keeps, with the same values, and leaves every other row
/// to it, so every rejection (reason, line, column, detail) and count stays.
@Suite("CSV plain row path == general path")
struct PlainRowTests {
  /// Everything a read produced: values by bit pattern, lines, the report, or the error.
  struct Outcome: Equatable, CustomStringConvertible {
    var numbers: [[UInt64]] = []
    var integers: [[Int64]] = []
    var lines: [Int] = []
    var report: FileReport?
    var error: String?

    var description: String {
      "numbers \(numbers.map { $0.map { Double(bitPattern: $0) } }), integers \(integers), lines \(lines), "
        + "report \(report.map { "\($0.rowsRead) read, \($0.rowsKept) kept, \($0.rejections)" } ?? "-"), "
        + "error \(error ?? "-")"
    }
  }

  /// Reads `bytes` with the plain path used as `plain` says; `kinds[k]` nil leaves column k out.
  static func read(
    _ bytes: [UInt8], kinds: [CSVColumnRequest.Kind?], options: ReadOptions = ReadOptions(),
    batchRows: Int = 65_536,
    plain: PlainRowPolicy
  ) -> Outcome {
    let folder = TemporaryFolder()
    let path = folder.write("data.csv", bytes)
    var outcome = Outcome()
    do {
      outcome.report = try CSVStream.read(
        path: path, displayName: "data.csv", options: options, batchRows: batchRows, plainRows: plain,
        select: { header, _ in
          let requests = header.indices.compactMap { k in
            (k < kinds.count ? kinds[k] : nil).map { CSVColumnRequest(index: k, kind: $0) }
          }
          outcome.numbers = Array(repeating: [], count: requests.filter { $0.kind == .number }.count)
          outcome.integers = Array(repeating: [], count: requests.filter { $0.kind == .integer }.count)
          return requests
        },
        body: { batch in
          for k in batch.numbers.indices { outcome.numbers[k] += batch.numbers[k].map(\.bitPattern) }
          for k in batch.integers.indices { outcome.integers[k] += batch.integers[k] }
          outcome.lines += batch.lines
        })
    } catch {
      outcome.error = "\(error)"
    }
    return outcome
  }

  /// A random file: a header, then rows mostly plain, some with every
  /// kind of trouble the readers know.
  struct Case: Shrinkable, CustomStringConvertible {
    var delimiter: Character
    var kinds: [CSVColumnRequest.Kind?]
    var rows: [String]
    var batchRows: Int
    var maximumLineBytes: Int
    var strict: Bool

    var bytes: [UInt8] {
      let header = kinds.indices.map { "c\($0)" }.joined(separator: String(delimiter)) + "\n"
      return Array((header + rows.joined()).utf8)
    }

    var options: ReadOptions { ReadOptions(strict: strict, maximumLineBytes: maximumLineBytes) }

    var shrinkCandidates: [Case] {
      var out: [Case] = []
      if rows.count > 1 {
        var half = self
        half.rows.removeLast(rows.count / 2)
        out.append(half)
      }
      for k in rows.indices {
        var fewer = self
        fewer.rows.remove(at: k)
        out.append(fewer)
      }
      if batchRows != 65_536 {
        var one = self
        one.batchRows = 65_536
        out.append(one)
      }
      return out
    }

    var description: String {
      "delimiter \(delimiter), kinds \(kinds), batchRows \(batchRows), maximumLineBytes \(maximumLineBytes), "
        + "strict \(strict), rows:\n" + rows.map { "  \($0.debugDescription)" }.joined(separator: "\n")
    }
  }

  static let numbers = [
    "0", "-0", "+1.5", "12.25", "0.9662595150872932", "-1.3603584284923196", "40.1046933", "1e22", "1e23",
    "2.5E-3", "4.9e-324", "2.2250738585072011e-308", "1e400", "-1e-400", "9007199254740993",
    "12345678901234567890", "0.00000000000000000000012", ".5", "5.", "", "NaN", "-inf", " 7", "7 ", "\"8\"",
    "\"1,5\"", "1e", "abc", "1,5", "1.2.3", "-", "+", ".", "1\r2", "\u{FF}",
  ]
  static let integers = [
    "0", "-1", "+42", "1691185677581023000", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "12345678901234567890", "12.0", "12.5", "", "-", " 3", "\"4\"", "1e9", "x",
  ]

  static func field(_ kind: CSVColumnRequest.Kind?, _ g: inout SeededGenerator, delimiter: Character)
    -> String
  {
    let roll = g.next() % 10
    switch kind {
    case .integer:
      if roll < 6 { return "\(Int64(truncatingIfNeeded: g.next()) >> Int(g.next() % 63))" }
      return integers[Int(g.next() % UInt64(integers.count))]
    case .number, nil:
      if roll < 5 {
        let text =
          "\(Double(bitPattern: g.next() >> 2 | 0x3000_0000_0000_0000) * (g.next() % 2 == 0 ? 1 : -1))"
        return delimiter == ","
          ? text : text.replacingOccurrences(of: ".", with: g.next() % 2 == 0 ? "," : ".")
      }
      if roll < 7 { return "\(g.nextDouble(in: -400, 400))" }
      return numbers[Int(g.next() % UInt64(numbers.count))].replacingOccurrences(
        of: ",", with: String(delimiter))
    default:
      return "t"
    }
  }

  static func generate(_ g: inout SeededGenerator) -> Case {
    let delimiter: Character = [",", ";", "\t"][Int(g.next() % 3)]
    let kindChoices: [CSVColumnRequest.Kind?] = [.number, .number, .integer, nil]
    let kinds = (0..<(1 + Int(g.next() % 5))).map { _ in kindChoices[Int(g.next() % 4)] }
    var rows: [String] = []
    for _ in 0..<Int(g.next() % 40) {
      var fields = kinds.map { field($0, &g, delimiter: delimiter) }
      switch g.next() % 20 {
      case 0: fields.removeLast()
      case 1: fields.append("9")
      case 2: fields[Int(g.next() % UInt64(fields.count))] = "\"q\(delimiter)\nx\""
      case 3: rows.append(["\n", "  \n", "\t\r\n", "\r\n"][Int(g.next() % 4)])
      case 4: fields[0] = "\"" + fields[0]
      default: break
      }
      let end = ["\n", "\n", "\n", "\n", "\r\n", "\r", ""][Int(g.next() % 7)]
      rows.append(fields.joined(separator: String(delimiter)) + end)
    }
    if g.next() % 3 == 0 && !rows.isEmpty { rows[rows.count - 1] = String(rows[rows.count - 1].dropLast()) }
    return Case(
      delimiter: delimiter, kinds: kinds, rows: rows, batchRows: [1, 3, 65_536][Int(g.next() % 3)],
      maximumLineBytes: g.next() % 4 == 0 ? 24 + Int(g.next() % 40) : 1 << 20, strict: g.next() % 8 == 0)
  }

  @Test(
    "random files with every kind of row: the same values, lines, rejections and errors both ways (property)")
  func property() {
    let failure = PropertyCheck.run(
      "plain path == general path", cases: PropertyCampaign.cases(default: 400),
      generator: { SeededGenerator(seed: $0) }, generate: Self.generate,
      check: { c in
        let general = Self.read(
          c.bytes, kinds: c.kinds, options: c.options, batchRows: c.batchRows, plain: .off)
        // The plain path tried on every row, and as readers use it (paused after a miss).
        for policy in [PlainRowPolicy(pauseRows: 0), .standard] {
          let plain = Self.read(
            c.bytes, kinds: c.kinds, options: c.options, batchRows: c.batchRows, plain: policy)
          if plain != general { return "pause \(policy.pauseRows): plain: \(plain)\ngeneral: \(general)" }
        }
        return nil
      })
    #expect(failure == nil, "\(failure ?? "")")
  }

  @Test(
    "9 MB of rows across the 4 MiB chunks and batch edges, a bad row now and then: the same both ways (seeded)"
  )
  func acrossChunks() {
    var g = SeededGenerator(seed: 333)
    var text = "time,seconds_elapsed,z,y,x\n"
    var rows = 0
    while text.utf8.count < 9_000_000 {
      let odd = g.next() % 500 == 0
      text +=
        "\(1_691_185_677_581_023_000 + rows * 10_000_000),\(Double(rows) * 0.01 - 0.5),"
        + "\(g.nextDouble(in: -2, 2)),\(odd ? "\"1.5\"" : "\(g.nextDouble(in: -2, 2))"),\(g.nextDouble(in: -2, 2))"
        + (rows % 7 == 0 ? "\r\n" : "\n")
      rows += 1
    }
    let bytes = Array(text.utf8)
    let kinds: [CSVColumnRequest.Kind?] = [.integer, .number, nil, .number, .number]
    for batchRows in [977, 65_536] {
      let plain = Self.read(bytes, kinds: kinds, batchRows: batchRows, plain: .standard)
      let general = Self.read(bytes, kinds: kinds, batchRows: batchRows, plain: .off)
      #expect(plain == general, "batchRows \(batchRows)")
      #expect(plain.report?.rowsRead == rows && plain.lines.count == rows, "quoted numbers are kept")
    }
  }

  /// The plain path itself on a buffer: it keeps plain rows and stops at the
  /// first row that is not, leaving that row where it starts.
  @Test("the plain path keeps plain rows and stops at the first other row, wherever it is")
  func stopsAtTheFirstOtherRow() throws {
    let plainRows = "1,2.5,x\n-3,+4e2,y\r\n5,,z\n"
    for other in [
      "\"6\",7,w\n", "6,7\n", "6,7,w,v\n", "  \n", "\n", "6.5,7,w\n", ",7,w\n", "6,7\r,w\n", "6,0x7,w\n",
      "6,12345678901234567890,w\n", "6,7,\"w\"\n", "6,7,w\r", "6,7,w",
    ] {
      var source = ChunkSource(
        bytes: Array(("t,x,label\n" + plainRows + other + "8,9,u\n").utf8), displayName: "b")
      defer { source.close() }
      var parser = try CSVParser(source: &source, name: "b", options: ReadOptions()) { _, _ in
        [CSVColumnRequest(index: 0, kind: .integer), CSVColumnRequest(index: 1, kind: .number)]
      }
      var storage = CSVBatchStorage(capacity: 16, numbers: 1, integers: 1, texts: 0)
      defer { storage.deallocate() }
      let start = source.start
      let stop = parser.keepPlainRows(
        UnsafePointer(source.buffer.baseAddress!), from: start, limit: source.end, storage: &storage)
      #expect(stop == start + plainRows.utf8.count, "\(other.debugDescription)")
      #expect(storage.count == 3 && parser.report.rowsKept == 3 && parser.line == 5)
      #expect(storage.integers[0][2] == 5 && storage.numbers[0][1] == 400 && storage.numbers[0][2].isNaN)
    }
  }
}
