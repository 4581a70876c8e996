import HearthGeo

/// A part of a recording in time order: every stream's samples of one
/// stretch of time.
public struct TraceChunk: Sendable {
  /// This chunk's samples, stream by stream (each holding only its part of
  /// the stream), with the recording's metadata.
  public var trace: Trace
  /// Every sample earlier than this (seconds on the trace's clock) has now
  /// been delivered, in this chunk or an earlier one; samples at this time
  /// or later may still come. `+∞` on the last chunk.
  public var completeBeforeSeconds: Double
  /// Every gravity sample of the recording has been delivered (in this
  /// chunk or an earlier one), or it has none: a consumer waiting for
  /// gravity to bracket its samples can stop waiting.
  public var gravityComplete = false
  /// The recording has an activity stream (some sample of it is in this
  /// chunk or another), known from the first chunk on.
  public var hasActivityStream = false
}

/// A recording read in time order, chunk by chunk, in bounded memory: what
/// commands use for recordings of any size (`hearth data inspect`, `hearth
/// impact detect`).
///
/// Concatenating every chunk's streams gives exactly the trace
/// ``TraceImport/read(path:mappingPath:options:)`` returns, and the report
/// is the same, for any chunk size.
///
/// How: each file is read twice. The first pass checks every row, notes
/// how far out of time order rows come (the reorder horizon) and runs the
/// gravity check; the second puts each file's rows in order with a buffer
/// no deeper than that horizon (``RowOrderer``) and merges the files by
/// time. Memory: one batch per file, the rows inside each file's horizon,
/// and one chunk — a few MB for a file in time order, whatever its size.
/// Sensor Logger, phyphox and column-mapped CSV files stream, and so do
/// trace folders and comma2k19 segments (their `.npy` columns are memory-
/// mapped); GPX and `.traj` hold fixes only and are read whole (as one
/// chunk), and a trace folder's fixes, kept in the order written (they may
/// be a history of uploads), come whole in the first chunk.
public struct TraceStream: Sendable {
  /// The recording's metadata: format, platform, device, files, time origin.
  public let metadata: TraceMetadata
  let recording: Recording?
  let whole: (trace: Trace, report: ImportReport)?

  init(recording: Recording) {
    metadata = recording.metadata
    self.recording = recording
    whole = nil
  }

  init(whole trace: Trace, report: ImportReport) {
    metadata = trace.metadata
    recording = nil
    self.whole = (trace, report)
  }

  /// Reads the recording, handing `body` its chunks in time order, each of
  /// about `samples` samples (more when samples share a time).
  /// - Returns: the import's report, as ``TraceImport/read(path:mappingPath:options:)`` gives it.
  /// - Throws: the readers' errors (a file that cannot be read is skipped
  ///   and reported unless the format names its files exactly or `strict`);
  ///   whatever `body` throws.
  /// - Complexity: two passes over every file; O(n log w) for n rows with
  ///   w waiting in a file's reorder horizon (O(n) for files in order).
  public func forEachChunk(samples: Int = 65_536, _ body: (TraceChunk) throws -> Void) throws -> ImportReport
  {
    if let whole {
      try body(
        TraceChunk(
          trace: whole.trace, completeBeforeSeconds: .infinity, gravityComplete: true,
          hasActivityStream: !whole.trace.activities.isEmpty))
      return whole.report
    }
    guard let recording else { return ImportReport() }
    var merge = try TraceMerge(recording)
    var spans = StreamSpans()
    while let chunk = try merge.next(samples: max(1, samples)) {
      spans.add(chunk.trace)
      try body(chunk)
    }
    var report = merge.report()
    report.streamSpans = spans.spans
    return report
  }

  /// Every chunk gathered into one trace (for tests and small recordings:
  /// the memory of a whole read).
  public func readAll() throws -> (Trace, ImportReport) {
    var trace = Trace(metadata: metadata)
    let report = try forEachChunk { trace.append($0.trace) }
    return (trace, report)
  }
}

