// Comparing a great-circle distance with a threshold without computing the
// distance, where the comparison is clear.
//
// The engines that track a phone compare one distance a fix with a radius or a
// filter distance (the trip segmenter's dwell radius, thinning's filters). The
// exact distance takes four polynomial sines, a square root and an arcsine
// polynomial. For points less than 0.01 rad (≈ 64 km) apart in latitude and
// longitude, the haversine h = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2) lies in
// [ĥ (1 − m²/3), ĥ] with ĥ = (Δφ/2)² + cos φ₁ cos φ₂ (Δλ/2)² and m the larger
// half-difference (since y²(1 − y²/3) ≤ sin² y ≤ y²), and the distance is
// 2R asin(√h). With x = r / 2R, a threshold of r metres lies at h = sin² x ∈
// [x²(1 − x²/3), x²]. So:
//   ĥ < x² (1 − 10⁻⁴)            ⇒ the distance is below r by more than 3.9·10⁻⁵ of r;
//   ĥ (1 − 10⁻⁵) > x² (1 + 10⁻⁹) ⇒ it is above r by more than 8·10⁻⁷ of r,
// both far beyond the exact path's rounding (about 10⁻¹⁵ relative), as long as
// x²/3 stays well under 10⁻⁴ (r ≤ 100 km here). Anything else — the narrow band
// between the two, points farther apart, NaN, latitudes out of range, a
// threshold outside (10⁻⁶ m, 100 km) — computes the distance exactly, so every
// answer is the one `distanceMeters(…)` compared with the threshold gives.

import _HearthShims

extension GreatCircle {
  /// The separation of two points, measured once and compared with any number
  /// of thresholds; each comparison answers exactly as the same comparison of
  /// ``distanceMeters(latitude1Degrees:longitude1Degrees:latitude2Degrees:longitude2Degrees:)``
  /// would (same domain: NaN and out-of-range inputs compare as NaN does),
  /// usually without the distance's square root, arcsine and latitude sines.
  /// Internal: the tracking engines' distance tests.
  /// - Complexity: O(1): two polynomial sines to build; a comparison is a few
  ///   multiplications, or the exact distance within about 5·10⁻⁵ of the threshold.
  struct Separation {
    let latitude1Degrees: Double
    let longitude1Degrees: Double
    let latitude2Degrees: Double
    let longitude2Degrees: Double
    /// ĥ above; NaN when the points are not close enough for the bound (or an input is not a position).
    let flatHaversine: Double

    /// The largest |Δφ| and folded |Δλ| the bound is used for, radians.
    static let largestDifferenceRadians = 0.01
    /// The thresholds the shortcut is used for, metres (outside: exact).
    static let thresholdRangeMeters = 1e-6...100_000.0
    /// How far below x² the flat haversine must be to say "below": more
    /// than sin² x falls short of x² (x²/3 ≤ 2.1·10⁻⁵ at 100 km).
    static let belowMargin = 1e-4
    /// How far the flat haversine may overstate h, and so how far above x²
    /// it must be to say "above": more than m²/3 for half-differences m up
    /// to `largestDifferenceRadians` / 2 (8.3·10⁻⁶ at 0.01 rad: only 1.2×
    /// room, so a wider `largestDifferenceRadians` needs a wider margin;
    /// `GreatCircleSeparationTests.marginsCoverTheBounds` checks both).
    static let aboveMargin = 1e-5

    @inline(__always)
    init(
      latitude1Degrees: Double, longitude1Degrees: Double, latitude2Degrees: Double, longitude2Degrees: Double
    ) {
      self.latitude1Degrees = latitude1Degrees
      self.longitude1Degrees = longitude1Degrees
      self.latitude2Degrees = latitude2Degrees
      self.longitude2Degrees = longitude2Degrees
      let dLat = (latitude2Degrees - latitude1Degrees) * HaversineKernel.radiansPerDegree
      let magnitude = abs(longitude2Degrees - longitude1Degrees)
      let folded = (magnitude > 180 ? 360 - magnitude : magnitude) * HaversineKernel.radiansPerDegree
      // (Written so that NaN fails: the exact path then decides.)
      if abs(dLat) <= Self.largestDifferenceRadians && folded >= 0 && folded <= Self.largestDifferenceRadians
      {
        let cosines =
          HaversineKernel.cosineOfLatitude(latitude1Degrees)
          * HaversineKernel.cosineOfLatitude(latitude2Degrees)
        let halfLat = dLat / 2
        let halfLon = folded / 2
        flatHaversine = hearth_muladd(cosines, halfLon * halfLon, halfLat * halfLat)
      } else {
        flatHaversine = .nan
      }
    }

    @inline(__always)
    init(_ a: Coordinate, _ b: Coordinate) {
      self.init(
        latitude1Degrees: a.latitudeDegrees, longitude1Degrees: a.longitudeDegrees,
        latitude2Degrees: b.latitudeDegrees, longitude2Degrees: b.longitudeDegrees)
    }

    /// The exact distance, metres: ``GreatCircle/distanceMeters(from:to:)``.
    var meters: Double {
      GreatCircle.distanceMeters(
        latitude1Degrees: latitude1Degrees, longitude1Degrees: longitude1Degrees,
        latitude2Degrees: latitude2Degrees, longitude2Degrees: longitude2Degrees)
    }

    /// −1 when the distance is certainly below `thresholdMeters`, +1 when
    /// certainly above, 0 when only the exact distance can tell.
    @inline(__always)
    func side(of thresholdMeters: Double) -> Int {
      guard Self.thresholdRangeMeters.contains(thresholdMeters) else { return 0 }
      let x = thresholdMeters / (2 * GreatCircle.earthMeanRadiusMeters)
      let x2 = x * x
      if flatHaversine < x2 * (1 - Self.belowMargin) { return -1 }
      if flatHaversine * (1 - Self.aboveMargin) > x2 * (1 + 1e-9) { return 1 }
      return 0
    }

    /// distance ≤ `thresholdMeters`.
    @inline(__always)
    func isAtMost(_ thresholdMeters: Double) -> Bool {
      switch side(of: thresholdMeters) {
      case -1: true
      case 1: false
      default: meters <= thresholdMeters
      }
    }

    /// distance < `thresholdMeters`.
    @inline(__always)
    func isBelow(_ thresholdMeters: Double) -> Bool {
      switch side(of: thresholdMeters) {
      case -1: true
      case 1: false
      default: meters < thresholdMeters
      }
    }

    /// distance > `thresholdMeters`.
    @inline(__always)
    func isAbove(_ thresholdMeters: Double) -> Bool {
      switch side(of: thresholdMeters) {
      case -1: false
      case 1: true
      default: meters > thresholdMeters
      }
    }

    /// distance ≥ `thresholdMeters`.
    @inline(__always)
    func isAtLeast(_ thresholdMeters: Double) -> Bool {
      switch side(of: thresholdMeters) {
      case -1: false
      case 1: true
      default: meters >= thresholdMeters
      }
    }
  }
}
