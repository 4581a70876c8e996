/// The identity of a stored fix: unique on (user, device, time) (SPEC §1, *Dedupe*).
public struct FixKey: Sendable, Hashable, Codable {
  public var user: UserID
  public var device: DeviceID
  /// Milliseconds since the epoch.
  public var timeMilliseconds: Int64

  public init(user: UserID, device: DeviceID, timeMilliseconds: Int64) {
    self.user = user
    self.device = device
    self.timeMilliseconds = timeMilliseconds
  }
}

/// What dedupe decided for one batch.
public struct DedupeOutcome: Sendable, Hashable {
  /// Indices (into the batch) of fixes that were new and are now stored.
  public var insertedIndices: [Int] = []
  /// Indices of fixes whose key was already stored and that changed nothing.
  public var duplicateIndices: [Int] = []
  /// Indices of duplicates that re-reported `still` for a stored fix that said
  /// something else: the stored fix adopts `still`.
  public var stillAdoptionIndices: [Int] = []

  /// Every fix of the batch falls in exactly one of the three lists.
  public var total: Int { insertedIndices.count + duplicateIndices.count + stillAdoptionIndices.count }
}

/// The keys of the fixes already stored, with the activity each one carries.
///
/// A value type: a server rebuilds it from its unique index, a test builds it
/// from scratch. Applying the same batch twice changes nothing the second
/// time (retried uploads are idempotent).
public struct DedupeIndex: Sendable, Hashable, Codable {
  private var activities: [FixKey: Activity] = [:]

  public init() {}

  /// Number of stored keys.
  public var count: Int { activities.count }

  /// The activity stored for `key`, if the key is stored.
  public func activity(for key: FixKey) -> Activity? { activities[key] }

  /// Stores the new fixes of `batch` (restricted to `indices` if given, in
  /// that order) and reports what happened to each.
  ///
  /// A duplicate changes nothing, except that a re-report saying `still`
  /// makes the stored fix `still`. Duplicates inside the batch are handled as
  /// if they had arrived one after the other.
  ///
  /// - Complexity: O(k) expected hash-table operations for k fixes considered.
  public mutating func insert(_ batch: FixColumns, indices: [Int]? = nil) -> DedupeOutcome {
    var outcome = DedupeOutcome()
    let order = indices ?? Array(0..<batch.count)
    outcome.insertedIndices.reserveCapacity(order.count)
    for index in order {
      let key = FixKey(
        user: batch.user[index], device: batch.device[index],
        timeMilliseconds: batch.timeMilliseconds[index])
      let incoming = batch.activity[index]
      switch activities[key] {
      case nil:
        activities[key] = incoming
        outcome.insertedIndices.append(index)
      case .some(let stored) where incoming == .still && stored != .still:
        activities[key] = .still
        outcome.stillAdoptionIndices.append(index)
      case .some:
        outcome.duplicateIndices.append(index)
      }
    }
    return outcome
  }

  /// Forgets keys older than `timeMilliseconds`. Safe once validation rejects
  /// fixes that old (they cannot come back as duplicates). O(count).
  public mutating func removeKeys(olderThan timeMilliseconds: Int64) {
    activities = activities.filter { $0.key.timeMilliseconds >= timeMilliseconds }
  }
}
