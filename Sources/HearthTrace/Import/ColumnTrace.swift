import HearthGeo

/// A recording built from columns held in memory: what a door hands over
/// chunk by chunk (the C ABI's `hearth_trace_create` and
/// `hearth_trace_append`, Python's Arrow tables through them).
///
/// The columns are kept as given and checked when the recording is read
/// (``read(options:)``), by the same row checks a trace folder's `.npy`
/// columns go through (``TraceFolder``): sensor times finite and within
/// ±``ReadingBounds/maximumSensorSeconds``, values within ``ReadingBounds``,
/// an accelerometer's gravity reading 9.81 m/s² (``GravityCheck``),
/// activity codes that are activities, fix times within
/// ``ReadingBounds/fixMilliseconds`` and fix fields within their bounds.
/// A row that fails is rejected with its reason and counted in the
/// stream's report (row numbers count every row appended to that stream,
/// from 1); sensor rows out of time order are put in order (counted) and
/// exact repeats rejected; fixes keep the order given. The result is sorted
/// by time, like every trace a reader makes.
///
/// Stream names in the report: `accelerometer`, `gyroscope`, `barometer`,
/// `activities`, `fixes`.
public struct ColumnTrace: Sendable {
  /// The sensor streams that take samples.
  public enum Stream: String, Sendable, Hashable, CaseIterable {
    /// x, y, z in m/s², gravity included.
    case accelerometer
    /// x, y, z in rad/s.
    case gyroscope
    /// hPa (x only).
    case barometer
    /// The ``Activity`` raw value (x only).
    case activities
  }

  public var metadata: TraceMetadata
  private var seconds: [Stream: [Double]] = [:]
  /// Per stream: x, y, z (the barometer and activities use x only).
  private var values: [Stream: [[Double]]] = [:]
  private var fixes = FixColumns()

  public init(metadata: TraceMetadata) { self.metadata = metadata }

  /// Whether nothing has been appended.
  public var isEmpty: Bool { seconds.values.allSatisfy(\.isEmpty) && fixes.isEmpty }

  /// Appends samples to `stream`, kept as given until ``read(options:)``.
  /// `seconds` are on the trace's clock (from
  /// ``TraceMetadata/timeOriginMilliseconds``); `y` and `z` are used by
  /// the accelerometer and gyroscope only.
  /// - Precondition: every column used is as long as `seconds` (a door
  ///   checks lengths before it calls).
  /// - Complexity: O(n) copies.
  public mutating func append(
    _ stream: Stream, seconds t: some Collection<Double>, x: some Collection<Double>,
    y: (some Collection<Double>)?, z: (some Collection<Double>)?
  ) {
    let vector = stream == .accelerometer || stream == .gyroscope
    precondition(x.count == t.count && (!vector || (y?.count == t.count && z?.count == t.count)))
    seconds[stream, default: []].append(contentsOf: t)
    var columns = values.removeValue(forKey: stream) ?? [[], [], []]
    columns[0].append(contentsOf: x)
    if vector, let y, let z {
      columns[1].append(contentsOf: y)
      columns[2].append(contentsOf: z)
    }
    values[stream] = columns
  }

  /// Appends fixes, kept as given until ``read(options:)``. A negative speed
  /// is "not measured" (iOS writes −1), as the CSV readers take it.
  public mutating func append(fixes more: FixColumns) { fixes.append(contentsOf: more) }

  /// Rows appended to `stream` so far (checked or not).
  public func count(_ stream: Stream) -> Int { seconds[stream]?.count ?? 0 }

  /// The fixes appended so far.
  public var fixCount: Int { fixes.count }

