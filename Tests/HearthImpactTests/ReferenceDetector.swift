import HearthImpact

/// SPEC §9 read straight off the text and `ImpactConfiguration`'s documented
/// rules, deliberately plain and slow: it takes every batch at once, keeps
/// every sample, and recomputes each window from the raw samples (no rings,
/// no running state but the two exponential averages that define the
/// features). The property tests demand the detector agree with it.
enum ReferenceDetector {
  struct Verdict: Sendable, CustomStringConvertible {
    var outcome: ImpactVerdict.Outcome
    var joltSeconds: Double
    var incidentSeconds: Double
    var decidedSeconds: Double
    var usedGPS: Bool
    var stopByGPS: Bool
    /// Every condition: whether it held and the value measured.
    var conditions: [ImpactCondition.Name: (held: Bool, measured: Double)]

    var description: String {
      let parts = conditions.sorted { $0.key.rawValue < $1.key.rawValue }.map {
        "\($0.key.rawValue) \($0.value.held ? "held" : "failed") \($0.value.measured)"
      }
      return
        "\(outcome) at \(joltSeconds) s (incident \(incidentSeconds), decided \(decidedSeconds), \(usedGPS ? "GPS" : "vibration") moving, \(stopByGPS ? "GPS" : "vibration") stop): "
        + parts.joined(separator: "; ")
    }
  }

  private struct Acc {
    var t, x, y, z: Double
    var gate: Bool
  }

  static func median(_ v: [Double]) -> Double {
    if v.isEmpty { return .nan }
    let s = v.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }

  /// Skipped samples per stream: bad time, bad value, not newer.
  struct Skipped: Equatable, CustomStringConvertible {
    var badTime = 0, badValue = 0, notNewer = 0
    var description: String { "bad time \(badTime), bad value \(badValue), not newer \(notNewer)" }
  }

  /// The verdicts on everything the batches delivered, in jolt order, and the skipped samples
  /// (accelerometer, gyroscope, barometer, fixes).
  static func verdicts(_ batches: [ImpactBatch], _ c: ImpactConfiguration) -> [Verdict] {
    run(batches, c).verdicts
  }

