import CHearth
import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace

/// A recording: read through `TraceImport` (immutable), or built from
/// columns by `hearth_trace_create` and the append functions (ABI 1.1),
/// kept as a `ColumnTrace` and read through the readers' row checks the
/// first time it is used after an append (TraceBuilder.swift).
package final class TraceHandle: Handle {
  /// Built from columns: the append functions add to it. Nil when read from a file.
  private var built: ColumnTrace?
  /// The recording and its report (for a built one: the columns read, up to
  /// the last append).
  private var contents: (trace: Trace, report: ImportReport)?
  /// The accelerometer with gravity added back, computed once, when the
  /// file kept gravity apart (otherwise the stream itself is the detector's).
  private var gravityAdded: VectorStream?

  init(trace: Trace, report: ImportReport) {
    contents = (trace, report)
    built = nil
    gravityAdded =
      trace.accelerometer?.content == .excludesGravity
      ? trace.accelerationIncludingGravity() ?? VectorStream() : nil
  }

  /// An empty recording to append to; its accelerometer includes gravity.
  init(metadata: TraceMetadata) {
    built = ColumnTrace(metadata: metadata)
    contents = nil
    gravityAdded = nil
  }

  var isBuilt: Bool { built != nil }

  /// The recording as the readers' checks leave it.
  package var trace: Trace { settled().trace }
  /// What was read, kept and rejected, per file or appended stream.
  var report: ImportReport { settled().report }

  private func settled() -> (trace: Trace, report: ImportReport) {
    if let contents { return contents }
    let read = built?.read() ?? (Trace(metadata: TraceMetadata(format: "columns")), ImportReport())
    contents = read
    return read
  }

  /// Changes the columns of a built recording (the next use reads them again).
  func appending(_ change: (inout ColumnTrace) throws(ArgumentError) -> Void) throws(ArgumentError) {
    guard var columns = built else { return }
    built = nil
    defer { built = columns }
    contents = nil
    try change(&columns)
  }

  /// The accelerometer as the detector sees it (gravity included).
  var acceleration: VectorStream { gravityAdded ?? trace.accelerometer?.samples ?? VectorStream() }

  /// The samples of a sensor stream as (t, x, y, z) columns; nil for an unknown stream.
  func columns(_ stream: Int32) -> (t: [Double], x: [Double], y: [Double], z: [Double])? {
    switch stream {
    case HEARTH_STREAM_ACCELEROMETER: (acceleration.seconds, acceleration.x, acceleration.y, acceleration.z)
    case HEARTH_STREAM_GYROSCOPE:
      trace.gyroscope.map { ($0.seconds, $0.x, $0.y, $0.z) } ?? ([], [], [], [])
    case HEARTH_STREAM_BAROMETER:
      trace.barometer.map { ($0.seconds, $0.hectopascals, [], []) } ?? ([], [], [], [])
    case HEARTH_STREAM_ACTIVITIES:
      (trace.activities.map(\.seconds), trace.activities.map { Double($0.activity.rawValue) }, [], [])
    default: nil
    }
  }

  func count(_ stream: Int32) -> Int? {
    stream == HEARTH_STREAM_FIXES ? trace.fixes.count : columns(stream)?.t.count
  }
}

@c public func hearth_trace_read(
  _ path: UnsafePointer<CChar>?, _ mapping_path: UnsafePointer<CChar>?,
  _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    guard let path = string(path) else { return FailedHandle.with(HEARTH_ERROR_ARGUMENT, "path is NULL") }
    guard FileManager.default.fileExists(atPath: path) else {
      return FailedHandle.with(HEARTH_ERROR_BAD_INPUT, "\(path): no such file or folder")
    }
    do {
      let (trace, report) = try TraceImport.read(path: path, mappingPath: string(mapping_path))
      return (TraceHandle(trace: trace, report: report), HEARTH_OK)
    } catch {
      let text = "\(error)"
      return FailedHandle.with(HEARTH_ERROR_BAD_INPUT, text.contains(path) ? text : "\(path): \(text)")
    }
  }
}

