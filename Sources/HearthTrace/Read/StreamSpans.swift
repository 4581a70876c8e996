import Foundation
import HearthGeo

/// When one stream of a recording has samples: its first and last time,
/// seconds on the trace's clock (from ``TraceMetadata/timeOriginMilliseconds``).
public struct StreamTimeSpan: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The stream's name as `hearth data inspect` lists it ("gravity", "fixes (gps)").
  public var stream: String
  public var firstSeconds: Double
  public var lastSeconds: Double

  public init(stream: String, firstSeconds: Double, lastSeconds: Double) {
    self.stream = stream
    self.firstSeconds = firstSeconds
    self.lastSeconds = lastSeconds
  }

  /// Whether the two spans share an instant (ends included).
  public func overlaps(_ other: StreamTimeSpan) -> Bool {
    firstSeconds <= other.lastSeconds && other.firstSeconds <= lastSeconds
  }

  public var description: String {
    "\(stream) \(Self.format(firstSeconds))…\(Self.format(lastSeconds)) s"
  }

  static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}

/// The spans of a recording's streams gathered from its parts in any
/// chunking: a whole read and a streamed one find the same spans.
/// Activities are left out (a change logged once is no span).
struct StreamSpans: Sendable {
  private var found: [StreamTimeSpan] = []

  /// The spans in the order `hearth data inspect` lists streams (fixes,
  /// provider fixes, accelerometer, gravity, gyroscope, barometer, scalars
  /// by name), whatever order the parts brought them in.
  var spans: [StreamTimeSpan] {
    func rank(_ name: String) -> Int {
      if name == "fixes" { return 0 }
      if name.hasPrefix("fixes (") { return 1 }
      if name.hasPrefix("accelerometer (") { return 2 }
      return ["gravity": 3, "gyroscope": 4, "barometer": 5][name] ?? 6
    }
    return found.sorted { (rank($0.stream), $0.stream) < (rank($1.stream), $1.stream) }
  }

  /// Adds one part of the recording. O(samples in fixes; 1 per sensor stream).
  mutating func add(_ trace: Trace) {
    let origin = trace.metadata.timeOriginMilliseconds ?? 0
    func fixes(_ name: String, _ columns: FixColumns) {
      // A trace folder keeps its fixes in the order written: min and max, not ends.
      guard let low = columns.timeMilliseconds.min(), let high = columns.timeMilliseconds.max() else {
        return
      }
      // Fix times lie within 1900–2200 and so does any origin: no overflow.
      add(name, Double(low &- origin) / 1000, Double(high &- origin) / 1000)
    }
    func sorted(_ name: String, _ seconds: [Double]) {
      guard let first = seconds.first, let last = seconds.last else { return }
      add(name, first, last)
    }
    fixes("fixes", trace.fixes)
    for (provider, columns) in trace.providerFixes.sorted(by: { $0.key < $1.key }) {
      fixes("fixes (\(provider))", columns)
    }
    if let a = trace.accelerometer { sorted("accelerometer (\(a.content.rawValue))", a.samples.seconds) }
    if let g = trace.gravity { sorted("gravity", g.seconds) }
    if let g = trace.gyroscope { sorted("gyroscope", g.seconds) }
    if let b = trace.barometer { sorted("barometer", b.seconds) }
    for (name, stream) in trace.scalars.sorted(by: { $0.key < $1.key }) { sorted(name, stream.seconds) }
  }

  private mutating func add(_ name: String, _ first: Double, _ last: Double) {
    if let k = found.firstIndex(where: { $0.stream == name }) {
      found[k].firstSeconds = min(found[k].firstSeconds, first)
      found[k].lastSeconds = max(found[k].lastSeconds, last)
    } else {
      found.append(StreamTimeSpan(stream: name, firstSeconds: first, lastSeconds: last))
    }
  }
}

extension ImportReport {
  /// The streams (two or more in the recording) whose time span overlaps
  /// no other stream's: gravity logged an hour after the accelerometer,
  /// two clocks that were never aligned. Such streams are kept as read and
  /// reported (``timeWarnings``), never silently combined as if they were
  /// one moment.
  public var nonOverlappingStreams: [StreamTimeSpan] {
    guard streamSpans.count >= 2 else { return [] }
    return streamSpans.filter { span in
      !streamSpans.contains { $0.stream != span.stream && span.overlaps($0) }
    }
  }

  /// One line per stream in ``nonOverlappingStreams``, naming the others'
  /// spans, then one per file whose wall clock stepped (``clockWarnings``):
  /// what `hearth data inspect`, `impact detect` and `data convert` warn of.
  public var timeWarnings: [String] {
    nonOverlappingStreams.map { span in
      let others = streamSpans.filter { $0.stream != span.stream }.map(\.description).joined(separator: ", ")
      return "\(span) overlaps no other stream in time (\(others)): check the file's clock, zone and origin"
    } + clockWarnings
  }
}
