/// SPEC §4 agreed speed: the speed quoted for a stretch is the fastest that
/// two neighbouring fixes agree on, never faster than the ground between
/// two sharp fixes allows. Trip cards, speed alerts and the sudden-stop check
/// all use it, so they never disagree.
///
/// Choices (docs/guides/speed-and-stops.md):
/// - Two neighbours agree on the slower of their measured speeds. A fix with
///   no measured speed contributes its ground speed from the other neighbour
///   (distance / time), so unmeasured speeds are derived.
/// - *Sharp* = accuracy ≤ 30 m (the same line that decides whether an
///   Android zero is a real stop). Between two sharp fixes the agreed speed
///   is capped at (distance + half the sum of the two accuracies) / time:
///   each fix may sit up to its accuracy off, and on average half of that
///   works against the cap.
/// - Pairs less than 0.5 s apart (duplicates, reordered uploads) agree on
///   nothing (nil).
/// - *Loose* fix: looser than `sharpAccuracyMeters` (or of unknown accuracy)
///   with no measured speed: a network estimate, whose position can be off by
///   its whole accuracy. A pair with a loose fix is a *loose pair*: its
///   ground speed is what the ground allows once both accuracies are taken
///   off, max(0, distance − accuracyA − accuracyB) / time (an unknown
///   accuracy takes nothing off), so two 150 m fixes 400 m apart agree on
///   0 m/s, not 48 km/h. Loose pairs say how fast the phone went at least;
///   they never count as over a speed limit, as cruising, or as a trip's
///   top speed (the speed alert, the sudden-stop check and trip cards read
///   `Source.loose` and leave such pairs out).
public struct AgreedSpeedRules: Sendable, Hashable, Codable {
  public var sharpAccuracyMeters = 30.0
  public var accuracyAllowanceFraction = 0.5
  public var minimumIntervalMilliseconds: Int64 = 500

  public init() {}
}

public enum AgreedSpeed {
  /// Where a pair's agreed speed came from.
  public enum Source: String, Sendable, Hashable, Codable {
    /// The slower of two measured speeds.
    case bothMeasured
    /// One measured, the other derived from the ground.
    case oneMeasured
    /// Neither measured: the ground speed.
    case ground
    /// Lowered to what the ground between two sharp fixes allows.
    case cappedByGround
    /// A loose pair (a fix looser than sharp with no measured speed): the
    /// ground with both accuracies taken off, never a speeding or cruising
    /// reading.
    case loose
  }

  /// Whether a fix is loose: no measured speed and accuracy worse than
  /// sharp (or unknown). O(1).
  @inline(__always)
  public static func isLoose(accuracyMeters: Double, speed: Double?, rules: AgreedSpeedRules) -> Bool {
    speed == nil && !(accuracyMeters <= rules.sharpAccuracyMeters)
  }

  /// The agreed speed of two neighbouring fixes (a before b), m/s, and where
  /// it came from; nil when they are too close in time to say.
  /// - Complexity: O(1): one great-circle distance.
  public static func pair(
    _ a: Fix, _ b: Fix, rules: AgreedSpeedRules = AgreedSpeedRules()
  ) -> (metersPerSecond: Double, source: Source)? {
    pair(
      timeA: a.timeMilliseconds, a.coordinate, a.horizontalAccuracyMeters, a.speedMetersPerSecond,
      timeB: b.timeMilliseconds, b.coordinate, b.horizontalAccuracyMeters, b.speedMetersPerSecond,
      rules: rules)
  }

  @inline(__always)
  static func pair(
    timeA: Int64, _ a: Coordinate, _ accuracyA: Double, _ speedA: Double?,
    timeB: Int64, _ b: Coordinate, _ accuracyB: Double, _ speedB: Double?, rules: AgreedSpeedRules
  ) -> (metersPerSecond: Double, source: Source)? {
    let interval = timeB.saturatingSubtract(timeA)
    guard interval >= rules.minimumIntervalMilliseconds else { return nil }
    return pair(
      intervalMilliseconds: interval, distanceMeters: GreatCircle.distanceMeters(from: a, to: b),
      accuracyA, speedA, accuracyB, speedB, rules: rules)
  }

