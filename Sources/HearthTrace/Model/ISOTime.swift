/// ISO 8601 / RFC 3339 timestamps ↔ milliseconds since the epoch, exact, with
/// no Foundation formatter (which is slow and locale-sensitive).
enum ISOTime {
  /// The largest zone offset accepted, hours (ISO 8601 allows ±18:00; real
  /// zones span −12:00 … +14:00).
  static let maximumOffsetHours = 18

  /// Parses `YYYY-MM-DD[T| ]hh:mm:ss[.fraction][Z|±hh:mm|±hhmm]`; a missing
  /// zone means UTC; an offset beyond ±18:00 or with 60 minutes or more is
  /// not a time. Fractions beyond milliseconds are truncated towards the
  /// past (floor). Nil for anything else.
  static func milliseconds(_ text: Substring) -> Int64? {
    guard let (local, offset) = parse(text) else { return nil }
    return local - Int64(offset ?? 0) * 60_000
  }

  /// A date and time as written: ms since 1970-01-01T00:00 on the clock
  /// that wrote it, and its offset east of UTC in minutes (nil when the
  /// text has no zone: a local time). Grammar as ``milliseconds(_:)``.
  static func parse(_ text: Substring) -> (localMilliseconds: Int64, offsetMinutes: Int?)? {
    var scanner = Scanner(text)
    scanner.skipSpaces()
    guard let year = scanner.number(4), scanner.expect(UInt8(ascii: "-")), let month = scanner.number(2),
      scanner.expect(UInt8(ascii: "-")), let day = scanner.number(2),
      scanner.expect(UInt8(ascii: "T")) || scanner.expect(UInt8(ascii: "t")) || scanner.expect(0x20),
      let (ofDay, offset) = scanner.timeOfDay(), (1...12).contains(month), day >= 1,
      day <= daysIn(month: month, year: year)
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    return (Int64(days) * 86_400_000 + ofDay, offset)
  }

  /// Parses a time of day `hh:mm:ss[.fraction][Z|±hh:mm|±hhmm]` (fraction
  /// and zone as in ``milliseconds(_:)``): ms since midnight (a leap second
  /// 60 counts as the next second) and the offset in minutes, nil without
  /// a zone. Nil for anything else.
  static func timeOfDay(_ text: Substring) -> (millisecondsOfDay: Int64, offsetMinutes: Int?)? {
    var scanner = Scanner(text)
    scanner.skipSpaces()
    return scanner.timeOfDay()
  }

  /// `YYYY-MM-DD` as days since 1970-01-01, nil for anything else.
  static func days(date text: Substring) -> Int? {
    var scanner = Scanner(text)
    guard let year = scanner.number(4), scanner.expect(UInt8(ascii: "-")), let month = scanner.number(2),
      scanner.expect(UInt8(ascii: "-")), let day = scanner.number(2), scanner.atEnd, (1...12).contains(month),
      day >= 1, day <= daysIn(month: month, year: year)
    else { return nil }
    return daysFromCivil(year: year, month: month, day: day)
  }

  /// Reads the grammar's pieces off UTF-8 bytes.
  private struct Scanner {
    let b: [UInt8]
    var i = 0

    init(_ text: Substring) { b = Array(text.utf8) }

    var atEnd: Bool { i == b.count }

    mutating func skipSpaces() { while i < b.count && b[i] == 0x20 { i += 1 } }

    mutating func number(_ digits: Int) -> Int? {
      guard i + digits <= b.count else { return nil }
      var v = 0
      for k in i..<(i + digits) {
        let d = Int(b[k]) - 48
        guard d >= 0 && d <= 9 else { return nil }
        v = v * 10 + d
      }
      i += digits
      return v
    }

    mutating func expect(_ c: UInt8) -> Bool {
      guard i < b.count && b[i] == c else { return false }
      i += 1
      return true
    }

    /// `hh:mm:ss[.fraction][zone]` to the end (trailing spaces or CR allowed).
    mutating func timeOfDay() -> (Int64, Int?)? {
      guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2),
        expect(UInt8(ascii: ":")),
        let second = number(2)
      else { return nil }
      var millis: Int64 = 0
      if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
        var scale: Int64 = 100
        let fractionStart = i
        while i < b.count, b[i] >= 48, b[i] <= 57 {
          millis += Int64(b[i] - 48) * scale
          scale /= 10
          i += 1
        }
        guard i > fractionStart else { return nil }
      }
      var offsetMinutes: Int?
      if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
        offsetMinutes = 0
      } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
        let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let hours = number(2) else { return nil }
        _ = expect(UInt8(ascii: ":"))
        guard let minutes = number(2), hours <= maximumOffsetHours, minutes < 60 else { return nil }
        offsetMinutes = (hours * 60 + minutes) * sign
      }
      while i < b.count && (b[i] == 0x20 || b[i] == 0x0D) { i += 1 }
      guard atEnd, hour < 24, minute < 60, second <= 60 else { return nil }
      return (Int64(hour * 3600 + minute * 60 + second) * 1000 + millis, offsetMinutes)
    }
  }

  /// `YYYY-MM-DDThh:mm:ss.sssZ` (UTC, millisecond precision, always 3 digits;
  /// proleptic Gregorian years, at least 4 digits: a year beyond 9999 with
  /// all of them, one before year 0 with a minus sign first, as ISO 8601's
  /// expanded years write it, "-0001"). Any Int64, the ends included. O(1).
  static func string(milliseconds: Int64) -> String {
    // (Not milliseconds − ⌊ms / 1000⌋ · 1000: at Int64.min that product overflows.)
    let remainder = milliseconds % 1000
    let ms = Int(remainder < 0 ? remainder + 1000 : remainder)
    let totalSeconds = floorDivide(milliseconds, 1000)
    let days = Int(floorDivide(totalSeconds, 86_400))
    let secondOfDay = Int(totalSeconds - Int64(days) * 86_400)
    let (year, month, day) = civilFromDays(days)
    func pad(_ v: Int, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
    return
      "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
  }

  static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

  static func daysIn(month: Int, year: Int) -> Int {
    [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

extension TraceMetadata {
  /// The time origin in ISO 8601, UTC to the millisecond
  /// (`2024-05-01T08:00:00.000Z`), nil when the trace has no absolute time.
  public var timeOriginUTC: String? { timeOriginMilliseconds.map { ISOTime.string(milliseconds: $0) } }
}
