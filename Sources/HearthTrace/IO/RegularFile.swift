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
enum RegularFile {
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
  static func read(_ path: String, displayName: String? = nil, limit: Int) throws -> [UInt8] {
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
