/// CSV cells as every output of the package writes them (RFC 4180 quoting).
public enum CSVField {
  /// `s` as one CSV field: quoted (quotes doubled) when it holds a comma,
  /// quote or line break, else as it is. O(n).
  public static func quoted(_ s: String) -> String {
    s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
      ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
  }
}