extension Trace {
  /// Appends another part of the same recording (later in time) stream by stream.
  public mutating func append(_ part: Trace) {
    fixes.append(contentsOf: part.fixes)
    for (name, more) in part.providerFixes {
      var columns = providerFixes[name] ?? FixColumns()
      columns.append(contentsOf: more)
      providerFixes[name] = columns
    }
    if let more = part.accelerometer {
      var samples = accelerometer?.samples ?? VectorStream()
      samples.append(seconds: more.samples.seconds, x: more.samples.x, y: more.samples.y, z: more.samples.z)
      accelerometer = AccelerationStream(samples: samples, content: more.content)
    }
    func join(_ a: VectorStream?, _ b: VectorStream?) -> VectorStream? {
      guard let b else { return a }
      var joined = a ?? VectorStream()
      joined.append(seconds: b.seconds, x: b.x, y: b.y, z: b.z)
      return joined
    }
    gravity = join(gravity, part.gravity)
    gyroscope = join(gyroscope, part.gyroscope)
    if let more = part.barometer {
      var samples = barometer ?? PressureStream()
      samples.append(
        seconds: more.seconds, hectopascals: more.hectopascals,
        relativeAltitudeMeters: more.relativeAltitudeMeters)
      barometer = samples
    }
    for (name, more) in part.scalars {
      var samples = scalars[name] ?? ScalarStream(unit: more.unit)
      samples.append(seconds: more.seconds, values: more.values)
      scalars[name] = samples
    }
    activities += part.activities
  }
}

/// The second pass of a stream: every file's rows in order, merged by time.
struct TraceMerge {
  private struct File {
    var plan: RecordingFile
    var source: any RowSource
    var orderer: RowOrderer
    var ready: RowBlock
    var exhausted = false
    /// Duplicates and reordering found by the orderer.
    var ordering: FileReport
    /// The units and checks stated by the first pass.
    var units: String?
    var reportIndex: Int
  }

  private let metadata: TraceMetadata
  private var files: [File] = []
  /// Reports in the order of the whole read; streamed files' are filled at the end.
  private var reports: [FileReport] = []
  private let origin: Int64
  private var first = true
  /// A chunk with `completeBeforeSeconds` = +∞ has been handed out.
  private var finished = false
  /// Files whose rows stay in file order, delivered whole in the first chunk.
  private var unordered: [(RecordingFile, RowBlock)] = []
  /// Some file of activities kept a row in its first pass (a streamed file
  /// then delivers at least that row) or holds one (a file kept in order).
  private var hasActivityStream = false

  /// Runs the first pass over every file and opens the second.
  init(_ recording: Recording) throws {
    metadata = recording.metadata
    origin = recording.metadata.timeOriginMilliseconds ?? 0
    reports = recording.plannedReports
    for plan in recording.files {
      do {
        if plan.rule == .keepFileOrder {
          // Not in time order: the whole file goes in the first chunk.
          var (block, report) = try Recording.readWhole(plan, options: recording.options)
          if try recording.timesFailed(&report) { block = nil }
          unordered.append((plan, block ?? RowBlock(columnCount: plan.columnCount)))
          reports.append(report)
          if plan.targets.contains(.activities), let block, !block.isEmpty { hasActivityStream = true }
          continue
        }
        var (survey, firstPass, keep) = try Self.survey(plan, options: recording.options)
        if try recording.timesFailed(&firstPass) {
          firstPass.settle()
          keep = false
        }
        guard keep else {
          reports.append(firstPass)  // rejected whole: the first pass said everything
          continue
        }
        if plan.targets.contains(.activities) && survey.rows > 0 { hasActivityStream = true }
        files.append(
          File(
            plan: plan, source: try plan.open(),
            orderer: RowOrderer(
              columnCount: plan.columnCount, horizon: survey.horizon, rule: plan.rule,
              keysPerSecond: plan.keysPerSecond),
            ready: RowBlock(columnCount: plan.columnCount), ordering: FileReport(file: plan.name),
            units: firstPass.units, reportIndex: reports.count))
        reports.append(FileReport(file: plan.name))
      } catch let error as TraceError {
        if recording.failuresAreFatal || recording.options.strict { throw error }
        reports.append(FileReport(skipped: plan.name, because: error))
      }
    }
  }

