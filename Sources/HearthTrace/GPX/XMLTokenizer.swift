/// A small pull tokenizer for the XML that GPX files use: elements with
/// attributes, text, CDATA, comments, processing instructions and the five
/// predefined entities plus numeric character references. No DTDs (a
/// DOCTYPE is skipped), no external entities, no namespace resolution
/// (prefixes are kept in names; callers match on the local name).
///
/// It reads from a ``ChunkSource`` (a file in 4 MiB chunks, or bytes in
/// memory), so a file of any size costs one chunk plus the longest token:
/// a token (a tag, a run of text, a comment) longer than `maximumTokenBytes`
/// is a failure, not a reason to buffer without end.
struct XMLTokenizer {
  enum Token: Equatable {
    case start(name: String, attributes: [String: String], selfClosing: Bool)
    case end(name: String)
    case text(String)
  }

  struct Failure: Error {
    var line: Int
    var reason: String
  }

  private var source: ChunkSource
  private let maximumTokenBytes: Int
  /// The read position in `source.buffer` (kept equal to `source.start`
  /// between tokens).
  private var i = 0
  private(set) var line = 1
  /// A malformed entity in the last token's text or attribute values (an
  /// unterminated `&`, an unknown name): the token carries the raw text,
  /// and the reader decides what the problem spoils (a point's field, or
  /// nothing it reads). Taken with ``takeEntityProblem()``.
  private var entityProblem: String?

  init(source: ChunkSource, maximumTokenBytes: Int) throws {
    self.source = source
    self.maximumTokenBytes = maximumTokenBytes
    _ = try self.source.refill()
    self.source.skipByteOrderMark()
    i = self.source.start
  }

  mutating func close() { source.close() }

  private var end: Int { source.end }

  /// The bytes a search looks at: the buffer, the token's start, and the
  /// range still to search (the part before `from` was searched already).
  typealias Search =
    @Sendable (_ buffer: UnsafeMutableBufferPointer<UInt8>, _ token: Int, _ from: Int, _ to: Int) -> Int?

  /// Makes bytes from `i` on available until `found` says where the token
  /// ends, refilling as needed (indices are the buffer's after any refill).
  /// Nil at the end of input without a match.
  private mutating func within(_ found: Search) throws -> Int? {
    var searched = i
    while true {
      if let stop = found(source.buffer, i, searched, end) { return stop }
      if source.atEndOfFile { return nil }
      guard end - i <= maximumTokenBytes else {
        throw Failure(line: line, reason: "a token longer than \(maximumTokenBytes) bytes")
      }
      searched = max(i, end - 16)  // a terminator may straddle the refill
      let offset = i
      source.start = i
      guard try source.refill() || source.available > 0 else { return nil }
      i = source.start
      searched -= offset - i
    }
  }

  /// A search for `needle` at or after `skip` bytes into the token.
  private static func find(_ needle: String, skip: Int) -> Search {
    let n = Array(needle.utf8)
    return { buffer, token, from, to in
      var k = max(from, token + skip)
      while k + n.count <= to {
        if buffer[k] == n[0] {
          var match = true
          for (j, c) in n.enumerated() where buffer[k + j] != c {
            match = false
            break
          }
          if match { return k }
        }
        k += 1
      }
      return nil
    }
  }

  /// The next `<` (the end of a run of text).
  private static let textEnd: Search = { buffer, _, from, to in
    var k = from
    while k < to && buffer[k] != UInt8(ascii: "<") { k += 1 }
    return k < to ? k : nil
  }

