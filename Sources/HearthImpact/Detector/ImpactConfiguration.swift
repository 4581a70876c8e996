/// Every threshold of the possible-impact detector (SPEC §9) in one value.
/// Defaults and their sources: docs/guides/impact-detector.md (numbers from
/// the impact-physics research notes D1–D11, some measured on real drives,
/// some estimates; the pressure step is the least certain).
public struct ImpactConfiguration: Sendable, Hashable, Codable {
  /// m/s² per g.
  public static let standardGravity = 9.80665

  // MARK: Features

  /// Time constant of the gravity estimate the jolt is measured against, s:
  /// slow enough that a 50–150 ms crash pulse barely moves it (at 0.32 s a
  /// 4.3 g, 120 ms pulse read as 3.6 g). Recommended 1–3 s.
  public var gravityTimeConstantSeconds = 2.0
  /// Time constant of the vibration high-pass, s: the band's lower edge is
  /// 1 / (2π · 0.32 s) ≈ 0.5 Hz (road vibration lies above it, braking and
  /// turning below). Recommended 0.2–0.5 s.
  public var vibrationTimeConstantSeconds = 0.32
  /// An axis reading at or beyond this is clipped (iOS saturates near 16 g), m/s².
  public var clipMetersPerSecondSquared = 15.5 * ImpactConfiguration.standardGravity

  // MARK: D1 jolt

  /// Peak dynamic acceleration (gravity removed) in one sample, m/s². 4 g;
  /// recommended 3.5–6 g (road events stay under 1.5 g, crashes exceed 5 g).
  public var joltMetersPerSecondSquared = 4.0 * ImpactConfiguration.standardGravity
  /// Jolts this soon after the first belong to the same impact (its peak);
  /// later ones within `verdictDeadlineSeconds` join the incident silently.
  public var joltPeakWindowSeconds = 1.0

  // MARK: D2–D5 moving before / stopped after, GPS

  /// A fix is current when it is at most this old at the jolt, s.
  public var currentFixAgeSeconds = 2.0
  /// Moving before: median speed over [t − 10 s, t − 2 s] ≥ 7 m/s and the
  /// last fix in [t − 2 s, t − 0.5 s] ≥ 3 m/s (a fix from the last half
  /// second may already show the crash's own loss of speed: a loose phone
  /// hits the dash a few tenths after the car's pulse).
  public var movingMedianMetersPerSecond = 7.0
  public var movingAtJoltMetersPerSecond = 3.0
  public var movingFromSeconds = -10.0
  public var movingToSeconds = -2.0
  public var movingAtJoltToSeconds = -0.5
  /// Stopped after: a fix ≤ 1.5 m/s within 5 s of the jolt, and every fix of
  /// the next 5 s (at least 3) ≤ 1.5 m/s.
  public var stoppedMetersPerSecond = 1.5
  public var restWithinSeconds = 5.0
  public var stayStoppedSeconds = 5.0
  public var stayStoppedMinimumFixes = 3

  // MARK: D4, D6 vibration (no current fix)

  /// Moving before: median of the 1-s vertical vibration RMS over
  /// [t − 10 s, t − 1 s] and over [t − 3 s, t − 0.5 s] ≥ 0.15 m/s².
  public var vibrationMovingMetersPerSecondSquared = 0.15
  /// Stopped after: the median of 5 one-second RMS values starting within
  /// [t + 1 s, t + 5 s] at most half the pre-jolt median.
  public var vibrationStoppedFraction = 0.5

  // MARK: D7, D8 corroboration

  /// Spin: peak |ω| ≥ 3.5 rad/s within [t − 0.2 s, t + 1 s].
  public var spinRadiansPerSecond = 3.5
  public var spinFromSeconds = -0.2
  public var spinToSeconds = 1.0
  /// Pressure: max over [t, t + 2 s] − median over [t − 5 s, t − 0.5 s] ≥ 2 hPa.
  public var pressureRiseHectopascals = 2.0
  public var pressureAfterSeconds = 2.0
  public var pressureBaselineFromSeconds = -5.0
  public var pressureBaselineToSeconds = -0.5

  // MARK: D11 free-fall veto

  /// |a| below 0.3 g for at least 0.12 s, ending at most 0.3 s before the
  /// jolt: the spin does not corroborate (pressure still does).
  public var freeFallMetersPerSecondSquared = 0.3 * ImpactConfiguration.standardGravity
  public var freeFallSeconds = 0.12
  public var freeFallEndsBeforeJoltSeconds = 0.3

  // MARK: D9, D10 verdict timing

  /// With nothing established, the verdict is "silent" once the data reach
  /// t + 10 s (plus `lateDataSeconds` for fixes, which arrive ~1 s late).
  public var verdictDeadlineSeconds = 10.0
  public var lateDataSeconds = 2.0
  /// After a reported impact, further jolts are suppressed this long, s.
  public var suppressionSeconds = 60.0

  public init() {}
}
