/// SPEC §6 thinning and the driving gate, as the phone applies them to the
/// fixes its OS hands over.
public struct ThinningRules: Sendable, Hashable, Codable {
  /// Off the road: keep a fix once the phone moved this far from the last
  /// kept one, m (the tracker's distance filter).
  public var distanceFilterMeters = 60.0
  /// Near-duplicates: closer than this in time (ms) and space (m) to the last kept fix.
  public var nearDuplicateMilliseconds: Int64 = 1_000
  public var nearDuplicateMeters = 1.0
  /// Driving: at most one fix per this long, ms (a fix up to 1/40 of it
  /// early still counts: ``drivingIntervalEarliestMilliseconds``)…
  public var drivingIntervalMilliseconds: Int64 = 10_000
  /// …and a distance gate in steps of this many metres: the largest step
  /// strictly below `gateFraction` of the distance covered in the interval.
  public var gateStepMeters = 50.0
  public var gateFraction = 0.9
  /// Without the OS classifier a drive starts at this speed, m/s ("road speed").
  public var driveStartMetersPerSecond = 6.0
  /// A drive ends after this long crawling (below road speed), ms.
  public var crawlEndsDriveMilliseconds: Int64 = 3 * 60_000

  /// A fix with no measured speed (SPEC §1: iOS's −1, Android's 0 on a fix
  /// looser than 30 m, NaN) is judged by the least speed it and an earlier
  /// fix prove, when that fix is at most this long before it, ms; it is
  /// never measured from further back (an hour's average says nothing about
  /// the speed now).
  public static let speedNeighbourMilliseconds: Int64 = 60_000
  /// A fix without a speed is judged only against a fix at least this long
  /// before it, ms (over 1 s, two fixes 5 m accurate show nothing below
  /// 10 m/s, and a still phone's scatter can look like a drive). The fixes
  /// kept to judge by are this far apart: a fix becomes the neighbour once
  /// it is this long after the last one, which becomes the earlier fix, so
  /// for a phone's 1 Hz feed a fix is judged against one 10 to 20 s back.
  public static let speedBaselineMilliseconds: Int64 = 10_000

  public init() {}

  /// The least time after the last kept fix at which a driving fix may be
  /// kept, ms: the interval less 1/40 of it (9 750 ms of the default 10 s).
  /// A phone's 10 s feed is stamped with tens of milliseconds of jitter; on
  /// the exact interval, every fix that came a millisecond early was
  /// dropped and the next kept 20 s on, half of a steady drive lost (SPEC §6:
  /// every fix of a steady drive is kept). A 1 Hz feed still keeps one fix
  /// in ten. O(1).
  public var drivingIntervalEarliestMilliseconds: Int64 {
    drivingIntervalMilliseconds - drivingIntervalMilliseconds / 40
  }

  /// The driving gate's distance at `speed` m/s: 50 m steps strictly below
  /// 0.9 × the distance covered in 10 s (50 km/h → 100 m, 70 → 150,
  /// 100 → 200; 0 below 20 km/h).
  public func gateMeters(atMetersPerSecond speed: Double) -> Double {
    let covered = gateFraction * speed * Double(drivingIntervalMilliseconds) / 1000
    guard covered > gateStepMeters else { return 0 }
    return gateStepMeters * ((covered / gateStepMeters).rounded(.up) - 1)
  }
}

/// What thinning did with one fix.
public struct ThinningDecision: Sendable, Hashable, Codable {
  public enum Reason: String, Sendable, Hashable, Codable {
    case first
    case nearDuplicate
    case withinDistanceFilter
    case movedDistanceFilter
    case drivingTooSoon
    case drivingWithinGate
    case drivingGatePassed
    /// The first fix below road speed in a drive is kept whatever the gate says.
    case firstOffRoadSpeed
    /// Not a position (a latitude or longitude out of range or not finite):
    /// dropped, and it changes nothing (as the last kept fix it would have
    /// made every later distance NaN, and nothing was kept again).
    case notAPosition
  }
  public var kept: Bool
  public var reason: Reason
  /// Whether the phone counts as driving after this fix.
  public var driving: Bool
}

