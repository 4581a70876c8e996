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
  /// a second. "Moving before" is then read from the incident's first jolt
  /// (the later blows do not find the car already slowed), while "moving at
  /// the jolt", "stopped after", the spin, pressure and free fall are each
  /// jolt's own. A jolt further off starts an incident of its own, judged
  /// on its own windows.
  public var joltChainSeconds = 1.0

  // MARK: D2, D3, D5 moving before / stopped after, GPS

  /// A fix is current when it is at most this old at the jolt, s (D2).
  /// GPS reads "moving before" only when it has a fix in each of the two
  /// windows below (the median's and the one at the jolt); with either
  /// empty the vibration reads it, as with no fix at all: a GPS slower than
  /// about 1 Hz, or whose last fix came in the jolt's last half second,
  /// would otherwise leave a NaN that fails and silence a crash.
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
  /// After the rest, GPS says the car moved on with a fix faster than this,
  /// m/s (at least `stoppedMetersPerSecond`), or with more than half of at
  /// least `stayStoppedMinimumFixes` fixes over the stopped line; fewer fixes
  /// over the line, or too few fixes, leave the stop to the vibration rule
  /// (D6). The default, the stopped speed itself, is the rule before this
  /// setting: any fix over the line. Higher (3 m/s) reports a crash whose
  /// phone's GPS reads one or two noisy fixes of 1.6 m/s at rest, and also
  /// a car stopping at a light after a knock with a spin and pulling away
  /// gently (0.5–1 m/s²), whose vibration falls with its speed: a trade to
  /// tune on recordings, not a free gain (both found by reviews).
  public var movingAgainMetersPerSecond = 1.5

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

  /// How far a time may miss an edge of the detector's windows and still
  /// count as on it, s (half a millisecond). Stamps are whole milliseconds
  /// held as seconds, so an offset from a jolt (t − 0.2 s, t + 2 s, t + 5 s)
  /// or a length (a 0.12 s free fall) is a sum or difference of rounded
  /// values: a run of six 50 Hz samples read 0.11999999999999744 s on some
  /// clocks and 0.12 s on others, and a spin sample exactly 200 ms before
  /// the jolt was in the window on some clocks and out on others
  /// (specrev-impact F2, F4). So every closed window is read half a
  /// millisecond wider at each closed end (the spin's, the pressure's and its
  /// baseline's, the fixes' before, at and after the jolt, the rest's and
  /// the stay's); a stream is complete up to a window's end only at its
  /// widened end; a free fall counts half a millisecond short in length and
  /// in its end; a jolt sample up to the peak window plus the tolerance after
  /// the incident's jolt is its peak, and one at the chain or the deadline
  /// plus the tolerance still chains; a jolt the suppression less the
  /// tolerance after a report is no longer suppressed. Ends that exclude a
  /// time itself (the rest is after the jolt, the stay after the rest) stay
  /// exact, and so do the vibration bins, which lie on whole seconds (a whole
  /// second is exact as a double). Half a millisecond is far above the
  /// rounding (about 2.4·10⁻⁷ s at today's epoch in seconds) and below the
  /// step between two millisecond stamps; with finer stamps a time up to half
  /// a millisecond past an edge counts too. No fall vetoes nothing, whatever
  /// the setting.
  public static let timeToleranceSeconds = 0.000_5

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
  /// At most ``largestTimeBoundSeconds``.
  public var maximumAbsoluteTimeSeconds = 1e10
  /// The largest ``maximumAbsoluteTimeSeconds``: a time within it divided by
  /// the shortest vibration bin (0.05 s) stays finite, so every time has a
  /// bin. (Past about 9·10³⁰⁶ s the quotient overflowed and the detector
  /// looked for the bin's end for ever.)
  public static let largestTimeBoundSeconds = 1e300
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
      count(
        1 / vibrationBinSeconds,
        incident + max(-vibrationMovingFromSeconds, -vibrationMovingAtJoltFromSeconds))
    )
  }

  /// Bins in one vibration stop window: round(window / bin), at least 1.
  var vibrationStopBinCount: Int { max(1, Int((vibrationStopWindowSeconds / vibrationBinSeconds).rounded())) }

  /// The largest jolt threshold, m/s²: 64 g, the bound beyond which an axis
  /// reading is a glitch (``maximumAccelerationMetersPerSecondSquared``'s
  /// default); phones saturate at 16 or 32 g, so a threshold above it is a
  /// slip (a value in m/s² given as g), never a setting.
  public static let maximumJoltMetersPerSecondSquared = 64 * standardGravity

  /// The furthest before a jolt (or its incident's first jolt) that any
  /// window of a configuration that validates reaches, s: every window
  /// offset is at least −60 s and the current fix's age at most 60 s
  /// (``domains``); a window's closed end is read ``timeToleranceSeconds``
  /// wider. A sample further back than both before every jolt is read by no
  /// window (it only moves its stream's clock and the counters), so a feed
  /// may leave such samples out: the runtime's feed does, for the samples of
  /// the other streams long before the first accelerometer sample
  /// (``ImpactDetector/pendingReadSeconds`` for a detector already fed).
  public static let longestLookBackSeconds = 60.0

  /// The domain of one setting: an interval, each end open or closed
  /// (±∞: unbounded), and the unit it is written in.
  struct Domain {
    var lower: Double
    var lowerOpen: Bool
    var upper: Double
    var upperOpen: Bool
    var unit: String
    /// A note after the range (the jolt's in g).
    var note = ""

    static func closed(_ lower: Double, _ upper: Double, _ unit: String) -> Domain {
      Domain(lower: lower, lowerOpen: false, upper: upper, upperOpen: false, unit: unit)
    }
    static func aboveZero(upTo upper: Double, _ unit: String) -> Domain {
      Domain(lower: 0, lowerOpen: true, upper: upper, upperOpen: false, unit: unit)
    }
    static func nonNegative(_ unit: String) -> Domain {
      Domain(lower: 0, lowerOpen: false, upper: .infinity, upperOpen: true, unit: unit)
    }
    static func positive(_ unit: String) -> Domain {
      Domain(lower: 0, lowerOpen: true, upper: .infinity, upperOpen: true, unit: unit)
    }
    static func finite(_ unit: String) -> Domain {
      Domain(lower: -.infinity, lowerOpen: true, upper: .infinity, upperOpen: true, unit: unit)
    }

    /// Finite and within the interval.
    func contains(_ value: Double) -> Bool {
      value.isFinite && (lowerOpen ? value > lower : value >= lower)
        && (upperOpen ? value < upper : value <= upper)
    }

    /// "(0, 60] s", "[0, ∞) m/s".
    var description: String {
      (lowerOpen ? "(" : "[") + ImpactConfiguration.settingText(lower) + ", "
        + ImpactConfiguration.settingText(upper) + (upperOpen ? ")" : "]") + " " + unit + note
    }
  }

  /// A setting's value as ``problems`` writes it: whole numbers without a
  /// fraction ("-4", not "-4.0"), others in Swift's shortest form, ±∞ as "±∞".
  public static func settingText(_ value: Double) -> String {
    if value.isInfinite { return value < 0 ? "-∞" : "∞" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  /// Every number setting with its domain, in declaration order. Offsets
  /// from the jolt lie within ±60 s, lengths after it within 60 s (the
  /// deadline bounds them further, below).
  var domains: [(name: String, value: Double, domain: Domain)] {
    let offset = Domain.closed(-Self.longestLookBackSeconds, 60, "s")
    let length = Domain.closed(0, 60, "s")
    let age = Domain.closed(0, Self.longestLookBackSeconds, "s")
    let timeConstant = Domain.aboveZero(upTo: 60, "s")
    let g = ImpactConfiguration.standardGravity
    var jolt = Domain.aboveZero(upTo: Self.maximumJoltMetersPerSecondSquared, "m/s²")
    jolt.note = " ((0, \(Self.settingText(Self.maximumJoltMetersPerSecondSquared / g))] g)"
    return [
      ("gravityTimeConstantSeconds", gravityTimeConstantSeconds, timeConstant),
      ("vibrationTimeConstantSeconds", vibrationTimeConstantSeconds, timeConstant),
      ("vibrationBinSeconds", vibrationBinSeconds, .closed(0.05, 10, "s")),
      ("clipMetersPerSecondSquared", clipMetersPerSecondSquared, .positive("m/s²")),
      ("joltMetersPerSecondSquared", joltMetersPerSecondSquared, jolt),
      ("joltPeakWindowSeconds", joltPeakWindowSeconds, .closed(0.05, 5, "s")),
      ("joltChainSeconds", joltChainSeconds, .closed(0, 10, "s")),
      ("currentFixAgeSeconds", currentFixAgeSeconds, age),
      ("movingMedianMetersPerSecond", movingMedianMetersPerSecond, .nonNegative("m/s")),
      ("movingFromSeconds", movingFromSeconds, offset), ("movingToSeconds", movingToSeconds, offset),
      ("movingAtJoltMetersPerSecond", movingAtJoltMetersPerSecond, .nonNegative("m/s")),
      ("movingAtJoltToSeconds", movingAtJoltToSeconds, offset),
      ("stoppedMetersPerSecond", stoppedMetersPerSecond, .nonNegative("m/s")),
      ("restWithinSeconds", restWithinSeconds, length), ("stayStoppedSeconds", stayStoppedSeconds, length),
      ("movingAgainMetersPerSecond", movingAgainMetersPerSecond, .nonNegative("m/s")),
      ("vibrationMovingMetersPerSecondSquared", vibrationMovingMetersPerSecondSquared, .nonNegative("m/s²")),
      ("vibrationMovingFromSeconds", vibrationMovingFromSeconds, offset),
      ("vibrationMovingToSeconds", vibrationMovingToSeconds, offset),
      ("vibrationMovingAtJoltFromSeconds", vibrationMovingAtJoltFromSeconds, offset),
      ("vibrationMovingAtJoltToSeconds", vibrationMovingAtJoltToSeconds, offset),
      ("vibrationStoppedFraction", vibrationStoppedFraction, .nonNegative("(fraction)")),
      ("vibrationStopEarliestStartSeconds", vibrationStopEarliestStartSeconds, offset),
      ("vibrationStopLatestStartSeconds", vibrationStopLatestStartSeconds, offset),
      ("vibrationStopWindowSeconds", vibrationStopWindowSeconds, .aboveZero(upTo: 60, "s")),
      ("spinRadiansPerSecond", spinRadiansPerSecond, .nonNegative("rad/s")),
      ("spinFromSeconds", spinFromSeconds, offset), ("spinToSeconds", spinToSeconds, offset),
      ("pressureRiseHectopascals", pressureRiseHectopascals, .nonNegative("hPa")),
      ("pressureAfterSeconds", pressureAfterSeconds, length),
      ("pressureBaselineFromSeconds", pressureBaselineFromSeconds, offset),
      ("pressureBaselineToSeconds", pressureBaselineToSeconds, offset),
      ("freeFallMetersPerSecondSquared", freeFallMetersPerSecondSquared, .nonNegative("m/s²")),
      ("freeFallSeconds", freeFallSeconds, .nonNegative("s")),
      ("freeFallEndsBeforeJoltSeconds", freeFallEndsBeforeJoltSeconds, .nonNegative("s")),
      ("verdictDeadlineSeconds", verdictDeadlineSeconds, .aboveZero(upTo: 60, "s")),
      ("lateDataSeconds", lateDataSeconds, .closed(0, 30, "s")),
      ("suppressionSeconds", suppressionSeconds, .nonNegative("s")),
      (
        "maximumAbsoluteTimeSeconds", maximumAbsoluteTimeSeconds,
        .aboveZero(upTo: Self.largestTimeBoundSeconds, "s")
      ),
      (
        "maximumAccelerationMetersPerSecondSquared", maximumAccelerationMetersPerSecondSquared,
        .positive("m/s²")
      ),
      ("maximumRotationRadiansPerSecond", maximumRotationRadiansPerSecond, .positive("rad/s")),
      ("minimumPressureHectopascals", minimumPressureHectopascals, .finite("hPa")),
      ("maximumPressureHectopascals", maximumPressureHectopascals, .finite("hPa")),
      ("maximumSpeedMetersPerSecond", maximumSpeedMetersPerSecond, .positive("m/s")),
      ("supportedGyroscopeHertz", supportedGyroscopeHertz, .aboveZero(upTo: 2_000, "Hz")),
      ("supportedBarometerHertz", supportedBarometerHertz, .aboveZero(upTo: 2_000, "Hz")),
      ("supportedFixHertz", supportedFixHertz, .aboveZero(upTo: 2_000, "Hz")),
    ]
  }

  /// What is wrong with this configuration, one line per problem (empty:
  /// valid); each names the setting, its value and its range. Domains
  /// (``domains``): every value finite; time constants in (0, 60] s; the
  /// bin in [0.05, 10] s; the jolt in (0, 64 g] (``maximumJoltMetersPerSecondSquared``);
  /// the other thresholds ≥ 0 (the input bounds > 0); the peak window in
  /// [0.05, 5] s; window offsets within ±60 s and each window's from ≤ to;
  /// the windows before and at the jolt (moving, its vibration, the pressure
  /// baseline) ending by the jolt; every window after the jolt ending by
  /// the deadline; the deadline in
  /// (0, 60] s; late data in [0, 30] s; at most 1 000 fixes to stay
  /// stopped; the moving-again speed at least the stopped one; supported
  /// rates in (0, 2 000] Hz; the time bound in (0, 10³⁰⁰] s. The one rule
  /// every door (file, command flag, sweep grid, C ABI, Python) checks a
  /// configuration by before it builds an ``ImpactDetector``. O(1).
  public var problems: [String] {
    var out: [String] = []
    for (name, value, domain) in domains where !domain.contains(value) {
      out.append(
        "\(name): \(Self.settingText(value)) \(domain.unit) is outside \(domain.description)")
    }
    if !(stayStoppedMinimumFixes >= 0 && stayStoppedMinimumFixes <= 1_000) {
      out.append("stayStoppedMinimumFixes: \(stayStoppedMinimumFixes) is outside [0, 1000]")
    }
    // The rules between settings read only values inside their domains.
    guard out.isEmpty else { return out }
    func check(_ ok: Bool, _ why: @autoclosure () -> String) { if !ok { out.append(why()) } }
    check(
      movingAgainMetersPerSecond >= stoppedMetersPerSecond,
      "movingAgainMetersPerSecond: \(Self.settingText(movingAgainMetersPerSecond)) m/s must be at least stoppedMetersPerSecond (\(Self.settingText(stoppedMetersPerSecond)) m/s)"
    )
    check(
      minimumPressureHectopascals < maximumPressureHectopascals,
      "minimumPressureHectopascals: \(Self.settingText(minimumPressureHectopascals)) hPa must be below maximumPressureHectopascals (\(Self.settingText(maximumPressureHectopascals)) hPa)"
    )
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
      check(
        from <= to,
        "\(name) window: from \(Self.settingText(from)) s is after to \(Self.settingText(to)) s")
    }
    // The motion before and at the jolt is read from windows that end at
    // the jolt at the latest: no completeness check waits for data after
    // it, so a window reaching past it read whatever had arrived by then
    // (a verdict that depended on the batching; review45).
    let before: [(String, Double)] = [
      ("movingToSeconds", movingToSeconds), ("movingAtJoltToSeconds", movingAtJoltToSeconds),
      ("vibrationMovingToSeconds", vibrationMovingToSeconds),
      ("vibrationMovingAtJoltToSeconds", vibrationMovingAtJoltToSeconds),
      ("pressureBaselineToSeconds", pressureBaselineToSeconds),
    ]
    for (name, end) in before {
      check(
        end <= 0,
        "\(name): \(Self.settingText(end)) s ends after the jolt (a window before the jolt ends at 0 s at the latest)"
      )
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
      check(
        end <= verdictDeadlineSeconds,
        "\(name): \(Self.settingText(end)) s ends after the deadline (verdictDeadlineSeconds \(Self.settingText(verdictDeadlineSeconds)) s)"
      )
    }
    return out
  }
}

