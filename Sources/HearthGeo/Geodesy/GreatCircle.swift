// Great-circle geometry on the IUGG mean-radius sphere.
//
// Algorithm: the haversine formula (R. W. Sinnott, "Virtues of the
// Haversine", Sky and Telescope 68(2), 1984), evaluated with our own minimax
// polynomials (see Numerics/Polynomials.swift) so that a plain loop
// vectorises; bearing and destination point from the spherical trigonometry
// in C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87 (2013), §2 on
// the sphere.
//
// Goals, in priority order:
//   1. Correct at the antimeridian, the poles, coincident and antipodal
//      points; NaN in gives NaN out, never a trap.
//   2. Relative accuracy near 1e-15 wherever the problem allows it (tests hold
//      it to 1 mm or 1e-9 against GeographicLib's GeodSolve on this sphere).
//   3. One arithmetic for the scalar and the batch forms (bit-identical).
//   4. Speed: branch-free kernels that auto-vectorise.
//
// Model error (sphere against the WGS84 ellipsoid) is up to 0.56 % and is
// documented in docs/accuracy.md, apart from the numerical error above.

import Foundation

/// Distances, bearings and destinations on a sphere of radius
/// ``earthMeanRadiusMeters``.
public enum GreatCircle {
  /// IUGG mean Earth radius R₁ = (2a + b)/3 for WGS84, metres.
  public static let earthMeanRadiusMeters = 6_371_008.8

  // MARK: One pair

  /// Great-circle distance between two points, metres.
  ///
  /// - Domain: latitudes in [-90°, 90°]; any longitudes whose difference is at
  ///   most 540° (so [-180°, 180°] and [0°, 360°] both work).
  /// - Returns: distance in [0, πR] metres; NaN if any input is NaN or out of
  ///   the domain.
  /// - Error: ≤ 1e-9 relative + 15 nm against GeodSolve over every edge
  ///   category (measured: docs/accuracy.md). Near the antipode, where the
  ///   haversine formula loses half its digits, results within 200 m of πR
  ///   are recomputed from 1 − h evaluated directly, so antipodal pairs keep
  ///   full accuracy. The sphere's model error is separate (docs/accuracy.md).
  /// - Complexity: O(1): four polynomial sines, one square root, one arcsine
  ///   polynomial (two more sines near the antipode). Bit-identical to the
  ///   batch forms.
  public static func distanceMeters(from a: Coordinate, to b: Coordinate) -> Double {
    distanceMeters(
      latitude1Degrees: a.latitudeDegrees, longitude1Degrees: a.longitudeDegrees,
      latitude2Degrees: b.latitudeDegrees, longitude2Degrees: b.longitudeDegrees)
  }

  /// Great-circle distance between two points given as degrees, metres.
  /// Same contract as ``distanceMeters(from:to:)``.
  @inline(__always)
  public static func distanceMeters(
    latitude1Degrees: Double, longitude1Degrees: Double,
    latitude2Degrees: Double, longitude2Degrees: Double
  ) -> Double {
    let fast = fastDistanceMeters(
      latitude1Degrees: latitude1Degrees, longitude1Degrees: longitude1Degrees,
      latitude2Degrees: latitude2Degrees, longitude2Degrees: longitude2Degrees)
    guard fast >= HaversineKernel.antipodalRefinementMeters else { return fast }
    return HaversineKernel.distanceNearAntipodeMeters(
      latitude1: latitude1Degrees, longitude1: longitude1Degrees,
      latitude2: latitude2Degrees, longitude2: longitude2Degrees)
  }

  /// The haversine distance without the near-antipode refinement: the body of
  /// every vector loop. Callers refine results at or beyond
  /// `HaversineKernel.antipodalRefinementMeters` afterwards.
  @inline(__always)
  static func fastDistanceMeters(
    latitude1Degrees: Double, longitude1Degrees: Double,
    latitude2Degrees: Double, longitude2Degrees: Double
  ) -> Double {
    let h = HaversineKernel.haversine(
      latitude1: latitude1Degrees, longitude1: longitude1Degrees,
      cosine1: HaversineKernel.cosineOfLatitude(latitude1Degrees),
      latitude2: latitude2Degrees, longitude2: longitude2Degrees,
      cosine2: HaversineKernel.cosineOfLatitude(latitude2Degrees))
    return earthMeanRadiusMeters * HaversineKernel.centralAngle(haversine: h)
  }

