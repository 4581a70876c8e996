import HearthGeo
import HearthImpact
import HearthTrace

/// ``ImpactFeed`` built chunk by chunk from a ``TraceStream``: the same
/// phone-sized batches (the same windows, gate, and gravity added by time)
/// as the whole recording gives, in memory that does not grow with the
/// recording (the chunk, the samples of the window being filled, any
/// gravity-free samples waiting for the next gravity sample to be added by
/// time, and, until the first accelerometer sample, the other streams' last
/// ``ImpactFeed/historyBeforeAccelerometerSeconds``).
///
/// A window is handed out once it is complete: every stream has delivered
/// its samples up to the window's end (the chunk's
/// ``TraceChunk/completeBeforeSeconds``), and every accelerometer sample in it
/// has its gravity (a gravity sample after it has arrived, or the stream
/// ended). Gravity-free samples wait for the next gravity sample, so a gap in
/// the gravity stream costs the accelerometer samples inside it; once the
/// chunk says gravity is complete (``TraceChunk/gravityComplete``) they take
/// the last gravity sample at once, as the whole feed does, and
/// ``gravityWarning`` says how much of the accelerometer gravity missed. The gate's
/// words (``VehicleGateTimeline/source``) are known at ``finish()``; the hours
/// with data, the peak and the rate warnings are counted from the batches
/// handed out (``RecordingStatistics``, by ``ImpactSession``).
public struct ImpactStream: Sendable {
  public let policy: VehicleGatePolicy
  public let batchSeconds: Double
  /// Nothing within this is left out as history, s.
  public let keeping: ClosedRange<Double>?
  private var originMilliseconds: Int64 = 0
  private var content: AccelerationContent?
  private var hasGravityStream = false
  // Accelerometer samples with gravity added, not yet in a window.
  private var accelerometer = VectorStream()
  // Gravity-free samples waiting for gravity, and the gravity samples that
  // can still bracket them (the last one at or before the oldest waiting).
  private var waiting: [Sample3] = []
  private var gravity: [Sample3] = []
  private var gyroscope = VectorStream()
  private var barometer = PressureStream()
  private var fixes: [Sample1] = []
  private var origin: Double?
  private var complete = -Double.infinity
  private var first = true
  private var gravityMissing = false
  private var gravityComplete = false
  // Time spans of the gravity and the gravity-free accelerometer samples, s.
  private var gravitySpan = (first: Double.infinity, last: -Double.infinity)
  private var waitingSpan = (first: Double.infinity, last: -Double.infinity)
  // The gate, built as activities arrive.
  private var timeline: VehicleGateTimeline
  private var activityCount = 0
  // Accelerometer samples (with gravity) accepted.
  private var accelerometerCount = 0

  /// Samples within `keeping` (s on the trace's clock) are never left out
  /// as history (``ImpactFeed/historyBeforeAccelerometerSeconds``): pass
  /// the detector's ``ImpactDetector/pendingReadSeconds`` when it was fed
  /// before (``ImpactSession`` does); nil for a fresh one. Taken once: a
  /// jolt of this recording waits on its own samples, which the history
  /// (from 121 s before the first accelerometer sample) already keeps.
  public init(
    gate policy: VehicleGatePolicy, batchSeconds: Double = 0.25, keeping: ClosedRange<Double>? = nil
  ) {
    self.policy = policy
    self.keeping = keeping
    self.batchSeconds = batchSeconds > 0 && batchSeconds.isFinite ? batchSeconds : 0.25
    timeline = VehicleGateTimeline(policy: policy, hasActivityStream: false)
  }

  /// The batches complete once `chunk` is added (chunks in order).
  public mutating func add(_ chunk: TraceChunk) -> [ImpactBatch] {
    let t = chunk.trace
    // The first chunk says whether the recording has an activity stream:
    // the gate starts off when it has (until it says automotive), on when not.
    if first { timeline = VehicleGateTimeline(policy: policy, hasActivityStream: chunk.hasActivityStream) }
    originMilliseconds = t.metadata.timeOriginMilliseconds ?? 0
    if let a = t.accelerometer { content = a.content }
    if let g = t.gravity {
      hasGravityStream = true
      for i in 0..<g.count { gravity.append(Sample3(g.seconds[i], g.x[i], g.y[i], g.z[i])) }
      if let first = g.seconds.first, let last = g.seconds.last {
        gravitySpan = (min(gravitySpan.first, first), max(gravitySpan.last, last))
      }
    }
    // The first chunk names every stream the recording has: gravity-free
    // acceleration without a gravity stream can never be completed.
    if first && content == .excludesGravity && !hasGravityStream { gravityMissing = true }
    first = false
    if let a = t.accelerometer?.samples, !gravityMissing {
      for i in 0..<a.count {
        let sample = Sample3(a.seconds[i], a.x[i], a.y[i], a.z[i])
        if content == .includesGravity { accept(sample) } else { waiting.append(sample) }
      }
      if content != .includesGravity, let first = a.seconds.first, let last = a.seconds.last {
        waitingSpan = (min(waitingSpan.first, first), max(waitingSpan.last, last))
      }
    }
    // With no accelerometer sample that can ever be completed, no window
    // will be cut: the other streams are not kept (they would be held
    // to the end of the recording, which then has no feed).
    if !gravityMissing {
      if let g = t.gyroscope { gyroscope.append(seconds: g.seconds, x: g.x, y: g.y, z: g.z) }
      if let b = t.barometer {
        barometer.append(
          seconds: b.seconds, hectopascals: b.hectopascals, relativeAltitudeMeters: b.relativeAltitudeMeters)
      }
      // In time order, as the whole feed puts them: a trace folder's fixes
      // come whole in the first chunk in file order (a history of uploads),
      // and unsorted the batch cutter would stall behind the first of them.
      fixes += TimeOrder.sorted(t.fixes.speedSamples(originMilliseconds: originMilliseconds), by: \.seconds)
    }
    for sample in t.activities { gate(sample) }
    complete = chunk.completeBeforeSeconds
    gravityComplete = gravityComplete || chunk.gravityComplete
    addGravity(ended: complete == .infinity || gravityComplete)
    return windows(upTo: frontier)
  }

