import Foundation
import HearthGeo

/// What a recording holds, stream by stream, gathered chunk by chunk from a
/// ``TraceStream`` in O(1) memory per stream: what `hearth data inspect` prints.
public struct TraceSummary: Sendable {
  public let metadata: TraceMetadata
  /// Streams in the order they are listed: fixes, provider fixes, then the
  /// sensor streams and scalars, each once it has been seen.
  public private(set) var streams: [StreamSummary] = []
  /// Activity changes seen.
  public private(set) var activityCount = 0

  public init(metadata: TraceMetadata) { self.metadata = metadata }

  /// Adds one chunk (chunks in order). O(samples in the chunk).
  public mutating func add(_ chunk: TraceChunk) {
    let t = chunk.trace
    let origin = metadata.timeOriginMilliseconds ?? 0
    func seconds(_ fixes: FixColumns) -> [Double] {
      fixes.timeMilliseconds.map { Double($0.subtractingReportingOverflow(origin).partialValue) / 1000 }
    }
    add("fixes", "degrees, m, m/s", seconds(t.fixes))
    for (provider, fixes) in t.providerFixes.sorted(by: { $0.key < $1.key }) {
      add("fixes (\(provider))", "degrees, m, m/s", seconds(fixes))
    }
    if let a = t.accelerometer { add("accelerometer (\(a.content.rawValue))", "m/s²", a.samples.seconds) }
    if let g = t.gravity { add("gravity", "m/s²", g.seconds) }
    if let g = t.gyroscope { add("gyroscope", "rad/s", g.seconds) }
    if let b = t.barometer { add("barometer", "hPa", b.seconds) }
    for (name, stream) in t.scalars.sorted(by: { $0.key < $1.key }) { add(name, stream.unit, stream.seconds) }
    activityCount += t.activities.count
  }

  private mutating func add(_ name: String, _ unit: String, _ times: [Double]) {
    guard !times.isEmpty else { return }
    if let k = streams.firstIndex(where: { $0.name == name }) {
      streams[k].add(times)
    } else {
      var stream = StreamSummary(name: name, unit: unit)
      stream.add(times)
      streams.append(stream)
    }
  }
}

/// A count of intervals (seconds) in O(distinct values) memory: exact while
/// there are at most ``exactLimit`` distinct values, then in bins 0.01 %
/// wide (a median or a threshold read from them is good to 0.01 %). The same
/// answers however the intervals arrive in chunks.
public struct IntervalCounter: Sendable, Hashable {
  /// Distinct intervals counted exactly before binning.
  public static let exactLimit = 4096
  private static let binRatio = 1.0001
  private var exact: [Double: Int]? = [:]
  private var bins: [Int: Int] = [:]
  /// Intervals counted.
  public private(set) var count = 0

  public init() {}

  /// Counts one interval. O(1) expected.
  public mutating func add(_ interval: Double) {
    count += 1
    if var table = exact {
      exact = nil  // keep the dictionary uniquely referenced while it changes
      table[interval, default: 0] += 1
      if table.count <= Self.exactLimit {
        exact = table
        return
      }
      for (value, n) in table { bins[Self.bin(value), default: 0] += n }
      return
    }
    bins[Self.bin(interval), default: 0] += 1
  }

  /// Bin 0 holds intervals of 1 ns or less; bin k > 0 those from 1 ns × r^(k−1).
  private static func bin(_ step: Double) -> Int {
    guard step > 1e-9 else { return 0 }
    let raw = (log(step / 1e-9) / log(binRatio)).rounded(.down)
    return raw >= Double(Int32.max) ? Int(Int32.max) : 1 + Int(raw)
  }

  private static func lowerEdge(_ bin: Int) -> Double { bin == 0 ? 0 : 1e-9 * pow(binRatio, Double(bin - 1)) }

  /// The interval at 0-based rank `index` in ascending order (a bin's lower
  /// edge once binned), nil when `index` is outside `0..<count`.
  public func value(atRank index: Int) -> Double? {
    guard index >= 0 && index < count else { return nil }
    var seen = 0
    if let exact {
      for value in exact.keys.sorted() {
        seen += exact[value] ?? 0
        if seen > index { return value }
      }
      return nil
    }
    for bin in bins.keys.sorted() {
      seen += bins[bin] ?? 0
      if seen > index { return Self.lowerEdge(bin) }
    }
    return nil
  }

  /// How many intervals are longer than `threshold` (by bin once binned).
  public func count(longerThan threshold: Double) -> Int {
    if let exact { return exact.filter { $0.key > threshold }.reduce(0) { $0 + $1.value } }
    return bins.filter { Self.lowerEdge($0.key) > threshold }.reduce(0) { $0 + $1.value }
  }
}

/// One stream's samples, span, rate and silences. The median interval is
/// the lower median, exact or to 0.01 % (``IntervalCounter``); a silence is
/// an interval longer than five median intervals.
public struct StreamSummary: Sendable, Hashable {
  public let name: String
  /// The unit of the stream's values, for the printed line.
  public let unit: String
  public private(set) var count = 0
  /// First and last sample times, seconds on the trace's clock.
  public private(set) var first = Double.nan
  public private(set) var last = Double.nan
  /// The longest interval between consecutive samples, s.
  public private(set) var longestInterval = 0.0
  private var intervals = IntervalCounter()

  public init(name: String, unit: String) {
    self.name = name
    self.unit = unit
  }

  /// Adds samples in time order (sorted here within the call: a chunk's
  /// part of a stream kept in file order). O(n log n) for n times.
  public mutating func add(_ times: [Double]) {
    for t in times.sorted() where t.isFinite {
      if count > 0 {
        let step = t - last
        longestInterval = max(longestInterval, step)
        intervals.add(step)
      } else {
        first = t
      }
      last = t
      count += 1
    }
  }

  /// The lower median interval, s (nil with fewer than two samples).
  public var medianInterval: Double? { intervals.value(atRank: (intervals.count - 1) / 2) }

  /// Intervals longer than `factor` median intervals.
  public func silences(longerThan factor: Double = 5) -> Int {
    guard let median = medianInterval else { return 0 }
    return intervals.count(longerThan: factor * median)
  }

  /// "name [unit]: n samples over d s (from … to …), r Hz median, k silences
  /// over 5 intervals (longest s)".
  public var description: String {
    var text = "\(name) [\(unit)]: \(count) samples"
    guard let median = medianInterval else { return text + " at \(Self.format(first)) s" }
    text += " over \(Self.format(last - first)) s (\(Self.format(first)) to \(Self.format(last)))"
    if median > 0 { text += ", \(Self.format(1 / median)) Hz median" }
    let silent = silences()
    text +=
      silent == 0
      ? ", no silence over 5 intervals"
      : ", \(silent) silences over 5 intervals (longest \(Self.format(longestInterval)) s)"
    return text
  }

  static func format(_ x: Double) -> String { String(format: abs(x) >= 100 ? "%.0f" : "%.3g", x) }
}
