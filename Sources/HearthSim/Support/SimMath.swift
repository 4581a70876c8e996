/// Elementary functions for the simulator built from IEEE add, multiply,
/// divide and square root only (no libm, no fused multiply-add), so that a
/// seed produces byte-identical traces on every platform, CPU and build.
/// Accuracy is a few ulp, far beyond what simulated sensor noise needs.
enum SimMath {
  static let pi = 3.141_592_653_589_793
  private static let ln2Hi = 6.931_471_803_691_238_164_90e-01
  private static let ln2Lo = 1.908_214_929_270_587_700_02e-10

  /// sin x for any finite x (Cody–Waite reduction by π/2, Taylor to x¹⁹ on [−π/4, π/4]).
  static func sin(_ x: Double) -> Double {
    let (r, quadrant) = reduce(x)
    switch quadrant & 3 {
    case 0: return sinKernel(r)
    case 1: return cosKernel(r)
    case 2: return -sinKernel(r)
    default: return -cosKernel(r)
    }
  }

  static func cos(_ x: Double) -> Double {
    let (r, quadrant) = reduce(x)
    switch quadrant & 3 {
    case 0: return cosKernel(r)
    case 1: return -sinKernel(r)
    case 2: return -cosKernel(r)
    default: return sinKernel(r)
    }
  }

  /// x − k·π/2 with k = round(x·2/π), in three parts (exact for |x| < 10⁵).
  private static func reduce(_ x: Double) -> (Double, Int) {
    let k = (x * 0.636_619_772_367_581_4).rounded()
    let r =
      ((x - k * 1.570_796_326_734_125_6) - k * 6.077_100_506_506_192_6e-11) - k * 2.022_266_248_795_950_7e-21
    return (r, Int(k))
  }

  private static func sinKernel(_ r: Double) -> Double {
    let r2 = r * r
    var term = r
    var sum = r
    var k = 2.0
    while k < 20 {
      term = term * (-r2 / (k * (k + 1)))
      sum = sum + term
      k += 2
    }
    return sum
  }

  private static func cosKernel(_ r: Double) -> Double {
    let r2 = r * r
    var term = 1.0
    var sum = 1.0
    var k = 1.0
    while k < 20 {
      term = term * (-r2 / (k * (k + 1)))
      sum = sum + term
      k += 2
    }
    return sum
  }

  /// eˣ (reduction by ln 2, Taylor on [−ln2/2, ln2/2]); 0 below −745, ∞ above 709.
  static func exp(_ x: Double) -> Double {
    if x > 709.7 { return .infinity }
    if x < -745 { return 0 }
    let k = (x * 1.442_695_040_888_963_4).rounded()
    let r = (x - k * ln2Hi) - k * ln2Lo
    var term = 1.0
    var sum = 1.0
    var n = 1.0
    while n < 18 {
      term = term * r / n
      sum = sum + term
      n += 1
    }
    return scale(sum, Int(k))
  }

  /// ln x for x > 0 (exponent split, then 2·atanh((m−1)/(m+1)) series).
  static func log(_ x: Double) -> Double {
    guard x > 0 else { return x == 0 ? -.infinity : .nan }
    guard x.isFinite else { return x }
    var e = Int(x.exponent)
    var m = x.significand  // [1, 2)
    if m > 1.414_213_562_373_095 {
      m = m / 2
      e += 1
    }
    let s = (m - 1) / (m + 1)
    let s2 = s * s
    var term = s
    var sum = s
    var k = 3.0
    while k < 40 {
      term = term * s2
      sum = sum + term / k
      k += 2
    }
    return 2 * sum + Double(e) * ln2Hi + Double(e) * ln2Lo
  }

  /// x·2ⁿ, exact.
  private static func scale(_ x: Double, _ n: Int) -> Double {
    Double(sign: .plus, exponent: n, significand: x)
  }

  static func atan2(_ y: Double, _ x: Double) -> Double {
    if x == 0 && y == 0 { return 0 }
    let (ax, ay) = (abs(x), abs(y))
    // Fold into the first octant so the ratio is in [0, 1] (no overflow, no ∞/∞).
    var angle = ay <= ax ? atanUnit(ay / ax) : pi / 2 - atanUnit(ax / ay)
    if x < 0 { angle = pi - angle }
    return y < 0 ? -angle : angle
  }

  /// atan t for t in [0, 1]: two halvings of the angle (t ≤ tan(π/16)),
  /// then the alternating series to w³⁹ (< 1e-27).
  private static func atanUnit(_ t: Double) -> Double {
    var w = t / (1 + (1 + t * t).squareRoot())
    w = w / (1 + (1 + w * w).squareRoot())
    let w2 = w * w
    var term = w
    var sum = w
    var k = 3.0
    while k < 40 {
      term = term * -w2
      sum = sum + term / k
      k += 2
    }
    return 4 * sum
  }

}
