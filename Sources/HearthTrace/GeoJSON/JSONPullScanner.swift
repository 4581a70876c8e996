/// JSON text read one token at a time from a ``ChunkSource``, building no
/// tree: the caller asks for the value it expects and skips the ones it does
/// not want. Memory: the source's chunk, one scratch buffer for the longest
/// string or number met (at most ``maximumTokenBytes``) and one byte per
/// open container while skipping (at most ``maximumDepth``).
///
/// Grammar: RFC 8259 (no comments, no trailing commas, no NaN); strings must
/// be valid UTF-8 after their escapes are decoded. Every loop consumes at
/// least one byte per turn, so a scan ends after at most as many turns as
/// the text has bytes.
struct JSONPullScanner {
  /// What went wrong, in words, and at which byte (0-based).
  struct Failure: Error {
    var reason: String
    var byteOffset: Int
    /// A member name repeated within one object (``key(distinctFrom:)``).
    var repeatedMember = false
    /// Nesting deeper than ``JSONPullScanner/depthLimit`` (still JSON).
    var tooDeep = false
    /// Whether the text is not JSON (neither of the two above).
    var notJSON: Bool { !repeatedMember && !tooDeep }
  }

  /// The kinds of value, by their first byte.
  enum Kind {
    case object, array, string, number, literal
  }

  /// The longest string or number read (names and ids are short; a longer
  /// token is refused rather than buffered).
  static let maximumTokenBytes = 1 << 16
  /// The deepest nesting skipped over.
  static let maximumDepth = 10_000
  /// The deepest nesting `JSONDecoder` reads: a document deeper is refused
  /// by it as "not valid JSON" with no position, so ``problem(in:)`` names it.
  static let decoderDepth = 512
  /// The deepest nesting this scanner skips over.
  var depthLimit = maximumDepth
  /// The longest string or number this scanner reads.
  var tokenLimit = maximumTokenBytes
  /// Whether a string or name ``skipValue()`` passes over must be UTF-8
  /// (``problem(in:)``'s check; a places file skips what it does not read).
  var skippedStringsMustBeUTF8 = false

  private var source: ChunkSource
  /// Bytes consumed before `source.start`.
  private var consumedBefore = 0
  /// The bytes of the last string or number read.
  private(set) var scratch: [UInt8] = []
  /// The offset of the last string's opening quote.
  private var stringStart = 0

  init(_ source: ChunkSource) {
    self.source = source
    // A UTF-8 byte order mark is not JSON, but editors write one: skipped,
    // as every text reader skips it (review26 F10). A read that fails here
    // fails again, with its reason, at the first token.
    if self.source.available < 3 { _ = try? self.source.refill() }
    self.source.skipByteOrderMark()
    scratch.reserveCapacity(256)
  }

  mutating func close() { source.close() }

  /// The offset of the next byte in the text.
  var byteOffset: Int { consumedBefore + source.start }

  func failure(_ reason: String) -> Failure { Failure(reason: reason, byteOffset: byteOffset) }

  /// The next byte, not consumed; nil at the end of the text.
  @inline(__always)
  private mutating func peekByte() throws -> UInt8? {
    if source.start < source.end { return source.buffer[source.start] }
    consumedBefore += source.start
    source.start = 0
    source.end = 0
    guard (try? source.refill()) ?? false, source.start < source.end else {
      if !source.atEndOfFile { throw failure("the file could not be read to its end") }
      return nil
    }
    return source.buffer[source.start]
  }

  @inline(__always)
  private mutating func advance() { source.start += 1 }

  /// The next byte, consumed; a failure at the end of the text.
  @inline(__always)
  private mutating func nextByte() throws -> UInt8 {
    guard let byte = try peekByte() else { throw failure("the text ends inside a value") }
    advance()
    return byte
  }

  /// The next byte that is not white space, not consumed (nil: the end).
  mutating func peek() throws -> UInt8? {
    while let byte = try peekByte() {
      guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
      advance()
    }
    return nil
  }

  /// The kind of the next value, not consumed.
  mutating func peekKind() throws -> Kind {
    guard let byte = try peek() else { throw failure("the text ends where a value should be") }
    switch byte {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return .literal
    default:
      // A printable ASCII byte is shown as it is; any other by its code, so
      // a control byte reaches no terminal and a UTF-8 lead byte is not
      // shown as the Latin-1 letter it is not.
      let shown =
        (0x21...0x7E).contains(byte)
        ? "character '\(Character(Unicode.Scalar(byte)))'"
        : "byte 0x\(String(byte, radix: 16, uppercase: true))"
      throw failure("unexpected \(shown) where a value should be")
    }
  }

