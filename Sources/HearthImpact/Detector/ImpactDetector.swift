import _HearthShims

/// The phone's possible-impact detector (SPEC §9), fed batch by batch.
///
/// Goals, in order: 1 never silence a crash for want of care (a bad sample
/// is skipped and counted, never kept; each jolt is judged on its own
/// windows); 2 the same verdicts for any batching of the same data; 3
/// bounded memory; 4 speed (a handful of operations per sample).
///
/// Every sample goes through in time order (the streams of a batch are
/// checked, sorted and merged), so the verdicts depend only on the data, not
/// on how they were cut into batches: `replay` of a whole trace and feeding
/// it in any batches give the same verdicts, provided no sample arrives
/// `lateDataSeconds` or more after the newest data of any stream.
///
/// Features, independent of how the phone is held:
/// - gravity: an exponential average of the accelerometer (τ = 2 s); the
///   dynamic acceleration is the reading minus it;
/// - jolt: |dynamic| in one sample; an axis at ±15.5 g marks it clipped;
/// - vibration: the RMS over each whole bin (1 s) of the reading minus a
///   τ = 0.32 s average (a ≈ 0.5 Hz high-pass), along gravity ("vertical");
/// - spin: |ω|; pressure; free fall: runs of |a| below 0.3 g.
///
/// A jolt opens an incident; jolt samples within `joltPeakWindowSeconds` of
/// it make its peak, and a later one opens an incident of its own, however
/// soon (several may wait for their data at once: at most one per peak
/// window of the last deadline + late-data seconds). Each is judged by
/// ``ImpactDecision`` as soon as every window it reads is complete, at the
/// latest when the data reach jolt + 12 s, by whatever batch brings them (no
/// timers); verdicts come out in jolt order. Only a reported impact
/// suppresses the jolts of the next 60 s.
///
/// Memory is fixed at `init` (rings sized by ``ImpactConfiguration/ringCapacities``);
/// nothing is allocated per sample.
/// - Complexity: O(1) per sample; O(log ring + window) per look at a pending verdict.
public struct ImpactDetector: Sendable {
  public let configuration: ImpactConfiguration
  public private(set) var counters = ImpactCounters()

  // Stream clocks: the newest sample used per stream, and of any stream.
  private var accelerometerSeconds = -Double.infinity
  private var gyroscopeSeconds = -Double.infinity
  private var barometerSeconds = -Double.infinity
  private var fixSeconds = -Double.infinity
  private var dataSeconds = -Double.infinity

  /// The newest sample time used of any stream, s (−∞ before the first):
  /// where the data end when ``finish()`` decides with what there is.
  public var lastDataSeconds: Double { dataSeconds }

  /// The sample times the windows of the jolts waiting for their verdicts
  /// may still read, s: from their incidents' first jolt less
  /// ``ImpactConfiguration/longestLookBackSeconds`` and the tolerance, to
  /// the latest of them plus the deadline, the late-data wait and the
  /// tolerance (past which a sample only moves the clocks that decide them);
  /// nil with none waiting. A later jolt's windows, even one chained to the
  /// latest incident, read nothing more than 2 × (60 s + the tolerance)
  /// before it (a jolt chains to an incident at most the deadline, ≤ 60 s,
  /// after its first jolt). A feed that leaves out samples long before its
  /// own first accelerometer sample keeps these (a second recording fed to a
  /// detector still judging the first one's jolt). O(jolts waiting).
  public var pendingReadSeconds: ClosedRange<Double>? {
    guard let last = pending.last else { return nil }
    let e = ImpactConfiguration.timeToleranceSeconds
    let first = pending.reduce(Double.infinity) { min($0, $1.incidentSeconds) }
    let lower = first - ImpactConfiguration.longestLookBackSeconds - e
    let upper = last.joltSeconds + configuration.verdictDeadlineSeconds + configuration.lateDataSeconds + e
    return lower <= upper ? lower...upper : nil
  }

  // Accelerometer features: the slow gravity estimate (the jolt's reference)
  // and the fast one (the vibration band's lower edge).
  private var filtersStarted = false
  private var gravityX = 0.0, gravityY = 0.0, gravityZ = 0.0
  private var lowPassX = 0.0, lowPassY = 0.0, lowPassZ = 0.0
  // The open vibration bin [binStart, binEnd): floor(t / L) constant inside.
  private var binStart = -Double.infinity
  private var binEnd = -Double.infinity
  private var binSumOfSquares = 0.0
  private var binCount = 0
  // The rings' entries, one buffer for the four (one uniqueness check for a
  // batch's appends to the three slower streams' rings).
  private var ringEntries: RingEntries
  private var binRing: Ring  // closed bins: start, vertical RMS (m/s²)
  private var spinRing: Ring  // |ω|, rad/s
  private var pressureRing: Ring  // hPa
  private var speedRing: Ring  // measured GPS speeds, m/s
  private var bins: RingReader { ringEntries.reading(binRing) }
  private var spin: RingReader { ringEntries.reading(spinRing) }
  private var pressure: RingReader { ringEntries.reading(pressureRing) }
  private var speeds: RingReader { ringEntries.reading(speedRing) }
  private var fallStart: Double?
  private var falls = FallRuns()

  /// A jolt waiting for its verdict.
  private struct Candidate: Sendable {
    var joltSeconds: Double
    /// The first jolt of its incident (itself, or an earlier one it chains to).
    var incidentSeconds: Double
    var peak: Double
    var clipped: Bool
    var freeFallSeconds: Double
    var fallsTruncated: Bool
  }
  private var pending: [Candidate] = []
  private var newestJoltSeconds = -Double.infinity
  private var incidentSeconds = -Double.infinity
  private var lastReport: (joltSeconds: Double, decidedSeconds: Double)?
  private var nextCheckSeconds = Double.infinity
  /// Whether accelerometer samples go through the block path
  /// (``takeAccelerations(_:from:before:scratch:)``) where they can; false sends
  /// every one through ``take(acceleration:gate:)``, which the tests compare
  /// it with, bit for bit.
  var takesBlocks = true
  // Where |dynamic|² and |a|² settle the jolt and free-fall tests without a square root.
  private let joltBounds: RootBounds
  private let fallBounds: RootBounds

  /// - Precondition: `configuration.problems` is empty (a decoded
  ///   configuration always is).
  public init(configuration: ImpactConfiguration = ImpactConfiguration()) {
    precondition(configuration.problems.isEmpty, "invalid ImpactConfiguration: \(configuration.problems)")
    self.configuration = configuration
    joltBounds = RootBounds(configuration.joltMetersPerSecondSquared)
    fallBounds = RootBounds(configuration.freeFallMetersPerSecondSquared)
    let capacity = configuration.ringCapacities
    let (entries, rings) = RingEntries.make(capacities: [
      capacity.vibrationBins, capacity.gyroscope, capacity.barometer, capacity.fixes,
    ])
    ringEntries = entries
    (binRing, spinRing, pressureRing, speedRing) = (rings[0], rings[1], rings[2], rings[3])
  }

