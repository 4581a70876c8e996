import Foundation
import Testing

@testable import HearthImpact

/// The accelerometer's block path (`takeAccelerations`) against the
/// per-sample path (`take(acceleration:gate:)`): the same verdicts, counters
/// and feature state to the bit, after every batch, on random scenes cut
/// into random batches (late, repeated, disordered and bad samples, the gate
/// switching, clocks far from 0, changed thresholds).
@Suite("Impact detector: the block path == the per-sample path, bit for bit")
struct BlockPathTests {
  /// The detector's scalar feature state, by bit pattern (NaN payloads and
  /// the sign of zero included).
  static func state(_ detector: ImpactDetector) -> [String: UInt64] {
    var out: [String: UInt64] = [:]
    for child in Mirror(reflecting: detector).children {
      guard let label = child.label else { continue }
      switch child.value {
      case let x as Double: out[label] = x.bitPattern
      case let x as Int: out[label] = UInt64(bitPattern: Int64(x))
      case let x as Bool where label != "takesBlocks": out[label] = x ? 1 : 0
      case let x as Double?: out[label] = x.map(\.bitPattern) ?? 0x7FF8_DEAD_0000_0001
      default: continue
      }
    }
    return out
  }

  /// Everything but the switch, for the end of a run (the rings included).
  static func whole(_ detector: ImpactDetector) -> String {
    var copy = detector
    copy.takesBlocks = true
    return String(reflecting: copy)
  }

  struct Case: CustomStringConvertible {
    var property: DetectorPropertyTests.Case
    var offsetSeconds: Double
    /// The phone's attitude (rad, about z, y, x in turn): the scenes put
    /// gravity on one axis, where sums of products gain exact zeros and any
    /// order gives the same bits; turned, every axis carries a part.
    var attitude: (yaw: Double, pitch: Double, roll: Double)
    var description: String { "\(property)\nclock offset: \(offsetSeconds) s, attitude \(attitude) rad" }

    /// Each three-axis reading turned by `attitude`.
    func turned(_ s: Sample3) -> Sample3 {
      let (cy, sy) = (cos(attitude.yaw), sin(attitude.yaw))
      let (cp, sp) = (cos(attitude.pitch), sin(attitude.pitch))
      let (cr, sr) = (cos(attitude.roll), sin(attitude.roll))
      let x1 = cy * s.x - sy * s.y
      let y1 = sy * s.x + cy * s.y
      let x2 = cp * x1 + sp * s.z
      let z2 = -sp * x1 + cp * s.z
      let y3 = cr * y1 - sr * z2
      let z3 = sr * y1 + cr * z2
      return Sample3(s.seconds, x2, y3, z3)
    }
  }

  static func generate(_ r: inout SplitMix64) -> Case {
    var c = DetectorPropertyTests.Case(
      scene: DetectorPropertyTests.scene(&r), delivery: DetectorPropertyTests.delivery(&r),
      configuration: DetectorPropertyTests.configuration(&r))
    // Thresholds the scenes cross often: free fall at |a| values a drive
    // reaches, jolts low enough to fire on road vibration.
    if r.chance(0.3) { c.configuration.freeFallMetersPerSecondSquared = r.uniform(0, 12) }
    if r.chance(0.2) { c.configuration.joltMetersPerSecondSquared = r.uniform(0.5, 3) * Scene.g }
    if r.chance(0.1) { c.configuration.gravityTimeConstantSeconds = r.uniform(0.05, 5) }
    if r.chance(0.1) { c.configuration.vibrationTimeConstantSeconds = r.uniform(0.05, 1) }
    // Clocks far from 0 round every time step differently.
    let offset = [0, 0, 1.7e9 + r.uniform(0, 1), -3_600 * r.uniform(0, 10), 9.9e9][r.pick(5)]
    let attitude =
      r.chance(0.1) ? (0.0, 0.0, 0.0) : (r.uniform(-3.2, 3.2), r.uniform(-1.6, 1.6), r.uniform(-3.2, 3.2))
    var out = Case(property: c, offsetSeconds: offset, attitude: attitude)
    if r.chance(0.25), let s = c.scene.batch.accelerometer.randomElement(using: &r) {
      // The free-fall threshold exactly at a sample's |a| (or an ulp off):
      // samples right at it, where only the square root can tell.
      let m = out.turned(s).magnitude
      out.property.configuration.freeFallMetersPerSecondSquared = [m, m.nextUp, m.nextDown][r.pick(3)]
    }
    return out
  }

