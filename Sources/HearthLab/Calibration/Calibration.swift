import Foundation
import HearthGeo
import HearthSim
import HearthTrace

/// Statistics that compare generated traces with real recordings: road
/// vibration, speeds, fix intervals and network accuracy. The comparison
/// (`compare(_:)`) is printed by `hearth sim calibrate` and
/// recorded in docs/guides/simulator-calibration.md.
public enum Calibration {
  /// Vertical vibration level per window, m/s²: the samples are averaged
  /// into 20 ms bins (what a 50 Hz phone sees), each `windowSeconds` window
  /// is projected on its own mean direction (gravity), and the RMS about
  /// that mean is taken. Windows with fewer than half their bins are skipped.
  /// - Complexity: O(n).
  public static func verticalVibrationRMS(_ stream: VectorStream, windowSeconds: Double = 1) -> [Double] {
    guard let first = stream.seconds.first else { return [] }
    // 20 ms bins.
    var bins: [(Double, Double, Double)] = []
    var binStart = first
    var sum = (0.0, 0.0, 0.0)
    var n = 0.0
    var binTimes: [Double] = []
    for i in 0..<stream.count {
      let t = stream.seconds[i]
      if t >= binStart + 0.02 {
        if n > 0 {
          bins.append((sum.0 / n, sum.1 / n, sum.2 / n))
          binTimes.append(binStart)
        }
        binStart += 0.02 * ((t - binStart) / 0.02).rounded(.down)
        sum = (0, 0, 0)
        n = 0
      }
      sum = (sum.0 + stream.x[i], sum.1 + stream.y[i], sum.2 + stream.z[i])
      n += 1
    }
    let perWindow = Int((windowSeconds / 0.02).rounded())
    var levels: [Double] = []
    var start = 0
    while start < bins.count {
      var end = start
      while end < bins.count && binTimes[end] < binTimes[start] + windowSeconds { end += 1 }
      defer { start = end }
      guard end - start >= perWindow / 2 else { continue }
      var mean = (0.0, 0.0, 0.0)
      for b in bins[start..<end] { mean = (mean.0 + b.0, mean.1 + b.1, mean.2 + b.2) }
      let count = Double(end - start)
      mean = (mean.0 / count, mean.1 / count, mean.2 / count)
      let norm = (mean.0 * mean.0 + mean.1 * mean.1 + mean.2 * mean.2).squareRoot()
      guard norm > 0 else { continue }
      let up = (mean.0 / norm, mean.1 / norm, mean.2 / norm)
      var squares = 0.0
      for b in bins[start..<end] {
        let vertical = (b.0 - mean.0) * up.0 + (b.1 - mean.1) * up.1 + (b.2 - mean.2) * up.2
        squares += vertical * vertical
      }
      levels.append((squares / count).squareRoot())
    }
    return levels
  }

  /// Seconds between consecutive fixes (time order).
  public static func fixIntervalsSeconds(_ fixes: FixColumns) -> [Double] {
    let t = fixes.timeMilliseconds.sorted()
    return zip(t, t.dropFirst()).map { Double($1 - $0) / 1000 }
  }

  /// Measured speeds above 1 m/s (moving), m/s.
  public static func movingSpeeds(_ fixes: FixColumns) -> [Double] {
    fixes.speedMetersPerSecond.filter { $0 > 1 }
  }

