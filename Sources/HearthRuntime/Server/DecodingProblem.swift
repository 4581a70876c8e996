/// A decoding error in words: where in the document (the coding path) and
/// why, without Foundation's debug dump.
struct DecodingProblem: CustomStringConvertible {
  let error: any Error
  init(_ error: any Error) { self.error = error }

  var description: String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ keys: [any CodingKey]) -> String {
      let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
    }
    switch error {
    case .dataCorrupted(let c): return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c): return "\(path(c.codingPath + [key])): missing"
    case .typeMismatch(let type, let c): return "\(path(c.codingPath)): not a \(type)"
    case .valueNotFound(let type, let c): return "\(path(c.codingPath)): no \(type) value"
    @unknown default: return "\(error)"
    }
  }
}
