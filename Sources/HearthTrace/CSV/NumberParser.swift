#if canImport(Glibc)
  import Glibc
#endif

/// Decimal text → numbers, straight from bytes.
///
/// Goals, in priority order: 1. correctly rounded (every double written with
/// enough digits reads back bit for bit); 2. never trap on any bytes;
/// 3. fast on the common case of ≤ 19 significant digits.
///
/// Algorithm: up to 19 significant digits accumulate into a 64-bit mantissa
/// w, with a decimal exponent q.
/// 1. When w ≤ 2⁵³ and |q| ≤ 22 the value is one exact multiplication or
///    division of two exactly representable doubles, hence correctly rounded
///    (Clinger, "How to read floating point numbers accurately", PLDI 1990).
/// 2. Otherwise w·10^q is formed from a 128-bit table of powers of five and
///    kept only when the bits that decide the rounding are certain
///    (Eisel–Lemire; Lemire, "Number parsing at a gigabyte per second",
///    Software: Practice and Experience 51(8), 2021).
/// 3. The rare rest (more than 19 digits, subnormals, exact ties the table
///    cannot settle) goes to the C library's strtod, correctly rounded in glibc.
/// Tested against strtod on millions of generated hard cases.
enum NumberParser {
  enum Parsed: Equatable {
    case value(Double)
    /// Empty (or only spaces): a missing reading.
    case empty
    case invalid
  }

