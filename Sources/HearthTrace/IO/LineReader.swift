/// Lines of a file, one at a time, in bounded memory: `\n` ends a line and a
/// `\r` before it is dropped (CRLF files read like LF ones). A line longer
/// than the limit is reported as such and skipped without being buffered.
struct LineReader {
  enum Line {
    /// The line's bytes (valid until the next call) and its 1-based number.
    case text(UnsafeBufferPointer<UInt8>, number: Int)
    /// A line longer than the limit, skipped.
    case tooLong(number: Int)
  }

  private var source: ChunkSource
  private let maximumLineBytes: Int
  private var number = 0

  init(path: String, displayName: String, maximumLineBytes: Int) throws {
    source = try ChunkSource(path: path, displayName: displayName, maximumLineBytes: maximumLineBytes)
    self.maximumLineBytes = maximumLineBytes
  }

  mutating func close() { source.close() }

  /// The next line, nil at the end of the file.
  mutating func next() throws -> Line? {
    var searched = source.start
    while true {
      var k = searched
      while k < source.end && source.buffer[k] != 0x0A { k += 1 }
      if k < source.end || (source.atEndOfFile && source.start < source.end) {
        number += 1
        let start = source.start
        source.start = min(k + 1, source.end)
        var stop = k
        if stop > start && source.buffer[stop - 1] == 0x0D { stop -= 1 }
        guard stop - start <= maximumLineBytes else { return .tooLong(number: number) }
        return .text(UnsafeBufferPointer(rebasing: source.buffer[start..<stop]), number: number)
      }
      if source.atEndOfFile { return nil }
      if source.available > maximumLineBytes {
        number += 1
        try skipLine()
        return .tooLong(number: number)
      }
      let offset = source.start
      _ = try source.refill()
      searched = k - offset + source.start
    }
  }

  /// Discards the rest of the current line, chunk by chunk.
  private mutating func skipLine() throws {
    while true {
      var k = source.start
      while k < source.end && source.buffer[k] != 0x0A { k += 1 }
      if k < source.end {
        source.start = k + 1
        return
      }
      source.start = source.end
      if !(try source.refill()) { return }
    }
  }
}
