import HearthImpact
import HearthLinearAlgebra

extension ImpactSweep {
  /// One judged jolt: where and when, every condition's measured value (by
  /// condition name, in the condition's unit; absent when not measured),
  /// and whether it is the labelled crash. The per-jolt table of the tidy
  /// exports and the model's input.
  public struct JoltFeatures: Sendable, Hashable, Codable {
    /// Index into `Result.sources`.
    public var source: Int
    public var joltSeconds: Double
    public var decidedSeconds: Double
    /// Moving and stopped judged from GPS (a fix was current) or vibration.
    public var usedGPS: Bool
    /// The jolt's peak dynamic acceleration, g.
    public var joltG: Double?
    public var measured: [String: Double]
    /// The stop conditions of the path used held.
    public var stoppedAfter: Bool
    /// The label: this jolt is the scenario's crash.
    public var isCrash: Bool
  }

  /// A logistic model of "this jolt is a crash" over the per-jolt features,
  /// and the thresholds it suggests beside the hand-set ones.
  public struct ModelSuggestion: Sendable, Hashable, Codable {
    public struct Feature: Sendable, Hashable, Codable {
      public var name: String
      public var unit: String
      /// Coefficient per unit of the feature (not standardised).
      public var coefficient: Double
      /// The hand-set threshold of the featured combination (nil: not a threshold).
      public var handSet: Double?
      /// The value at which the model says 50 % with every other feature at
      /// the crashes' median; nil when that lies outside the values seen.
      public var suggested: Double?
    }
    public var intercept: Double
    public var features: [Feature]
    public var jolts: Int
    public var crashJolts: Int
    public var ridge: Double
    public var iterations: Int
    public var converged: Bool
    /// Jolts the model puts on the right side of 50 %.
    public var trainingAccuracy: Double
  }

  /// The per-jolt features the model sees, in order, with their units and
  /// the hand-set threshold each one is compared with (nil: none).
  static func featureNames(_ c: ImpactConfiguration) -> [(String, String, Double?)] {
    [
      ("jolt", "g", c.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity),
      ("spin", "rad/s", c.spinRadiansPerSecond),
      ("pressureRise", "hPa", c.pressureRiseHectopascals),
      ("movingBeforeGPS", "m/s", c.movingMedianMetersPerSecond),
      ("freeFall", "s", c.freeFallSeconds),
      ("stoppedAfter", "0/1", nil),
    ]
  }

  /// One jolt's features, as the model sees them (NaN where not measured).
  static func features(_ j: JoltFeatures) -> [Double] {
    [
      j.joltG ?? .nan, j.measured[ImpactCondition.Name.spin.rawValue] ?? .nan,
      j.measured[ImpactCondition.Name.pressureRise.rawValue] ?? .nan,
      j.usedGPS ? (j.measured[ImpactCondition.Name.movingBeforeGPS.rawValue] ?? .nan) : .nan,
      j.measured[ImpactCondition.Name.freeFallVeto.rawValue] ?? .nan, j.stoppedAfter ? 1 : 0,
    ]
  }

  /// Every jolt the extraction pass judged (suppressed ones and the later
  /// jolts of a labelled crash's incident left out), in sweep order.
  /// O(jolts × conditions).
  static func joltTable(_ traces: [SweptTrace]) -> [JoltFeatures] {
    var out: [JoltFeatures] = []
    for (t, trace) in traces.enumerated() {
      for (i, v) in trace.verdicts.enumerated() where v.outcome != .suppressed && !trace.isLaterCrashJolt(i) {
        var measured: [String: Double] = [:]
        for c in v.conditions where c.measured.isFinite { measured[c.name.rawValue] = c.measured }
        out.append(
          JoltFeatures(
            source: t, joltSeconds: v.joltSeconds, decidedSeconds: v.decidedSeconds, usedGPS: v.usedGPS,
            joltG: v.measured(.jolt).flatMap { $0.isFinite ? $0 / ImpactConfiguration.standardGravity : nil },
            measured: measured,
            stoppedAfter: v.measurement?.stopped ?? false,
            isCrash: trace.isCrash(i)))
      }
    }
    return out
  }

  /// Logistic regression of "this jolt is the labelled crash" on the
  /// per-jolt features of every trace (IRLS through LAPACKE's dgels, ridge
  /// λ = 1 on standardised features). A missing value (no barometer, no
  /// GPS speed, no free fall) takes the median of the jolts that have one.
  /// nil when there are no crash jolts or no others.
  static func model(_ jolts: [JoltFeatures], handSet: ImpactConfiguration) -> ModelSuggestion? {
    var rows = jolts.map(features)
    let labels: [Double] = jolts.map { $0.isCrash ? 1 : 0 }
    let positives = labels.count { $0 == 1 }
    guard positives > 0, positives < labels.count else { return nil }
    let names = featureNames(handSet)
    let p = names.count
    func median(_ values: [Double]) -> Double {
      let v = values.filter { !$0.isNaN }.sorted()
      return v.isEmpty ? 0 : v[v.count / 2]
    }
    let fill = (0..<p).map { j in median(rows.map { $0[j] }) }
    for r in rows.indices { for j in 0..<p where rows[r][j].isNaN { rows[r][j] = fill[j] } }
    let mean = (0..<p).map { j in rows.map { $0[j] }.reduce(0, +) / Double(rows.count) }
    var sd = [Double](repeating: 0, count: p)
    for j in 0..<p {
      var sum = 0.0
      for r in rows { sum += (r[j] - mean[j]) * (r[j] - mean[j]) }
      sd[j] = max(1e-9, (sum / Double(rows.count)).squareRoot())
    }
    let standard = Matrix(
      rowCount: rows.count, columnCount: p,
      elements: rows.flatMap { r in (0..<p).map { (r[$0] - mean[$0]) / sd[$0] } })
    let ridge = 1.0
    guard case .success(let fit) = LinearAlgebra.logisticRegression(standard, labels, ridge: ridge) else {
      return nil
    }
    // Back to the features' own units: β_j / sd_j, intercept β0 − Σ β_j mean_j / sd_j.
    let coefficients = (0..<p).map { fit.coefficients[$0 + 1] / sd[$0] }
    let intercept = fit.coefficients[0] - (0..<p).map { coefficients[$0] * mean[$0] }.reduce(0, +)
    let crashMedian = (0..<p).map { j in median(zip(rows, labels).filter { $0.1 == 1 }.map { $0.0[j] }) }
    var features: [ModelSuggestion.Feature] = []
    for j in 0..<p {
      var others = intercept
      for k in 0..<p where k != j { others += coefficients[k] * crashMedian[k] }
      let values = rows.map { $0[j] }
      var suggested: Double?
      if coefficients[j] != 0, names[j].2 != nil {
        let v = -others / coefficients[j]
        if v >= values.min()!, v <= values.max()! { suggested = v }
      }
      features.append(
        .init(
          name: names[j].0, unit: names[j].1, coefficient: coefficients[j], handSet: names[j].2,
          suggested: suggested))
    }
    var right = 0
    for (r, y) in zip(rows, labels) {
      var eta = intercept
      for j in 0..<p { eta += coefficients[j] * r[j] }
      if (eta >= 0) == (y == 1) { right += 1 }
    }
    return ModelSuggestion(
      intercept: intercept, features: features, jolts: rows.count, crashJolts: positives, ridge: ridge,
      iterations: fit.iterations, converged: fit.converged,
      trainingAccuracy: Double(right) / Double(rows.count))
  }
}
