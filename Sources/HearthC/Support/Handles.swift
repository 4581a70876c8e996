import CHearth

// Every handle of hearth.h is a retained instance of a `Handle` subclass,
// passed to C as an opaque pointer. The base class holds what every handle
// has: its last error message (NUL-terminated UTF-8, valid until the next
// call on the handle). Nothing here is global: each call works on the
// handle it is given, and the status constants are the header's own.

/// The base of every handle: the message of the last call. `package`: the
/// lab library (HearthCLab) builds its handles on it.
package class Handle {
  /// The last call's error message (NUL-terminated, owned here), nil after a success.
  private var storage: UnsafeMutablePointer<CChar>?

  deinit { storage?.deallocate() }

  /// Whether other threads may be reading this handle while any call runs:
  /// the kinds the header calls immutable or readable from several threads
  /// at once (bytes, a grid, a schedule, a trace, a sweep plan). No call
  /// but the handle's own one-thread-at-a-time calls writes its message:
  /// a write races with every other thread's read (two at once free the
  /// same message).
  package class var sharedAcrossThreads: Bool { false }

  /// What `hearth_last_error` returns: valid until the next call on the handle.
  package final var message: UnsafePointer<CChar> { storage.map { UnsafePointer($0) } ?? cText("") }

  /// Records a failure and returns its status.
  @discardableResult
  package final func fail(_ status: Int32, _ text: String) -> Int32 {
    let utf8 = text.utf8CString
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    utf8.withUnsafeBufferPointer { copy.initialize(from: $0.baseAddress!, count: utf8.count) }
    storage?.deallocate()
    storage = copy
    return status
  }

  /// Clears the message and returns `HEARTH_OK`.
  package final func succeed() -> Int32 {
    storage?.deallocate()
    storage = nil
    return HEARTH_OK
  }
}