  /// Consumes `byte` (after white space) or fails.
  mutating func expect(_ byte: UInt8) throws {
    guard try peek() == byte else {
      throw failure("expected '\(Character(Unicode.Scalar(byte)))'")
    }
    advance()
  }

  /// Consumes the next value's opening `{` or `[`.
  mutating func open(_ kind: Kind) throws {
    try expect(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
  }

  /// Inside a container just opened or after one of its items: true when
  /// another item follows (its separating comma consumed), false at the
  /// container's end (consumed). `first` says whether no item came yet.
  mutating func more(_ kind: Kind, first: Bool) throws -> Bool {
    let close = kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
    let next = try peek()
    if next == close {
      advance()
      return false
    }
    if first { return true }
    guard next == UInt8(ascii: ",") else {
      throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'")
    }
    advance()
    return true
  }

  /// An object member's key and its colon; the key's bytes are in ``scratch``.
  mutating func key() throws {
    guard try peek() == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
    try readString()
    try expect(UInt8(ascii: ":"))
  }

  /// Whether the last string read is `text`.
  func scratchIs(_ text: StaticString) -> Bool {
    text.withUTF8Buffer { $0.elementsEqual(scratch) }
  }

  /// A string value (validated UTF-8).
  mutating func string() throws -> String {
    try readString()
    guard let text = String(validating: scratch, as: UTF8.self) else {
      throw failure("a string is not valid UTF-8")
    }
    return text
  }

  /// Fails unless the last string read (``scratch``) is valid UTF-8, when
  /// ``skippedStringsMustBeUTF8``: what ``skipValue()`` then asks of the
  /// strings and names it skips, so a document ``problem(in:)`` passes is
  /// one the decoders read without replacing bytes (review30: a place's
  /// name kept U+FFFD for bytes that were not UTF-8). O(length).
  private func requireUTF8Scratch() throws {
    guard !skippedStringsMustBeUTF8 || String(validating: scratch, as: UTF8.self) != nil else {
      throw Failure(reason: "a string is not valid UTF-8", byteOffset: stringStart)
    }
  }

  /// Reads a string token into ``scratch``, escapes decoded.
  private mutating func readString() throws {
    scratch.removeAll(keepingCapacity: true)
    stringStart = byteOffset
    guard try nextByte() == UInt8(ascii: "\"") else { throw failure("expected a string") }
    while true {
      let byte = try nextByte()
      guard scratch.count < tokenLimit else {
        throw failure("a string longer than \(tokenLimit) bytes")
      }
      switch byte {
      case UInt8(ascii: "\""): return
      case UInt8(ascii: "\\"): try readEscape()
      case 0..<0x20: throw failure("a control character inside a string")
      default: scratch.append(byte)
      }
    }
  }

  private mutating func readEscape() throws {
    let byte = try nextByte()
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var code = try hex4()
      if (0xD800..<0xDC00).contains(code) {
        // A high surrogate needs its low half.
        guard try nextByte() == UInt8(ascii: "\\"), try nextByte() == UInt8(ascii: "u") else {
          throw failure("a lone surrogate in a string escape")
        }
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string escape") }
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(code) {
        throw failure("a lone surrogate in a string escape")
      }
      guard let scalar = Unicode.Scalar(code) else { throw failure("an invalid string escape") }
      scratch.append(contentsOf: String(Character(scalar)).utf8)
    default: throw failure("an invalid string escape")
    }
  }

  private mutating func hex4() throws -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = try nextByte()
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("an invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  /// A number value, correctly rounded (``NumberParser``); ±infinity when
  /// it is beyond the doubles.
  mutating func number() throws -> Double {
    scratch.removeAll(keepingCapacity: true)
    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    func digits(_ scanner: inout JSONPullScanner) throws -> Int {
      var count = 0
      while let byte = try scanner.peekByte(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
        guard scanner.scratch.count < scanner.tokenLimit else {
          throw scanner.failure("a number longer than \(scanner.tokenLimit) bytes")
        }
        scanner.scratch.append(byte)
        scanner.advance()
        count += 1
      }
      return count
    }
    if try peek() == UInt8(ascii: "-") {
      scratch.append(UInt8(ascii: "-"))
      advance()
    }
    let leadingZero = try peekByte() == UInt8(ascii: "0")
    let integer = try digits(&self)
    guard integer > 0, !leadingZero || integer == 1 else { throw failure("a malformed number") }
    if try peekByte() == UInt8(ascii: ".") {
      scratch.append(UInt8(ascii: "."))
      advance()
      guard try digits(&self) > 0 else { throw failure("a malformed number") }
    }
    if let byte = try peekByte(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
      scratch.append(byte)
      advance()
      if let sign = try peekByte(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        scratch.append(sign)
        advance()
      }
      guard try digits(&self) > 0 else { throw failure("a malformed number") }
    }
    let parsed = scratch.withUnsafeBufferPointer { NumberParser.parseDouble($0, decimalComma: false) }
    guard case .value(let value) = parsed else { throw failure("a malformed number") }
    return value
  }

  /// Consumes `true`, `false` or `null`.
  private mutating func literal() throws {
    let words: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]
    let first = try nextByte()
    guard let word = words.first(where: { $0[0] == first }) else { throw failure("an unknown literal") }
    for expected in word.dropFirst() {
      guard try nextByte() == expected else { throw failure("an unknown literal") }
    }
  }

  /// An object member's key and its colon, as ``key()``, refused when
  /// `seen` (the names of this object's members so far) holds it: readers
  /// disagree on which of two same-named members counts (review26 F7), so
  /// a repeated member is an error, not a choice. O(length of the name)
  /// expected (a hashed set: an object of n members costs O(n), review27 R1).
  mutating func key(distinctFrom seen: inout Set<[UInt8]>) throws {
    try key()
    guard seen.insert(scratch).inserted else {
      let name = Excerpt.of(String(decoding: scratch, as: UTF8.self), bytes: 80)
      // Placed at the repeated name's opening quote (review30: after its colon).
      throw Failure(
        reason: "the member \"\(name)\" appears twice in one object", byteOffset: stringStart,
        repeatedMember: true)
    }
  }

  /// Consumes the next value whatever it is, nested ones included, without
  /// recursion (one byte and the member names so far per open container);
  /// a member name repeated within one object fails
  /// (``key(distinctFrom:)``).
  mutating func skipValue() throws {
    var open: [(kind: Kind, names: Set<[UInt8]>)] = []
    var first = false
    repeat {
      if let kind = open.last?.kind {
        // Between the items of the innermost open container.
        guard try more(kind, first: first) else {
          open.removeLast()
          first = false
          continue
        }
        if kind == .object {
          try key(distinctFrom: &open[open.count - 1].names)
          try requireUTF8Scratch()
        }
      }
      first = false
      switch try peekKind() {
      case .object, .array:
        let kind = try peekKind()
        guard open.count < depthLimit else {
          var deep = failure("nested deeper than \(depthLimit) levels")
          deep.tooDeep = true
          throw deep
        }
        try self.open(kind)
        open.append((kind, []))
        first = true
      case .string:
        try readString()
        try requireUTF8Scratch()
      case .number: _ = try number()
      case .literal: try literal()
      }
    } while !open.isEmpty
  }

  /// Fails unless only white space is left.
  mutating func expectEnd() throws {
    guard try peek() == nil else { throw failure("more text after the value") }
  }

  /// The first problem of `text` as a JSON document a person wrote, with
  /// its byte offset ("at byte 40: the member \"unit\" appears twice in one
  /// object"), nil when there is none: a member name repeated in one object
  /// (JSONDecoder keeps one of the two silently, the first on Linux, while
  /// Python's json keeps the last), text that is not JSON, or nesting deeper
  /// than ``decoderDepth`` (JSONDecoder says neither where nor why, review26
  /// F10). The readers of files people write ask this before decoding.
  /// O(bytes · members per object); memory O(depth).
  static func problem(in text: [UInt8]) -> String? {
    // UTF-16 or UTF-32 named as such, as every reader names it.
    if let encoding = TextEncoding.problem(Array(text.prefix(64))) { return encoding }
    var scanner = JSONPullScanner(ChunkSource(bytes: text, displayName: "json"))
    defer { scanner.close() }
    // The text is in memory already: no token is too long to check (a
    // trace's free-text device name may pass 64 KiB, review32).
    scanner.depthLimit = decoderDepth
    scanner.tokenLimit = .max
    scanner.skippedStringsMustBeUTF8 = true
    do {
      try scanner.skipValue()
      try scanner.expectEnd()
      return nil
    } catch let failure as Failure {
      return "at byte \(failure.byteOffset): \(failure.notJSON ? "not JSON: " : "")\(failure.reason)"
    } catch {
      return "\(error)"
    }
  }
}