  /// The last batches, once every chunk has been added.
  public mutating func finish() -> [ImpactBatch] {
    complete = .infinity
    addGravity(ended: true)
    return windows(upTo: .infinity)
  }

  /// Whether any accelerometer sample (with gravity) reached the detector:
  /// false means the recording is not one the detector can read.
  public var hasAccelerometer: Bool { accelerometerCount > 0 }

  /// The first accelerometer sample's time, s on the trace's clock (nil before one arrived).
  public var firstSampleSeconds: Double? { origin }

  /// The gate as the whole feed's ``VehicleGateTimeline`` says it.
  public var gate: VehicleGateTimeline {
    var gate = timeline
    if policy == .recording { gate.describe(activities: activityCount) }
    return gate
  }

  /// Seconds of gravity-free accelerometer samples outside the gravity
  /// stream's time span beyond which ``gravityWarning`` speaks. Choice: 10 s
  /// (the streams of one recording start and stop within a second or two).
  public static let gravityShortfallSeconds = 10.0

  /// When gravity covers much less time than a gravity-free accelerometer
  /// (more than ``gravityShortfallSeconds`` of it outside gravity's span):
  /// those samples took the nearest gravity sample, not one of their time.
  public var gravityWarning: String? {
    guard hasGravityStream, waitingSpan.first <= waitingSpan.last, gravitySpan.first <= gravitySpan.last
    else {
      return nil
    }
    let outside = max(0, gravitySpan.first - waitingSpan.first) + max(0, waitingSpan.last - gravitySpan.last)
    guard outside > Self.gravityShortfallSeconds else { return nil }
    let f = { (x: Double) in String(format: "%.1f", x) }
    return
      "gravity covers \(f(max(0, gravitySpan.last - gravitySpan.first))) s (\(f(gravitySpan.first)) to \(f(gravitySpan.last)) s) of the accelerometer's \(f(waitingSpan.last - waitingSpan.first)) s: \(f(outside)) s of samples took the nearest gravity sample"
  }

  /// Samples of every stream held between chunks (what the memory bound
  /// is about; for tests). O(1).
  var heldSampleCount: Int {
    accelerometer.count + waiting.count + gravity.count + gyroscope.count + barometer.seconds.count
      + fixes.count
  }

  // MARK: Internals

  private var frontier: Double {
    min(complete, waiting.first?.seconds ?? .infinity)
  }

  private mutating func accept(_ sample: Sample3) {
    accelerometer.append(seconds: sample.seconds, x: sample.x, y: sample.y, z: sample.z)
    if origin == nil { origin = sample.seconds }
    accelerometerCount += 1
  }

  /// Adds gravity, interpolated by time, to every waiting sample that a
  /// gravity sample after it brackets (all of them once gravity has ended).
  /// With nothing waiting, only the gravity that can bracket a later sample
  /// is kept: from the last gravity sample at or before `complete` on, as
  /// every later sample comes at or after it (``TraceChunk``). Without
  /// that, a recording whose accelerometer includes gravity kept every row
  /// of its gravity stream.
  private mutating func addGravity(ended: Bool) {
    guard !waiting.isEmpty, hasGravityStream || ended else {
      var j = 0
      while j + 1 < gravity.count && gravity[j + 1].seconds <= complete { j += 1 }
      if j > 0 { gravity.removeFirst(j) }
      return
    }
    guard !gravity.isEmpty else {
      if ended { waiting = [] }  // no gravity at all: no feed (as ImpactFeed)
      return
    }
    var j = 0
    var done = 0
    for sample in waiting {
      let t = sample.seconds
      while j + 1 < gravity.count && gravity[j + 1].seconds <= t { j += 1 }
      // Certain only when a gravity sample after t has arrived, or none will.
      guard ended || gravity[gravity.count - 1].seconds > t else { break }
      let g = Self.interpolate(gravity, at: t, from: j)
      accept(Sample3(t, sample.x + g.0, sample.y + g.1, sample.z + g.2))
      done += 1
    }
    waiting.removeFirst(done)
    // Keep the gravity that can still bracket what waits.
    if j > 0 { gravity.removeFirst(j) }
  }

