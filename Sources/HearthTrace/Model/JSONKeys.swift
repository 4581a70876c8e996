/// The keys of the JSON documents people write by hand (column mappings,
/// detector configurations, sweep plans): an unknown key is an error that
/// names it and the known key nearest it, since a misspelt key silently
/// ignored would run with the default it meant to change.
public enum JSONKeys {
  /// The message for `key`, unknown among `known`: "unknown key 'unti'
  /// (nearest known: 'unit'; known: column, unit)". The key is shortened to
  /// 80 bytes. O(|known| · 80²).
  /// `what` names the keys ("setting" in a detector configuration).
  public static func unknown(_ key: String, known: [String], what: String = "key") -> String {
    let shown = Excerpt.of(key, bytes: 80)
    let nearest = nearest(to: key, among: known).map { "nearest known: '\($0)'; " } ?? ""
    return "unknown \(what) '\(shown)' (\(nearest)known: \(known.sorted().joined(separator: ", ")))"
  }

  /// The first problem of the JSON document `text`, with its byte offset:
  /// a member named twice in one object (`at byte 40: the member "unit"
  /// appears twice in one object`; a decoder keeps one of the two silently
  /// and another reader the other, review26 F7), text that is not JSON
  /// (`at byte 17: not JSON: unexpected character '}' where a value should
  /// be`) or nesting deeper than a decoder reads (512 levels); nil when it
  /// has none. A document people write is checked with this before it is
  /// decoded, since the decoder's own error names no position.
  /// O(bytes · members per object).
  public static func problem(in text: [UInt8]) -> String? { JSONPullScanner.problem(in: text) }

  /// The first of `keys` not in `known`, in sorted order (nil: all known).
  public static func firstUnknown(_ keys: some Sequence<String>, known: some Sequence<String>) -> String? {
    let known = Set(known)
    return keys.filter { !known.contains($0) }.sorted().first
  }

  /// The known key with the fewest single-character edits (insertions,
  /// deletions, substitutions; case ignored) from `key`; on a tie the one
  /// sharing the longest start with it ("fix": "fixes", not "file"), then
  /// the first in sorted order; nil when `known` is empty. Only the first 80
  /// characters of `key` are compared, so a hostile key costs O(80 · |k|).
  public static func nearest(to key: String, among known: [String]) -> String? {
    let a = Array(key.lowercased().prefix(80))
    func shared(_ b: [Character]) -> Int { zip(a, b).prefix { $0 == $1 }.count }
    var best: (distance: Int, shared: Int, key: String)?
    for candidate in known.sorted() {
      let b = Array(candidate.lowercased())
      let (d, s) = (editDistance(a, b), shared(b))
      if best == nil || d < best!.distance || (d == best!.distance && s > best!.shared) {
        best = (d, s, candidate)
      }
    }
    return best?.key
  }

  /// Levenshtein distance, two rows. O(|a| · |b|).
  static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }

  /// Where in a JSON document a decoding error is, as a path a person reads:
  /// `files[0].fixes.speed`; "the top level" for none.
  public static func path(_ codingPath: [any CodingKey]) -> String {
    var out = ""
    for key in codingPath {
      if let index = key.intValue {
        out += "[\(index)]"
      } else {
        out += (out.isEmpty ? "" : ".") + Excerpt.of(key.stringValue, bytes: 80)
      }
    }
    return out.isEmpty ? "the top level" : out
  }

  /// A decoding error in words: where (``path(_:)``) and what.
  public static func describe(_ error: DecodingError) -> String {
    switch error {
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty && context.underlyingError != nil
        ? "not JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return "\(path(context.codingPath)): missing \"\(key.stringValue)\""
    case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
      return "\(path(context.codingPath)): expected \(describe(type))"
    @unknown default:
      return "\(error)"
    }
  }

  /// A decoded type in words ("a number", "a list"), never Swift's name of
  /// it (`Array<Any>`).
  public static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Double.Type, is Float.Type: "a number"
    case is Int.Type, is Int64.Type, is UInt64.Type, is UInt32.Type: "a whole number"
    case is Bool.Type: "true or false"
    default:
      "\(type)".hasPrefix("Array") ? "a list" : "an object"
    }
  }
}

/// Any key of a JSON object, to list them all.
struct AnyCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) {
    stringValue = "Index \(intValue)"
    self.intValue = intValue
  }
}

extension Decoder {
  /// The keyed container of an object whose every key is one of `Key`'s.
  /// - Throws: `DecodingError.dataCorrupted` at this path naming the first
  ///   unknown key and the nearest known one (``JSONKeys/unknown(_:known:)``).
  public func strictContainer<Key: CodingKey & CaseIterable>(keyedBy type: Key.Type) throws
    -> KeyedDecodingContainer<Key>
  {
    let known = Key.allCases.map(\.stringValue)
    let given = try container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
    if let unknown = JSONKeys.firstUnknown(given, known: known) {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: JSONKeys.unknown(unknown, known: known)))
    }
    return try container(keyedBy: type)
  }
}
