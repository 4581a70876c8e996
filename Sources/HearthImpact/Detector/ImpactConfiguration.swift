/// Every window, threshold and input bound of the possible-impact detector
/// (SPEC §9) in one value.
///
/// Defaults and their sources: docs/guides/impact-detector.md (numbers from
/// the impact-physics research notes D1–D11, some measured on real drives,
/// some estimates; the pressure step is the least certain). Times written
/// `…FromSeconds` / `…ToSeconds` are offsets from the jolt `t` (negative:
/// before it); windows are closed, [t + from, t + to].
///
/// Codable as the researchers' JSON configuration: the keys are the property
/// names (units in the names), every key is optional (a missing key takes
/// its default), an unknown key is an error (a misspelt key would otherwise
/// silently run the default), and decoding checks every value against the
/// domain given in ``problems`` (a configuration that decodes is one the
/// detector accepts, with memory bounded by ``ringCapacities``).
public struct ImpactConfiguration: Sendable, Hashable {
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
  /// Length of one vibration RMS bin, s (D4/D6: "1-s vertical RMS"). Bins
  /// are [k · L, (k + 1) · L) on the sample clock; 50 samples at 50 Hz give
  /// a stable RMS and still show the car stopping within 5 s.
  public var vibrationBinSeconds = 1.0
  /// An axis reading at or beyond this is clipped (iOS saturates near 16 g), m/s².
  public var clipMetersPerSecondSquared = 15.5 * ImpactConfiguration.standardGravity

  // MARK: D1 jolt

  /// Peak dynamic acceleration (gravity removed) in one sample, m/s². 4 g;
  /// recommended 3.5–6 g (road events stay under 1.5 g, crashes exceed 5 g).
  public var joltMetersPerSecondSquared = 4.0 * ImpactConfiguration.standardGravity
  /// Jolt samples at most this long after a jolt that opened an incident
  /// belong to it (its peak), s; a later one opens an incident of its own,
  /// judged on its own windows. 0.5 s holds a crash pulse (50–150 ms) and a
  /// loose phone striking the cabin a few tenths after the car's pulse, and
  /// keeps a collision 1 s after a phone's fall into the footwell apart.
  public var joltPeakWindowSeconds = 0.5
  /// A jolt at most this long after the previous one (and within
  /// `verdictDeadlineSeconds` of the first) continues its incident: a
  /// rollover's impacts come every 0.5–1 s, a crash's secondary blows within
  /// a second. The car's motion (moving before, stopped after: one fact) is
  /// then read from the incident's first jolt, while each jolt's spin,
  /// pressure and free fall are its own. A jolt further off starts an
  /// incident of its own, judged on its own windows.
  public var joltChainSeconds = 1.0

  // MARK: D2, D3, D5 moving before / stopped after, GPS

  /// A fix is current when it is at most this old at the jolt, s (D2).
  public var currentFixAgeSeconds = 2.0
  /// Moving before (D3): median speed over [t − 10 s, t − 2 s] ≥ 7 m/s…
  public var movingMedianMetersPerSecond = 7.0
  public var movingFromSeconds = -10.0
  public var movingToSeconds = -2.0
  /// …and the last fix in [t − `currentFixAgeSeconds`, t − 0.5 s] ≥ 3 m/s (a
  /// fix from the last half second may already show the crash's own loss of
  /// speed: a loose phone hits the dash a few tenths after the car's pulse).
  public var movingAtJoltMetersPerSecond = 3.0
  public var movingAtJoltToSeconds = -0.5
  /// Stopped after (D5): the first fix ≤ 1.5 m/s within 5 s after the jolt
  /// (the rest), then every fix of the next 5 s (at least 3) ≤ 1.5 m/s.
  /// GPS decides only on evidence: without a fix after the jolt, with a rest
  /// but fewer than 3 fixes after it (none faster), or with no rest and no
  /// current fix at t + 5 s, the vibration rule (D6) decides instead.
  public var stoppedMetersPerSecond = 1.5
  public var restWithinSeconds = 5.0
  public var stayStoppedSeconds = 5.0
  public var stayStoppedMinimumFixes = 3