  /// Initial bearing (forward azimuth) of the great circle from `a` to `b`,
  /// degrees clockwise from true north, in [0°, 360°).
  ///
  /// - Conventions: coincident points give 0°. From a pole the bearing is the
  ///   limit along the meridian of the starting longitude (so from the north
  ///   pole every bearing is 180°, from the south pole 0°). Exactly antipodal
  ///   points have no unique great circle; the result is the bearing towards
  ///   the destination's longitude.
  /// - Error: ≤ 1e-9° away from the pole, coincident and antipodal cases
  ///   (glibc's atan2, sin and cos; tested against GeodSolve).
  /// - Complexity: O(1), six libm calls. NaN in gives NaN out.
  public static func initialBearingDegrees(from a: Coordinate, to b: Coordinate) -> Double {
    let deltaLambda =
      reducedLongitudeDifferenceDegrees(b.longitudeDegrees - a.longitudeDegrees)
      * HaversineKernel.radiansPerDegree
    if a.latitudeDegrees == b.latitudeDegrees && deltaLambda == 0 { return 0 }
    let phi1 = a.latitudeDegrees * HaversineKernel.radiansPerDegree
    let cosPhi2 = HaversineKernel.cosineOfLatitude(b.latitudeDegrees)
    let y = sin(deltaLambda) * cosPhi2
    // cos φ₁ sin φ₂ − sin φ₁ cos φ₂ cos Δλ, rewritten without cancellation for
    // close points: sin(φ₂ − φ₁) + 2 sin φ₁ cos φ₂ sin²(Δλ/2).
    let halfSine = sin(deltaLambda / 2)
    let deltaPhi = (b.latitudeDegrees - a.latitudeDegrees) * HaversineKernel.radiansPerDegree
    let x = sin(deltaPhi) + 2 * sin(phi1) * cosPhi2 * halfSine * halfSine
    return normalisedDegrees(atan2(y, x) / HaversineKernel.radiansPerDegree)
  }

  /// The point reached by travelling `distanceMeters` along the great circle
  /// that leaves `start` at `initialBearingDegrees`.
  ///
  /// - Domain: any finite bearing (degrees clockwise from north) and distance
  ///   (metres; negative travels backwards).
  /// - Returns: latitude in [-90°, 90°], longitude normalised to [-180°, 180°).
  ///   At a pole the longitude is that of the meridian travelled.
  /// - Error: ≤ 1e-9° in latitude and longitude (tested against GeodSolve's
  ///   direct problem on the same sphere).
  /// - Complexity: O(1), eight libm calls. NaN in gives NaN out.
  public static func destination(
    from start: Coordinate, initialBearingDegrees: Double, distanceMeters: Double
  ) -> Coordinate {
    let sigma = distanceMeters / earthMeanRadiusMeters
    let alpha = initialBearingDegrees * HaversineKernel.radiansPerDegree
    let phi1 = start.latitudeDegrees * HaversineKernel.radiansPerDegree
    let sinPhi1 = sin(phi1)
    let cosPhi1 = HaversineKernel.cosineOfLatitude(start.latitudeDegrees)
    let sinSigma = sin(sigma)
    let cosSigma = cos(sigma)
    let cosAlpha = cos(alpha)
    let sinPhi2 = sinPhi1 * cosSigma + cosPhi1 * sinSigma * cosAlpha
    // cos φ₂·sin Δλ and cos φ₂·cos Δλ, free of a cos φ₁ factor so that a start
    // at a pole still yields the meridian travelled (Δλ = 180° − α there).
    let east = sin(alpha) * sinSigma
    let north = cosSigma * cosPhi1 - sinPhi1 * sinSigma * cosAlpha
    let phi2 = atan2(sinPhi2, hypot(east, north))
    let lambda2 = start.longitudeDegrees + atan2(east, north) / HaversineKernel.radiansPerDegree
    return Coordinate(
      latitudeDegrees: phi2 / HaversineKernel.radiansPerDegree,
      longitudeDegrees: reducedLongitudeDifferenceDegrees(lambda2))
  }

  /// Reduces a longitude (or a difference of longitudes) to [-180°, 180°).
  /// Exact for finite input (`remainder` is exact). NaN for non-finite input.
  public static func reducedLongitudeDifferenceDegrees(_ degrees: Double) -> Double {
    let r = remainder(degrees, 360)
    return r == 180 ? -180 : r
  }

  private static func normalisedDegrees(_ degrees: Double) -> Double {
    let r = fmod(degrees, 360)
    let positive = r < 0 ? r + 360 : r
    return positive >= 360 ? 0 : positive
  }
}