extension ImpactConfiguration: Codable {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case gravityTimeConstantSeconds, vibrationTimeConstantSeconds, vibrationBinSeconds,
      clipMetersPerSecondSquared
    case joltMetersPerSecondSquared, joltPeakWindowSeconds, joltChainSeconds
    case currentFixAgeSeconds, movingMedianMetersPerSecond, movingFromSeconds, movingToSeconds
    case movingAtJoltMetersPerSecond, movingAtJoltToSeconds
    case stoppedMetersPerSecond, restWithinSeconds, stayStoppedSeconds, stayStoppedMinimumFixes
    case movingAgainMetersPerSecond
    case vibrationMovingMetersPerSecondSquared, vibrationMovingFromSeconds, vibrationMovingToSeconds
    case vibrationMovingAtJoltFromSeconds, vibrationMovingAtJoltToSeconds
    case vibrationStoppedFraction, vibrationStopEarliestStartSeconds, vibrationStopLatestStartSeconds
    case vibrationStopWindowSeconds
    case spinRadiansPerSecond, spinFromSeconds, spinToSeconds
    case pressureRiseHectopascals, pressureAfterSeconds, pressureBaselineFromSeconds,
      pressureBaselineToSeconds
    case freeFallMetersPerSecondSquared, freeFallSeconds, freeFallEndsBeforeJoltSeconds
    case verdictDeadlineSeconds, lateDataSeconds, suppressionSeconds
    case maximumAbsoluteTimeSeconds, maximumAccelerationMetersPerSecondSquared,
      maximumRotationRadiansPerSecond
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
          debugDescription: "unknown impact configuration key(s): \(unknown.sorted().joined(separator: ", "))"
        ))
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
    if let n = try c.decodeIfPresent(Int.self, forKey: .stayStoppedMinimumFixes) {
      v.stayStoppedMinimumFixes = n
    }
    try read(.movingAgainMetersPerSecond, &v.movingAgainMetersPerSecond)
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
