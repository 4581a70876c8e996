/// Normalising a platform's raw speed into "measured m/s" or "unmeasured"
/// (SPEC §1, *Unmeasured speed*).
public enum SpeedReading {
  /// Default for ``speedMetersPerSecond(raw:horizontalAccuracyMeters:zeroIsUnmeasuredBeyondAccuracyMeters:)``:
  /// a zero speed on a fix looser than this is not a real stop.
  public static let defaultZeroIsUnmeasuredBeyondAccuracyMeters = 30.0

  /// The measured speed a raw platform reading stands for, or `nil` when the
  /// phone did not measure one.
  ///
  /// - iOS reports −1 for "no speed": every negative reading is unmeasured.
  /// - Android reports 0 for a fix it never measured a speed for. A zero on a
  ///   fix looser than `zeroIsUnmeasuredBeyondAccuracyMeters` (accuracy
  ///   strictly greater, or unknown) is unmeasured; a zero on a sharper,
  ///   GPS-class fix is a real stop.
  /// - NaN and infinite readings are unmeasured.
  ///
  /// - Parameters:
  ///   - raw: the platform's speed, m/s.
  ///   - horizontalAccuracyMeters: the fix's accuracy radius, m (NaN = unknown).
  ///   - zeroIsUnmeasuredBeyondAccuracyMeters: the accuracy beyond which a zero
  ///     is unmeasured, m. Default 30.
  /// - Returns: speed in m/s (≥ 0), or `nil`. Exact (no arithmetic). O(1).
  public static func speedMetersPerSecond(
    raw: Double,
    horizontalAccuracyMeters: Double,
    zeroIsUnmeasuredBeyondAccuracyMeters: Double = defaultZeroIsUnmeasuredBeyondAccuracyMeters
  ) -> Double? {
    guard raw.isFinite, raw >= 0 else { return nil }
    if raw == 0 && !(horizontalAccuracyMeters <= zeroIsUnmeasuredBeyondAccuracyMeters) {
      return nil
    }
    return raw
  }

  /// A raw reading as a door stores it before validation: the measured
  /// speed or nil, as ``speedMetersPerSecond(raw:horizontalAccuracyMeters:zeroIsUnmeasuredBeyondAccuracyMeters:)``
  /// reads it, except that a reading the file readers refuse (above
  /// ``FixValidation/maximumSpeedMetersPerSecond``, or ±∞) is kept as it is,
  /// so that validation rejects the fix (`speedOutOfRange`) as a reader
  /// refuses its row, rather than taking it as unmeasured or as a speed.
  /// Exact. O(1).
  public static func storedSpeedMetersPerSecond(raw: Double, horizontalAccuracyMeters: Double) -> Double? {
    raw.isInfinite || raw > FixValidation.maximumSpeedMetersPerSecond
      ? raw : speedMetersPerSecond(raw: raw, horizontalAccuracyMeters: horizontalAccuracyMeters)
  }
}
