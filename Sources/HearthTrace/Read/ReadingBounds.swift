import HearthGeo

/// The values a recording's rows can take. Anything outside is not a
/// reading (a sensor's "no value" marker, a unit mix-up, a corrupt file):
/// the row is rejected with its reason and counted, never kept.
///
/// Every bound is a named, documented choice (docs/guides/trace-formats.md):
///
/// | quantity | accepted | why this bound |
/// |---|---|---|
/// | sensor time | finite, \|t\| ≤ 10¹⁰ s | 317 years either side of the origin: room for seconds since the epoch or since boot, while ±2⁶³ and 1e400 (which overflow every conversion downstream) are out |
/// | fix time | 1900-01-01 … 2200-01-01 (ms since the epoch) | no fix is older than GPS or from the future; every difference of two fix times is then exact and far from Int64's range |
/// | acceleration (each axis) | finite, \|a\| ≤ 256 g | the widest range a phone accelerometer has (the iPhone 14's high-g sensor; most saturate at 16 g, SPEC §9) |
/// | angular rate (each axis) | finite, \|ω\| ≤ 4000 °/s ≈ 69.8 rad/s | the widest phone gyroscope range (most are ±2000 °/s); catches the −100 "no reading" marker, a 173 rad/s spin |
/// | pressure | 260 … 1260 hPa | the range of phone barometers (Bosch BMP, ST LPS22 families); 101 (kPa read as hPa) and 10 132 (hPa scaled as kPa) are out |
/// | relative altitude | \|h\| ≤ 100 km, or missing | |
/// | latitude, longitude | ±90°, ±180° | WGS84 |
/// | horizontal accuracy | 0 … 100 km; negative = not measured | a cell-tower fix is a few km |
/// | speed | 0 … 600 m/s; negative = not measured | faster than any airliner |
/// | heading | 0 … 360°; negative = not measured | |
/// | altitude | −2 km … 100 km | the Dead Sea is −430 m; a stratospheric balloon 40 km |
/// | battery level | 0 … 1, or missing | a fraction |
public enum ReadingBounds {
  /// Largest |t| of a sensor time, seconds from the trace's origin.
  public static let maximumSensorSeconds = 1e10
  /// Fix times accepted, ms since the epoch: [1900-01-01, 2200-01-01), the
  /// span ingest validation accepts (``FixValidation/plausibleMilliseconds``).
  public static let fixMilliseconds: Range<Int64> = FixValidation.plausibleMilliseconds
  /// Largest |a| on one axis, m/s² (256 g).
  public static let maximumAccelerationMetersPerSecondSquared = 256 * Quantity.standardGravity
  /// Largest |ω| on one axis, rad/s (4000 °/s).
  public static let maximumAngularRateRadiansPerSecond = 4000 * Double.pi / 180
  /// Pressures a phone barometer reports, hPa.
  public static let pressureHectopascals: ClosedRange<Double> = 260...1260
  /// Largest |relative altitude|, m.
  public static let maximumRelativeAltitudeMeters = 100_000.0
  // A fix's own fields take the bounds ingest validation applies
  // (FixValidation.rangeProblem), so a door taking columns refuses what a
  // reader refuses.
  /// Largest horizontal accuracy, m.
  public static let maximumAccuracyMeters = FixValidation.maximumAccuracyMeters
  /// Largest speed, m/s.
  public static let maximumSpeedMetersPerSecond = FixValidation.maximumSpeedMetersPerSecond
  /// Altitudes accepted, m.
  public static let altitudeMeters = FixValidation.altitudeMeters
  /// Battery levels accepted, a fraction.
  public static let batteryLevels = FixValidation.batteryLevels

  /// Whether `seconds` can be a sensor time.
  @inline(__always)
  static func isSensorTime(_ seconds: Double) -> Bool { abs(seconds) <= maximumSensorSeconds }

  /// The largest |value| per axis of a vector quantity, or nil for one that
  /// is not a vector this package stores.
  static func axisLimit(_ quantity: Quantity) -> Double {
    switch quantity {
    case .acceleration: maximumAccelerationMetersPerSecondSquared
    case .angularRate: maximumAngularRateRadiansPerSecond
    default: .infinity
    }
  }