  /// The first difference between the two paths on one case, or nil.
  static func difference(_ c: Case) -> String? {
    let p = c.property
    var batches = p.delivery.batches(p.scene.batch, duration: p.scene.duration)
    batches = batches.map { b in
      var b = b.shifted(by: c.offsetSeconds)
      b.receivedSeconds = b.receivedSeconds.map { $0 + c.offsetSeconds }
      b.accelerometer = b.accelerometer.map(c.turned)
      b.gyroscope = b.gyroscope.map(c.turned)
      return b
    }
    return difference(batches, p.configuration)
  }

  /// The first difference between the two paths fed `batches`, or nil.
  static func difference(_ batches: [ImpactBatch], _ configuration: ImpactConfiguration) -> String? {
    var blocks = ImpactDetector(configuration: configuration)
    var single = ImpactDetector(configuration: configuration)
    single.takesBlocks = false
    for (i, b) in batches.enumerated() {
      let fast = blocks.process(b)
      let slow = single.process(b)
      if "\(fast)" != "\(slow)" { return "batch \(i): verdicts differ\n  blocks: \(fast)\n  single: \(slow)" }
      if blocks.counters != single.counters {
        return "batch \(i): counters differ\n  blocks: \(blocks.counters)\n  single: \(single.counters)"
      }
      let (a, s) = (state(blocks), state(single))
      if a != s {
        let keys = a.keys.filter { a[$0] != s[$0] }.sorted()
        return "batch \(i): state differs in \(keys)"
      }
    }
    let (fast, slow) = (blocks.finish(), single.finish())
    if "\(fast)" != "\(slow)" { return "finish: verdicts differ\n  blocks: \(fast)\n  single: \(slow)" }
    if whole(blocks) != whole(single) { return "the detectors' whole state differs at the end" }
    return nil
  }

