/// SPEC §8 presence rules: parked, offline, wake schedule, battery, and
/// whose outage a silence is. Pure functions of a phone's (or the server's)
/// state and the clock; exact integer time arithmetic.
public struct PresenceStatusRules: Sendable, Hashable, Codable {
  /// Parked: under this speed (m/s) with accuracy at least this good (m).
  public var parkedBelowMetersPerSecond = 1.0
  public var parkedAccuracyMeters = 250.0
  /// Offline after this long silent, ms: moving, parked, parked on an
  /// account signed in only on Android phones.
  public var offlineMovingMilliseconds: Int64 = 3_600_000
  public var offlineParkedMilliseconds: Int64 = 12 * 3_600_000
  public var offlineParkedAndroidOnlyMilliseconds: Int64 = 100 * 60_000
  /// Wakes: a moving phone at these delays after its last fix; a parked one
  /// every `parkedWakeEveryMilliseconds`, `parkedWakeCount` times (at
  /// most ``largestParkedWakeCount``).
  public var movingWakesMilliseconds: [Int64] = [10 * 60_000, 20 * 60_000, 40 * 60_000]
  public var parkedWakeEveryMilliseconds: Int64 = 30 * 60_000
  public var parkedWakeCount = 3
  /// A larger `parkedWakeCount` is taken as this many wakes (a phone asked
  /// for a fix every half hour for three weeks): the list is built whole.
  public static let largestParkedWakeCount = 1_000
  /// A wakeable phone is offline only after this many unanswered wakes.
  public var unansweredWakesBeforeOffline = 2
  /// Battery: low at or below this fraction, not charging; one alert per cooldown.
  public var batteryLowFraction = 0.15
  public var batteryCooldownMilliseconds: Int64 = 6 * 3_600_000
  /// "Battery likely ran out": last fix at or below this fraction, not charging.
  public var batteryRanOutFraction = 0.05
  /// Outage: a push failure this recent holds offline alerts, ms.
  public var pushFailureWindowMilliseconds: Int64 = 30 * 60_000
  /// Servers with fewer counting phones than this use the small-server rule.
  public var smallServerPhones = 8
  /// …which holds when at least this many are quiet and unannounced, none fresh.
  public var smallServerQuietPhones = 2
  /// After a hold, keep holding this long, ms.
  public var holdMilliseconds: Int64 = 30 * 60_000

  public init() {}
}

public enum PresenceStatus {
  /// Parked: the last fix said `still`, or the person is inside a named
  /// place, or the fix is under 1 m/s with accuracy ≤ 250 m. A speed SPEC §1
  /// reads as unmeasured (``SpeedReading``: iOS's raw −1, any negative or
  /// non-finite speed, Android's 0 on a fix looser than 30 m) says nothing
  /// about parking.
  public static func isParked(
    lastFix: Fix, insideNamedPlace: Bool, rules: PresenceStatusRules = PresenceStatusRules()
  ) -> Bool {
    if lastFix.activity == .still || insideNamedPlace { return true }
    guard let raw = lastFix.speedMetersPerSecond,
      let speed = SpeedReading.speedMetersPerSecond(
        raw: raw, horizontalAccuracyMeters: lastFix.horizontalAccuracyMeters)
    else { return false }
    return speed < rules.parkedBelowMetersPerSecond
      && lastFix.horizontalAccuracyMeters <= rules.parkedAccuracyMeters
  }

  /// How long a phone may stay silent before it is offline, ms.
  public static func offlineAfterMilliseconds(
    parked: Bool, androidOnlyAccount: Bool, rules: PresenceStatusRules = PresenceStatusRules()
  ) -> Int64 {
    guard parked else { return rules.offlineMovingMilliseconds }
    return androidOnlyAccount ? rules.offlineParkedAndroidOnlyMilliseconds : rules.offlineParkedMilliseconds
  }

  /// Whether a phone silent since `lastFixMilliseconds` is offline at `now`:
  /// silent strictly longer than its cutoff, and, for a phone the server can
  /// wake, after at least two wakes went unanswered.
  public static func isOffline(
    lastFixMilliseconds: Int64, now: Int64, parked: Bool, androidOnlyAccount: Bool, canWake: Bool,
    unansweredWakes: Int, rules: PresenceStatusRules = PresenceStatusRules()
  ) -> Bool {
    let silent = now.saturatingSubtract(lastFixMilliseconds)
    guard
      silent > offlineAfterMilliseconds(parked: parked, androidOnlyAccount: androidOnlyAccount, rules: rules)
    else { return false }
    return !canWake || unansweredWakes >= rules.unansweredWakesBeforeOffline
  }

  /// When to ask a quiet phone for a fix, ms since the epoch: a phone last
  /// seen moving at +10, +20, +40 min; a parked one every 30 min, three times.
  /// A time past the end of Int64 is Int64.max, and a parked phone's list
  /// ends at the first such wake; it holds at most
  /// ``PresenceStatusRules/largestParkedWakeCount`` wakes. O(wakes).
  public static func wakeTimes(
    lastFixMilliseconds: Int64, parked: Bool, rules: PresenceStatusRules = PresenceStatusRules()
  ) -> [Int64] {
    if parked {
      var wakes: [Int64] = []
      var wake = lastFixMilliseconds
      for _ in 0..<min(max(0, rules.parkedWakeCount), PresenceStatusRules.largestParkedWakeCount) {
        wake = wake.saturatingAdd(rules.parkedWakeEveryMilliseconds)
        wakes.append(wake)
        if wake == .max { break }
      }
      return wakes
    }
    return rules.movingWakesMilliseconds.map { lastFixMilliseconds.saturatingAdd($0) }
  }

