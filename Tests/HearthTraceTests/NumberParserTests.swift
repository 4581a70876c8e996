import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthTrace

@Suite("Decimal text to Double")
struct NumberParserTests {
  func parse(_ text: String, decimalComma: Bool = false) -> NumberParser.Parsed {
    Array(text.utf8).withUnsafeBufferPointer { NumberParser.parseDouble($0, decimalComma: decimalComma) }
  }

  func strtodValue(_ text: String) -> Double {
    text.withCString { strtod($0, nil) }
  }

  @Test("simple forms, signs, exponents, specials and missing values")
  func forms() {
    #expect(parse("0") == .value(0))
    #expect(parse("-0.0") == .value(-0.0))
    #expect(parse("  12.5 ") == .value(12.5))
    #expect(parse("+3") == .value(3))
    #expect(parse("1e3") == .value(1000))
    #expect(parse("2.5E-3") == .value(0.0025))
    #expect(parse(".5") == .value(0.5))
    #expect(parse("5.") == .value(5))
    #expect(parse("") == .empty)
    #expect(parse("   ") == .empty)
    guard case .value(let nan) = parse("NaN") else {
      Issue.record("NaN")
      return
    }
    #expect(nan.isNaN)
    #expect(parse("-inf") == .value(-.infinity))
    #expect(parse("Infinity") == .value(.infinity))
    #expect(parse("1,5", decimalComma: true) == .value(1.5))
  }

  @Test("garbage is invalid, never a trap")
  func invalid() {
    for bad in ["abc", "1.2.3", "1e", "1e+", "--1", "1 2", "0x10", "1,5", ".", "-", "nana", "1e5x", "\u{FF}"]
    {
      #expect(parse(bad) == .invalid, "\(bad)")
    }
  }

  @Test("every double's shortest representation reads back exactly (seeded)")
  func roundTrip() {
    var generator = SeededGenerator(seed: 77)
    for _ in 0..<300_000 {
      let bits = generator.next()
      let value = Double(bitPattern: bits)
      guard value.isFinite else { continue }
      let text = "\(value)"
      #expect(parse(text) == .value(value), "\(text)")
    }
  }

  @Test("agrees with strtod on 15–19-digit mantissas over every exponent and on exact ties (seeded)")
  func againstStrtod() {
    var generator = SeededGenerator(seed: 78)
    var checked = 0
    for _ in 0..<300_000 {
      let digits = 15 + Int(generator.next() % 5)
      var mantissa = ""
      for k in 0..<digits {
        mantissa.append(Character(String(k == 0 ? 1 + generator.next() % 9 : generator.next() % 10)))
      }
      let exponent = Int(generator.next() % 660) - 345
      let text = "\(mantissa)e\(exponent)"
      let expected = strtodValue(text)
      guard case .value(let got) = parse(text) else {
        Issue.record("\(text) did not parse")
        continue
      }
      #expect(got.bitPattern == expected.bitPattern, "\(text): \(got) vs strtod \(expected)")
      checked += 1
    }
    // Exact ties: midpoints between neighbouring doubles in [2^54, 2^63) are
    // integers of 17–19 digits, so they reach the 128-bit path, which must
    // defer to strtod (round half to even) rather than guess.
    for _ in 0..<100_000 {
      let exponent = 54 + Int(generator.next() % 9)
      let base = UInt64(1) << UInt64(exponent)
      let step = UInt64(1) << UInt64(exponent - 52)
      let lower = base + (generator.next() % (base / step)) * step
      let tie = lower + step / 2
      for text in ["\(tie)", "\(tie - 1)", "\(tie + 1)"] {
        let expected = strtodValue(text)
        if case .value(let got) = parse(text) {
          #expect(got.bitPattern == expected.bitPattern, "\(text)")
        } else {
          Issue.record("\(text) did not parse")
        }
      }
    }
    #expect(parse("9007199254740993") == .value(9_007_199_254_740_992))
    #expect(parse("9007199254740995") == .value(9_007_199_254_740_996))
    #expect(checked > 290_000)
  }

