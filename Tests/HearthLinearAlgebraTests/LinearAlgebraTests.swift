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
