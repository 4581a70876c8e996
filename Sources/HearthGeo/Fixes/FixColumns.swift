/// A batch of fixes stored column by column (struct of arrays).
///
/// The vectorised kernels read the columns directly as spans, with no per-fix
/// allocation. Missing optional readings are NaN in the Double columns
/// (speed: unmeasured; heading, altitude, battery level: not reported).
///
/// Invariant: every column has ``count`` elements. Columns are read-only from
/// outside; rows are added with ``append(_:)`` and read back with
/// ``subscript(_:)``.
public struct FixColumns: Sendable, Hashable {
  /// Milliseconds since the Unix epoch (UTC).
  public private(set) var timeMilliseconds: [Int64] = []
  /// Degrees, [-90, 90].
  public private(set) var latitudeDegrees: [Double] = []
  /// Degrees, [-180, 180].
  public private(set) var longitudeDegrees: [Double] = []
  /// Metres.
  public private(set) var horizontalAccuracyMeters: [Double] = []
  /// m/s; NaN = unmeasured.
  public private(set) var speedMetersPerSecond: [Double] = []
  /// Degrees clockwise from north; NaN = not reported.
  public private(set) var headingDegrees: [Double] = []
  /// Metres; NaN = not reported.
  public private(set) var altitudeMeters: [Double] = []
  public private(set) var activity: [Activity] = []
  public private(set) var source: [FixSource] = []
  /// Fraction [0, 1]; NaN = not reported.
  public private(set) var batteryLevel: [Double] = []
  public private(set) var charging: [ChargingState] = []
  public private(set) var device: [DeviceID] = []
  public private(set) var user: [UserID] = []

  public init() {}

  /// A batch holding `fixes` in the given order.
  public init<S: Sequence>(_ fixes: S) where S.Element == Fix {
    self.init()
    reserveCapacity(fixes.underestimatedCount)
    for fix in fixes { append(fix) }
  }

  /// Number of fixes.
  public var count: Int { timeMilliseconds.count }
  public var isEmpty: Bool { timeMilliseconds.isEmpty }

  public mutating func reserveCapacity(_ capacity: Int) {
    timeMilliseconds.reserveCapacity(capacity)
    latitudeDegrees.reserveCapacity(capacity)
    longitudeDegrees.reserveCapacity(capacity)
    horizontalAccuracyMeters.reserveCapacity(capacity)
    speedMetersPerSecond.reserveCapacity(capacity)
    headingDegrees.reserveCapacity(capacity)
    altitudeMeters.reserveCapacity(capacity)
    activity.reserveCapacity(capacity)
    source.reserveCapacity(capacity)
    batteryLevel.reserveCapacity(capacity)
    charging.reserveCapacity(capacity)
    device.reserveCapacity(capacity)
    user.reserveCapacity(capacity)
  }

  /// Removes every fix, keeping the storage for reuse.
  public mutating func removeAll(keepingCapacity: Bool = true) {
    timeMilliseconds.removeAll(keepingCapacity: keepingCapacity)
    latitudeDegrees.removeAll(keepingCapacity: keepingCapacity)
    longitudeDegrees.removeAll(keepingCapacity: keepingCapacity)
    horizontalAccuracyMeters.removeAll(keepingCapacity: keepingCapacity)
    speedMetersPerSecond.removeAll(keepingCapacity: keepingCapacity)
    headingDegrees.removeAll(keepingCapacity: keepingCapacity)
    altitudeMeters.removeAll(keepingCapacity: keepingCapacity)
    activity.removeAll(keepingCapacity: keepingCapacity)
    source.removeAll(keepingCapacity: keepingCapacity)
    batteryLevel.removeAll(keepingCapacity: keepingCapacity)
    charging.removeAll(keepingCapacity: keepingCapacity)
    device.removeAll(keepingCapacity: keepingCapacity)
    user.removeAll(keepingCapacity: keepingCapacity)
  }

  /// Appends one fix. Amortised O(1).
  public mutating func append(_ fix: Fix) {
    timeMilliseconds.append(fix.timeMilliseconds)
    latitudeDegrees.append(fix.latitudeDegrees)
    longitudeDegrees.append(fix.longitudeDegrees)
    horizontalAccuracyMeters.append(fix.horizontalAccuracyMeters)
    speedMetersPerSecond.append(fix.speedMetersPerSecond ?? .nan)
    headingDegrees.append(fix.headingDegrees ?? .nan)
    altitudeMeters.append(fix.altitudeMeters ?? .nan)
    activity.append(fix.activity)
    source.append(fix.source)
    batteryLevel.append(fix.batteryLevel ?? .nan)
    charging.append(fix.charging)
    device.append(fix.device)
    user.append(fix.user)
  }

  /// Appends fix `index` of another batch. O(1) amortised.
  public mutating func append(from other: FixColumns, at index: Int) {
    timeMilliseconds.append(other.timeMilliseconds[index])
    latitudeDegrees.append(other.latitudeDegrees[index])
    longitudeDegrees.append(other.longitudeDegrees[index])
    horizontalAccuracyMeters.append(other.horizontalAccuracyMeters[index])
    speedMetersPerSecond.append(other.speedMetersPerSecond[index])
    headingDegrees.append(other.headingDegrees[index])
    altitudeMeters.append(other.altitudeMeters[index])
    activity.append(other.activity[index])
    source.append(other.source[index])
    batteryLevel.append(other.batteryLevel[index])
    charging.append(other.charging[index])
    device.append(other.device[index])
    user.append(other.user[index])
  }