  @Test("whole numbers: nanosecond times, a trailing .0, overflow")
  func integers() {
    func int(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBufferPointer { NumberParser.parseInt64($0) } }
    #expect(int("1691185677581023000") == 1_691_185_677_581_023_000)
    #expect(int("-42") == -42)
    #expect(int("1533226488299.0") == 1_533_226_488_299)
    #expect(int("9223372036854775807") == .max)
    #expect(int("9223372036854775808") == nil)
    #expect(int("12.5") == nil)
    #expect(int("") == nil)
    #expect(int("1e9") == nil)
  }
}

@Suite("In-row number parsing agrees with the general parser")
struct NumberFieldTests {
  @Test("parseNumberField == parseDouble on every field and stops at the delimiter (seeded)")
  func agreement() {
    var generator = SeededGenerator(seed: 79)
    let pieces = [
      "0", "1", "9", "12", "-", "+", ".", "e", "E", "-3", "123456789", "00", " ", "nan", "x", ",",
    ]
    for _ in 0..<200_000 {
      var field = ""
      for _ in 0..<Int(generator.next() % 6) { field += pieces[Int(generator.next() % UInt64(pieces.count))] }
      if generator.next() % 3 == 0 { field = "\(Double(bitPattern: generator.next()))" }
      let decimalComma = generator.next() % 4 == 0
      let delimiter = UInt8(ascii: decimalComma ? ";" : ",")
      let bytes = Array(field.utf8).filter { $0 != delimiter }
      let row = bytes + [delimiter] + Array("7".utf8)
      // As in a ChunkSource buffer: zero bytes after the end.
      let padded = row + Array(repeating: 0, count: ChunkSource.padding)
      let fast = padded.withUnsafeBufferPointer {
        NumberParser.parseNumberField(
          $0.baseAddress!, from: 0, end: row.count, delimiter: delimiter, decimalComma: decimalComma)
      }
      let general = bytes.withUnsafeBufferPointer { NumberParser.parseDouble($0, decimalComma: decimalComma) }
      #expect(fast.1 == bytes.count, "\(field)")
      switch (fast.0, general) {
      case (.value(let a), .value(let b)):
        #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "\(field)")
      default: #expect(fast.0 == general, "\(field)")
      }
    }
  }
}

/// Issue 33: the in-place parser of the plain row path answers only where it
/// is exactly strtod, and declines the rest to the general parser.
@Suite("The in-place number parser is strtod bit for bit, or declines")
struct PlainNumberTests {
  /// plainNumber on `text` in a buffer shaped like a ChunkSource's (zero bytes after it).
  func plain(_ text: String, point: UInt8 = UInt8(ascii: ".")) -> (Double, Int)? {
    let bytes = Array(text.utf8) + Array(repeating: 0, count: ChunkSource.padding)
    return bytes.withUnsafeBufferPointer { NumberParser.plainNumber($0.baseAddress!, from: 0, point: point) }
  }

  func general(_ text: String) -> NumberParser.Parsed {
    Array(text.utf8).withUnsafeBufferPointer { NumberParser.parseDouble($0, decimalComma: false) }
  }

  func strtodValue(_ text: String) -> Double { text.withCString { strtod($0, nil) } }

