/// Text from a file, shortened for an error message: a header of a million
/// columns, or a whole file read as one, must not be echoed in full; and
/// made printable: a control character in a hostile file (an escape
/// sequence that retitles or clears a terminal, a NUL, a line break that
/// forges a line of the report) is shown as its code, `\u{1B}`
/// (review26 F11).
public enum Excerpt {
  /// `text` printable (``printable(_:)``) when that is at most `bytes`
  /// bytes of UTF-8, else its first characters within that and
  /// "… (N bytes)" (N: the bytes of `text` as given). O(bytes of `text`).
  public static func of(_ text: String, bytes limit: Int = 200) -> String {
    let shown = printable(text)
    guard shown.utf8.count > limit else { return shown }
    // Character by character, so a code is never cut in half.
    var out = ""
    for character in text {
      let piece = printable(String(character))
      guard out.utf8.count + piece.utf8.count <= limit else { break }
      out += piece
    }
    return "\(out)… (\(text.utf8.count) bytes)"
  }

  /// `text` with every control character (U+0000–U+001F, U+007F–U+009F:
  /// tab and line breaks included) and every bidirectional embedding,
  /// override or isolate (U+202A–U+202E, U+2066–U+2069: they reorder the
  /// text shown after them, review30) written as `\u{XX}`; other text as
  /// it is. O(bytes).
  public static func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      if isControl(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
      || (0x2066...0x2069).contains(scalar.value)
  }
}