@c public func hearth_trace_count(
  _ trace: OpaquePointer?, _ stream: Int32, _ count: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  guard let count else { return h.fail(HEARTH_ERROR_ARGUMENT, "count is NULL") }
  guard let n = h.count(stream) else { return h.fail(HEARTH_ERROR_ARGUMENT, "unknown stream \(stream)") }
  count.pointee = Int64(n)
  return h.succeed()
}

@c public func hearth_trace_samples(
  _ trace: OpaquePointer?, _ stream: Int32, _ capacity: Int64, _ t_s: UnsafeMutablePointer<Double>?,
  _ x: UnsafeMutablePointer<Double>?, _ y: UnsafeMutablePointer<Double>?, _ z: UnsafeMutablePointer<Double>?
) -> Int32 {
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  return guarded(h) { () throws(ArgumentError) in
    guard let columns = h.columns(stream) else {
      throw ArgumentError(reason: "unknown sensor stream \(stream) (fixes: hearth_trace_fixes)")
    }
    let n = columns.t.count
    guard try checkedCount(capacity, "capacity") >= n else {
      return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(n) samples")
    }
    func copy(_ column: [Double], _ pointer: UnsafeMutablePointer<Double>?, _ name: String, required: Bool)
      throws(ArgumentError)
    {
      guard n > 0, !column.isEmpty else { return }
      guard let pointer else {
        if required { throw ArgumentError(reason: "\(name) is NULL") }
        return
      }
      column.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: n) }
    }
    try copy(columns.t, t_s, "t_s", required: true)
    try copy(columns.x, x, "x", required: true)
    try copy(columns.y, y, "y", required: false)
    try copy(columns.z, z, "z", required: false)
    return h.succeed()
  }
}

@c public func hearth_trace_fixes(
  _ trace: OpaquePointer?, _ capacity: Int64, _ out: UnsafePointer<hearth_fixes_out>?
) -> Int32 {
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  guard let out else { return h.fail(HEARTH_ERROR_ARGUMENT, "out is NULL") }
  guard capacity >= h.trace.fixes.count else {
    return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(h.trace.fixes.count) fixes")
  }
  h.trace.fixes.write(to: out.pointee)
  return h.succeed()
}

/// What `hearth_trace_info` reports.
struct TraceInfo: Encodable {
  struct File: Encodable {
    var file: String
    var rowsRead: Int
    var rowsKept: Int
    var rowsRejected: Int
    /// Rejected rows by reason (`badTime`, `outOfRange`, `duplicate` …).
    var rejectedByReason: [String: Int]
    /// The first rejections with their row, column and value, as the
    /// command prints them.
    var firstRejections: [String]
  }
  var format: String
  var platform: String
  var device: String?
  var sourceFiles: [String]
  var timeOriginMs: Int64?
  var files: [File]
  /// Streams too slow for the detector (as `impact detect` warns on stderr).
  var rateWarnings: [String]
  /// Streams apart in time and wall clocks that stepped against the
  /// monotonic clock (`ImportReport.timeWarnings`, as `impact detect` warns).
  var timeWarnings: [String]
  /// Hours of accelerometer data, pauses over 1 s left out.
  var hoursWithData: Double?
}

@c public func hearth_trace_info(_ trace: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?)
  -> Int32
{
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  let feed = ImpactFeed(trace: h.trace, gate: .recording)
  let m = h.trace.metadata
  let info = TraceInfo(
    format: m.format, platform: m.platform.rawValue, device: m.device, sourceFiles: m.sourceFiles,
    timeOriginMs: m.timeOriginMilliseconds,
    files: h.report.files.map {
      TraceInfo.File(
        file: $0.file, rowsRead: $0.rowsRead, rowsKept: $0.rowsKept, rowsRejected: $0.rowsRejected,
        rejectedByReason: Dictionary(
          uniqueKeysWithValues: $0.rejectedByReason.map { ($0.key.rawValue, $0.value) }),
        firstRejections: $0.rejections.prefix(5).map { "\($0)" })
    },
    rateWarnings: feed?.rateWarnings ?? [], timeWarnings: h.report.timeWarnings,
    hoursWithData: feed?.hoursWithData())
  do { return handOutBytes(out, try JSONOutput.encode(info)) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}
