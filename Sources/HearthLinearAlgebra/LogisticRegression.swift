import Foundation

/// A fitted logistic model P(y = 1 | x) = σ(β₀ + Σ βⱼ·xⱼ).
public struct LogisticFit: Sendable, Hashable, Codable {
  /// β₀ (the intercept) first, then one coefficient per column of X.
  public var coefficients: [Double]
  /// IRLS steps taken.
  public var iterations: Int
  /// Whether the largest coefficient change fell under the tolerance.
  public var converged: Bool

  /// The model's probability for one row of features. O(p).
  public func probability(_ x: [Double]) -> Double {
    precondition(x.count + 1 == coefficients.count, "probability: one value per feature")
    var eta = coefficients[0]
    for j in x.indices { eta += coefficients[j + 1] * x[j] }
    return 1 / (1 + exp(-eta))
  }
}

extension LinearAlgebra {
  /// Ridge-penalised logistic regression by iteratively reweighted least
  /// squares: each Newton step is the weighted least-squares problem
  /// min Σ wᵢ (zᵢ − [1 xᵢ]·β)² + λ Σⱼ≥1 βⱼ², solved by QR (dgels) on the
  /// rows √wᵢ·[1 xᵢ] stacked over √λ·I (the intercept is not penalised).
  ///
  /// The penalty keeps the fit finite when the classes are separable (the
  /// unpenalised maximum-likelihood estimate then does not exist); put the
  /// features on comparable scales (standardise) so one λ suits them all.
  ///
  /// - Parameters:
  ///   - x: n × p features, one row per observation (no intercept column).
  ///   - y: n labels, 0 or 1.
  ///   - ridge: λ ≥ 0 (0 only when the classes overlap).
  /// - Returns: the fit (check `converged`), or `.rankDeficient` when a step's
  ///   design lacks full rank (possible only with λ = 0). At convergence the
  ///   penalised score Xᵀ(y − μ) − λβ is zero to about the tolerance.
  /// - Complexity: O(iterations × (n + p) · p²); typically under 10 steps.
  public static func logisticRegression(
    _ x: Matrix, _ y: [Double], ridge: Double = 1e-3, maxIterations: Int = 50, tolerance: Double = 1e-10
  ) -> Result<LogisticFit, LinearAlgebraFailure> {
    precondition(y.count == x.rowCount, "logisticRegression: one label per row")
    precondition(ridge >= 0, "logisticRegression: ridge must be non-negative")
    let (n, p) = (x.rowCount, x.columnCount)
    var design = Matrix(rowCount: n + p, columnCount: p + 1)
    for i in 0..<n {
      design[i, 0] = 1
      for j in 0..<p { design[i, j + 1] = x[i, j] }
    }
    for j in 0..<p { design[n + j, j + 1] = ridge.squareRoot() }
    var beta = [Double](repeating: 0, count: p + 1)
    var weights = [Double](repeating: 1, count: n + p)
    var target = [Double](repeating: 0, count: n + p)
    for iteration in 1...max(1, maxIterations) {
      for i in 0..<n {
        var eta = beta[0]
        for j in 0..<p { eta += beta[j + 1] * x[i, j] }
        let mu = min(max(1 / (1 + exp(-eta)), 1e-12), 1 - 1e-12)
        let w = mu * (1 - mu)
        weights[i] = w
        target[i] = eta + (y[i] - mu) / w
      }
      let next: [Double]
      switch weightedLeastSquares(design, target, weights: weights) {
      case .failure(let failure): return .failure(failure)
      case .success(let b): next = b
      }
      let change = zip(next, beta).map { abs($0 - $1) }.max() ?? 0
      let scale = 1 + (next.map(abs).max() ?? 0)
      beta = next
      if change <= tolerance * scale {
        return .success(LogisticFit(coefficients: beta, iterations: iteration, converged: true))
      }
    }
    return .success(LogisticFit(coefficients: beta, iterations: maxIterations, converged: false))
  }
}
