import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace
import struct HearthSim.SeededGenerator

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
      let fast = row.withUnsafeBufferPointer {
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
