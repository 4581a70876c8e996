/// Time arithmetic on milliseconds that never traps: the engines take
/// times and clocks from callers (a phone's clock, a replayed file, a
/// door's argument), and any Int64 may arrive. Compared with a limit
/// strictly between the ends, a clamped difference decides exactly as the
/// true one would: a true difference past an end is past every such limit.
extension Int64 {
  /// Whether `self − other > limit`, exactly (no overflow).
  @inline(__always)
  func isLater(than other: Int64, byMoreThan limit: Int64) -> Bool {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? self > other : difference > limit
  }

  /// `self + other`, clamped to the representable range.
  @inline(__always)
  func saturatingAdd(_ other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }

  /// `self - other`, clamped to the representable range.
  @inline(__always)
  func saturatingSubtract(_ other: Int64) -> Int64 {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? (other > 0 ? .min : .max) : difference
  }
}
