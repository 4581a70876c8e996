import Foundation

/// A folder's entries, with a clear error when it cannot be read: a folder
/// the user may not list is "cannot read", not "not a recognised trace".
enum FolderListing {
  /// The names in `folder`, sorted.
  /// - Throws: `TraceError.io` "cannot read the folder: …" when it cannot be listed.
  static func names(_ folder: String) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    } catch {
      throw TraceError.io(path: folder, reason: "cannot read the folder: \(reason(error))")
    }
  }

  /// The system's words for why, without Foundation's long wrapper (its
  /// file errors carry no errno on Linux: the common ones are named here).
  static func reason(_ error: Error) -> String {
    if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain
    {
      return String(cString: strerror(Int32(underlying.code)))
    }
    if let cocoa = error as? CocoaError {
      switch cocoa.code {
      case .fileWriteOutOfSpace: return "no space left on the device"
      case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
      case .fileWriteNoPermission, .fileReadNoPermission: return "permission denied"
      case .fileWriteVolumeReadOnly: return "the file system is read-only"
      case .fileWriteFileExists: return "something of that name is already there"
      case .fileWriteUnknown:
        return "the system refused the write (no reason given: a folder of that name, a file too large, …)"
      default: break
      }
    }
    return (error as NSError).localizedDescription
  }

  /// Whether `path` is a folder (false for a missing path or a file).
  static func isFolder(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
  }

  /// `name` inside `folder`, or nil when `name` would leave it (absolute,
  /// or a `..` component, or a link to a file outside it): a mapping or
  /// manifest names files of its folder only.
  static func child(_ name: String, of folder: String) -> String? {
    guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\0") else { return nil }
    let parts = name.split(separator: "/", omittingEmptySubsequences: true)
    guard !parts.isEmpty, !parts.contains("..") else { return nil }
    let path = (folder as NSString).appendingPathComponent(name)
    // A symbolic link inside the folder may point outside it: compare where
    // both really are (a name that does not exist yet fails when opened).
    guard let real = realPath(path) else { return path }
    guard let base = realPath(folder) else { return nil }
    return real == base || real.hasPrefix(base.hasSuffix("/") ? base : base + "/") ? path : nil
  }

  /// The absolute path with every link resolved, or nil when it does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
