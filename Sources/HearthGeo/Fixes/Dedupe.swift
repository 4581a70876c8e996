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
  /// Indices of fixes older than what the index still remembers of their
  /// device (``DedupeIndex/insert(_:indices:retentionMilliseconds:)``): the
  /// index cannot tell whether they are new, so they are neither stored nor
  /// duplicates; a caller rejects them as too old. Empty without a retention.
  public var forgottenIndices: [Int] = []

  /// Every fix of the batch falls in exactly one of the four lists.
  public var total: Int {
    insertedIndices.count + duplicateIndices.count + stillAdoptionIndices.count + forgottenIndices.count
  }
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
///
/// Given a retention, a device's log forgets the times older than its
/// newest by more than the retention, a day's worth at a time, so a
/// server's index holds about retention + 1 day of each device's fixes
/// instead of every fix it ever took. What was forgotten is remembered as
/// one time per device, and fixes older than it are reported apart
/// (``DedupeOutcome/forgottenIndices``), never mistaken for new ones.
public struct DedupeIndex: Sendable, Hashable, Codable {
  /// One device's stored fixes: times ascending, with their activities.
  struct DeviceLog: Sendable, Hashable, Codable {
    var times: [Int64] = []
    var activities: [Activity] = []
    /// Every stored time before this one was forgotten, ms since the epoch
    /// (`Int64.min`: none was). Only ever rises.
    var forgottenBefore = Int64.min

    init() {}

    enum CodingKeys: String, CodingKey { case times, activities, forgottenBefore }

