import HearthGeo
import HearthImpact
import HearthTrace

// The one bridge from recordings to `ImpactDetector` (generated drives reach
// it through HearthLab's `SensorBatch.impactBatch`, over the same fix
// conversion). Sensor times stay in seconds on the trace's clock; fix times
// are converted from epoch milliseconds with the trace's origin.

/// How a replayed recording sets the detector's vehicle gate (SPEC §9: the
/// detector runs only while the OS classifier says "in a vehicle").
public enum VehicleGatePolicy: String, Sendable, Hashable, Codable, CaseIterable {
  /// Always on, whatever the recording says.
  case on
  /// Always off (the detector then reports nothing).
  case off
  /// Follow the recording's own activity stream; on when it has none.
  case recording
}

/// The vehicle gate over a recording's time: on or off from each switch on.
///
/// Under ``VehicleGatePolicy/recording`` it follows the phone's activity
/// verdicts (SPEC §9): an `automotive` reading opens it; a definite other
/// reading (`still`, `walking`, `running`, `cycling`) closes it; `unknown`
/// leaves it as it is. Before the first `automotive` reading it is off: the
/// classifier has not said "in a vehicle". A recording with no activity
/// stream at all keeps it on (nothing to follow; a missed crash is the
/// worst error) and ``source`` says so.
///
/// The trade, chosen by the SPEC: a crash in the first seconds of a
/// recording whose classifier has not spoken yet (or has said only
/// `unknown`), or while a lagging classifier still says `still` after a
/// stop, goes unjudged; in exchange a fairground ride, a dropped phone or a
/// walk whose classifier never said "vehicle" cannot report. `--vehicle-gate
/// on` (``VehicleGatePolicy/on``) judges every jolt.
public struct VehicleGateTimeline: Sendable, Hashable {
  public struct Switch: Sendable, Hashable {
    /// From this time on, seconds on the trace's clock.
    public var seconds: Double
    public var isOn: Bool
  }

  /// The gate before the first switch.
  public var initiallyOn: Bool
  /// Changes of the gate, ascending in time.
  public var switches: [Switch]
  /// Which rule set the gate, in words, for the output ("on: the recording
  /// has no activity stream", "recording: 3 switches from its activity stream").
  public var source: String

  /// The gate under `policy` for a recording whose classifier said `activities`.
  /// - Complexity: O(n) in the activity samples (sorted by time).
  public init(policy: VehicleGatePolicy, activities: [ActivitySample]) {
    self.init(policy: policy, hasActivityStream: !activities.isEmpty)
    if policy == .recording {
      for sample in activities { follow(sample) }
      describe(activities: activities.count)
    }
  }

  /// The gate under `policy` before any activity sample is known, for a
  /// recording that has (or has not) an activity stream: what a streamed
  /// feed starts from.
  init(policy: VehicleGatePolicy, hasActivityStream: Bool) {
    switch policy {
    case .on: self.init(initiallyOn: true, switches: [], source: "on (forced)")
    case .off: self.init(initiallyOn: false, switches: [], source: "off (forced)")
    case .recording: self.init(initiallyOn: !hasActivityStream, switches: [], source: "")
    }
  }

  /// Adds the switch `sample` makes, if any (activities in time order): the
  /// rule above, one sample at a time.
  mutating func follow(_ sample: ActivitySample) {
    guard sample.seconds.isFinite else { return }
    let next: Bool
    switch sample.activity {
    case .automotive: next = true
    case .still, .walking, .running, .cycling: next = false
    case .unknown: return
    }
    if next != (switches.last?.isOn ?? initiallyOn) {
      switches.append(Switch(seconds: sample.seconds, isOn: next))
    }
  }

  /// Sets ``source`` for a recording whose activity stream had `activities` samples.
  mutating func describe(activities: Int) {
    source =
      activities == 0
      ? "on: the recording has no activity stream"
      : "recording: off until its activity stream says automotive; \(switches.count) switch\(switches.count == 1 ? "" : "es")"
  }

  init(initiallyOn: Bool, switches: [Switch], source: String) {
    self.initiallyOn = initiallyOn
    self.switches = switches
    self.source = source
  }

