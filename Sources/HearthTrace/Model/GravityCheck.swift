import Foundation

/// The plausibility check that catches a stream read in the wrong unit:
/// on Earth gravity's magnitude is 9.81 m/s², so a gravity estimate, or an
/// accelerometer that includes gravity while the phone is at rest, must read
/// about that. A file in g read as m/s² reads 1; one in m/s² scaled as if in
/// g reads 96. Either is a unit problem, not a recording.
///
/// What is measured:
/// - a gravity estimate (Sensor Logger's Gravity.csv): the median of |g| over
///   every sample;
/// - an accelerometer that includes gravity: the median, over the stretches
///   of ``restWindowSeconds`` in which |a| is steady (standard deviation at
///   most ``restRelativeSpread`` of the stretch's mean |a|, at least
///   ``restMinimumSamples`` samples), of each stretch's mean |a|. Steadiness
///   is judged relative to the magnitude so that a unit factor, which scales
///   the noise with the signal, cannot move a stretch in or out of rest.
/// - an accelerometer never steady (a phone in a moving car, in a pocket):
///   the median over every stretch of its mean |a|, which for a car, a walk
///   or a run is still about 1 g, against the wider ``movingTolerance``.
///
/// The median is taken from a histogram of logarithmic bins 0.1 % wide, so
/// the check needs O(1) memory and gives the same answer however the
/// stream is read (whole or in chunks, in the file's row order): the verdict
/// is decided on the median bin's centre, good to 0.05 %.
///
/// Choice (the "within a few percent"), per kind:
/// - a gravity estimate, which the phone's sensor fusion normalises, within
///   ``gravityEstimateTolerance`` = 5 %;
/// - a raw accelerometer at rest within ``totalAccelerationTolerance`` =
///   15 %: accelerometers carry offsets of several percent (the phone of the
///   shared phyphox drop recordings reads 9.26–10.0 m/s² at rest, −5.6 … +2 %).
/// - an accelerometer never at rest within ``movingTolerance`` = 50 %
///   (4.9–14.7 m/s²): motion lifts the mean |a| of a stretch above 1 g (a
///   walk by about 5 %, a run by 10–20 %) and a car's bumps average out.
/// All are far from the factor of 9.8 (or 10, or 100) a unit mix-up gives.
public struct GravityCheck: Sendable, Hashable {
  /// Standard gravity, m/s².
  public static let expectedMetersPerSecondSquared = Quantity.standardGravity
  /// Allowed relative deviation of a gravity estimate's median.
  public static let gravityEstimateTolerance = 0.05
  /// Allowed relative deviation of an accelerometer's median at rest.
  public static let totalAccelerationTolerance = 0.15
  /// Length of a stretch examined for rest, s.
  public static let restWindowSeconds = 1.0
  /// Largest standard deviation of |a| in a stretch at rest, as a fraction
  /// of the stretch's mean |a| (0.05: 0.49 m/s² at 1 g).
  public static let restRelativeSpread = 0.05
  /// Allowed relative deviation of an accelerometer's median never at rest.
  public static let movingTolerance = 0.5
  /// Fewest samples in a stretch at rest.
  public static let restMinimumSamples = 3

