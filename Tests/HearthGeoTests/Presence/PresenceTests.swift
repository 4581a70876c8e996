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
    #expect(presence.advance(with: fix(100, device: 1)) == .advanced(.firstFix))
    #expect(presence.advance(with: fix(100, device: 1)) == .kept(.notNewer))
    #expect(presence.advance(with: fix(50, device: 2)) == .kept(.notNewer))
    #expect(presence.advance(with: fix(101, device: 1)) == .advanced(.sameDevice))
    #expect(presence.row?.timeMilliseconds == 101)
  }

  @Test("a still fix from another device does not take a fresh row, and takes a stale one")
  func stillFromOtherDevice() {
    var presence = Presence()
    presence.advance(with: fix(0, device: 1))  // holder, walking
    #expect(
      presence.advance(with: fix(15 * minute, device: 2, activity: .still)) == .kept(.stillWhileHolderFresh))
    #expect(presence.row?.device == DeviceID(1))
    #expect(
      presence.advance(with: fix(15 * minute + 1, device: 2, activity: .still)) == .advanced(.holderStale))
    #expect(presence.row?.device == DeviceID(2))
  }

  @Test("a still holder stays fresh for 35 min against another device's still fix")
  func stillHolder() {
    var presence = Presence()
    presence.advance(with: fix(0, device: 1, activity: .still))
    #expect(
      presence.advance(with: fix(35 * minute, device: 2, activity: .still)) == .kept(.stillWhileHolderFresh))
    #expect(
      presence.advance(with: fix(35 * minute + 1, device: 2, activity: .still)) == .advanced(.holderStale))
  }

  @Test("a device on the move takes the row like any fix")
  func moving() {
    var presence = Presence()
    presence.advance(with: fix(0, device: 1, activity: .still))
    #expect(presence.advance(with: fix(1, device: 2, activity: .automotive)) == .advanced(.otherDeviceMoving))
    #expect(presence.advance(with: fix(2, device: 2, activity: .still)) == .advanced(.sameDevice))
  }
}