  /// The rule itself, given the interval and the great-circle distance of
  /// the pair (so a batch can compute every distance in one vector pass).
  @inline(__always)
  static func pair(
    intervalMilliseconds interval: Int64, distanceMeters distance: Double,
    _ accuracyA: Double, _ speedA: Double?, _ accuracyB: Double, _ speedB: Double?, rules: AgreedSpeedRules
  ) -> (metersPerSecond: Double, source: Source)? {
    guard interval >= rules.minimumIntervalMilliseconds, distance.isFinite else { return nil }
    let seconds = Double(interval) / 1000
    if isLoose(accuracyMeters: accuracyA, speed: speedA, rules: rules)
      || isLoose(accuracyMeters: accuracyB, speed: speedB, rules: rules)
    {
      func allowance(_ accuracy: Double) -> Double { accuracy.isFinite && accuracy > 0 ? accuracy : 0 }
      let ground = max(0, distance - allowance(accuracyA) - allowance(accuracyB)) / seconds
      return (min(speedA ?? ground, speedB ?? ground, ground), .loose)
    }
    let ground = distance / seconds
    var speed: Double
    var source: Source
    switch (speedA, speedB) {
    case (let x?, let y?):
      (speed, source) = (min(x, y), .bothMeasured)
    case (let x?, nil), (nil, let x?):
      (speed, source) = (min(x, ground), .oneMeasured)
    case (nil, nil):
      (speed, source) = (ground, .ground)
    }
    if accuracyA <= rules.sharpAccuracyMeters && accuracyB <= rules.sharpAccuracyMeters {
      let cap = (distance + rules.accuracyAllowanceFraction * (accuracyA + accuracyB)) / seconds
      if speed > cap { (speed, source) = (cap, .cappedByGround) }
    }
    return (speed, source)
  }

  /// Whether `middle` is a stray fix: it has no measured speed, and it lies
  /// away from both its neighbours while they agree on where the phone was
  /// (an out-and-back in one fix). Its two pairs then agree on a speed from
  /// the ground alone, in and out again, that nothing measured: one fast
  /// reading, which SPEC §4 never lets count (and a parked phone's stray fix
  /// would otherwise cruise and stop, §5). Together: within `togetherMeters`
  /// + both neighbours' accuracies; away: further than `togetherMeters` +
  /// `middle`'s accuracy + the larger neighbour's accuracy from each (an
  /// unknown or non-positive accuracy adds nothing). The callers ask only
  /// about pairs already fast (over a limit, cruising).
  /// - Complexity: O(1): three great-circle distances compared with their
  ///   thresholds (``GreatCircle/Separation``: exact, mostly without computing
  ///   the distances). Outlined: asked rarely, and inlined it would swell the
  ///   engines' per-fix loops.
  @inline(never)
  static func isOutAndBack(
    _ before: TrackPoint, _ middle: TrackPoint, _ after: TrackPoint, togetherMeters: Double = 50
  ) -> Bool {
    guard middle.speed == nil else { return false }
    func allowance(_ accuracy: Double) -> Double { accuracy.isFinite && accuracy > 0 ? accuracy : 0 }
    let together = togetherMeters + allowance(before.accuracy) + allowance(after.accuracy)
    guard GreatCircle.Separation(before.coordinate, after.coordinate).isAtMost(together) else { return false }
    let away =
      togetherMeters + allowance(middle.accuracy) + max(allowance(before.accuracy), allowance(after.accuracy))
    return GreatCircle.Separation(before.coordinate, middle.coordinate).isAbove(away)
      && GreatCircle.Separation(middle.coordinate, after.coordinate).isAbove(away)
  }

