import HearthGeo

/// A recording as a list of files to read, with everything decided before a
/// row is read (metadata, the time origin, every file's units and streams):
/// what every reader that can stream builds, and what both
/// ``TraceImport/read(path:mappingPath:options:)`` (the whole trace at once)
/// and ``TraceImport/stream(path:mappingPath:options:)`` (in time order, in
/// bounded memory) read. Both give the same trace and the same report.
struct Recording: Sendable {
  var metadata: TraceMetadata
  var files: [RecordingFile]
  var options: ReadOptions
  /// Reports of files settled while planning (metadata files, files skipped
  /// before reading), in the order they belong in the import report.
  var plannedReports: [FileReport] = []
  /// Whether a file that cannot be read sinks the import (mappings: they
  /// name exactly what they expect) or is skipped and reported (folders).
  var failuresAreFatal = false

  /// Reads every file whole into one trace.
  /// - Throws: a file's error when `failuresAreFatal` or strict.
  func readWhole() throws -> (Trace, ImportReport) {
    var trace = Trace(metadata: metadata)
    var report = ImportReport()
    report.files = plannedReports
    for file in files {
      do {
        var (block, fileReport) = try Self.readWhole(file, options: options)
        if try timesFailed(&fileReport) { block = nil }
        if let block { trace.take(block, from: file) }
        report.files.append(fileReport)
      } catch let error as TraceError {
        if failuresAreFatal || options.strict { throw error }
        report.files.append(FileReport(skipped: file.name, because: error))
      }
    }
    report.settle()
    var spans = StreamSpans()
    spans.add(trace)
    report.streamSpans = spans.spans
    return (trace, report)
  }

  /// The error of a file whose time column does not parse: rows were read
  /// and every one was rejected as `badTime` (the wrong format named, a
  /// column of text where numbers were expected). Nil otherwise.
  ///
  /// Such a file is bad input, never a quiet empty stream: a mapping's
  /// import stops on it; a folder import marks the file skipped with this
  /// reason, its rows still counted.
  static func timeFailure(_ report: FileReport) -> TraceError? {
    guard report.rowsRead > 0, report.rowsKept == 0, report.rejectedByReason[.badTime] == report.rowsRead
    else {
      return nil
    }
    let first = report.rejections.first { $0.reason == .badTime }
    return TraceError.malformed(
      first?.location ?? SourceLocation(file: report.file, line: 0),
      reason: "no row's time could be read: all \(report.rowsRead) rows have a bad time"
        + (first.map { " (first: \($0.detail))" } ?? ""))
  }

  /// Whether `report`'s file failed ``timeFailure(_:)``; then marks it
  /// skipped with the reason (its rows stay counted).
  /// - Throws: the failure when `failuresAreFatal` or strict.
  func timesFailed(_ report: inout FileReport) throws -> Bool {
    guard let failure = Self.timeFailure(report) else { return false }
    if failuresAreFatal || options.strict { throw failure }
    report.skippedBecause = failure.description
    return true
  }

  /// One file read whole: its rows in time order (nil when its stream was
  /// rejected as a unit problem), the report.
  static func readWhole(_ file: RecordingFile, options: ReadOptions) throws -> (RowBlock?, FileReport) {
    let source = try file.open()
    var block = RowBlock(columnCount: file.columnCount)
    var checks = file.newGravityChecks()
    while let next = try source.next() {
      for k in checks.indices { checks[k].check.add(next, offset: checks[k].offset) }
      block.append(contentsOf: next)
    }
    var report = source.report
    report.units = file.units
    for (check, _) in checks {
      guard try Self.passes(check, kind: check.kind, rows: block.count, report: &report, options: options)
      else {
        return (nil, report)
      }
    }
    block.finish(rule: file.rule, keysPerSecond: file.keysPerSecond, report: &report)
    return (block, report)
  }

  /// States the gravity check's verdict in the report; a failing stream's
  /// rows are all rejected as a `unitProblem` and the file marked skipped,
  /// unless `options.acceptImplausibleGravity`. Returns whether to keep them.
  /// - Throws: `rejectedInStrictMode` for a failing stream in strict mode.
  static func passes(
    _ check: GravityCheck, kind: GravityCheck.Kind, rows: Int, report: inout FileReport, options: ReadOptions
  ) throws -> Bool {
    let verdict = check.verdict()
    let words = GravityCheck.describe(verdict, kind: kind)
    report.units = [report.units, words].compactMap { $0 }.joined(separator: "; ")
    guard case .implausible = verdict, !options.acceptImplausibleGravity else { return true }
    let rejection = RowRejection(
      location: SourceLocation(file: report.file, line: 0), reason: .unitProblem,
      detail: "every row: \(words)")
    if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
    report.rowsKept -= rows
    report.reject(rejection, count: rows)
    report.skippedBecause = words + " (ReadOptions.acceptImplausibleGravity keeps it)"
    return false
  }
}

