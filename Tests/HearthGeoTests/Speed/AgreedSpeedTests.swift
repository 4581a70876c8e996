import Testing
import _HearthTestSupport

@testable import HearthGeo

@Suite("Agreed speed (SPEC §4)")
struct AgreedSpeedTests {
  typealias W = FenceWorld

  @Test("two neighbours agree on the slower reading; one reading is never quoted alone")
  func slowerOfTwo() {
    let a = W.fix(0, 0, speed: 20)
    let b = W.fix(300, 15, speed: 14)
    let agreed = AgreedSpeed.pair(a, b)!
    #expect(agreed.metersPerSecond == 14 && agreed.source == .bothMeasured)
    // A single fast reading between two normal ones: no pair agrees on it.
    let track = FixColumns([W.fix(0, 0, speed: 14), W.fix(140, 10, speed: 45), W.fix(280, 20, speed: 14)])
    #expect(AgreedSpeed.stretch(track) == 14)
  }

  @Test("unmeasured speeds are derived from the ground")
  func derived() {
    let a = W.fix(0, 0, speed: nil)
    let b = W.fix(200, 20, speed: nil)
    let agreed = AgreedSpeed.pair(a, b)!
    #expect(agreed.source == .ground && abs(agreed.metersPerSecond - 10) < 1e-6)
    let one = AgreedSpeed.pair(W.fix(0, 0, speed: 30), b)!
    #expect(one.source == .oneMeasured && abs(one.metersPerSecond - 10) < 1e-6)
  }

  @Test("never faster than the ground between two sharp fixes allows (30 m is sharp, 30.01 m is not)")
  func groundCap() {
    // 100 m in 10 s with 10 m accuracies: cap (100 + 10) / 10 = 11 m/s.
    let capped = AgreedSpeed.pair(
      W.fix(0, 0, accuracy: 10, speed: 40), W.fix(100, 10, accuracy: 10, speed: 40))!
    #expect(capped.source == .cappedByGround && abs(capped.metersPerSecond - 11) < 1e-6)
    let justSharp = AgreedSpeed.pair(
      W.fix(0, 0, accuracy: 30, speed: 40), W.fix(100, 10, accuracy: 30, speed: 40))!
    #expect(abs(justSharp.metersPerSecond - 13) < 1e-6)
    let loose = AgreedSpeed.pair(
      W.fix(0, 0, accuracy: 30.01, speed: 40), W.fix(100, 10, accuracy: 10, speed: 40))!
    #expect(loose.metersPerSecond == 40 && loose.source == .bothMeasured)
    // Under the cap nothing changes.
    let under = AgreedSpeed.pair(
      W.fix(0, 0, accuracy: 10, speed: 10.9), W.fix(100, 10, accuracy: 10, speed: 12))!
    #expect(under.metersPerSecond == 10.9)
  }

  @Test("fixes under half a second apart agree on nothing")
  func tooClose() {
    #expect(AgreedSpeed.pair(W.fix(0, 0, speed: 5), W.fix(1, 0.499, speed: 5)) == nil)
    #expect(AgreedSpeed.pair(W.fix(0, 0, speed: 5), W.fix(1, 0.5, speed: 5)) != nil)
  }
  @Test(
    "a stray fix out and back: neighbours within 50 m + their accuracies, it beyond 50 m + its own + the larger"
  )
  func outAndBack() {
    func point(_ meters: Double, accuracy: Double, speed: Double? = nil) -> TrackPoint {
      TrackPoint(FixColumns([FenceWorld.fix(meters, 0, accuracy: accuracy, speed: speed)]), 0)
    }
    let a = point(0, accuracy: 10)
    // Together: 50 + 10 + 10 = 70 m; away: 50 + 8 + 10 = 68 m from both.
    #expect(AgreedSpeed.isOutAndBack(a, point(1500, accuracy: 8), point(69.99, accuracy: 10)))
    #expect(!AgreedSpeed.isOutAndBack(a, point(1500, accuracy: 8), point(70.01, accuracy: 10)))
    #expect(AgreedSpeed.isOutAndBack(a, point(68.01, accuracy: 8), point(0, accuracy: 10)))
    #expect(!AgreedSpeed.isOutAndBack(a, point(67.99, accuracy: 8), point(0, accuracy: 10)))
    // A measured speed is a reading of its own: never a stray fix here.
    #expect(!AgreedSpeed.isOutAndBack(a, point(1500, accuracy: 8, speed: 50), point(0, accuracy: 10)))
    // Unknown accuracies add nothing: together 50 m, away 50 m.
    let unknown = point(0, accuracy: .nan)
    #expect(AgreedSpeed.isOutAndBack(unknown, point(50.01, accuracy: .nan), point(0, accuracy: .nan)))
    #expect(!AgreedSpeed.isOutAndBack(unknown, point(1500, accuracy: .nan), point(50.01, accuracy: .nan)))
  }
}
