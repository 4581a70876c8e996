import Foundation
import HearthImpact

/// A made-up stretch of sensor data described by a short recipe: the
/// regression tests write one by hand, the property tests draw them at random
/// and shrink them. Everything is deterministic in the recipe.
struct Scene: Sendable, Hashable, CustomStringConvertible {
  static let g = ImpactConfiguration.standardGravity

  struct Jolt: Sendable, Hashable {
    var seconds: Double
    /// Dynamic acceleration added along x, m/s², on `samples` consecutive samples.
    var metersPerSecondSquared: Double
    var samples = 1
  }
  struct Span: Sendable, Hashable {
    var from: Double
    var to: Double
  }
  struct Spin: Sendable, Hashable {
    var seconds: Double
    var radiansPerSecond: Double
    var lengthSeconds = 0.1
  }
  struct Step: Sendable, Hashable {
    var seconds: Double
    var value: Double
  }

  var duration = 60.0
  var accelerometerHertz = 50.0
  var gyroscopeHertz = 10.0
  var barometerHertz = 5.0
  /// 0: no GPS.
  var fixHertz = 1.0
  /// Sample times move by up to this fraction of the period (irregular clocks).
  var jitter = 0.0
  /// Piecewise vertical vibration amplitude (m/s², a 12 Hz sine) from each step's time.
  var vibration: [Step] = [Step(seconds: 0, value: 0.6)]
  /// Piecewise GPS speed (m/s; negative: unmeasured) from each step's time.
  var speed: [Step] = [Step(seconds: 0, value: 14)]
  var jolts: [Jolt] = []
  /// |a| ≈ 0.01 g over each span.
  var falls: [Span] = []
  var spins: [Spin] = []
  /// Pressure rises by `value` hPa at each step's time.
  var pressureSteps: [Step] = []
  /// No samples of the stream inside a span.
  var accelerometerGaps: [Span] = []
  var fixGaps: [Span] = []
  var gyroscope = true
  var barometer = true
  /// Seed of the jitter.
  var seed: UInt64 = 1

  var description: String {
    var parts = ["duration \(duration) s"]
    if accelerometerHertz != 50 { parts.append("accelerometer \(accelerometerHertz) Hz") }
    if gyroscopeHertz != 10 { parts.append("gyroscope \(gyroscopeHertz) Hz") }
    if barometerHertz != 5 { parts.append("barometer \(barometerHertz) Hz") }
    parts.append(fixHertz == 0 ? "no GPS" : "GPS \(fixHertz) Hz")
    if jitter > 0 { parts.append("jitter \(jitter) (seed \(seed))") }
    parts.append("vibration \(vibration.map { "\(r($0.seconds)): \(r($0.value))" })")
    if fixHertz > 0 { parts.append("speed \(speed.map { "\(r($0.seconds)): \(r($0.value))" })") }
    if !jolts.isEmpty {
      parts.append("jolts \(jolts.map { "\(r($0.seconds)) s \(r($0.metersPerSecondSquared / Self.g)) g ×\($0.samples)" })")
    }
    if !falls.isEmpty { parts.append("falls \(falls.map { "[\(r($0.from)), \(r($0.to))]" })") }
    if !spins.isEmpty {
      parts.append("spins \(spins.map { "\(r($0.seconds)) s \(r($0.radiansPerSecond)) rad/s \(r($0.lengthSeconds)) s" })")
    }
    if !pressureSteps.isEmpty { parts.append("pressure \(pressureSteps.map { "\(r($0.seconds)): +\(r($0.value))" })") }
    if !accelerometerGaps.isEmpty { parts.append("accelerometer gaps \(accelerometerGaps.map { "[\(r($0.from)), \(r($0.to))]" })") }
    if !fixGaps.isEmpty { parts.append("fix gaps \(fixGaps.map { "[\(r($0.from)), \(r($0.to))]" })") }
    if !gyroscope { parts.append("no gyroscope") }
    if !barometer { parts.append("no barometer") }
    return parts.joined(separator: "; ")
  }

