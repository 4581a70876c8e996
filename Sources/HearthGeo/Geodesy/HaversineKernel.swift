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
}