  /// The recording the columns make, every row checked, with its report.
  /// - Complexity: O(n log n) in the rows (the time ordering).
  public func read(options: ReadOptions = ReadOptions()) -> (Trace, ImportReport) {
    let recording = recording(options)
    // Nothing is fatal or strict unless the options say so: a stream that
    // cannot be read is reported as skipped, and the others are kept.
    do { return try recording.readWhole() } catch {
      var report = ImportReport()
      report.files = [
        FileReport(
          skipped: "columns", because: error as? TraceError ?? .io(path: "columns", reason: "\(error)"))
      ]
      return (Trace(metadata: metadata), report)
    }
  }

  /// The same recording in time order, chunk by chunk (``TraceStream``),
  /// through the same row checks: what a consumer that streams (the
  /// detector's feed) reads, whether the recording came from a file or from
  /// columns. Concatenating the chunks gives ``read(options:)``'s trace.
  /// - Complexity: as ``TraceStream/forEachChunk(samples:_:)``, over the
  ///   columns held here.
  public func stream(options: ReadOptions = ReadOptions()) -> TraceStream {
    TraceStream(recording: recording(options))
  }

  /// The columns as a recording of trace-folder files, one per stream.
  private func recording(_ options: ReadOptions) -> Recording {
    var recording = Recording(metadata: metadata, files: [], options: options)
    if !fixes.isEmpty { recording.files.append(fixesFile(options)) }
    for stream in Stream.allCases {
      guard let t = seconds[stream], !t.isEmpty, let v = values[stream] else { continue }
      let name = stream.rawValue
      switch stream {
      case .accelerometer, .gyroscope:
        let interleaved = Self.interleave(v, rows: t.count)
        let arrays = { @Sendable in (NPYArray(t), NPYArray(interleaved, shape: [t.count, 3])) }
        recording.files.append(
          stream == .accelerometer
            ? TraceFolder.vectorFile(
              name, target: .accelerometer(.includesGravity), check: .totalAcceleration, options: options,
              arrays: arrays)
            : TraceFolder.vectorFile(name, target: .gyroscope, check: nil, options: options, arrays: arrays))
      case .barometer:
        // No relative altitude: NaN in the second column.
        let interleaved = Self.interleave([v[0], [Double](repeating: .nan, count: t.count)], rows: t.count)
        recording.files.append(
          TraceFolder.pressureFile(name, options: options) {
            (NPYArray(t), NPYArray(interleaved, shape: [t.count, 2]))
          })
      case .activities:
        recording.files.append(
          TraceFolder.activitiesFile(name, pairs: Array(zip(t, v[0])), options: options))
      }
    }
    return recording
  }

  /// Columns of equal length as one row-major array.
  private static func interleave(_ columns: [[Double]], rows: Int) -> [Double] {
    var out = [Double](repeating: 0, count: rows * columns.count)
    for (j, column) in columns.enumerated() {
      for i in 0..<rows { out[i * columns.count + j] = column[i] }
    }
    return out
  }

  /// The fixes as a trace folder's fix columns.
  private func fixesFile(_ options: ReadOptions) -> RecordingFile {
    let f = fixes
    return TraceFolder.fixesFile("fixes", options: options) {
      let codes = { (raw: [UInt8]) in NPYArray(raw.map(Double.init)) }
      let columns: [NPYArray?] = [
        NPYArray(f.latitudeDegrees), NPYArray(f.longitudeDegrees), NPYArray(f.horizontalAccuracyMeters),
        // A negative finite speed is "not measured" (iOS's -1); -∞ stays, for
        // the folder's row check to refuse as every reader does.
        NPYArray(f.speedMetersPerSecond.map { $0 < 0 && $0.isFinite ? .nan : $0 }),
        NPYArray(f.headingDegrees),
        NPYArray(f.altitudeMeters), codes(f.activity.map(\.rawValue)), codes(f.source.map(\.rawValue)),
        NPYArray(f.batteryLevel), codes(f.charging.map(\.rawValue)),
        NPYArray(f.device.map { Double($0.rawValue) }), NPYArray(f.user.map { Double($0.rawValue) }),
      ]
      return (NPYArray(f.timeMilliseconds), columns)
    }
  }
}
