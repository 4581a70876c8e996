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
/// w, with a decimal exponent q (in a CSV row eight digits at a time, in
/// place: ``plainNumber(_:from:point:)``).
/// 1. w·10^q is formed from a 128-bit table of powers of five and kept only
///    when the bits that decide the rounding are certain (Eisel–Lemire;
///    Lemire, "Number parsing at a gigabyte per second", Software: Practice
///    and Experience 51(8), 2021).
/// 2. Else, when w ≤ 2⁵³ and |q| ≤ 22, the value is one exact multiplication
///    or division of two exactly representable doubles, hence correctly
///    rounded (Clinger, "How to read floating point numbers accurately",
///    PLDI 1990).
/// 3. The rare rest (more than 19 digits, subnormals, exact ties neither
///    settles) goes to the C library's strtod, correctly rounded in glibc.
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
  /// (digits were dropped, or neither exact path can settle the rounding).
  ///
  /// The 128-bit path comes first: a division (Clinger's path) takes
  /// longer than its multiplications, and in a CSV row the next number's
  /// parse waited behind it. Both paths round correctly, so the order
  /// changes no value; Clinger's takes the exact products the 128-bit path
  /// declines as possible ties.
  @inline(always)
  static func compose(_ mantissa: UInt64, _ decimalExponent: Int, negative: Bool, droppedDigits: Bool)
    -> Double?
  {
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    guard !droppedDigits else { return nil }
    if let value = eiselLemire(mantissa, decimalExponent) { return negative ? -value : value }
    if mantissa <= 1 << 53 && decimalExponent >= -22 && decimalExponent <= 22 {
      let m = Double(mantissa)
      let scaled =
        decimalExponent >= 0
        ? m * exactPowersOfTen[decimalExponent] : m / exactPowersOfTen[-decimalExponent]
      return negative ? -scaled : scaled
    }
    return nil
  }

  /// Parses an unquoted numeric field of a CSV row in place: from `start` up
  /// to the first `delimiter`, line feed or carriage return (or `end`).
  /// Returns the value and the index of the byte that ended the field.
  ///
  /// The common shape is taken by ``plainNumber(_:from:point:)``; anything
  /// else (spaces, NaN, more than 19 digits, garbage) is handed to
  /// ``parseDouble(_:decimalComma:)`` on the field's bytes, so both give the
  /// same answer for every input.
  ///
  /// - Precondition: `p[end]` is a zero byte followed by at least 15 more
  ///   readable bytes (a ``ChunkSource`` buffer at its `end`).
  @inline(__always)
  static func parseNumberField(
    _ p: UnsafePointer<UInt8>, from start: Int, end: Int, delimiter: UInt8, decimalComma: Bool
  ) -> (Parsed, Int) {
    if let (value, stop) = plainNumber(
      p, from: start, point: decimalComma ? UInt8(ascii: ",") : UInt8(ascii: ".")),
      stop == end || p[stop] == delimiter || p[stop] == 0x0A || p[stop] == 0x0D
    {
      return (.value(value), stop)
    }
    return general(p, start, end, delimiter, decimalComma)
  }

  /// The common shape of a decimal number, parsed in place in one pass:
  /// [sign] digits [`.` or `point` digits] [e [sign] digits], with 1 to 19
  /// digits before the exponent (leading zeros count), whose value
  /// ``compose(_:_:negative:droppedDigits:)`` settles. Returns the value and
  /// the index of the first byte after the number, or nil for any other
  /// text (the caller then asks the general parser, which gives the same
  /// value for every text this accepts).
  ///
  /// Digits are taken eight at a time (``digitsAroundPoint(_:_:_:_:)`` when
  /// the point is within the first eight bytes, else
  /// ``accumulatedDigits(_:_:_:)``): the bytes must be readable 8 past any
  /// byte of the number and past the byte after it, and a run of digits must
  /// end before the buffer does (a ``ChunkSource`` buffer's zero bytes after
  /// `end` do both).
  /// - Complexity: O(length of the number), about length / 8 steps.
  @inline(always)
  static func plainNumber(_ p: UnsafePointer<UInt8>, from start: Int, point: UInt8) -> (Double, Int)? {
    let sign = p[start]
    let negative = sign == UInt8(ascii: "-")
    let digitStart = start + (negative || sign == UInt8(ascii: "+") ? 1 : 0)
    var i = digitStart
    var mantissa: UInt64
    var digitCount: Int
    var exponent: Int
    let word = UInt64(littleEndian: UnsafeRawPointer(p + digitStart).loadUnaligned(as: UInt64.self))
    let integerDigits = digitWord(word).nonDigits.trailingZeroBitCount >> 3
    let after = UInt8(truncatingIfNeeded: word >> UInt64((integerDigits & 7) << 3))
    if integerDigits < 8 && (after == UInt8(ascii: ".") || after == point) {
      // The usual case: the point is among the first eight bytes.
      (mantissa, digitCount) = digitsAroundPoint(p, digitStart, word, integerDigits)
      exponent = integerDigits - digitCount
      i += digitCount + 1
    } else {
      mantissa = accumulatedDigits(p, &i, 0)
      digitCount = i - digitStart
      exponent = 0
      if p[i] == UInt8(ascii: ".") || p[i] == point {
        i += 1
        let fractionStart = i
        mantissa = accumulatedDigits(p, &i, mantissa)
        exponent = fractionStart - i
        digitCount += i - fractionStart
      }
    }
    // Past 19 digits the mantissa has wrapped; the general parser takes them.
    guard digitCount > 0 && digitCount <= 19 else { return nil }
    if p[i] | 0x20 == UInt8(ascii: "e") {
      i += 1
      let exponentNegative = p[i] == UInt8(ascii: "-")
      if exponentNegative || p[i] == UInt8(ascii: "+") { i += 1 }
      var e = 0
      let exponentStart = i
      while true {
        let d = p[i] &- 0x30
        if d > 9 { break }
        if e < 100_000 { e = e * 10 + Int(d) }
        i += 1
      }
      if i == exponentStart { return nil }
      exponent += exponentNegative ? -e : e
    }
    guard let value = compose(mantissa, exponent, negative: negative, droppedDigits: false) else {
      return nil
    }
    return (value, i)
  }

  /// The digits of a number whose point is byte `integerDigits` (0...7) of
  /// `word`, the eight bytes at `p[start]`: the point is taken out of the
  /// word, leaving its seven digits (if they are), then the words at
  /// `start + 8` and `start + 16` follow without a shift, each loaded only
  /// when the one before is all digits. Returns the digits' value and how
  /// many there are before the first non-digit after the point (more than
  /// 19: the value has wrapped). No load waits for a count.
  @inline(always)
  static func digitsAroundPoint(
    _ p: UnsafePointer<UInt8>, _ start: Int, _ word: UInt64, _ integerDigits: Int
  ) -> (UInt64, Int) {
    let below = (UInt64(1) &<< UInt64(integerDigits << 3)) &- 1
    // Byte 7 becomes 0: never a digit.
    let (first, firstNonDigits) = digitWord((word & below) | ((word >> 8) & ~below))
    let firstMarker = firstNonDigits.trailingZeroBitCount
    if firstMarker < 56 { return (lastDigits(first, firstMarker), firstMarker >> 3) }
    let seven = eightDigits(first &<< 8)
    let (second, secondNonDigits) = digitWord(
      UInt64(littleEndian: UnsafeRawPointer(p + start + 8).loadUnaligned(as: UInt64.self)))
    if secondNonDigits != 0 {
      let marker = secondNonDigits.trailingZeroBitCount
      return (seven &* powerOfTen(marker >> 3) &+ lastDigits(second, marker), 7 + marker >> 3)
    }
    let fifteen = seven &* 100_000_000 &+ eightDigits(second)
    let (third, thirdNonDigits) = digitWord(
      UInt64(littleEndian: UnsafeRawPointer(p + start + 16).loadUnaligned(as: UInt64.self)))
    let marker = thirdNonDigits == 0 ? 63 : thirdNonDigits.trailingZeroBitCount
    return (
      fifteen &* powerOfTen(marker >> 3) &+ lastDigits(third, marker),
      15 + (thirdNonDigits == 0 ? 8 : marker >> 3)
    )
  }

  /// A whole number in place, the common shape only: [sign] 1 to 19 digits
  /// within Int64. Returns it and the index of the byte after it, or nil.
  /// Same readable-bytes condition as ``plainNumber(_:from:point:)``.
  @inline(__always)
  static func plainInteger(_ p: UnsafePointer<UInt8>, from start: Int) -> (Int64, Int)? {
    var i = start
    let negative = p[i] == UInt8(ascii: "-")
    if negative || p[i] == UInt8(ascii: "+") { i += 1 }
    let digitStart = i
    let magnitude = accumulatedDigits(p, &i, 0)
    let count = i - digitStart
    guard count > 0 && count <= 19 && magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else { return nil }
    return (negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(truncatingIfNeeded: magnitude), i)
  }

  /// Appends the run of decimal digits at p[i...] to `mantissa`, eight per
  /// step, and moves `i` past it. Wraps silently past 19 digits (callers
  /// count the digits). Reads whole words: the bytes must be readable up to
  /// 8 past the run's end, and the run must end before the buffer does.
  @inline(__always)
  static func accumulatedDigits(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ initial: UInt64) -> UInt64 {
    var mantissa = initial
    while true {
      let (digits, nonDigits) = digitWord(
        UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)))
      if nonDigits == 0 {
        // Eight digits: a branch the processor predicts, so the next load
        // does not wait for this word's count.
        mantissa = mantissa &* 100_000_000 &+ eightDigits(digits)
        i += 8
        continue
      }
      let marker = nonDigits.trailingZeroBitCount
      i += marker >> 3
      return mantissa &* powerOfTen(marker >> 3) &+ lastDigits(digits, marker)
    }
  }

  /// A word's bytes less '0' each, and a mask whose lowest set bit is the
  /// top bit of the first byte that is not a decimal digit (0 when all
  /// eight are). A byte below '0' borrows from the byte above it, and a byte
  /// far above '9' carries into it: either way only bytes after the first
  /// non-digit are touched. (`word`: p[0] in the low byte.)
  @inline(__always)
  static func digitWord(_ word: UInt64) -> (digits: UInt64, nonDigits: UInt64) {
    let digits = word &- 0x3030_3030_3030_3030
    // A byte of `digits` is a digit's value exactly when it is below 10:
    // adding 0x76 sets its top bit otherwise (or it was set already).
    return (digits, ((digits &+ 0x7676_7676_7676_7676) | digits) & 0x8080_8080_8080_8080)
  }

  /// The value of the digits of `digits` (from ``digitWord(_:)``) below the
  /// first non-digit, whose top bit is bit `marker` (8 × count + 7, count
  /// 0...7): they move to the top bytes, and the bytes below read as
  /// leading zeros (a shift by 64 − 8 × count, in two steps for count 0).
  @inline(__always)
  static func lastDigits(_ digits: UInt64, _ marker: Int) -> UInt64 {
    eightDigits((digits &<< 1) &<< UInt64(70 - marker))
  }

  /// 10^n for n in 0...8 (a run's digit count): a table load, no branch (a
  /// branch on the count mispredicts on every other number).
  @inline(__always)
  static func powerOfTen(_ n: Int) -> UInt64 { smallPowersOfTen[n] }

  /// 10⁰ … 10⁸.
  private static let smallPowersOfTen: [UInt64] = [
    1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
  ]

  /// The number written by eight digit values (0...9) in the bytes of `v`,
  /// the low byte the most significant digit.
  @inline(__always)
  static func eightDigits(_ v: UInt64) -> UInt64 {
    let pairs = (v &* 10) &+ (v >> 8)
    return
      (((pairs & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32)))
      &+ (((pairs >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32)))) >> 32
  }

  /// Appends the decimal digits at p[i...] to `mantissa`, eight at a time
  /// where possible (a SWAR check and conversion of eight ASCII bytes), and
  /// returns it with the index of the first non-digit. Wraps silently past
  /// 19 digits; callers count the digits and reject such input. Reads
  /// nothing at or past `end`.
  @inline(__always)
  static func digits(
    _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ initial: UInt64
  ) -> (UInt64, Int) {
    var mantissa = initial
    var i = start
    while i + 8 <= end {
      let (digits, nonDigits) = digitWord(
        UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)))
      guard nonDigits == 0 else { break }
      mantissa = mantissa &* 100_000_000 &+ eightDigits(digits)
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
  /// ``parseNumberField(_:from:end:delimiter:decimalComma:)`` (and with the
  /// same precondition): returns the value (nil when the field is not a
  /// whole number ``parseInt64(_:)`` accepts) and the index of the byte that
  /// ended the field.
  @inline(__always)
  static func parseIntegerField(
    _ p: UnsafePointer<UInt8>, from start: Int, end: Int, delimiter: UInt8
  ) -> (Int64?, Int) {
    if let (value, stop) = plainInteger(p, from: start),
      stop == end || p[stop] == delimiter || p[stop] == 0x0A || p[stop] == 0x0D
    {
      return (value, stop)
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
  @inline(always)
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