/// A constant C string from a literal: the literal's own bytes in the binary
/// (NUL-terminated by the compiler), no storage of ours.
package func cText(_ text: StaticString) -> UnsafePointer<CChar> {
  UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Bytes the library produced, owned by the handle (one allocation, so the
/// pointer `hearth_bytes_data` returns stays valid until release).
package final class BytesHandle: Handle {
  let base: UnsafeMutablePointer<UInt8>
  let count: Int
  /// Immutable once handed out (a failed one carries its reason from then on).
  override package class var sharedAcrossThreads: Bool { true }
  init(_ contents: some Collection<UInt8> = [UInt8]()) {
    count = contents.count
    base = .allocate(capacity: max(1, count))
    _ = UnsafeMutableBufferPointer(start: base, count: count).initialize(fromContentsOf: contents)
  }
  deinit { base.deallocate() }
}

extension Handle {
  /// The opaque pointer C holds: one retain, released by `hearth_release`.
  package var retainedPointer: OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

  /// The handle behind `pointer` if it is a `T` (nil for NULL or another kind).
  package static func from<T: Handle>(_ pointer: OpaquePointer?, as _: T.Type = T.self) -> T? {
    guard let pointer else { return nil }
    return Unmanaged<Handle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue() as? T
  }

  /// Stores `self` in `*out` (when out is not NULL) and returns `status`:
  /// how every create function hands back a handle, failed or not.
  package func handOut(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ status: Int32) -> Int32 {
    guard let out else { return HEARTH_ERROR_ARGUMENT }
    out.pointee = retainedPointer
    return status
  }
}

/// Hands a new handle to `*out`: `make` either returns it ready (OK) or a
/// failed handle already carrying its message and status; an argument it
/// refuses (``ArgumentError``) becomes a failed handle with
/// HEARTH_ERROR_ARGUMENT and the reason.
package func create(
  _ out: UnsafeMutablePointer<OpaquePointer?>?, _ make: () throws(ArgumentError) -> (Handle, Int32)
) -> Int32 {
  guard let out else { return HEARTH_ERROR_ARGUMENT }
  let (handle, status): (Handle, Int32)
  do throws(ArgumentError) {
    (handle, status) = try make()
  } catch {
    (handle, status) = FailedHandle.with(HEARTH_ERROR_ARGUMENT, error.reason)
  }
  out.pointee = handle.retainedPointer
  return status
}

/// A handle that failed to create: it answers only `hearth_last_error` and
/// `hearth_release`; every other call on it is `HEARTH_ERROR_STATE`.
package final class FailedHandle: Handle {
  package static func with(_ status: Int32, _ text: String) -> (Handle, Int32) {
    let handle = FailedHandle()
    return (handle, handle.fail(status, text))
  }
}

/// The bytes in a new bytes handle, stored in `*out`.
package func handOutBytes(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ bytes: some Collection<UInt8>)
  -> Int32
{
  BytesHandle(bytes).handOut(out, HEARTH_OK)
}

/// A failed bytes handle carrying `text`, stored in `*out`.
package func handOutFailure(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ status: Int32, _ text: String)
  -> Int32
{
  let handle = BytesHandle()
  return handle.handOut(out, handle.fail(status, text))
}

/// The status a call on a handle that failed to create, or on NULL, or on
/// a handle of another kind, returns. A handle of another kind is
/// HEARTH_ERROR_ARGUMENT, with the message on it only when its kind is
/// used from one thread at a time: on a kind other threads may be reading
/// (``Handle/sharedAcrossThreads``) the caller's mistake would race with
/// them, so its message is left as it was.
package func wrongHandle(_ pointer: OpaquePointer?) -> Int32 {
  guard let pointer else { return HEARTH_ERROR_ARGUMENT }
  let handle = Unmanaged<Handle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
  if handle is FailedHandle { return HEARTH_ERROR_STATE }
  if type(of: handle).sharedAcrossThreads { return HEARTH_ERROR_ARGUMENT }
  return handle.fail(HEARTH_ERROR_ARGUMENT, "a handle of another kind was passed")
}

/// A handle of another module of the package carrying its own state (a
/// class outside this module cannot subclass ``Handle``): the lab library's
/// sweep plan.
package final class ValueHandle<Value: AnyObject>: Handle {
  package let value: Value
  /// The sweep plan's tasks run from several threads at once.
  override package class var sharedAcrossThreads: Bool { true }
  package init(_ value: Value) { self.value = value }
}

// MARK: Exported

@c public func hearth_abi_version() -> UInt32 { UInt32(HEARTH_ABI_VERSION) }

@c public func hearth_status_name(_ status: Int32) -> UnsafePointer<CChar>? {
  switch status {
  case HEARTH_OK: cText("ok")
  case HEARTH_ERROR_ARGUMENT: cText("argument")
  case HEARTH_ERROR_BAD_INPUT: cText("bad input")
  case HEARTH_ERROR_SCHEMA: cText("schema")
  case HEARTH_ERROR_STATE: cText("state")
  case HEARTH_ERROR_CAPACITY: cText("capacity")
  default: cText("unknown")
  }
}

@c public func hearth_last_error(_ handle: UnsafeRawPointer?) -> UnsafePointer<CChar>? {
  guard let handle else { return cText("") }
  return Unmanaged<Handle>.fromOpaque(handle).takeUnretainedValue().message
}

@c public func hearth_release(_ handle: UnsafeMutableRawPointer?) {
  guard let handle else { return }
  Unmanaged<Handle>.fromOpaque(handle).release()
}

@c public func hearth_bytes_data(_ bytes: OpaquePointer?) -> UnsafePointer<UInt8>? {
  guard let h = Handle.from(bytes, as: BytesHandle.self) else { return nil }
  return UnsafePointer(h.base)
}

@c public func hearth_bytes_size(_ bytes: OpaquePointer?) -> Int64 {
  guard let h = Handle.from(bytes, as: BytesHandle.self) else { return -1 }
  return Int64(h.count)
}
