import HearthGeo
import HearthImpact
import HearthTrace

/// A phone's raw GPS fixes — time, the platform's speed, the fix's accuracy —
/// as the detector's fix samples (``ImpactBatch/fixes``: time and measured
/// speed, negative when unmeasured), by the rule every recording reader
/// applies when it reads a file (``SpeedReading``, SPEC §1 *Unmeasured
/// speed*).
///
/// The detector judges "moving before / at the jolt" and "stayed stopped"
/// from GPS only with a measured speed (SPEC §9). Android reports 0 for a
/// fix whose speed it never measured (a network or cell fix), so a door that
/// hands raw speeds over lets such a zero read as a real stop: a crash at
/// speed reads "not moving" and stays silent. Every door that receives raw
/// fixes with their accuracy (libhearth's `hearth_detector_feed_with_accuracy`,
/// and through it Python, Node and the JVM) converts them here.
///
/// Per fix, in this order:
/// 1. An accuracy that is not a reading — ±∞ or above
///    ``ReadingBounds/maximumAccuracyMeters`` (100 km), the bound a reader
///    rejects a row by — makes the fix not a reading either: its sample
///    carries an infinite speed, which the detector skips and counts
///    (``ImpactCounters/fixes``, `badValue`), as a reader rejects and counts
///    the row, and the rest of the batch goes on.
/// 2. An infinite speed is left as it is, for the detector's own bound to
///    skip and count (``SpeedReading`` would call it unmeasured).
/// 3. Otherwise ``SpeedReading`` decides, with a negative accuracy taken as
///    unknown (the readers' convention; iOS reports −1 for "no accuracy"):
///    a negative or NaN speed is unmeasured; a 0 on a fix looser than
///    `zeroIsUnmeasuredBeyondAccuracyMeters` (30 m by default) or of unknown
///    accuracy is unmeasured; a 0 on a sharper, GPS-class fix is a real stop;
///    any other speed is kept as given (one above the detector's
///    `maximumSpeedMetersPerSecond` is then skipped and counted there).
///    Unmeasured is handed over as −1, as ``FixColumns/speedSamples(originMilliseconds:)`` does.
///
/// A caller on Android: `Location.getAccuracy()` returns 0 when the fix has
/// no accuracy (`hasAccuracy()` false); pass NaN then, or a loose fix's 0
/// would read as a GPS-class stop.
public enum ImpactFixSpeeds {
  /// The speed handed to the detector for an unmeasured one, m/s.
  public static let unmeasuredMetersPerSecond = -1.0

  /// The detector's sample of one raw fix (the rule above).
  ///
  /// - Parameters:
  ///   - seconds: the fix's time, s on the sensors' clock (passed through;
  ///     the detector checks it).
  ///   - rawSpeedMetersPerSecond: the platform's speed, m/s (iOS −1 and
  ///     Android 0 included).
  ///   - horizontalAccuracyMeters: the fix's accuracy radius, m (NaN or
  ///     negative: unknown).
  ///   - zeroIsUnmeasuredBeyondAccuracyMeters: a 0 on a fix looser than
  ///     this (strictly), m, is unmeasured. Default 30.
  /// - Returns: the sample: speed ≥ 0 m/s (measured), −1 (unmeasured) or
  ///   +∞/−∞ (not a reading: the detector skips it). Exact. O(1).
  public static func sample(
    seconds: Double, rawSpeedMetersPerSecond: Double, horizontalAccuracyMeters: Double,
    zeroIsUnmeasuredBeyondAccuracyMeters: Double = SpeedReading.defaultZeroIsUnmeasuredBeyondAccuracyMeters
  ) -> Sample1 {
    Sample1(
      seconds,
      speedMetersPerSecond(
        raw: rawSpeedMetersPerSecond, horizontalAccuracyMeters: horizontalAccuracyMeters,
        zeroIsUnmeasuredBeyondAccuracyMeters: zeroIsUnmeasuredBeyondAccuracyMeters))
  }

  /// The detector's samples of fixes given as columns, index by index (the
  /// rule above). A door without an accuracy column for some fixes passes
  /// NaN for them (unknown: each of their zeros is then unmeasured), e.g.
  /// `repeatElement(.nan, count: n)`.
  ///
  /// - Parameters:
  ///   - seconds: fix times, s on the sensors' clock.
  ///   - rawSpeedsMetersPerSecond: the platform's speeds, m/s.
  ///   - horizontalAccuracyMeters: accuracy radii, m (NaN or negative: unknown).
  /// - Returns: one sample per fix, in the given order.
  /// - Precondition: the columns have the same count (a door checks its
  ///   arguments' lengths before it calls this).
  /// - Complexity: O(n).
  public static func samples<T: Collection<Double>, S: Collection<Double>, A: Collection<Double>>(
    seconds: T, rawSpeedsMetersPerSecond: S, horizontalAccuracyMeters: A,
    zeroIsUnmeasuredBeyondAccuracyMeters: Double = SpeedReading.defaultZeroIsUnmeasuredBeyondAccuracyMeters
  ) -> [Sample1] {
    precondition(
      seconds.count == rawSpeedsMetersPerSecond.count && seconds.count == horizontalAccuracyMeters.count,
      "ImpactFixSpeeds.samples: columns of different lengths")
    var out: [Sample1] = []
    out.reserveCapacity(seconds.count)
    var accuracies = horizontalAccuracyMeters.makeIterator()
    for (t, v) in zip(seconds, rawSpeedsMetersPerSecond) {
      out.append(
        sample(
          seconds: t, rawSpeedMetersPerSecond: v, horizontalAccuracyMeters: accuracies.next() ?? .nan,
          zeroIsUnmeasuredBeyondAccuracyMeters: zeroIsUnmeasuredBeyondAccuracyMeters))
    }
    return out
  }

  /// The speed of ``sample(seconds:rawSpeedMetersPerSecond:horizontalAccuracyMeters:zeroIsUnmeasuredBeyondAccuracyMeters:)``.
  static func speedMetersPerSecond(
    raw: Double, horizontalAccuracyMeters accuracy: Double, zeroIsUnmeasuredBeyondAccuracyMeters limit: Double
  ) -> Double {
    if accuracy == -.infinity || accuracy > ReadingBounds.maximumAccuracyMeters { return .infinity }
    if raw.isInfinite { return raw }
    let known = accuracy >= 0 ? accuracy : .nan
    return SpeedReading.speedMetersPerSecond(
      raw: raw, horizontalAccuracyMeters: known, zeroIsUnmeasuredBeyondAccuracyMeters: limit)
      ?? unmeasuredMetersPerSecond
  }
}