  /// Feeds one batch; returns the verdicts it completed, in jolt order.
  ///
  /// A batch whose every stream is in time order with every time within
  /// bounds (the common case) is read in place, once: each stream's values
  /// are checked where its samples are taken. Any other goes through a
  /// copy of each stream with the bad times left out, stably sorted. With
  /// no jolt waiting, the accelerometer's order is checked in its first
  /// block, before anything of the batch is taken (a disordered batch then
  /// goes through the copies as before).
  /// - Complexity: O(n) for the batch's n samples; O(n log n) when disordered.
  public mutating func process(_ batch: ImpactBatch) -> [ImpactVerdict] {
    let bound = configuration.maximumAbsoluteTimeSeconds
    let latest = min(bound, batch.receivedSeconds ?? bound)
    let gate = batch.vehicleGate
    var verdicts: [ImpactVerdict] = []
    batch.accelerometer.withUnsafeBufferPointer { accelerometer in
      batch.gyroscope.withUnsafeBufferPointer { gyroscope in
        batch.barometer.withUnsafeBufferPointer { barometer in
          batch.fixes.withUnsafeBufferPointer { fixes in
            // The accelerometer's order is left to its first block where
            // the fast path surely reaches one (see `take`).
            let folded =
              pending.isEmpty && takesBlocks && filtersStarted
              && (accelerometer.first.map { $0.seconds > accelerometerSeconds } ?? false)
            if (folded
              ? Self.bounded(accelerometer, bound, latest) : Self.inOrder(accelerometer, bound, latest))
              && Self.inOrder(gyroscope, bound, latest) && Self.inOrder(barometer, bound, latest)
              && Self.inOrder(fixes, bound, latest)
              && take(
                accelerometer, gyroscope, barometer, fixes, gate: gate, checkingOrder: folded,
                verdicts: &verdicts)
            {
              return
            }
            takeSorted(batch, bound, latest, verdicts: &verdicts)
          }
        }
      }
    }
    // The verdict is reached by the first batch that brings its data.
    if !pending.isEmpty { decideReady(&verdicts) }
    return verdicts
  }

  /// Whether every time in `samples` is usable (finite, within ±`bound`, at
  /// or before `latest`) and the times never decrease: then, in order, the
  /// first and the last time settle the bounds, and a NaN fails the order.
  /// - Complexity: O(n), no branch per sample.
  @inline(__always)
  private static func inOrder<T: TimedSample>(
    _ samples: UnsafeBufferPointer<T>, _ bound: Double, _ latest: Double
  )
    -> Bool
  {
    guard bounded(samples, bound, latest), let p = samples.baseAddress else { return samples.isEmpty }
    return ordered(p, from: 0, to: samples.count)
  }

  /// Whether the first and the last time of `samples` are within ±`bound`
  /// and the last at or before `latest` (true when empty): with the times in
  /// order, every one is.
  @inline(__always)
  private static func bounded<T: TimedSample>(
    _ samples: UnsafeBufferPointer<T>, _ bound: Double, _ latest: Double
  ) -> Bool {
    guard let first = samples.first, let last = samples.last else { return true }
    return abs(first.seconds) <= bound && abs(last.seconds) <= bound && last.seconds <= latest
  }

  /// Whether the times of `p[start..<end]` never decrease (NaN fails);
  /// true when the range is empty. No branch per sample.
  @inline(__always)
  private static func ordered<T: TimedSample>(_ p: UnsafePointer<T>, from start: Int, to end: Int) -> Bool {
    guard start < end else { return true }
    var disorder = 0
    var previous = p[start].seconds
    for i in start..<end {
      disorder |= flaw(p[i].seconds >= previous)
      previous = p[i].seconds
    }
    return disorder == 0
  }

  /// ``process(_:)`` for a batch with a stream out of order or a bad time:
  /// each such stream through a copy of its usable times, stably sorted.
  private mutating func takeSorted(
    _ batch: ImpactBatch, _ bound: Double, _ latest: Double, verdicts: inout [ImpactVerdict]
  ) {
    let accelerometer = Self.usable(batch.accelerometer, bound, latest, &counters.accelerometer)
    let gyroscope = Self.usable(batch.gyroscope, bound, latest, &counters.gyroscope)
    let barometer = Self.usable(batch.barometer, bound, latest, &counters.barometer)
    let fixes = Self.usable(batch.fixes, bound, latest, &counters.fixes)
    accelerometer.withUnsafeBufferPointer { accelerometer in
      gyroscope.withUnsafeBufferPointer { gyroscope in
        barometer.withUnsafeBufferPointer { barometer in
          fixes.withUnsafeBufferPointer { fixes in
            _ = take(
              accelerometer, gyroscope, barometer, fixes, gate: batch.vehicleGate, checkingOrder: false,
              verdicts: &verdicts)
          }
        }
      }
    }
  }

