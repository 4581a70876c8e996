/// The phone's possible-impact detector (SPEC §9), fed batch by batch.
///
/// Every sample goes through in time order (the streams of a batch are
/// sorted and merged), so the verdicts depend only on the data, not on how
/// they were cut into batches: `replay` of a whole trace and feeding it in
/// any batches give the same verdicts, provided fixes arrive less than
/// `lateDataSeconds` after they were taken.
///
/// Features, independent of how the phone is held:
/// - gravity: an exponential average of the accelerometer (τ = 0.32 s);
///   the dynamic acceleration is the reading minus it (so it is high-passed
///   at about 0.5 Hz);
/// - jolt: |dynamic| in one sample; an axis at ±15.5 g marks it clipped;
/// - vibration: the RMS over each whole second of the dynamic acceleration
///   along gravity ("vertical", 0.5–25 Hz at 50 Hz sampling);
/// - spin: |ω|; pressure; free fall: |a| below 0.3 g.
///
/// A jolt opens an incident (jolts within 1 s make its peak; later ones
/// within 10 s belong to it and open nothing new); its verdict
/// is reached as soon as the data to judge it are in (at the latest when
/// the data reach jolt + 12 s), by whatever batch brings them (no timers).
/// Memory is fixed (rings of about half a minute); nothing is allocated per
/// sample.
/// - Complexity: O(1) per sample; O(window) per verdict.
public struct ImpactDetector: Sendable {
  public let configuration: ImpactConfiguration
  public private(set) var counters = ImpactCounters()

  // Stream clocks: the newest sample used per stream.
  private var accelerometerSeconds = -Double.infinity
  private var gyroscopeSeconds = -Double.infinity
  private var barometerSeconds = -Double.infinity
  private var fixSeconds = -Double.infinity

  // Features.
  private var gravity: (x: Double, y: Double, z: Double)?  // slow: the jolt's reference
  private var lowPass: (x: Double, y: Double, z: Double)?  // fast: the vibration band's edge
  private var bin: (second: Double, sumOfSquares: Double, count: Int)?
  private var vibration = Ring(capacity: 64)  // per-second vertical RMS, m/s²
  private var spin = Ring(capacity: 512)  // |ω|, rad/s
  private var pressure = Ring(capacity: 256)  // hPa
  private var speeds = Ring(capacity: 64)  // valid GPS speeds, m/s
  private var fallStart: Double?
  private var lastFall: (start: Double, end: Double)?

  // The open incident and suppression.
  private struct Incident: Sendable {
    var joltSeconds: Double
    var peak: Double
    var clipped: Bool
    var freeFallSeconds: Double
  }
  private var incident: Incident?
  private var nextCheckSeconds = Double.infinity
  private var lastClusterStart = -Double.infinity
  private var lastReported: Double?

  public init(configuration: ImpactConfiguration = ImpactConfiguration()) {
    self.configuration = configuration
  }

  /// Feeds one batch; returns the verdicts it completed, in jolt order.
  public mutating func process(_ batch: ImpactBatch) -> [ImpactVerdict] {
    // Stable: of two samples with the same time the first received is used.
    let accelerometer = Self.inTimeOrder(batch.accelerometer)
    let gyroscope = Self.inTimeOrder(batch.gyroscope)
    let barometer = Self.inTimeOrder(batch.barometer)
    let fixes = Self.inTimeOrder(batch.fixes)
    var (a, g, b, f) = (0, 0, 0, 0)
    var verdicts: [ImpactVerdict] = []
    while true {
      // The earliest remaining sample of any stream goes next (ties: fixes,
      // barometer, gyroscope, then accelerometer). The accelerometer, most of
      // the samples, runs in a tight loop up to the next other sample.
      let tg = g < gyroscope.count ? gyroscope[g].seconds : .infinity
      let tb = b < barometer.count ? barometer[b].seconds : .infinity
      let tf = f < fixes.count ? fixes[f].seconds : .infinity
      let other = min(tg, tb, tf)
      while a < accelerometer.count && accelerometer[a].seconds < other {
        if let jolt = take(acceleration: accelerometer[a], gate: batch.vehicleGate) { open(jolt, &verdicts) }
        a += 1
        // Inside a long batch, look again every quarter second of data, so
        // a verdict never waits until its windows have left the rings.
        if accelerometerSeconds >= nextCheckSeconds {
          if let verdict = decideIfReady() { verdicts.append(verdict) }
          nextCheckSeconds = incident == nil ? .infinity : accelerometerSeconds + 0.25
        }
      }
      guard other < .infinity else { break }
      if tf == other {
        take(fix: fixes[f])
        f += 1
      } else if tb == other {
        take(pressure: barometer[b])
        b += 1
      } else {
        take(rotation: gyroscope[g])
        g += 1
      }
    }
    // The verdict is reached by the first batch that brings its data.
    if incident != nil, let verdict = decideIfReady() { verdicts.append(verdict) }
    return verdicts
  }

