import CHearth
import Foundation
import HearthGeo
import HearthRuntime
import HearthTrace

/// A recording: opened from a path through `TraceImport` (immutable), or
/// built from columns by `hearth_trace_create` and the append functions
/// (ABI 1.1), kept as a `ColumnTrace` (TraceBuilder.swift).
///
/// Nothing is held whole until something needs the whole recording (its
/// samples, fixes, info, a trace folder, a sweep): then it is read through
/// the readers' row checks once and kept, until the next append. Feeding a
/// detector never needs it: the recording is streamed (``stream()``), a file
/// read again from its path, in bounded memory.
package final class TraceHandle: Handle {
  /// Several detectors and sweep tasks may read one trace at once.
  override package class var sharedAcrossThreads: Bool { true }
  private enum Source {
    /// Opened from `path` (`hearth_trace_read`): `stream` reads it in time order.
    case file(path: String, stream: TraceStream)
    /// Built from columns: the append functions add to it.
    case columns(ColumnTrace)
  }

  /// The recording read whole: its trace, its report (for a built one: the
  /// columns read, up to the last append), and the accelerometer as the
  /// detector sees it (gravity added back when the file kept it apart).
  package struct Contents: Sendable {
    package var trace: Trace
    package var report: ImportReport
    package var acceleration: VectorStream
  }

  private var source: Source
  /// Read on first use; nil again after an append.
  private var contents: Result<Contents, ReadFailure>?

  /// Why a recording could not be read whole (the message names the file).
  package struct ReadFailure: Error, CustomStringConvertible {
    package var description: String
  }

  /// A recording opened from `path` (read when first used).
  init(path: String, stream: TraceStream) {
    source = .file(path: path, stream: stream)
  }

  /// An empty recording to append to; its accelerometer includes gravity.
  init(metadata: TraceMetadata) {
    source = .columns(ColumnTrace(metadata: metadata))
  }

  var isBuilt: Bool {
    if case .columns = source { return true }
    return false
  }

  /// The recording's name in errors: its path, or the built recording's format.
  package var name: String {
    switch source {
    case .file(let path, _): path
    case .columns(let columns): columns.metadata.format
    }
  }

  /// The recording in time order, chunk by chunk, through the readers'
  /// checks: what the detector is fed (the whole recording is not needed).
  package func stream() -> TraceStream {
    switch source {
    case .file(_, let stream): stream
    case .columns(let columns): columns.stream()
    }
  }

  /// The recording read whole, kept for the next calls, or why it cannot be read.
  func settled() -> Result<Contents, ReadFailure> {
    let result = contents ?? read()
    contents = result
    return result
  }

  /// The recording read whole, kept for the next calls; nil when it cannot
  /// be read, the reason on the handle (HEARTH_ERROR_BAD_INPUT).
  func whole() -> Contents? {
    switch settled() {
    case .success(let c): return c
    case .failure(let failure):
      fail(HEARTH_ERROR_BAD_INPUT, failure.description)
      return nil
    }
  }

  /// The recording read whole without keeping it (what is kept is used):
  /// for callers that run concurrently on one handle and may only read it
  /// (`hearth_sweep_run_trace`).
  package func snapshot() -> Result<Contents, ReadFailure> { contents ?? read() }

  private func read() -> Result<Contents, ReadFailure> {
    let trace: Trace
    let report: ImportReport
    switch source {
    case .file(let path, let stream):
      do { (trace, report) = try stream.readAll() } catch {
        let text = "\(error)"
        return .failure(ReadFailure(description: text.contains(path) ? text : "\(path): \(text)"))
      }
    case .columns(let columns): (trace, report) = columns.read()
    }
    let acceleration =
      trace.accelerometer?.content == .excludesGravity
      ? trace.accelerationIncludingGravity() ?? VectorStream()
      : trace.accelerometer?.samples ?? VectorStream()
    return .success(Contents(trace: trace, report: report, acceleration: acceleration))
  }

  /// Changes the columns of a built recording (the next use reads them again).
  func appending(_ change: (inout ColumnTrace) throws(ArgumentError) -> Void) throws(ArgumentError) {
    guard case .columns(var columns) = source else { return }
    source = .columns(ColumnTrace(metadata: columns.metadata))  // keep `columns` uniquely referenced
    defer { source = .columns(columns) }
    contents = nil
    try change(&columns)
  }
}

extension TraceHandle.Contents {
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
  create(out) { () throws(ArgumentError) in
    guard let path = try string(path, "path") else {
      return FailedHandle.with(HEARTH_ERROR_ARGUMENT, "path is NULL")
    }
    let mapping = try string(mapping_path, "mapping_path")
    guard FileManager.default.fileExists(atPath: path) else {
      return FailedHandle.with(HEARTH_ERROR_BAD_INPUT, "\(path): no such file or folder")
    }
    do {
      // Opened: the format recognised, the files planned; the rows are read
      // (and checked) when the recording is first used.
      let stream = try TraceImport.stream(path: path, mappingPath: mapping)
      return (TraceHandle(path: path, stream: stream), HEARTH_OK)
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
  guard let whole = h.whole() else { return HEARTH_ERROR_BAD_INPUT }
  guard let n = whole.count(stream) else { return h.fail(HEARTH_ERROR_ARGUMENT, "unknown stream \(stream)") }
  count.pointee = Int64(n)
  return h.succeed()
}

@c public func hearth_trace_samples(
  _ trace: OpaquePointer?, _ stream: Int32, _ capacity: Int64, _ t_s: UnsafeMutablePointer<Double>?,
  _ x: UnsafeMutablePointer<Double>?, _ y: UnsafeMutablePointer<Double>?, _ z: UnsafeMutablePointer<Double>?
) -> Int32 {
  guard let h = Handle.from(trace, as: TraceHandle.self) else { return wrongHandle(trace) }
  guard let whole = h.whole() else { return HEARTH_ERROR_BAD_INPUT }
  return guarded(h) { () throws(ArgumentError) in
    guard let columns = whole.columns(stream) else {
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
  guard let fixes = h.whole()?.trace.fixes else { return HEARTH_ERROR_BAD_INPUT }
  guard capacity >= fixes.count else {
    return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(fixes.count) fixes")
  }
  fixes.write(to: out.pointee)
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
  let whole: TraceHandle.Contents
  switch h.settled() {
  case .success(let c): whole = c
  case .failure(let failure): return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, failure.description)
  }
  // The figures the detector's report gives for these samples (RecordingStatistics).
  let statistics = ImpactFeed(trace: whole.trace, gate: .recording)?.statistics
  let m = whole.trace.metadata
  let info = TraceInfo(
    format: m.format, platform: m.platform.rawValue, device: m.device, sourceFiles: m.sourceFiles,
    timeOriginMs: m.timeOriginMilliseconds,
    files: whole.report.files.map {
      TraceInfo.File(
        file: $0.file, rowsRead: $0.rowsRead, rowsKept: $0.rowsKept, rowsRejected: $0.rowsRejected,
        rejectedByReason: Dictionary(
          uniqueKeysWithValues: $0.rejectedByReason.map { ($0.key.rawValue, $0.value) }),
        firstRejections: $0.rejections.prefix(5).map { "\($0)" })
    },
    rateWarnings: statistics?.rateWarnings ?? [], timeWarnings: whole.report.timeWarnings,
    hoursWithData: statistics?.hoursWithData)
  do { return handOutBytes(out, try JSONOutput.encode(info)) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}
