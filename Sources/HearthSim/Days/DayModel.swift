import HearthGeo

/// What a place is to the family.
public enum PlaceKind: String, Sendable, Hashable, Codable, CaseIterable {
  case home, school, work, shop
}

/// A named circular place generated with the day.
public struct Place: Sendable, Hashable, Codable {
  public var id: Int
  public var name: String
  public var kind: PlaceKind
  public var center: Coordinate
  public var radiusMeters: Double
}

/// How the person moves at a moment.
public enum MotionMode: UInt8, Sendable, Hashable, Codable {
  case parked = 0
  case walking = 1
  case driving = 2
}

/// The person's true state once a second (struct of arrays, NaN-free).
///
/// Positions are metres east and north of `DayOptions.origin` on the local
/// tangent plane; `coordinate(at:)` converts (error < 0.1 % of the offset
/// within 30 km of the origin).
public struct TruthTrack: Sendable, Hashable {
  public var frame: LocalFrame
  /// Seconds since the day's start, 0, 1, 2, …
  public var seconds: [Int32] = []
  public var eastMeters: [Double] = []
  public var northMeters: [Double] = []
  public var speedMetersPerSecond: [Double] = []
  /// Degrees clockwise from north.
  public var headingDegrees: [Double] = []
  /// The street's limit, m/s (0 = none: walking or parked).
  public var limitMetersPerSecond: [Double] = []
  public var mode: [MotionMode] = []
  /// The named place the person is parked in, −1 for none.
  public var placeID: [Int32] = []

  public var count: Int { seconds.count }

  /// The true position at sample `i`.
  public func coordinate(at i: Int) -> Coordinate {
    frame.coordinate(east: eastMeters[i], north: northMeters[i])
  }

  mutating func append(
    _ second: Int, _ east: Double, _ north: Double, _ speed: Double, _ heading: Double, _ limit: Double,
    _ mode: MotionMode, _ place: Int
  ) {
    seconds.append(Int32(second))
    eastMeters.append(east)
    northMeters.append(north)
    speedMetersPerSecond.append(speed)
    headingDegrees.append(heading)
    limitMetersPerSecond.append(limit)
    self.mode.append(mode)
    placeID.append(Int32(place))
  }
}

/// A local east/north plane around an origin, computed without libm so the
/// coordinates are the same bits on every machine.
public struct LocalFrame: Sendable, Hashable, Codable {
  public var origin: Coordinate
  let metersPerDegree: Double
  let cosLatitude: Double

  public init(origin: Coordinate) {
    self.origin = origin
    metersPerDegree = GreatCircle.earthMeanRadiusMeters * SimMath.pi / 180
    cosLatitude = SimMath.cos(origin.latitudeDegrees * SimMath.pi / 180)
  }

  /// The coordinate `east`, `north` metres from the origin (equirectangular).
  public func coordinate(east: Double, north: Double) -> Coordinate {
    Coordinate(
      latitudeDegrees: origin.latitudeDegrees + north / metersPerDegree,
      longitudeDegrees: origin.longitudeDegrees + east / (metersPerDegree * cosLatitude))
  }
}

/// The ground truth of a generated day: what the person really did.
public struct DayLabels: Sendable, Hashable, Codable {
  public var trips: [TripLabel] = []
  public var stops: [StopLabel] = []
  public var visits: [VisitLabel] = []
  public var overLimit: [OverLimitLabel] = []
  public var suddenStops: [SuddenStopLabel] = []
  /// Stretches with no fix at all (tunnels, dead zones), per carried phone.
  public var gaps: [GapLabel] = []
  /// Fixes that jumped far away with an over-confident accuracy.
  public var outliers: [OutlierLabel] = []
}

/// A journey between two stops of at least 5 minutes.
public struct TripLabel: Sendable, Hashable, Codable {
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  /// Named places at the ends (nil: not a place).
  public var fromPlace: Int?
  public var toPlace: Int?
  public var mode: MotionMode
  /// True path length and straight-line displacement, metres.
  public var pathMeters: Double
  public var displacementMeters: Double
  public var maxSpeedMetersPerSecond: Double
}

/// A stay of 5 minutes or more in one spot (a visit when at a named place).
public struct StopLabel: Sendable, Hashable, Codable {
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  public var coordinate: Coordinate
  public var place: Int?
}

/// Time spent parked inside a named place.
public struct VisitLabel: Sendable, Hashable, Codable {
  public var place: Int
  public var arriveMilliseconds: Int64
  public var leaveMilliseconds: Int64
}

/// A stretch driven above the street's limit (every second of it is over).
public struct OverLimitLabel: Sendable, Hashable, Codable {
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  public var limitMetersPerSecond: Double
  public var maxSpeedMetersPerSecond: Double
}

/// A car braking hard from cruising to a standstill and staying there
/// (what the server's sudden-stop check looks for, SPEC §5).
public struct SuddenStopLabel: Sendable, Hashable, Codable {
  /// When the car came to rest.
  public var stopMilliseconds: Int64
  public var coordinate: Coordinate
  public var speedBeforeMetersPerSecond: Double
  public var decelerationMetersPerSecondSquared: Double
  public var stoppedSeconds: Double
}

/// A stretch with no fix from one phone.
public struct GapLabel: Sendable, Hashable, Codable {
  public var device: UInt32
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
}

/// An outlier fix (identified by device and time).
public struct OutlierLabel: Sendable, Hashable, Codable {
  public var device: UInt32
  public var timeMilliseconds: Int64
  public var jumpMeters: Double
}

/// Fixes as the server receives them: one upload from one device.
public struct Upload: Sendable, Hashable {
  public var receivedMilliseconds: Int64
  public var device: DeviceID
  public var fixes: FixColumns
  /// True for a batch the phone sent again (its fixes are duplicates).
  public var isRepeat: Bool
}

/// A generated day for one user.
public struct LocationDay: Sendable {
  public var options: DayOptions
  public var seed: UInt64
  public var places: [Place]
  public var uploads: [Upload]
  public var labels: DayLabels
  public var truth: TruthTrack

  /// Every uploaded fix in the order the server receives them (duplicates,
  /// out-of-order batches and the other devices included).
  public var fixesInArrivalOrder: FixColumns {
    var all = FixColumns()
    all.reserveCapacity(uploads.reduce(0) { $0 + $1.fixes.count })
    for upload in uploads { all.append(contentsOf: upload.fixes) }
    return all
  }
}
