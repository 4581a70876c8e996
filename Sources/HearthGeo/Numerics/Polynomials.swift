// Branch-free polynomial approximations used by the vector kernels.
//
// Goals, in priority order:
//   1. Relative accuracy within a few units in the last place over the whole
//      domain each kernel feeds them (no loss near the poles, at coincident
//      points or at tiny separations).
//   2. No branches and no library calls, so a plain loop over them
//      auto-vectorises at every SIMD width (SSE2 by default, AVX2 or AVX-512
//      with -target-cpu).
//   3. Speed.
//
// Coefficients: minimax fits with double-precision coefficients from
// Scripts/minimax.sollya (Sollya 8.0, fpminimax, relative error). The script
// prints the approximation error; docs/accuracy.md gives the measured total.

import _HearthShims

/// Polynomial kernels shared by the geodesy and grid code. Internal: callers
/// go through functions that state their domain, units and error bound.
///
/// Both polynomials are evaluated with Estrin's scheme rather than Horner's:
/// the same coefficients, but the terms are combined pairwise, so the longest
/// chain of dependent multiply-adds is about log₂ of the degree instead of
/// the degree. The vector loops that call these are bound by that chain's
/// latency, not by the number of operations (measured: Horner's form was
/// ~1.6× slower per haversine pair on AVX2).
enum Polynomial {
  /// sin(x) for x in [-π/2, π/2], as x + x³·P(x²) with P of degree 7.
  ///
  /// Approximation error ≤ 3e-19 relative (below double rounding); with
  /// evaluation rounding the result is within 2 ulp of glibc's correctly
  /// rounded sine on the domain (tested on 200 001 points, with and without
  /// FMA). Outside the domain the value is meaningless (not NaN); callers
  /// reduce their argument first. NaN in gives NaN out.
  @inline(__always)
  static func sine(_ x: Double) -> Double {
    let y = x * x
    let y2 = y * y
    let y4 = y2 * y2
    let p01 = hearth_muladd(0x1.11111111110c9p-7, y, -0x1.5555555555555p-3)
    let p23 = hearth_muladd(0x1.71de3a52aab96p-19, y, -0x1.a01a01a014eb6p-13)
    let p45 = hearth_muladd(0x1.6123ce513b09fp-33, y, -0x1.ae6454d960ac4p-26)
    let p67 = hearth_muladd(0x1.883c1c5deffbep-49, y, -0x1.ae43dc9bf8ba7p-41)
    let p03 = hearth_muladd(p23, y2, p01)
    let p47 = hearth_muladd(p67, y2, p45)
    let p = hearth_muladd(p47, y4, p03)
    return hearth_muladd(x * y, p, x)
  }

  /// asin(√u)/√u for u in [0, 1/2], a degree-18 polynomial in u with value
  /// exactly 1 at 0. Approximation error ≤ 1.7e-17 relative; within 2 ulp of
  /// glibc's asin(√u)/√u with evaluation rounding (tested).
  @inline(__always)
  static func arcsineOfRootOverRoot(_ u: Double) -> Double {
    let u2 = u * u
    let u4 = u2 * u2
    let u8 = u4 * u4
    let b0 = hearth_muladd(0x1.5555555555341p-3, u, 1.0)
    let b1 = hearth_muladd(0x1.6db6db34f6458p-5, u, 0x1.333333337c3fap-4)
    let b2 = hearth_muladd(0x1.6e88f4942936dp-6, u, 0x1.f1c732f518d71p-6)
    let b3 = hearth_muladd(0x1.c3bb6b36429a2p-7, u, 0x1.1c8488946bcdfp-6)
    let b4 = hearth_muladd(-0x1.f35f31d27b95p-9, u, 0x1.b5d62a09bad8ep-7)
    let b5 = hearth_muladd(-0x1.4a0d933624326p-2, u, 0x1.5c9482b696a3fp-4)
    let b6 = hearth_muladd(-0x1.54f99508f4be8p1, u, 0x1.15b45ab5bd683p0)
    let b7 = hearth_muladd(-0x1.a4bcd028780fp2, u, 0x1.3b8f8103310bdp2)
    let b8 = hearth_muladd(-0x1.b53756f17bacap1, u, 0x1.825b3445718f5p2)
    let b9 = 0x1.d70cdb0319ba3p-1
    let c0 = hearth_muladd(b1, u2, b0)
    let c1 = hearth_muladd(b3, u2, b2)
    let c2 = hearth_muladd(b5, u2, b4)
    let c3 = hearth_muladd(b7, u2, b6)
    let c4 = hearth_muladd(b9, u2, b8)
    let d0 = hearth_muladd(c1, u4, c0)
    let d1 = hearth_muladd(c3, u4, c2)
    let e = hearth_muladd(c4, u8, d1)
    return hearth_muladd(e, u8, d0)
  }
}
