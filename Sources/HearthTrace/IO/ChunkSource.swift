#if canImport(Glibc)
  import Glibc
#endif

/// A file read in chunks into one reusable buffer: what every streaming
/// reader (CSV, `.traj`, GPX) pulls bytes from.
///
/// Memory: one chunk plus the longest line (or token) the reader allows,
/// allocated once. Only regular files are opened (``RegularFile``): a FIFO,
/// a device or a folder where a file is expected is a clear error, never a
/// read that blocks.
///
/// Past `end` there are always ``padding`` readable zero bytes (beyond
/// `buffer.count`, in the same allocation): a scanner may load 8 bytes at
/// any index up to `end` without a bounds check, and a byte 0 at `end` stops
/// any run of digits there.
struct ChunkSource {
  let descriptor: Int32
  let name: String
  let chunkBytes = 4 << 20
  /// Zero bytes kept readable after `end`.
  static let padding = 16
  /// buffer[start..<end] holds bytes not yet consumed.
  var buffer: UnsafeMutableBufferPointer<UInt8>
  var start = 0
  var end = 0
  var atEndOfFile = false

  /// Opens `path` for reading with room for one chunk plus `maximumLineBytes`.
  /// - Throws: `TraceError.io` when it is missing, unreadable or not a regular file.
  /// The file's size when it was opened, bytes.
  let fileBytes: Int

  /// - Throws: also `TraceError.unsupported` for a file in UTF-16 or UTF-32
  ///   (``TextEncoding``): every reader takes UTF-8 text.
  init(path: String, displayName: String, maximumLineBytes: Int) throws {
    let descriptor = try RegularFile.open(path, displayName: displayName)
    do { try TextEncoding.requireUTF8(descriptor, name: displayName) } catch {
      _ = Glibc.close(descriptor)
      throw error
    }
    self.descriptor = descriptor
    name = displayName
    var status = stat()
    fileBytes = fstat(descriptor, &status) == 0 ? Int(status.st_size) : chunkBytes
    // A small file needs no full chunk (a folder of small files is opened often).
    let chunk = min(chunkBytes, max(fileBytes + 1, 4096))
    buffer = Self.allocate(chunk + max(maximumLineBytes, 1) + 1)
    padEnd()
  }

  /// `count` bytes followed by ``padding`` more in the same allocation.
  private static func allocate(_ count: Int) -> UnsafeMutableBufferPointer<UInt8> {
    let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: count + padding)
    return UnsafeMutableBufferPointer(start: memory, count: count)
  }

  /// Zeroes the ``padding`` bytes from `end` (after `end` moved).
  private func padEnd() {
    (buffer.baseAddress! + end).initialize(repeating: 0, count: Self.padding)
  }

  /// Bytes already in memory, as if they were a whole file.
  init(bytes: [UInt8], displayName: String) {
    descriptor = -1
    fileBytes = bytes.count
    name = displayName
    buffer = Self.allocate(max(bytes.count, 1))
    _ = buffer.initialize(from: bytes)
    end = bytes.count
    atEndOfFile = true
    padEnd()
  }

  mutating func close() {
    if descriptor >= 0 { _ = Glibc.close(descriptor) }
    buffer.deallocate()
  }

  /// Bytes not yet consumed.
  var available: Int { end - start }

  /// Consumes a UTF-8 byte order mark if the unconsumed bytes begin with
  /// one: editors on Windows write it, and every text reader takes a file
  /// with or without it.
  mutating func skipByteOrderMark() {
    if available >= 3 && buffer[start] == 0xEF && buffer[start + 1] == 0xBB && buffer[start + 2] == 0xBF {
      start += 3
    }
  }

  /// Moves unconsumed bytes to the front and reads more. Returns false at end of file.
  mutating func refill() throws -> Bool {
    if atEndOfFile { return false }
    if start > 0 {
      let remaining = end - start
      if remaining > 0 {
        UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(
          from: buffer.baseAddress! + start, byteCount: remaining)
      }
      start = 0
      end = remaining
      padEnd()
    }
    let space = buffer.count - end
    guard space > 0 else { return true }
    // (A file that grew after it was opened is read in smaller steps.)
    var got = 0
    repeat {
      got = Glibc.read(descriptor, buffer.baseAddress! + end, min(space, chunkBytes))
    } while got < 0 && errno == EINTR
    guard got >= 0 else { throw TraceError.io(path: name, reason: String(cString: strerror(errno))) }
    if got == 0 { atEndOfFile = true }
    end += got
    padEnd()
    return got > 0
  }
}
