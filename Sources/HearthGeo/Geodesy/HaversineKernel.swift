import _HearthShims

/// The arithmetic shared by every haversine entry point, so the scalar and the
/// batch forms give bit-identical results. Internal.
enum HaversineKernel {
  static let halfRadiansPerDegree = Double.pi / 360
  static let radiansPerDegree = Double.pi / 180

  /// cos φ for φ in [-90°, 90°], computed as sin(90° − |φ|): 90 − |φ| is
  /// exact for |φ| ≥ 45°, so the cosine keeps its relative accuracy all the
  /// way to the poles (where cos φ → 0). NaN for |φ| > 90° or NaN, which is
  /// how the distance kernels reject out-of-domain latitudes.
  @inline(__always)
  static func cosineOfLatitude(_ latitudeDegrees: Double) -> Double {
    let colatitude = 90 - abs(latitudeDegrees)
    return Polynomial.sine((colatitude >= 0 ? colatitude : .nan) * radiansPerDegree)
  }

  /// The haversine of the central angle, h = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2),
  /// with the cosines supplied by ``cosineOfLatitude(_:)`` (so track and
  /// one-to-many kernels can reuse them).
  ///
  /// The longitude difference is folded to [0°, 180°] exactly (Sterbenz), so
  /// no Cody–Waite split is needed. NaN when a cosine is NaN (latitude out of
  /// [-90°, 90°]), when |Δλ| > 540° or when any input is NaN.
  @inline(__always)
  static func haversine(
    latitude1: Double, longitude1: Double, cosine1: Double,
    latitude2: Double, longitude2: Double, cosine2: Double
  ) -> Double {
    let sLat = Polynomial.sine((latitude2 - latitude1) * halfRadiansPerDegree)
    let magnitude = abs(longitude2 - longitude1)
    let folded = magnitude > 180 ? 360 - magnitude : magnitude
    let sLon = Polynomial.sine(folded * halfRadiansPerDegree)
    let h = hearth_muladd(cosine1 * cosine2, sLon * sLon, sLat * sLat)
    return magnitude <= 540 ? h : .nan
  }

  /// Central angle (radians) 2·asin(√h) for h in [0, 1]; h slightly above 1
  /// from rounding gives π. One square root: with u = min(h, 1 − h),
  /// asin(√h) = √u·g(u) when h ≤ ½ and π/2 − √u·g(u) otherwise.
  @inline(__always)
  static func centralAngle(haversine h: Double) -> Double {
    let complement = 1 - h
    let smaller = h < complement ? h : complement
    let u = smaller < 0 ? 0 : smaller
    let p = hearth_sqrt(u) * Polynomial.arcsineOfRootOverRoot(u)
    let half = h > 0.5 ? (Double.pi / 2 - p) : p
    return 2 * half
  }

  /// Distances at least this long are recomputed by
  /// ``distanceNearAntipodeMeters(latitude1:longitude1:latitude2:longitude2:)``:
  /// πR − 200 m, i.e. 1 − h below about 2.5e-10, where h's rounding
  /// (≈ 1e-16 absolute) would cost more than 1e-9 of the distance.
  static let antipodalRefinementMeters = Double.pi * GreatCircle.earthMeanRadiusMeters - 200

  /// The distance between nearly antipodal points, well conditioned there.
  ///
  /// 1 − h is the haversine of π − θ, the distance from point 1 to point 2's
  /// antipode: sin²((φ₁+φ₂)/2) + cos φ₁ cos φ₂ cos²(Δλ/2), every term with full
  /// relative accuracy (cos(Δλ/2) is the sine of the exact (180° − |Δλ|)/2).
  /// Two more polynomial sines than the fast path; used for the few pairs
  /// within 200 m of antipodal.
  static func distanceNearAntipodeMeters(
    latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double
  ) -> Double {
    let sSum = Polynomial.sine((latitude1 + latitude2) * halfRadiansPerDegree)
    let magnitude = abs(longitude2 - longitude1)
    let folded = magnitude > 180 ? 360 - magnitude : magnitude
    let cLon = Polynomial.sine((180 - folded) * halfRadiansPerDegree)
    let cosines = cosineOfLatitude(latitude1) * cosineOfLatitude(latitude2)
    let complement = hearth_muladd(cosines, cLon * cLon, sSum * sSum)
    let p = hearth_sqrt(complement) * Polynomial.arcsineOfRootOverRoot(complement)
    return GreatCircle.earthMeanRadiusMeters * 2 * (Double.pi / 2 - p)
  }
}
