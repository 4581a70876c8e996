import HearthGeo
import Testing

@Suite("Presence advance and staleness (SPEC §1)")
struct PresenceTests {
  let minute: Int64 = 60_000

  func fix(_ time: Int64, device: UInt32, activity: Activity = .walking) -> Fix {
    Fix(
      timeMilliseconds: time, latitudeDegrees: 1, longitudeDegrees: Double(device),
      horizontalAccuracyMeters: 5, activity: activity, device: DeviceID(device), user: UserID(1))
  }

  @Test("stale after 15 min, or 35 min after a still fix; exactly at the limit is fresh")
  func staleness() {
    let rules = PresenceRules()
    #expect(!rules.isStale(fixTimeMilliseconds: 0, activity: .walking, nowMilliseconds: 15 * minute))
    #expect(rules.isStale(fixTimeMilliseconds: 0, activity: .walking, nowMilliseconds: 15 * minute + 1))
    #expect(!rules.isStale(fixTimeMilliseconds: 0, activity: .still, nowMilliseconds: 35 * minute))
    #expect(rules.isStale(fixTimeMilliseconds: 0, activity: .still, nowMilliseconds: 35 * minute + 1))
    #expect(!rules.isStale(fixTimeMilliseconds: 10, activity: .walking, nowMilliseconds: 0))
    #expect(rules.isStale(fixTimeMilliseconds: .min, activity: .walking, nowMilliseconds: .max))
  }

  @Test("presence only moves forwards in time")
  func forwardsOnly() {
    var presence = Presence()
    #expect(presence.advance(with: fix(100, device: 1), receivedAtMilliseconds: 100) == .advanced(.firstFix))
    #expect(presence.advance(with: fix(100, device: 1), receivedAtMilliseconds: 100) == .kept(.notNewer))
    #expect(presence.advance(with: fix(50, device: 2), receivedAtMilliseconds: 100) == .kept(.notNewer))
    // Another device's fix at the row's millisecond is not newer either, even on the move.
    #expect(presence.advance(with: fix(100, device: 2), receivedAtMilliseconds: 100) == .kept(.notNewer))
    #expect(
      presence.advance(with: fix(101, device: 1), receivedAtMilliseconds: 101) == .advanced(.sameDevice))
    #expect(presence.row?.timeMilliseconds == 101)
  }

  @Test("a still fix from another device does not take a fresh row, and takes a stale one")
  func stillFromOtherDevice() {
    var presence = Presence()
    presence.advance(with: fix(0, device: 1), receivedAtMilliseconds: 0)  // holder, walking
    #expect(
      presence.advance(
        with: fix(15 * minute, device: 2, activity: .still), receivedAtMilliseconds: 15 * minute)
        == .kept(.stillWhileHolderFresh))
    #expect(presence.row?.device == DeviceID(1))
    #expect(
      presence.advance(
        with: fix(15 * minute + 1, device: 2, activity: .still), receivedAtMilliseconds: 15 * minute + 1)
        == .advanced(.holderStale))
    #expect(presence.row?.device == DeviceID(2))
  }

  @Test(
    "the holder's age is taken on the server's clock at receipt, never against the other device's fix time")
  func stalenessOnTheServersClock() {
    // The tablet's clock runs 4 min ahead: its fix says 4 min later than it
    // was sent. The phone's 12-minute-old fix is fresh, however far apart
    // the two fix times are; 15 min at receipt is fresh, a millisecond more stale.
    for (received, fixTime, expected) in [
      (12 * minute, 16 * minute, PresenceDecision.kept(.stillWhileHolderFresh)),
      (15 * minute, 19 * minute, .kept(.stillWhileHolderFresh)),
      (15 * minute + 1, 19 * minute + 1, .advanced(.holderStale)),
      // A tablet running behind: its fix is only a minute after the
      // phone's, but the phone's fix is 16 min old when it arrives.
      (16 * minute, minute, .advanced(.holderStale)),
    ] {
      var presence = Presence()
      presence.advance(with: fix(0, device: 1), receivedAtMilliseconds: 1_000)
      #expect(
        presence.advance(with: fix(fixTime, device: 2, activity: .still), receivedAtMilliseconds: received)
          == expected, "received at \(received) ms")
    }
    // A `still` holder: 35 min at receipt.
    for (received, expected) in [
      (35 * minute, PresenceDecision.kept(.stillWhileHolderFresh)),
      (35 * minute + 1, .advanced(.holderStale)),
    ] {
      var presence = Presence()
      presence.advance(with: fix(0, device: 1, activity: .still), receivedAtMilliseconds: 0)
      #expect(
        presence.advance(
          with: fix(39 * minute, device: 2, activity: .still), receivedAtMilliseconds: received)
          == expected)
    }
  }

  @Test("a device on the move takes the row like any fix")
  func moving() {
    var presence = Presence()
    presence.advance(with: fix(0, device: 1, activity: .still), receivedAtMilliseconds: 0)
    #expect(
      presence.advance(with: fix(1, device: 2, activity: .automotive), receivedAtMilliseconds: 1)
        == .advanced(.otherDeviceMoving))
    #expect(
      presence.advance(with: fix(2, device: 2, activity: .still), receivedAtMilliseconds: 2)
        == .advanced(.sameDevice))
  }

  @Test("at one millisecond a moving fix is offered before a still one, then the lower device first")
  func sameTimeRank() {
    let moving = Presence.sameTimeRank(activity: .walking, device: DeviceID(9))
    let still = Presence.sameTimeRank(activity: .still, device: DeviceID(1))
    #expect(moving < still)
    #expect(
      Presence.sameTimeRank(activity: .unknown, device: DeviceID(1))
        < Presence.sameTimeRank(activity: .automotive, device: DeviceID(2)))
    #expect(
      Presence.sameTimeRank(activity: .still, device: DeviceID(UInt32.max - 1))
        < Presence.sameTimeRank(activity: .still, device: DeviceID(UInt32.max)))
    #expect(
      Presence.sameTimeRank(activity: .cycling, device: DeviceID(UInt32.max))
        < Presence.sameTimeRank(activity: .still, device: DeviceID(0)))
  }
}
