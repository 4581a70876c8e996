/// "Where are they now": one row per person, advanced by incoming fixes
/// (SPEC §1, *Presence advance* and *Stale*).
public struct PresenceRules: Sendable, Hashable, Codable {
  /// A position older than this is stale, ms. Default 15 min.
  public var staleAfterMilliseconds: Int64
  /// A position whose fix said `still` is stale only after this, ms. Default 35 min.
  public var staleAfterStillMilliseconds: Int64

  public init(
    staleAfterMilliseconds: Int64 = 15 * 60_000,
    staleAfterStillMilliseconds: Int64 = 35 * 60_000
  ) {
    self.staleAfterMilliseconds = staleAfterMilliseconds
    self.staleAfterStillMilliseconds = staleAfterStillMilliseconds
  }

  /// Whether a position recorded at `fixTimeMilliseconds` with `activity` is
  /// stale at `nowMilliseconds`: strictly older than 15 min (35 min after a
  /// `still` fix). Exact integer arithmetic. O(1).
  public func isStale(fixTimeMilliseconds: Int64, activity: Activity, nowMilliseconds: Int64) -> Bool {
    let limit = activity == .still ? staleAfterStillMilliseconds : staleAfterMilliseconds
    let age = nowMilliseconds.subtractingReportingOverflow(fixTimeMilliseconds)
    return age.overflow ? nowMilliseconds > fixTimeMilliseconds : age.partialValue > limit
  }
}

/// The presence row of one person: the fix that says where they are now.
public struct PresenceRow: Sendable, Hashable, Codable {
  public var device: DeviceID
  public var timeMilliseconds: Int64
  public var coordinate: Coordinate
  public var horizontalAccuracyMeters: Double
  public var activity: Activity

  public init(fix: Fix) {
    device = fix.device
    timeMilliseconds = fix.timeMilliseconds
    coordinate = fix.coordinate
    horizontalAccuracyMeters = fix.horizontalAccuracyMeters
    activity = fix.activity
  }
}

/// What presence did with one fix, and why.
public enum PresenceDecision: Sendable, Hashable, Codable {
  public enum Advanced: String, Sendable, Hashable, Codable {
    /// Nobody had a row yet.
    case firstFix
    /// A newer fix from the device that holds the row.
    case sameDevice
    /// A newer fix from another device that is not `still`.
    case otherDeviceMoving
    /// A newer `still` fix from another device; the holder's position was stale.
    case holderStale
  }
  public enum Kept: String, Sendable, Hashable, Codable {
    /// The fix is not newer than the row: presence only moves forwards.
    case notNewer
    /// A `still` fix from another device while the holder's position is fresh.
    case stillWhileHolderFresh
  }
  case advanced(Advanced)
  case kept(Kept)

  public var didAdvance: Bool {
    if case .advanced = self { true } else { false }
  }
}

/// One person's presence, advanced fix by fix.
public struct Presence: Sendable, Hashable, Codable {
  public private(set) var row: PresenceRow?
  public var rules: PresenceRules

  public init(row: PresenceRow? = nil, rules: PresenceRules = PresenceRules()) {
    self.row = row
    self.rules = rules
  }

  /// A duplicate of the row's own fix re-reported `still` (SPEC §1 dedupe):
  /// the row adopts `still`, so it goes stale at 35 min, not 15, exactly as
  /// if the fix had said so the first time. Another fix's re-report changes
  /// nothing. Returns whether the row changed. O(1).
  @discardableResult
  public mutating func adoptStill(device: DeviceID, timeMilliseconds: Int64) -> Bool {
    guard var current = row, current.device == device, current.timeMilliseconds == timeMilliseconds,
      current.activity != .still
    else { return false }
    current.activity = .still
    row = current
    return true
  }

  /// Offers `fix` (of this person), received by the server at
  /// `receivedAtMilliseconds`, to the row.
  ///
  /// The row only moves forwards in time: a fix not strictly newer than
  /// the row is kept out, whichever device sent it. A `still` fix from one
  /// device does not take the row from another device whose position is
  /// not stale; staleness is the holder's age on the server's clock at the
  /// receipt (SPEC §1), never the gap to the incoming fix's own time, so a
  /// device whose clock runs ahead cannot make a fresh holder look stale.
  /// Any other newer fix takes the row. A replay with the same receipt
  /// times decides exactly as the live server did.
  ///
  /// Offer a batch's fixes in time order (``IngestPipeline`` does, with
  /// ``sameTimeRank(activity:device:)`` for fixes of the same
  /// millisecond), so the row does not depend on the order within the upload.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func advance(with fix: Fix, receivedAtMilliseconds: Int64) -> PresenceDecision {
    guard let current = row else {
      row = PresenceRow(fix: fix)
      return .advanced(.firstFix)
    }
    guard fix.timeMilliseconds > current.timeMilliseconds else { return .kept(.notNewer) }
    let decision: PresenceDecision
    if fix.device == current.device {
      decision = .advanced(.sameDevice)
    } else if fix.activity != .still {
      decision = .advanced(.otherDeviceMoving)
    } else if rules.isStale(
      fixTimeMilliseconds: current.timeMilliseconds, activity: current.activity,
      nowMilliseconds: receivedAtMilliseconds)
    {
      decision = .advanced(.holderStale)
    } else {
      decision = .kept(.stillWhileHolderFresh)
    }
    if decision.didAdvance { row = PresenceRow(fix: fix) }
    return decision
  }

  /// The order in which one person's fixes of one batch are offered: by
  /// time, then by this rank: at the same millisecond a fix on the move
  /// (not `still`) before a `still` one, then by device id. Of two devices'
  /// fixes at one millisecond the first offered takes the row and the
  /// other is not newer, so the rank makes the winner independent of the
  /// upload order: the moving device, as a device on the move takes the
  /// row (SPEC §1), else the lower device id. Fixes are unique on (person,
  /// device, time) after dedupe, so (time, rank) orders them totally. O(1).
  @inline(__always)
  public static func sameTimeRank(activity: Activity, device: DeviceID) -> UInt64 {
    (activity == .still ? 1 << 32 : 0) | UInt64(device.rawValue)
  }
}
