#if canImport(Glibc)
  import Glibc
#endif

/// Opening files that data names, safely: only regular files, without
/// blocking, and whole reads with a size limit.
///
/// A FIFO opened for reading waits for a writer forever, and a device can
/// stream without end; a reader given one where a file is expected must say
/// so rather than hang. The file is opened non-blocking, checked with
/// `fstat`, and only a regular file is kept (blocking again for reading).
public enum RegularFile {
  /// A descriptor for reading the regular file at `path`.
  /// - Throws: `TraceError.io` naming `displayName`: missing, unreadable, or
  ///   "not a regular file (a FIFO)" and the like.
  static func open(_ path: String, displayName: String) throws -> Int32 {
    let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      throw TraceError.io(path: displayName, reason: String(cString: strerror(errno)))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      _ = close(descriptor)
      throw TraceError.io(path: displayName, reason: reason)
    }
    let kind = status.st_mode & S_IFMT
    guard kind == S_IFREG else {
      _ = close(descriptor)
      throw TraceError.io(path: displayName, reason: "not a regular file (\(describe(kind)))")
    }
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    return descriptor
  }

  /// The whole regular file at `path`, at most `limit` bytes.
  /// - Throws: `TraceError.io` as ``open(_:displayName:)``, or when the file
  ///   is larger than `limit` (with both sizes).
  /// - Complexity: O(file size), one allocation of it.
  public static func read(_ path: String, displayName: String? = nil, limit: Int) throws -> [UInt8] {
    let name = displayName ?? path
    let descriptor = try open(path, displayName: name)
    defer { _ = close(descriptor) }
    var status = stat()
    _ = fstat(descriptor, &status)
    let size = Int(status.st_size)
    guard size <= limit else {
      throw TraceError.io(path: name, reason: "\(size) bytes, more than the \(limit) bytes read whole")
    }
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    while done < size {
      let n = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress! + done, size - done, off_t(done))
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }  // the file shrank: keep what was there
      done += n
    }
    if done < size { bytes.removeSubrange(done...) }
    return bytes
  }

  /// What a non-regular file is, in words.
  static func describe(_ kind: mode_t) -> String {
    switch kind {
    case S_IFIFO: "a FIFO"
    case S_IFDIR: "a folder"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    case S_IFLNK: "a symbolic link"
    default: "not a file"
    }
  }
}

extension RegularFile {
  /// The first `bytes` bytes of the regular file at `path` (fewer when shorter).
  /// - Throws: `TraceError.io` as ``open(_:displayName:)``.
  static func prefix(_ path: String, bytes: Int) throws -> [UInt8] {
    let descriptor = try open(path, displayName: path)
    defer { _ = close(descriptor) }
    var head = [UInt8](repeating: 0, count: bytes)
    let n = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, bytes, 0) }
    return Array(head.prefix(max(0, n)))
  }
}

/// Text in an encoding the readers do not take: every text format is read
/// as UTF-8 (ASCII included), and a UTF-16 or UTF-32 file read so fails in
/// a misleading way (a column "missing", XML "not quoted", every line "not a
/// trajectory"). The byte doors (``ChunkSource``, format recognition) refuse
/// it by name instead.
enum TextEncoding {
  /// What is wrong with a file starting with `head` (its first bytes, 64 are
  /// plenty), nil when it may be UTF-8: a UTF-16 or UTF-32 byte-order mark,
  /// or ASCII text written as UTF-16 without one (every other byte zero in
  /// the first 64, the rest not all zero). O(|head|).
  static func problem(_ head: [UInt8]) -> String? {
    func starts(_ mark: [UInt8]) -> Bool { head.starts(with: mark) }
    let advice = ": save it as UTF-8"
    if starts([0xFF, 0xFE, 0, 0]) || starts([0, 0, 0xFE, 0xFF]) { return "UTF-32 text" + advice }
    if starts([0xFF, 0xFE]) { return "UTF-16 text (little-endian, byte-order mark FF FE)" + advice }
    if starts([0xFE, 0xFF]) { return "UTF-16 text (big-endian, byte-order mark FE FF)" + advice }
    let n = min(head.count, 64) / 2 * 2
    guard n >= 4 else { return nil }
    let even = stride(from: 0, to: n, by: 2).map { head[$0] }
    let odd = stride(from: 1, to: n, by: 2).map { head[$0] }
    if odd.allSatisfy({ $0 == 0 }) && even.contains(where: { $0 != 0 }) {
      return "UTF-16 text (little-endian, no byte-order mark)" + advice
    }
    if even.allSatisfy({ $0 == 0 }) && odd.contains(where: { $0 != 0 }) {
      return "UTF-16 text (big-endian, no byte-order mark)" + advice
    }
    return nil
  }

  /// Refuses the open file `descriptor` (named `name`) when ``problem(_:)``
  /// finds its start in another encoding; reads its first 64 bytes with
  /// `pread` (the position is left as it was).
  /// - Throws: `TraceError.unsupported` naming the file and the encoding.
  static func requireUTF8(_ descriptor: Int32, name: String) throws {
    var head = [UInt8](repeating: 0, count: 64)
    let n = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 64, 0) }
    if let problem = problem(Array(head.prefix(max(0, n)))) {
      throw TraceError.unsupported(SourceLocation(file: name, line: 1), reason: problem)
    }
  }
}