  /// What to say about a battery reading.
  public enum BatteryVerdict: String, Sendable, Hashable, Codable {
    case fine, low, lowButCoolingDown, likelyRanOut
  }

  /// Battery low: at or below the circle's threshold (default 15 %) and not
  /// charging, at most once per 6 h. For a phone that went quiet, pass
  /// `phoneWentQuiet`: ≤ 5 % and not charging then reads "likely ran out".
  /// `level` and `circleThreshold` are fractions in [0, 1]: a level outside
  /// it (iOS's −1, "unknown") is no reading (`fine`), and a threshold
  /// outside it (a percentage passed by mistake) gives way to the default.
  public static func battery(
    level: Double?, charging: ChargingState, circleThreshold: Double? = nil, lastLowAlertMilliseconds: Int64?,
    now: Int64, phoneWentQuiet: Bool = false, rules: PresenceStatusRules = PresenceStatusRules()
  ) -> BatteryVerdict {
    guard let level, (0...1).contains(level), charging != .charging else { return .fine }
    if phoneWentQuiet && level <= rules.batteryRanOutFraction { return .likelyRanOut }
    let threshold = circleThreshold.flatMap { (0...1).contains($0) ? $0 : nil } ?? rules.batteryLowFraction
    guard level <= threshold else { return .fine }
    // Either side of `now`: an alert dated after `now` means the server's
    // clock stepped back, and it cools down for 6 h from that date at most,
    // not for as long as the step (specrev-phone F9).
    if let last = lastLowAlertMilliseconds, now.saturatingSubtract(last) < rules.batteryCooldownMilliseconds,
      last.saturatingSubtract(now) < rules.batteryCooldownMilliseconds
    {
      return .lowButCoolingDown
    }
    return .low
  }

  /// One phone as the outage rule sees it.
  public struct PhoneView: Sendable, Hashable, Codable {
    /// Counts towards the server's tally (tracking on, not signed out). A
    /// phone lost or abandoned but still signed in stays quiet for good: left
    /// counting, it stands on the quiet side of every later check, so the
    /// caller leaves such a phone out (the rule cannot tell it from a phone
    /// that went quiet with the server).
    public var counts: Bool
    /// Quiet: past its offline cutoff.
    public var quiet: Bool
    /// Already announced offline.
    public var announced: Bool
    /// Reported recently (its position is not stale).
    public var fresh: Bool

    public init(counts: Bool = true, quiet: Bool, announced: Bool = false, fresh: Bool) {
      self.counts = counts
      self.quiet = quiet
      self.announced = announced
      self.fresh = fresh
    }
  }

  public enum OutageReason: String, Sendable, Hashable, Codable {
    case pushProviderUnreachable
    case smallServerSeveralQuietNoneFresh
    case moreQuietThanReporting
    case stillHolding
    case singlePhoneCannotTell
    case looksLikeThePhones
  }

  /// SPEC §8 "whose outage is it?": whether to hold offline alerts now, why,
  /// and until when the hold lasts (nil: not holding). Hold when the push
  /// provider failed in the last 30 min; or fewer than 8 phones count and at
  /// least 2 are quiet and unannounced with none fresh; or 8 or more count
  /// and more are quiet than reporting. A hold lasts 30 min after it was
  /// last justified. A server with a single phone cannot tell: it announces
  /// (but a running hold is handed back, so it goes on once more phones
  /// count again). Times dated after `now` (the server's clock stepped
  /// back) count for at most one window from `now`.
  public static func holdOfflineAlerts(
    phones: [PhoneView], lastPushFailureMilliseconds: Int64?, holdUntilMilliseconds: Int64?, now: Int64,
    rules: PresenceStatusRules = PresenceStatusRules()
  ) -> (hold: Bool, reason: OutageReason, holdUntilMilliseconds: Int64?) {
    let counting = phones.filter(\.counts)
    var reason: OutageReason?
    // A clock stepped back: a failure dated more than the window after
    // `now`, or a hold running more than its 30 min past `now`, cannot be
    // read on this clock; each counts for at most one window from `now`, not
    // for as long as the step (specrev-phone F9).
    let holdUntil = holdUntilMilliseconds.map { min($0, now.saturatingAdd(rules.holdMilliseconds)) }
    if let failure = lastPushFailureMilliseconds,
      now.saturatingSubtract(failure) <= rules.pushFailureWindowMilliseconds,
      failure.saturatingSubtract(now) <= rules.pushFailureWindowMilliseconds
    {
      reason = .pushProviderUnreachable
    } else if counting.count <= 1 {
      // Cannot tell, so it announces; an earlier hold's 30 min still run
      // for when more phones count again (found by the outage model).
      return (false, .singlePhoneCannotTell, holdUntil.flatMap { now < $0 ? $0 : nil })
    } else if counting.count < rules.smallServerPhones {
      let quietUnannounced = counting.filter { $0.quiet && !$0.announced }.count
      if quietUnannounced >= rules.smallServerQuietPhones && !counting.contains(where: \.fresh) {
        reason = .smallServerSeveralQuietNoneFresh
      }
    } else {
      let quiet = counting.filter(\.quiet).count
      if quiet > counting.count - quiet { reason = .moreQuietThanReporting }
    }
    if let reason { return (true, reason, now.saturatingAdd(rules.holdMilliseconds)) }
    if let until = holdUntil, now < until { return (true, .stillHolding, until) }
    return (false, .looksLikeThePhones, nil)
  }
}
