extension FileReport {
  /// The file's accounting in one line for a person: "Gravity.csv: 6000 rows
  /// read, 5990 kept, 10 rejected (badTime 10), 3 out of time order
  /// (sorted), skipped: why". Reasons in name order.
  public var summary: String {
    var line = "\(file): \(rowsRead) rows read, \(rowsKept) kept, \(rowsRejected) rejected"
    if !rejectedByReason.isEmpty {
      line +=
        " ("
        + rejectedByReason.sorted { $0.key.rawValue < $1.key.rawValue }.map {
          "\($0.key.rawValue) \($0.value)"
        }
        .joined(separator: ", ") + ")"
    }
    if reorderedRows > 0 { line += ", \(reorderedRows) out of time order (sorted)" }
    if let why = skippedBecause { line += ", skipped: \(Excerpt.of(why, bytes: 300))" }
    return line
  }

  /// Whether a person reading a result should hear of this file: rows were
  /// rejected or the file was skipped.
  public var hasProblems: Bool { rowsRejected > 0 || skippedBecause != nil }
}
