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
///
/// Stored per device (user and device id) as its times in ascending order:
/// a phone's next fix is almost always newer than its last, so the common
/// insert is an append, a retried or late fix a binary search, and the
/// device is looked up once per run of its fixes in a batch (no hashing per
/// fix, no whole-table rehash as the index grows).
public struct DedupeIndex: Sendable, Hashable, Codable {
  /// One device's stored fixes: times ascending, with their activities.
  struct DeviceLog: Sendable, Hashable, Codable {
    var times: [Int64] = []
    var activities: [Activity] = []

    init() {}

    enum CodingKeys: String, CodingKey { case times, activities }

    /// Decoding checks what the searches rely on: one activity per time,
    /// times strictly ascending (a corrupted state is an error, not a trap).
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      times = try container.decode([Int64].self, forKey: .times)
      activities = try container.decode([Activity].self, forKey: .activities)
      guard times.count == activities.count, zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: container.codingPath, debugDescription: "a device log is not ascending or uneven"))
      }
    }

    /// The position of `time`, or where it would go (binary search).
    func position(of time: Int64) -> (index: Int, found: Bool) {
      if let last = times.last, time > last { return (times.count, false) }
      var (low, high) = (0, times.count)
      while low < high {
        let mid = (low + high) / 2
        if times[mid] < time { low = mid + 1 } else { high = mid }
      }
      return (low, low < times.count && times[low] == time)
    }
  }

  private var devices: [UInt64: DeviceLog] = [:]
  public private(set) var count = 0

  public init() {}

  enum CodingKeys: String, CodingKey { case devices, count }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    devices = try container.decode([UInt64: DeviceLog].self, forKey: .devices)
    count = devices.values.reduce(0) { $0 + $1.times.count }
    guard try container.decode(Int.self, forKey: .count) == count else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [CodingKeys.count], debugDescription: "the key count does not match the logs"))
    }
  }

  private static func deviceKey(_ user: UserID, _ device: DeviceID) -> UInt64 {
    UInt64(user.rawValue) << 32 | UInt64(device.rawValue)
  }

  /// The activity stored for `key`, if the key is stored. O(log n) in the device's fixes.
  public func activity(for key: FixKey) -> Activity? {
    guard let log = devices[Self.deviceKey(key.user, key.device)] else { return nil }
    let (index, found) = log.position(of: key.timeMilliseconds)
    return found ? log.activities[index] : nil
  }

  /// Stores the new fixes of `batch` (restricted to `indices` if given, in
  /// that order) and reports what happened to each.
  ///
  /// A duplicate changes nothing, except that a re-report saying `still`
  /// makes the stored fix `still`. Duplicates inside the batch are handled as
  /// if they had arrived one after the other.
  ///
  /// - Complexity: O(k) for k fixes newer than their device's last stored
  ///   one, O(log m) more for an older one (m: the device's stored fixes),
  ///   plus a move within the device's log when a late fix is new.
  public mutating func insert(_ batch: FixColumns, indices: [Int]? = nil) -> DedupeOutcome {
    var outcome = DedupeOutcome()
    let n = indices?.count ?? batch.count
    outcome.insertedIndices.reserveCapacity(n)
    var k = 0
    while k < n {
      // A run of the same device's fixes: one table access for all of them.
      let first = indices?[k] ?? k
      let (user, device) = (batch.user[first], batch.device[first])
      var end = k + 1
      while end < n {
        let next = indices?[end] ?? end
        guard batch.user[next] == user && batch.device[next] == device else { break }
        end += 1
      }
      count += Self.insert(
        batch, indices, k..<end, into: &devices[Self.deviceKey(user, device), default: DeviceLog()], &outcome)
      k = end
    }
    return outcome
  }

  /// One device's run of fixes (positions `run` of `indices`, or of the
  /// batch) into its log; returns how many were new.
  private static func insert(
    _ batch: FixColumns, _ indices: [Int]?, _ run: Range<Int>, into log: inout DeviceLog,
    _ outcome: inout DedupeOutcome
  ) -> Int {
    var inserted = 0
    for k in run {
      let index = indices?[k] ?? k
      let time = batch.timeMilliseconds[index]
      let incoming = batch.activity[index]
      let (position, found) = log.position(of: time)
      if !found {
        if position == log.times.count {
          log.times.append(time)
          log.activities.append(incoming)
        } else {
          log.times.insert(time, at: position)
          log.activities.insert(incoming, at: position)
        }
        inserted += 1
        outcome.insertedIndices.append(index)
      } else if incoming == .still && log.activities[position] != .still {
        log.activities[position] = .still
        outcome.stillAdoptionIndices.append(index)
      } else {
        outcome.duplicateIndices.append(index)
      }
    }
    return inserted
  }

  /// Forgets keys older than `timeMilliseconds`. Safe once validation rejects
  /// fixes that old (they cannot come back as duplicates). O(count).
  public mutating func removeKeys(olderThan timeMilliseconds: Int64) {
    for key in Array(devices.keys) {
      guard var log = devices.removeValue(forKey: key) else { continue }
      let keep = log.position(of: timeMilliseconds).index
      log.times.removeFirst(keep)
      log.activities.removeFirst(keep)
      count -= keep
      if !log.times.isEmpty { devices[key] = log }
    }
  }
}
