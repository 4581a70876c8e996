/// A dense matrix of Doubles, stored row by row.
///
/// The value type the rest of the package passes to ``LinearAlgebra``; it
/// keeps OpenBLAS's and LAPACKE's C types (Int32 sizes, CChar flags, raw
/// pointers) out of every public signature.
public struct Matrix: Sendable, Hashable, CustomStringConvertible {
  public let rowCount: Int
  public let columnCount: Int
  /// Row-major elements: element (r, c) is `elements[r * columnCount + c]`.
  public private(set) var elements: [Double]

  /// A matrix from row-major elements.
  /// - Precondition: `elements.count == rowCount * columnCount`, sizes ≥ 0.
  public init(rowCount: Int, columnCount: Int, elements: [Double]) {
    precondition(rowCount >= 0 && columnCount >= 0, "Matrix: negative size")
    precondition(elements.count == rowCount * columnCount, "Matrix: element count does not match the size")
    self.rowCount = rowCount
    self.columnCount = columnCount
    self.elements = elements
  }

  /// A matrix with every element `value`.
  public init(rowCount: Int, columnCount: Int, repeating value: Double = 0) {
    self.init(
      rowCount: rowCount, columnCount: columnCount,
      elements: Array(repeating: value, count: rowCount * columnCount))
  }

  /// A matrix from rows of equal length.
  public init(rows: [[Double]]) {
    let columns = rows.first?.count ?? 0
    precondition(rows.allSatisfy { $0.count == columns }, "Matrix: rows of different lengths")
    self.init(rowCount: rows.count, columnCount: columns, elements: rows.flatMap { $0 })
  }

  /// The n × n identity.
  public static func identity(_ n: Int) -> Matrix {
    var m = Matrix(rowCount: n, columnCount: n)
    for i in 0..<n { m[i, i] = 1 }
    return m
  }

  public subscript(row: Int, column: Int) -> Double {
    get { elements[row * columnCount + column] }
    set { elements[row * columnCount + column] = newValue }
  }

  /// The transpose. O(rows × columns).
  public var transposed: Matrix {
    var t = Matrix(rowCount: columnCount, columnCount: rowCount)
    for r in 0..<rowCount {
      for c in 0..<columnCount { t[c, r] = self[r, c] }
    }
    return t
  }

  public var description: String {
    (0..<rowCount).map { r in
      (0..<columnCount).map { c in "\(self[r, c])" }.joined(separator: " ")
    }.joined(separator: "\n")
  }
}