  /// 10⁰ … 10²², each exactly representable.
  private static let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// Parses a decimal number: optional sign, digits with an optional decimal
  /// separator (`.`, or also `,` when `decimalComma`), optional exponent;
  /// or nan / inf / infinity in any case. Leading and trailing spaces and
  /// tabs are ignored.
  /// - Complexity: O(count).
  static func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool) -> Parsed {
    var start = 0
    var end = bytes.count
    while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
    while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
    if start == end { return .empty }
    var i = start
    var negative = false
    if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
      negative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    guard i < end else { return .invalid }
    let first = bytes[i] | 0x20  // ASCII lower case
    if first == UInt8(ascii: "n") || first == UInt8(ascii: "i") {
      return special(bytes, from: i, to: end, negative: negative)
    }
    var mantissa: UInt64 = 0
    var significantDigits = 0
    var droppedDigits = false
    var decimalExponent = 0
    var sawDigit = false
    var sawPoint = false
    while i < end {
      let c = bytes[i]
      if c >= 0x30 && c <= 0x39 {
        sawDigit = true
        if significantDigits < 19 {
          if mantissa != 0 || c != 0x30 {
            mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
            significantDigits += 1
          }
          if sawPoint { decimalExponent -= 1 }
        } else {
          if c != 0x30 { droppedDigits = true }
          if !sawPoint { decimalExponent += 1 }
        }
      } else if (c == UInt8(ascii: ".") || (decimalComma && c == UInt8(ascii: ","))) && !sawPoint {
        sawPoint = true
      } else {
        break
      }
      i += 1
    }
    guard sawDigit else { return .invalid }
    if i < end && (bytes[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      var exponentNegative = false
      if i < end && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
        exponentNegative = bytes[i] == UInt8(ascii: "-")
        i += 1
      }
      var exponent = 0
      var sawExponentDigit = false
      while i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
        if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] - 0x30) }
        sawExponentDigit = true
        i += 1
      }
      guard sawExponentDigit else { return .invalid }
      decimalExponent += exponentNegative ? -exponent : exponent
    }
    guard i == end else { return .invalid }
    if let value = compose(mantissa, decimalExponent, negative: negative, droppedDigits: droppedDigits) {
      return .value(value)
    }
    return slowPath(bytes, from: start, to: end, decimalComma: decimalComma)
  }

  /// ±w·10^q from the parsed digits, or nil when only strtod can say
  /// (digits were dropped, or the 128-bit path cannot settle the rounding).
  @inline(__always)
  static func compose(_ mantissa: UInt64, _ decimalExponent: Int, negative: Bool, droppedDigits: Bool)
    -> Double?
  {
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    guard !droppedDigits else { return nil }
    if mantissa <= 1 << 53 && decimalExponent >= -22 && decimalExponent <= 22 {
      let m = Double(mantissa)
      let scaled =
        decimalExponent >= 0
        ? m * exactPowersOfTen[decimalExponent] : m / exactPowersOfTen[-decimalExponent]
      return negative ? -scaled : scaled
    }
    guard let value = eiselLemire(mantissa, decimalExponent) else { return nil }
    return negative ? -value : value
  }

  /// Parses an unquoted numeric field of a CSV row in place: from `start` up
  /// to the first `delimiter`, line feed or carriage return (or `end`).
  /// Returns the value and the index of the byte that ended the field.
  ///
  /// Plain [sign] digits [. digits] [e [sign] digits] is parsed in the same
  /// pass that finds the field's end; anything else (spaces, NaN, more than
  /// 19 digits, garbage) is handed to ``parseDouble(_:decimalComma:)`` on the
  /// field's bytes, so both give the same answer for every input.
  @inline(__always)
  static func parseNumberField(
    _ p: UnsafePointer<UInt8>, from start: Int, end: Int, delimiter: UInt8, decimalComma: Bool
  ) -> (Parsed, Int) {
    var i = start
    var negative = false
    if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
      negative = p[i] == UInt8(ascii: "-")
      i += 1
    }
    // Digits accumulate with leading zeros included (they add nothing to the
    // mantissa); more than 19 digits in all goes to the general parser.
    var mantissa: UInt64 = 0
    let integerStart = i
    (mantissa, i) = digits(p, i, end, mantissa)
    var digitCount = i - integerStart
    var exponent = 0
    if i < end && (p[i] == UInt8(ascii: ".") || (decimalComma && p[i] == UInt8(ascii: ","))) {
      i += 1
      let fractionStart = i
      (mantissa, i) = digits(p, i, end, mantissa)
      exponent = fractionStart - i
      digitCount += i - fractionStart
    }
    guard digitCount > 0 && digitCount <= 19 else { return general(p, start, end, delimiter, decimalComma) }
    if i < end && (p[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      var exponentNegative = false
      if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
        exponentNegative = p[i] == UInt8(ascii: "-")
        i += 1
      }
      var e = 0
      let exponentStart = i
      while i < end {
        let d = p[i] &- 0x30
        if d > 9 { break }
        if e < 100_000 { e = e * 10 + Int(d) }
        i += 1
      }
      if i == exponentStart { return general(p, start, end, delimiter, decimalComma) }
      exponent += exponentNegative ? -e : e
    }
    guard i == end || p[i] == delimiter || p[i] == 0x0A || p[i] == 0x0D,
      let value = compose(mantissa, exponent, negative: negative, droppedDigits: false)
    else { return general(p, start, end, delimiter, decimalComma) }
    return (.value(value), i)
  }

  /// Appends the decimal digits at p[i...] to `mantissa`, eight at a time
  /// where possible (a SWAR check and conversion of eight ASCII bytes), and
  /// returns it with the index of the first non-digit. Wraps silently past
  /// 19 digits; callers count the digits and reject such input.
  @inline(__always)
  static func digits(
    _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ initial: UInt64
  ) -> (UInt64, Int) {
    var mantissa = initial
    var i = start
    while i + 8 <= end {
      // p[i] in the low byte on every platform.
      let chunk = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
      // All eight bytes are '0'...'9' exactly when each byte's high nibble is 3
      // and adding 6 does not carry out of the low nibble.
      let highNibbles = chunk & 0xF0F0_F0F0_F0F0_F0F0
      let carried = ((chunk &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4
      guard highNibbles | carried == 0x3333_3333_3333_3333 else { break }
      var v = chunk &- 0x3030_3030_3030_3030
      v = (v &* 10) &+ (v >> 8)  // pairs of digits
      v =
        (((v & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32)))
          &+ (((v >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32)))) >> 32
      mantissa = mantissa &* 100_000_000 &+ v
      i += 8
    }
    while i < end {
      let d = p[i] &- 0x30
      if d > 9 { break }
      mantissa = mantissa &* 10 &+ UInt64(d)
      i += 1
    }
    return (mantissa, i)
  }

  /// Parses an unquoted whole-number field in place, like
  /// ``parseNumberField(_:from:end:delimiter:decimalComma:)``: returns the
  /// value (nil when the field is not a whole number ``parseInt64(_:)``
  /// accepts) and the index of the byte that ended the field.
  @inline(__always)
  static func parseIntegerField(
    _ p: UnsafePointer<UInt8>, from start: Int, end: Int, delimiter: UInt8
  ) -> (Int64?, Int) {
    var i = start
    let negative = i < end && p[i] == UInt8(ascii: "-")
    if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { i += 1 }
    let digitStart = i
    let (magnitude, stop) = digits(p, i, end, 0)
    let count = stop - digitStart
    if count > 0 && count <= 19 && (stop == end || p[stop] == delimiter || p[stop] == 0x0A || p[stop] == 0x0D)
      && magnitude <= UInt64(Int64.max) + (negative ? 1 : 0)
    {
      return (
        negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(truncatingIfNeeded: magnitude), stop
      )
    }
    var fieldEnd = start
    while fieldEnd < end && p[fieldEnd] != delimiter && p[fieldEnd] != 0x0A && p[fieldEnd] != 0x0D {
      fieldEnd += 1
    }
    return (parseInt64(UnsafeBufferPointer(start: p + start, count: fieldEnd - start)), fieldEnd)
  }

  /// The general parser on the field from `start` to its delimiter or line end.
  private static func general(
    _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ delimiter: UInt8, _ decimalComma: Bool
  ) -> (Parsed, Int) {
    var fieldEnd = start
    while fieldEnd < end && p[fieldEnd] != delimiter && p[fieldEnd] != 0x0A && p[fieldEnd] != 0x0D {
      fieldEnd += 1
    }
    return (
      parseDouble(UnsafeBufferPointer(start: p + start, count: fieldEnd - start), decimalComma: decimalComma),
      fieldEnd
    )
  }

  /// w·10^q correctly rounded, or nil when the 128-bit product cannot decide
  /// the rounding (then the caller uses strtod). w > 0.
  @inline(__always)
  static func eiselLemire(_ w: UInt64, _ q: Int) -> Double? {
    if q < PowersOfFive.smallestExponent { return 0 }
    if q > PowersOfFive.largestExponent { return .infinity }
    let power = PowersOfFive.table[q - PowersOfFive.smallestExponent]
    let shift = w.leadingZeroBitCount
    let normalised = w << UInt64(shift)
    var (upper, lower) = normalised.multipliedFullWidth(by: power.high)
    if upper & 0x1FF == 0x1FF && lower &+ normalised < lower {
      // The low word of the power can still carry into the kept bits.
      let (middle, bottom) = normalised.multipliedFullWidth(by: power.low)
      let (sum, carry) = lower.addingReportingOverflow(middle)
      var top = upper
      if carry { top &+= 1 }
      if sum &+ 1 == 0 && top & 0x1FF == 0x1FF && bottom &+ normalised < bottom { return nil }
      upper = top
      lower = sum
    }
    let upperBit = upper >> 63
    var significand = upper >> (upperBit + 9)
    var leadingZeros = shift + Int(1 ^ upperBit)
    if lower == 0 && upper & 0x1FF == 0 && significand & 3 == 1 { return nil }  // a tie: ask strtod
    significand += significand & 1
    significand >>= 1
    if significand >= 1 << 53 {
      significand = 1 << 52
      leadingZeros -= 1
    }
    significand &= ~(UInt64(1) << 52)
    // floor(log2(10^q)) + 1087, by 217706/2^16 ≈ log2(10).
    let biasedExponent = ((217_706 * q) >> 16) + 1024 + 63 - leadingZeros
    guard biasedExponent >= 1 && biasedExponent <= 2046 else { return nil }  // subnormal or overflow
    return Double(bitPattern: UInt64(biasedExponent) << 52 | significand)
  }

  /// strtod on a NUL-terminated copy with '.' as the decimal point.
  private static func slowPath(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, decimalComma: Bool
  ) -> Parsed {
    let length = end - start
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { copy in
      for k in 0..<length {
        let c = bytes[start + k]
        copy[k] = CChar(bitPattern: decimalComma && c == UInt8(ascii: ",") ? UInt8(ascii: ".") : c)
      }
      copy[length] = 0
      var endPointer: UnsafeMutablePointer<CChar>?
      let value = strtod(copy.baseAddress!, &endPointer)
      guard let endPointer, endPointer - copy.baseAddress! == length else { return .invalid }
      return .value(value)
    }
  }

  private static func special(
    _ bytes: UnsafeBufferPointer<UInt8>, from i: Int, to end: Int, negative: Bool
  ) -> Parsed {
    var word: [UInt8] = []
    for k in i..<end { word.append(bytes[k] | 0x20) }
    switch String(decoding: word, as: UTF8.self) {
    case "nan": return .value(.nan)
    case "inf", "infinity": return .value(negative ? -.infinity : .infinity)
    default: return .invalid
    }
  }

  /// Parses a whole number of at most 19 digits with an optional sign; a
  /// decimal point with only zeros after it ("1533226488299.0") is allowed.
  /// Nil on anything else or on overflow.
  static func parseInt64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    var start = 0
    var end = bytes.count
    while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
    while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
    guard start < end else { return nil }
    var i = start
    var negative = false
    if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
      negative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    let base = bytes.baseAddress!
    let digitStart = i
    let (magnitude, stop) = digits(base, i, end, 0)
    let digits = stop - digitStart
    // 19 digits always fit a UInt64 (< 1.8e19); the sign decides the limit.
    guard digits <= 19, magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else { return nil }
    i = stop
    let value = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(truncatingIfNeeded: magnitude)
    if i < end && bytes[i] == UInt8(ascii: ".") {
      i += 1
      while i < end && bytes[i] == 0x30 { i += 1 }
    }
    guard digits > 0 && i == end else { return nil }
    return value
  }
}