  /// Takes a batch's samples, every stream in time order with usable times,
  /// in time order across the streams (each take skipping and counting a
  /// bad value), deciding whatever falls due. `checkingOrder`: the
  /// accelerometer's times are only known to be bounded at both ends, and
  /// its first block checks that they never decrease before anything is
  /// taken (``process(_:)`` asks this only where the first thing done is that
  /// block); when they do decrease, nothing is taken and the result is false.
  private mutating func take(
    _ accelerometer: UnsafeBufferPointer<Sample3>, _ gyroscope: UnsafeBufferPointer<Sample3>,
    _ barometer: UnsafeBufferPointer<Sample1>, _ fixes: UnsafeBufferPointer<Sample1>, gate: Bool,
    checkingOrder: Bool, verdicts: inout [ImpactVerdict]
  ) -> Bool {
    var (a, g, b, f) = (0, 0, 0, 0)
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.blockScratchCount) { scratch in
      let scratch = scratch.baseAddress!
      if pending.isEmpty && takesBlocks {
        // No decision can fall due before a jolt opens one, and nothing but
        // a decision reads one stream against another: the accelerometer
        // runs ahead through its blocks up to the first sample they leave,
        // then the other streams take what comes before that one in the
        // merged order (at or before its time), each stream in one run.
        a = takeAccelerations(
          accelerometer, from: 0, before: .infinity, scratch: scratch, checkingOrder: checkingOrder)
        guard a >= 0 else { return false }
        let until = a < accelerometer.count ? accelerometer[a].seconds : .infinity
        (g, b, f) = takeSlower(
          gyroscope, barometer, fixes, from: (0, 0, 0),
          before: (gyroscope.count, barometer.count, fixes.count),
          through: until)
        // The usual end: every stream taken, nothing left to merge.
        if a == accelerometer.count && g == gyroscope.count && b == barometer.count && f == fixes.count {
          return true
        }
      }
      while true {
        // The earliest remaining sample of any stream goes next (ties: fixes,
        // barometer, gyroscope, then accelerometer).
        let tg = g < gyroscope.count ? gyroscope[g].seconds : .infinity
        let tb = b < barometer.count ? barometer[b].seconds : .infinity
        let tf = f < fixes.count ? fixes[f].seconds : .infinity
        let other = min(tg, tb, tf)
        while a < accelerometer.count {
          // The accelerometer, most of the samples, goes through in blocks
          // wherever no decision can fall due: with no jolt waiting, up to
          // the first sample the blocks leave (as above); otherwise up to
          // the next other sample or check, whichever is first. What the
          // block path leaves (a possible jolt, the first sample, one at a
          // check) goes one by one.
          let limit =
            !takesBlocks
            ? -Double.infinity
            : pending.isEmpty
              ? Double.infinity
              : dataSeconds < nextCheckSeconds ? min(other, nextCheckSeconds) : -Double.infinity
          a = takeAccelerations(accelerometer, from: a, before: limit, scratch: scratch)
          guard a < accelerometer.count && accelerometer[a].seconds < other else { break }
          take(acceleration: accelerometer[a], gate: gate)
          a += 1
          if dataSeconds >= nextCheckSeconds { decideReady(&verdicts) }
        }
        guard other < .infinity else { break }
        // A run of the one sample at `other`: its time is `other` (finite:
        // the times are usable), so each pass takes it and moves on.
        // (Ties: the fix first, then the barometer, then the gyroscope.)
        let one = tf == other ? (g, b, f + 1) : tb == other ? (g, b + 1, f) : (g + 1, b, f)
        (g, b, f) = takeSlower(gyroscope, barometer, fixes, from: (g, b, f), before: one, through: other)
        if dataSeconds >= nextCheckSeconds { decideReady(&verdicts) }
      }
      return true
    }
  }

  /// The samples of one stream whose time can be used (finite, within
  /// ±`maximumAbsoluteTimeSeconds` and not after the batch's receipt),
  /// stably sorted by time; the others are counted as bad times. (Values are
  /// checked where each sample is taken.) O(n), O(n log n) when out of order.
  private static func usable<T: TimedSample>(
    _ samples: [T], _ bound: Double, _ latest: Double, _ skipped: inout ImpactCounters.Skipped
  ) -> [T] {
    var kept: [T] = []
    kept.reserveCapacity(samples.count)
    for s in samples {
      if abs(s.seconds) <= bound && s.seconds <= latest {
        kept.append(s)
      } else {
        skipped.badTime += 1
      }
    }
    for i in kept.indices.dropFirst() where kept[i].seconds < kept[i - 1].seconds {
      // Stable: of two samples with one time the first received is used.
      return kept.indices.sorted { (kept[$0].seconds, $0) < (kept[$1].seconds, $1) }.map { kept[$0] }
    }
    return kept
  }

  /// A whole recording in one call (the same verdicts as any batching).
  public static func replay(
    _ batch: ImpactBatch, configuration: ImpactConfiguration = ImpactConfiguration()
  ) -> [ImpactVerdict] {
    var detector = ImpactDetector(configuration: configuration)
    return detector.process(batch) + detector.finish()
  }

  /// Decides every waiting jolt with whatever data there are (end of a recording).
  public mutating func finish() -> [ImpactVerdict] {
    var verdicts: [ImpactVerdict] = []
    decideReady(&verdicts, force: true)
    return verdicts
  }

  // MARK: Streams

  private mutating func advance(_ t: Double) { if t > dataSeconds { dataSeconds = t } }

  /// 1 when an axis of `s` is NaN or beyond ±`limit`, else 0 (no branch).
  @inline(__always)
  private static func outside(_ s: Sample3, _ limit: Double) -> Int {
    flaw(abs(s.x) <= limit) | flaw(abs(s.y) <= limit) | flaw(abs(s.z) <= limit)
  }

  /// Whether every axis of `s` is within ±`limit` (`limitSquared` = limit²):
  /// |s|² below limit² says so at once (x² ≤ |s|², and rounding keeps the
  /// order); at or above it, or NaN, each axis is tested.
  @inline(__always)
  private static func within(_ s: Sample3, _ limit: Double, squared limitSquared: Double) -> Bool {
    squaredLength(s.x, s.y, s.z) < limitSquared || outside(s, limit) == 0
  }

  /// Takes the gyroscope, barometer and fix samples from `start` (each
  /// stream's index) up to `end`, timed at or before `until`, each stream in
  /// one run; returns each stream's index after its last sample taken. One
  /// call for the three (not inlined into ``process(_:)``, whose registers
  /// are taken): with no jolt waiting, once per batch.
  @inline(never)
  private mutating func takeSlower(
    _ gyroscope: UnsafeBufferPointer<Sample3>, _ barometer: UnsafeBufferPointer<Sample1>,
    _ fixes: UnsafeBufferPointer<Sample1>, from start: (Int, Int, Int), before end: (Int, Int, Int),
    through until: Double
  ) -> (Int, Int, Int) {
    // The rings' buffer is moved out into a local (bitwise, no reference
    // counting) so that one uniqueness check covers the three runs while
    // they update the detector, and moved back after.
    var entries = RingEntries(buffer: [])
    swap(&entries, &ringEntries)
    defer { swap(&entries, &ringEntries) }
    return entries.buffer.withUnsafeMutableBufferPointer { e in
      (
        takeRotations(gyroscope, from: start.0, before: end.0, through: until, into: e.baseAddress),
        takePressures(barometer, from: start.1, before: end.1, through: until, into: e.baseAddress),
        takeFixes(fixes, from: start.2, before: end.2, through: until, into: e.baseAddress)
      )
    }
  }

  /// Takes the fixes `start..<end` timed at or before `until` (see
  /// ``takeRun(_:from:before:through:clock:data:skipped:ring:valid:kept:value:)``):
  /// a speed is NaN or negative (unmeasured: the fix moves the clocks on but
  /// keeps no speed) or within the receiver's range; never infinite.
  @inline(__always)
  private mutating func takeFixes(
    _ samples: UnsafeBufferPointer<Sample1>, from start: Int, before end: Int, through until: Double,
    into entries: UnsafeMutablePointer<Double>?
  ) -> Int {
    let fastest = configuration.maximumSpeedMetersPerSecond
    return Self.takeRun(
      samples, from: start, before: end, through: until, clock: &fixSeconds, data: &dataSeconds,
      skipped: &counters.fixes, ring: &speedRing, entries: entries,
      valid: { $0.value.isNaN || ($0.value > -.infinity && $0.value <= fastest) }, kept: { $0.value >= 0 },
      value: { $0.value })
  }

  /// Takes the barometer samples `start..<end` timed at or before `until`
  /// (see ``takeRun(_:from:before:through:clock:data:skipped:ring:valid:kept:value:)``).
  @inline(__always)
  private mutating func takePressures(
    _ samples: UnsafeBufferPointer<Sample1>, from start: Int, before end: Int, through until: Double,
    into entries: UnsafeMutablePointer<Double>?
  ) -> Int {
    let (lowest, highest) = (
      configuration.minimumPressureHectopascals, configuration.maximumPressureHectopascals
    )
    return Self.takeRun(
      samples, from: start, before: end, through: until, clock: &barometerSeconds, data: &dataSeconds,
      skipped: &counters.barometer, ring: &pressureRing, entries: entries,
      valid: { $0.value >= lowest && $0.value <= highest },
      kept: { _ in true }, value: { $0.value })
  }

  /// Takes the gyroscope samples `start..<end` timed at or before `until`
  /// (see ``takeRun(_:from:before:through:clock:data:skipped:ring:valid:kept:value:)``); |ω| goes into the ring.
  @inline(__always)
  private mutating func takeRotations(
    _ samples: UnsafeBufferPointer<Sample3>, from start: Int, before end: Int, through until: Double,
    into entries: UnsafeMutablePointer<Double>?
  ) -> Int {
    let limit = configuration.maximumRotationRadiansPerSecond
    let limitSquared = limit * limit
    return Self.takeRun(
      samples, from: start, before: end, through: until, clock: &gyroscopeSeconds, data: &dataSeconds,
      skipped: &counters.gyroscope, ring: &spinRing, entries: entries,
      valid: { Self.within($0, limit, squared: limitSquared) },
      kept: { _ in true }, value: { $0.magnitude })
  }

  /// Takes one slower stream's samples `start..<end` (`end` ≤ `samples.count`;
  /// times usable and never decreasing) up to the first timed after `until`,
  /// in one run of `ring`'s appends: a sample whose value fails `valid` is
  /// counted as a bad value, one not newer than the stream's `clock` as not
  /// newer; any other moves `clock` and `data` (the newest of any stream) on
  /// and, where `kept`, goes into `ring` as `value`. Returns the index after
  /// the last sample taken.
  ///
  /// The loop keeps its state in the closure's own locals and hands them
  /// back at its end: state read and written through `clock` and `data`
  /// (fields of the detector) would go to memory every sample, since a store
  /// into the ring's buffer might alias them.
  /// - Complexity: O(samples taken); one uniqueness check of the ring per run.
  @inline(__always)
  private static func takeRun<S: TimedSample>(
    _ samples: UnsafeBufferPointer<S>, from start: Int, before end: Int, through until: Double,
    clock: inout Double, data: inout Double, skipped: inout ImpactCounters.Skipped, ring: inout Ring,
    entries: UnsafeMutablePointer<Double>?, valid: (S) -> Bool, kept: (S) -> Bool, value: (S) -> Double
  ) -> Int {
    guard start < end && samples[start].seconds <= until else { return start }
    let run = ring.appendRun(entries) { run in
      var (i, streamSeconds, newestSeconds, badValue, notNewer) = (start, clock, data, 0, 0)
      while i < end {
        let s = samples[i]
        guard s.seconds <= until else { break }
        i &+= 1
        guard valid(s) else {
          badValue &+= 1
          continue
        }
        guard s.seconds > streamSeconds else {
          notNewer &+= 1
          continue
        }
        streamSeconds = s.seconds
        if s.seconds > newestSeconds { newestSeconds = s.seconds }
        if kept(s) { run.append(s.seconds, value(s)) }
      }
      return (next: i, clock: streamSeconds, data: newestSeconds, badValue: badValue, notNewer: notNewer)
    }
    (clock, data) = (run.clock, run.data)
    // Counts of samples of one stream: far from overflowing.
    skipped.badValue &+= run.badValue
    skipped.notNewer &+= run.notNewer
    return run.next
  }

  /// Updates the features; a jolt joins the newest incident's peak or opens one.
  private mutating func take(acceleration s: Sample3, gate: Bool) {
    let t = s.seconds
    guard Self.outside(s, configuration.maximumAccelerationMetersPerSecondSquared) == 0 else {
      counters.accelerometer.badValue += 1
      return
    }
    guard t > accelerometerSeconds else {
      counters.accelerometer.notNewer += 1
      return
    }
    let dt = min(1, t - accelerometerSeconds)
    accelerometerSeconds = t
    advance(t)
    let c = configuration
    if !filtersStarted {
      (gravityX, gravityY, gravityZ) = (s.x, s.y, s.z)
      (lowPassX, lowPassY, lowPassZ) = (s.x, s.y, s.z)
      filtersStarted = true
    }
    // Dynamic acceleration against the gravity estimate before this sample;
    // vibration: the part above ~0.5 Hz, along gravity. (The same formulas,
    // in the same order, as `takeAccelerations`.)
    let (dx, dy, dz) = (s.x - gravityX, s.y - gravityY, s.z - gravityZ)
    let dynamic = Self.squaredLength(dx, dy, dz).squareRoot()
    let verticalSquared = Self.verticalSquared(
      s.x - lowPassX, s.y - lowPassY, s.z - lowPassZ, along: gravityX, gravityY, gravityZ)
    let slow = Self.smoothing(dt, c.gravityTimeConstantSeconds)
    gravityX += slow * (s.x - gravityX)
    gravityY += slow * (s.y - gravityY)
    gravityZ += slow * (s.z - gravityZ)
    let fast = Self.smoothing(dt, c.vibrationTimeConstantSeconds)
    lowPassX += fast * (s.x - lowPassX)
    lowPassY += fast * (s.y - lowPassY)
    lowPassZ += fast * (s.z - lowPassZ)
    // Vibration bins.
    if t >= binEnd { openBin(at: t) }
    binSumOfSquares += verticalSquared
    binCount += 1
    // Free fall: a run of |a| below 0.3 g; it ends at the first sample above.
    if s.magnitude < c.freeFallMetersPerSecondSquared {
      if fallStart == nil { fallStart = t }
    } else if let start = fallStart {
      falls.add(
        end: t, length: t - start,
        keepingSince: t - (c.freeFallEndsBeforeJoltSeconds + ImpactConfiguration.timeToleranceSeconds))
      fallStart = nil
    }
    // The jolt.
    guard dynamic >= c.joltMetersPerSecondSquared else { return }
    let clipped = max(abs(s.x), abs(s.y), abs(s.z)) >= c.clipMetersPerSecondSquared
    let tolerance = ImpactConfiguration.timeToleranceSeconds
    if t - newestJoltSeconds <= c.joltPeakWindowSeconds + tolerance {
      if let last = pending.indices.last, pending[last].joltSeconds == newestJoltSeconds {
        pending[last].peak = max(pending[last].peak, dynamic)
        pending[last].clipped = pending[last].clipped || clipped
      }
      return
    }
    guard gate else {
      counters.joltsGateOff += 1
      return
    }
    // A jolt soon after the last one continues its incident (a rollover's
    // impacts, a crash's secondary blows): the car's motion is read once,
    // from the incident's first jolt.
    if t - newestJoltSeconds > c.joltChainSeconds + tolerance
      || t - incidentSeconds > c.verdictDeadlineSeconds + tolerance
    {
      incidentSeconds = t
    }
    newestJoltSeconds = t
    let since = t - (c.freeFallEndsBeforeJoltSeconds + tolerance)
    pending.append(
      Candidate(
        joltSeconds: t, incidentSeconds: incidentSeconds, peak: dynamic, clipped: clipped,
        freeFallSeconds: falls.longest(since: since),
        fallsTruncated: falls.truncated(since: since)))
    nextCheckSeconds = min(nextCheckSeconds, t)
  }

  /// Samples per block of ``takeAccelerations(_:from:before:scratch:)``: its 8
  /// scratch columns fill 1 KiB, the most `withUnsafeTemporaryAllocation`
  /// keeps on the stack (beyond it, a heap allocation per block); a phone's
  /// 250 ms batch holds about 13 samples at 50 Hz.
  static let accelerometerBlock = 16
  private static let blockScratchCount = 8 * accelerometerBlock

  /// Takes accelerometer samples from `start` on exactly as
  /// ``take(acceleration:gate:)`` would one by one, while each is newer than
  /// the one before (a sample not newer than the last one taken is counted
  /// and skipped, as there, or as a bad value if it is one), earlier than
  /// `limit`, within the accelerometer's bounds and surely no jolt;
  /// returns the index of the first sample left (to the per-sample path).
  /// Nothing is taken before the filters have started.
  ///
  /// `checkingOrder`: the times from `start` on are not known to be in
  /// order; the first block checks that they never decrease before taking
  /// anything, and when they do (or when that block cannot be reached
  /// first) nothing is taken and the result is −1.
  /// - Complexity: O(samples taken); no heap allocation.
  private mutating func takeAccelerations(
    _ samples: UnsafeBufferPointer<Sample3>, from start: Int, before limit: Double,
    scratch: UnsafeMutablePointer<Double>, checkingOrder: Bool = false
  ) -> Int {
    guard filtersStarted, let base = samples.baseAddress else { return checkingOrder ? -1 : start }
    let maxA = configuration.maximumAccelerationMetersPerSecondSquared
    var i = start
    if checkingOrder {
      // The first block, from `start`, checks the order before taking anything.
      guard start < samples.count && base[start].seconds > accelerometerSeconds else { return -1 }
      let taken = takeBlock(
        base + start, count: min(samples.count - start, Self.accelerometerBlock), before: limit,
        scratch: scratch, checkingOrderTo: samples.count - start)
      guard taken >= 0 else { return -1 }
      guard taken > 0 else { return start }
      i += taken
    }
    while i < samples.count {
      while i < samples.count && base[i].seconds <= accelerometerSeconds {
        // A bad value is one whatever its time (as in `take(acceleration:gate:)`).
        if Self.outside(base[i], maxA) == 0 {
          counters.accelerometer.notNewer += 1
        } else {
          counters.accelerometer.badValue += 1
        }
        i += 1
      }
      let count = min(samples.count - i, Self.accelerometerBlock)
      guard count > 0 else { break }
      let taken = takeBlock(base + i, count: count, before: limit, scratch: scratch)
      guard taken > 0 else { break }
      i += taken
    }
    return i
  }

  /// One block of ``takeAccelerations(_:from:before:scratch:)``, on at most
  /// `count` ≤ `accelerometerBlock` samples from `p`, the first newer than
  /// `accelerometerSeconds`; returns how many it took. `scratch`: room for
  /// `blockScratchCount` values.
  ///
  /// Three passes, every quantity computed by the same operations in the
  /// same order as in ``take(acceleration:gate:)`` (so the results are the
  /// same to the bit): the two exponential averages, a recurrence, in a
  /// scalar loop that also finds the block's extent and keeps the estimates
  /// before each sample; the dynamic and vertical parts and |a|² from those,
  /// with a flag for any sample that may be a jolt or change the free-fall
  /// state (vectorisable: the square root and the division go several
  /// samples at once); then, in order, the bins, and where flagged the
  /// free-fall runs, stopping before a possible jolt (the filters are then
  /// set back to their values before it).
  ///
  /// `checkingOrderTo` (when above 0): the times of `p[0..<checkingOrderTo]`
  /// (the rest of the stream, this block first) are not known to be in
  /// order; the first pass's extent is (strictly increasing), and the rest
  /// is checked from its last sample before anything is taken. Times that
  /// decrease: −1, nothing taken.
  private mutating func takeBlock(
    _ p: UnsafePointer<Sample3>, count: Int, before limit: Double,
    scratch column: UnsafeMutablePointer<Double>, checkingOrderTo streamCount: Int = 0
  ) -> Int {
    let block = Self.accelerometerBlock
    do {
      // Columns: |a|² or NaN, vertical², the gravity and low-pass estimates
      // before each sample.
      let magnitudeSquared = column
      let verticalSquared = column + block
      let gx = column + 2 * block
      let gy = column + 3 * block
      let gz = column + 4 * block
      let lx = column + 5 * block
      let ly = column + 6 * block
      let lz = column + 7 * block
      let tauSlow = configuration.gravityTimeConstantSeconds
      let tauFast = configuration.vibrationTimeConstantSeconds

      // 1. The exponential averages, a recurrence, in a scalar loop that
      //    keeps the estimates before each sample; the block ends before the
      //    first sample not newer than the one before it or not before `limit`.
      var (x0, y0, z0) = (gravityX, gravityY, gravityZ)
      var (x1, y1, z1) = (lowPassX, lowPassY, lowPassZ)
      var previous = accelerometerSeconds
      var m = 0
      // The loop twice: with no limit (no jolt waiting, the usual case) the
      // test against it is left out (usable times are finite).
      @inline(__always) func recur(limited: Bool) {
        while m < count {
          let s = p[m]
          guard s.seconds > previous && (!limited || s.seconds < limit) else { break }
          let dt = min(1, s.seconds - previous)
          let a = Self.smoothing(dt, tauSlow)
          let b = Self.smoothing(dt, tauFast)
          (gx[m], gy[m], gz[m]) = (x0, y0, z0)
          (lx[m], ly[m], lz[m]) = (x1, y1, z1)
          x0 += a * (s.x - x0)
          y0 += a * (s.y - y0)
          z0 += a * (s.z - z0)
          x1 += b * (s.x - x1)
          y1 += b * (s.y - y1)
          z1 += b * (s.z - z1)
          previous = s.seconds
          m += 1
        }
      }
      if limit == .infinity { recur(limited: false) } else { recur(limited: true) }
      if m < streamCount && !Self.ordered(p, from: max(m - 1, 0), to: streamCount) { return -1 }
      guard m > 0 else { return 0 }

      // 2. |a|², or NaN where |dynamic|² may reach the jolt threshold or an
      //    axis may be out of bounds (a bad value, left to the per-sample
      //    path, which skips it; with every axis within bounds |a|² is never NaN);
      //    vertical². `events`: such a sample, or one that may end the
      //    current free-fall state (below 0.3 g while none is open, not
      //    below while one is, or too close to the threshold to say).
      let joltBelow = joltBounds.below
      // |a|² < maxA² (both rounded) puts every axis within ±maxA (x² ≤ |a|²
      // before rounding, and rounding keeps the order); at or above it, or
      // NaN, the per-sample path checks each axis.
      let maxA = configuration.maximumAccelerationMetersPerSecondSquared
      let maxASquared = maxA * maxA
      let (fallBelow, fallAtOrAbove) = (fallBounds.below, fallBounds.atOrAbove)
      let falling = fallStart != nil
      var events = 0
      var lastSeconds = -Double.infinity
      for k in 0..<m {
        let s = p[k]
        lastSeconds = s.seconds
        let dynamicSquared = Self.squaredLength(s.x - gx[k], s.y - gy[k], s.z - gz[k])
        verticalSquared[k] = Self.verticalSquared(
          s.x - lx[k], s.y - ly[k], s.z - lz[k], along: gx[k], gy[k], gz[k])
        let m2 = Self.squaredLength(s.x, s.y, s.z)
        let jolt = flaw(dynamicSquared < joltBelow) | flaw(m2 < maxASquared)
        magnitudeSquared[k] = jolt == 0 ? m2 : .nan
        events |= jolt | (falling ? flaw(m2 < fallBelow) : flaw(m2 >= fallAtOrAbove))
      }

      // 3. In order: the bins, and the free-fall runs, up to a possible jolt.
      var sum = binSumOfSquares
      var n = binCount
      var binEnd = self.binEnd
      var taken = m
      if events == 0 && lastSeconds < binEnd {
        // The times increase through the block: all of it falls in the open
        // bin, so the sum goes on without a bin test per sample.
        for k in 0..<m { sum += verticalSquared[k] }
        n += m
      } else if events == 0 {
        for k in 0..<m {
          addToBin(p[k].seconds, verticalSquared[k], &sum, &n, &binEnd)
        }
      } else {
        let freeFall = configuration.freeFallMetersPerSecondSquared
        let endsBefore =
          configuration.freeFallEndsBeforeJoltSeconds + ImpactConfiguration.timeToleranceSeconds
        var fallStart = self.fallStart
        for k in 0..<m {
          let m2 = magnitudeSquared[k]
          guard !m2.isNaN else {
            taken = k
            break
          }
          let t = p[k].seconds
          addToBin(t, verticalSquared[k], &sum, &n, &binEnd)
          let below = m2 < fallBelow || (m2 < fallAtOrAbove && hearth_sqrt(m2) < freeFall)
          if below {
            if fallStart == nil { fallStart = t }
          } else if let start = fallStart {
            falls.add(end: t, length: t - start, keepingSince: t - endsBefore)
            fallStart = nil
          }
        }
        self.fallStart = fallStart
      }
      (binSumOfSquares, binCount) = (sum, n)
      if taken == m {
        (gravityX, gravityY, gravityZ) = (x0, y0, z0)
        (lowPassX, lowPassY, lowPassZ) = (x1, y1, z1)
      } else {
        (gravityX, gravityY, gravityZ) = (gx[taken], gy[taken], gz[taken])
        (lowPassX, lowPassY, lowPassZ) = (lx[taken], ly[taken], lz[taken])
      }
      if taken > 0 {
        accelerometerSeconds = p[taken - 1].seconds
        advance(accelerometerSeconds)
      }
      return taken
    }
  }

  /// Adds vertical² of the sample at `t` to the open bin, whose sum, count
  /// and end the block path keeps in locals; a time past the open bin first
  /// closes it and opens the one holding `t` (``openBin(at:)``).
  @inline(__always)
  private mutating func addToBin(
    _ t: Double, _ squared: Double, _ sum: inout Double, _ n: inout Int, _ end: inout Double
  ) {
    if t >= end {
      (binSumOfSquares, binCount) = (sum, n)
      openBin(at: t)
      (sum, n, end) = (binSumOfSquares, binCount, binEnd)
    }
    sum += squared
    n += 1
  }

  /// dt / (τ + dt): the weight of a new sample in an exponential average.
  @inline(__always)
  private static func smoothing(_ dt: Double, _ tau: Double) -> Double { dt / (tau + dt) }

  @inline(__always)
  private static func squaredLength(_ x: Double, _ y: Double, _ z: Double) -> Double { x * x + y * y + z * z }

  /// The square of v's component along g (0 when g is 0).
  @inline(__always)
  private static func verticalSquared(
    _ vx: Double, _ vy: Double, _ vz: Double, along gx: Double, _ gy: Double, _ gz: Double
  ) -> Double {
    let norm = hearth_sqrt(squaredLength(gx, gy, gz))
    let vertical = (vx * gx + vy * gy + vz * gz) / norm
    return norm > 0 ? vertical * vertical : 0
  }

  /// The most one-ulp steps ``openBin(at:)`` takes to find a bin's end.
  static let largestBinEndSteps = 64

  /// Closes the open bin and opens the one holding `t`: [k·L, end) with
  /// k = floor(t / L) and `end` the first time whose floor(· / L) exceeds k
  /// (found exactly, so membership is floor(t / L) to the last bit).
  private mutating func openBin(at t: Double) {
    if binCount > 0 {
      let (start, rms) = (binStart, (binSumOfSquares / Double(binCount)).squareRoot())
      var ring = binRing
      ringEntries.buffer.withUnsafeMutableBufferPointer { e in
        ring.appendRun(e.baseAddress) { $0.append(start, rms) }
      }
      binRing = ring
    }
    let length = configuration.vibrationBinSeconds
    let k = (t / length).rounded(.down)
    binStart = k * length
    var end = (k + 1) * length
    // A few steps of one ulp each (the product is off by at most a few);
    // bounded all the same, so no value can make the walk endless (a
    // quotient that overflowed did, before the time bound was capped).
    var steps = 0
    while (end / length).rounded(.down) <= k && steps < Self.largestBinEndSteps {
      end = end.nextUp
      steps += 1
    }
    while (end.nextDown / length).rounded(.down) > k && steps < Self.largestBinEndSteps {
      end = end.nextDown
      steps += 1
    }
    binEnd = end
    binSumOfSquares = 0
    binCount = 0
  }

  // MARK: The verdict

  /// Decides the waiting jolts in order while the first one can be decided
  /// (`force`: with whatever data there are).
  private mutating func decideReady(_ verdicts: inout [ImpactVerdict], force: Bool = false) {
    let c = configuration
    let tolerance = ImpactConfiguration.timeToleranceSeconds
    while let first = pending.first {
      if let report = lastReport, first.joltSeconds - report.joltSeconds < c.suppressionSeconds - tolerance {
        // Once its peak window is complete, so that the peak it quotes is
        // the same however the samples were batched.
        let peakEnd = first.joltSeconds + c.joltPeakWindowSeconds
        let peakComplete = peakEnd + tolerance
        guard force || accelerometerSeconds >= peakComplete || dataSeconds >= peakComplete + c.lateDataSeconds
        else {
          break
        }
        verdicts.append(
          ImpactVerdict(
            outcome: .suppressed, joltSeconds: first.joltSeconds,
            decidedSeconds: max(peakEnd, report.decidedSeconds), usedGPS: false,
            conditions: [
              ImpactCondition(
                .jolt, held: true, measured: first.peak, threshold: c.joltMetersPerSecondSquared,
                note:
                  "within \(c.suppressionSeconds) s of the impact reported at \(short(report.joltSeconds)) s")
            ]))
        pending.removeFirst()
        continue
      }
      guard let m = measure(first, force: force) else { break }
      let verdict = ImpactVerdict(m, under: c)
      if m.truncated { counters.truncatedWindows += 1 }
      if verdict.outcome == .possibleImpact { lastReport = (first.joltSeconds, m.decidedSeconds) }
      verdicts.append(verdict)
      pending.removeFirst()
    }
    nextCheckSeconds = pending.isEmpty ? .infinity : dataSeconds + ImpactConfiguration.checkIntervalSeconds
  }

  /// The closed bins, then the open one, with from ≤ start ≤ to.
  private func binValues(from: Double, to: Double, whole: Bool) -> [Double] {
    let length = configuration.vibrationBinSeconds
    var out: [Double] = []
    bins.visit(from: from, to: to) { start, rms in if !whole || start + length <= to { out.append(rms) } }
    if binCount > 0 && binStart >= from && binStart <= to && (!whole || binStart + length <= to) {
      out.append((binSumOfSquares / Double(binCount)).squareRoot())
    }
    return out
  }

  /// What the windows of `candidate` hold, once each is complete (a stream
  /// is complete up to x once it has a sample at or after x, or any stream
  /// is `lateDataSeconds` past x); nil while one is not. `force`: now.
  private func measure(_ candidate: Candidate, force: Bool) -> ImpactMeasurement? {
    let c = configuration
    let t = candidate.joltSeconds
    // "Moving before" (the median over the seconds before) is read at the
    // incident's first jolt (a crash's later blows do not find the car
    // already slowed); "moving at the jolt" and "stopped after" at this
    // jolt. So a loose phone's knocks in the seconds before a crash, chained
    // into one incident, do not put the crash's stop window on them while
    // the car still drove (a missed crash), and a knock after the car has
    // stopped, chained to one while it drove, is not moving at its jolt (a
    // false alarm): both found by reviews.
    let a = candidate.incidentSeconds
    let late = c.lateDataSeconds
    let data = dataSeconds
    // Every closed end read half a millisecond wider (see
    // `ImpactConfiguration.timeToleranceSeconds`): `e` before a start, after an end.
    let e = ImpactConfiguration.timeToleranceSeconds
    // Complete up to a window's (widened) end.
    func complete(_ clock: Double, _ end: Double) -> Bool {
      force || clock >= end + e || data >= end + e + late
    }
    guard complete(accelerometerSeconds, t + c.joltPeakWindowSeconds),
      complete(gyroscopeSeconds, t + c.spinToSeconds),
      complete(barometerSeconds, t + c.pressureAfterSeconds), complete(fixSeconds, t)
    else { return nil }
    let atJolt = (from: t - c.currentFixAgeSeconds - e, to: t + c.movingAtJoltToSeconds + e)
    let before = (from: a + c.movingFromSeconds - e, to: a + c.movingToSeconds + e)
    // GPS speaks for "moving before" only with a fix in both of its windows
    // (the median's and the one at the jolt); otherwise the vibration does.
    let current =
      speeds.last(from: atJolt.from, to: atJolt.to) != nil
      && speeds.last(from: before.from, to: before.to) != nil
    // Before the windows' medians (most of a look's cost, and a pending jolt
    // is looked at every batch): waits that end in nil below whatever the
    // windows hold. With a current fix, both ways the GPS stop is read wait
    // for the fixes to be complete up to a + the stay (a rest comes after a:
    // its end is no earlier) or up to a + the rest window; without one, the
    // vibration stop waits for its first window.
    if current {
      guard complete(fixSeconds, min(t + c.stayStoppedSeconds, t + c.restWithinSeconds)) else { return nil }
    } else if !force && vibrationStopWaits(t) {
      return nil
    }
    var decided = max(t + c.joltPeakWindowSeconds, t + c.spinToSeconds, t + c.pressureAfterSeconds)
    let vibrationBefore = median(
      binValues(from: a + c.vibrationMovingFromSeconds, to: a + c.vibrationMovingToSeconds, whole: true))
    var m = ImpactMeasurement(
      joltSeconds: t, incidentSeconds: a, peakMetersPerSecondSquared: candidate.peak,
      clipped: candidate.clipped,
      movingSource: current ? .gps : .vibration, speedBeforeMetersPerSecond: .nan,
      speedAtJoltMetersPerSecond: .nan, vibrationBeforeMetersPerSecondSquared: vibrationBefore,
      vibrationAtJoltMetersPerSecondSquared: median(
        binValues(
          from: t + c.vibrationMovingAtJoltFromSeconds, to: t + c.vibrationMovingAtJoltToSeconds, whole: true)
      ),
      stopSource: .vibration, stopped: false, stopReason: "", restAfterSeconds: .nan,
      fastestAfterRestMetersPerSecond: .nan, fixesAfterRest: 0, vibrationStopRatio: .nan,
      spinPeakRadiansPerSecond: spin.maximum(from: t + c.spinFromSeconds - e, to: t + c.spinToSeconds + e)
        ?? .nan,
      pressureRiseHectopascals: (pressure.maximum(from: t - e, to: t + c.pressureAfterSeconds + e) ?? .nan)
        - median(
          pressure.values(
            from: t + c.pressureBaselineFromSeconds - e, to: t + c.pressureBaselineToSeconds + e)),
      freeFallSeconds: candidate.freeFallSeconds, decidedSeconds: .nan,
      truncated: candidate.fallsTruncated || spin.truncated(from: t + c.spinFromSeconds - e)
        || pressure.truncated(from: t + c.pressureBaselineFromSeconds - e)
        || bins.truncated(from: a + min(c.vibrationMovingFromSeconds, c.vibrationMovingAtJoltFromSeconds)))
    var needVibration = !current
    if current {
      m.speedBeforeMetersPerSecond = median(speeds.values(from: before.from, to: before.to))
      m.speedAtJoltMetersPerSecond = speeds.last(from: atJolt.from, to: atJolt.to)?.1 ?? .nan
      m.truncated = m.truncated || speeds.truncated(from: min(before.from, atJolt.from))
      // GPS decides the stop only on evidence.
      let restEnd = t + c.restWithinSeconds
      if let rest = speeds.first(from: t.nextUp, to: restEnd + e, where: { $1 <= c.stoppedMetersPerSecond }) {
        let stayEnd = rest.0 + c.stayStoppedSeconds
        guard complete(fixSeconds, stayEnd) else { return nil }
        let after = speeds.values(from: rest.0.nextUp, to: stayEnd + e)
        let fastest = after.max() ?? .nan
        let over = after.count { $0 > c.stoppedMetersPerSecond }
        m.restAfterSeconds = rest.0 - t
        m.fastestAfterRestMetersPerSecond = fastest
        m.fixesAfterRest = after.count
        decided = max(decided, stayEnd)
        if fastest > c.movingAgainMetersPerSecond {
          (m.stopSource, m.stopped) = (.gps, false)
          m.stopReason = "moving again after the rest (a fix over \(c.movingAgainMetersPerSecond) m/s)"
        } else if after.count >= c.stayStoppedMinimumFixes && 2 * over > after.count {
          (m.stopSource, m.stopped) = (.gps, false)
          m.stopReason =
            "moving again after the rest (\(over) of \(after.count) fixes over \(c.stoppedMetersPerSecond) m/s)"
        } else if over > 0 {
          needVibration = true
          m.stopReason =
            "GPS could not decide (\(over) of \(after.count) fixes after the rest over \(c.stoppedMetersPerSecond) m/s, none over \(c.movingAgainMetersPerSecond) m/s): the vibration half rule decided"
        } else if after.count >= c.stayStoppedMinimumFixes {
          (m.stopSource, m.stopped) = (.gps, true)
        } else {
          needVibration = true
          m.stopReason =
            "GPS could not decide (\(after.count) fixes after the rest, \(c.stayStoppedMinimumFixes) needed): the vibration half rule decided"
        }
      } else {
        guard complete(fixSeconds, restEnd) else { return nil }
        decided = max(decided, restEnd)
        if let moving = speeds.last(from: restEnd - c.currentFixAgeSeconds - e, to: restEnd + e) {
          (m.stopSource, m.stopped) = (.gps, false)
          m.stopReason =
            "no rest within \(c.restWithinSeconds) s: \(short(moving.1)) m/s \(short(moving.0 - t)) s after"
        } else {
          needVibration = true
          let why =
            speeds.last(from: t.nextUp, to: restEnd + e) == nil
            ? "no measured speed after the jolt"
            : "no measured speed in the last \(c.currentFixAgeSeconds) s of the rest window"
          m.stopReason = "GPS could not decide (\(why)): the vibration half rule decided"
        }
      }
    } else {
      m.stopReason = "no GPS fix current at the jolt: the vibration half rule decided"
    }
    if needVibration {
      guard let stop = vibrationStop(t, before: vibrationBefore, force: force) else { return nil }
      (m.stopSource, m.stopped, m.vibrationStopRatio) = (.vibration, stop.held, stop.ratio)
      decided = max(decided, stop.end)
    }
    m.decidedSeconds = decided
    return m
  }

  /// Whether the accelerometer's data are complete up to the end of a
  /// vibration-stop window (it has a sample there, or any stream is the late
  /// data's seconds past it).
  private func windowComplete(_ windowEnd: Double) -> Bool {
    accelerometerSeconds >= windowEnd || dataSeconds >= windowEnd + configuration.lateDataSeconds
  }

  /// Whether ``vibrationStop(_:before:force:)`` (not forced) returns nil at
  /// its first window, whatever the bins hold: the same first start, the
  /// same tests, in the same order.
  private func vibrationStopWaits(_ t: Double) -> Bool {
    let c = configuration
    let length = c.vibrationBinSeconds
    let first = ((t + c.vibrationStopEarliestStartSeconds) / length).rounded(.up)
    let span = (c.vibrationStopLatestStartSeconds - c.vibrationStopEarliestStartSeconds) / length
    guard span >= 0 else { return false }
    let k = first + Double(0)
    guard k * length <= t + c.vibrationStopLatestStartSeconds else { return false }
    return !windowComplete((k + Double(c.vibrationStopBinCount)) * length)
  }

  /// The vibration stop: the first window of `vibrationStopWindowSeconds`
  /// starting on a bin within [t + earliest, t + latest] whose bins are all
  /// there (a gap skips the window) and whose median is at most the fraction
  /// of `before`; `ratio` is its ratio (else the lowest), `end` the data time
  /// that settles it. nil while a window it needs is incomplete.
  private func vibrationStop(_ t: Double, before: Double, force: Bool) -> (
    held: Bool, ratio: Double, end: Double
  )? {
    let c = configuration
    let length = c.vibrationBinSeconds
    let n = c.vibrationStopBinCount
    let first = ((t + c.vibrationStopEarliestStartSeconds) / length).rounded(.up)
    var lowest = Double.nan
    var end = t + c.vibrationStopEarliestStartSeconds
    // The candidate starts are bins first, first + 1, … while on or before
    // the latest start: counted in integers (at most the configured span in
    // bins, a validated configuration keeps it ≤ 2 400), so the loop ends
    // even where a time is too large for k + 1 to differ from k.
    let span = (c.vibrationStopLatestStartSeconds - c.vibrationStopEarliestStartSeconds) / length
    let starts = span >= 0 ? Int(min(span, 1e6).rounded(.down)) + 2 : 0
    for i in 0..<starts {
      let k = first + Double(i)
      guard k * length <= t + c.vibrationStopLatestStartSeconds else { break }
      let windowEnd = (k + Double(n)) * length
      guard force || windowComplete(windowEnd) else { return nil }
      end = windowEnd
      let window = binValues(from: k * length, to: windowEnd.nextDown, whole: false)
      if window.count == n {
        let ratio = median(window) / before
        if lowest.isNaN || ratio < lowest { lowest = ratio }
        if ratio <= c.vibrationStoppedFraction { return (true, ratio, windowEnd) }
      }
    }
    return (false, lowest, end)
  }
}