  private static func inTimeOrder<T: TimedSample>(_ samples: [T]) -> [T] {
    var sorted = true
    for i in samples.indices.dropFirst() where samples[i].seconds < samples[i - 1].seconds {
      sorted = false
      break
    }
    if sorted { return samples }
    return samples.indices.sorted { (samples[$0].seconds, $0) < (samples[$1].seconds, $1) }.map {
      samples[$0]
    }
  }

  /// A whole recording in one call (the same verdicts as any batching).
  public static func replay(
    _ batch: ImpactBatch, configuration: ImpactConfiguration = ImpactConfiguration()
  ) -> [ImpactVerdict] {
    var detector = ImpactDetector(configuration: configuration)
    return detector.process(batch) + detector.finish()
  }

  /// Decides an open incident with whatever data there are (end of a recording).
  public mutating func finish() -> [ImpactVerdict] {
    guard incident != nil else { return [] }
    return [decide()]
  }

  // MARK: Streams

  private mutating func take(fix: Sample1) {
    guard fix.seconds > fixSeconds else {
      counters.droppedSamples += 1
      return
    }
    fixSeconds = fix.seconds
    if fix.value >= 0 { speeds.append(fix.seconds, fix.value) }  // NaN and negative: unmeasured
  }

  private mutating func take(pressure sample: Sample1) {
    guard sample.seconds > barometerSeconds else {
      counters.droppedSamples += 1
      return
    }
    barometerSeconds = sample.seconds
    if sample.value.isFinite { pressure.append(sample.seconds, sample.value) }
  }

  private mutating func take(rotation sample: Sample3) {
    guard sample.seconds > gyroscopeSeconds else {
      counters.droppedSamples += 1
      return
    }
    gyroscopeSeconds = sample.seconds
    let rate = sample.magnitude
    if rate.isFinite { spin.append(sample.seconds, rate) }
  }

  /// Updates the features; returns a jolt that starts a new incident.
  private mutating func take(acceleration s: Sample3, gate: Bool) -> Incident? {
    guard s.seconds > accelerometerSeconds, s.x.isFinite, s.y.isFinite, s.z.isFinite else {
      counters.droppedSamples += 1
      return nil
    }
    let dt = min(1, s.seconds - accelerometerSeconds)
    accelerometerSeconds = s.seconds
    let c = configuration
    // Dynamic acceleration against the gravity estimate before this sample;
    // vibration: the part above ~0.5 Hz, along gravity.
    let g0 = gravity ?? (s.x, s.y, s.z)
    let l0 = lowPass ?? (s.x, s.y, s.z)
    let (dx, dy, dz) = (s.x - g0.x, s.y - g0.y, s.z - g0.z)
    let dynamic = (dx * dx + dy * dy + dz * dz).squareRoot()
    let norm = (g0.x * g0.x + g0.y * g0.y + g0.z * g0.z).squareRoot()
    let (vx, vy, vz) = (s.x - l0.x, s.y - l0.y, s.z - l0.z)
    let vertical = norm > 0 ? (vx * g0.x + vy * g0.y + vz * g0.z) / norm : 0
    func blend(_ e: (x: Double, y: Double, z: Double), _ tau: Double) -> (x: Double, y: Double, z: Double) {
      let alpha = dt / (tau + dt)
      return (e.x + alpha * (s.x - e.x), e.y + alpha * (s.y - e.y), e.z + alpha * (s.z - e.z))
    }
    gravity = blend(g0, c.gravityTimeConstantSeconds)
    lowPass = blend(l0, c.vibrationTimeConstantSeconds)
    // One-second vibration bins.
    let second = s.seconds.rounded(.down)
    if let open = bin, open.second != second {
      vibration.append(open.second, (open.sumOfSquares / Double(open.count)).squareRoot())
      bin = nil
    }
    bin = (second, (bin?.sumOfSquares ?? 0) + vertical * vertical, (bin?.count ?? 0) + 1)
    // Free fall: a run of |a| below 0.3 g; it ends at the first sample above.
    if s.magnitude < c.freeFallMetersPerSecondSquared {
      if fallStart == nil { fallStart = s.seconds }
    } else if let start = fallStart {
      lastFall = (start, s.seconds)
      fallStart = nil
    }
    // The jolt.
    guard dynamic >= c.joltMetersPerSecondSquared else { return nil }
    let clipped = max(abs(s.x), abs(s.y), abs(s.z)) >= c.clipMetersPerSecondSquared
    if var open = incident, s.seconds - open.joltSeconds <= c.joltPeakWindowSeconds {
      open.peak = max(open.peak, dynamic)
      open.clipped = open.clipped || clipped
      incident = open
      return nil
    }
    guard gate else {
      counters.joltsGateOff += 1
      return nil
    }
    if s.seconds - lastClusterStart <= c.verdictDeadlineSeconds { return nil }  // the same incident
    lastClusterStart = s.seconds
    var fall = 0.0
    if let run = lastFall, run.end >= s.seconds - c.freeFallEndsBeforeJoltSeconds {
      fall = run.end - run.start
    }
    return Incident(joltSeconds: s.seconds, peak: dynamic, clipped: clipped, freeFallSeconds: fall)
  }

