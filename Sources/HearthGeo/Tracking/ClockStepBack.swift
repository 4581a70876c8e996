/// Tells the phone's clock stepping back from one late fix, for the driving
/// gate's interval: a fix dated before the newest one seen is late, unless
/// the fix after it is dated before that newest one too. Two fixes in a row
/// on an earlier clock are where the clock is now. One late fix alone (an OS
/// handing over an older fix) moves nothing. Two late fixes in a row look
/// the same as a step, so only a timer that a false step cannot shorten
/// harmfully may use it (the interval: one extra fix kept at worst). A plain
/// `Codable` value; O(1) per fix, one comparison for a fix in time order.
struct ClockStepBack: Sendable, Hashable, Codable {
  /// The newest fix time seen on the clock as it now stands, ms (`.min`
  /// before the first).
  private(set) var newestMilliseconds: Int64
  /// A fix dated before the newest, waiting for the next to say whether
  /// the clock stepped back to it (`.min`: none).
  private var candidateMilliseconds = Int64.min

  /// A detector whose newest fix so far is dated `newestMilliseconds`
  /// (`.min`: none yet).
  init(newestMilliseconds: Int64 = .min) { self.newestMilliseconds = newestMilliseconds }

  /// Takes the next fix's time (in the order the fixes come); returns the
  /// time the clock stepped back to when this fix confirms a step (this
  /// fix's own time: a stale or slightly late fix held before a real step
  /// says nothing of where the clock went), else nil.
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
    candidateMilliseconds = .min
    newestMilliseconds = time
    return time
  }
}