  // MARK: D4, D6 vibration (no current fix, or GPS without evidence after the jolt)

  /// Moving before (D4): the median 1-s vertical RMS over [t − 10 s, t − 1 s]
  /// and over [t − 3 s, t − 0.5 s] (whole bins) ≥ 0.15 m/s² (an idling car
  /// measured 0.037 p50 / 0.068 p90, a moving one 0.19 p10).
  public var vibrationMovingMetersPerSecondSquared = 0.15
  public var vibrationMovingFromSeconds = -10.0
  public var vibrationMovingToSeconds = -1.0
  public var vibrationMovingAtJoltFromSeconds = -3.0
  public var vibrationMovingAtJoltToSeconds = -0.5
  /// Stopped after (D6): the median of a 5-s window of bins, starting on a
  /// bin within [t + 1 s, t + 5 s], at most half the pre-jolt median (the
  /// [t − 10 s, t − 1 s] one). A window missing a bin (a gap) is skipped.
  public var vibrationStoppedFraction = 0.5
  public var vibrationStopEarliestStartSeconds = 1.0
  public var vibrationStopLatestStartSeconds = 5.0
  public var vibrationStopWindowSeconds = 5.0

  // MARK: D7, D8 corroboration

  /// Spin (D7): peak |ω| ≥ 3.5 rad/s within [t − 0.2 s, t + 1 s].
  public var spinRadiansPerSecond = 3.5
  public var spinFromSeconds = -0.2
  public var spinToSeconds = 1.0
  /// Pressure (D8): max over [t, t + 2 s] − median over [t − 5 s, t − 0.5 s] ≥ 2 hPa.
  public var pressureRiseHectopascals = 2.0
  public var pressureAfterSeconds = 2.0
  public var pressureBaselineFromSeconds = -5.0
  public var pressureBaselineToSeconds = -0.5

  // MARK: D11 free-fall veto

  /// |a| below 0.3 g for at least 0.12 s, the run ending (at the first sample
  /// above) at most 0.3 s before the jolt: the spin does not corroborate
  /// (pressure still does). The longest such run is measured.
  public var freeFallMetersPerSecondSquared = 0.3 * ImpactConfiguration.standardGravity
  public var freeFallSeconds = 0.12
  public var freeFallEndsBeforeJoltSeconds = 0.3

  // MARK: D9, D10 verdict timing

  /// Every window after the jolt ends by t + 10 s (D9); the verdict is
  /// reached once the data reach the end of the windows it reads, at the
  /// latest t + 10 s + `lateDataSeconds`. A stream is complete up to a time
  /// once it has a sample at or after it, or any stream is `lateDataSeconds`
  /// past it (fixes arrive about 1 s late).
  public var verdictDeadlineSeconds = 10.0
  public var lateDataSeconds = 2.0
  /// After a reported impact, jolts this soon after it are suppressed, s (D10).
  public var suppressionSeconds = 60.0

  // MARK: Input bounds (a sample beyond them is rejected and counted)

  /// Sample times beyond ± this are bad (about 317 years: any epoch or
  /// uptime clock in seconds fits; epoch milliseconds read as seconds do not).
  public var maximumAbsoluteTimeSeconds = 1e10
  /// Per axis. Phone accelerometers report up to ±16 g (iOS) or ±32 g;
  /// beyond 64 g a reading is a glitch, never a measurement.
  public var maximumAccelerationMetersPerSecondSquared = 64 * ImpactConfiguration.standardGravity
  /// Per axis. Phone gyroscopes range ±2000 °/s (34.9 rad/s), a few ±4000 °/s;
  /// beyond 4000 °/s (69.8 rad/s) is a marker (a "no reading" −100) or a glitch.
  public var maximumRotationRadiansPerSecond = 4000 * Double.pi / 180
  /// Phone barometers range 260–1260 hPa at the widest (a cabin airbag adds
  /// at most tens of hPa); a reading outside is a glitch or another unit (kPa).
  public var minimumPressureHectopascals = 260.0
  public var maximumPressureHectopascals = 1260.0
  /// GNSS receivers stop reporting above 1 000 knots (≈ 515 m/s, the COCOM
  /// limit); NaN or a negative speed is "unmeasured", not an error.
  public var maximumSpeedMetersPerSecond = 515.0