  /// A jolt starts a new incident, or is suppressed after a reported impact.
  private mutating func open(_ jolt: Incident, _ verdicts: inout [ImpactVerdict]) {
    let c = configuration
    // The last incident may still wait for data (a jolt over 10 s but
    // under the 12 s deadline after it): decide it first, with what is in.
    if incident != nil { verdicts.append(decide()) }
    if let reported = lastReported, jolt.joltSeconds - reported < c.suppressionSeconds {
      verdicts.append(
        ImpactVerdict(
          outcome: .suppressed, joltSeconds: jolt.joltSeconds, decidedSeconds: jolt.joltSeconds,
          usedGPS: false,
          conditions: [
            ImpactCondition(
              .jolt, held: true, measured: jolt.peak, threshold: c.joltMetersPerSecondSquared,
              note: "within \(c.suppressionSeconds) s of the impact reported at \(reported) s")
          ]))
      return
    }
    incident = jolt
    nextCheckSeconds = jolt.joltSeconds + c.pressureAfterSeconds
  }

  // MARK: The verdict

  /// The verdict once every window it reads is complete, or at the deadline.
  private mutating func decideIfReady() -> ImpactVerdict? {
    guard let open = incident else { return nil }
    let c = configuration
    let t = open.joltSeconds
    if accelerometerSeconds >= t + c.verdictDeadlineSeconds + c.lateDataSeconds { return decide() }
    // Early: corroboration windows complete, and the stop established.
    guard gyroscopeSeconds >= t + c.spinToSeconds, barometerSeconds >= t + c.pressureAfterSeconds,
      accelerometerSeconds >= t + c.pressureAfterSeconds
    else { return nil }
    // Fixes arrive late: any taken before a time are in once the fix stream
    // or the accelerometer is `lateDataSeconds` past it.
    func fixesIn(by time: Double) -> Bool {
      fixSeconds >= time || accelerometerSeconds >= time + c.lateDataSeconds
    }
    guard fixesIn(by: t) else { return nil }
    guard hasCurrentFix(t) else { return vibrationStop(t).decided ? decide() : nil }
    let rest = restSeconds(t)
    return fixesIn(by: rest.map { $0 + c.stayStoppedSeconds } ?? t + c.restWithinSeconds) ? decide() : nil
  }

  private func hasCurrentFix(_ t: Double) -> Bool {
    !speeds.values(from: t - configuration.currentFixAgeSeconds, to: t).isEmpty
  }

  /// The first fix at rest within 5 s after the jolt.
  private func restSeconds(_ t: Double) -> Double? {
    var rest: Double?
    speeds.visit { time, speed in
      if rest == nil && time > t && time <= t + configuration.restWithinSeconds
        && speed <= configuration.stoppedMetersPerSecond
      {
        rest = time
      }
    }
    return rest
  }

  /// Vibration bins (start second, RMS) in [from, to] whole.
  private func bins(from: Double, to: Double) -> [(Double, Double)] {
    var out: [(Double, Double)] = []
    vibration.visit { second, rms in if second >= from && second + 1 <= to { out.append((second, rms)) } }
    return out
  }

  /// The vibration stop: the first 5-s window starting within [t + 1, t + 5]
  /// (whole seconds) whose median RMS is at most half the pre-jolt median;
  /// `ratio` is its ratio (else the lowest seen), `decided` whether the
  /// windows read so far settle it, `end` the data time that settles it.
  private func vibrationStop(_ t: Double) -> (ratio: Double, decided: Bool, held: Bool, end: Double) {
    let c = configuration
    let before = median(bins(from: t - 10, to: t - 1).map(\.1))
    let after = bins(from: t + 1, to: t + c.verdictDeadlineSeconds + 1)
    var lowest = Double.nan
    var start = (t + 1).rounded(.up)
    while start <= t + 5 {
      let window = after.filter { $0.0 >= start && $0.0 < start + 5 }
      if window.count < 5 { return (lowest, false, false, start + 5) }
      let ratio = median(window.map(\.1)) / before
      if !(ratio >= lowest) { lowest = ratio }
      if ratio <= c.vibrationStoppedFraction { return (ratio, true, true, start + 5) }
      start += 1
    }
    return (lowest, true, false, start + 4)
  }

