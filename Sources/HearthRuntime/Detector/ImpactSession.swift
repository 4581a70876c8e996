import HearthImpact
import HearthTrace

/// The detector as every door runs it: the one path from batches or a
/// recording to verdicts and to what the outputs say beside them.
///
/// `impact detect` (through ``ImpactReplay``), libhearth's detector handle
/// (`hearth_detector_feed`, `hearth_detector_feed_trace`,
/// `hearth_detector_report`) and therefore Python, Node and the JVM hold one
/// of these. A recording is streamed through ``ImpactStream``'s 250 ms
/// windows in memory that does not grow with it, whether it was read from
/// a path (``TraceImport/stream(path:mappingPath:options:)``), built from
/// columns (``ColumnTrace/stream(options:)``) or is held whole; batches fed
/// directly go to the same detector. Every batch handed to the detector is
/// counted once, here, by ``RecordingStatistics``.
public struct ImpactSession: Sendable {
  public let configuration: ImpactConfiguration
  public private(set) var detector: ImpactDetector
  /// Every verdict completed so far, in order.
  public private(set) var verdicts: [ImpactVerdict] = []
  /// Hours with data, peak |a| and rates of every sample handed to the detector.
  public private(set) var statistics = RecordingStatistics()
  /// The vehicle gate of the last recording fed whole (nil while only
  /// batches were fed: their own `vehicleGate` says it).
  public private(set) var gate: VehicleGateTimeline?
  /// The first accelerometer sample's time of the last recording fed
  /// whole, s on its clock (nil while only batches were fed).
  public private(set) var firstSampleSeconds: Double?
  /// ``ImpactStream/gravityWarning`` of the last recording fed.
  public private(set) var gravityWarning: String?
  /// ``finish()`` was called: the detector takes nothing more.
  public private(set) var isFinished = false
  /// When finished, the newest sample time the detector had used, s: a
  /// verdict decided later than this was decided by the end of the data,
  /// before every window it reads was complete (nil before finish, or
  /// when no sample was used).
  public private(set) var dataEndSeconds: Double?

  public init(configuration: ImpactConfiguration = ImpactConfiguration()) {
    self.configuration = configuration
    detector = ImpactDetector(configuration: configuration)
  }

  /// Hands `batch` to the detector and counts its samples. O(samples).
  /// - Precondition: not finished (a door refuses feeding after finish).
  public mutating func feed(_ batch: ImpactBatch) {
    precondition(!isFinished, "ImpactSession: fed after finish")
    statistics.add(batch)
    verdicts += detector.process(batch)
  }

  /// Streams a recording through the detector as the phone would deliver
  /// it (``ImpactStream``: 250 ms windows, gravity added back by time, the
  /// vehicle gate by `policy`), counting every batch.
  /// - Parameter name: the recording's name in errors (its path).
  /// - Returns: the import's report (rows kept and rejected per file).
  /// - Throws: the readers' errors; `TraceError.malformed` naming `name`
  ///   when no accelerometer sample with gravity reached the detector (none
  ///   in the recording, every row rejected, or gravity-free with no
  ///   gravity stream; nothing was handed to the detector then): bad input,
  ///   never "no jolt".
  /// - Complexity: two passes over the recording (``TraceStream``); memory
  ///   independent of its length.
  @discardableResult
  public mutating func feed(_ stream: TraceStream, name: String, gate policy: VehicleGatePolicy) throws
    -> ImportReport
  {
    // A detector fed before may still read this recording's samples from
    // before its first accelerometer sample (a jolt of the last one waits).
    var windows = ImpactStream(gate: policy, keeping: detector.pendingReadSeconds)
    let report = try stream.forEachChunk { chunk in
      for batch in windows.add(chunk) { feed(batch) }
    }
    for batch in windows.finish() { feed(batch) }
    guard windows.hasAccelerometer else {
      let accelerometer = report.files.filter { $0.file.lowercased().contains("accel") }
      // Each file's whole accounting: rejections by reason and why a file
      // was skipped (a unit problem, a FIFO), not only its counts.
      let why = accelerometer.map(\.summary)
      throw TraceError.malformed(
        SourceLocation(file: name, line: 0),
        reason: "no accelerometer with gravity (nor a gravity stream to add back)"
          + (why.isEmpty ? "" : ": " + why.joined(separator: "; ")))
    }
    gate = windows.gate
    firstSampleSeconds = windows.firstSampleSeconds
    gravityWarning = windows.gravityWarning
    return report
  }

  /// Decides an open incident with the data there are (the end of the
  /// recording); nothing can be fed after.
  public mutating func finish() {
    guard !isFinished else { return }
    let end = detector.lastDataSeconds
    dataEndSeconds = end.isFinite ? end : nil
    verdicts += detector.finish()
    isFinished = true
  }

  /// What `impact detect` prints for the verdicts so far, the recording
  /// named `file`.
  public func records(file: String) -> VerdictRecords {
    VerdictRecords(file: file, session: self)
  }
}