  // MARK: Rates the windows are kept for

  /// The detector keeps each stream's samples for as long as its windows
  /// need them (``ringCapacities``) at up to these rates, Hz: Android
  /// gyroscopes reach 400–500 Hz, barometers tens of Hz, GNSS 10–25 Hz. A
  /// faster stream loses the oldest samples of a window; the verdict says so
  /// and `ImpactCounters.truncatedWindows` counts it.
  public var supportedGyroscopeHertz = 500.0
  public var supportedBarometerHertz = 50.0
  public var supportedFixHertz = 25.0

  public init() {}
}

extension ImpactConfiguration {
  /// How often, in data time, a pending verdict is looked at again inside a
  /// long batch, s (not a rule: it only bounds how late past its data a
  /// verdict comes).
  static let checkIntervalSeconds = 0.25

  /// Entries kept per stream: samples at the supported rate over the longest
  /// look-back, the deadline, late data and one check interval (plus a
  /// second of slack). O(1) in the data; at most a few hundred thousand for
  /// any configuration that validates.
  public var ringCapacities: (gyroscope: Int, barometer: Int, fixes: Int, vibrationBins: Int) {
    let ahead = verdictDeadlineSeconds + lateDataSeconds + Self.checkIntervalSeconds + 1
    let incident = verdictDeadlineSeconds  // motion windows are read from the incident's first jolt
    func count(_ hertz: Double, _ lookBack: Double) -> Int {
      Int((hertz * (max(0, lookBack) + ahead)).rounded(.up)) + 4
    }
    return (
      count(supportedGyroscopeHertz, -spinFromSeconds),
      count(supportedBarometerHertz, -pressureBaselineFromSeconds),
      count(supportedFixHertz, incident + max(-movingFromSeconds, currentFixAgeSeconds)),
      count(1 / vibrationBinSeconds, incident + max(-vibrationMovingFromSeconds, -vibrationMovingAtJoltFromSeconds))
    )
  }

  /// Bins in one vibration stop window: round(window / bin), at least 1.
  var vibrationStopBinCount: Int { max(1, Int((vibrationStopWindowSeconds / vibrationBinSeconds).rounded())) }