/// Where a squared length q settles `√q ≥ threshold` (IEEE square root,
/// correctly rounded) without taking the root: below ``below`` the root is
/// below the threshold, at or above ``atOrAbove`` it is not; between them
/// (a relative band of about ±2⁻²⁰ around threshold²) only the root can say.
/// For a threshold² that is normal the bounds are threshold² × (1 ∓ 2⁻²⁰):
/// q < threshold²(1 − 2⁻²⁰)(1 + 2⁻⁵³)² gives √q < threshold(1 − 2⁻²²), whose
/// rounding (at most 2⁻⁵³ relative) stays below the threshold, and the other
/// side alike. Otherwise (a threshold of 0, or so small or large that its
/// square is not normal) nothing is settled: 0 and +∞. NaN is never below
/// either bound, so it always goes to the root.
struct RootBounds: Sendable {
  let below: Double
  let atOrAbove: Double

  init(_ threshold: Double) {
    let square = threshold * threshold
    if square.isNormal {
      below = square * (1 - 0x1p-20)
      atOrAbove = square * (1 + 0x1p-20)
    } else {
      below = 0
      atOrAbove = .infinity
    }
  }
}

/// 0 when `ok` holds, else 1: tests joined with `|` instead of `||` need no
/// branch each, so a loop of them can vectorise.
@inline(__always)
func flaw(_ ok: Bool) -> Int { ok ? 0 : 1 }

