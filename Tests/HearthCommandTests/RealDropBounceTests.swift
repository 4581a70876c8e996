import Foundation
import Testing
import _HearthTestSupport

@testable import HearthCommand

/// Real phone drops (phyphox, about 200 Hz). After the floor hit a phone
/// bounces and tumbles, reading 0.2–0.7 g rather than the free fall the veto
/// looks for, and strikes again 0.35–0.45 s later. Those strikes must stay in
/// the floor hit's peak window, under its veto: as jolts of their own, with
/// the tumble's spin and a car stopped at a red light, they would be the
/// false alarm SPEC §9 names ("phone sliding off a seat"). A change that let
/// a pulse after a vetoed floor hit open its own jolt (to report a crash
/// 0.35 s after the floor hit) split four of these eighteen recordings and
/// was withdrawn.
@Suite("Real phone drops: the bounces stay in the floor hit's jolt")
struct RealDropBounceTests {
  /// The jolt times (s) of `impact detect` on a real drop, the gate on.
  static func jolts(_ name: String) -> (times: [String], csv: String) {
    let path = TestPaths.sharedDatasets.path + "/phone-drop-freefall/raw_data/" + name
    let r = run(["impact", "detect", path, "--vehicle-gate", "on", "--format", "csv"])
    let rows = r.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    var times: [String] = []
    for row in rows where row.count > 3 && !times.contains(String(row[1])) { times.append(String(row[1])) }
    return (times, r.out + r.err)
  }

  @Test(
    "a drop whose phone strikes the floor again 0.43 s and 0.36 s after the first hit: one jolt each",
    arguments: ["fall_7", "up_and_down_4"])
  func bounceAfterTheFloorHit(_ name: String) {
    let (times, csv) = Self.jolts(name)
    #expect(times.count == 1, "\(csv)")
  }

  @Test("the floor hit's jolt carries the fall's veto")
  func floorHitIsVetoed() {
    let (times, csv) = Self.jolts("fall_7")
    #expect(times.count == 1)
    #expect(csv.contains(",freeFallVeto,true,"), "\(csv)")
  }
}
