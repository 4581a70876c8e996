import HearthGeo

/// Where the phone is in the car; decides how road vibration and events reach it.
public enum Placement: String, Sendable, Hashable, Codable, CaseIterable {
  /// In a windshield or vent mount: sees the body's motion (gain 1).
  case mounted
  /// Upright in a cupholder: a little more rattle (gain 1.3).
  case cupholder
  /// Lying on a seat: cushioned (gain 0.8), free to slide.
  case seat
  /// In a pocket: filtered by the occupant (gain 0.6).
  case pocket

  /// Vibration gain relative to a mounted phone.
  public var vibrationGain: Double {
    switch self {
    case .mounted: 1.0
    case .cupholder: 1.3
    case .seat: 0.8
    case .pocket: 0.6
    }
  }
}

/// Road surface, setting the vibration level of a moving car (vertical 1-s
/// RMS, gravity removed, mounted phone; impact-physics §5.1, with highway
/// raised from 0.30 to 0.38 so the median 1-s level matches comma2k19's
/// 0.33 m/s²; docs/guides/simulator-calibration.md).
public enum RoadType: String, Sendable, Hashable, Codable, CaseIterable {
  case highway, urban, rough, cobbles

  /// Vertical RMS at cruising speed, m/s² (the mean over a road; single 1-s
  /// windows spread around it by the slow roughness factor).
  public var vibrationRMS: Double {
    switch self {
    case .highway: 0.38
    case .urban: 0.45
    case .rough: 1.20
    case .cobbles: 2.00
    }
  }
}

/// One stretch of a drive: the speed ramps linearly to `endSpeed` over
/// `duration` while the car turns at `yawRate` on a slope of `grade`.
public struct MotionSegment: Sendable, Hashable, Codable {
  public var durationSeconds: Double
  /// m/s at the end of the segment (the start is the previous segment's end).
  public var endSpeedMetersPerSecond: Double
  /// rad/s, positive to the left.
  public var yawRateRadiansPerSecond: Double
  /// Rise over run (0.1 = 10 %).
  public var grade: Double
  public var road: RoadType

  public init(
    durationSeconds: Double, endSpeedMetersPerSecond: Double, yawRateRadiansPerSecond: Double = 0,
    grade: Double = 0, road: RoadType = .urban
  ) {
    self.durationSeconds = durationSeconds
    self.endSpeedMetersPerSecond = endSpeedMetersPerSecond
    self.yawRateRadiansPerSecond = yawRateRadiansPerSecond
    self.grade = grade
    self.road = road
  }
}

/// Everything that happens to the car or the phone at a moment, with the
/// numbers of impact-physics.md as parameters.
public enum SimEvent: Sendable, Hashable, Codable {
  /// A collision. The plan should bring the car to its after-crash speed.
  case crash(Crash)
  /// A pothole; a loose phone rattles in its holder instead of riding the body.
  case pothole(peakG: Double, looseRattle: Bool)
  /// Front then rear axle over a bump 0.33 s apart.
  case speedBump(peakG: Double)
  /// A door slammed: a 1-sample spike if the phone is in the door pocket,
  /// and a short cabin pressure pulse.
  case doorSlam(pressureHPa: Double, phoneInDoor: Bool)
  /// The phone falls `heightMeters` (free fall, tumble, impact) and rests on the floor.
  case phoneDrop(heightMeters: Double, spinRadiansPerSecond: Double)
  /// Something heavy hits the seatback while braking.
  case loadShift(peakG: Double)
  /// A passenger picks the phone up, turns it and puts it back.
  case phoneHandled(durationSeconds: Double, spinRadiansPerSecond: Double)
  /// A change in cabin pressure reached over `rampSeconds` and held for
  /// `durationSeconds` (window opened: negative; a hill's worth: positive).
  case pressureStep(hectopascals: Double, rampSeconds: Double, durationSeconds: Double)
  /// A real recording replaces what the phone reads for its duration (a
  /// drop measured on a real phone); afterwards the phone lies still.
  case recorded(RecordedMotion)
}

/// Accelerometer readings taken from a real recording, resampled to the
/// simulator's 50 Hz: specific force in the recording phone's frame, m/s².
public struct RecordedMotion: Sendable, Hashable, Codable {
  public var x: [Double]
  public var y: [Double]
  public var z: [Double]
  /// Sample index of the impact (the largest reading).
  public var impactIndex: Int
  /// Where the readings came from (dataset and file).
  public var source: String

