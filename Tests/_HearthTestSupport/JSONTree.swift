/// Edits of a decoded JSON tree (`JSONSerialization`'s dictionaries and
/// arrays), for tests that change one value of a saved state.
public enum JSONTree {
  /// `value` with the element at `path` (keys and indices) replaced by
  /// `new`; unchanged where the path does not lead anywhere.
  public static func replacing(_ value: Any, at path: ArraySlice<Any>, with new: Any) -> Any {
    guard let key = path.first else { return new }
    if var d = value as? [String: Any], let k = key as? String, let inner = d[k] {
      d[k] = replacing(inner, at: path.dropFirst(), with: new)
      return d
    }
    if var a = value as? [Any], let i = key as? Int, a.indices.contains(i) {
      a[i] = replacing(a[i], at: path.dropFirst(), with: new)
      return a
    }
    return value
  }
}