  /// Appends every fix of another batch, in order. O(other.count).
  public mutating func append(contentsOf other: FixColumns) {
    timeMilliseconds += other.timeMilliseconds
    latitudeDegrees += other.latitudeDegrees
    longitudeDegrees += other.longitudeDegrees
    horizontalAccuracyMeters += other.horizontalAccuracyMeters
    speedMetersPerSecond += other.speedMetersPerSecond
    headingDegrees += other.headingDegrees
    altitudeMeters += other.altitudeMeters
    activity += other.activity
    source += other.source
    batteryLevel += other.batteryLevel
    charging += other.charging
    device += other.device
    user += other.user
  }

  /// The fixes at `indices`, in that order. O(indices.count): one gather
  /// per column (each a tight loop), not one append of every column per fix.
  public func selecting<C: Collection>(_ indices: C) -> FixColumns where C.Element == Int {
    var result = FixColumns()
    result.select(indices, from: self)
    return result
  }

  /// Makes this batch hold the fixes of `other` at `indices`, in that order,
  /// in its own storage: a batch kept between calls gathers without
  /// allocating once its columns have room. O(indices.count).
  public mutating func select<C: Collection>(_ indices: C, from other: FixColumns) where C.Element == Int {
    // Indices in contiguous storage (an array, a slice) are read in place;
    // others are copied into an array first.
    if indices.withContiguousStorageIfAvailable({ select($0, from: other) }) == nil {
      Array(indices).withUnsafeBufferPointer { select($0, from: other) }
    }
  }

  /// `select` on a buffer of indices: each index is checked once against
  /// the batch (every column has `other.count` values, the type's
  /// invariant), then every column is filled at once and written through
  /// pointers with no check per value. A check per value and column cost
  /// about 10 instructions a value (13 columns: about 3.5 % of the ingest
  /// path); an append per value, about 16.
  private mutating func select(_ indices: UnsafeBufferPointer<Int>, from other: FixColumns) {
    let limit = UInt(other.count)
    for index in indices {
      precondition(
        UInt(bitPattern: index) < limit,
        "FixColumns.select: index \(index) outside the batch of \(other.count) fixes")
    }
    let n = indices.count
    func gather<T>(_ column: inout [T], _ source: [T]) {
      column.removeAll(keepingCapacity: true)
      guard let first = indices.first else { return }
      column.append(contentsOf: repeatElement(source[first], count: n))
      source.withUnsafeBufferPointer { source in
        column.withUnsafeMutableBufferPointer { column in
          guard let from = source.baseAddress, let to = column.baseAddress, let at = indices.baseAddress
          else {
            return
          }
          // Every index was checked against `source.count` above, and
          // `column` holds exactly n values.
          for k in 0..<n { to[k] = from[at[k]] }
        }
      }
    }
    gather(&timeMilliseconds, other.timeMilliseconds)
    gather(&latitudeDegrees, other.latitudeDegrees)
    gather(&longitudeDegrees, other.longitudeDegrees)
    gather(&horizontalAccuracyMeters, other.horizontalAccuracyMeters)
    gather(&speedMetersPerSecond, other.speedMetersPerSecond)
    gather(&headingDegrees, other.headingDegrees)
    gather(&altitudeMeters, other.altitudeMeters)
    gather(&activity, other.activity)
    gather(&source, other.source)
    gather(&batteryLevel, other.batteryLevel)
    gather(&charging, other.charging)
    gather(&device, other.device)
    gather(&user, other.user)
  }

  /// Changes the activity recorded for fix `index` (dedupe's `still` re-report).
  public mutating func setActivity(_ newActivity: Activity, at index: Int) {
    activity[index] = newActivity
  }

  /// Fix `index` as a value. O(1). Inlined: an engine that reads a few of
  /// the fields does not pay for building the rest.
  @inline(__always)
  public subscript(index: Int) -> Fix {
    Fix(
      timeMilliseconds: timeMilliseconds[index],
      latitudeDegrees: latitudeDegrees[index],
      longitudeDegrees: longitudeDegrees[index],
      horizontalAccuracyMeters: horizontalAccuracyMeters[index],
      speedMetersPerSecond: Self.present(speedMetersPerSecond[index]),
      headingDegrees: Self.present(headingDegrees[index]),
      altitudeMeters: Self.present(altitudeMeters[index]),
      activity: activity[index],
      source: source[index],
      batteryLevel: Self.present(batteryLevel[index]),
      charging: charging[index],
      device: device[index],
      user: user[index])
  }

  /// All fixes as values, in order. O(count) allocations-free per element.
  public var fixes: [Fix] { (0..<count).map { self[$0] } }

  @inline(__always)
  private static func present(_ value: Double) -> Double? { value.isNaN ? nil : value }
}

extension FixColumns {
  /// Equality compares NaN-coded missing readings as equal (two batches with
  /// the same unmeasured speeds are the same batch).
  public static func == (a: FixColumns, b: FixColumns) -> Bool {
    a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for index in 0..<count { hasher.combine(self[index]) }
  }
}
