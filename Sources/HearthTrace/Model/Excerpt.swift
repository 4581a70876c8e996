/// Text from a file, shortened for an error message: a header of a million
/// columns, or a whole file read as one, must not be echoed in full.
enum Excerpt {
  /// `text` when it is at most `bytes` bytes of UTF-8, else its first
  /// characters within that and "… (N bytes)". O(bytes).
  static func of(_ text: String, bytes limit: Int = 200) -> String {
    let utf8 = text.utf8
    guard utf8.count > limit else { return text }
    var end = text.startIndex
    var used = 0
    for character in text {
      let size = character.utf8.count
      guard used + size <= limit else { break }
      used += size
      end = text.index(after: end)
    }
    return "\(text[..<end])… (\(utf8.count) bytes)"
  }
}