  /// Per-pair agreed speeds of a track in time order: element i is the pair
  /// (i − 1, i); element 0 is nil. Identical to `pair` on each neighbour.
  /// - Complexity: O(n), see ``AgreedSpeedBatch``.
  public static func pairs(_ fixes: FixColumns, rules: AgreedSpeedRules = AgreedSpeedRules()) -> [Double?] {
    AgreedSpeedBatch(fixes, rules: rules).neighbourMetersPerSecond.map(measured)
  }

  /// A NaN-coded speed column value as an optional reading.
  @inline(__always)
  static func measured(_ metersPerSecond: Double) -> Double? { metersPerSecond.isNaN ? nil : metersPerSecond }

  /// The agreed speed of a stretch: the fastest of its pairs that are not
  /// loose (nil when none says anything). O(n).
  public static func stretch(_ fixes: FixColumns, rules: AgreedSpeedRules = AgreedSpeedRules()) -> Double? {
    let batch = AgreedSpeedBatch(fixes, rules: rules)
    return zip(batch.neighbourMetersPerSecond, batch.neighbourIsLoose).filter { !$0.0.isNaN && !$0.1 }
      .map(\.0).max()
  }
}

/// A batch of fixes with the agreed speed of every neighbouring pair,
/// computed once so the speed alert and the sudden-stop check can share it
/// (pass it to their `process`). `neighbourMetersPerSecond[i]` is the pair
/// (i − 1, i) in m/s, NaN when the pair agrees on nothing; element 0 is NaN;
/// `neighbourIsLoose[i]` says the pair is loose (``AgreedSpeed/Source/loose``).
/// Pairs of different people are computed too and never read.
///
/// Identical to ``AgreedSpeed/pair(_:_:rules:)`` on each neighbour: the
/// steps come from the track kernel (`GreatCircle.stepsMeters`), bit-identical
/// to the scalar distance.
/// - Complexity: O(n): one vectorised distance pass, then O(1) per pair.
public struct AgreedSpeedBatch: Sendable, Hashable {
  public let fixes: FixColumns
  public let rules: AgreedSpeedRules
  public let neighbourMetersPerSecond: [Double]
  public let neighbourIsLoose: [Bool]

  public init(_ fixes: FixColumns, rules: AgreedSpeedRules = AgreedSpeedRules()) {
    // The steps are measured into the speed column itself, then each is
    // replaced by its pair's speed (pair i reads step i only). Two
    // allocations per batch: the two columns.
    var out = [Double](repeating: 0, count: fixes.count)
    if fixes.count > 1 {
      var steps = out.mutableSpan
      GreatCircle.stepsMeters(
        latitudesDegrees: fixes.latitudeDegrees.span, longitudesDegrees: fixes.longitudeDegrees.span,
        steps: &steps)
    }
    self.fixes = fixes
    self.rules = rules
    neighbourIsLoose = Self.replaceStepsWithSpeeds(&out, fixes, rules)
    neighbourMetersPerSecond = out
  }

  /// The batch with its steps measured already: `steps[i]` is
  /// `GreatCircle.stepsMeters` of the fixes (i − 1, i), as the ingest
  /// pipeline measures them once for the geofence odometer and these
  /// speeds. Identical to ``init(_:rules:)``. O(n).
  init(_ fixes: FixColumns, rules: AgreedSpeedRules = AgreedSpeedRules(), steps: [Double]) {
    precondition(steps.count == fixes.count, "one step per fix")
    var out = steps
    self.fixes = fixes
    self.rules = rules
    neighbourIsLoose = Self.replaceStepsWithSpeeds(&out, fixes, rules)
    neighbourMetersPerSecond = out
  }