  /// What is wrong with this configuration, one line per value (empty: valid).
  /// Domains: every value finite; time constants in (0, 60] s; the bin in
  /// [0.05, 10] s; thresholds ≥ 0 (the jolt and the input bounds > 0); the
  /// peak window in [0.05, 5] s; windows with from ≤ to and offsets within
  /// ±60 s; every window after the jolt ending by the deadline; the deadline
  /// in (0, 60] s; late data in [0, 30] s; at most 1 000 fixes to stay
  /// stopped; supported rates in (0, 2 000] Hz. O(1).
  public var problems: [String] {
    var out: [String] = []
    let values: [(String, Double)] = [
      ("gravityTimeConstantSeconds", gravityTimeConstantSeconds),
      ("vibrationTimeConstantSeconds", vibrationTimeConstantSeconds),
      ("vibrationBinSeconds", vibrationBinSeconds), ("clipMetersPerSecondSquared", clipMetersPerSecondSquared),
      ("joltMetersPerSecondSquared", joltMetersPerSecondSquared), ("joltPeakWindowSeconds", joltPeakWindowSeconds),
      ("joltChainSeconds", joltChainSeconds), ("currentFixAgeSeconds", currentFixAgeSeconds), ("movingMedianMetersPerSecond", movingMedianMetersPerSecond),
      ("movingFromSeconds", movingFromSeconds), ("movingToSeconds", movingToSeconds),
      ("movingAtJoltMetersPerSecond", movingAtJoltMetersPerSecond), ("movingAtJoltToSeconds", movingAtJoltToSeconds),
      ("stoppedMetersPerSecond", stoppedMetersPerSecond), ("restWithinSeconds", restWithinSeconds),
      ("stayStoppedSeconds", stayStoppedSeconds),
      ("vibrationMovingMetersPerSecondSquared", vibrationMovingMetersPerSecondSquared),
      ("vibrationMovingFromSeconds", vibrationMovingFromSeconds),
      ("vibrationMovingToSeconds", vibrationMovingToSeconds),
      ("vibrationMovingAtJoltFromSeconds", vibrationMovingAtJoltFromSeconds),
      ("vibrationMovingAtJoltToSeconds", vibrationMovingAtJoltToSeconds),
      ("vibrationStoppedFraction", vibrationStoppedFraction),
      ("vibrationStopEarliestStartSeconds", vibrationStopEarliestStartSeconds),
      ("vibrationStopLatestStartSeconds", vibrationStopLatestStartSeconds),
      ("vibrationStopWindowSeconds", vibrationStopWindowSeconds),
      ("spinRadiansPerSecond", spinRadiansPerSecond), ("spinFromSeconds", spinFromSeconds),
      ("spinToSeconds", spinToSeconds), ("pressureRiseHectopascals", pressureRiseHectopascals),
      ("pressureAfterSeconds", pressureAfterSeconds), ("pressureBaselineFromSeconds", pressureBaselineFromSeconds),
      ("pressureBaselineToSeconds", pressureBaselineToSeconds),
      ("freeFallMetersPerSecondSquared", freeFallMetersPerSecondSquared), ("freeFallSeconds", freeFallSeconds),
      ("freeFallEndsBeforeJoltSeconds", freeFallEndsBeforeJoltSeconds),
      ("verdictDeadlineSeconds", verdictDeadlineSeconds), ("lateDataSeconds", lateDataSeconds),
      ("suppressionSeconds", suppressionSeconds), ("maximumAbsoluteTimeSeconds", maximumAbsoluteTimeSeconds),
      ("maximumAccelerationMetersPerSecondSquared", maximumAccelerationMetersPerSecondSquared),
      ("maximumRotationRadiansPerSecond", maximumRotationRadiansPerSecond),
      ("minimumPressureHectopascals", minimumPressureHectopascals),
      ("maximumPressureHectopascals", maximumPressureHectopascals),
      ("maximumSpeedMetersPerSecond", maximumSpeedMetersPerSecond),
      ("supportedGyroscopeHertz", supportedGyroscopeHertz), ("supportedBarometerHertz", supportedBarometerHertz),
      ("supportedFixHertz", supportedFixHertz),
    ]
    for (name, value) in values where !value.isFinite { out.append("\(name): \(value) is not finite") }
    guard out.isEmpty else { return out }
    func check(_ ok: Bool, _ why: @autoclosure () -> String) { if !ok { out.append(why()) } }
    for (name, value) in [
      ("gravityTimeConstantSeconds", gravityTimeConstantSeconds),
      ("vibrationTimeConstantSeconds", vibrationTimeConstantSeconds),
    ] {
      check(value > 0 && value <= 60, "\(name): \(value) s is outside (0, 60] s")
    }
    check(
      vibrationBinSeconds >= 0.05 && vibrationBinSeconds <= 10,
      "vibrationBinSeconds: \(vibrationBinSeconds) s is outside [0.05, 10] s")
    check(
      joltPeakWindowSeconds >= 0.05 && joltPeakWindowSeconds <= 5,
      "joltPeakWindowSeconds: \(joltPeakWindowSeconds) s is outside [0.05, 5] s")
    check(
      joltChainSeconds >= 0 && joltChainSeconds <= 10,
      "joltChainSeconds: \(joltChainSeconds) s is outside [0, 10] s")
    for (name, value) in [
      ("joltMetersPerSecondSquared", joltMetersPerSecondSquared),
      ("maximumAbsoluteTimeSeconds", maximumAbsoluteTimeSeconds),
      ("maximumAccelerationMetersPerSecondSquared", maximumAccelerationMetersPerSecondSquared),
      ("maximumRotationRadiansPerSecond", maximumRotationRadiansPerSecond),
      ("maximumSpeedMetersPerSecond", maximumSpeedMetersPerSecond),
      ("clipMetersPerSecondSquared", clipMetersPerSecondSquared),
    ] {
      check(value > 0, "\(name): \(value) must be above 0")
    }
    for (name, value) in [
      ("movingMedianMetersPerSecond", movingMedianMetersPerSecond),
      ("movingAtJoltMetersPerSecond", movingAtJoltMetersPerSecond),
      ("stoppedMetersPerSecond", stoppedMetersPerSecond),
      ("vibrationMovingMetersPerSecondSquared", vibrationMovingMetersPerSecondSquared),
      ("vibrationStoppedFraction", vibrationStoppedFraction), ("spinRadiansPerSecond", spinRadiansPerSecond),
      ("pressureRiseHectopascals", pressureRiseHectopascals),
      ("freeFallMetersPerSecondSquared", freeFallMetersPerSecondSquared), ("freeFallSeconds", freeFallSeconds),
      ("suppressionSeconds", suppressionSeconds), ("currentFixAgeSeconds", currentFixAgeSeconds),
      ("freeFallEndsBeforeJoltSeconds", freeFallEndsBeforeJoltSeconds),
    ] {
      check(value >= 0, "\(name): \(value) must not be negative")
    }
    check(
      minimumPressureHectopascals < maximumPressureHectopascals,
      "minimumPressureHectopascals: \(minimumPressureHectopascals) hPa must be below maximumPressureHectopascals (\(maximumPressureHectopascals) hPa)"
    )
    check(
      verdictDeadlineSeconds > 0 && verdictDeadlineSeconds <= 60,
      "verdictDeadlineSeconds: \(verdictDeadlineSeconds) s is outside (0, 60] s")
    check(lateDataSeconds >= 0 && lateDataSeconds <= 30, "lateDataSeconds: \(lateDataSeconds) s is outside [0, 30] s")
    check(
      stayStoppedMinimumFixes >= 0 && stayStoppedMinimumFixes <= 1_000,
      "stayStoppedMinimumFixes: \(stayStoppedMinimumFixes) is outside [0, 1000]")
    let windows: [(String, Double, Double)] = [
      ("moving (GPS)", movingFromSeconds, movingToSeconds),
      ("moving at the jolt (GPS)", -currentFixAgeSeconds, movingAtJoltToSeconds),
      ("moving (vibration)", vibrationMovingFromSeconds, vibrationMovingToSeconds),
      ("moving at the jolt (vibration)", vibrationMovingAtJoltFromSeconds, vibrationMovingAtJoltToSeconds),
      ("vibration stop start", vibrationStopEarliestStartSeconds, vibrationStopLatestStartSeconds),
      ("spin", spinFromSeconds, spinToSeconds),
      ("pressure baseline", pressureBaselineFromSeconds, pressureBaselineToSeconds),
    ]
    for (name, from, to) in windows {
      check(from <= to, "\(name) window: from \(from) s is after to \(to) s")
      check(abs(from) <= 60 && abs(to) <= 60, "\(name) window: [\(from), \(to)] s reaches beyond ±60 s")
    }
    let after: [(String, Double)] = [
      ("joltPeakWindowSeconds", joltPeakWindowSeconds), ("spinToSeconds", spinToSeconds),
      ("pressureAfterSeconds", pressureAfterSeconds),
      ("restWithinSeconds + stayStoppedSeconds", restWithinSeconds + stayStoppedSeconds),
      (
        "vibrationStopLatestStartSeconds + vibrationStopWindowSeconds",
        vibrationStopLatestStartSeconds + vibrationStopWindowSeconds
      ),
    ]
    for (name, end) in after {
      check(end <= verdictDeadlineSeconds, "\(name): \(end) s ends after the deadline (\(verdictDeadlineSeconds) s)")
    }
    check(
      pressureAfterSeconds >= 0 && restWithinSeconds >= 0 && stayStoppedSeconds >= 0
        && vibrationStopWindowSeconds > 0,
      "the windows after the jolt must have non-negative lengths (the vibration stop window a positive one)")
    for (name, value) in [
      ("supportedGyroscopeHertz", supportedGyroscopeHertz), ("supportedBarometerHertz", supportedBarometerHertz),
      ("supportedFixHertz", supportedFixHertz),
    ] {
      check(value > 0 && value <= 2_000, "\(name): \(value) Hz is outside (0, 2000] Hz")
    }
    return out
  }
}