/// The thinning state machine (one phone). A plain, `Codable` value.
public struct Thinner: Sendable, Hashable, Codable {
  public var rules: ThinningRules
  private struct Kept: Sendable, Hashable, Codable {
    var time: Int64
    var latitude: Double
    var longitude: Double
  }
  private var lastKept: Kept?
  /// Fixes offered before (kept or not; since the clock last stepped back),
  /// for deriving the speed of a fix that has none measured: the first one
  /// at least ``ThinningRules/speedBaselineMilliseconds`` after `earlier`,
  /// and `earlier` (the neighbour before it).
  private var neighbour: Neighbour?
  private var earlier: Neighbour?
  private struct Neighbour: Sendable, Hashable, Codable {
    var time: Int64
    var latitude: Double
    var longitude: Double
    /// m; nil when the fix gave none that is a finite number ≥ 0.
    var accuracy: Double?
  }
  private var driving = false
  private var atRoadSpeed = false
  private var crawlingSince: Int64?
  /// Whether the clock stepped back (a state saved before it was kept
  /// seeds it from its last kept fix).
  private var steps = ClockStepBack()

  private enum CodingKeys: String, CodingKey {
    case rules, lastKept, neighbour, earlier, driving, atRoadSpeed, crawlingSince, steps
  }

  public init(rules: ThinningRules = ThinningRules()) { self.rules = rules }

