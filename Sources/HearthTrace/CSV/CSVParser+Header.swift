/// The header line: the first non-blank line, after a byte-order mark; it
/// decides the delimiter (the most frequent of `,` `;` tab outside quotes)
/// and gives the column names.
extension CSVParser {
  /// Reads the first non-blank line as the header, detecting the delimiter.
  mutating func readHeader(source: inout ChunkSource) throws -> [String] {
    _ = try source.refill()
    source.skipByteOrderMark()
    while true {
      guard let lineEnd = headerLineEnd(source) else {
        if source.available > options.maximumLineBytes {
          try refuseCarriageReturnLines(
            UnsafeBufferPointer(rebasing: source.buffer[source.start..<source.end]))
          throw TraceError.malformed(
            SourceLocation(file: name, line: line),
            reason: "header longer than \(options.maximumLineBytes) bytes")
        }
        _ = try source.refill()
        continue
      }
      let lineBytes = UnsafeBufferPointer(rebasing: source.buffer[source.start..<lineEnd])
      source.start = min(lineEnd + 1, source.end)
      let trimmed =
        lineBytes.count > 0 && lineBytes.last == 0x0D
        ? UnsafeBufferPointer(rebasing: lineBytes.dropLast()) : lineBytes
      guard trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else {
        try refuseCarriageReturnLines(trimmed)
        dialect = Self.detectDialect(trimmed)
        line += 1
        return Self.splitHeader(trimmed, delimiter: dialect.delimiter)
      }
      line += 1
      if source.start >= source.end && source.atEndOfFile {
        throw TraceError.malformed(
          SourceLocation(file: name, line: line - 1), reason: "empty file: no header line")
      }
    }
  }

  /// Refuses a file whose lines end in a carriage return alone (classic
  /// Mac OS): its header would be the whole file, and every column
  /// "missing" (review26 F10: an upload log was "not a recognised trace").
  /// `bytes` is the header line (on ``line``); a CR inside quotes is a
  /// field's. O(bytes).
  private func refuseCarriageReturnLines(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    var quoted = false
    for (i, c) in bytes.enumerated() {
      if c == UInt8(ascii: "\"") {
        quoted.toggle()
      } else if c == 0x0D && !quoted && i + 1 < bytes.count && bytes[i + 1] != 0x0A {
        throw TraceError.unsupported(
          SourceLocation(file: name, line: line),
          reason: "lines end with a carriage return alone (classic Mac OS): save it with LF or CRLF line ends"
        )
      }
    }
  }

  /// The index of the header line's line feed (quotes respected), the
  /// buffer's end at the end of the file, or nil when more input is needed.
  private func headerLineEnd(_ source: ChunkSource) -> Int? {
    var i = source.start
    var quoted = false
    while i < source.end {
      let c = source.buffer[i]
      if c == UInt8(ascii: "\"") { quoted.toggle() } else if c == 0x0A && !quoted { return i }
      i += 1
    }
    return source.atEndOfFile ? i : nil
  }

  static func detectDialect(_ header: UnsafeBufferPointer<UInt8>) -> CSVDialect {
    var commas = 0
    var semicolons = 0
    var tabs = 0
    var quoted = false
    for c in header {
      switch c {
      case UInt8(ascii: "\""): quoted.toggle()
      case UInt8(ascii: ",") where !quoted: commas += 1
      case UInt8(ascii: ";") where !quoted: semicolons += 1
      case 0x09 where !quoted: tabs += 1
      default: break
      }
    }
    // Ties go to the comma, then the semicolon.
    let delimiter: UInt8 =
      commas >= semicolons && commas >= tabs
      ? UInt8(ascii: ",") : semicolons >= tabs ? UInt8(ascii: ";") : 0x09
    return CSVDialect(delimiter: delimiter, decimalComma: delimiter != UInt8(ascii: ","))
  }

  static func splitHeader(_ bytes: UnsafeBufferPointer<UInt8>, delimiter: UInt8) -> [String] {
    var fields: [String] = []
    var current: [UInt8] = []
    var quoted = false
    var i = 0
    while i < bytes.count {
      let c = bytes[i]
      if c == UInt8(ascii: "\"") {
        if quoted && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") {
          current.append(c)
          i += 1
        } else {
          quoted.toggle()
        }
      } else if c == delimiter && !quoted {
        fields.append(String(decoding: current, as: UTF8.self).trimmingSpaces())
        current.removeAll()
      } else {
        current.append(c)
      }
      i += 1
    }
    fields.append(String(decoding: current, as: UTF8.self).trimmingSpaces())
    return fields
  }
}
