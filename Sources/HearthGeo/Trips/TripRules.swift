/// SPEC §7 trip rules. Every number in one value; defaults are the SPEC's.
/// Choices are explained in docs/guides/trips.md.
public struct TripRules: Sendable, Hashable, Codable {
  /// Fixes are considered once they are this old (late uploads within it
  /// are sorted in), ms.
  public var idleGapMilliseconds: Int64 = 5 * 60_000
  /// A silence longer than this splits, ms…
  public var splitGapMilliseconds: Int64 = 5 * 60_000
  /// …unless the phone travelled through it: the fix before the gap was
  /// moving (measured or agreed speed at least this, m/s) and the average
  /// speed across the gap is at least this too.
  public var travelledThroughMetersPerSecond = 1.0
  /// Staying within this distance of the first fix of a stay (m) for
  /// longer than `dwellMilliseconds` splits.
  public var dwellRadiusMeters = 100.0
  public var dwellMilliseconds: Int64 = 5 * 60_000
  /// Fixes looser than this are network estimates and are skipped, m
  /// (a fix with no accuracy, NaN, such as an AIS position, is kept).
  public var skipAccuracyAboveMeters = 100.0
  /// Validity: at least this many points, this long, this much path, and
  /// this far (at some point) from where it started.
  public var minimumPoints = 3
  public var minimumDurationMilliseconds: Int64 = 2 * 60_000
  public var minimumPathMeters = 250.0
  public var minimumDisplacementMeters = 150.0
  /// A silence up to this long between a fix at one named place and a fix
  /// inside another is a journey; longer silences always split, ms.
  public var journeySilenceMilliseconds: Int64 = 45 * 60_000
  /// A fix without a measured speed that lies out and back between its
  /// neighbours (``AgreedSpeed`` `isOutAndBack`: they agree within 50 m +
  /// their accuracies, it lies beyond 50 m + its own + the larger of theirs
  /// from both), reached and left at least this fast on the ground (m/s,
  /// 35 km/h), is a stray fix: left out of the segment's points and
  /// aggregates when it closes (a parked phone's one fix 1.5 km off made a
  /// valid 3 km trip). Slower out-and-backs (a walk to the corner) stay.
  public var strayFixMetersPerSecond = 35 / 3.6
  /// "Stopped X km from <place>" may be said up to this long after the trip ended, ms.
  public var stoppedNoticeMilliseconds: Int64 = 30 * 60_000
  public var agreed = AgreedSpeedRules()

  public init() {}
}

/// Why a segment is, or is not, a trip.
public enum TripReason: String, Sendable, Hashable, Codable {
  /// All four validity thresholds hold.
  case valid
  /// Between two different named places: a trip whatever its length.
  case journeyBetweenNamedPlaces
  case tooFewPoints
  case tooShortInTime
  case tooShortInPath
  case tooLittleDisplacement
}

/// What ended a segment.
public enum TripEnd: String, Sendable, Hashable, Codable {
  /// The phone stayed inside the dwell radius for longer than the dwell time.
  case dwell
  /// A silence longer than the split gap that was not travelled through,
  /// learnt from the next fix or from the clock (nothing came for so long
  /// that no later fix could continue the segment).
  case gap
}
