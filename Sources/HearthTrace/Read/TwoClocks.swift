import Foundation

/// A jump of a recording's wall clock against its monotonic clock, seen
/// between two consecutive rows of one file (in file order): an NTP
/// correction during the recording, a manual or time-zone change of the
/// phone's clock. The rows stay where the monotonic clock puts them
/// (SPEC §9); the step is reported (``ImportReport/clockWarnings``).
public struct ClockStep: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The first row read after the step: file and line.
  public var location: SourceLocation
  /// That row's time on the monotonic clock, seconds on the trace's clock
  /// (from ``TraceMetadata/timeOriginMilliseconds``).
  public var atSeconds: Double
  /// How far the wall clock jumped against the monotonic clock, seconds
  /// (positive: forward), to the microsecond.
  public var stepSeconds: Double

  public init(location: SourceLocation, atSeconds: Double, stepSeconds: Double) {
    self.location = location
    self.atSeconds = atSeconds
    self.stepSeconds = stepSeconds
  }

  /// "+3.000 s at 9.500 s (line 11)".
  var words: String {
    "\(stepSeconds < 0 ? "−" : "+")\(String(format: "%.3f", abs(stepSeconds))) s at \(StreamTimeSpan.format(atSeconds)) s (line \(location.line))"
  }

  public var description: String { "\(location.file): the wall clock stepped \(words)" }
}

/// One rule for every reader whose rows carry two clocks (Sensor Logger's
/// `time` beside `seconds_elapsed`, comma2k19's GNSS UTC beside the boot
/// clock, a column mapping's `clock`): rows are placed by the monotonic
/// clock, and the wall clock is only compared with it, row by row in file
/// order. A step is a change of (wall − monotonic) between consecutive
/// rows of more than ``ReadOptions/clockStepToleranceSeconds``; a slow
/// drift (a clock slewed by NTP) never makes one. The same rows give the
/// same steps whether the file is read whole or streamed.
///
/// The comparison is in whole microseconds, so a step of exactly the
/// tolerance between millisecond stamps is not more than it.
/// - Complexity: O(1) per row; memory: at most ``keptSteps`` steps, and
///   with `medianRows` > 0 that many offsets (8 bytes each).
struct ClockComparison: Sendable {
  /// How many steps a file's report lists in full; the rest are counted.
  static let keptSteps = 100

  let file: String
  private let toleranceMicroseconds: Double
  private let medianRows: Int
  /// wall − monotonic of the previous row, ms.
  private var previous: Double?
  private(set) var steps: [ClockStep] = []
  private(set) var stepCount = 0
  private var offsets: [Double] = []

  /// `medianRows`: how many rows' offsets to keep for ``medianOffsetMilliseconds``.
  init(file: String, toleranceSeconds: Double, medianRows: Int = 0) {
    self.file = file
    toleranceMicroseconds = (toleranceSeconds * 1e6).rounded()
    self.medianRows = medianRows
  }

  /// Compares one row's clocks: its monotonic time (seconds on the trace's
  /// clock) and its wall-clock time (ms since the epoch, fractions kept).
  /// Both must be readings (finite, within ``ReadingBounds``).
  @inline(__always)
  mutating func add(monotonicSeconds: Double, wallMilliseconds: Double, line: Int) {
    let offset = wallMilliseconds - monotonicSeconds * 1000
    if offsets.count < medianRows { offsets.append(offset) }
    defer { previous = offset }
    guard let previous else { return }
    let microseconds = ((offset - previous) * 1000).rounded()
    guard abs(microseconds) > toleranceMicroseconds else { return }
    stepCount += 1
    if steps.count < Self.keptSteps {
      steps.append(
        ClockStep(
          location: SourceLocation(file: file, line: line), atSeconds: monotonicSeconds,
          stepSeconds: microseconds / 1e6))
    }
  }

  /// The epoch ms of the monotonic clock's 0: the median of (wall −
  /// monotonic) over the first `medianRows` rows (the upper median of an
  /// even count), nil without a row or outside 1900–2200. Robust to a few
  /// stray rows; after a step, the side most of those rows were on.
  /// - Complexity: O(r log r) for r kept rows.
  var medianOffsetMilliseconds: Int64? {
    guard !offsets.isEmpty else { return nil }
    let sorted = offsets.sorted()
    return ReadingBounds.fixTime(milliseconds: sorted[sorted.count / 2])
  }

  /// Writes the steps found into `report`.
  func record(into report: inout FileReport) {
    report.clockSteps = steps
    report.clockStepCount = stepCount
  }
}

extension ImportReport {
  /// One line per file whose wall clock stepped against its monotonic
  /// clock (``FileReport/clockSteps``): when (seconds on the trace's clock,
  /// and the line) and by how much, the first three of each file. Part of
  /// ``timeWarnings``.
  public var clockWarnings: [String] {
    files.filter { $0.clockStepCount > 0 }.map { file in
      let listed = file.clockSteps.prefix(3).map(\.words).joined(separator: "; ")
      let more = file.clockStepCount - min(3, file.clockSteps.count)
      return "\(file.file): the wall clock stepped \(listed)"
        + (more > 0 ? "; and \(more) more step\(more == 1 ? "" : "s")" : "")
        + " against the monotonic clock: every stream is placed on the monotonic clock"
    }
  }
}
