/// Tells the phone's clock stepping back from one late fix, for the
/// tracker's timers (the driving gate's crawl, the parking stay): a fix dated
/// before the newest one seen is late, unless the fix after it is dated
/// before that newest one too. Two fixes in a row on an earlier clock are
/// where the clock is now: it stepped back at the first of them. One late
/// fix alone (an OS handing over an older fix) changes no timer: counting
/// from it would make a stay or a crawl look longer than it was. A plain
/// `Codable` value; O(1) per fix.
struct ClockStepBack: Sendable, Hashable, Codable {
  /// The newest fix time seen on the clock as it now stands, ms.
  private(set) var newestMilliseconds: Int64?
  /// A fix dated before the newest, waiting for the next to say whether
  /// the clock stepped back to it.
  private var candidateMilliseconds: Int64?

  /// Takes the next fix's time (in the order the fixes come); returns the
  /// time the clock stepped back to when this fix confirms a step (the
  /// first fix of the two on the earlier clock), else nil.
  mutating func offer(_ time: Int64) -> Int64? {
    guard let newest = newestMilliseconds, time < newest else {
      newestMilliseconds = time
      candidateMilliseconds = nil
      return nil
    }
    guard let candidate = candidateMilliseconds else {
      candidateMilliseconds = time
      return nil
    }
    candidateMilliseconds = nil
    newestMilliseconds = time
    return min(candidate, time)
  }
}
