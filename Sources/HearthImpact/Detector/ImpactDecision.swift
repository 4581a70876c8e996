/// SPEC §9's decision, once: from what was measured around a jolt to the
/// outcome, every condition with its value and threshold, and the conditions
/// that failed. The detector judges every jolt with it, and
/// `ImpactVerdict.outcome(under:)` / `unmetConditions(under:)` judge a
/// verdict again under other thresholds with it (the sweep).
///
/// The shape: the jolt; moving before and stopped after (one fact: both
/// from GPS, both from vibration, or moving from GPS and the stop from
/// vibration when GPS had no evidence after the jolt); corroboration within
/// the impact (a spin not vetoed by a free fall just before, or a pressure
/// rise). A jolt with no corroboration stays silent.
public enum ImpactDecision {
  /// The decision on one measurement.
  public struct Judgement: Sendable, Hashable {
    public var outcome: ImpactVerdict.Outcome
    /// Every condition in order: jolt, moving (2), stop (1–2), spin, pressure, free fall.
    public var conditions: [ImpactCondition]
    /// The conditions after the jolt that fail: the moving and stop
    /// conditions of the rules used, and when nothing corroborates
    /// `pressureRise` with `spin` (too slow) or `freeFallVeto` (fast enough,
    /// but after a free fall, which takes the spin's word away).
    public var unmet: [ImpactCondition.Name]
  }

  /// Judges `m` under the thresholds of `c` (the stop keeps the outcome it
  /// was measured with). Pure; O(1).
  public static func judge(_ m: ImpactMeasurement, _ c: ImpactConfiguration) -> Judgement {
    var conditions: [ImpactCondition] = []
    var unmet: [ImpactCondition.Name] = []
    func add(_ condition: ImpactCondition) {
      conditions.append(condition)
      if !condition.held && condition.name != .jolt { unmet.append(condition.name) }
    }
    let joltHeld = m.peakMetersPerSecondSquared >= c.joltMetersPerSecondSquared
    var joltNote = m.clipped ? "clipped: at least this, how much more is unknown" : ""
    if m.truncated {
      joltNote += (joltNote.isEmpty ? "" : "; ") + "a window lost samples (a stream above its supported rate)"
    }
    add(
      ImpactCondition(
        .jolt, held: joltHeld, measured: m.peakMetersPerSecondSquared,
        threshold: c.joltMetersPerSecondSquared,
        note: joltNote))

    // Moving before.
    var before: ImpactCondition
    let atJolt: ImpactCondition
    switch m.movingSource {
    case .gps:
      before = ImpactCondition(
        .movingBeforeGPS, held: m.speedBeforeMetersPerSecond >= c.movingMedianMetersPerSecond,
        measured: m.speedBeforeMetersPerSecond, threshold: c.movingMedianMetersPerSecond)
      atJolt = ImpactCondition(
        .movingAtJoltGPS, held: m.speedAtJoltMetersPerSecond >= c.movingAtJoltMetersPerSecond,
        measured: m.speedAtJoltMetersPerSecond, threshold: c.movingAtJoltMetersPerSecond)
    case .vibration:
      let line = c.vibrationMovingMetersPerSecondSquared
      before = ImpactCondition(
        .movingBeforeVibration, held: m.vibrationBeforeMetersPerSecondSquared >= line,
        measured: m.vibrationBeforeMetersPerSecondSquared, threshold: line)
      atJolt = ImpactCondition(
        .movingAtJoltVibration, held: m.vibrationAtJoltMetersPerSecondSquared >= line,
        measured: m.vibrationAtJoltMetersPerSecondSquared, threshold: line)
    }
    if m.incidentSeconds != m.joltSeconds {
      before.note = "read from the incident's first jolt at \(short(m.incidentSeconds)) s"
    }
    add(before)
    add(atJolt)

    // Stopped after (measured with its thresholds; it keeps its outcome).
    switch m.stopSource {
    case .gps:
      let rest = !m.restAfterSeconds.isNaN
      add(
        ImpactCondition(
          .restWithin, held: rest, measured: m.restAfterSeconds, threshold: c.restWithinSeconds,
          note: rest ? "" : m.stopReason))
      if rest {
        add(
          ImpactCondition(
            .stayedStoppedGPS, held: m.stopped, measured: m.fastestAfterRestMetersPerSecond,
            threshold: c.stoppedMetersPerSecond, note: m.stopReason))
      } else {
        unmet.append(.stayedStoppedGPS)  // with no rest there is nothing that stayed stopped
      }
    case .vibration:
      add(
        ImpactCondition(
          .stoppedVibrationRatio, held: m.stopped, measured: m.vibrationStopRatio,
          threshold: c.vibrationStoppedFraction, note: m.stopReason))
    }

    // Corroboration: the veto takes away the spin's word only.
    // (No fall, no veto: a setting under the tolerance must not veto every spin.)
    let vetoed =
      m.freeFallSeconds > 0
      && m.freeFallSeconds >= c.freeFallSeconds - ImpactConfiguration.timeToleranceSeconds
    let spun = m.spinPeakRadiansPerSecond >= c.spinRadiansPerSecond
    let pressed = m.pressureRiseHectopascals >= c.pressureRiseHectopascals
    conditions.append(
      ImpactCondition(
        .spin, held: spun && !vetoed, measured: m.spinPeakRadiansPerSecond, threshold: c.spinRadiansPerSecond,
        note: spun && vetoed ? "vetoed: the phone was falling" : ""))
    conditions.append(
      ImpactCondition(
        .pressureRise, held: pressed, measured: m.pressureRiseHectopascals,
        threshold: c.pressureRiseHectopascals))
    conditions.append(
      ImpactCondition(.freeFallVeto, held: vetoed, measured: m.freeFallSeconds, threshold: c.freeFallSeconds))
    let corroborated = (spun && !vetoed) || pressed
    if !corroborated { unmet += spun ? [.freeFallVeto, .pressureRise] : [.spin, .pressureRise] }

    let report = joltHeld && before.held && atJolt.held && m.stopped && corroborated
    return Judgement(outcome: report ? .possibleImpact : .silent, conditions: conditions, unmet: unmet)
  }
}
