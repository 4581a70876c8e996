import Foundation
import Testing
import _HearthTestSupport

@testable import HearthSim

@Suite("Simulator math (libm-free for bit-identical traces)")
struct SimMathTests {
  @Test("sin, cos, exp, log and atan2 agree with glibc to a few ulp")
  func accuracy() {
    var worst = 0.0
    for k in 0..<20_000 {
      let x = -50 + 100 * Double(k) / 20_000
      worst = max(worst, abs(SimMath.sin(x) - sin(x)), abs(SimMath.cos(x) - cos(x)))
    }
    #expect(worst < 1e-14)
    for k in 1..<20_000 {
      let x = -700 + 1400 * Double(k) / 20_000
      #expect(ulpDistance(SimMath.exp(x), exp(x)) <= 4, "exp \(x)")
      let y = Double(k) * 0.37
      #expect(ulpDistance(SimMath.log(y), log(y)) <= 4, "log \(y)")
      let a = sin(Double(k))
      let b = cos(Double(k) * 1.3)
      #expect(abs(SimMath.atan2(a, b) - atan2(a, b)) < 1e-14, "atan2 \(a) \(b)")
    }
    #expect(SimMath.log(1) == 0 && SimMath.exp(0) == 1)
    // The axes and extreme ratios (a route straight north has x = 0).
    for (y, x) in [
      (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (1e300, 1e-300), (-1e-300, -1e300), (3, -4),
    ] {
      #expect(abs(SimMath.atan2(y, x) - atan2(y, x)) < 1e-15, "atan2 \(y) \(x)")
    }
  }
}
