/// Text for XML (GPX, XHTML, SVG): the characters that would end or start
/// markup replaced by their entities. Safe in element content and in
/// double-quoted attribute values. O(n).
public enum XMLText {
  public static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for c in text {
      switch c {
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}