  /// The gate at `seconds`. O(log s) in the switches.
  public func isOn(at seconds: Double) -> Bool {
    var low = 0
    var high = switches.count
    while low < high {
      let mid = (low + high) / 2
      if switches[mid].seconds <= seconds { low = mid + 1 } else { high = mid }
    }
    return low == 0 ? initiallyOn : switches[low - 1].isOn
  }
}

/// A recording as the phone would have delivered it to the detector:
/// consecutive windows of `batchSeconds` over every stream, a window cut
/// where the vehicle gate switches, each part with the gate at its first
/// sample. Empty windows (pauses in the recording) are
/// skipped, so a week-long file with an hour of data costs an hour of batches.
///
/// The accelerometer is the one that includes gravity: the stream itself,
/// or gravity-free acceleration plus the phone's gravity estimate
/// interpolated onto the accelerometer's clock
/// (`Trace.accelerationIncludingGravity`), whatever the two streams' counts.
public struct ImpactFeed: Sendable {
  public let accelerometer: VectorStream
  public let gyroscope: VectorStream
  public let barometer: PressureStream
  /// Fix times (s on the trace's clock) and speeds (m/s, −1 when unmeasured).
  public let fixes: [Sample1]
  public let gate: VehicleGateTimeline
  /// Window length, s (a phone delivers about four batches a second).
  public let batchSeconds: Double
  /// Where the windows' grid starts: the first accelerometer sample, s.
  let originSeconds: Double

  /// nil when the trace has no accelerometer that includes gravity, nor one
  /// plus a gravity stream to add back.
  ///
  /// A ``Trace``'s streams are sorted by time when a reader made them; one
  /// built by hand may not be. Each stream is put in time order here
  /// (stably, NaN times first), so the windows hand the detector what one
  /// batch of the whole recording would: O(n) when already sorted, else
  /// O(n log n).
  public init?(trace: Trace, gate policy: VehicleGatePolicy, batchSeconds: Double = 0.25) {
    guard let acceleration = trace.accelerationIncludingGravity(), !acceleration.isEmpty else { return nil }
    accelerometer = acceleration.inTimeOrder()
    // The grid starts at the earliest sample handed out (after sorting, so
    // a hand-built trace out of order has no sample before its first window).
    let origin = accelerometer.seconds.first(where: \.isFinite) ?? 0
    originSeconds = origin
    let kept = origin - Self.historyBeforeAccelerometerSeconds
    gyroscope = (trace.gyroscope ?? VectorStream()).inTimeOrder().dropping(before: kept)
    barometer = (trace.barometer ?? PressureStream()).inTimeOrder().dropping(before: kept)
    fixes = TimeOrder.sorted(
      trace.fixes.speedSamples(originMilliseconds: trace.metadata.timeOriginMilliseconds ?? 0), by: \.seconds
    ).dropping(before: kept)
    gate = VehicleGateTimeline(policy: policy, activities: trace.activities)
    self.batchSeconds = batchSeconds > 0 && batchSeconds.isFinite ? batchSeconds : 0.25
  }

  /// How long before the first accelerometer sample the other streams'
  /// samples (gyroscope, barometer, fixes) are handed to the detector, s;
  /// earlier ones are left out, not counted anywhere. Every jolt is an
  /// accelerometer sample; a window reads at most
  /// ``ImpactConfiguration/longestLookBackSeconds`` (and the half-millisecond
  /// tolerance) before its incident's first jolt, and a jolt chains to an
  /// incident at most the deadline (≤ 60 s, and the tolerance) after that
  /// jolt, so no window of any valid configuration reads them: a fresh
  /// detector reaches the verdicts it would reach with them. (A detector fed
  /// before may still read some for a jolt of its own: ``ImpactSession``
  /// streams keeping its ``ImpactDetector/pendingReadSeconds``.) Choice:
  /// 121 s, those two 60 s and a second. Without it a recording whose
  /// accelerometer starts late, or never, held every other sample in memory
  /// until its first one (specrev-impact F5), and a week of GPS before it
  /// passed through the detector for nothing.
  public static let historyBeforeAccelerometerSeconds = 2 * ImpactConfiguration.longestLookBackSeconds + 1