  /// The `q`-quantiles (0…1) by the nearest-rank rule; empty input gives NaN.
  public static func quantiles(_ values: [Double], _ q: [Double] = [0.1, 0.5, 0.9]) -> [Double] {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return q.map { _ in .nan } }
    return q.map { sorted[min(sorted.count - 1, Int(($0 * Double(sorted.count)).rounded(.down)))] }
  }

  /// One compared statistic: 10th, 50th and 90th percentiles of each side.
  public struct Row: Sendable, Hashable {
    public var statistic: String
    public var real: [Double]
    public var realSource: String
    public var synthetic: [Double]
    public var syntheticSource: String
  }

  /// Synthetic vibration of a mounted phone cruising on `road` for 2 min.
  public static func syntheticVibration(_ road: RoadType, speed: Double, seed: UInt64 = 1) -> [Double] {
    let plan = DrivePlan(
      segments: [MotionSegment(durationSeconds: 120, endSpeedMetersPerSecond: speed, road: road)],
      initialSpeedMetersPerSecond: speed)
    return verticalVibrationRMS(DriveSimulator.record(plan: plan, seed: seed).trace.accelerometer!.samples)
  }

  /// Compares the generators with the shared recordings (comma2k19's
  /// highway segment, the MEMS-Nav drive).
  /// - Throws: `TraceError` when a recording cannot be read.
  public static func compare(_ datasets: SharedDatasets) throws -> [Row] {
    var rows: [Row] = []
    let (highway, _) = try TraceFolder.readComma2k19Segment(datasets.comma2k19Segment)
    let canSpeed = highway.scalars["canSpeed"].map { quantiles($0.values, [0.5])[0] } ?? .nan
    rows.append(
      Row(
        statistic: "vertical vibration, 1-s RMS, highway (m/s²)",
        real: quantiles(verticalVibrationRMS(highway.accelerometer!.samples)),
        realSource: "comma2k19 segment, \(Int((canSpeed * 3.6).rounded())) km/h",
        synthetic: quantiles(syntheticVibration(.highway, speed: canSpeed.isFinite ? canSpeed : 30)),
        syntheticSource: "mounted phone, highway road, same speed"))
    for road in [RoadType.urban, .rough, .cobbles] {
      rows.append(
        Row(
          statistic: "vertical vibration, 1-s RMS, \(road.rawValue) (m/s²)", real: [.nan, .nan, .nan],
          realSource: "no recording (impact-physics §5.1 level \(road.vibrationRMS))",
          synthetic: quantiles(syntheticVibration(road, speed: 12)), syntheticSource: "mounted phone, 12 m/s")
      )
    }

    // Speeds and intervals: the mems-nav drives against generated days.
    let (logger, _) = try SensorLoggerReader.read(folder: datasets.memsNavRawDrive)
    var daySpeeds: [Double] = []
    var dayDrivingIntervals: [Double] = []
    var dayNetwork: [Double] = []
    for seed in UInt64(1)...10 {
      let day = DayGenerator.generate(seed: seed)
      var phone = FixColumns()
      var seen = Set<Int64>()
      for upload in day.uploads where upload.device.rawValue == 1 && !upload.isRepeat {
        for i in 0..<upload.fixes.count where seen.insert(upload.fixes.timeMilliseconds[i]).inserted {
          phone.append(from: upload.fixes, at: i)
        }
      }
      let driving = phone.selecting(phone.activity.indices.filter { phone.activity[$0] == .automotive })
      daySpeeds += movingSpeeds(driving)
      dayDrivingIntervals += fixIntervalsSeconds(driving).filter { $0 < 120 }
      dayNetwork += phone.activity.indices.filter { phone.activity[$0] == .unknown }.map {
        phone.horizontalAccuracyMeters[$0]
      }
    }
    rows.append(
      Row(
        statistic: "speed while moving (m/s)", real: quantiles(movingSpeeds(logger.fixes)),
        realSource: "mems-nav raw drive (Pennsylvania)", synthetic: quantiles(daySpeeds),
        syntheticSource: "10 generated days, driving fixes"))
    let c1 = ScenarioCatalogue.scenario("N1")!.generate(seed: 1).trace.fixes
    rows.append(
      Row(
        statistic: "GPS fix interval, logger at 1 Hz (s)", real: quantiles(fixIntervalsSeconds(logger.fixes)),
        realSource: "mems-nav raw Location.csv", synthetic: quantiles(fixIntervalsSeconds(c1)),
        syntheticSource: "DriveSimulator GPS (N1, 30 min)"))
    rows.append(
      Row(
        statistic: "fix interval while driving, tracker cadence (s)", real: [.nan, .nan, .nan],
        realSource: "SPEC §6: one per 10 s (50 m gate)", synthetic: quantiles(dayDrivingIntervals),
        syntheticSource: "10 generated days (live stretches at 1 s)"))
    rows.append(
      Row(
        statistic: "network fix accuracy (m)",
        real: quantiles(logger.providerFixes["network"]?.horizontalAccuracyMeters ?? []),
        realSource: "mems-nav LocationNetwork.csv", synthetic: quantiles(dayNetwork),
        syntheticSource: "10 generated days"))
    return rows
  }

  /// The rows as a Markdown table.
  public static func markdown(_ rows: [Row]) -> String {
    func format(_ q: [Double]) -> String {
      q.contains { $0.isNaN }
        ? "–" : q.map { String(format: $0 < 10 ? "%.2f" : "%.0f", $0) }.joined(separator: " / ")
    }
    var out =
      "| statistic | real p10 / p50 / p90 | real source | synthetic p10 / p50 / p90 | synthetic source |\n"
    out += "|---|---|---|---|---|\n"
    for row in rows {
      out +=
        "| \(row.statistic) | \(format(row.real)) | \(row.realSource) | \(format(row.synthetic)) | \(row.syntheticSource) |\n"
    }
    return out
  }
}
