// Matrix products and least squares over OpenBLAS and LAPACKE (Debian's
// libopenblas-dev and liblapacke-dev). The only file that touches the C APIs.
//
// Pitfalls handled here (docs/decisions/0005-openblas-lapacke.md):
//   * lapack_int is a macro Swift cannot import: Debian's LAPACKE is LP64
//     with 32-bit integers, so sizes go through Int32 and are checked.
//   * trans/uplo flags are CChar.
//   * OpenBLAS starts one thread per core; tests and benchmarks pin one
//     (OPENBLAS_NUM_THREADS=1 or ``LinearAlgebra/setThreadCount(_:)``).

import CBLAS
import CLAPACKE

/// Why a LAPACK solve produced no answer. Pure maths does not throw; solvers
/// return `Result` with this.
public enum LinearAlgebraFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// The matrix does not have full rank; `diagonalIndex` is LAPACK's `info`
  /// (the first zero diagonal element of the triangular factor, 1-based).
  case rankDeficient(diagonalIndex: Int)
  /// The matrix of a positive-definite solve is not positive definite.
  case notPositiveDefinite(order: Int)

  public var description: String {
    switch self {
    case .rankDeficient(let i): "matrix is rank deficient (diagonal element \(i) of R is zero)"
    case .notPositiveDefinite(let i): "matrix is not positive definite (leading minor \(i))"
    }
  }
}

/// Dense linear algebra on ``Matrix`` values.
public enum LinearAlgebra {
  /// The product A·B, through OpenBLAS's dgemm.
  /// - Precondition: `a.columnCount == b.rowCount`; sizes below 2³¹.
  /// - Complexity: 2·m·n·k flops.
  public static func product(_ a: Matrix, _ b: Matrix) -> Matrix {
    precondition(a.columnCount == b.rowCount, "product: inner dimensions differ")
    let (m, n, k) = (a.rowCount, b.columnCount, a.columnCount)
    var c = [Double](repeating: 0, count: m * n)
    guard m > 0, n > 0, k > 0 else { return Matrix(rowCount: m, columnCount: n, elements: c) }
    cblas_dgemm(
      CblasRowMajor, CblasNoTrans, CblasNoTrans, int32(m), int32(n), int32(k),
      1.0, a.elements, int32(k), b.elements, int32(n), 0.0, &c, int32(n))
    return Matrix(rowCount: m, columnCount: n, elements: c)
  }

  /// The product A·x, through OpenBLAS's dgemv.
  /// - Precondition: `a.columnCount == x.count`.
  /// - Complexity: 2·m·n flops.
  public static func product(_ a: Matrix, _ x: [Double]) -> [Double] {
    precondition(a.columnCount == x.count, "product: vector length differs from column count")
    var y = [Double](repeating: 0, count: a.rowCount)
    guard a.rowCount > 0, a.columnCount > 0 else { return y }
    cblas_dgemv(
      CblasRowMajor, CblasNoTrans, int32(a.rowCount), int32(a.columnCount), 1.0, a.elements,
      int32(a.columnCount), x, 1, 0.0, &y, 1)
    return y
  }

  /// The x minimising ‖A·x − b‖₂, through LAPACK's dgels (QR factorisation).
  ///
  /// - Precondition: `a.rowCount >= a.columnCount` (over- or exactly
  ///   determined) and `b.count == a.rowCount`.
  /// - Returns: x (count = columns), or `.rankDeficient` when A lacks full
  ///   column rank. Backward stable (LAPACK's QR); the forward error grows
  ///   with A's condition number.
  /// - Complexity: about 2·m·n² − ⅔·n³ flops.
  public static func leastSquares(_ a: Matrix, _ b: [Double]) -> Result<[Double], LinearAlgebraFailure> {
    precondition(a.rowCount >= a.columnCount, "leastSquares: needs at least as many rows as columns")
    precondition(b.count == a.rowCount, "leastSquares: right-hand side length differs from row count")
    guard a.columnCount > 0 else { return .success([]) }
    var matrix = a.elements
    var rhs = b
    let info = LAPACKE_dgels(
      LAPACK_ROW_MAJOR, CChar(UInt8(ascii: "N")), int32(a.rowCount), int32(a.columnCount), 1,
      &matrix, int32(a.columnCount), &rhs, 1)
    precondition(info >= 0, "dgels rejected argument \(-info)")
    if info > 0 { return .failure(.rankDeficient(diagonalIndex: Int(info))) }
    return .success(Array(rhs.prefix(a.columnCount)))
  }

  /// The x minimising Σ wᵢ·(Aᵢ·x − bᵢ)², i.e. least squares with each row
  /// scaled by √wᵢ (the step of iteratively reweighted least squares).
  /// - Precondition: weights non-negative, one per row.
  /// - Complexity: as ``leastSquares(_:_:)`` plus O(m·n) for the scaling.
  public static func weightedLeastSquares(
    _ a: Matrix, _ b: [Double], weights: [Double]
  ) -> Result<[Double], LinearAlgebraFailure> {
    precondition(weights.count == a.rowCount, "weightedLeastSquares: one weight per row")
    var scaled = a
    var rhs = b
    for r in 0..<a.rowCount {
      precondition(weights[r] >= 0, "weightedLeastSquares: negative weight")
      let s = weights[r].squareRoot()
      for c in 0..<a.columnCount { scaled[r, c] *= s }
      rhs[r] *= s
    }
    return leastSquares(scaled, rhs)
  }

  /// Solves A·x = b for symmetric positive-definite A (Cholesky, dposv).
  /// - Precondition: A square, `b.count == A.rowCount`.
  /// - Complexity: ⅓·n³ flops.
  public static func solvePositiveDefinite(_ a: Matrix, _ b: [Double]) -> Result<
    [Double], LinearAlgebraFailure
  > {
    precondition(a.rowCount == a.columnCount, "solvePositiveDefinite: matrix must be square")
    precondition(b.count == a.rowCount, "solvePositiveDefinite: right-hand side length differs")
    guard a.rowCount > 0 else { return .success([]) }
    var matrix = a.elements
    var rhs = b
    let info = LAPACKE_dposv(
      LAPACK_ROW_MAJOR, CChar(UInt8(ascii: "U")), int32(a.rowCount), 1, &matrix,
      int32(a.rowCount), &rhs, 1)
    precondition(info >= 0, "dposv rejected argument \(-info)")
    if info > 0 { return .failure(.notPositiveDefinite(order: Int(info))) }
    return .success(rhs)
  }

  /// Sets the number of threads OpenBLAS uses (1 for reproducible timings
  /// and to avoid oversubscription next to other parallel work).
  public static func setThreadCount(_ count: Int) {
    precondition(count >= 1, "setThreadCount: at least one thread")
    openblas_set_num_threads(int32(count))
  }

  /// The number of threads OpenBLAS will use.
  public static var threadCount: Int { Int(openblas_get_num_threads()) }

  /// OpenBLAS's build description (version, kernel, thread limit), for
  /// benchmark metadata.
  public static var backendDescription: String {
    guard let config = openblas_get_config() else { return "unknown" }
    return String(cString: config).trimmingCharacters(in: " ")
  }

  private static func int32(_ value: Int) -> Int32 {
    guard let narrow = Int32(exactly: value) else {
      preconditionFailure("matrix dimension \(value) exceeds LAPACK's 32-bit integers")
    }
    return narrow
  }
}

extension String {
  fileprivate func trimmingCharacters(in character: Character) -> String {
    var s = Substring(self)
    while s.first == character { s = s.dropFirst() }
    while s.last == character { s = s.dropLast() }
    return String(s)
  }
}
