/// A decoding error in words: where in the document (the coding path) and
/// why, without Foundation's debug dump.
///
/// Foundation's JSON decoder refuses a whole text whose number is beyond a
/// Double's range (`1e400`) as "not valid JSON", saying neither where nor
/// which number; given the text, such an error names the first such number
/// and its path instead (``numberOutOfRange(in:)``).
struct DecodingProblem: CustomStringConvertible {
  let error: any Error
  let text: [UInt8]?
  init(_ error: any Error, text: [UInt8]? = nil) {
    self.error = error
    self.text = text
  }

  static func path(_ keys: [any CodingKey]) -> String {
    let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
  }

  var description: String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let path = Self.path
    switch error {
    case .dataCorrupted(let c):
      if c.codingPath.isEmpty, let text, let (at, number) = Self.numberOutOfRange(in: text) {
        return "\(at): the number \(number) is out of range (a number's magnitude is at most 1.8e308)"
      }
      return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c): return "\(path(c.codingPath + [key])): missing"
    case .typeMismatch(let type, let c): return "\(path(c.codingPath)): not a \(type)"
    case .valueNotFound(let type, let c): return "\(path(c.codingPath)): no \(type) value"
    @unknown default: return "\(error)"
    }
  }

  /// The path ("places[0].latitude_deg") and text (at most 40 bytes) of the
  /// first number in the JSON `text` whose value is beyond a Double's
  /// range, or nil. Reads the text once, keeping one entry per open
  /// container (no recursion); text that is not JSON gives nil or a path
  /// as far as it could tell. O(bytes).
  static func numberOutOfRange(in text: [UInt8]) -> (path: String, number: String)? {
    enum Frame {
      case object(key: String?)
      case array(index: Int)
    }
    var stack: [Frame] = []
    var i = 0
    func here() -> String {
      var out = ""
      for frame in stack {
        switch frame {
        case .object(let key): out += "." + (key ?? "?")
        case .array(let index): out += "[\(index)]"
        }
      }
      return out.isEmpty ? "the top level" : String(out.drop { $0 == "." })
    }
    while i < text.count {
      switch text[i] {
      case UInt8(ascii: "{"):
        stack.append(.object(key: nil))
        i += 1
      case UInt8(ascii: "["):
        stack.append(.array(index: 0))
        i += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        _ = stack.popLast()
        i += 1
      case UInt8(ascii: ","):
        if case .array(let index) = stack.last { stack[stack.count - 1] = .array(index: index + 1) }
        i += 1
      case UInt8(ascii: "\""):
        let start = i + 1
        i = start
        while i < text.count && text[i] != UInt8(ascii: "\"") { i += text[i] == UInt8(ascii: "\\") ? 2 : 1 }
        let string = String(decoding: text[start..<min(i, text.count)].prefix(40), as: UTF8.self)
        i += 1
        // A string followed by ':' inside an object is the next value's key.
        var j = i
        while j < text.count && [0x20, 0x0A, 0x0D, 0x09].contains(text[j]) { j += 1 }
        if j < text.count, text[j] == UInt8(ascii: ":"), case .object = stack.last {
          stack[stack.count - 1] = .object(key: string)
        }
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        let start = i
        while i < text.count,
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[i])
            || [
              UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
            ]
            .contains(text[i])
        {
          i += 1
        }
        let number = String(decoding: text[start..<i], as: UTF8.self)
        if let value = Double(number), value.isInfinite { return (here(), String(number.prefix(40))) }
      default: i += 1
      }
    }
    return nil
  }
}