  /// The `>` that closes a tag, outside quoted attribute values.
  private static let tagEnd: Search = { buffer, token, _, to in
    var quote: UInt8 = 0
    var k = token + 1
    while k < to {
      let c = buffer[k]
      if quote != 0 {
        if c == quote { quote = 0 }
      } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
        quote = c
      } else if c == UInt8(ascii: ">") {
        return k
      }
      k += 1
    }
    return nil
  }

  /// Nine bytes from the token's start (enough to tell its kind).
  private static let kindKnown: Search = { _, token, _, to in to - token >= 9 ? to : nil }

  /// The next token, nil at the end of the document.
  mutating func next() throws(Failure) -> Token? {
    do { return try nextToken() } catch let failure as Failure { throw failure } catch {
      throw Failure(line: line, reason: "\(error)")
    }
  }

  private mutating func nextToken() throws -> Token? {
    while true {
      source.start = i
      if i >= end {
        guard try source.refill() || source.available > 0 else { return nil }
        i = source.start
        if i >= end { return nil }
      }
      if source.buffer[i] != UInt8(ascii: "<") {
        let stop = try within(Self.textEnd) ?? end
        let raw = Array(source.buffer[i..<stop])
        for c in raw where c == 0x0A { line += 1 }
        i = stop
        if raw.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { continue }
        return .text(decodedOrRaw(raw[...]))
      }
      _ = try within(Self.kindKnown)
      if matches("<!--") {
        guard let close = try within(Self.find("-->", skip: 4)) else {
          throw Failure(line: line, reason: "comment not closed")
        }
        advance(to: close + 3)
        continue
      }
      if matches("<![CDATA[") {
        guard let close = try within(Self.find("]]>", skip: 9)) else {
          throw Failure(line: line, reason: "CDATA not closed")
        }
        let text = String(decoding: source.buffer[(i + 9)..<close], as: UTF8.self)
        advance(to: close + 3)
        return .text(text)
      }
      if matches("<?") {
        guard let close = try within(Self.find("?>", skip: 2)) else {
          throw Failure(line: line, reason: "processing instruction not closed")
        }
        advance(to: close + 2)
        continue
      }
      guard let close = try within(Self.tagEnd) else { throw Failure(line: line, reason: "tag not closed") }
      if matches("<!") {
        advance(to: close + 1)
        continue
      }
      return try tag(through: close)
    }
  }

  /// The start or end tag from `i` to the `>` at `close`.
  private mutating func tag(through close: Int) throws -> Token {
    if matches("</") {
      i += 2
      let name = readName(limit: close)
      skipSpace(limit: close)
      guard !name.isEmpty, i == close else { throw Failure(line: line, reason: "malformed end tag") }
      i += 1
      return .end(name: name)
    }
    i += 1
    let name = readName(limit: close)
    guard !name.isEmpty else { throw Failure(line: line, reason: "malformed start tag") }
    var attributes: [String: String] = [:]
    while true {
      skipSpace(limit: close)
      if i == close {
        i += 1
        return .start(name: name, attributes: attributes, selfClosing: false)
      }
      if source.buffer[i] == UInt8(ascii: "/") {
        guard i + 1 == close else {
          throw Failure(line: line, reason: "malformed empty tag <\(Excerpt.of(name, bytes: 40))/>")
        }
        i = close + 1
        return .start(name: name, attributes: attributes, selfClosing: true)
      }
      let attribute = readName(limit: close)
      skipSpace(limit: close)
      guard !attribute.isEmpty, i < close, source.buffer[i] == UInt8(ascii: "=") else {
        throw Failure(line: line, reason: "malformed attribute in <\(Excerpt.of(name, bytes: 40))>")
      }
      i += 1
      skipSpace(limit: close)
      guard i < close, source.buffer[i] == UInt8(ascii: "\"") || source.buffer[i] == UInt8(ascii: "'") else {
        throw Failure(
          line: line,
          reason:
            "attribute \(Excerpt.of(attribute, bytes: 40)) of <\(Excerpt.of(name, bytes: 40))> is not quoted")
      }
      let quote = source.buffer[i]
      let start = i + 1
      var stop = start
      while stop < close && source.buffer[stop] != quote {
        if source.buffer[stop] == 0x0A { line += 1 }
        stop += 1
      }
      guard stop < close else {
        throw Failure(line: line, reason: "attribute \(Excerpt.of(attribute, bytes: 40)) not closed")
      }
      attributes[attribute] = decodedOrRaw(Array(source.buffer[start..<stop])[...])
      i = stop + 1
    }
  }

  private func matches(_ prefix: String) -> Bool {
    let p = Array(prefix.utf8)
    guard i + p.count <= end else { return false }
    for (k, c) in p.enumerated() where source.buffer[i + k] != c { return false }
    return true
  }

  private mutating func advance(to stop: Int) {
    for k in i..<min(stop, end) where source.buffer[k] == 0x0A { line += 1 }
    i = stop
  }

  private mutating func skipSpace(limit: Int) {
    while i < limit {
      let c = source.buffer[i]
      guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return }
      if c == 0x0A { line += 1 }
      i += 1
    }
  }

  private mutating func readName(limit: Int) -> String {
    let start = i
    while i < limit {
      let c = source.buffer[i]
      if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
        || c == UInt8(ascii: "=")
      {
        break
      }
      i += 1
    }
    return String(decoding: source.buffer[start..<i], as: UTF8.self)
  }

  /// The problem with an entity in the token just read, if any (cleared).
  mutating func takeEntityProblem() -> String? {
    defer { entityProblem = nil }
    return entityProblem
  }

  /// `raw` with its entities decoded; with a malformed one, `raw` as it is
  /// and the problem noted (``takeEntityProblem()``): a stray `&` in a
  /// point's name spoils that field, not the rest of the file.
  private mutating func decodedOrRaw(_ raw: ArraySlice<UInt8>) -> String {
    do { return try decodeEntities(raw) } catch {
      entityProblem = entityProblem ?? error.reason
      return String(decoding: raw, as: UTF8.self)
    }
  }

  private func decodeEntities(_ raw: ArraySlice<UInt8>) throws(Failure) -> String {
    guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
    var out: [UInt8] = []
    var k = raw.startIndex
    while k < raw.endIndex {
      guard raw[k] == UInt8(ascii: "&") else {
        out.append(raw[k])
        k += 1
        continue
      }
      guard let semicolon = raw[k...].firstIndex(of: UInt8(ascii: ";")), semicolon - k <= 10 else {
        throw Failure(line: line, reason: "unterminated entity")
      }
      let name = String(decoding: raw[(k + 1)..<semicolon], as: UTF8.self)
      switch name {
      case "lt": out.append(UInt8(ascii: "<"))
      case "gt": out.append(UInt8(ascii: ">"))
      case "amp": out.append(UInt8(ascii: "&"))
      case "quot": out.append(UInt8(ascii: "\""))
      case "apos": out.append(UInt8(ascii: "'"))
      default:
        let isHex = name.hasPrefix("#x") || name.hasPrefix("#X")
        guard name.hasPrefix("#"),
          let code = UInt32(name.dropFirst(isHex ? 2 : 1), radix: isHex ? 16 : 10),
          let scalar = Unicode.Scalar(code)
        else { throw Failure(line: line, reason: "unknown entity &\(Excerpt.of(name, bytes: 12));") }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
      }
      k = semicolon + 1
    }
    return String(decoding: out, as: UTF8.self)
  }
}