  /// What the stream holds.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// The phone's gravity estimate: every sample is gravity.
    case gravityEstimate
    /// Total specific force: gravity only while at rest.
    case totalAcceleration
  }

  /// What a median was taken over.
  public enum Basis: String, Sendable, Hashable {
    /// Every sample of a gravity estimate.
    case everySample
    /// The stretches at rest of a total acceleration.
    case atRest
    /// Every stretch of a total acceleration never at rest.
    case neverAtRest
  }

  /// The outcome, with the measured median in m/s² and what it is over.
  public enum Verdict: Sendable, Hashable {
    case plausible(medianMetersPerSecondSquared: Double, basis: Basis)
    case implausible(medianMetersPerSecondSquared: Double, basis: Basis)
    /// Nothing to measure (no sample; never at rest), with why.
    case notChecked(String)
  }

  public let kind: Kind
  private var counts: [Int]
  private var total = 0
  /// Every stretch's mean |a|, at rest or not (total acceleration only).
  private var movingCounts: [Int] = []
  private var movingTotal = 0
  // The open rest stretch (total acceleration only).
  private var windowStart = Double.nan
  private var windowCount = 0
  private var windowSum = 0.0
  private var windowSquares = 0.0

  private static let lowestMagnitude = 1e-3
  private static let binRatio = 1.001
  private static let binCount = 18_500  // 1e-3 … 1.0e5 m/s²

  public init(kind: Kind) {
    self.kind = kind
    counts = Array(repeating: 0, count: Self.binCount)
    if kind == .totalAcceleration { movingCounts = counts }
  }

  /// Adds one sample (seconds, m/s² components), in the file's row order.
  /// Non-finite samples are ignored. O(1).
  public mutating func add(seconds: Double, x: Double, y: Double, z: Double) {
    let magnitude = (x * x + y * y + z * z).squareRoot()
    guard magnitude.isFinite, seconds.isFinite else { return }
    switch kind {
    case .gravityEstimate:
      Self.count(magnitude, in: &counts, total: &total)
    case .totalAcceleration:
      if windowCount > 0 && (seconds < windowStart || seconds >= windowStart + Self.restWindowSeconds) {
        closeWindow()
      }
      if windowCount == 0 { windowStart = seconds }
      windowCount += 1
      windowSum += magnitude
      windowSquares += magnitude * magnitude
    }
  }

  private mutating func closeWindow() {
    defer {
      windowCount = 0
      windowSum = 0
      windowSquares = 0
    }
    guard windowCount >= Self.restMinimumSamples else { return }
    let n = Double(windowCount)
    let mean = windowSum / n
    let variance = max(0, windowSquares / n - mean * mean)
    let limit = Self.restRelativeSpread * mean
    if variance <= limit * limit { Self.count(mean, in: &counts, total: &total) }
    Self.count(mean, in: &movingCounts, total: &movingTotal)
  }

  private static func count(_ magnitude: Double, in counts: inout [Int], total: inout Int) {
    let bin: Int
    if magnitude <= Self.lowestMagnitude {
      bin = 0
    } else {
      let raw = (log(magnitude / Self.lowestMagnitude) / log(Self.binRatio)).rounded(.down)
      bin = raw >= Double(Self.binCount - 1) ? Self.binCount - 1 : Int(raw)
    }
    counts[bin] += 1
    total += 1
  }

  /// The verdict over everything added. O(bins).
  public func verdict() -> Verdict {
    var check = self
    if check.windowCount > 0 { check.closeWindow() }
    let basis: Basis
    let median: Double
    if check.total > 0 {
      basis = kind == .gravityEstimate ? .everySample : .atRest
      median = Self.median(check.counts, total: check.total)
    } else if check.movingTotal > 0 {
      basis = .neverAtRest
      median = Self.median(check.movingCounts, total: check.movingTotal)
    } else {
      return .notChecked(
        kind == .gravityEstimate
          ? "no sample" : "no stretch of \(Self.restWindowSeconds) s with \(Self.restMinimumSamples) samples")
    }
    let deviation = abs(median / Self.expectedMetersPerSecondSquared - 1)
    return deviation <= Self.tolerance(basis)
      ? .plausible(medianMetersPerSecondSquared: median, basis: basis)
      : .implausible(medianMetersPerSecondSquared: median, basis: basis)
  }

  /// The centre of the histogram's median bin, m/s².
  private static func median(_ counts: [Int], total: Int) -> Double {
    let half = (total + 1) / 2
    var seen = 0
    var bin = 0
    for (k, c) in counts.enumerated() {
      seen += c
      if seen >= half {
        bin = k
        break
      }
    }
    return lowestMagnitude * pow(binRatio, Double(bin) + 0.5)
  }

  /// The allowed relative deviation for a median taken over `basis`.
  public static func tolerance(_ basis: Basis) -> Double {
    switch basis {
    case .everySample: gravityEstimateTolerance
    case .atRest: totalAccelerationTolerance
    case .neverAtRest: movingTolerance
    }
  }

  /// The verdict in words, for a report ("median |gravity| 9.81 m/s²").
  public static func describe(_ verdict: Verdict, kind: Kind) -> String {
    func what(_ basis: Basis) -> String {
      switch basis {
      case .everySample: "median |gravity|"
      case .atRest: "median |a| at rest"
      case .neverAtRest:
        "median |a| (never at rest, so moving: judged within \(Int(movingTolerance * 100)) %)"
      }
    }
    switch verdict {
    case .plausible(let m, let basis):
      return "\(what(basis)) \(format(m)) m/s² (gravity check passed)"
    case .implausible(let m, let basis):
      let ratio = m / expectedMetersPerSecondSquared
      var hint = ""
      if abs(ratio / expectedMetersPerSecondSquared - 1) < 0.1 {
        hint = "; about 9.81 times too large, as if values in m/s² were read as g"
      } else if abs(ratio * expectedMetersPerSecondSquared - 1) < 0.1 {
        hint = "; about 9.81 times too small, as if values in g were read as m/s²"
      }
      return
        "unit problem: \(what(basis)) reads \(format(m)) m/s² where \(format(expectedMetersPerSecondSquared)) m/s² ± \(Int(tolerance(basis) * 100)) % is expected\(hint)"
    case .notChecked(let why):
      return "gravity not checked: \(why)"
    }
  }

  static func format(_ x: Double) -> String { String(format: "%.3g", x) }
}