  public init(x: [Double], y: [Double], z: [Double], impactIndex: Int, source: String) {
    self.x = x
    self.y = y
    self.z = z
    self.impactIndex = impactIndex
    self.source = source
  }

  public var count: Int { x.count }
}

/// A collision's physics.
public struct Crash: Sendable, Hashable, Codable {
  public enum Kind: String, Sendable, Hashable, Codable { case frontal, rear, side, rollover }
  public var kind: Kind
  /// Speed lost in the pulse, m/s.
  public var deltaVMetersPerSecond: Double
  /// Pulse length, s (half-sine, peak π·ΔV/(2T)).
  public var pulseSeconds: Double
  /// Peak rotation of the car (side spin, rollover roll), rad/s; 0 for none.
  public var spinRadiansPerSecond: Double
  /// Cabin pressure step from airbags, hPa (0 = no airbag), and its decay.
  public var airbagHPa: Double
  public var airbagDecaySeconds: Double
  /// Seconds after the pulse starts that the pressure step arrives.
  public var airbagDelaySeconds: Double
  /// Mount whip: pitch rate of a mounted phone, rad/s.
  public var mountWhipRadiansPerSecond: Double
  /// A loose phone slides, flies and hits the dash (its impact is the jolt).
  public var loosePhone: Bool

  public init(
    kind: Kind, deltaVMetersPerSecond: Double, pulseSeconds: Double, spinRadiansPerSecond: Double = 0,
    airbagHPa: Double = 0, airbagDecaySeconds: Double = 1, airbagDelaySeconds: Double = 0.2,
    mountWhipRadiansPerSecond: Double = 1.5, loosePhone: Bool = false
  ) {
    self.kind = kind
    self.deltaVMetersPerSecond = deltaVMetersPerSecond
    self.pulseSeconds = pulseSeconds
    self.spinRadiansPerSecond = spinRadiansPerSecond
    self.airbagHPa = airbagHPa
    self.airbagDecaySeconds = airbagDecaySeconds
    self.airbagDelaySeconds = airbagDelaySeconds
    self.mountWhipRadiansPerSecond = mountWhipRadiansPerSecond
    self.loosePhone = loosePhone
  }

  /// Peak deceleration of the half-sine pulse, m/s².
  public var peakAcceleration: Double { Double.pi * deltaVMetersPerSecond / (2 * pulseSeconds) }
}

/// An event at a time (seconds since the drive's start).
public struct TimedEvent: Sendable, Hashable, Codable {
  public var atSeconds: Double
  public var event: SimEvent

  public init(atSeconds: Double, event: SimEvent) {
    self.atSeconds = atSeconds
    self.event = event
  }
}

/// What a simulated drive is: the motion, the events, the phone and the
/// recording's settings.
public struct DrivePlan: Sendable, Hashable, Codable {
  public var segments: [MotionSegment]
  public var events: [TimedEvent]
  public var placement: Placement
  public var initialSpeedMetersPerSecond: Double
  /// Where and when the drive starts.
  public var start: Coordinate
  public var startEpochMilliseconds: Int64
  /// GPS fixes: none at all (a canyon, a tunnel) when false; `gpsGaps` are
  /// (from, to) seconds without fixes.
  public var gpsAvailable: Bool
  public var gpsGaps: [ClosedRange<Double>]
  /// The OS's "in vehicle" verdict (off for walking).
  public var vehicleGate: Bool
  /// Engine stalls after a crash (0.02 m/s² instead of 0.04 idle).
  public var stallAfterCrash: Bool

  public init(
    segments: [MotionSegment], events: [TimedEvent] = [], placement: Placement = .mounted,
    initialSpeedMetersPerSecond: Double = 0,
    start: Coordinate = Coordinate(latitudeDegrees: 40.1047, longitudeDegrees: -75.2952),
    startEpochMilliseconds: Int64 = 1_700_000_000_000, gpsAvailable: Bool = true,
    gpsGaps: [ClosedRange<Double>] = [], vehicleGate: Bool = true, stallAfterCrash: Bool = true
  ) {
    self.segments = segments
    self.events = events
    self.placement = placement
    self.initialSpeedMetersPerSecond = initialSpeedMetersPerSecond
    self.start = start
    self.startEpochMilliseconds = startEpochMilliseconds
    self.gpsAvailable = gpsAvailable
    self.gpsGaps = gpsGaps
    self.vehicleGate = vehicleGate
    self.stallAfterCrash = stallAfterCrash
  }

  /// Total duration, seconds.
  public var durationSeconds: Double { segments.reduce(0) { $0 + $1.durationSeconds } }
}
