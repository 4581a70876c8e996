import HearthImpact
import HearthSim

/// The signals around one jolt, in 0.1 s bins from 3 s before it to 10 s
/// after: what a researcher looks at to see why a verdict went the way it
/// did. Empty bins hold NaN.
public struct SignalExcerpt: Sendable, Hashable, Codable {
  public static let binSeconds = 0.1
  public static let beforeSeconds = 3.0
  public static let afterSeconds = 10.0
  /// Start of the first bin, s on the trace's clock.
  public var startSeconds: Double
  /// Peak total acceleration in the bin, g.
  public var accelerationG: [Float]
  /// Peak angular rate in the bin, rad/s.
  public var spinRadiansPerSecond: [Float]
  /// Last barometer reading in the bin, hPa.
  public var pressureHectopascals: [Float]
  /// Last measured GPS speed in the bin, m/s.
  public var speedMetersPerSecond: [Float]
}

/// Keeps the last ~100 s of signals in 0.1 s bins (fixed memory) and cuts
/// excerpts around jolts once the data past their window has arrived.
/// O(1) per sample.
struct SignalRecorder {
  private static let capacity = 1024
  private var tag = [Int64](repeating: .min, count: capacity)
  private var acceleration = [Float](repeating: .nan, count: capacity)
  private var spin = [Float](repeating: .nan, count: capacity)
  private var pressure = [Float](repeating: .nan, count: capacity)
  private var speed = [Float](repeating: .nan, count: capacity)
  private var latestSeconds = -Double.infinity
  /// Jolts waiting for the end of their window: (key, jolt time).
  private var waiting: [(Int, Double)] = []
  private(set) var excerpts: [Int: SignalExcerpt] = [:]

  private mutating func slot(_ seconds: Double) -> Int? {
    // Beyond ±2^62 bins (±1.4e10 years) a time cannot be a sample's: skip it
    // rather than trap converting it.
    let exact = (seconds / SignalExcerpt.binSeconds).rounded(.down)
    guard exact.magnitude < 0x1p62 else { return nil }
    let bin = Int64(exact)
    let i = Int(bin & Int64(Self.capacity - 1))
    if tag[i] != bin {
      guard bin > tag[i] else { return nil }  // older than the ring holds
      tag[i] = bin
      acceleration[i] = .nan
      spin[i] = .nan
      pressure[i] = .nan
      speed[i] = .nan
    }
    return i
  }

  private static func peak(_ old: Float, _ new: Double) -> Float {
    old.isNaN ? Float(new) : max(old, Float(new))
  }

  mutating func add(_ batch: ImpactBatch) {
    let g = ImpactConfiguration.standardGravity
    for s in batch.accelerometer {
      guard let i = slot(s.seconds) else { continue }
      acceleration[i] = Self.peak(acceleration[i], (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot() / g)
      latestSeconds = max(latestSeconds, s.seconds)
    }
    for s in batch.gyroscope {
      guard let i = slot(s.seconds) else { continue }
      spin[i] = Self.peak(spin[i], (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot())
    }
    for s in batch.barometer { if let i = slot(s.seconds) { pressure[i] = Float(s.value) } }
    for s in batch.fixes where s.value >= 0 { if let i = slot(s.seconds) { speed[i] = Float(s.value) } }
    flush(final: false)
  }

  /// Asks for the excerpt around `joltSeconds`, filed under `key`.
  mutating func want(_ key: Int, joltSeconds: Double) {
    waiting.append((key, joltSeconds))
    flush(final: false)
  }

  /// Cuts every waiting excerpt whose window is complete (all of them when `final`).
  mutating func flush(final: Bool) {
    var still: [(Int, Double)] = []
    for (key, jolt) in waiting {
      if final || latestSeconds >= jolt + SignalExcerpt.afterSeconds {
        excerpts[key] = cut(around: jolt)
      } else {
        still.append((key, jolt))
      }
    }
    waiting = still
  }

  private func cut(around jolt: Double) -> SignalExcerpt {
    let first = Int64(((jolt - SignalExcerpt.beforeSeconds) / SignalExcerpt.binSeconds).rounded(.down))
    let count = Int(
      ((SignalExcerpt.beforeSeconds + SignalExcerpt.afterSeconds) / SignalExcerpt.binSeconds).rounded())
    var e = SignalExcerpt(
      startSeconds: Double(first) * SignalExcerpt.binSeconds, accelerationG: [], spinRadiansPerSecond: [],
      pressureHectopascals: [], speedMetersPerSecond: [])
    for bin in first..<(first + Int64(count)) {
      let i = Int(bin & Int64(Self.capacity - 1))
      let here = tag[i] == bin
      e.accelerationG.append(here ? acceleration[i] : .nan)
      e.spinRadiansPerSecond.append(here ? spin[i] : .nan)
      e.pressureHectopascals.append(here ? pressure[i] : .nan)
      e.speedMetersPerSecond.append(here ? speed[i] : .nan)
    }
    return e
  }
}

extension ImpactEvaluation {
  /// One detector over a sequence of batches, recording the signals around
  /// every verdict: (verdicts, excerpt per verdict, same order).
  static func verdictsWithSignals(
    _ batches: some Sequence<ImpactBatch>, configuration: ImpactConfiguration
  ) -> ([ImpactVerdict], [SignalExcerpt]) {
    var detector = ImpactDetector(configuration: configuration)
    var recorder = SignalRecorder()
    var verdicts: [ImpactVerdict] = []
    func take(_ new: [ImpactVerdict]) {
      for v in new {
        recorder.want(verdicts.count, joltSeconds: v.joltSeconds)
        verdicts.append(v)
      }
    }
    for batch in batches {
      recorder.add(batch)
      take(detector.process(batch))
    }
    take(detector.finish())
    recorder.flush(final: true)
    return (verdicts, verdicts.indices.map { recorder.excerpts[$0]! })
  }
}
