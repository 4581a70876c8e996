import CHearth

/// `bytes` NUL-terminated, as a C caller hands them.
func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

/// What `hearth_last_error` says of `handle`.
func lastError(_ handle: OpaquePointer?) -> String {
  guard let text = hearth_last_error(UnsafeRawPointer(handle)) else { return "" }
  return String(cString: text)
}

func release(_ handle: OpaquePointer?) { hearth_release(UnsafeMutableRawPointer(handle)) }
