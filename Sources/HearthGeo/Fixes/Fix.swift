/// What the phone's motion classifier said when a fix was recorded.
public enum Activity: UInt8, Sendable, Hashable, Codable, CaseIterable {
  case unknown = 0
  case still = 1
  case walking = 2
  case running = 3
  case cycling = 4
  /// In a vehicle ("automotive" on iOS, "in vehicle"/"driving" on Android).
  case automotive = 5
}

/// Why a fix was recorded.
public enum FixSource: UInt8, Sendable, Hashable, Codable, CaseIterable {
  /// Recorded by the tracker because the phone moved or its timer fired.
  case ordinary = 0
  /// A keep-alive sent while nothing changed (every quarter hour when parked).
  /// Ignored by trips and by the sudden-stop check.
  case heartbeat = 1
  /// Made up when the phone parked or arrived (SPEC §6 "park fix").
  case park = 2
}

/// Whether the phone was on charge when the fix was recorded.
public enum ChargingState: UInt8, Sendable, Hashable, Codable, CaseIterable {
  case unknown = 0
  case notCharging = 1
  case charging = 2
}

/// One location fix as a phone reports it (SPEC §1).
///
/// Missing readings are explicit: `speedMetersPerSecond == nil` means the
/// phone did not measure a speed (see ``SpeedReading``); `nil` heading,
/// altitude and battery level mean the phone did not say. In the columnar
/// ``FixColumns`` the same "missing" is stored as NaN.
public struct Fix: Sendable, Hashable, Codable {
  /// Milliseconds since 1970-01-01T00:00:00Z (UTC).
  public var timeMilliseconds: Int64
  /// WGS84 latitude in degrees, [-90, 90].
  public var latitudeDegrees: Double
  /// WGS84 longitude in degrees, [-180, 180].
  public var longitudeDegrees: Double
  /// Radius of the 68 % horizontal confidence circle, metres (≥ 0).
  public var horizontalAccuracyMeters: Double
  /// Ground speed in m/s, `nil` when unmeasured.
  public var speedMetersPerSecond: Double?
  /// Course over ground, degrees clockwise from true north, [0, 360] (360
  /// is north, as 0; ``FixValidation/headingDegrees``).
  public var headingDegrees: Double?
  /// Altitude in metres (the platform's datum).
  public var altitudeMeters: Double?
  public var activity: Activity
  public var source: FixSource
  /// Battery level as a fraction, [0, 1].
  public var batteryLevel: Double?
  public var charging: ChargingState
  public var device: DeviceID
  public var user: UserID

  public init(
    timeMilliseconds: Int64,
    latitudeDegrees: Double,
    longitudeDegrees: Double,
    horizontalAccuracyMeters: Double,
    speedMetersPerSecond: Double? = nil,
    headingDegrees: Double? = nil,
    altitudeMeters: Double? = nil,
    activity: Activity = .unknown,
    source: FixSource = .ordinary,
    batteryLevel: Double? = nil,
    charging: ChargingState = .unknown,
    device: DeviceID = DeviceID(0),
    user: UserID = UserID(0)
  ) {
    self.timeMilliseconds = timeMilliseconds
    self.latitudeDegrees = latitudeDegrees
    self.longitudeDegrees = longitudeDegrees
    self.horizontalAccuracyMeters = horizontalAccuracyMeters
    self.speedMetersPerSecond = speedMetersPerSecond
    self.headingDegrees = headingDegrees
    self.altitudeMeters = altitudeMeters
    self.activity = activity
    self.source = source
    self.batteryLevel = batteryLevel
    self.charging = charging
    self.device = device
    self.user = user
  }

  /// The position alone.
  public var coordinate: Coordinate {
    Coordinate(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
  }

  /// Equal when every field is equal, NaN counting as equal to NaN (an
  /// unknown accuracy is the same reading as another unknown accuracy).
  public static func == (a: Fix, b: Fix) -> Bool {
    func same(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }
    func same(_ x: Double?, _ y: Double?) -> Bool {
      switch (x, y) {
      case (nil, nil): true
      case (let x?, let y?): same(x, y)
      default: false
      }
    }
    return a.timeMilliseconds == b.timeMilliseconds && same(a.latitudeDegrees, b.latitudeDegrees)
      && same(a.longitudeDegrees, b.longitudeDegrees)
      && same(a.horizontalAccuracyMeters, b.horizontalAccuracyMeters)
      && same(a.speedMetersPerSecond, b.speedMetersPerSecond) && same(a.headingDegrees, b.headingDegrees)
      && same(a.altitudeMeters, b.altitudeMeters) && a.activity == b.activity && a.source == b.source
      && same(a.batteryLevel, b.batteryLevel) && a.charging == b.charging && a.device == b.device
      && a.user == b.user
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(timeMilliseconds)
    hasher.combine(device)
    hasher.combine(user)
  }
}
