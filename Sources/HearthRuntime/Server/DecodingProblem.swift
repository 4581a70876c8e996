import Foundation
import HearthTrace

/// A decoding error in words: where in the document (the coding path) and
/// why, without Foundation's debug dump.
///
/// Foundation's JSON decoder refuses a whole text as "not valid JSON",
/// saying neither where nor which number, in two cases of valid JSON: a
/// number beyond a Double's range (`1e400`), and a number its field's type
/// cannot hold (`1.5` or `1e30` for a time in ms, `5000000000` for an id
/// in UInt32). Given the text, the first case names the first such number
/// and its path (``numberOutOfRange(in:)``); given also a way to decode
/// again (`retry`), the second names the number and its path
/// (``numberItsFieldCannotHold(in:retry:)``).
struct DecodingProblem: CustomStringConvertible {
  let error: any Error
  let text: [UInt8]?
  /// Decodes a text as the failed call did: the error, or nil.
  let retry: (([UInt8]) -> (any Error)?)?
  init(_ error: any Error, text: [UInt8]? = nil, retry: (([UInt8]) -> (any Error)?)? = nil) {
    self.error = error
    self.text = text
    self.retry = retry
  }

  /// Why a text was refused, in words (its ``DecodingProblem``'s description).
  struct Refusal: Error {
    let reason: String
  }

  /// `decode` run on `bytes`; when it throws, the ``DecodingProblem`` in
  /// words, with `decode` to retry edited texts: one call for the three
  /// doors that read JSON bytes (a saved ingest state, a saved incident, an
  /// ingest description).
  static func decoding<T>(_ bytes: [UInt8], _ decode: (Data) throws -> T) throws(Refusal) -> T {
    do { return try decode(Data(bytes)) } catch {
      let problem = withoutActuallyEscaping(decode) { decode in
        DecodingProblem(
          error, text: bytes,
          retry: { text in
            do {
              _ = try decode(Data(text))
              return nil
            } catch { return error }
          }
        ).description
      }
      throw Refusal(reason: problem)
    }
  }

  static func path(_ keys: [any CodingKey]) -> String {
    let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
  }

  /// Shown printable (``Excerpt/printable(_:)``): a key in the path is the
  /// document's own text (review30: DEL and C1 codes reached the terminal).
  var description: String { Excerpt.printable(words) }

  private var words: String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let path = Self.path
    switch error {
    case .dataCorrupted(let c):
      if Self.isWholeTextRefused(error), let text {
        if let (at, number) = Self.numberOutOfRange(in: text) {
          return "\(at): the number \(number) is out of range (a number's magnitude is at most 1.8e308)"
        }
        if let retry, let (at, number) = Self.numberItsFieldCannotHold(in: text, retry: retry) {
          return
            "\(at): the number \(number) does not fit this field (a whole number, within its type's range)"
        }
      }
      return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c): return "\(path(c.codingPath + [key])): missing"
    // The type in words, not Swift's name for it (review30: "not a Array<Any>").
    case .typeMismatch(let type, let c): return "\(path(c.codingPath)): not \(JSONKeys.describe(type))"
    case .valueNotFound(let type, let c):
      return "\(path(c.codingPath)): no value (\(JSONKeys.describe(type)))"
    @unknown default: return "\(error)"
    }
  }

  /// Whether `error` refuses the whole text with no path: what Foundation
  /// says of text that is not JSON, and of the numbers above.
  static func isWholeTextRefused(_ error: (any Error)?) -> Bool {
    guard case .dataCorrupted(let c) = error as? DecodingError else { return false }
    return c.codingPath.isEmpty
  }

  /// The path and text of the first number in `text` whose own field cannot
  /// hold it, when `retry(text)` refuses the whole text with no path
  /// (``isWholeTextRefused(_:)``), or nil. Finds the first number k such
  /// that writing 0 for numbers k… lets the decode past that refusal
  /// (binary search: such k form a prefix of the numbers' indices), and
  /// then checks that writing 0 for number k alone does too, so that a
  /// number is named only when it is the cause. O(bytes × log numbers):
  /// run only for a refused text, and only up to ``searchedBytes`` (about
  /// 25 decodes of the text at most; a larger text keeps Foundation's words).
  static func numberItsFieldCannotHold(
    in text: [UInt8], retry: ([UInt8]) -> (any Error)?
  ) -> (path: String, number: String)? {
    guard text.count <= searchedBytes else { return nil }
    var spans: [Range<Int>] = []
    scanNumbers(in: text) { span, _ in
      spans.append(span)
      return false
    }
    func zeroed(_ indices: Range<Int>) -> [UInt8] {
      var out: [UInt8] = []
      out.reserveCapacity(text.count)
      var from = 0
      for k in indices {
        out += text[from..<spans[k].lowerBound]
        out.append(UInt8(ascii: "0"))
        from = spans[k].upperBound
      }
      return out + text[from...]
    }
    func passes(_ indices: Range<Int>) -> Bool { !isWholeTextRefused(retry(zeroed(indices))) }
    guard !spans.isEmpty, passes(0..<spans.count) else { return nil }
    // passes(k..<n) holds for k = 0 and not for k = n (the text as given):
    // the largest k for which it holds is the first number that matters.
    var low = 0
    var high = spans.count
    while high - low > 1 {  // invariant: passes(low..<n), !passes(high..<n); shrinks each step
      let middle = low + (high - low) / 2
      if passes(middle..<spans.count) { low = middle } else { high = middle }
    }
    guard passes(low..<(low + 1)) else { return nil }
    var found: (path: String, number: String)?
    var index = 0
    scanNumbers(in: text) { span, path in
      defer { index += 1 }
      guard index == low else { return false }
      found = (path(), Excerpt.of(String(decoding: text[span], as: UTF8.self), bytes: 40))
      return true
    }
    return found
  }

  /// The largest text ``numberItsFieldCannotHold(in:retry:)`` searches:
  /// 16 MiB, a few seconds of decoding at most.
  static let searchedBytes = 16 << 20

  /// The path ("places[0].latitude_deg") and text (at most 40 bytes) of the
  /// first number in the JSON `text` whose value is beyond a Double's
  /// range, or nil. O(bytes).
  static func numberOutOfRange(in text: [UInt8]) -> (path: String, number: String)? {
    var found: (path: String, number: String)?
    scanNumbers(in: text) { span, path in
      let number = String(decoding: text[span], as: UTF8.self)
      guard let value = Double(number), value.isInfinite else { return false }
      found = (path(), Excerpt.of(String(number), bytes: 40))
      return true
    }
    return found
  }

  /// Calls `visit` with the byte span of each number of the JSON `text`, in
  /// order, and a function giving its path, until `visit` returns true.
  /// Reads the text once, keeping one entry per open container (no
  /// recursion); text that is not JSON gives what it could tell. O(bytes).
  static func scanNumbers(in text: [UInt8], _ visit: (Range<Int>, () -> String) -> Bool) {
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
        if visit(start..<i, here) { return }
      default: i += 1
      }
    }
  }
}