extension ImpactConfiguration: Codable {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case gravityTimeConstantSeconds, vibrationTimeConstantSeconds, vibrationBinSeconds, clipMetersPerSecondSquared
    case joltMetersPerSecondSquared, joltPeakWindowSeconds, joltChainSeconds
    case currentFixAgeSeconds, movingMedianMetersPerSecond, movingFromSeconds, movingToSeconds
    case movingAtJoltMetersPerSecond, movingAtJoltToSeconds
    case stoppedMetersPerSecond, restWithinSeconds, stayStoppedSeconds, stayStoppedMinimumFixes
    case vibrationMovingMetersPerSecondSquared, vibrationMovingFromSeconds, vibrationMovingToSeconds
    case vibrationMovingAtJoltFromSeconds, vibrationMovingAtJoltToSeconds
    case vibrationStoppedFraction, vibrationStopEarliestStartSeconds, vibrationStopLatestStartSeconds
    case vibrationStopWindowSeconds
    case spinRadiansPerSecond, spinFromSeconds, spinToSeconds
    case pressureRiseHectopascals, pressureAfterSeconds, pressureBaselineFromSeconds, pressureBaselineToSeconds
    case freeFallMetersPerSecondSquared, freeFallSeconds, freeFallEndsBeforeJoltSeconds
    case verdictDeadlineSeconds, lateDataSeconds, suppressionSeconds
    case maximumAbsoluteTimeSeconds, maximumAccelerationMetersPerSecondSquared, maximumRotationRadiansPerSecond
    case minimumPressureHectopascals, maximumPressureHectopascals, maximumSpeedMetersPerSecond
    case supportedGyroscopeHertz, supportedBarometerHertz, supportedFixHertz
  }

  private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Missing keys take their defaults; unknown keys and values outside their
  /// domain (``problems``) are `DecodingError.dataCorrupted`, naming them.
  public init(from decoder: any Decoder) throws {
    let known = Set(CodingKeys.allCases.map(\.stringValue))
    let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).filter {
      !known.contains($0)
    }
    guard unknown.isEmpty else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "unknown impact configuration key(s): \(unknown.sorted().joined(separator: ", "))"))
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    var v = ImpactConfiguration()
    func read(_ key: CodingKeys, _ value: inout Double) throws {
      if let x = try c.decodeIfPresent(Double.self, forKey: key) { value = x }
    }
    try read(.gravityTimeConstantSeconds, &v.gravityTimeConstantSeconds)
    try read(.vibrationTimeConstantSeconds, &v.vibrationTimeConstantSeconds)
    try read(.vibrationBinSeconds, &v.vibrationBinSeconds)
    try read(.clipMetersPerSecondSquared, &v.clipMetersPerSecondSquared)
    try read(.joltMetersPerSecondSquared, &v.joltMetersPerSecondSquared)
    try read(.joltPeakWindowSeconds, &v.joltPeakWindowSeconds)
    try read(.joltChainSeconds, &v.joltChainSeconds)
    try read(.currentFixAgeSeconds, &v.currentFixAgeSeconds)
    try read(.movingMedianMetersPerSecond, &v.movingMedianMetersPerSecond)
    try read(.movingFromSeconds, &v.movingFromSeconds)
    try read(.movingToSeconds, &v.movingToSeconds)
    try read(.movingAtJoltMetersPerSecond, &v.movingAtJoltMetersPerSecond)
    try read(.movingAtJoltToSeconds, &v.movingAtJoltToSeconds)
    try read(.stoppedMetersPerSecond, &v.stoppedMetersPerSecond)
    try read(.restWithinSeconds, &v.restWithinSeconds)
    try read(.stayStoppedSeconds, &v.stayStoppedSeconds)
    if let n = try c.decodeIfPresent(Int.self, forKey: .stayStoppedMinimumFixes) { v.stayStoppedMinimumFixes = n }
    try read(.vibrationMovingMetersPerSecondSquared, &v.vibrationMovingMetersPerSecondSquared)
    try read(.vibrationMovingFromSeconds, &v.vibrationMovingFromSeconds)
    try read(.vibrationMovingToSeconds, &v.vibrationMovingToSeconds)
    try read(.vibrationMovingAtJoltFromSeconds, &v.vibrationMovingAtJoltFromSeconds)
    try read(.vibrationMovingAtJoltToSeconds, &v.vibrationMovingAtJoltToSeconds)
    try read(.vibrationStoppedFraction, &v.vibrationStoppedFraction)
    try read(.vibrationStopEarliestStartSeconds, &v.vibrationStopEarliestStartSeconds)
    try read(.vibrationStopLatestStartSeconds, &v.vibrationStopLatestStartSeconds)
    try read(.vibrationStopWindowSeconds, &v.vibrationStopWindowSeconds)
    try read(.spinRadiansPerSecond, &v.spinRadiansPerSecond)
    try read(.spinFromSeconds, &v.spinFromSeconds)
    try read(.spinToSeconds, &v.spinToSeconds)
    try read(.pressureRiseHectopascals, &v.pressureRiseHectopascals)
    try read(.pressureAfterSeconds, &v.pressureAfterSeconds)
    try read(.pressureBaselineFromSeconds, &v.pressureBaselineFromSeconds)
    try read(.pressureBaselineToSeconds, &v.pressureBaselineToSeconds)
    try read(.freeFallMetersPerSecondSquared, &v.freeFallMetersPerSecondSquared)
    try read(.freeFallSeconds, &v.freeFallSeconds)
    try read(.freeFallEndsBeforeJoltSeconds, &v.freeFallEndsBeforeJoltSeconds)
    try read(.verdictDeadlineSeconds, &v.verdictDeadlineSeconds)
    try read(.lateDataSeconds, &v.lateDataSeconds)
    try read(.suppressionSeconds, &v.suppressionSeconds)
    try read(.maximumAbsoluteTimeSeconds, &v.maximumAbsoluteTimeSeconds)
    try read(.maximumAccelerationMetersPerSecondSquared, &v.maximumAccelerationMetersPerSecondSquared)
    try read(.maximumRotationRadiansPerSecond, &v.maximumRotationRadiansPerSecond)
    try read(.minimumPressureHectopascals, &v.minimumPressureHectopascals)
    try read(.maximumPressureHectopascals, &v.maximumPressureHectopascals)
    try read(.maximumSpeedMetersPerSecond, &v.maximumSpeedMetersPerSecond)
    try read(.supportedGyroscopeHertz, &v.supportedGyroscopeHertz)
    try read(.supportedBarometerHertz, &v.supportedBarometerHertz)
    try read(.supportedFixHertz, &v.supportedFixHertz)
    let problems = v.problems
    guard problems.isEmpty else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "invalid impact configuration: " + problems.joined(separator: "; ")))
    }
    self = v
  }
}
