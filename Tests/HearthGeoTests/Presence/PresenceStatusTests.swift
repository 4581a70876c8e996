import Testing
import _HearthTestSupport

@testable import HearthGeo

@Suite("Presence rules (SPEC §8)")
struct PresenceStatusTests {
  typealias W = FenceWorld
  static let hour: Int64 = 3_600_000
  static let minute: Int64 = 60_000

  @Test("parked: still, inside a named place, or under 1 m/s with accuracy ≤ 250 m")
  func parked() {
    var fix = W.fix(0, 0, accuracy: 250, speed: 0.999)
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    fix.speedMetersPerSecond = 1
    #expect(!PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: true))
    fix.speedMetersPerSecond = 0.5
    fix.horizontalAccuracyMeters = 250.01
    #expect(!PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    fix.activity = .still
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    fix.activity = .automotive
    fix.speedMetersPerSecond = nil
    fix.horizontalAccuracyMeters = 5
    #expect(!PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    // iOS's raw −1 (and any negative or non-finite speed) is unmeasured, not slow (found by a review).
    for unmeasured in [-1, -0.001, .nan, -.infinity] {
      fix.speedMetersPerSecond = unmeasured
      #expect(!PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false), "\(unmeasured)")
    }
    fix.speedMetersPerSecond = 0
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    // Android's 0 on a fix looser than 30 m is unmeasured too, not a stop (specrev-server F3):
    // a driving phone's network fix would have had the 12 h cutoff of a parked one.
    fix.horizontalAccuracyMeters = 30
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    fix.horizontalAccuracyMeters = 30.01
    #expect(!PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
    fix.speedMetersPerSecond = 0.5
    #expect(PresenceStatus.isParked(lastFix: fix, insideNamedPlace: false))
  }