  /// A feed of some of a recording's samples, windows on the grid from `origin`.
  init(
    accelerometer: VectorStream, gyroscope: VectorStream, barometer: PressureStream, fixes: [Sample1],
    gate: VehicleGateTimeline, batchSeconds: Double, origin: Double
  ) {
    self.accelerometer = accelerometer
    self.gyroscope = gyroscope
    self.barometer = barometer
    self.fixes = fixes
    self.gate = gate
    self.batchSeconds = batchSeconds
    originSeconds = origin
  }

  /// Hours with data, peak |a| and rates of the samples this feed hands the
  /// detector (``RecordingStatistics``: the same numbers ``ImpactSession``
  /// counts from the batches). O(n) expected.
  public var statistics: RecordingStatistics {
    var out = RecordingStatistics()
    let a = accelerometer
    for i in 0..<a.count { out.addAccelerometer(seconds: a.seconds[i], x: a.x[i], y: a.y[i], z: a.z[i]) }
    for t in gyroscope.seconds { out.add(.gyroscope, seconds: t) }
    for t in barometer.seconds { out.add(.barometer, seconds: t) }
    return out
  }

  /// The windows in time order. O(n) over all samples in total.
  public func batches() -> Batches { Batches(feed: self) }

  /// The whole recording through a fresh detector configured by `configuration`.
  public func verdicts(configuration: ImpactConfiguration = ImpactConfiguration()) -> [ImpactVerdict] {
    var detector = ImpactDetector(configuration: configuration)
    var out: [ImpactVerdict] = []
    for batch in batches() { out += detector.process(batch) }
    return out + detector.finish()
  }

  public struct Batches: Sequence, IteratorProtocol, Sendable {
    let feed: ImpactFeed
    let grid: BatchGrid
    /// Windows not wholly before this time are not handed out (a stream's
    /// samples at or after it are not all known yet); +∞: no limit.
    let limit: Double
    // How many samples of each stream have been handed out.
    private(set) var a = 0
    private(set) var g = 0
    private(set) var b = 0
    private(set) var f = 0

    init(feed: ImpactFeed, limit: Double = .infinity) {
      self.feed = feed
      self.limit = limit
      grid = BatchGrid(originSeconds: feed.originSeconds, batchSeconds: feed.batchSeconds)
    }

    /// The next window that holds a sample, or nil when every sample has been
    /// handed out (or the next window is not complete before ``limit``).
    ///
    /// Each sample's window is `grid.index` of its time, an integer; the
    /// window handed out is the smallest index at the head of any stream,
    /// and it takes every head sample whose index is at most that. The
    /// stream that gave the smallest index gives at least its head sample,
    /// so every call that returns a batch hands out one sample or more: the
    /// cut ends after at most as many calls as there are samples, whatever
    /// the times (edges, repeats, disorder, ±huge, NaN).
    public mutating func next() -> ImpactBatch? {
      let feed = self.feed
      let grid = self.grid
      let heads = [
        a < feed.accelerometer.count ? grid.nanoseconds(feed.accelerometer.seconds[a]) : nil,
        g < feed.gyroscope.count ? grid.nanoseconds(feed.gyroscope.seconds[g]) : nil,
        b < feed.barometer.count ? grid.nanoseconds(feed.barometer.seconds[b]) : nil,
        f < feed.fixes.count ? grid.nanoseconds(feed.fixes[f].seconds) : nil,
      ]
      guard let earliest = heads.compactMap({ $0 }).min() else { return nil }
      let window = grid.window(ofNanoseconds: earliest)
      if limit != .infinity {
        // Complete only when every sample not yet known (time ≥ limit) falls
        // in a later window: index(limit) > window, by monotony of the index.
        guard window < grid.window(ofNanoseconds: grid.nanoseconds(limit)) else { return nil }
      }
      // The window's last nanosecond (saturating: it is ≥ `earliest` either way),
      // or the one before the gate's next switch inside it: a batch has one
      // gate, so a switch cuts the window, and each part has the gate at its
      // first sample. (At the window's start, a classifier that turned on
      // 80 ms before a crash in the same 250 ms left the crash unjudged.)
      var last = grid.lastNanosecond(ofWindow: window)
      let switches = feed.gate.switches
      var (low, high) = (0, switches.count)
      while low < high {
        let mid = (low + high) / 2
        if grid.nanoseconds(switches[mid].seconds) <= earliest { low = mid + 1 } else { high = mid }
      }
      if low < switches.count {
        // After `earliest`: the head sample still goes in, so every call takes one or more.
        last = Swift.min(last, grid.nanoseconds(switches[low].seconds) - 1)
      }
      var batch = ImpactBatch(vehicleGate: low == 0 ? feed.gate.initiallyOn : switches[low - 1].isOn)
      while a < feed.accelerometer.count && grid.nanoseconds(feed.accelerometer.seconds[a]) <= last {
        let s = feed.accelerometer
        batch.accelerometer.append(Sample3(s.seconds[a], s.x[a], s.y[a], s.z[a]))
        a += 1
      }
      while g < feed.gyroscope.count && grid.nanoseconds(feed.gyroscope.seconds[g]) <= last {
        let s = feed.gyroscope
        batch.gyroscope.append(Sample3(s.seconds[g], s.x[g], s.y[g], s.z[g]))
        g += 1
      }
      while b < feed.barometer.count && grid.nanoseconds(feed.barometer.seconds[b]) <= last {
        batch.barometer.append(Sample1(feed.barometer.seconds[b], feed.barometer.hectopascals[b]))
        b += 1
      }
      while f < feed.fixes.count && grid.nanoseconds(feed.fixes[f].seconds) <= last {
        batch.fixes.append(feed.fixes[f])
        f += 1
      }
      return batch
    }
  }
}

