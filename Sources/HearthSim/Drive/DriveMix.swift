import HearthGeo

/// Endless ordinary driving with events injected at random times, for
/// false-alarm soaks: drive after drive (5–30 min each, urban, highway,
/// rough roads, hills, roundabouts, traffic lights, emergency stops), every
/// one a `DrivePlan` generated only when asked for, so 1 000 h of driving
/// streams through constant memory.
///
/// Events are the catalogue's everyday jolts (potholes, loose-phone rattle,
/// speed bumps, door slams at stops, phone drops, a passenger handling the
/// phone, a load thumping the seatback under braking) at `eventsPerHour`;
/// crashes (frontal with airbags, side with spin) come at `crashesPerHour`
/// (0 for a pure soak). Each drive's labels give every event's absolute time
/// and expected verdict.
public struct DriveMix: Sendable {
  public struct Options: Sendable, Hashable, Codable {
    /// Total driving to generate, hours.
    public var hours: Double = 1000
    public var eventsPerHour: Double = 6
    public var crashesPerHour: Double = 0
    public init(hours: Double = 1000, eventsPerHour: Double = 6, crashesPerHour: Double = 0) {
      self.hours = hours
      self.eventsPerHour = eventsPerHour
      self.crashesPerHour = crashesPerHour
    }
  }

  /// One generated drive of the mix.
  public struct Drive: Sendable {
    /// Index in the mix and the seed its simulator uses.
    public var index: Int
    public var seed: UInt64
    /// Seconds since the mix began when this drive starts.
    public var startSeconds: Double
    public var plan: DrivePlan
    /// The injected events, times since the mix began.
    public var events: [MixEvent]

    /// A simulator streaming this drive's batches (times since the drive began).
    public func simulator() -> DriveSimulator { DriveSimulator(plan: plan, seed: seed) }
  }

  /// An injected event and what the detector should say about it.
  public struct MixEvent: Sendable, Hashable, Codable {
    /// Seconds since the mix began.
    public var atSeconds: Double
    /// The drive it happens in (`Drive.index`) and when, seconds since that
    /// drive began (its trace's clock).
    public var driveIndex: Int
    public var driveSeconds: Double
    public var kind: String
    public var expected: ExpectedVerdict

    public init(atSeconds: Double, driveIndex: Int, driveSeconds: Double, kind: String, expected: ExpectedVerdict) {
      self.atSeconds = atSeconds
      self.driveIndex = driveIndex
      self.driveSeconds = driveSeconds
      self.kind = kind
      self.expected = expected
    }
  }

  public let options: Options
  public let seed: UInt64
  private var draws: Gaussian
  private var produced = 0.0
  private var index = 0

  public init(seed: UInt64, options: Options = Options()) {
    self.seed = seed
    self.options = options
    draws = Gaussian(seed: seed ^ 0xD21_7E_0417)
  }