    /// Decoding checks what the searches rely on: one activity per time,
    /// times strictly ascending and none forgotten (a corrupted state is an
    /// error, not a trap). A log saved before logs forgot has forgotten
    /// nothing.
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      times = try container.decode([Int64].self, forKey: .times)
      activities = try container.decode([Activity].self, forKey: .activities)
      forgottenBefore = try container.decodeIfPresent(Int64.self, forKey: .forgottenBefore) ?? .min
      guard times.count == activities.count, zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }),
        !times.isEmpty, times[0] >= forgottenBefore
      else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: container.codingPath,
            debugDescription: "a device log is empty, not ascending, uneven or holds a forgotten time"))
      }
    }

    /// A log that never forgot is written as before forgetting existed.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(times, forKey: .times)
      try container.encode(activities, forKey: .activities)
      if forgottenBefore != .min { try container.encode(forgottenBefore, forKey: .forgottenBefore) }
    }

    /// Whether the oldest time is older than the newest by more than
    /// `retention` + a day (``forget(olderThanNewestBy:)`` is due). O(1).
    @inline(__always)
    func isDue(_ retention: Int64) -> Bool {
      guard let newest = times.last, let oldest = times.first else { return false }
      let (span, overflow) = newest.subtractingReportingOverflow(oldest)
      return !overflow && span > max(0, retention) &+ DedupeIndex.forgettingStepMilliseconds
        && max(0, retention) < Int64.max - DedupeIndex.forgettingStepMilliseconds
    }

    /// Forgets the times older than the newest by more than `retention`
    /// ms, once the oldest is a day past that (each time is moved about
    /// once a day, not once per fix); returns how many it forgot.
    @inline(never)
    mutating func forget(olderThanNewestBy retention: Int64) -> Int {
      guard let newest = times.last, let oldest = times.first else { return 0 }
      let (keepFrom, early) = newest.subtractingReportingOverflow(max(0, retention))
      let (due, earlier) = keepFrom.subtractingReportingOverflow(DedupeIndex.forgettingStepMilliseconds)
      guard !early, !earlier, oldest < due else { return 0 }
      let cut = position(of: keepFrom).index
      times.removeFirst(cut)
      activities.removeFirst(cut)
      forgottenBefore = keepFrom
      return cut
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

  /// Keyed by (user, device).
  private var devices: [IdentityPair: DeviceLog] = [:]
  public private(set) var count = 0

  /// A log forgets once its oldest time is this far past its retention,
  /// ms (one day).
  static let forgettingStepMilliseconds: Int64 = 86_400_000

  public init() {}

  enum CodingKeys: String, CodingKey { case devices, count }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    devices = try container.decode([IdentityPair: DeviceLog].self, forKey: .devices)
    count = devices.values.reduce(0) { $0 + $1.times.count }
    guard try container.decode(Int.self, forKey: .count) == count else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [CodingKeys.count], debugDescription: "the key count does not match the logs"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeInKeyOrder(devices, forKey: .devices)
    try container.encode(count, forKey: .count)
  }

  private static func deviceKey(_ user: UserID, _ device: DeviceID) -> IdentityPair {
    IdentityPair(user, device)
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
  /// `retentionMilliseconds`: after the batch, each device of the batch
  /// forgets its times older than its newest stored time by more than this
  /// (a day's worth at a time); its later fixes older than what it forgot
  /// go to ``DedupeOutcome/forgottenIndices``. The ingest pipeline passes
  /// the validation window (a fix that old was too old on every server
  /// clock that accepted the newest, SPEC §1), so forgetting changes no
  /// outcome while the server's clock does not step back. nil (the
  /// default): every key is kept.
  ///
  /// - Precondition: every one of `indices` is a position of `batch` (a
  ///   caller's list of the batch's own rows, checked first, in O(k)).
  /// - Complexity: O(k) for a device's run of k fixes rising in time after
  ///   its last stored one (what a phone sends); O(k log m) for one whose
  ///   other fixes are stored already (a retry); a run with more than 8 new
  ///   fixes going inside the log O(k log k + t), t the stored fixes from its
  ///   oldest on (one merge, however the run is ordered: a device's fixes
  ///   uploaded newest first cost a sort, not a move of the log per fix);
  ///   otherwise O(k log m + 8 t).
  public mutating func insert(
    _ batch: FixColumns, indices: [Int]? = nil, retentionMilliseconds: Int64? = nil
  ) -> DedupeOutcome {
    if let indices {
      precondition(
        indices.allSatisfy { $0 >= 0 && $0 < batch.count },
        "DedupeIndex.insert: an index lies outside the batch of \(batch.count) fixes")
    }
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
        batch, indices, k..<end, retentionMilliseconds,
        into: &devices[Self.deviceKey(user, device), default: DeviceLog()], &outcome)
      k = end
    }
    return outcome
  }

  /// One device's run: its fixes older than what the log forgot set apart,
  /// the others stored, then the log's old times forgotten under the
  /// retention; returns the change in the number of stored keys.
  @inline(__always)
  private static func insert(
    _ batch: FixColumns, _ indices: [Int]?, _ run: Range<Int>, _ retention: Int64?, into log: inout DeviceLog,
    _ outcome: inout DedupeOutcome
  ) -> Int {
    let floor = log.forgottenBefore
    var change: Int
    if floor != .min && run.contains(where: { batch.timeMilliseconds[indices?[$0] ?? $0] < floor }) {
      var remembered: [Int] = []
      for k in run {
        let index = indices?[k] ?? k
        if batch.timeMilliseconds[index] < floor {
          outcome.forgottenIndices.append(index)
        } else {
          remembered.append(index)
        }
      }
      change = insert(batch, remembered, 0..<remembered.count, into: &log, &outcome)
    } else {
      change = insert(batch, indices, run, into: &log, &outcome)
    }
    if let retention, log.isDue(retention) { change -= log.forget(olderThanNewestBy: retention) }
    return change
  }

  /// One device's run of fixes (positions `run` of `indices`, or of the
  /// batch) into its log; returns how many were new.
  private static func insert(
    _ batch: FixColumns, _ indices: [Int]?, _ run: Range<Int>, into log: inout DeviceLog,
    _ outcome: inout DedupeOutcome
  ) -> Int {
    // A run with more than a few new fixes that go inside the log (or
    // before others of the run) is merged: one by one, each moves the log's
    // tail. Appends, and repeats of stored fixes (a retried upload), go one
    // by one and build no list.
    if run.count > Self.mergedRunLength {
      var newest = log.times.last
      var inside = 0
      for k in run {
        let time = batch.timeMilliseconds[indices?[k] ?? k]
        if newest.map({ time > $0 }) ?? true {
          newest = time
        } else if !log.position(of: time).found {
          inside += 1
          if inside > Self.mergedRunLength { return merge(batch, indices, run, into: &log, &outcome) }
        }
      }
    }
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

  /// Runs with more new fixes than this going inside the log are merged
  /// (``merge(_:_:_:into:_:)``); the others go fix by fix: at most this
  /// many moves of the log's tail, and no list built.
  static let mergedRunLength = 8

  /// What one fix of a merged run did.
  private enum Decision { case inserted, duplicate, stillAdoption }

  /// A run that is not all appends: its fixes sorted by time (arrival order
  /// within a time), merged with the log's entries from the oldest of them
  /// on, in one pass. Each time decides as if the run's fixes had come one
  /// after the other: new once, then duplicates, a `still` re-report
  /// adopting `still` once. The outcome lists keep arrival order.
  /// O(k log k + the log's entries from the run's oldest time on).
  private static func merge(
    _ batch: FixColumns, _ indices: [Int]?, _ run: Range<Int>, into log: inout DeviceLog,
    _ outcome: inout DedupeOutcome
  ) -> Int {
    let sorted = run.sorted {
      let (a, b) = (batch.timeMilliseconds[indices?[$0] ?? $0], batch.timeMilliseconds[indices?[$1] ?? $1])
      return a != b ? a < b : $0 < $1
    }
    guard let oldest = sorted.first.map({ batch.timeMilliseconds[indices?[$0] ?? $0] }) else { return 0 }
    let start = log.position(of: oldest).index
    var times: [Int64] = []
    var activities: [Activity] = []
    times.reserveCapacity(log.times.count - start + run.count)
    activities.reserveCapacity(times.capacity)
    var decisions = [Decision](repeating: .duplicate, count: run.count)
    var inserted = 0
    var stored = start  // the next of the log's entries to copy
    var s = 0
    while s < sorted.count {
      let time = batch.timeMilliseconds[indices?[sorted[s]] ?? sorted[s]]
      while stored < log.times.count && log.times[stored] < time {
        times.append(log.times[stored])
        activities.append(log.activities[stored])
        stored += 1
      }
      var current: Activity?
      if stored < log.times.count && log.times[stored] == time {
        current = log.activities[stored]
        stored += 1
      }
      // Every fix of the run at this time, in arrival order.
      while s < sorted.count && batch.timeMilliseconds[indices?[sorted[s]] ?? sorted[s]] == time {
        let k = sorted[s]
        let incoming = batch.activity[indices?[k] ?? k]
        if let known = current {
          if incoming == .still && known != .still {
            current = .still
            decisions[k - run.lowerBound] = .stillAdoption
          }
        } else {
          current = incoming
          decisions[k - run.lowerBound] = .inserted
          inserted += 1
        }
        s += 1
      }
      times.append(time)
      activities.append(current ?? .unknown)
    }
    times.append(contentsOf: log.times[stored...])
    activities.append(contentsOf: log.activities[stored...])
    log.times.replaceSubrange(start..., with: times)
    log.activities.replaceSubrange(start..., with: activities)
    for k in run {
      let index = indices?[k] ?? k
      switch decisions[k - run.lowerBound] {
      case .inserted: outcome.insertedIndices.append(index)
      case .duplicate: outcome.duplicateIndices.append(index)
      case .stillAdoption: outcome.stillAdoptionIndices.append(index)
      }
    }
    return inserted
  }
}