  /// Every text: plain's answer (when it gives one) covers the whole text and
  /// is strtod's bit pattern, and so is the general parser's. Returns whether plain answered.
  @discardableResult
  func check(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
    let expected = strtodValue(text)
    if case .value(let value) = general(text) {
      #expect(value.bitPattern == expected.bitPattern, "general \(text)", sourceLocation: sourceLocation)
    } else {
      Issue.record("general parser refused \(text)", sourceLocation: sourceLocation)
    }
    guard let (value, stop) = plain(text) else { return false }
    #expect(stop == text.utf8.count, "\(text)", sourceLocation: sourceLocation)
    #expect(
      value.bitPattern == expected.bitPattern, "\(text): \(value) vs strtod \(expected)",
      sourceLocation: sourceLocation)
    return true
  }

  @Test("edge cases: 17+ significant digits, exponents, subnormals, -0, a leading +, huge digit counts")
  func edges() {
    let taken = [
      "0", "-0", "+0", "-0.0", "0.", ".0", "+1.5", "-2.", ".5", "0.9662595150872932", "-1.3603584284923196",
      "40.1046933", "1691185677.581023", "9007199254740995", "1234567890123456789", "9007199254740993000",
      "1e22", "1.7976931348623157e308", "2.2250738585072014e-308",
      "1e-400", "-1e-400", "1e400", "-1E+400", "1e99999999999999999999", "123e-20", "5e-1", "1.5E3",
      "9999999999999999999", "0000000000000000001",
    ]
    for text in taken { #expect(check(text), "plain declined \(text)") }
    let declined = [
      // 20 and more significant digits (the mantissa would wrap).
      "12345678901234567890", "0.12345678901234567890", "1.00000000000000000000001",
      "00000000000000000000001", String(repeating: "7", count: 400),
      "0." + String(repeating: "0", count: 350) + "1", String(repeating: "9", count: 310) + ".5",
      // Subnormals and the underflow edge: strtod decides.
      "4.9e-324", "2.4703282292062328e-324", "2.2250738585072011e-308", "1e-310", "-5e-324",
      // Where the 128-bit product cannot settle the rounding (2^53 + 1 is
      // halfway between two doubles): strtod decides.
      "9007199254740993", "1e23", "0.1234567890123456789",
    ]
    for text in declined { #expect(!check(text), "plain took \(text)") }
    for text in [
      "", "-", "+", ".", "-.", "e5", "1e", "1e+", "--1", "+-1", "nan", "inf", " 1", "0x10", "1..2",
    ] {
      #expect(plain(text) == nil || plain(text)!.1 < text.utf8.count, "\(text)")
    }
    // It stops at the first byte that is not part of the number.
    #expect(plain("1.5,2")?.1 == 3 && plain("-7\n")?.1 == 2 && plain("1e5x")?.1 == 3)
    #expect(plain("1,5", point: UInt8(ascii: ","))?.0 == 1.5)
  }

  @Test("random decimals of 1–25 digits, signs and exponents: plain == strtod whenever it answers (seeded)")
  func random() {
    var generator = SeededGenerator(seed: PropertyCampaign.baseSeed &+ 33)
    let cases = PropertyCampaign.cases(default: 200_000)
    var answered = 0
    var commonShape = 0
    var commonAnswered = 0
    for _ in 0..<cases {
      let digits = 1 + Int(generator.next() % 25)
      var mantissa = ""
      for _ in 0..<digits { mantissa.append(Character(String(generator.next() % 10))) }
      let pointAt = Int(generator.next() % UInt64(digits + 2))
      if pointAt <= digits && generator.next() % 4 != 0 {
        mantissa.insert(".", at: mantissa.index(mantissa.startIndex, offsetBy: pointAt))
      }
      let sign = ["", "-", "+"][Int(generator.next() % 3)]
      var exponent = ""
      switch generator.next() % 4 {
      case 0: exponent = "e\(Int(generator.next() % 700) - 350)"
      case 1: exponent = "E+\(generator.next() % 30)"
      default: break
      }
      let text = sign + mantissa + exponent
      let took = check(text)
      if took { answered += 1 }
      // ≤ 15 digits and no exponent: one exact division, always taken.
      if digits <= 15 && exponent.isEmpty {
        commonShape += 1
        if took { commonAnswered += 1 }
      }
    }
    // Not a parser that declines everything: the common shape is taken.
    #expect(answered > cases / 2)
    #expect(
      commonAnswered == commonShape, "\(commonShape - commonAnswered) plain decimals of ≤ 15 digits declined")
  }

  @Test("shortest round-trip texts of random doubles and of values near powers of ten (seeded)")
  func roundTrips() {
    var generator = SeededGenerator(seed: PropertyCampaign.baseSeed &+ 34)
    for _ in 0..<PropertyCampaign.cases(default: 200_000) {
      let value = Double(bitPattern: generator.next())
      guard value.isFinite else { continue }
      check("\(value)")
      let near =
        Double(sign: .plus, exponent: 0, significand: 1) * pow(10, Double(Int(generator.next() % 600) - 300))
      check("\(near.nextUp)")
      check("\(near.nextDown)")
    }
  }
}