  /// The next drive, or nil once `hours` have been produced. O(drive length / 10 s).
  public mutating func next() -> Drive? {
    let total = options.hours * 3600
    guard produced < total else { return nil }
    let length = min(total - produced, draws.uniform(300, 1800))
    let placement = Placement.allCases[draws.integer(0...3)]
    var segments: [MotionSegment] = []
    var events: [TimedEvent] = []
    var labels: [MixEvent] = []
    var speed = draws.uniform(8, 14)
    let initial = speed
    var t = 0.0
    // The road: a random walk over manoeuvres.
    while t < length {
      let road = RoadType.allCases[draws.integer(0...3)]
      let remaining = length - t
      switch draws.integer(0...5) {
      case 0:  // cruise, maybe up or down a hill
        let duration = min(remaining, draws.uniform(20, 120))
        speed = road == .highway ? draws.uniform(22, 33) : draws.uniform(7, 15)
        segments.append(
          MotionSegment(
            durationSeconds: duration, endSpeedMetersPerSecond: speed,
            grade: draws.chance(0.3) ? draws.uniform(-0.08, 0.08) : 0,
            road: road))
        t += duration
      case 1:  // traffic light: stop, wait, go
        let braking = max(2, speed / draws.uniform(1.5, 3.5))
        let wait = draws.uniform(5, 60)
        segments.append(MotionSegment(durationSeconds: braking, endSpeedMetersPerSecond: 0, road: road))
        segments.append(MotionSegment(durationSeconds: wait, endSpeedMetersPerSecond: 0, road: road))
        if draws.chance(0.2) {
          let slam = t + braking + wait / 2
          let event = SimEvent.doorSlam(pressureHPa: draws.uniform(0.5, 3), phoneInDoor: draws.chance(0.3))
          events.append(TimedEvent(atSeconds: slam, event: event))
          labels.append(
            MixEvent(
              atSeconds: produced + slam, driveIndex: index, driveSeconds: slam, kind: "doorSlam", expected: .silent
            ))
        }
        speed = draws.uniform(7, 14)
        segments.append(
          MotionSegment(
            durationSeconds: speed / draws.uniform(1.5, 2.5), endSpeedMetersPerSecond: speed, road: road))
        t += segments.suffix(3).reduce(0) { $0 + $1.durationSeconds }
      case 2:  // roundabout or bend
        let duration = draws.uniform(5, 15)
        speed = min(speed, draws.uniform(6, 10))
        segments.append(
          MotionSegment(
            durationSeconds: duration, endSpeedMetersPerSecond: speed,
            yawRateRadiansPerSecond: draws.uniform(-0.8, 0.8),
            road: .urban))
        t += duration
      case 3:  // emergency stop, then away again
        let braking = max(1.5, speed / (draws.uniform(0.7, 1.0) * 9.806_65))
        segments.append(MotionSegment(durationSeconds: braking, endSpeedMetersPerSecond: 0, road: road))
        segments.append(
          MotionSegment(durationSeconds: draws.uniform(3, 20), endSpeedMetersPerSecond: 0, road: road))
        speed = draws.uniform(7, 14)
        segments.append(MotionSegment(durationSeconds: speed / 2, endSpeedMetersPerSecond: speed, road: road))
        t += segments.suffix(3).reduce(0) { $0 + $1.durationSeconds }
      default:  // ordinary stretch
        let duration = min(remaining, draws.uniform(30, 300))
        segments.append(MotionSegment(durationSeconds: duration, endSpeedMetersPerSecond: speed, road: road))
        t += duration
      }
    }
    let duration = segments.reduce(0) { $0 + $1.durationSeconds }

    // Everyday jolts at random times (Poisson).
    var at = draws.exponential(mean: 3600 / max(options.eventsPerHour, 1e-9))
    while at < duration - 5 {
      let (event, kind) = everydayEvent(placement)
      events.append(TimedEvent(atSeconds: at, event: event))
      labels.append(
        MixEvent(atSeconds: produced + at, driveIndex: index, driveSeconds: at, kind: kind, expected: .silent))
      at += draws.exponential(mean: 3600 / max(options.eventsPerHour, 1e-9))
    }

    // Crashes end the drive: the car stays where it stopped.
    if options.crashesPerHour > 0 {
      let drawn = draws.exponential(mean: 3600 / options.crashesPerHour)
      if drawn < duration - 60, drawn > 30 {
        let (truncated, crash, crashAt) = crashEnding(segments, at: drawn)
        segments = truncated
        events.removeAll { $0.atSeconds > crashAt - 1 }
        labels.removeAll { $0.atSeconds > produced + crashAt - 1 }
        events.append(TimedEvent(atSeconds: crashAt, event: .crash(crash)))
        labels.append(
          MixEvent(
            atSeconds: produced + crashAt + crash.pulseSeconds / 2, driveIndex: index,
            driveSeconds: crashAt + crash.pulseSeconds / 2, kind: "crash-\(crash.kind.rawValue)",
            expected: .report))
      }
    }
    labels.sort { $0.atSeconds < $1.atSeconds }
    events.sort { $0.atSeconds < $1.atSeconds }
    let plan = DrivePlan(
      segments: segments, events: events, placement: placement, initialSpeedMetersPerSecond: initial,
      startEpochMilliseconds: 1_700_000_000_000 + Int64(produced * 1000))
    let drive = Drive(
      index: index, seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15, startSeconds: produced, plan: plan,
      events: labels)
    produced += plan.durationSeconds
    index += 1
    return drive
  }

  private mutating func everydayEvent(_ placement: Placement) -> (SimEvent, String) {
    switch draws.integer(0...5) {
    case 0:
      (
        .pothole(peakG: draws.uniform(1, 3), looseRattle: placement == .cupholder && draws.chance(0.5)),
        "pothole"
      )
    case 1: (.speedBump(peakG: draws.uniform(0.6, 1.5)), "speedBump")
    case 2:
      (
        .phoneDrop(heightMeters: draws.uniform(0.3, 0.8), spinRadiansPerSecond: draws.uniform(5, 15)),
        "phoneDrop"
      )
    case 3:
      (
        .phoneHandled(durationSeconds: draws.uniform(1, 4), spinRadiansPerSecond: draws.uniform(2, 6)),
        "phoneHandled"
      )
    case 4: (.loadShift(peakG: draws.uniform(1, 2.5)), "loadShift")
    default:
      (
        .pressureStep(
          hectopascals: draws.uniform(-1.5, 1.5), rampSeconds: draws.uniform(0.5, 3), durationSeconds: 30),
        "window"
      )
    }
  }

  /// Cuts the plan in the segment holding `at`, accelerates gently (≥ 10 s)
  /// to a crash speed, adds the pulse and a minute at a standstill. Returns
  /// the plan, the crash and when its pulse starts.
  private mutating func crashEnding(_ segments: [MotionSegment], at: Double) -> (
    [MotionSegment], Crash, Double
  ) {
    var kept: [MotionSegment] = []
    var t = 0.0
    for segment in segments {
      guard t + segment.durationSeconds <= at else { break }
      kept.append(segment)
      t += segment.durationSeconds
    }
    // The car is moving into the crash.
    let speed = draws.uniform(10, 20)
    let approach = max(at - t, 10)
    kept.append(MotionSegment(durationSeconds: approach, endSpeedMetersPerSecond: speed))
    let pulse = draws.uniform(0.06, 0.12)
    let crash: Crash
    if draws.chance(0.5) {
      crash = Crash(
        kind: .frontal, deltaVMetersPerSecond: speed, pulseSeconds: pulse, airbagHPa: draws.uniform(2.5, 10),
        airbagDelaySeconds: pulse / 2 + 0.2)
    } else {
      crash = Crash(
        kind: .side, deltaVMetersPerSecond: min(speed, 2 * 15 * 9.806_65 * pulse / Double.pi),
        pulseSeconds: pulse,
        spinRadiansPerSecond: draws.uniform(3.6, 8), mountWhipRadiansPerSecond: 0)
    }
    kept.append(MotionSegment(durationSeconds: pulse, endSpeedMetersPerSecond: 0))
    kept.append(MotionSegment(durationSeconds: 60, endSpeedMetersPerSecond: 0))
    return (kept, crash, t + approach)
  }
}
