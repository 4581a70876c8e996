import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

@Suite("Polynomial kernels")
struct PolynomialsTests {
  @Test("sine is within 2 ulp of glibc's over [-π/2, π/2], exact at 0, odd")
  func sine() {
    var worst = 0.0
    let n = 200_000
    for k in 0...n {
      let x = -Double.pi / 2 + Double.pi * Double(k) / Double(n)
      let ours = Polynomial.sine(x)
      worst = max(worst, ulpDistance(ours, sin(x)))
      #expect(Polynomial.sine(-x) == -ours)
    }
    #expect(worst <= 2, "worst \(worst) ulp")
    #expect(Polynomial.sine(0) == 0)
    #expect(Polynomial.sine(1e-300) == 1e-300)
    #expect(Polynomial.sine(.nan).isNaN)
  }

  @Test("asin(√u)/√u polynomial is within 2 ulp of glibc's over [0, 1/2]")
  func arcsine() {
    var worst = 0.0
    let n = 200_000
    for k in 1...n {
      let u = 0.5 * Double(k) / Double(n)
      let expected = asin(u.squareRoot()) / u.squareRoot()
      worst = max(worst, ulpDistance(Polynomial.arcsineOfRootOverRoot(u), expected))
    }
    #expect(worst <= 2, "worst \(worst) ulp")
    #expect(Polynomial.arcsineOfRootOverRoot(0) == 1)
  }
}