  static func run(_ batches: [ImpactBatch], _ c: ImpactConfiguration) -> (
    verdicts: [Verdict], skipped: [Skipped]
  ) {
    // 1. Which samples are used: a time within ±bound and not after the
    //    batch's receipt, a value within the physical bounds; within a batch
    //    in time order (the first of equal times); only one newer than the
    //    last used of its stream.
    var acc: [Acc] = []
    var gyro: [(t: Double, w: Double)] = []
    var baro: [(t: Double, p: Double)] = []
    var fixes: [(t: Double, v: Double)] = []
    func goodTime(_ t: Double, _ b: ImpactBatch) -> Bool {
      abs(t) <= c.maximumAbsoluteTimeSeconds && (b.receivedSeconds.map { t <= $0 } ?? true)
    }
    var skipped = [Skipped](repeating: Skipped(), count: 4)
    /// The samples of one stream to use, in order, counting the others.
    func accept<T>(
      _ s: [T], _ b: ImpactBatch, _ stream: Int, _ last: Double?, _ time: (T) -> Double,
      _ valueOK: (T) -> Bool
    ) -> [T] {
      var good: [T] = []
      for x in s {
        if !goodTime(time(x), b) {
          skipped[stream].badTime += 1
        } else if !valueOK(x) {
          skipped[stream].badValue += 1
        } else {
          good.append(x)
        }
      }
      let ordered = good.enumerated().sorted { (time($0.element), $0.offset) < (time($1.element), $1.offset) }
      var out: [T] = []
      var newest = last ?? -.infinity
      for x in ordered.map(\.element) {
        if time(x) > newest {
          out.append(x)
          newest = time(x)
        } else {
          skipped[stream].notNewer += 1
        }
      }
      return out
    }
    for b in batches {
      let a = c.maximumAccelerationMetersPerSecondSquared
      for s in accept(
        b.accelerometer, b, 0, acc.last?.t, { $0.seconds },
        { abs($0.x) <= a && abs($0.y) <= a && abs($0.z) <= a })
      {
        acc.append(Acc(t: s.seconds, x: s.x, y: s.y, z: s.z, gate: b.vehicleGate))
      }
      let w = c.maximumRotationRadiansPerSecond
      for s in accept(
        b.gyroscope, b, 1, gyro.last?.t, { $0.seconds },
        { abs($0.x) <= w && abs($0.y) <= w && abs($0.z) <= w })
      {
        gyro.append((s.seconds, (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()))
      }
      for s in accept(
        b.barometer, b, 2, baro.last?.t, { $0.seconds },
        { $0.value >= c.minimumPressureHectopascals && $0.value <= c.maximumPressureHectopascals })
      {
        baro.append((s.seconds, s.value))
      }
      for s in accept(
        b.fixes, b, 3, fixes.last?.t, { $0.seconds },
        { $0.value.isNaN || ($0.value.isFinite && $0.value <= c.maximumSpeedMetersPerSecond) })
      {
        fixes.append((s.seconds, s.value))
      }
    }
    let speeds = fixes.filter { $0.v >= 0 }  // NaN and negative: unmeasured

    // 2. Features of every accelerometer sample, from the definitions.
    var dynamic: [Double] = []
    var vertical: [Double] = []
    var (gx, gy, gz) = (0.0, 0.0, 0.0)
    var (lx, ly, lz) = (0.0, 0.0, 0.0)
    for (i, s) in acc.enumerated() {
      if i == 0 { (gx, gy, gz, lx, ly, lz) = (s.x, s.y, s.z, s.x, s.y, s.z) }
      let dt = i == 0 ? 1 : min(1, s.t - acc[i - 1].t)
      let (dx, dy, dz) = (s.x - gx, s.y - gy, s.z - gz)
      dynamic.append((dx * dx + dy * dy + dz * dz).squareRoot())
      let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
      let (vx, vy, vz) = (s.x - lx, s.y - ly, s.z - lz)
      vertical.append(norm > 0 ? (vx * gx + vy * gy + vz * gz) / norm : 0)
      let slow = dt / (c.gravityTimeConstantSeconds + dt)
      gx += slow * (s.x - gx)
      gy += slow * (s.y - gy)
      gz += slow * (s.z - gz)
      let fast = dt / (c.vibrationTimeConstantSeconds + dt)
      lx += fast * (s.x - lx)
      ly += fast * (s.y - ly)
      lz += fast * (s.z - lz)
    }
    // Bins of binLength seconds, k = floor(t / binLength): the RMS of their samples' vertical part.
    let binLength = c.vibrationBinSeconds
    var binSums: [Double: (sum: Double, n: Int)] = [:]
    var binOrder: [Double] = []
    for (i, s) in acc.enumerated() {
      let k = (s.t / binLength).rounded(.down)
      if binSums[k] == nil { binOrder.append(k) }
      binSums[k, default: (0, 0)].sum += vertical[i] * vertical[i]
      binSums[k, default: (0, 0)].n += 1
    }
    let bins: [(start: Double, rms: Double)] = binOrder.map { k in
      let b = binSums[k] ?? (0, 1)
      return (k * binLength, (b.sum / Double(b.n)).squareRoot())
    }
    // Free-fall runs: consecutive samples with |a| below the line, ended by the first above.
    var falls: [(start: Double, end: Double)] = []
    var runStart: Double?
    for s in acc {
      if (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot() < c.freeFallMetersPerSecondSquared {
        if runStart == nil { runStart = s.t }
      } else if let start = runStart {
        falls.append((start, s.t))
        runStart = nil
      }
    }

    // 3. Jolts: a sample at or past the line opens a jolt (gate on), unless
    //    within the peak window of the newest jolt (then it is its peak); a
    //    jolt within the chain of the last and the deadline of its incident's
    //    first jolt continues that incident. "Moving before" is read at the
    //    incident's first jolt; "moving at the jolt" and "stopped after" at
    //    the jolt itself.
    struct Jolt {
      var t: Double
      var incident: Double
      var peak: Double
      var clipped: Bool
      var fall: Double
    }
    var jolts: [Jolt] = []
    var newest = -Double.infinity
    var incident = -Double.infinity
    // Every closed end and every length half a millisecond wider.
    let e = ImpactConfiguration.timeToleranceSeconds
    for (i, s) in acc.enumerated() where dynamic[i] >= c.joltMetersPerSecondSquared {
      let clipped = max(abs(s.x), abs(s.y), abs(s.z)) >= c.clipMetersPerSecondSquared
      if s.t - newest <= c.joltPeakWindowSeconds + e {
        if let last = jolts.indices.last, jolts[last].t == newest {
          jolts[last].peak = max(jolts[last].peak, dynamic[i])
          jolts[last].clipped = jolts[last].clipped || clipped
        }
        continue
      }
      guard s.gate else { continue }
      if s.t - newest > c.joltChainSeconds + e || s.t - incident > c.verdictDeadlineSeconds + e {
        incident = s.t
      }
      newest = s.t
      let fall =
        falls.filter {
          $0.end <= s.t
            && $0.end >= s.t - (c.freeFallEndsBeforeJoltSeconds + e)
        }
        .map { $0.end - $0.start }.max() ?? 0
      jolts.append(Jolt(t: s.t, incident: incident, peak: dynamic[i], clipped: clipped, fall: fall))
    }

    // 4. Each jolt in order: suppressed within the suppression of the last
    //    report, else judged on its windows.
    var out: [Verdict] = []
    var lastReport: (t: Double, decided: Double)?
    for j in jolts {
      let t = j.t
      let a = j.incident
      if let r = lastReport, t - r.t < c.suppressionSeconds - e {
        out.append(
          Verdict(
            outcome: .suppressed, joltSeconds: t, incidentSeconds: a,
            decidedSeconds: max(t + c.joltPeakWindowSeconds, r.decided),
            usedGPS: false, stopByGPS: false, conditions: [.jolt: (true, j.peak)]))
        continue
      }
      var cond: [ImpactCondition.Name: (held: Bool, measured: Double)] = [:]
      cond[.jolt] = (true, j.peak)
      var decided = max(t + c.joltPeakWindowSeconds, t + c.spinToSeconds, t + c.pressureAfterSeconds)
      func inWindow(_ x: Double, _ from: Double, _ to: Double) -> Bool { x >= from - e && x <= to + e }
      // GPS reads "moving before" only with a fix in both of its windows.
      let current =
        speeds.contains { inWindow($0.t, t - c.currentFixAgeSeconds, t + c.movingAtJoltToSeconds) }
        && speeds.contains { inWindow($0.t, a + c.movingFromSeconds, a + c.movingToSeconds) }
      let vBefore = median(
        bins.filter {
          $0.start >= a + c.vibrationMovingFromSeconds
            && $0.start + binLength <= a + c.vibrationMovingToSeconds
        }
        .map(\.rms))
      var moving: Bool
      var stopped = false
      var stopByGPS = false
      var needVibration = true
      if current {
        let before = median(
          speeds.filter { inWindow($0.t, a + c.movingFromSeconds, a + c.movingToSeconds) }.map(\.v))
        let atJolt =
          speeds.last { inWindow($0.t, t - c.currentFixAgeSeconds, t + c.movingAtJoltToSeconds) }?.v ?? .nan
        cond[.movingBeforeGPS] = (before >= c.movingMedianMetersPerSecond, before)
        cond[.movingAtJoltGPS] = (atJolt >= c.movingAtJoltMetersPerSecond, atJolt)
        moving = before >= c.movingMedianMetersPerSecond && atJolt >= c.movingAtJoltMetersPerSecond
        let restEnd = t + c.restWithinSeconds
        if let rest = speeds.first(where: {
          $0.t > t && $0.t <= restEnd + e && $0.v <= c.stoppedMetersPerSecond
        }) {
          let after = speeds.filter { $0.t > rest.t && $0.t <= rest.t + c.stayStoppedSeconds + e }.map(\.v)
          let fastest = after.max() ?? .nan
          decided = max(decided, rest.t + c.stayStoppedSeconds)
          // Moving again on clear evidence only (one fast fix, or most of at
          // least three fixes over the stopped line); noise over it leaves it
          // to the vibration.
          let over = after.filter { $0 > c.stoppedMetersPerSecond }.count
          let movingAgain =
            fastest > c.movingAgainMetersPerSecond
            || (after.count >= c.stayStoppedMinimumFixes && over * 2 > after.count)
          if movingAgain || (over == 0 && after.count >= c.stayStoppedMinimumFixes) {
            stopByGPS = true
            needVibration = false
            stopped = !movingAgain
            cond[.restWithin] = (true, rest.t - t)
            cond[.stayedStoppedGPS] = (stopped, fastest)
          }
        } else {
          decided = max(decided, restEnd)
          if speeds.contains(where: { inWindow($0.t, restEnd - c.currentFixAgeSeconds, restEnd) }) {
            stopByGPS = true
            needVibration = false
            cond[.restWithin] = (false, .nan)
          }
        }
      } else {
        let atJolt = median(
          bins.filter {
            $0.start >= t + c.vibrationMovingAtJoltFromSeconds
              && $0.start + binLength <= t + c.vibrationMovingAtJoltToSeconds
          }.map(\.rms))
        let line = c.vibrationMovingMetersPerSecondSquared
        cond[.movingBeforeVibration] = (vBefore >= line, vBefore)
        cond[.movingAtJoltVibration] = (atJolt >= line, atJolt)
        moving = vBefore >= line && atJolt >= line
      }
      if needVibration {
        // The first window of whole bins, starting on a bin within [a + earliest, a + latest],
        // with every bin there and a median at most the fraction of the pre-jolt median.
        let n = max(1, Int((c.vibrationStopWindowSeconds / binLength).rounded()))
        var k = ((t + c.vibrationStopEarliestStartSeconds) / binLength).rounded(.up)
        var lowest = Double.nan
        var end = t + c.vibrationStopEarliestStartSeconds
        var held = false
        while k * binLength <= t + c.vibrationStopLatestStartSeconds {
          let windowEnd = (k + Double(n)) * binLength
          end = windowEnd
          let window = bins.filter { $0.start >= k * binLength && $0.start < windowEnd }.map(\.rms)
          if window.count == n {
            let ratio = median(window) / vBefore
            if lowest.isNaN || ratio < lowest { lowest = ratio }
            if ratio <= c.vibrationStoppedFraction {
              held = true
              break
            }
          }
          k += 1
        }
        stopped = held
        cond[.stoppedVibrationRatio] = (held, lowest)  // the deciding window is the lowest so far
        decided = max(decided, end)
      }
      let spin =
        gyro.filter { inWindow($0.t, t + c.spinFromSeconds, t + c.spinToSeconds) }.map(\.w).max() ?? .nan
      let peakPressure = baro.filter { inWindow($0.t, t, t + c.pressureAfterSeconds) }.map(\.p).max() ?? .nan
      let baseline = median(
        baro.filter { inWindow($0.t, t + c.pressureBaselineFromSeconds, t + c.pressureBaselineToSeconds) }
          .map(\.p))
      let rise = peakPressure - baseline
      let vetoed = j.fall > 0 && j.fall >= c.freeFallSeconds - e
      let spun = spin >= c.spinRadiansPerSecond
      let pressed = rise >= c.pressureRiseHectopascals
      cond[.spin] = (spun && !vetoed, spin)
      cond[.pressureRise] = (pressed, rise)
      cond[.freeFallVeto] = (vetoed, j.fall)
      let report = moving && stopped && ((spun && !vetoed) || pressed)
      if report { lastReport = (t, decided) }
      out.append(
        Verdict(
          outcome: report ? .possibleImpact : .silent, joltSeconds: t, incidentSeconds: a,
          decidedSeconds: decided,
          usedGPS: current, stopByGPS: stopByGPS, conditions: cond))
    }
    return (out, skipped)
  }
}
