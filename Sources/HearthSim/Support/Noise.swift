import HearthGeo

/// Deterministic noise sources for the simulator. Every generator is a value
/// seeded from a `SeededGenerator`, so the same seed gives the same trace on
/// every machine and thread count.
struct Gaussian {
  var generator: SeededGenerator
  private var spare: Double?

  init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
  init(_ generator: SeededGenerator) { self.generator = generator }

  /// A standard normal deviate (Marsaglia's polar method; portable: no libm
  /// except `log` and `squareRoot`, both correctly rounded or IEEE).
  mutating func next() -> Double {
    if let spare {
      self.spare = nil
      return spare
    }
    while true {
      let u = 2 * generator.nextUnit() - 1
      let v = 2 * generator.nextUnit() - 1
      let s = u * u + v * v
      if s > 0 && s < 1 {
        let factor = (-2 * SimMath.log(s) / s).squareRoot()
        spare = v * factor
        return u * factor
      }
    }
  }

  mutating func uniform(_ lower: Double, _ upper: Double) -> Double { generator.nextDouble(in: lower, upper) }
  mutating func chance(_ probability: Double) -> Bool { generator.nextUnit() < probability }
  /// An exponential draw (waiting time of a Poisson process), mean `mean`.
  mutating func exponential(mean: Double) -> Double { -mean * SimMath.log(1 - generator.nextUnit()) }
  mutating func integer(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(generator.next() % UInt64(range.count))
  }
}

/// A second-order resonator driven by white noise: band-limited noise centred
/// on `frequencyHz` with quality factor `q` (a two-pole band-pass filter).
/// Its output is normalised to unit RMS in steady state, so a gain sets the
/// RMS directly.
struct Resonator {
  private var y1 = 0.0
  private var y2 = 0.0
  private let a1: Double
  private let a2: Double
  private let inputGain: Double

  init(frequencyHz: Double, q: Double, sampleRateHz: Double) {
    let w = 2 * Double.pi * frequencyHz / sampleRateHz
    let r = SimMath.exp(-w / (2 * q))
    a1 = 2 * r * SimMath.cos(w)
    a2 = -r * r
    // Steady-state variance of y for unit-variance white input (AR(2)).
    let variance = (1 - a2) / ((1 + a2) * ((1 - a2) * (1 - a2) - a1 * a1))
    inputGain = 1 / variance.squareRoot()
  }

  mutating func step(_ white: Double) -> Double {
    let y = a1 * y1 + a2 * y2 + inputGain * white
    y2 = y1
    y1 = y
    return y
  }
}

/// A rotation as a 3×3 matrix (rows: the rotated frame's axes in the parent frame).
struct Rotation: Sendable, Hashable {
  var m: [Double]  // row-major 3×3

  static let identity = Rotation(m: [1, 0, 0, 0, 1, 0, 0, 0, 1])

  /// A rotation by `angle` radians about the unit axis (x, y, z) (Rodrigues).
  static func axisAngle(_ x: Double, _ y: Double, _ z: Double, _ angle: Double) -> Rotation {
    let c = SimMath.cos(angle)
    let s = SimMath.sin(angle)
    let t = 1 - c
    return Rotation(m: [
      t * x * x + c, t * x * y - s * z, t * x * z + s * y,
      t * x * y + s * z, t * y * y + c, t * y * z - s * x,
      t * x * z - s * y, t * y * z + s * x, t * z * z + c,
    ])
  }

  /// A uniformly random rotation (Shoemake's quaternion method).
  static func random(_ noise: inout Gaussian) -> Rotation {
    let u1 = noise.uniform(0, 1)
    let u2 = noise.uniform(0, 2 * .pi)
    let u3 = noise.uniform(0, 2 * .pi)
    let a = (1 - u1).squareRoot()
    let b = u1.squareRoot()
    return quaternion(a * SimMath.sin(u2), a * SimMath.cos(u2), b * SimMath.sin(u3), b * SimMath.cos(u3))
  }

  static func quaternion(_ x: Double, _ y: Double, _ z: Double, _ w: Double) -> Rotation {
    Rotation(m: [
      1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ])
  }

  /// self · other.
  func then(_ other: Rotation) -> Rotation {
    var r = [Double](repeating: 0, count: 9)
    for i in 0..<3 {
      for j in 0..<3 {
        r[3 * i + j] = m[3 * i] * other.m[j] + m[3 * i + 1] * other.m[3 + j] + m[3 * i + 2] * other.m[6 + j]
      }
    }
    return Rotation(m: r)
  }

  /// The vector v (parent frame) expressed in the rotated frame: Rᵀ·v.
  @inline(__always)
  func intoFrame(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
    (
      m[0] * v.0 + m[3] * v.1 + m[6] * v.2,
      m[1] * v.0 + m[4] * v.1 + m[7] * v.2,
      m[2] * v.0 + m[5] * v.1 + m[8] * v.2
    )
  }
}