  private mutating func decide() -> ImpactVerdict {
    let open = incident!
    incident = nil
    let c = configuration
    let t = open.joltSeconds
    var conditions = [
      ImpactCondition(
        .jolt, held: true, measured: open.peak, threshold: c.joltMetersPerSecondSquared,
        note: open.clipped ? "clipped: at least this, how much more is unknown" : "")
    ]
    let usedGPS = hasCurrentFix(t)
    var moving: Bool
    var stopped: Bool
    var decided = t + c.pressureAfterSeconds
    if usedGPS {
      let before = median(speeds.values(from: t + c.movingFromSeconds, to: t + c.movingToSeconds))
      let atJolt =
        speeds.values(from: t - c.currentFixAgeSeconds, to: t + c.movingAtJoltToSeconds).last ?? .nan
      moving = before >= c.movingMedianMetersPerSecond && atJolt >= c.movingAtJoltMetersPerSecond
      conditions.append(
        ImpactCondition(
          .movingBeforeGPS, held: before >= c.movingMedianMetersPerSecond, measured: before,
          threshold: c.movingMedianMetersPerSecond))
      conditions.append(
        ImpactCondition(
          .movingAtJoltGPS, held: atJolt >= c.movingAtJoltMetersPerSecond, measured: atJolt,
          threshold: c.movingAtJoltMetersPerSecond))
      if let rest = restSeconds(t) {
        let after = speeds.values(from: rest, to: rest + c.stayStoppedSeconds).dropFirst()
        let fastest = after.max() ?? .nan
        let enough = after.count >= c.stayStoppedMinimumFixes
        stopped = enough && fastest <= c.stoppedMetersPerSecond
        conditions.append(
          ImpactCondition(.restWithin, held: true, measured: rest - t, threshold: c.restWithinSeconds))
        conditions.append(
          ImpactCondition(
            .stayedStoppedGPS, held: stopped, measured: enough ? fastest : Double(after.count),
            threshold: enough ? c.stoppedMetersPerSecond : Double(c.stayStoppedMinimumFixes),
            note: enough ? "" : "too few fixes after the rest"))
        decided = max(decided, rest + c.stayStoppedSeconds)
      } else {
        stopped = false
        conditions.append(
          ImpactCondition(.restWithin, held: false, measured: .nan, threshold: c.restWithinSeconds))
        decided = max(decided, t + c.restWithinSeconds)
      }
    } else {
      let before = median(bins(from: t - 10, to: t - 1).map(\.1))
      let atJolt = median(bins(from: t - 3, to: t - 0.5).map(\.1))
      moving =
        before >= c.vibrationMovingMetersPerSecondSquared && atJolt >= c.vibrationMovingMetersPerSecondSquared
      conditions.append(
        ImpactCondition(
          .movingBeforeVibration, held: before >= c.vibrationMovingMetersPerSecondSquared, measured: before,
          threshold: c.vibrationMovingMetersPerSecondSquared))
      conditions.append(
        ImpactCondition(
          .movingAtJoltVibration, held: atJolt >= c.vibrationMovingMetersPerSecondSquared, measured: atJolt,
          threshold: c.vibrationMovingMetersPerSecondSquared))
      let stop = vibrationStop(t)
      stopped = stop.held
      conditions.append(
        ImpactCondition(
          .stoppedVibrationRatio, held: stop.held, measured: stop.ratio, threshold: c.vibrationStoppedFraction
        ))
      decided = max(decided, stop.end)
    }
    let peakSpin = spin.maximum(from: t + c.spinFromSeconds, to: t + c.spinToSeconds) ?? .nan
    let baseline = median(
      pressure.values(from: t + c.pressureBaselineFromSeconds, to: t + c.pressureBaselineToSeconds))
    let rise = (pressure.maximum(from: t, to: t + c.pressureAfterSeconds) ?? .nan) - baseline
    let vetoed = open.freeFallSeconds >= c.freeFallSeconds
    let spun = peakSpin >= c.spinRadiansPerSecond
    let pressed = rise >= c.pressureRiseHectopascals
    conditions.append(
      ImpactCondition(
        .spin, held: spun && !vetoed, measured: peakSpin, threshold: c.spinRadiansPerSecond,
        note: spun && vetoed ? "vetoed: the phone was falling" : ""))
    conditions.append(
      ImpactCondition(.pressureRise, held: pressed, measured: rise, threshold: c.pressureRiseHectopascals))
    conditions.append(
      ImpactCondition(
        .freeFallVeto, held: vetoed, measured: open.freeFallSeconds, threshold: c.freeFallSeconds))
    let report = moving && stopped && ((spun && !vetoed) || pressed)
    if report { lastReported = t }
    return ImpactVerdict(
      outcome: report ? .possibleImpact : .silent, joltSeconds: t, decidedSeconds: decided, usedGPS: usedGPS,
      conditions: conditions)
  }
}