  /// A saved thinner; one saved before `steps` or the neighbours were kept
  /// reads as before (with no neighbour, the speed of the next fix without
  /// a measured one is unknown).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    rules = try c.decode(ThinningRules.self, forKey: .rules)
    lastKept = try c.decodeIfPresent(Kept.self, forKey: .lastKept)
    neighbour = try c.decodeIfPresent(Neighbour.self, forKey: .neighbour)
    earlier = try c.decodeIfPresent(Neighbour.self, forKey: .earlier)
    driving = try c.decode(Bool.self, forKey: .driving)
    atRoadSpeed = try c.decode(Bool.self, forKey: .atRoadSpeed)
    crawlingSince = try c.decodeIfPresent(Int64.self, forKey: .crawlingSince)
    // A thinner saved before the detector was kept: its newest fix is the
    // last one kept (so a step back across the upgrade is still seen).
    steps =
      try c.decodeIfPresent(ClockStepBack.self, forKey: .steps)
      ?? ClockStepBack(newestMilliseconds: lastKept?.time ?? .min)
  }

  public var isDriving: Bool { driving }

  /// Decides one fix (time order; two fixes in a row dated before the newest
  /// are the clock stepping back, and the driving interval counts again from
  /// the step; one late fix does not move it). `classifierSaysDriving`: the OS activity
  /// verdict when there is one (nil: decide by speed alone); it can start a
  /// drive, but a single "not driving" verdict does not end one (SPEC §6: a
  /// drive ends after 3 min of crawling below road speed, or when the phone
  /// parks). `phoneParked`: the parking detector's verdict for this fix
  /// (``ParkingDetector``); a parked phone is not driving. A fix with no
  /// measured speed (nil, negative, or Android's 0 on a fix looser than
  /// 30 m: ``SpeedReading``) is judged against an earlier fix 10 to 60 s
  /// before it (``ThinningRules/speedBaselineMilliseconds``,
  /// ``ThinningRules/speedNeighbourMilliseconds``): at road speed when the
  /// least speed the two show is, below it when the most is not; a drive
  /// starts only at road speed, leaves it only when shown below it, and
  /// crawls on anything less than road speed; with no such earlier fix the
  /// fix starts no drive and no crawl. O(1).
  public mutating func offer(
    _ fix: Fix, classifierSaysDriving: Bool? = nil, phoneParked: Bool = false
  ) -> ThinningDecision {
    offer(
      time: fix.timeMilliseconds, latitude: fix.latitudeDegrees, longitude: fix.longitudeDegrees,
      accuracy: fix.horizontalAccuracyMeters, speed: fix.speedMetersPerSecond ?? .nan,
      classifierSaysDriving: classifierSaysDriving, phoneParked: phoneParked)
  }

  /// The batch form: every decision for `fixes` in order, identical to
  /// offering them one by one. O(n).
  public mutating func offer(_ fixes: FixColumns) -> [ThinningDecision] {
    let time = fixes.timeMilliseconds
    let latitude = fixes.latitudeDegrees
    let longitude = fixes.longitudeDegrees
    let accuracy = fixes.horizontalAccuracyMeters
    let speed = fixes.speedMetersPerSecond
    return (0..<fixes.count).map { i in
      offer(
        time: time[i], latitude: latitude[i], longitude: longitude[i], accuracy: accuracy[i], speed: speed[i],
        classifierSaysDriving: nil, phoneParked: false)
    }
  }

  /// The rule on plain values (`speed`: the platform's reading, m/s; NaN
  /// when the phone gave none; `accuracy`: m, NaN when unknown).
  @inline(__always)
  private mutating func offer(
    time: Int64, latitude: Double, longitude: Double, accuracy: Double, speed reading: Double,
    classifierSaysDriving: Bool?, phoneParked: Bool
  ) -> ThinningDecision {
    guard abs(latitude) <= 90, abs(longitude) <= 180 else {  // false for NaN too
      return ThinningDecision(kept: false, reason: .notAPosition, driving: driving)
    }
    // Two fixes in a row dated before the newest (``ClockStepBack``): the
    // clock stepped back, and the driving interval counts again from the
    // step (before, every fix was "too soon" until the clock caught up: a
    // step back of an hour dropped an hour of driving). One late fix does
    // not move it. Neighbours from before the step are none.
    if let back = steps.offer(time) {
      steppedBack(to: back)
      (neighbour, earlier) = (nil, nil)
    }
    // A positive finite reading is a measured speed (``SpeedReading``); any
    // other is read there and, when unmeasured, derived (nil: unknown).
    let speed: Double?
    let road: RoadSpeed
    if reading > 0 && reading.isFinite {
      (speed, road) = (reading, reading >= rules.driveStartMetersPerSecond ? .at : .below)
    } else {
      (speed, road) = speedFromAnyOtherReading(reading, time, latitude, longitude, accuracy)
    }
    if neighbour.map({ time.saturatingSubtract($0.time) >= ThinningRules.speedBaselineMilliseconds }) ?? true
    {
      earlier = neighbour
      neighbour = Neighbour(
        time: time, latitude: latitude, longitude: longitude,
        accuracy: accuracy >= 0 && accuracy.isFinite ? accuracy : nil)
    }
    // Drive start and end: only road speed starts a drive (or the
    // classifier); anything short of it runs the crawl, except a fix that
    // says nothing, which only lets a crawl already running end the drive.
    if phoneParked {
      driving = false
      crawlingSince = nil
    } else if !driving && (classifierSaysDriving ?? (road == .at)) {
      driving = true
      crawlingSince = nil
    } else if driving {
      if road == .at {
        crawlingSince = nil
      } else if let since = road == .unknown ? crawlingSince : crawlingSince ?? time {
        crawlingSince = since
        if time.saturatingSubtract(since) >= rules.crawlEndsDriveMilliseconds { driving = false }
      }
    }
    // Left road speed only when shown to be below it; unproven keeps the state.
    let leftRoadSpeed = driving && atRoadSpeed && road == .below
    atRoadSpeed = driving && (road == .at || (road != .below && atRoadSpeed))
    guard let last = lastKept else { return keep(time, latitude, longitude, .first) }
    let elapsed = time.saturatingSubtract(last.time)
    // The separation from the last kept fix is measured only when a rule
    // needs it, at most once per fix (the near-duplicate check and a filter
    // after it read the same one), and compared with each threshold exactly
    // as the distance would be, mostly without computing the distance.
    var measured: GreatCircle.Separation?
    if elapsed < rules.nearDuplicateMilliseconds {
      let moved = separation(from: last, latitude, longitude)
      if moved.isBelow(rules.nearDuplicateMeters) {
        return ThinningDecision(kept: false, reason: .nearDuplicate, driving: driving)
      }
      measured = moved
    }
    if leftRoadSpeed { return keep(time, latitude, longitude, .firstOffRoadSpeed) }
    if driving {
      guard elapsed >= rules.drivingIntervalEarliestMilliseconds else {
        return ThinningDecision(kept: false, reason: .drivingTooSoon, driving: driving)
      }
      let moved = measured ?? separation(from: last, latitude, longitude)
      guard moved.isAtLeast(rules.gateMeters(atMetersPerSecond: speed ?? 0)) else {
        return ThinningDecision(kept: false, reason: .drivingWithinGate, driving: driving)
      }
      return keep(time, latitude, longitude, .drivingGatePassed)
    }
    let moved = measured ?? separation(from: last, latitude, longitude)
    guard moved.isAtLeast(rules.distanceFilterMeters) else {
      return ThinningDecision(kept: false, reason: .withinDistanceFilter, driving: driving)
    }
    return keep(time, latitude, longitude, .movedDistanceFilter)
  }

  /// What a fix says about road speed: at it, below it, neither shown
  /// (`unproven`: the fixes allow both), or nothing (`unknown`: no fix far
  /// enough back to judge by).
  private enum RoadSpeed { case at, below, unproven, unknown }

  /// The speed of a fix whose reading is not a positive finite number, m/s,
  /// and what it says about road speed. Where ``SpeedReading`` takes the
  /// reading as measured, the reading. Else it is derived from an earlier
  /// fix (SPEC §1), `earlier` when it is usable, else `neighbour`: usable
  /// when it is ``ThinningRules/speedBaselineMilliseconds`` to
  /// ``ThinningRules/speedNeighbourMilliseconds`` before this one (over
  /// less, a phone standing still among its own scatter can look like a
  /// drive) and both accuracies are finite numbers ≥ 0. Each fix may lie up
  /// to its accuracy off, so the two show a speed of at least (distance −
  /// both accuracies) / time (never below 0; that is the speed) and at most
  /// (distance + both accuracies) / time: at road speed when the least is,
  /// below it when the most is not, unproven in between. With no usable
  /// fix the speed is nil and road speed unknown. O(1). Outlined: most
  /// fixes carry a speed.
  @inline(never)
  private func speedFromAnyOtherReading(
    _ reading: Double, _ time: Int64, _ latitude: Double, _ longitude: Double, _ accuracy: Double
  ) -> (speed: Double?, road: RoadSpeed) {
    let roadSpeed = rules.driveStartMetersPerSecond
    if let measured = SpeedReading.speedMetersPerSecond(raw: reading, horizontalAccuracyMeters: accuracy) {
      return (measured, measured >= roadSpeed ? .at : .below)
    }
    guard accuracy >= 0, accuracy.isFinite else { return (nil, .unknown) }
    func usable(_ n: Neighbour?) -> (Neighbour, Double, Int64)? {
      guard let n, let neighbourAccuracy = n.accuracy else { return nil }
      let interval = time.saturatingSubtract(n.time)
      guard interval >= ThinningRules.speedBaselineMilliseconds,
        interval <= ThinningRules.speedNeighbourMilliseconds
      else { return nil }
      return (n, neighbourAccuracy, interval)
    }
    guard let (n, neighbourAccuracy, interval) = usable(earlier) ?? usable(neighbour) else {
      return (nil, .unknown)
    }
    let seconds = Double(interval) / 1000
    let distance = GreatCircle.distanceMeters(
      latitude1Degrees: n.latitude, longitude1Degrees: n.longitude, latitude2Degrees: latitude,
      longitude2Degrees: longitude)
    let least = max(0, distance - neighbourAccuracy - accuracy) / seconds
    let most = (distance + neighbourAccuracy + accuracy) / seconds
    return (least, least >= roadSpeed ? .at : most < roadSpeed ? .below : .unproven)
  }

  /// The clock stepped back to `back`: the interval since the last kept
  /// fix counts from it. (Not the crawl: two late fixes in a row look the
  /// same as a step, and a crawl counted from them would end a drive that
  /// has not crawled, review36; at worst a false step keeps one extra fix.)
  private mutating func steppedBack(to back: Int64) {
    if var last = lastKept, back < last.time {
      last.time = back
      lastKept = last
    }
  }

  @inline(__always)
  private func separation(from last: Kept, _ latitude: Double, _ longitude: Double) -> GreatCircle.Separation
  {
    GreatCircle.Separation(
      latitude1Degrees: last.latitude, longitude1Degrees: last.longitude, latitude2Degrees: latitude,
      longitude2Degrees: longitude)
  }

  private mutating func keep(
    _ time: Int64, _ latitude: Double, _ longitude: Double, _ reason: ThinningDecision.Reason
  ) -> ThinningDecision {
    lastKept = Kept(time: time, latitude: latitude, longitude: longitude)
    return ThinningDecision(kept: true, reason: reason, driving: driving)
  }
}
