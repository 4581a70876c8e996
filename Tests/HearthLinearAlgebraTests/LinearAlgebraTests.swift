import Foundation
import HearthLinearAlgebra
import Testing

@Suite("LinearAlgebra over OpenBLAS and LAPACKE")
struct LinearAlgebraTests {
  init() { LinearAlgebra.setThreadCount(1) }

  @Test("dgemm product matches the hand-computed one")
  func product() {
    let a = Matrix(rows: [[1, 2, 3], [4, 5, 6]])
    let b = Matrix(rows: [[7, 8], [9, 10], [11, 12]])
    #expect(LinearAlgebra.product(a, b) == Matrix(rows: [[58, 64], [139, 154]]))
    #expect(LinearAlgebra.product(a, [1, 0, -1]) == [-2, -2])
    #expect(LinearAlgebra.product(Matrix.identity(3), b) == b)
  }

  @Test("least squares recovers an exact line and fits a noisy one")
  func leastSquares() throws {
    // y = 1 + 2x exactly.
    let xs: [Double] = [0, 1, 2, 3, 4]
    let a = Matrix(rows: xs.map { [1, $0] })
    let exact = try LinearAlgebra.leastSquares(a, xs.map { 1 + 2 * $0 }).get()
    #expect(abs(exact[0] - 1) < 1e-12 && abs(exact[1] - 2) < 1e-12)
    // Symmetric residuals ±0.5 leave the fit unchanged.
    let noisy = try LinearAlgebra.leastSquares(a, [1.5, 2.5, 5.5, 6.5, 9.0]).get()
    let check = try LinearAlgebra.solvePositiveDefinite(
      LinearAlgebra.product(a.transposed, a), LinearAlgebra.product(a.transposed, [1.5, 2.5, 5.5, 6.5, 9.0])
    ).get()
    #expect(abs(noisy[0] - check[0]) < 1e-12 && abs(noisy[1] - check[1]) < 1e-12)
  }

  @Test("rank-deficient and indefinite inputs are failures, not traps")
  func failures() {
    let a = Matrix(rows: [[1, 0], [2, 0], [3, 0]])
    #expect(throws: LinearAlgebraFailure.self) { try LinearAlgebra.leastSquares(a, [1, 2, 3]).get() }
    let indefinite = Matrix(rows: [[1, 2], [2, 1]])
    #expect(throws: LinearAlgebraFailure.self) {
      try LinearAlgebra.solvePositiveDefinite(indefinite, [1, 1]).get()
    }
  }

  @Test("weighted least squares: zero weight removes a row")
  func weighted() throws {
    let a = Matrix(rows: [[1, 0], [1, 1], [1, 2], [1, 3]])
    let b: [Double] = [1, 3, 5, 100]
    let fit = try LinearAlgebra.weightedLeastSquares(a, b, weights: [1, 1, 1, 0]).get()
    #expect(abs(fit[0] - 1) < 1e-12 && abs(fit[1] - 2) < 1e-12)
  }

  @Test("one thread is in force and the backend is OpenBLAS")
  func backend() {
    #expect(LinearAlgebra.threadCount == 1)
    #expect(LinearAlgebra.backendDescription.hasPrefix("OpenBLAS"))
  }
}

@Suite struct LogisticRegressionTests {
  /// n points x ~ U(−3, 3) with labels drawn from σ(−1 + 2x) (a fixed LCG).
  static func sample(_ n: Int) -> (Matrix, [Double]) {
    var state: UInt64 = 12345
    func uniform() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
    var x: [Double] = []
    var y: [Double] = []
    for _ in 0..<n {
      let v = -3 + 6 * uniform()
      x.append(v)
      y.append(uniform() < 1 / (1 + exp(1 - 2 * v)) ? 1 : 0)
    }
    return (Matrix(rowCount: n, columnCount: 1, elements: x), y)
  }

  @Test func recoversTheGeneratingCoefficients() throws {
    let (x, y) = Self.sample(20_000)
    let fit = try LinearAlgebra.logisticRegression(x, y, ridge: 0).get()
    #expect(fit.converged && fit.iterations < 15)
    #expect(abs(fit.coefficients[0] + 1) < 0.08 && abs(fit.coefficients[1] - 2) < 0.1, "\(fit.coefficients)")
  }

  @Test func thePenalisedScoreIsZeroAtTheFit() throws {
    let (x, y) = Self.sample(500)
    for ridge in [0.0, 0.5, 50] {
      let fit = try LinearAlgebra.logisticRegression(x, y, ridge: ridge).get()
      var score = [0.0, 0.0]
      for i in 0..<x.rowCount {
        let r = y[i] - fit.probability([x[i, 0]])
        score[0] += r
        score[1] += r * x[i, 0]
      }
      #expect(abs(score[0]) < 1e-7 && abs(score[1] - ridge * fit.coefficients[1]) < 1e-7, "\(ridge) \(score)")
    }
  }

  @Test func separableClassesStayFiniteWithAPenaltyOnly() throws {
    let x = Matrix(rowCount: 6, columnCount: 1, elements: [-3, -2, -1, 1, 2, 3])
    let y: [Double] = [0, 0, 0, 1, 1, 1]
    let penalised = try LinearAlgebra.logisticRegression(x, y, ridge: 1).get()
    #expect(penalised.converged && penalised.coefficients[1] > 0 && penalised.coefficients[1] < 10)
    let unpenalised = try LinearAlgebra.logisticRegression(x, y, ridge: 0, maxIterations: 30).get()
    #expect(!unpenalised.converged || unpenalised.coefficients[1] > 10)
  }
}