/// The fixed grid of windows a recording is cut into: window k holds the
/// times t with floor((t − origin) / batch) = k, the offset counted in whole
/// nanoseconds (rounded to the nearest), so a sample a logger stamped on an
/// edge (k × 250 ms after the origin, in whole milliseconds or microseconds)
/// opens window k whatever the rounding of the subtraction, and membership
/// is decided by integers, never by comparing floating-point window ends.
///
/// Offsets beyond ±9.2 × 10⁹ s saturate (they fall in the first or last
/// window, where the detector rejects their times); NaN counts as the most
/// negative offset. The index is monotone in t: t ≤ u gives index(t) ≤ index(u).
struct BatchGrid: Sendable, Hashable {
  let originSeconds: Double
  let batchSeconds: Double
  /// The window length in whole nanoseconds, at least 1.
  let batchNanoseconds: Int64

  init(originSeconds: Double, batchSeconds: Double) {
    self.originSeconds = originSeconds
    self.batchSeconds = batchSeconds
    batchNanoseconds = max(1, Self.saturating(batchSeconds * 1e9))
  }

  /// `x` rounded to the nearest whole number, saturated to Int64 (NaN: `.min`).
  static func saturating(_ x: Double) -> Int64 {
    // 2^63 is exactly representable; every double below it converts.
    guard x > -9.223_372_036_854_775_808e18 else { return .min }
    guard x < 9.223_372_036_854_775_808e18 else { return .max }
    return Int64(x.rounded())
  }

  /// Nanoseconds from the origin to `seconds`, rounded and saturated.
  func nanoseconds(_ seconds: Double) -> Int64 { Self.saturating((seconds - originSeconds) * 1e9) }

  /// floor(ns / batch): the window holding an offset of `ns` nanoseconds.
  func window(ofNanoseconds ns: Int64) -> Int64 {
    let (q, r) = ns.quotientAndRemainder(dividingBy: batchNanoseconds)
    return r < 0 ? q - 1 : q
  }

  /// The last nanosecond offset inside window `k`, a window of some offset
  /// (`window(ofNanoseconds:)`): the next window's start − 1, saturated to
  /// Int64.max. That start lies above the offset, so it never underflows,
  /// and the offset is always ≤ the result.
  func lastNanosecond(ofWindow k: Int64) -> Int64 {
    guard k < .max else { return .max }
    let (next, overflow) = (k + 1).multipliedReportingOverflow(by: batchNanoseconds)
    return overflow ? .max : next - 1
  }

}

