/// One condition of SPEC §9 as the detector measured it.
public struct ImpactCondition: Sendable, Hashable, Codable {
  public enum Name: String, Sendable, Hashable, Codable {
    /// The jolt: peak dynamic acceleration, m/s² (`clipped` when an axis saturated).
    case jolt
    /// Moving before, from GPS: median speed over [t − 10, t − 2] s, m/s…
    case movingBeforeGPS
    /// …and the last fix in [t − 2, t − 0.5] s, m/s.
    case movingAtJoltGPS
    /// Moving before, from vibration: median 1-s RMS over [t − 10, t − 1] s, m/s²…
    case movingBeforeVibration
    /// …and over [t − 3, t − 0.5] s.
    case movingAtJoltVibration
    /// Stopped after, GPS: seconds from the jolt to the first fix at rest (≤ 5 s)…
    case restWithin
    /// …then the fastest of the fixes in the next 5 s, m/s.
    case stayedStoppedGPS
    /// Stopped after, vibration: the 5-s median that fell to half (else the
    /// lowest) starting in [t + 1, t + 5] s over the pre-jolt median (a fraction).
    case stoppedVibrationRatio
    /// Peak |ω| in [t − 0.2, t + 1] s, rad/s.
    case spin
    /// Pressure rise: max over [t, t + 2] s minus the pre-jolt median, hPa.
    case pressureRise
    /// Free fall before the jolt: its length, s (held = the veto applies).
    case freeFallVeto
  }
  public var name: Name
  public var held: Bool
  /// The measured value (NaN when there was nothing to measure).
  public var measured: Double
  public var threshold: Double
  public var note: String

  /// Equal when every field is; two NaN measurements (nothing measured) are equal.
  public static func == (a: Self, b: Self) -> Bool {
    a.name == b.name && a.held == b.held && a.threshold == b.threshold && a.note == b.note
      && same(a.measured, b.measured)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(held)
    hasher.combine(measured.isNaN ? .nan : measured)
    hasher.combine(threshold)
    hasher.combine(note)
  }

  public init(_ name: Name, held: Bool, measured: Double, threshold: Double, note: String = "") {
    self.name = name
    self.held = held
    self.measured = measured
    self.threshold = threshold
    self.note = note
  }
}

/// Equal, or both NaN (nothing measured).
func same(_ a: Double, _ b: Double) -> Bool { a == b || (a.isNaN && b.isNaN) }

/// Everything the detector measured around one jolt: the values SPEC §9's
/// decision reads, before any threshold but the stop's is applied (the stop
/// is found with the thresholds it was measured under, so it carries its
/// outcome). ``ImpactDecision`` turns it into a verdict under any
/// configuration. NaN: nothing to measure (no sample in the window).
public struct ImpactMeasurement: Sendable, Codable {
  /// Which rule a point was judged by.
  public enum Source: String, Sendable, Hashable, Codable { case gps, vibration }

  /// The first jolt sample, s.
  public var joltSeconds: Double
  /// The first jolt of its incident, s: the jolt itself, or an earlier one
  /// it follows within `joltChainSeconds` (the moving and stop windows are
  /// read from here; the jolt, spin, pressure and free fall are its own).
  public var incidentSeconds: Double
  /// The largest dynamic acceleration of the jolt's samples (its first
  /// `joltPeakWindowSeconds`), m/s².
  public var peakMetersPerSecondSquared: Double
  /// An axis reached the clip level: the peak is "at least".
  public var clipped: Bool
  /// Moving before: GPS when a fix was current at the jolt, else vibration.
  public var movingSource: Source
  /// GPS: median speed over the moving window and the last fix before the jolt, m/s.
  public var speedBeforeMetersPerSecond: Double
  public var speedAtJoltMetersPerSecond: Double
  /// Vibration: median 1-s RMS over the moving window and the at-jolt window, m/s².
  public var vibrationBeforeMetersPerSecondSquared: Double
  public var vibrationAtJoltMetersPerSecondSquared: Double
  /// Stopped after: which rule decided, whether it held, and why that rule.
  public var stopSource: Source
  public var stopped: Bool
  public var stopReason: String
  /// GPS stop: the first fix at rest after the jolt, s after it (NaN: none);
  /// the fastest fix in the stay window after it, m/s; how many fixes it held.
  public var restAfterSeconds: Double
  public var fastestAfterRestMetersPerSecond: Double
  public var fixesAfterRest: Int
  /// Vibration stop: the 5-s median that fell to the fraction (else the
  /// lowest complete one) over the pre-jolt median.
  public var vibrationStopRatio: Double
  /// Peak |ω| in the spin window, rad/s.
  public var spinPeakRadiansPerSecond: Double
  /// Max pressure after the jolt minus the pre-jolt median, hPa.
  public var pressureRiseHectopascals: Double
  /// The longest free fall ending just before the jolt, s (0: none).
  public var freeFallSeconds: Double
  /// The data time by which every window read was complete, s.
  public var decidedSeconds: Double
  /// A window had lost its oldest samples (a stream above its supported rate).
  public var truncated: Bool
}

extension ImpactMeasurement: Hashable {
  /// Equal when every field is, NaN equal to NaN (nothing measured).
  public static func == (a: Self, b: Self) -> Bool {
    a.clipped == b.clipped && a.movingSource == b.movingSource && a.stopSource == b.stopSource
      && a.stopped == b.stopped && a.stopReason == b.stopReason && a.fixesAfterRest == b.fixesAfterRest
      && a.truncated == b.truncated
      && zip(a.numbers, b.numbers).allSatisfy { same($0, $1) }
  }

