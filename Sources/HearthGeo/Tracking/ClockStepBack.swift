/// Tells the phone's clock stepping back from one late fix, for the
/// tracker's timers (the driving gate's crawl, the parking stay): a fix dated
/// before the newest one seen is late, unless the fix after it is dated
/// before that newest one too. Two fixes in a row on an earlier clock are
/// where the clock is now: it stepped back at the first of them. One late
/// fix alone (an OS handing over an older fix) changes no timer: counting
/// from it would make a stay or a crawl look longer than it was. A plain
/// `Codable` value; O(1) per fix, one comparison for a fix in time order.
struct ClockStepBack: Sendable, Hashable, Codable {
  /// The newest fix time seen on the clock as it now stands, ms (`.min`
  /// before the first).
  private(set) var newestMilliseconds = Int64.min
  /// A fix dated before the newest, waiting for the next to say whether
  /// the clock stepped back to it (`.min`: none).
  private var candidateMilliseconds = Int64.min

  /// Takes the next fix's time (in the order the fixes come); returns the
  /// time the clock stepped back to when this fix confirms a step (the
  /// earlier of the two fixes on the earlier clock), else nil.
  @inline(__always)
  mutating func offer(_ time: Int64) -> Int64? {
    if time >= newestMilliseconds {
      newestMilliseconds = time
      candidateMilliseconds = .min
      return nil
    }
    return behind(time)
  }

  /// A fix dated before the newest: held as the candidate, or confirming it.
  private mutating func behind(_ time: Int64) -> Int64? {
    guard candidateMilliseconds != .min else {
      candidateMilliseconds = time
      return nil
    }
    let back = min(candidateMilliseconds, time)
    candidateMilliseconds = .min
    newestMilliseconds = time
    return back
  }
}
