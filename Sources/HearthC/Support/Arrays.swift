import CHearth

// C arrays as buffers, checked once at the boundary: a negative count, or a
// NULL array with a count above zero, is HEARTH_ERROR_ARGUMENT. Past this
// check the kernels run on the caller's memory without a copy.

/// Why an argument was refused (the status is always HEARTH_ERROR_ARGUMENT).
/// Interpolated, it is its reason.
package struct ArgumentError: Error, CustomStringConvertible {
  package var reason: String
  package init(reason: String) { self.reason = reason }
  package var description: String { reason }
}

/// The status of an error met on the way to a result: HEARTH_ERROR_ARGUMENT
/// for an argument refused (an ``ArgumentError``: text that is not UTF-8, a
/// NULL), `otherwise` for the rest (bad data).
package func status(of error: any Error, otherwise: Int32 = HEARTH_ERROR_BAD_INPUT) -> Int32 {
  error is ArgumentError ? HEARTH_ERROR_ARGUMENT : otherwise
}

/// The count as an `Int`, refusing a negative one.
package func checkedCount(_ count: Int64, _ name: String = "count") throws(ArgumentError) -> Int {
  guard count >= 0 else { throw ArgumentError(reason: "\(name) is negative (\(count))") }
  return Int(count)
}

/// `count` elements at `pointer` (an empty buffer for a count of 0).
package func input<T>(_ pointer: UnsafePointer<T>?, _ count: Int, _ name: String) throws(ArgumentError)
  -> UnsafeBufferPointer<T>
{
  guard count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
  guard let pointer else { throw ArgumentError(reason: "\(name) is NULL with a count of \(count)") }
  return UnsafeBufferPointer(start: pointer, count: count)
}

/// `count` writable elements at `pointer`.
package func output<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int, _ name: String)
  throws(ArgumentError)
  -> UnsafeMutableBufferPointer<T>
{
  guard count > 0 else { return UnsafeMutableBufferPointer(start: nil, count: 0) }
  guard let pointer else { throw ArgumentError(reason: "\(name) is NULL with a count of \(count)") }
  return UnsafeMutableBufferPointer(start: pointer, count: count)
}

/// The bytes of one column a call reads or writes, with its name, for
/// ``apart(_:from:)``.
package struct Column {
  let start: UInt
  let end: UInt
  let name: String

  package init<T>(_ buffer: UnsafeBufferPointer<T>, _ name: String) {
    start = UInt(bitPattern: buffer.baseAddress)
    // Saturating: a count a caller claims (2⁶⁰ elements) must not trap here;
    // such a column reaches the end of the address space, so it overlaps.
    let (bytes, tooMany) = UInt(buffer.count).multipliedReportingOverflow(by: UInt(MemoryLayout<T>.stride))
    let (last, beyond) = start.addingReportingOverflow(bytes)
    end = tooMany || beyond ? .max : last
    self.name = name
  }

  package init<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ name: String) {
    self.init(UnsafeBufferPointer(buffer), name)
  }

  func overlaps(_ other: Column) -> Bool {
    start < end && other.start < other.end && start < other.end && other.start < end
  }
}

/// Refuses a call whose output columns overlap an input or each other
/// (hearth.h: outputs may not overlap inputs, except for the two distance
/// calls, which write through ``writing(_:over:_:)`` instead). The kernels read and write
/// in blocks, so an output laid over an input, even one element on, gives
/// wrong rows, and Swift may assume the two apart. Empty columns overlap
/// nothing. O(outputs × columns).
package func apart(_ outputs: [Column], from inputs: [Column]) throws(ArgumentError) {
  for k in outputs.indices {
    let out = outputs[k]
    for other in inputs where out.overlaps(other) { throw overlap(out, other) }
    for other in outputs[..<k] where out.overlaps(other) { throw overlap(out, other) }
  }
}

/// Runs `body` on the output column `out`: straight on it, or, when it
/// overlaps one of `inputs` (in place, or laid one element on), on the
/// library's own buffer, copied onto `out` once every input was read, so
/// the rows are right however the caller's arrays lie. O(count) more only
/// then.
package func writing(
  _ out: UnsafeMutableBufferPointer<Double>, over inputs: [Column],
  _ body: (UnsafeMutableBufferPointer<Double>) -> Void
) {
  let written = Column(out, "")
  guard inputs.contains(where: written.overlaps) else { return body(out) }
  var scratch = [Double](repeating: 0, count: out.count)
  scratch.withUnsafeMutableBufferPointer { body($0) }
  _ = out.update(fromContentsOf: scratch)
}

private func overlap(_ out: Column, _ other: Column) -> ArgumentError {
  ArgumentError(reason: "\(out.name) overlaps \(other.name): outputs may not overlap inputs or each other")
}

/// An optional input column: nil when NULL.
package func optionalInput<T>(_ pointer: UnsafePointer<T>?, _ count: Int) -> UnsafeBufferPointer<T>? {
  pointer.map { UnsafeBufferPointer(start: $0, count: count) }
}

/// Runs `body`, turning an argument error into HEARTH_ERROR_ARGUMENT (on
/// `handle` when there is one).
package func guarded(_ handle: Handle? = nil, _ body: () throws(ArgumentError) -> Int32) -> Int32 {
  do { return try body() } catch {
    return handle?.fail(HEARTH_ERROR_ARGUMENT, error.reason) ?? HEARTH_ERROR_ARGUMENT
  }
}

/// Copies `items` to the caller's array `out` of `capacity` elements, as
/// every "copies the …" function of the header does: HEARTH_ERROR_CAPACITY
/// (naming how many `what` there are) when it is too small. O(items).
/// The message goes on `handle`; nil (a handle other threads may be
/// reading) gives the status alone.
package func copyOut<T>(
  _ items: [T], capacity: Int64, to out: UnsafeMutablePointer<T>?, on handle: Handle?, _ what: String
) -> Int32 {
  guarded(handle) { () throws(ArgumentError) in
    guard try checkedCount(capacity, "capacity") >= items.count else {
      return handle?.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(items.count) \(what)")
        ?? HEARTH_ERROR_CAPACITY
    }
    let records = try output(out, items.count, "out")
    for (i, item) in items.enumerated() { records[i] = item }
    return handle?.succeed() ?? HEARTH_OK
  }
}