  /// Replaces each step `out[i]` (i ≥ 1) by the speed of the pair (i − 1, i),
  /// NaN when the pair agrees on nothing, and `out[0]` by NaN; returns
  /// which pairs are loose. O(n).
  private static func replaceStepsWithSpeeds(
    _ out: inout [Double], _ fixes: FixColumns, _ rules: AgreedSpeedRules
  ) -> [Bool] {
    let n = fixes.count
    var loose = [Bool](repeating: false, count: n)
    guard n > 1 else {
      for i in 0..<n { out[i] = .nan }
      return loose
    }
    fixes.timeMilliseconds.withUnsafeBufferPointer { time in
      fixes.horizontalAccuracyMeters.withUnsafeBufferPointer { accuracy in
        fixes.speedMetersPerSecond.withUnsafeBufferPointer { speed in
          out.withUnsafeMutableBufferPointer { out in
            loose.withUnsafeMutableBufferPointer { loose in
              out[0] = .nan
              for i in 1..<n {
                if let pair = AgreedSpeed.pair(
                  intervalMilliseconds: time[i].saturatingSubtract(time[i &- 1]), distanceMeters: out[i],
                  accuracy[i &- 1],
                  AgreedSpeed.measured(speed[i &- 1]), accuracy[i], AgreedSpeed.measured(speed[i]),
                  rules: rules)
                {
                  out[i] = pair.metersPerSecond
                  loose[i] = pair.source == .loose
                } else {
                  out[i] = .nan
                }
              }
            }
          }
        }
      }
    }
    return loose
  }

  /// The agreed speed from `previous` to fix `i` of this batch and whether
  /// the pair is loose: read from the neighbour speeds when `previous` is
  /// fix i − 1 (`previousIndex`), otherwise computed. Identical either way.
  /// - Complexity: O(1); the read is inlined into the engines' loops, the
  ///   computation (a pair across a gap or a batch edge) is out of line.
  @inline(__always)
  func speed(from previous: TrackPoint, at previousIndex: Int, to current: TrackPoint, at i: Int)
    -> (metersPerSecond: Double, loose: Bool)?
  {
    guard previousIndex == i - 1 else { return computedSpeed(from: previous, to: current) }
    let v = neighbourMetersPerSecond[i]
    return v.isNaN ? nil : (v, neighbourIsLoose[i])
  }

  /// ``speed(from:at:to:at:)`` of a pair that is not neighbours in the batch.
  @inline(never)
  func computedSpeed(from previous: TrackPoint, to current: TrackPoint) -> (
    metersPerSecond: Double, loose: Bool
  )? {
    AgreedSpeed.pair(
      timeA: previous.time, previous.coordinate, previous.accuracy, previous.speed, timeB: current.time,
      current.coordinate, current.accuracy, current.speed, rules: rules
    ).map { ($0.metersPerSecond, $0.source == .loose) }
  }

  /// This batch under `rules` (recomputed only when its rules differ).
  func under(_ rules: AgreedSpeedRules) -> AgreedSpeedBatch {
    rules == self.rules ? self : AgreedSpeedBatch(fixes, rules: rules)
  }
}

/// The part of a fix the speed rules remember between batches (`Codable`
/// inside the engines' states).
struct TrackPoint: Sendable, Hashable, Codable {
  var time: Int64
  var latitude: Double
  var longitude: Double
  var accuracy: Double
  /// m/s; nil = unmeasured.
  var speed: Double?

  var coordinate: Coordinate { Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude) }

  /// Fix `i` of `fixes`.
  @inline(__always)
  init(_ fixes: FixColumns, _ i: Int) {
    time = fixes.timeMilliseconds[i]
    latitude = fixes.latitudeDegrees[i]
    longitude = fixes.longitudeDegrees[i]
    accuracy = fixes.horizontalAccuracyMeters[i]
    speed = AgreedSpeed.measured(fixes.speedMetersPerSecond[i])
  }
}

extension FixColumns {
  /// Calls `body` for each run of consecutive fixes of one person, in
  /// order, so an engine looks a person's state up once per run. O(n).
  @inline(__always)
  func forEachPersonRun(_ body: (UserID, Range<Int>) -> Void) {
    var start = 0
    while start < count {
      let person = user[start]
      var end = start + 1
      while end < count && user[end] == person { end += 1 }
      body(person, start..<end)
      start = end
    }
  }
}