  /// Why three components of `quantity` are not a reading, or nil. NaN is
  /// `missingValue`; ±∞ or beyond the axis limit `outOfRange`.
  @inline(__always)
  static func vectorProblem(_ x: Double, _ y: Double, _ z: Double, limit: Double) -> RowRejection.Reason? {
    if x.isNaN || y.isNaN || z.isNaN { return .missingValue }
    return abs(x) <= limit && abs(y) <= limit && abs(z) <= limit ? nil : .outOfRange
  }

  /// Why a pressure (hPa) and relative altitude (m, NaN = none) are not a reading.
  @inline(__always)
  static func pressureProblem(_ hectopascals: Double, altitude: Double) -> RowRejection.Reason? {
    if hectopascals.isNaN { return .missingValue }
    guard pressureHectopascals.contains(hectopascals) else { return .outOfRange }
    return altitude.isNaN || abs(altitude) <= maximumRelativeAltitudeMeters ? nil : .outOfRange
  }

  /// `ms` if it is an integral number of milliseconds in ``fixMilliseconds``.
  @inline(__always)
  static func fixTime(milliseconds ms: Double) -> Int64? {
    guard ms.isFinite, let value = Int64(exactly: ms.rounded()), fixMilliseconds.contains(value) else {
      return nil
    }
    return value
  }

  /// The fix time of a monotonic time: `origin` (ms since the epoch of its
  /// 0) + `seconds` × 1000, rounded to the millisecond; nil when `seconds`
  /// is not a sensor time or the sum is not in ``fixMilliseconds``. Exact:
  /// |seconds| ≤ 10¹⁰, so the product is far inside Int64.
  @inline(__always)
  static func fixTime(seconds: Double, from origin: Int64) -> Int64? {
    guard seconds.isFinite, isSensorTime(seconds), let offset = Int64(exactly: (seconds * 1000).rounded())
    else { return nil }
    let (sum, overflow) = origin.addingReportingOverflow(offset)
    return !overflow && fixMilliseconds.contains(sum) ? sum : nil
  }
}

/// A fix's fields as read, before the reader's conventions make them a
/// `Fix`; the checks every reader applies (``ReadingBounds``).
struct FixFields {
  var milliseconds: Int64
  var latitude: Double
  var longitude: Double
  /// m; negative or NaN: not measured.
  var accuracy: Double = .nan
  /// m/s as the source gave it (negative: not measured).
  var speed: Double = .nan
  /// degrees; negative or NaN: not measured.
  var heading: Double = .nan
  /// m; NaN: none.
  var altitude: Double = .nan

  /// A field of a fix a reader refuses it for.
  enum Field: String {
    case position, accuracy, speed, heading, altitude
  }

  /// Why the fix cannot be kept: the reason, the offending field and its
  /// value as read, with its unit ("accuracy 2000000.0 m"); nil when it can.
  func problem() -> (reason: RowRejection.Reason, field: Field, value: String)? {
    // The texts are made only for a fix refused (this runs for every fix read).
    if latitude.isNaN || longitude.isNaN {
      return (.missingValue, .position, "lat \(latitude), lon \(longitude)")
    }
    guard abs(latitude) <= 90, abs(longitude) <= 180 else {
      return (.outOfRange, .position, "lat \(latitude), lon \(longitude)")
    }
    if accuracy > ReadingBounds.maximumAccuracyMeters || accuracy == -.infinity {
      return (.outOfRange, .accuracy, "accuracy \(accuracy) m")
    }
    if speed > ReadingBounds.maximumSpeedMetersPerSecond || speed == -.infinity {
      return (.outOfRange, .speed, "speed \(speed) m/s")
    }
    if heading > FixValidation.headingDegrees.upperBound || heading == -.infinity {
      return (.outOfRange, .heading, "heading \(heading)°")
    }
    if !altitude.isNaN && !ReadingBounds.altitudeMeters.contains(altitude) {
      return (.outOfRange, .altitude, "altitude \(altitude) m")
    }
    return nil
  }

  /// Accuracy with "not measured" as NaN.
  var measuredAccuracy: Double { accuracy >= 0 ? accuracy : .nan }
  /// Heading with "not measured" as NaN.
  var measuredHeading: Double { FixValidation.heading(raw: heading) ?? .nan }
}
