import Foundation
import Testing

@testable import HearthImpact

/// A batch in time order is read in place and each stream's values are
/// checked where its samples are taken (the block path stops before a bad
/// accelerometer value and the per-sample path skips it). Bad values placed
/// inside batches without breaking their order (first, mid-block, on a
/// block's edge, at a good sample's time, at the previous sample's time,
/// many in a row) must leave the detector exactly as the same batches
/// without them: the same verdicts and feature state to the bit, the same
/// counters but for one bad value per sample put in. Both paths.
@Suite("Impact detector: bad values inside batches in time order")
struct InPlaceBadValueTests {
  /// A bad value for each stream (NaN, infinite, beyond the bounds).
  static func badAcceleration(_ t: Double, _ r: inout SplitMix64) -> Sample3 {
    // Just beyond 64 g along gravity (the scenes' +z): with the jolt
    // threshold at 64 g, |dynamic| stays below it, so only the bound stops it.
    let beyond = ImpactConfiguration.maximumJoltMetersPerSecondSquared + 1
    let v = [Double.nan, .infinity, -.infinity, 1e300, 64 * 9.80665 * (1 + 1e-15), -700, beyond][r.pick(7)]
    switch r.pick(3) {
    case 0: return Sample3(t, v, 0, 9.8)
    case 1: return Sample3(t, 0.1, v, 9.8)
    default: return Sample3(t, 0.1, 0.2, v)
    }
  }

  /// `samples` with bad ones put in at random places, each timed as a
  /// neighbour or between two (so the order holds); how many were put in.
  static func spoil<T>(
    _ samples: [T], _ r: inout SplitMix64, time: (T) -> Double, bad: (Double, inout SplitMix64) -> T
  ) -> ([T], Int) {
    guard !samples.isEmpty, r.chance(0.5) else { return (samples, 0) }
    var out = samples
    var added = 0
    for _ in 0..<(1 + r.pick(4)) {
      let i = [0, r.pick(out.count + 1), min(out.count, ImpactDetector.accelerometerBlock), out.count][
        r.pick(4)]
      let before = i > 0 ? time(out[i - 1]) : time(out[0])
      let after = i < out.count ? time(out[i]) : before
      let t = [before, after, before + (after - before) / 2][r.pick(3)]
      for _ in 0..<(r.chance(0.2) ? 3 : 1) {
        out.insert(bad(t, &r), at: i)
        added += 1
      }
    }
    return (out, added)
  }

  static func difference(seed: UInt64, blocks: Bool) -> String? {
    var r = SplitMix64(seed: seed)
    let scene = DetectorPropertyTests.scene(&r)
    var delivery = DetectorPropertyTests.delivery(&r)
    (delivery.disorder, delivery.badSamples, delivery.repeats) = (0, 0, r.chance(0.5) ? 0.2 : 0)
    var configuration = DetectorPropertyTests.configuration(&r)
    if r.chance(0.3) {
      configuration.joltMetersPerSecondSquared = ImpactConfiguration.maximumJoltMetersPerSecondSquared
    }
    let batches = delivery.batches(scene.batch, duration: scene.duration)
    var clean = ImpactDetector(configuration: configuration)
    var spoiled = ImpactDetector(configuration: configuration)
    (clean.takesBlocks, spoiled.takesBlocks) = (blocks, blocks)
    var expected = ImpactCounters()
    for (i, b) in batches.enumerated() {
      var s = b
      var n = 0
      (s.accelerometer, n) = spoil(b.accelerometer, &r, time: \.seconds, bad: badAcceleration)
      expected.accelerometer.badValue += n
      (s.gyroscope, n) = spoil(b.gyroscope, &r, time: \.seconds) { t, r in
        Sample3(t, -100, -100, [-100, .nan][r.pick(2)])
      }
      expected.gyroscope.badValue += n
      (s.barometer, n) = spoil(b.barometer, &r, time: \.seconds) { t, r in
        Sample1(t, [101.3, .nan, 1260.0001][r.pick(3)])
      }
      expected.barometer.badValue += n
      (s.fixes, n) = spoil(b.fixes, &r, time: \.seconds) { t, r in
        Sample1(t, [Double.infinity, 515.0001][r.pick(2)])
      }
      expected.fixes.badValue += n
      let (good, bad) = (clean.process(b), spoiled.process(s))
      if "\(good)" != "\(bad)" { return "batch \(i): verdicts differ\n  clean: \(good)\n  spoiled: \(bad)" }
      var counters = clean.counters
      counters.accelerometer.badValue += expected.accelerometer.badValue
      counters.gyroscope.badValue += expected.gyroscope.badValue
      counters.barometer.badValue += expected.barometer.badValue
      counters.fixes.badValue += expected.fixes.badValue
      if counters != spoiled.counters {
        return "batch \(i): counters differ\n  expected: \(counters)\n  spoiled: \(spoiled.counters)"
      }
      let (x, y) = (BlockPathTests.state(clean), BlockPathTests.state(spoiled))
      if x != y { return "batch \(i): state differs in \(x.keys.filter { x[$0] != y[$0] }.sorted())" }
    }
    let (good, bad) = (clean.finish(), spoiled.finish())
    if "\(good)" != "\(bad)" { return "finish: verdicts differ\n  clean: \(good)\n  spoiled: \(bad)" }
    return nil
  }

  @Test("bad values in ordered batches: as if absent, each counted (block path and per-sample path)")
  func badValuesAreSkippedInPlace() {
    let n = DetectorPropertyTests.cases(400) / 4
    for blocks in [true, false] {
      for i in 0..<n {
        let seed = DetectorPropertyTests.seed &+ 0xBAD &+ UInt64(i)
        if let problem = Self.difference(seed: seed, blocks: blocks) {
          Issue.record("case seed \(seed), blocks \(blocks): \(problem)")
          return
        }
      }
    }
  }
}