extension RecordingFile {
  /// Fresh checks for the file's gravity-bearing targets, with their columns.
  func newGravityChecks() -> [(check: GravityCheck, offset: Int)] {
    gravityChecks.map { (GravityCheck(kind: $0.kind), offset(of: $0.target)) }
  }
}

extension GravityCheck {
  /// Adds the vector at columns `offset…offset+2` of every row, in order.
  mutating func add(_ block: RowBlock, offset: Int) {
    let (x, y, z) = (block.columns[offset], block.columns[offset + 1], block.columns[offset + 2])
    for i in 0..<block.count { add(seconds: block.keys[i], x: x[i], y: y[i], z: z[i]) }
  }
}

extension FileReport {
  /// The report of a file that could not be read at all.
  init(skipped name: String, because error: TraceError) {
    self.init(file: name)
    skippedBecause = error.description
  }
}

extension Trace {
  /// Adds a file's rows (in time order) to the streams they feed. A stream
  /// still empty takes the columns as they are (no copy).
  mutating func take(_ block: RowBlock, from file: RecordingFile) {
    let origin = metadata.timeOriginMilliseconds ?? 0
    var seconds: [Double] {
      file.keysAreMilliseconds
        ? block.keys.map { file.seconds(ofKey: $0, originMilliseconds: origin) } : block.keys
    }
    for (k, target) in file.targets.enumerated() {
      let o = file.offset(of: k)
      let c = block.columns
      switch target {
      case .accelerometer(let content):
        var samples = accelerometer?.samples ?? VectorStream()
        samples.append(seconds: seconds, x: c[o], y: c[o + 1], z: c[o + 2])
        accelerometer = AccelerationStream(samples: samples, content: content)
      case .gravity:
        var samples = gravity ?? VectorStream()
        samples.append(seconds: seconds, x: c[o], y: c[o + 1], z: c[o + 2])
        gravity = samples
      case .gyroscope:
        var samples = gyroscope ?? VectorStream()
        samples.append(seconds: seconds, x: c[o], y: c[o + 1], z: c[o + 2])
        gyroscope = samples
      case .barometer:
        var samples = barometer ?? PressureStream()
        samples.append(seconds: seconds, hectopascals: c[o], relativeAltitudeMeters: c[o + 1])
        barometer = samples
      case .scalar(let name, let unit):
        var samples = scalars[name] ?? ScalarStream(unit: unit)
        samples.append(seconds: seconds, values: c[o])
        scalars[name] = samples
      case .fixes(let provider):
        var fixes = provider.map { providerFixes[$0] ?? FixColumns() } ?? self.fixes
        fixes.reserveCapacity(fixes.count + block.count)
        for i in 0..<block.count { fixes.append(FixLayout.fix(block, i, at: o)) }
        if let provider { providerFixes[provider] = fixes } else { self.fixes = fixes }
      case .activities:
        let keys = seconds
        activities += (0..<block.count).map {
          ActivitySample(
            seconds: keys[$0], activity: Activity(rawValue: UInt8(exactly: c[o][$0]) ?? 0) ?? .unknown)
        }
      }
    }
  }
}

extension VectorStream {
  /// Appends samples (later in time); an empty stream takes the arrays as
  /// they are, without a copy. O(n).
  /// - Precondition: the four arrays have one length.
  public mutating func append(seconds t: [Double], x a: [Double], y b: [Double], z c: [Double]) {
    if isEmpty {
      self = VectorStream(seconds: t, x: a, y: b, z: c)
      return
    }
    seconds += t
    x += a
    y += b
    z += c
  }
}

extension PressureStream {
  /// Appends samples (later in time), as ``VectorStream/append(seconds:x:y:z:)``.
  public mutating func append(
    seconds t: [Double], hectopascals p: [Double], relativeAltitudeMeters h: [Double]
  ) {
    if isEmpty {
      self = PressureStream(seconds: t, hectopascals: p, relativeAltitudeMeters: h)
      return
    }
    seconds += t
    hectopascals += p
    relativeAltitudeMeters += h
  }
}

extension ScalarStream {
  /// Appends samples (later in time), as ``VectorStream/append(seconds:x:y:z:)``.
  public mutating func append(seconds t: [Double], values v: [Double]) {
    if seconds.isEmpty {
      seconds = t
      values = v
      return
    }
    seconds += t
    values += v
  }
}
