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
    let b = Array(text.utf8)
    var i = 0
    func number(_ digits: Int) -> Int? {
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
    func expect(_ c: UInt8) -> Bool {
      guard i < b.count && b[i] == c else { return false }
      i += 1
      return true
    }
    while i < b.count && b[i] == 0x20 { i += 1 }
    guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
      let day = number(2), i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == 0x20
    else { return nil }
    i += 1
    guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
      let second = number(2)
    else { return nil }
    var millis: Int64 = 0
    if i < b.count && (b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",")) {
      i += 1
      var scale: Int64 = 100
      let fractionStart = i
      while i < b.count, b[i] >= 48, b[i] <= 57 {
        millis += Int64(b[i] - 48) * scale
        scale /= 10
        i += 1
      }
      guard i > fractionStart else { return nil }
    }
    var offsetMinutes = 0
    if i < b.count {
      let c = b[i]
      if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
        i += 1
      } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
        i += 1
        guard let hours = number(2) else { return nil }
        _ = expect(UInt8(ascii: ":"))
        guard let minutes = number(2), hours <= maximumOffsetHours, minutes < 60 else { return nil }
        offsetMinutes = (hours * 60 + minutes) * (c == UInt8(ascii: "-") ? -1 : 1)
      }
    }
    while i < b.count && (b[i] == 0x20 || b[i] == 0x0D) { i += 1 }
    guard i == b.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
    return seconds * 1000 + millis
  }

  /// `YYYY-MM-DDThh:mm:ss.sssZ` (UTC, millisecond precision, always 3 digits).
  static func string(milliseconds: Int64) -> String {
    let ms = Int(milliseconds - floorDivide(milliseconds, 1000) * 1000)
    let totalSeconds = floorDivide(milliseconds, 1000)
    let days = Int(floorDivide(totalSeconds, 86_400))
    let secondOfDay = Int(totalSeconds - Int64(days) * 86_400)
    let (year, month, day) = civilFromDays(days)
    func pad(_ v: Int, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return
      "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
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
