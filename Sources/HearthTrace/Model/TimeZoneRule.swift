import Foundation

/// A time zone as a table of UTC offsets over 1900–2200 (the span of
/// ``ReadingBounds/fixMilliseconds``): what turns a wall-clock time written
/// without an offset (a local ISO 8601 time, a time of day) into
/// milliseconds since the epoch.
///
/// Made from a fixed offset (`+02:00`, `-0530`, `+02`, `UTC`, `Z`) or an
/// IANA name (`Europe/Berlin`, read once from the system's tz database
/// through Foundation). A value: `Sendable`, compared by name and table.
public struct TimeZoneRule: Sendable, Hashable, CustomStringConvertible {
  /// The name it was made from.
  public let name: String
  /// UTC seconds at which `offsets[i + 1]` takes over, ascending.
  let transitions: [Int64]
  /// Seconds east of UTC; `offsets.count == transitions.count + 1`.
  let offsets: [Int32]

  public var description: String { name }

  /// The zone `text` names, or nil when it is neither a fixed offset
  /// within ±18:00 nor a zone the tz database knows.
  /// - Complexity: O(1) for an offset; an IANA zone walks its transitions
  ///   over 1900–2200 once (a few hundred).
  public init?(_ text: String) {
    if let seconds = Self.fixedOffsetSeconds(text) {
      name = text
      transitions = []
      offsets = [seconds]
      return
    }
    guard !text.isEmpty, text.utf8.count <= 64, let zone = TimeZone(identifier: text) else { return nil }
    let start = Date(timeIntervalSince1970: Double(ReadingBounds.fixMilliseconds.lowerBound / 1000))
    let end = Double(ReadingBounds.fixMilliseconds.upperBound / 1000)
    var times: [Int64] = []
    var values = [Int32(zone.secondsFromGMT(for: start))]
    var date = start
    while let next = zone.nextDaylightSavingTimeTransition(after: date), next.timeIntervalSince1970 < end,
      next > date, times.count < 10_000
    {
      date = next
      guard let seconds = Int64(exactly: next.timeIntervalSince1970.rounded(.down)) else { break }
      times.append(seconds)
      values.append(Int32(zone.secondsFromGMT(for: next)))
    }
    name = text
    transitions = times
    offsets = values
  }

  /// `±hh`, `±hhmm`, `±hh:mm` (at most ±18:00, minutes < 60), `UTC`, `GMT`
  /// or `Z`, in seconds east of UTC; nil for anything else.
  static func fixedOffsetSeconds(_ text: String) -> Int32? {
    if text == "UTC" || text == "GMT" || text == "Z" { return 0 }
    let b = Array(text.utf8)
    guard b.count >= 3, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
    let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
    guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
      b.count == digits.count + 1 || (b.count == 6 && b[3] == UInt8(ascii: ":"))
    else { return nil }
    let d = digits.map { Int32($0) - 48 }
    let hours = d[0] * 10 + d[1]
    let minutes = d.count == 4 ? d[2] * 10 + d[3] : 0
    guard minutes < 60, hours * 60 + minutes <= Int32(ISOTime.maximumOffsetHours) * 60 else { return nil }
    return (hours * 3600 + minutes * 60) * (b[0] == UInt8(ascii: "-") ? -1 : 1)
  }

  /// Seconds east of UTC at `utcSeconds`. O(log transitions).
  func offsetSeconds(atUTC utcSeconds: Int64) -> Int32 { offsets[transitionsUpTo(utcSeconds)] }

  /// How many transitions happen at or before `utcSeconds`. O(log transitions).
  private func transitionsUpTo(_ utcSeconds: Int64) -> Int {
    var low = 0
    var high = transitions.count
    while low < high {
      let mid = (low + high) / 2
      if transitions[mid] <= utcSeconds { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// The instant (ms since the epoch) at which clocks in this zone read
  /// `localMilliseconds` (ms since 1970-01-01T00:00 on the local clock).
  ///
  /// A local time the zone passes twice (the hour repeated when clocks go
  /// back) is the earlier instant; one it skips (clocks going forward) is
  /// nil: not a time in this zone.
  /// - Complexity: O(log transitions).
  func utcMilliseconds(local localMilliseconds: Int64) -> Int64? {
    let day: Int64 = 93_600  // 26 h: more than any offset and any shift
    let local = floorDivide(localMilliseconds, 1000)
    guard local > Int64.min / 2, local < Int64.max / 2 else { return nil }
    // The offsets in force at some instant within 26 h of the local reading.
    var k = transitionsUpTo(local - day)
    var candidates = [offsets[k]]
    while k < transitions.count && transitions[k] <= local + day {
      candidates.append(offsets[k + 1])
      k += 1
    }
    var best: Int64?
    for offset in candidates {
      let utc = localMilliseconds - Int64(offset) * 1000
      guard offsetSeconds(atUTC: floorDivide(utc, 1000)) == offset else { continue }
      best = min(best ?? utc, utc)
    }
    return best
  }
}