  /// The first pass over a file: its survey, its report with the units and
  /// the gravity check stated, and whether to stream it (not when the check
  /// failed: then every row is a `unitProblem` in the report).
  static func survey(_ plan: RecordingFile, options: ReadOptions) throws -> (FileSurvey, FileReport, Bool) {
    let source = try plan.open()
    var survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds * plan.keysPerSecond)
    var checks = plan.newGravityChecks()
    while let block = try source.next() {
      survey.add(block.keys)
      for k in checks.indices { checks[k].check.add(block, offset: checks[k].offset) }
    }
    var report = source.report
    report.units = plan.units
    for (check, _) in checks {
      guard
        try Recording.passes(check, kind: check.kind, rows: survey.rows, report: &report, options: options)
      else {
        report.settle()
        return (survey, report, false)
      }
    }
    return (survey, report, true)
  }

  private func seconds(_ file: File, _ key: Double) -> Double {
    file.plan.seconds(ofKey: key, originMilliseconds: origin)
  }

  private static func refill(_ file: inout File) throws {
    while file.ready.isEmpty && !file.exhausted {
      if let block = try file.source.next() {
        file.ready = file.orderer.push(block, report: &file.ordering)
      } else {
        file.ready = file.orderer.finish(report: &file.ordering)
        file.exhausted = true
      }
    }
  }

  /// The next chunk, nil after the last.
  mutating func next(samples: Int) throws -> TraceChunk? {
    for k in files.indices { try Self.refill(&files[k]) }
    if !first && files.allSatisfy({ $0.exhausted && $0.ready.isEmpty }) {
      // Nothing left: one last empty chunk says so, unless the last one did.
      if finished { return nil }
      finished = true
      return TraceChunk(
        trace: Trace(metadata: metadata), completeBeforeSeconds: .infinity, gravityComplete: true,
        hasActivityStream: hasActivityStream)
    }
    // Files still being read bound the chunk: their next rows come no
    // earlier than their last ready one.
    var bound = Double.infinity
    for file in files where !file.exhausted {
      if let last = file.ready.keys.last { bound = min(bound, seconds(file, last)) }
    }
    bound = min(bound, cutoff(samples))
    var chunk = Trace(metadata: metadata)
    for k in files.indices {
      var n = 0
      let ready = files[k].ready
      while n < ready.count && seconds(files[k], ready.keys[n]) <= bound { n += 1 }
      if n > 0 || first { chunk.take(files[k].ready.removeFirst(n), from: files[k].plan) }
    }
    if first {
      for (plan, block) in unordered { chunk.take(block, from: plan) }
      unordered = []
    }
    first = false
    finished = files.allSatisfy { $0.exhausted && $0.ready.isEmpty }
    let gravityComplete = files.allSatisfy {
      !$0.plan.targets.contains(.gravity) || ($0.exhausted && $0.ready.isEmpty)
    }
    return TraceChunk(
      trace: chunk, completeBeforeSeconds: finished ? .infinity : bound,
      gravityComplete: finished || gravityComplete, hasActivityStream: hasActivityStream)
  }

  /// The time of the `samples`-th earliest ready row over every file (+∞
  /// when fewer are ready): a k-way walk of the sorted ready blocks.
  private func cutoff(_ samples: Int) -> Double {
    var positions = Array(repeating: 0, count: files.count)
    var taken = 0
    var time = -Double.infinity
    while taken < samples {
      var best = -1
      var bestTime = Double.infinity
      for k in files.indices where positions[k] < files[k].ready.count {
        let t = seconds(files[k], files[k].ready.keys[positions[k]])
        if t < bestTime {
          bestTime = t
          best = k
        }
      }
      guard best >= 0 else { return .infinity }
      positions[best] += 1
      taken += 1
      time = bestTime
    }
    return time
  }

  /// The import's report once every chunk has been read.
  func report() -> ImportReport {
    var all = reports
    for file in files {
      var report = file.source.report
      report.units = file.units
      report.rowsKept += file.ordering.rowsKept
      report.reorderedRows += file.ordering.reorderedRows
      for (reason, n) in file.ordering.rejectedByReason { report.rejectedByReason[reason, default: 0] += n }
      report.rejections += file.ordering.rejections
      all[file.reportIndex] = report
    }
    var result = ImportReport()
    result.files = all
    result.settle()
    return result
  }
}