  private static func interpolate(_ s: [Sample3], at t: Double, from j: Int) -> (Double, Double, Double) {
    guard j + 1 < s.count, s[j].seconds <= t else {
      let k = t < s[0].seconds ? 0 : s.count - 1
      return (s[k].x, s[k].y, s[k].z)
    }
    let span = s[j + 1].seconds - s[j].seconds
    let w = span > 0 ? (t - s[j].seconds) / span : 0
    return (
      s[j].x + (s[j + 1].x - s[j].x) * w, s[j].y + (s[j + 1].y - s[j].y) * w,
      s[j].z + (s[j + 1].z - s[j].z) * w
    )
  }

  private mutating func gate(_ sample: ActivitySample) {
    activityCount += 1
    if policy == .recording { timeline.follow(sample) }
  }

  /// Drops the other streams' samples more than
  /// ``ImpactFeed/historyBeforeAccelerometerSeconds`` before the first
  /// accelerometer sample, as the whole feed leaves them out. Before that
  /// sample has arrived, before the earliest time it can still have: the
  /// frontier (every later sample of a stream is at or after `complete`, and
  /// a gravity-free sample waiting for gravity is at or after the first one
  /// waiting), so memory stays bounded when the accelerometer starts late,
  /// or never. Never within ``keeping``. O(samples held).
  private mutating func forgetHistory() {
    let kept = (origin ?? frontier) - ImpactFeed.historyBeforeAccelerometerSeconds
    gyroscope = gyroscope.dropping(before: kept, keeping: keeping)
    barometer = barometer.dropping(before: kept, keeping: keeping)
    fixes = fixes.dropping(before: kept, keeping: keeping)
  }

  /// Every window whose end is at most `limit`, in order: ``ImpactFeed``'s
  /// own cut, over the samples not yet handed out.
  private mutating func windows(upTo limit: Double) -> [ImpactBatch] {
    forgetHistory()
    guard let origin else { return [] }
    let pending = ImpactFeed(
      accelerometer: accelerometer, gyroscope: gyroscope, barometer: barometer, fixes: fixes, gate: timeline,
      batchSeconds: batchSeconds, origin: origin)
    var cut = ImpactFeed.Batches(feed: pending, limit: limit)
    var out: [ImpactBatch] = []
    while let batch = cut.next() { out.append(batch) }
    accelerometer.removeFirst(cut.a)
    gyroscope.removeFirst(cut.g)
    barometer.removeFirst(cut.b)
    fixes.removeFirst(cut.f)
    return out
  }
}

/// A recording streamed through a fresh detector and finished: what
/// `impact detect` prints for it (``ImpactSession`` keeps it all).
public struct ImpactReplay: Sendable {
  /// The detector's session after the whole recording.
  public var session: ImpactSession
  public var report: ImportReport

  public var verdicts: [ImpactVerdict] { session.verdicts }
  /// The gate the recording set (``VehicleGateTimeline/source`` says how).
  public var gate: VehicleGateTimeline { session.gate ?? VehicleGateTimeline(policy: .on, activities: []) }
  /// The first accelerometer sample's time, s on the trace's clock.
  public var firstSampleSeconds: Double { session.firstSampleSeconds ?? 0 }
  public var hoursWithData: Double { session.statistics.hoursWithData }
  public var peakAccelerationG: Double { session.statistics.peakAccelerationG }
  public var rateWarnings: [String] { session.statistics.rateWarnings }
  /// When gravity (a separate stream) missed part of the accelerometer's
  /// span: ``ImpactStream/gravityWarning``.
  public var gravityWarning: String? { session.gravityWarning }

  /// Streams `stream` through a fresh detector configured by `configuration`
  /// (``ImpactSession/feed(_:name:gate:)``), then finishes it.
  /// - Throws: as ``ImpactSession/feed(_:name:gate:)``.
  /// - Complexity: two passes over the recording (``TraceStream``); memory
  ///   independent of its length.
  public static func run(
    _ stream: TraceStream, path: String, gate policy: VehicleGatePolicy,
    configuration: ImpactConfiguration = ImpactConfiguration()
  ) throws -> ImpactReplay {
    var session = ImpactSession(configuration: configuration)
    let report = try session.feed(stream, name: path, gate: policy)
    session.finish()
    return ImpactReplay(session: session, report: report)
  }
}