  public func hash(into hasher: inout Hasher) {
    for x in numbers { hasher.combine(x.isNaN ? .nan : x) }
    hasher.combine(stopReason)
    hasher.combine(fixesAfterRest)
  }

  private var numbers: [Double] {
    [
      joltSeconds, incidentSeconds, peakMetersPerSecondSquared, speedBeforeMetersPerSecond, speedAtJoltMetersPerSecond,
      vibrationBeforeMetersPerSecondSquared, vibrationAtJoltMetersPerSecondSquared, restAfterSeconds,
      fastestAfterRestMetersPerSecond, vibrationStopRatio, spinPeakRadiansPerSecond, pressureRiseHectopascals,
      freeFallSeconds, decidedSeconds,
    ]
  }
}

/// What the detector decided about one jolt.
public struct ImpactVerdict: Sendable, Hashable, Codable {
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// Every condition held: report a possible impact.
    case possibleImpact
    /// Something did not hold (see `conditions`): stay silent.
    case silent
    /// Within 60 s of a reported impact: one verdict per incident.
    case suppressed
  }
  public var outcome: Outcome
  /// When the jolt happened, s.
  public var joltSeconds: Double
  /// The data time at which the verdict was decidable, s (the batch that
  /// carried it may come a little later).
  public var decidedSeconds: Double
  /// Which source judged moving before: GPS when a fix was current at the jolt.
  public var usedGPS: Bool
  /// Every condition with its measured value and threshold.
  public var conditions: [ImpactCondition]
  /// What was measured (nil for a suppressed jolt, which is not measured).
  public var measurement: ImpactMeasurement?

  /// A one-line explanation: outcome, then each condition.
  public var explanation: String {
    let parts = conditions.map { c in
      let value = c.measured.isNaN ? "n/a" : String(describing: (c.measured * 1000).rounded() / 1000)
      return
        "\(c.name.rawValue) \(c.held ? "held" : "failed") (\(value) vs \(c.threshold))\(c.note.isEmpty ? "" : " " + c.note)"
    }
    return "\(outcome.rawValue) at \(joltSeconds) s: " + parts.joined(separator: "; ")
  }

  /// The verdict on a measurement under `configuration` (``ImpactDecision``).
  public init(_ measurement: ImpactMeasurement, under configuration: ImpactConfiguration) {
    let judged = ImpactDecision.judge(measurement, configuration)
    self.init(
      outcome: judged.outcome, joltSeconds: measurement.joltSeconds, decidedSeconds: measurement.decidedSeconds,
      usedGPS: measurement.movingSource == .gps, conditions: judged.conditions, measurement: measurement)
  }

  public init(
    outcome: Outcome, joltSeconds: Double, decidedSeconds: Double, usedGPS: Bool, conditions: [ImpactCondition],
    measurement: ImpactMeasurement? = nil
  ) {
    self.outcome = outcome
    self.joltSeconds = joltSeconds
    self.decidedSeconds = decidedSeconds
    self.usedGPS = usedGPS
    self.conditions = conditions
    self.measurement = measurement
  }
}

/// What the detector skipped or could not keep, for accounting.
public struct ImpactCounters: Sendable, Hashable, Codable {
  /// Samples of one stream skipped, by reason.
  public struct Skipped: Sendable, Hashable, Codable {
    /// Time NaN, infinite, beyond ±`maximumAbsoluteTimeSeconds`, or after the
    /// batch's `receivedSeconds`.
    public var badTime = 0
    /// A value NaN, infinite or beyond the configuration's physical bounds.
    public var badValue = 0
    /// Not newer than the last sample used of the stream (repeats, late arrivals).
    public var notNewer = 0
    public var total: Int { badTime + badValue + notNewer }
    public init() {}
  }
  public var accelerometer = Skipped()
  public var gyroscope = Skipped()
  public var barometer = Skipped()
  public var fixes = Skipped()
  /// Jolts seen while the vehicle gate was off (not judged).
  public var joltsGateOff = 0
  /// Verdicts with a window that had lost its oldest samples (a stream
  /// faster than its supported rate) or more free-fall runs than kept.
  public var truncatedWindows = 0
  /// Every skipped sample of every stream.
  public var skippedSamples: Int { accelerometer.total + gyroscope.total + barometer.total + fixes.total }
  public init() {}
}

extension ImpactVerdict {
  /// This verdict judged again under other thresholds from what it measured
  /// (no second pass over the data), by the same ``ImpactDecision`` the
  /// detector used: exact for the moving-before speeds and vibration, the
  /// spin, the pressure rise and the free-fall length; a jolt threshold
  /// above the one it was found with decides by the impact's peak (a
  /// detector run with it would date the incident up to its first
  /// `joltPeakWindowSeconds` later). The stop keeps its outcome (its windows
  /// depend on the data). Suppression is the caller's (it depends on the
  /// other verdicts); a suppressed verdict, never measured, is silent.
  /// O(conditions).
  public func outcome(under c: ImpactConfiguration) -> Outcome {
    guard let measurement else { return .silent }
    return ImpactDecision.judge(measurement, c).outcome
  }

  /// The conditions that fail under `c` (``ImpactDecision/Judgement/unmet``;
  /// the jolt itself is not among them). Empty: every condition after the
  /// jolt holds. A suppressed verdict has none. O(conditions).
  public func unmetConditions(under c: ImpactConfiguration) -> [ImpactCondition.Name] {
    guard let measurement else { return [] }
    return ImpactDecision.judge(measurement, c).unmet
  }

  /// The value measured for a condition (nil when the verdict has none).
  public func measured(_ name: ImpactCondition.Name) -> Double? {
    conditions.first { $0.name == name }?.measured
  }
}