extension VectorStream {
  /// This stream without its samples before `seconds` (NaN times kept)
  /// outside `keeping`: itself when it has none. O(n).
  func dropping(before seconds: Double, keeping: ClosedRange<Double>? = nil) -> VectorStream {
    let drop = { (t: Double) in t < seconds && keeping?.contains(t) != true }
    guard self.seconds.contains(where: drop) else { return self }
    let keep = self.seconds.indices.filter { !drop(self.seconds[$0]) }
    return VectorStream(
      seconds: keep.map { self.seconds[$0] }, x: keep.map { x[$0] }, y: keep.map { y[$0] },
      z: keep.map { z[$0] })
  }

  package var samples3: [Sample3] { seconds.indices.map { Sample3(seconds[$0], x[$0], y[$0], z[$0]) } }

  /// This stream stably sorted by time (NaN first); itself when already sorted.
  func inTimeOrder() -> VectorStream {
    guard let order = TimeOrder.permutation(seconds) else { return self }
    return VectorStream(
      seconds: order.map { seconds[$0] }, x: order.map { x[$0] }, y: order.map { y[$0] },
      z: order.map { z[$0] })
  }
}

extension PressureStream {
  /// This stream without its samples before `seconds` (NaN times kept)
  /// outside `keeping`: itself when it has none. O(n).
  func dropping(before seconds: Double, keeping: ClosedRange<Double>? = nil) -> PressureStream {
    let drop = { (t: Double) in t < seconds && keeping?.contains(t) != true }
    guard self.seconds.contains(where: drop) else { return self }
    let keep = self.seconds.indices.filter { !drop(self.seconds[$0]) }
    return PressureStream(
      seconds: keep.map { self.seconds[$0] }, hectopascals: keep.map { hectopascals[$0] },
      relativeAltitudeMeters: keep.map { relativeAltitudeMeters[$0] })
  }

  /// This stream stably sorted by time (NaN first); itself when already sorted.
  func inTimeOrder() -> PressureStream {
    guard let order = TimeOrder.permutation(seconds) else { return self }
    return PressureStream(
      seconds: order.map { seconds[$0] }, hectopascals: order.map { hectopascals[$0] },
      relativeAltitudeMeters: order.map { relativeAltitudeMeters[$0] })
  }
}

/// Time order for samples of a hand-built trace: by time, NaN before every
/// number (where ``BatchGrid`` puts it), ties in their given order.
enum TimeOrder {
  /// The stable sorting permutation of `seconds`, or nil when they are
  /// already in order. O(n) when sorted, O(n log n) otherwise.
  static func permutation(_ seconds: [Double]) -> [Int]? {
    func key(_ t: Double) -> Double { t.isNaN ? -.infinity : t }
    var sorted = true
    for i in seconds.indices.dropFirst() where key(seconds[i]) < key(seconds[i - 1]) || seconds[i].isNaN {
      sorted = false
      break
    }
    guard !sorted else { return nil }
    // NaN first; among NaN and among equal times, the given order.
    return seconds.indices.sorted { i, j in
      let (a, b) = (seconds[i], seconds[j])
      if a.isNaN != b.isNaN { return a.isNaN }
      if a.isNaN || a == b { return i < j }
      return a < b
    }
  }

  static func sorted<T>(_ values: [T], by time: (T) -> Double) -> [T] {
    guard let order = permutation(values.map(time)) else { return values }
    return order.map { values[$0] }
  }
}

extension [Sample1] {
  /// These samples without those before `seconds` (NaN times kept) outside
  /// `keeping`. O(n).
  func dropping(before seconds: Double, keeping: ClosedRange<Double>? = nil) -> [Sample1] {
    let drop = { (s: Sample1) in s.seconds < seconds && keeping?.contains(s.seconds) != true }
    return contains(where: drop) ? filter { !drop($0) } : self
  }
}

extension FixColumns {
  /// (seconds since the origin, speed m/s; −1 when unmeasured). A fix whose
  /// time lies beyond Int64's reach of the origin cannot be on the sensors'
  /// clock and is left out.
  package func speedSamples(originMilliseconds: Int64) -> [Sample1] {
    (0..<count).compactMap { i in
      let (delta, overflow) = timeMilliseconds[i].subtractingReportingOverflow(originMilliseconds)
      guard !overflow else { return nil }
      let speed = speedMetersPerSecond[i]
      return Sample1(Double(delta) / 1000, speed.isNaN ? -1 : speed)
    }
  }
}
