import HearthTrace

/// Measurements on a generated trace, computed here independently of the
/// simulator's internals, to check that every label is physically true.
public struct TraceProbe {
  public let trace: Trace
  public let g = 9.806_65

  public init(trace: Trace) { self.trace = trace }

  /// Peak |a − gravity| in [from, to] seconds, gravity taken as the mean
  /// reading over the 2 s before `from` (impact-physics D1's "dynamic").
  public func peakDynamic(_ from: Double, _ to: Double) -> Double {
    let a = trace.accelerometer!.samples
    var mean = (0.0, 0.0, 0.0)
    var n = 0.0
    for i in 0..<a.count where a.seconds[i] >= from - 2 && a.seconds[i] < from {
      mean = (mean.0 + a.x[i], mean.1 + a.y[i], mean.2 + a.z[i])
      n += 1
    }
    if n > 0 { mean = (mean.0 / n, mean.1 / n, mean.2 / n) }
    var peak = 0.0
    for i in 0..<a.count where a.seconds[i] >= from && a.seconds[i] <= to {
      let d = (a.x[i] - mean.0, a.y[i] - mean.1, a.z[i] - mean.2)
      let squared: Double = d.0 * d.0 + d.1 * d.1 + d.2 * d.2
      peak = max(peak, squared.squareRoot())
    }
    return peak
  }

  /// Peak |ω| on any axis in [from, to].
  public func peakSpin(_ from: Double, _ to: Double) -> Double {
    let w = trace.gyroscope!
    var peak = 0.0
    for i in 0..<w.count where w.seconds[i] >= from && w.seconds[i] <= to {
      peak = max(peak, abs(w.x[i]), abs(w.y[i]), abs(w.z[i]))
    }
    return peak
  }

  /// max p over [t, t+2] − median p over [t−5, t−0.5] (impact-physics D8).
  public func pressureRise(at t: Double) -> Double {
    let b = trace.barometer!
    var before: [Double] = []
    var after = -Double.infinity
    for i in 0..<b.count {
      if b.seconds[i] >= t - 5 && b.seconds[i] <= t - 0.5 { before.append(b.hectopascals[i]) }
      if b.seconds[i] >= t && b.seconds[i] <= t + 2 { after = max(after, b.hectopascals[i]) }
    }
    before.sort()
    return after - before[before.count / 2]
  }

  /// GPS speeds of fixes taken in [from, to] seconds.
  public func speeds(_ from: Double, _ to: Double) -> [Double] {
    let origin = trace.metadata.timeOriginMilliseconds!
    return (0..<trace.fixes.count).compactMap { i in
      let t = Double(trace.fixes.timeMilliseconds[i] - origin) / 1000
      return t >= from && t <= to ? trace.fixes.speedMetersPerSecond[i] : nil
    }
  }
}
