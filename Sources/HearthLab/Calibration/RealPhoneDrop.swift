import HearthGeo
import HearthSim
import HearthTrace

/// Real phone drops (the phyphox "falling smartphone" recordings) cut out
/// for injection into a simulated drive (`ScenarioCatalogue.realPhoneDrop`).
public enum RealPhoneDrop {
  /// Reads a phyphox fall recording and keeps 1 s before the impact to 1 s
  /// after it, resampled to 50 Hz. Each 20 ms bin keeps the reading that
  /// strays furthest from 1 g (a 50 Hz phone's peak-holding view: the impact
  /// spike survives the resampling, the free fall reads ≈ 0 g throughout).
  /// - Throws: `TraceError` when the folder cannot be read, or `.malformed`
  ///   when it holds no accelerometer or no free fall before the impact.
  public static func load(phyphoxFolder path: String) throws -> RecordedMotion {
    let (trace, _) = try PhyphoxReader.read(path: path)
    guard let stream = trace.accelerationIncludingGravity(), stream.count > 100 else {
      throw TraceError.malformed(SourceLocation(file: path, line: 0), reason: "no accelerometer with gravity")
    }
    let g = Quantity.standardGravity
    var impact = 0
    var peak = 0.0
    var magnitude = [Double](repeating: 0, count: stream.count)
    for i in 0..<stream.count {
      let squared = stream.x[i] * stream.x[i] + stream.y[i] * stream.y[i] + stream.z[i] * stream.z[i]
      magnitude[i] = squared.squareRoot()
      if magnitude[i] > peak {
        peak = magnitude[i]
        impact = i
      }
    }
    // A real drop: at least 0.1 s below 0.3 g within the second before the impact.
    let t0 = stream.seconds[impact]
    var freeFall = 0.0
    var previous: Double?
    for i in 0..<impact where stream.seconds[i] >= t0 - 1 {
      if magnitude[i] < 0.3 * g, let p = previous { freeFall += stream.seconds[i] - p }
      previous = stream.seconds[i]
    }
    guard freeFall >= 0.1 else {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 0), reason: "no free fall before the largest reading")
    }
    let dt = 0.02
    var x: [Double] = []
    var y: [Double] = []
    var z: [Double] = []
    var impactIndex = 0
    var bin = 0
    var i = 0
    while i < stream.count && stream.seconds[i] < t0 - 1 - dt / 2 { i += 1 }
    while bin <= 100 {
      let centre = t0 - 1 + Double(bin) * dt
      var best: Int?
      while i < stream.count && stream.seconds[i] < centre + dt / 2 {
        if best == nil || abs(magnitude[i] - g) > abs(magnitude[best!] - g) { best = i }
        i += 1
      }
      if let best {
        x.append(stream.x[best])
        y.append(stream.y[best])
        z.append(stream.z[best])
        if best == impact { impactIndex = x.count - 1 }
      } else if let last = x.indices.last {
        // No reading in this bin (a gap): hold the last value.
        x.append(x[last])
        y.append(y[last])
        z.append(z[last])
      }
      bin += 1
    }
    return RecordedMotion(
      x: x, y: y, z: z, impactIndex: impactIndex,
      source: "phone-drop-freefall/" + (path.split(separator: "/").last.map(String.init) ?? path))
  }
}
