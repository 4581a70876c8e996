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
      let a = sin(Double(k)), b = cos(Double(k) * 1.3)
      #expect(abs(SimMath.atan2(a, b) - atan2(a, b)) < 1e-14, "atan2 \(a) \(b)")
    }
    #expect(SimMath.log(1) == 0 && SimMath.exp(0) == 1)
  }
}