  private func r(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

  /// The value of the last step at or before `t` (steps sorted by time).
  private static func value(_ sorted: [Step], at t: Double, default d: Double) -> Double {
    var v = d
    for s in sorted {
      guard s.seconds <= t else { break }
      v = s.value
    }
    return v
  }

  private static func inside(_ spans: [Span], _ t: Double) -> Bool { spans.contains { t >= $0.from && t < $0.to } }

  /// Sample times of a stream: k / hertz, moved by the jitter, in order.
  private func times(_ hertz: Double, _ stream: UInt64) -> [Double] {
    guard hertz > 0 else { return [] }
    var random = SplitMix64(seed: seed &* 31 &+ stream)
    var out: [Double] = []
    let period = 1 / hertz
    var k = 0
    while Double(k) * period <= duration {
      let t = Double(k) * period + (jitter > 0 ? (random.unit() - 0.5) * jitter * period : 0)
      if out.last.map({ t > $0 }) ?? true { out.append(t) }
      k += 1
    }
    return out
  }

  /// The whole scene as one batch (the gate on).
  var batch: ImpactBatch {
    var b = ImpactBatch(vehicleGate: true)
    let vibration = self.vibration.enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
    let speed = self.speed.enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
    var joltSamples: [Int: Double] = [:]  // accelerometer index → added x
    let accTimes = times(accelerometerHertz, 1).filter { !Self.inside(accelerometerGaps, $0) }
    for j in jolts {
      guard let first = accTimes.firstIndex(where: { $0 >= j.seconds }) else { continue }
      for i in first..<min(accTimes.count, first + max(1, j.samples)) {
        joltSamples[i, default: 0] += j.metersPerSecondSquared
      }
    }
    for (i, t) in accTimes.enumerated() {
      if Self.inside(falls, t) {
        b.accelerometer.append(Sample3(t, 0, 0, 0.01 * Self.g))
        continue
      }
      let amplitude = Self.value(vibration, at: t, default: 0)
      let z = Self.g + amplitude * sin(2 * .pi * 12 * t)
      b.accelerometer.append(Sample3(t, joltSamples[i] ?? 0, 0, z))
    }
    if gyroscope {
      for t in times(gyroscopeHertz, 2) {
        var rate = 0.01
        for s in spins where abs(t - s.seconds) <= s.lengthSeconds / 2 { rate = max(rate, s.radiansPerSecond) }
        b.gyroscope.append(Sample3(t, rate, 0, 0))
      }
    }
    if barometer {
      for t in times(barometerHertz, 3) {
        let rise = pressureSteps.filter { $0.seconds <= t }.map(\.value).reduce(0, +)
        b.barometer.append(Sample1(t, 1013 + rise))
      }
    }
    for t in times(fixHertz, 4) where !Self.inside(fixGaps, t) {
      b.fixes.append(Sample1(t, Self.value(speed, at: t, default: 0)))
    }
    return b
  }

  func verdicts(_ configuration: ImpactConfiguration = ImpactConfiguration()) -> [ImpactVerdict] {
    ImpactDetector.replay(batch, configuration: configuration)
  }

  func reports(_ configuration: ImpactConfiguration = ImpactConfiguration()) -> [ImpactVerdict] {
    verdicts(configuration).filter { $0.outcome == .possibleImpact }
  }
}

/// SplitMix64: a tiny seeded generator (Steele, Lea, Flood 2014).
struct SplitMix64: RandomNumberGenerator, Sendable {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// Uniform in [0, 1).
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
  mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
  mutating func chance(_ p: Double) -> Bool { unit() < p }
  mutating func pick(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
}

extension ImpactBatch {
  /// The samples after `time` (what a detector that already saw up to it still needs).
  func trimmed(after time: Double) -> ImpactBatch { window(from: time + 1e-9, to: .infinity) }

  /// Every sample moved by `seconds`.
  func shifted(by seconds: Double) -> ImpactBatch {
    var out = self
    out.accelerometer = accelerometer.map { Sample3($0.seconds + seconds, $0.x, $0.y, $0.z) }
    out.gyroscope = gyroscope.map { Sample3($0.seconds + seconds, $0.x, $0.y, $0.z) }
    out.barometer = barometer.map { Sample1($0.seconds + seconds, $0.value) }
    out.fixes = fixes.map { Sample1($0.seconds + seconds, $0.value) }
    return out
  }
}
