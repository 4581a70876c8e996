import HearthGeo

/// The knobs of a generated day. The defaults describe an ordinary
/// weekday; every probability is per drive, per street or per fix as named.
public struct DayOptions: Sendable, Hashable, Codable {
  /// Midnight (UTC) of the day, ms since the epoch (default 2023-11-15).
  public var startEpochMilliseconds: Int64 = 1_700_006_400_000
  /// The town the day happens in; home lies within a few hundred metres.
  public var origin = Coordinate(latitudeDegrees: 48.1372, longitudeDegrees: 11.5756)
  public var user: UInt32 = 1
  /// Phones the person carries (1 or 2; device ids 1 and 2).
  public var carriedPhones = 1
  /// A tablet left at home sending heartbeats (device id 9).
  public var homeTablet = true
  /// Chance that a fix is a network estimate (Wi-Fi 12–60 m or cell 100 m – 3.1 km).
  public var networkFixProbability = 0.03
  /// Chance that a fix jumps 1–5 km with an over-confident 5–12 m accuracy.
  public var outlierProbability = 0.003
  /// Chance that a drive goes through a 2–6 min tunnel (no fixes).
  public var tunnelProbabilityPerDrive = 0.3
  /// Chance that somebody watches a drive live (1 fix/s for 3–10 min).
  public var liveProbabilityPerDrive = 0.25
  /// Chance that a drive brakes hard to a standstill and waits 6–15 min.
  public var suddenStopProbabilityPerDrive = 0.1
  /// Chance that the driver speeds (8–25 % over) on a street.
  public var speedingProbabilityPerStreet = 0.15
  /// Indoor fixes of one stay share an error (the same access points all
  /// stay: one offset of the stay's 15–65 m accuracy, plus 5 m jitter); off,
  /// every indoor fix errs independently (the pessimistic case).
  public var correlatedIndoorErrors = true
  /// Chance that an upload arrives 5–30 min late (after later ones).
  public var lateUploadProbability = 0.05
  /// Chance that an upload is sent twice.
  public var repeatedUploadProbability = 0.03

  public init() {}
}