  @Test("offline after 1 h; 12 h parked; 100 min parked on an Android-only account; two unanswered wakes")
  func offline() {
    func off(_ silent: Int64, parked: Bool, android: Bool = false, wake: Bool = false, unanswered: Int = 0)
      -> Bool
    {
      PresenceStatus.isOffline(
        lastFixMilliseconds: 0, now: silent, parked: parked, androidOnlyAccount: android, canWake: wake,
        unansweredWakes: unanswered)
    }
    #expect(!off(Self.hour, parked: false) && off(Self.hour + 1, parked: false))
    #expect(!off(12 * Self.hour, parked: true) && off(12 * Self.hour + 1, parked: true))
    #expect(
      !off(100 * Self.minute, parked: true, android: true)
        && off(100 * Self.minute + 1, parked: true, android: true))
    #expect(off(100 * Self.minute + 1, parked: false, android: true))  // moving: the 1 h cutoff
    #expect(!off(2 * Self.hour, parked: false, wake: true, unanswered: 1))
    #expect(off(2 * Self.hour, parked: false, wake: true, unanswered: 2))
  }

  @Test("wakes: moving at 10, 20, 40 min; parked every 30 min, three times")
  func wakes() {
    #expect(
      PresenceStatus.wakeTimes(lastFixMilliseconds: 1000, parked: false) == [
        1000 + 10 * Self.minute, 1000 + 20 * Self.minute, 1000 + 40 * Self.minute,
      ])
    #expect(
      PresenceStatus.wakeTimes(lastFixMilliseconds: 0, parked: true) == [
        30 * Self.minute, 60 * Self.minute, 90 * Self.minute,
      ])
  }

  /// Found by review15: a count of Int.max appended wakes without end.
  @Test(
    "regression 2026-12-06: a parked phone's wakes stop at the count's limit (1 000 kept, 1 001 taken as 1 000) and at the first wake at the end of time"
  )
  func parkedWakesAreBounded() {
    var rules = PresenceStatusRules()
    func wakes(_ count: Int, every: Int64 = 1, from last: Int64 = 0) -> [Int64] {
      rules.parkedWakeCount = count
      rules.parkedWakeEveryMilliseconds = every
      return PresenceStatus.wakeTimes(lastFixMilliseconds: last, parked: true, rules: rules)
    }
    #expect(wakes(1_000) == Array(1...1_000))
    #expect(wakes(1_001) == Array(1...1_000))
    #expect(wakes(.max).count == PresenceStatusRules.largestParkedWakeCount)
    #expect(wakes(0).isEmpty && wakes(-5).isEmpty)
    // Two wakes before the end of time, then one at it, and no more.
    #expect(wakes(10, every: 10, from: .max - 25) == [.max - 15, .max - 5, .max])
    #expect(wakes(.max, every: .max, from: 0) == [.max])
  }

  @Test("battery: low at ≤ 15 % (or the circle's threshold) not charging, 6 h cooldown; ran out at ≤ 5 %")
  func battery() {
    func verdict(
      _ level: Double?, _ charging: ChargingState = .notCharging, threshold: Double? = nil,
      last: Int64? = nil, now: Int64 = 100 * 3_600_000, quiet: Bool = false
    ) -> PresenceStatus.BatteryVerdict {
      PresenceStatus.battery(
        level: level, charging: charging, circleThreshold: threshold, lastLowAlertMilliseconds: last,
        now: now, phoneWentQuiet: quiet)
    }
    #expect(verdict(0.15) == .low && verdict(0.1501) == .fine)
    #expect(verdict(0.10, .charging) == .fine)
    #expect(verdict(0.20, threshold: 0.2) == .low && verdict(0.2001, threshold: 0.2) == .fine)
    #expect(verdict(0.10, last: 100 * Self.hour - 6 * Self.hour + 1) == .lowButCoolingDown)
    #expect(verdict(0.10, last: 100 * Self.hour - 6 * Self.hour) == .low)
    #expect(verdict(0.05, quiet: true) == .likelyRanOut && verdict(0.0501, quiet: true) == .low)
    #expect(verdict(0.05, .charging, quiet: true) == .fine)
    #expect(verdict(nil) == .fine)
    // Out of [0, 1] (found by a review): iOS's −1 is no reading; a threshold
    // given in percent gives way to the default 15 %.
    #expect(verdict(-1) == .fine && verdict(-1, quiet: true) == .fine && verdict(1.01) == .fine)
    #expect(verdict(0) == .low && verdict(1, threshold: 1) == .low)
    #expect(verdict(0.5, threshold: 15) == .fine && verdict(0.15, threshold: 15) == .low)
    #expect(verdict(0.5, threshold: .nan) == .fine && verdict(0.1, threshold: -0.2) == .low)
  }

  @Test(
    "whose outage: push failures, the small-server rule, the large-server rule, holding 30 min, a single phone"
  )
  func outage() {
    typealias P = PresenceStatus.PhoneView
    let now: Int64 = 10 * Self.hour
    func hold(_ phones: [P], push: Int64? = nil, until: Int64? = nil) -> (Bool, PresenceStatus.OutageReason) {
      let r = PresenceStatus.holdOfflineAlerts(
        phones: phones, lastPushFailureMilliseconds: push, holdUntilMilliseconds: until, now: now)
      return (r.hold, r.reason)
    }
    let quiet = P(quiet: true, fresh: false)
    let reporting = P(quiet: false, fresh: true)
    let stale = P(quiet: false, fresh: false)
    #expect(hold([quiet, reporting], push: now - 30 * Self.minute) == (true, .pushProviderUnreachable))
    #expect(hold([quiet, reporting], push: now - 30 * Self.minute - 1) == (false, .looksLikeThePhones))
    // Fewer than eight: two quiet, unannounced, none fresh → hold; one fresh → announce.
    #expect(hold([quiet, quiet, stale]) == (true, .smallServerSeveralQuietNoneFresh))
    #expect(hold([quiet, quiet, reporting]).0 == false)
    #expect(hold([quiet, P(quiet: true, announced: true, fresh: false), stale]).0 == false)
    // Eight or more: more quiet than reporting holds; half and half does not.
    #expect(
      hold(Array(repeating: quiet, count: 5) + Array(repeating: reporting, count: 4)) == (
        true, .moreQuietThanReporting
      ))
    #expect(hold(Array(repeating: quiet, count: 4) + Array(repeating: reporting, count: 4)).0 == false)
    // Phones that do not count are left out: 7 counting → small-server rule.
    let notCounting = P(counts: false, quiet: false, fresh: true)
    #expect(
      hold([quiet, quiet] + Array(repeating: stale, count: 5) + [notCounting]).1
        == .smallServerSeveralQuietNoneFresh)
    // A hold lasts 30 min after it was justified.
    #expect(hold([quiet, reporting], until: now + 1) == (true, .stillHolding))
    #expect(hold([quiet, reporting], until: now).0 == false)
    // A single phone cannot tell.
    #expect(hold([quiet]) == (false, .singlePhoneCannotTell))
    let r = PresenceStatus.holdOfflineAlerts(
      phones: [quiet, quiet, stale], lastPushFailureMilliseconds: nil, holdUntilMilliseconds: nil, now: now)
    #expect(r.holdUntilMilliseconds == now + 30 * Self.minute)
  }

  /// Found by a review against the SPEC (specrev-phone F9): after the
  /// server's clock stepped back a day, a hold kept returning stillHolding,
  /// a push failure held, and a low battery cooled down, for the whole day.
  @Test(
    "after the server's clock steps back, a hold lasts 30 min from the step, a push failure and a battery alert count within their windows either side"
  )
  func clockSteppedBack() {
    typealias P = PresenceStatus.PhoneView
    let quiet = P(quiet: true, fresh: false)
    let reporting = P(quiet: false, fresh: true)
    let now: Int64 = 100 * Self.hour
    let day = 24 * Self.hour
    // A hold until a day + 30 min ahead: held now, until now + 30 min, not beyond.
    let held = PresenceStatus.holdOfflineAlerts(
      phones: [quiet, reporting], lastPushFailureMilliseconds: nil, holdUntilMilliseconds: now + day, now: now
    )
    #expect(held.hold && held.reason == .stillHolding && held.holdUntilMilliseconds == now + 30 * Self.minute)
    let after = PresenceStatus.holdOfflineAlerts(
      phones: [quiet, reporting], lastPushFailureMilliseconds: nil,
      holdUntilMilliseconds: held.holdUntilMilliseconds, now: now + 30 * Self.minute)
    #expect(!after.hold)
    // A push failure 30 min after now still holds; 30 min and 1 ms after does not.
    func push(_ failure: Int64) -> Bool {
      PresenceStatus.holdOfflineAlerts(
        phones: [quiet, reporting], lastPushFailureMilliseconds: failure, holdUntilMilliseconds: nil, now: now
      ).hold
    }
    #expect(push(now + 30 * Self.minute) && !push(now + 30 * Self.minute + 1) && !push(now + day))
    // A low-battery alert dated under 6 h after now cools down; 6 h after, or a day, does not.
    func battery(_ last: Int64) -> PresenceStatus.BatteryVerdict {
      PresenceStatus.battery(level: 0.1, charging: .notCharging, lastLowAlertMilliseconds: last, now: now)
    }
    #expect(battery(now + 6 * Self.hour - 1) == .lowButCoolingDown)
    #expect(battery(now + 6 * Self.hour) == .low && battery(now + day) == .low)
  }

  /// Issue 15 item 19: the outage rule's two regimes at their boundary.
  @Test("whose outage: exactly 7 counting phones use the small-server rule, exactly 8 the majority rule")
  func outageRuleAtExactlySevenAndEightPhones() {
    typealias P = PresenceStatus.PhoneView
    let now: Int64 = 10 * Self.hour
    let quiet = P(quiet: true, fresh: false)
    let stale = P(quiet: false, fresh: false)
    let reporting = P(quiet: false, fresh: true)
    func hold(_ phones: [P]) -> PresenceStatus.OutageReason {
      PresenceStatus.holdOfflineAlerts(
        phones: phones, lastPushFailureMilliseconds: nil, holdUntilMilliseconds: nil, now: now
      ).reason
    }
    // Seven: two quiet and none fresh holds though five are not quiet.
    #expect(hold([quiet, quiet] + Array(repeating: stale, count: 5)) == .smallServerSeveralQuietNoneFresh)
    // Eight: the same two quiet are no majority.
    #expect(hold([quiet, quiet] + Array(repeating: stale, count: 6)) == .looksLikeThePhones)
    // Eight: five quiet of eight hold; four of eight do not.
    #expect(
      hold(Array(repeating: quiet, count: 5) + Array(repeating: reporting, count: 3))
        == .moreQuietThanReporting)
    #expect(
      hold(Array(repeating: quiet, count: 4) + Array(repeating: reporting, count: 4)) == .looksLikeThePhones)
    // Seven with one fresh: announce.
    #expect(hold([quiet, quiet, reporting] + Array(repeating: stale, count: 4)) == .looksLikeThePhones)
  }

  /// Found by the outage model (ModelPropertyTests): a moment with a single
  /// counting phone dropped a running hold, so the next moment exposed the rest.
  @Test("a running hold survives a moment with a single counting phone")
  func aHoldSurvivesAMomentWithASinglePhone() {
    typealias P = PresenceStatus.PhoneView
    let quiet = P(quiet: true, fresh: false)
    let first = PresenceStatus.holdOfflineAlerts(
      phones: [quiet, quiet], lastPushFailureMilliseconds: nil, holdUntilMilliseconds: nil, now: 0)
    #expect(first.hold && first.holdUntilMilliseconds == 30 * Self.minute)
    let single = PresenceStatus.holdOfflineAlerts(
      phones: [quiet], lastPushFailureMilliseconds: nil, holdUntilMilliseconds: first.holdUntilMilliseconds,
      now: 10 * Self.minute)
    #expect(!single.hold && single.reason == .singlePhoneCannotTell)
    let back = PresenceStatus.holdOfflineAlerts(
      phones: [quiet, P(quiet: false, announced: true, fresh: false)], lastPushFailureMilliseconds: nil,
      holdUntilMilliseconds: single.holdUntilMilliseconds, now: 20 * Self.minute)
    #expect(back.hold && back.reason == .stillHolding)
    let over = PresenceStatus.holdOfflineAlerts(
      phones: [quiet], lastPushFailureMilliseconds: nil, holdUntilMilliseconds: first.holdUntilMilliseconds,
      now: 30 * Self.minute)
    #expect(over.holdUntilMilliseconds == nil)
  }
}
