/// A small pull tokenizer for the XML that GPX files use: elements with
/// attributes, text, CDATA, comments, processing instructions and the five
/// predefined entities plus numeric character references. No DTDs (a
/// DOCTYPE is skipped), no external entities, no namespace resolution
/// (prefixes are kept in names; callers match on the local name).
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

  private let bytes: [UInt8]
  private var i = 0
  private(set) var line = 1

  init(bytes: [UInt8]) {
    self.bytes = bytes
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
  }

  /// The next token, nil at the end of the document.
  mutating func next() throws(Failure) -> Token? {
    while i < bytes.count {
      if bytes[i] != UInt8(ascii: "<") {
        let start = i
        while i < bytes.count && bytes[i] != UInt8(ascii: "<") {
          if bytes[i] == 0x0A { line += 1 }
          i += 1
        }
        let raw = bytes[start..<i]
        if raw.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { continue }
        return .text(try decodeEntities(raw))
      }
      if matches("<!--") {
        guard let end = find("-->", from: i + 4) else {
          throw Failure(line: line, reason: "comment not closed")
        }
        advance(to: end + 3)
        continue
      }
      if matches("<![CDATA[") {
        guard let end = find("]]>", from: i + 9) else {
          throw Failure(line: line, reason: "CDATA not closed")
        }
        let text = String(decoding: bytes[(i + 9)..<end], as: UTF8.self)
        advance(to: end + 3)
        return .text(text)
      }
      if matches("<?") {
        guard let end = find("?>", from: i + 2) else {
          throw Failure(line: line, reason: "processing instruction not closed")
        }
        advance(to: end + 2)
        continue
      }
      if matches("<!") {
        guard let end = find(">", from: i + 2) else {
          throw Failure(line: line, reason: "declaration not closed")
        }
        advance(to: end + 1)
        continue
      }
      if matches("</") {
        i += 2
        let name = readName()
        skipSpace()
        guard !name.isEmpty, i < bytes.count, bytes[i] == UInt8(ascii: ">") else {
          throw Failure(line: line, reason: "malformed end tag")
        }
        i += 1
        return .end(name: name)
      }
      // Start tag.
      i += 1
      let name = readName()
      guard !name.isEmpty else { throw Failure(line: line, reason: "malformed start tag") }
      var attributes: [String: String] = [:]
      while true {
        skipSpace()
        guard i < bytes.count else { throw Failure(line: line, reason: "start tag <\(name)> not closed") }
        if bytes[i] == UInt8(ascii: ">") {
          i += 1
          return .start(name: name, attributes: attributes, selfClosing: false)
        }
        if bytes[i] == UInt8(ascii: "/") {
          guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") else {
            throw Failure(line: line, reason: "malformed empty tag <\(name)/>")
          }
          i += 2
          return .start(name: name, attributes: attributes, selfClosing: true)
        }
        let attribute = readName()
        skipSpace()
        guard !attribute.isEmpty, i < bytes.count, bytes[i] == UInt8(ascii: "=") else {
          throw Failure(line: line, reason: "malformed attribute in <\(name)>")
        }
        i += 1
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
          throw Failure(line: line, reason: "attribute \(attribute) of <\(name)> is not quoted")
        }
        let quote = bytes[i]
        let start = i + 1
        var end = start
        while end < bytes.count && bytes[end] != quote {
          if bytes[end] == 0x0A { line += 1 }
          end += 1
        }
        guard end < bytes.count else {
          throw Failure(line: line, reason: "attribute \(attribute) not closed")
        }
        attributes[attribute] = try decodeEntities(bytes[start..<end])
        i = end + 1
      }
    }
    return nil
  }

  private func matches(_ prefix: String) -> Bool {
    let p = Array(prefix.utf8)
    return i + p.count <= bytes.count && bytes[i..<(i + p.count)].elementsEqual(p)
  }

  private func find(_ needle: String, from start: Int) -> Int? {
    let n = Array(needle.utf8)
    guard bytes.count >= n.count else { return nil }
    var k = start
    while k + n.count <= bytes.count {
      if bytes[k] == n[0] && bytes[k..<(k + n.count)].elementsEqual(n) { return k }
      k += 1
    }
    return nil
  }

  private mutating func advance(to end: Int) {
    for k in i..<min(end, bytes.count) where bytes[k] == 0x0A { line += 1 }
    i = end
  }

  private mutating func skipSpace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D {
      if bytes[i] == 0x0A { line += 1 }
      i += 1
    }
  }

  private mutating func readName() -> String {
    let start = i
    while i < bytes.count {
      let c = bytes[i]
      if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
        || c == UInt8(ascii: "=")
      {
        break
      }
      i += 1
    }
    return String(decoding: bytes[start..<i], as: UTF8.self)
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
        else { throw Failure(line: line, reason: "unknown entity &\(name);") }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
      }
      k = semicolon + 1
    }
    return String(decoding: out, as: UTF8.self)
  }
}
