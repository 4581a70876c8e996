/// One condition of SPEC §9 as the detector measured it.
public struct ImpactCondition: Sendable, Hashable, Codable {
  public enum Name: String, Sendable, Hashable, Codable {
    /// The jolt: peak dynamic acceleration, m/s² (`clipped` when an axis saturated).
    case jolt
    /// Moving before, from GPS: median speed over [t − 10, t − 2] s, m/s…
    case movingBeforeGPS
    /// …and the last fix in [t − 2, t] s, m/s.
    case movingAtJoltGPS
    /// Moving before, from vibration: median 1-s RMS over [t − 10, t − 1] s, m/s²…
    case movingBeforeVibration
    /// …and over [t − 3, t − 0.5] s.
    case movingAtJoltVibration
    /// Stopped after, GPS: seconds from the jolt to the first fix at rest (≤ 5 s)…
    case restWithin
    /// …then the fastest of the fixes in the next 5 s, m/s (measured = fix count when too few).
    case stayedStoppedGPS
    /// Stopped after, vibration: the lowest 5-s median starting in [t + 1, t + 5] s
    /// over the pre-jolt median (a fraction).
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
      && (a.measured == b.measured || (a.measured.isNaN && b.measured.isNaN))
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
  /// Which source judged moving/stopped: GPS when a fix was current at the jolt.
  public var usedGPS: Bool
  /// Every condition with its measured value and threshold.
  public var conditions: [ImpactCondition]

  /// A one-line explanation: outcome, then each condition.
  public var explanation: String {
    let parts = conditions.map { c in
      let value = c.measured.isNaN ? "n/a" : String(describing: (c.measured * 1000).rounded() / 1000)
      return
        "\(c.name.rawValue) \(c.held ? "held" : "failed") (\(value) vs \(c.threshold))\(c.note.isEmpty ? "" : " " + c.note)"
    }
    return "\(outcome.rawValue) at \(joltSeconds) s: " + parts.joined(separator: "; ")
  }
}

/// What the detector dropped or skipped, for accounting.
public struct ImpactCounters: Sendable, Hashable, Codable {
  /// Samples not newer than the last one of their stream (repeats, late arrivals).
  public var droppedSamples = 0
  /// Jolts seen while the vehicle gate was off (not judged).
  public var joltsGateOff = 0
  public init() {}
}

extension ImpactVerdict {
  /// This verdict judged again under other thresholds, from the values it
  /// measured (no second pass over the data): exact for the moving-before
  /// speeds and vibration, the spin, the pressure rise and the free-fall
  /// length; a jolt threshold above the one it was found with decides by
  /// the impact's peak (a detector run with it would date the incident up
  /// to its first second later, with the same outcome in the tests). The
  /// stop conditions keep their outcome (their windows depend on the data).
  /// Suppression is the caller's (it depends on the other verdicts). O(conditions).
  public func outcome(under c: ImpactConfiguration) -> Outcome {
    guard outcome != .suppressed, let peak = measured(.jolt), peak >= c.joltMetersPerSecondSquared else {
      return .silent
    }
    return unmetConditions(under: c).isEmpty ? .possibleImpact : .silent
  }

  /// The conditions that fail under `c`, judged from the measured values as
  /// ``outcome(under:)`` does (the jolt itself is not judged here): the
  /// moving conditions of the path used (GPS or vibration), the stop
  /// conditions, and when no corroboration holds `pressureRise` with
  /// `spin` (too slow) or `freeFallVeto` (fast enough, but after a free
  /// fall, which takes the spin's word away). Empty: every
  /// condition after the jolt holds. O(conditions).
  public func unmetConditions(under c: ImpactConfiguration) -> [ImpactCondition.Name] {
    var unmet: [ImpactCondition.Name] = []
    func below(_ name: ImpactCondition.Name, _ threshold: Double) {
      if !((measured(name) ?? .nan) >= threshold) { unmet.append(name) }
    }
    func notHeld(_ name: ImpactCondition.Name) {
      if !(conditions.first { $0.name == name }?.held ?? false) { unmet.append(name) }
    }
    if usedGPS {
      below(.movingBeforeGPS, c.movingMedianMetersPerSecond)
      below(.movingAtJoltGPS, c.movingAtJoltMetersPerSecond)
      notHeld(.restWithin)
      notHeld(.stayedStoppedGPS)
    } else {
      below(.movingBeforeVibration, c.vibrationMovingMetersPerSecondSquared)
      below(.movingAtJoltVibration, c.vibrationMovingMetersPerSecondSquared)
      notHeld(.stoppedVibrationRatio)
    }
    // The veto takes away the spin's word only; a pressure rise still counts.
    let vetoed = (measured(.freeFallVeto) ?? 0) >= c.freeFallSeconds
    let spun = (measured(.spin) ?? .nan) >= c.spinRadiansPerSecond
    let pressed = (measured(.pressureRise) ?? .nan) >= c.pressureRiseHectopascals
    if !(spun && !vetoed) && !pressed {
      unmet += spun ? [.freeFallVeto, .pressureRise] : [.spin, .pressureRise]
    }
    return unmet
  }

  /// The value measured for a condition (nil when the verdict has none).
  public func measured(_ name: ImpactCondition.Name) -> Double? {
    conditions.first { $0.name == name }?.measured
  }

}