/// `x` rounded to the millisecond, for explanations.
func short(_ x: Double) -> Double { x.isFinite ? (x * 1000).rounded() / 1000 : x }

/// The free-fall runs that may still end "just before" a jolt: those ending
/// within the last `freeFallEndsBeforeJoltSeconds`, each longer than every
/// run after it (a shorter, older run can never be the longest), so the
/// first is the longest. Fixed capacity; overflowing it (more than 64 runs
/// in 0.3 s, a stream above 400 Hz) drops the oldest and says so.
struct FallRuns: Sendable {
  private static let capacity = 64
  private var ends = [Double](repeating: 0, count: FallRuns.capacity)
  private var lengths = [Double](repeating: 0, count: FallRuns.capacity)
  private var head = 0
  private var count = 0
  private var droppedEnd = -Double.infinity

  private func slot(_ i: Int) -> Int { (head + i) % Self.capacity }

  mutating func add(end: Double, length: Double, keepingSince since: Double) {
    while count > 0 && ends[slot(0)] < since {
      head = slot(1)
      count -= 1
    }
    while count > 0 && lengths[slot(count - 1)] <= length { count -= 1 }
    if count == Self.capacity {
      droppedEnd = ends[slot(0)]
      head = slot(1)
      count -= 1
    }
    ends[slot(count)] = end
    lengths[slot(count)] = length
    count += 1
  }

  /// The longest run ending at or after `since` (0: none).
  func longest(since: Double) -> Double {
    for i in 0..<count where ends[slot(i)] >= since { return lengths[slot(i)] }
    return 0
  }

  /// Whether a run ending at or after `since` may have been dropped.
  func truncated(since: Double) -> Bool { droppedEnd >= since }
}
