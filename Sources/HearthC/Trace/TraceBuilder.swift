import CHearth
import Foundation
import HearthGeo
import HearthTrace

// Recordings built from columns (ABI 1.1): a caller that holds a recording
// in memory (Arrow column chunks from Parquet, a numpy pipeline) creates an
// empty trace, appends each chunk of each stream as it comes (no
// concatenation on the caller's side; the library copies each chunk once
// into the recording, as a reader fills it from a file), then sweeps it,
// feeds it to a detector or writes it as a trace folder.

/// The metadata `hearth_trace_create` reads: the keys of `hearth_trace_info`
/// that describe where a recording came from (the others are derived and
/// ignored, so an info object can be handed back as it is).
private struct BuiltMetadata: Decodable {
  var format: String?
  var platform: String?
  var device: String?
  var sourceFiles: [String]?
  var timeOriginMs: Int64?

  static let keys: Set<String> = ["format", "platform", "device", "sourceFiles", "timeOriginMs"]
  static let derived: Set<String> = ["files", "rateWarnings", "timeWarnings", "hoursWithData"]

  /// The metadata in `text` ("" or NULL: none).
  /// - Throws: `TraceError.malformed` naming the key and why.
  static func decode(_ text: String) throws -> TraceMetadata {
    func bad(_ reason: String) -> TraceError {
      .malformed(SourceLocation(file: "trace metadata", line: 0), reason: reason)
    }
    let data = Data((text.isEmpty ? "{}" : text).utf8)
    if let problem = JSONKeys.problem(in: Array(data)) { throw bad(problem) }
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
      throw bad("not a JSON object")
    }
    if let unknown = object.keys.sorted().first(where: { !keys.contains($0) && !derived.contains($0) }) {
      throw bad("unknown key '\(unknown.prefix(80))' (known: \(keys.sorted().joined(separator: ", ")))")
    }
    let given: BuiltMetadata
    do { given = try JSONDecoder().decode(BuiltMetadata.self, from: data) } catch {
      throw bad(
        "a key has the wrong type (format, platform, device: strings; sourceFiles: strings; timeOriginMs: whole ms)"
      )
    }
    var metadata = TraceMetadata(format: given.format ?? "columns")
    if let word = given.platform {
      guard let platform = Platform(rawValue: word) else {
        throw bad("'platform' must be ios, android or unknown")
      }
      metadata.platform = platform
    }
    metadata.device = given.device
    metadata.sourceFiles = given.sourceFiles ?? []
    if let origin = given.timeOriginMs {
      // A reader takes an origin only as a fix time (1900–2200): beyond it,
      // fix times cannot be placed on the sensors' clock.
      guard ReadingBounds.fixMilliseconds.contains(origin) else {
        throw bad(
          "'timeOriginMs' \(origin) is outside \(ReadingBounds.fixMilliseconds.lowerBound)..<\(ReadingBounds.fixMilliseconds.upperBound) ms (1900–2200)"
        )
      }
      metadata.timeOriginMilliseconds = origin
    }
    return metadata
  }
}

extension TraceHandle {
  /// Appends `n` samples to a sensor stream (checked when the recording is
  /// next used, as a reader checks a file's rows: ColumnTrace).
  func append(
    _ stream: Int32, _ t: UnsafeBufferPointer<Double>, _ x: UnsafeBufferPointer<Double>,
    _ y: UnsafeBufferPointer<Double>?, _ z: UnsafeBufferPointer<Double>?
  ) throws(ArgumentError) {
    let target: ColumnTrace.Stream
    switch stream {
    case HEARTH_STREAM_ACCELEROMETER: target = .accelerometer
    case HEARTH_STREAM_GYROSCOPE: target = .gyroscope
    case HEARTH_STREAM_BAROMETER: target = .barometer
    case HEARTH_STREAM_ACTIVITIES: target = .activities
    default:
      throw ArgumentError(reason: "unknown sensor stream \(stream) (fixes: hearth_trace_append_fixes)")
    }
    if target == .accelerometer || target == .gyroscope, y == nil || z == nil {
      throw ArgumentError(reason: "the \(target.rawValue) needs x, y and z (y or z is NULL)")
    }
    try appending { columns throws(ArgumentError) in columns.append(target, seconds: t, x: x, y: y, z: z) }
  }

  func append(fixes: FixColumns) throws(ArgumentError) {
    try appending { columns throws(ArgumentError) in columns.append(fixes: fixes) }
  }
}

/// The trace behind `pointer` when it can be appended to, or the status why not.
private func appendable(_ pointer: OpaquePointer?) -> (TraceHandle?, Int32) {
  guard let h = Handle.from(pointer, as: TraceHandle.self) else { return (nil, wrongHandle(pointer)) }
  guard h.isBuilt else {
    return (
      nil,
      h.fail(
        HEARTH_ERROR_STATE,
        "a recording read from a file is not appended to (hearth_trace_create makes one that is)")
    )
  }
  return (h, HEARTH_OK)
}

@c public func hearth_trace_create(
  _ metadata_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    do {
      let text = try string(metadata_json, "metadata_json") ?? ""
      return (TraceHandle(metadata: try BuiltMetadata.decode(text)), HEARTH_OK)
    } catch {
      return FailedHandle.with(status(of: error), "\(error)")
    }
  }
}

@c public func hearth_trace_append(
  _ trace: OpaquePointer?, _ stream: Int32, _ count: Int64, _ t_s: UnsafePointer<Double>?,
  _ x: UnsafePointer<Double>?,
  _ y: UnsafePointer<Double>?, _ z: UnsafePointer<Double>?
) -> Int32 {
  let (handle, status) = appendable(trace)
  guard let h = handle else { return status }
  return guarded(h) { () throws(ArgumentError) in
    let n = try checkedCount(count)
    // y and z are optional (the barometer and activities have x only); with
    // no samples every column may be NULL.
    let none = UnsafeBufferPointer<Double>(start: nil, count: 0)
    try h.append(
      stream, try input(t_s, n, "t_s"), try input(x, n, "x"), n == 0 ? none : optionalInput(y, n),
      n == 0 ? none : optionalInput(z, n))
    return h.succeed()
  }
}

@c public func hearth_trace_append_fixes(_ trace: OpaquePointer?, _ fixes: UnsafePointer<hearth_fixes>?)
  -> Int32
{
  let (handle, status) = appendable(trace)
  guard let h = handle else { return status }
  return guarded(h) { () throws(ArgumentError) in
    guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
    try h.append(fixes: try FixColumns(fixes.pointee))
    return h.succeed()
  }
}

@c public func hearth_trace_write(_ trace: OpaquePointer?, _ folder: UnsafePointer<CChar>?) -> Int32 {
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  let path: String
  do throws(ArgumentError) { path = try requiredString(folder, "folder") } catch {
    return h.fail(HEARTH_ERROR_ARGUMENT, error.reason)
  }
  guard let whole = h.whole() else { return HEARTH_ERROR_BAD_INPUT }
  do {
    try TraceFolder.write(whole.trace, to: path)
    return h.succeed()
  } catch {
    return h.fail(HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}