  @Test(
    "block path == per-sample path: verdicts, counters and feature state after every batch", arguments: 0..<4)
  func samePathResults(part: Int) {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 0xB10C &+ UInt64(part))
    let n = DetectorPropertyTests.cases(400) / 4
    for i in 0..<n {
      let c = Self.generate(&r)
      if let problem = Self.difference(c) {
        Issue.record("case \(i) of part \(part), seed \(DetectorPropertyTests.seed): \(problem)\n\(c)")
        return
      }
    }
  }

  /// With no jolt waiting, the block path checks the accelerometer's order
  /// in its first block (the per-sample path, before anything): a batch
  /// whose accelerometer times decrease, or hold a NaN, anywhere (in the
  /// first block, just after its extent or the block's end, last) must go
  /// through the sorted copies as a whole, with nothing taken in place.
  @Test(
    "an accelerometer out of order anywhere in a batch: the order checked in the first block == checked first"
  )
  func orderCheckedInTheFirstBlock() {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 0x0DE5)
    let n = DetectorPropertyTests.cases(400) / 4
    for i in 0..<n {
      let scene = DetectorPropertyTests.scene(&r)
      var delivery = DetectorPropertyTests.delivery(&r)
      (delivery.disorder, delivery.badSamples) = (0, 0)
      var batches = delivery.batches(scene.batch, duration: scene.duration)
      for j in batches.indices where batches[j].accelerometer.count >= 2 && r.chance(0.3) {
        var a = batches[j].accelerometer
        let block = ImpactDetector.accelerometerBlock
        let k = [0, 1, r.pick(a.count - 1), block - 1, block, block + 1, a.count - 2][r.pick(7)]
        guard k >= 0 && k + 1 < a.count else { continue }
        switch r.pick(4) {
        case 0: a.swapAt(k, k + 1)  // a decrease (or a tie, which is in order)
        case 1: a[k + 1].seconds = .nan
        case 2: a[k + 1].seconds = a[k].seconds.nextDown  // an ulp back
        default: a[k].seconds = a[k + 1].seconds  // a tie: in order, not newer
        }
        batches[j].accelerometer = a
      }
      if let problem = Self.difference(batches, DetectorPropertyTests.configuration(&r)) {
        Issue.record("case \(i), seed \(DetectorPropertyTests.seed): \(problem)")
        return
      }
    }
  }

  /// The rings of all streams share one buffer, written in place: a copy of
  /// a detector must not see what the original takes after the copy, nor
  /// the original what the copy takes (copy on write).
  @Test("a copied detector is a value: its rings are its own after either is fed")
  func copiesAreValues() {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 0xC0B1)
    for i in 0..<8 {
      let scene = DetectorPropertyTests.scene(&r)
      let delivery = DetectorPropertyTests.delivery(&r)
      let configuration = DetectorPropertyTests.configuration(&r)
      let batches = delivery.batches(scene.batch, duration: scene.duration)
      let half = batches.count / 2
      var original = ImpactDetector(configuration: configuration)
      for b in batches[..<half] { _ = original.process(b) }
      let atCopy = Self.whole(original)
      var copy = original
      var rest: [String] = []
      for b in batches[half...] { rest.append("\(original.process(b))") }
      #expect(Self.whole(copy) == atCopy, "case \(i): the copy changed as the original was fed")
      var copyRest: [String] = []
      for b in batches[half...] { copyRest.append("\(copy.process(b))") }
      #expect(
        copyRest == rest && Self.whole(copy) == Self.whole(original), "case \(i): the copy fed alike differs")
    }
  }

  // MARK: The square-root screens

  /// Thresholds of every kind a configuration may hold, and a few it may not.
  static let thresholds: [Double] = {
    var out: [Double] = [
      0, .leastNonzeroMagnitude, 1e-160, 1e-154, 1.5e-154, 1e-100, 1, 2.9419950, 39.226600,
      0.3 * Scene.g, 4 * Scene.g, 1e100, 1.3e154, 1.35e154, 1e200, .greatestFiniteMagnitude,
    ]
    var r = SplitMix64(seed: 20_261_204)
    for _ in 0..<300 { out.append(r.uniform(0, 20 * Scene.g)) }
    for _ in 0..<100 {
      out.append(Double(sign: .plus, exponent: r.pick(2000) - 1000, significand: 1 + r.unit()))
    }
    return out
  }()

  @Test(
    "RootBounds: below it the square root is below the threshold, at or above it not (IEEE roots, near threshold²)"
  )
  func rootBoundsHold() {
    for threshold in Self.thresholds {
      let bounds = RootBounds(threshold)
      let square = threshold * threshold
      var probes: [Double] = [0, .leastNonzeroMagnitude, .infinity, bounds.below, bounds.atOrAbove]
      for anchor in [square, bounds.below, bounds.atOrAbove] where anchor.isFinite {
        var (up, down) = (anchor, anchor)
        for _ in 0..<40 {
          probes += [up, down]
          (up, down) = (up.nextUp, down.nextDown)
        }
      }
      for q in probes where q >= 0 {
        let root = q.squareRoot()
        if q < bounds.below {
          #expect(root < threshold, "threshold \(threshold): √\(q) = \(root), below \(bounds.below)")
        }
        if q >= bounds.atOrAbove {
          #expect(
            root >= threshold, "threshold \(threshold): √\(q) = \(root), at or above \(bounds.atOrAbove)")
        }
      }
      // Two ordered numbers: neither NaN (a NaN sample then compares false
      // with both and takes the exact test, as every square between them does).
      #expect(
        bounds.below <= bounds.atOrAbove, "threshold \(threshold): \(bounds.below) > \(bounds.atOrAbove)")
    }
  }

  @Test("RootBounds settle everything but a band of ±2⁻²⁰ around a normal threshold², and nothing otherwise")
  func rootBoundsAreNarrow() {
    let jolt = RootBounds(4 * Scene.g)
    let square = (4 * Scene.g) * (4 * Scene.g)
    #expect(jolt.below > square * (1 - 0x1p-19) && jolt.below < square)
    #expect(jolt.atOrAbove < square * (1 + 0x1p-19) && jolt.atOrAbove > square)
    for degenerate in [0, 1e-160, 1e160, Double.greatestFiniteMagnitude] {
      let b = RootBounds(degenerate)
      #expect(b.below == 0 && b.atOrAbove == .infinity, "threshold \(degenerate)")
    }
  }
}
