/// What a viewer with approximate sharing sees of a fix (SPEC §2).
///
/// Speed, heading and activity are absent from the type: they cannot leak.
public struct ApproximateFix: Sendable, Hashable, Codable {
  /// The grid cell the fix fell in.
  public var cell: GridCell
  /// The cell's centre, degrees (never the fix's own position).
  public var coordinate: Coordinate
  /// The fix's accuracy widened to at least the grid's minimum, metres.
  public var horizontalAccuracyMeters: Double
  /// The fix's time floored to the start of its slot, ms since the epoch.
  public var timeMilliseconds: Int64
  public var device: DeviceID
  public var user: UserID
}

/// The approximate-sharing projection: snap to the privacy grid, widen the
/// accuracy, floor the time, drop speed, heading and activity.
///
/// Deterministic: the position part of the output depends only on the cell,
/// never on where in the cell the fix was, on who looks, or on earlier fixes.
public struct PrivacyProjection: Sendable {
  public let grid: LatitudeBandGrid
  /// Accuracy reported is at least this, metres: the value asked for, but
  /// never less than the grid's cell (750 m for ``LatitudeBandGrid/privacy``).
  /// The floor can only be raised: a smaller, negative, NaN or infinite
  /// request leaves it at the cell size, so no argument can unset it.
  public let minimumAccuracyMeters: Double
  /// Times are floored to a multiple of this, ms. Default 5 min.
  public let timeSlotMilliseconds: Int64

  /// - Parameters:
  ///   - minimumAccuracyMeters: the accuracy floor asked for, metres (see
  ///     ``minimumAccuracyMeters``: raised to the grid's cell size at least).
  ///   - timeSlotMilliseconds: > 0 (``argumentProblem(minimumAccuracyMeters:timeSlotMilliseconds:)``
  ///     says why not, for a door to refuse by name).
  /// - Precondition: `timeSlotMilliseconds > 0`.
  public init(
    grid: LatitudeBandGrid = .privacy,
    minimumAccuracyMeters: Double = 750,
    timeSlotMilliseconds: Int64 = 5 * 60_000
  ) {
    precondition(timeSlotMilliseconds > 0, "PrivacyProjection: time slot must be positive")
    self.grid = grid
    self.minimumAccuracyMeters =
      minimumAccuracyMeters.isFinite ? max(minimumAccuracyMeters, grid.cellSizeMeters) : grid.cellSizeMeters
    self.timeSlotMilliseconds = timeSlotMilliseconds
  }

  /// Why these arguments cannot make a projection as asked, or nil: a slot
  /// that is not positive, or an accuracy floor that is not a finite number
  /// (a door refuses it by name instead of silently using the cell size). O(1).
  public static func argumentProblem(minimumAccuracyMeters: Double, timeSlotMilliseconds: Int64) -> String? {
    if timeSlotMilliseconds <= 0 { return "the time slot must be positive, not \(timeSlotMilliseconds) ms" }
    if !minimumAccuracyMeters.isFinite {
      return "the minimum accuracy must be a finite number of metres, not \(minimumAccuracyMeters)"
    }
    return nil
  }

  /// The projection of one fix. A fix outside the domain (NaN position) gets
  /// ``GridCell/none`` and a NaN coordinate; NaN accuracy becomes the
  /// minimum. O(1).
  public func project(_ fix: Fix) -> ApproximateFix {
    frame(fix, cell: grid.cell(containing: fix.coordinate), slotStart: slotStart(of: fix.timeMilliseconds))
  }

  /// The projection of `fix` if a viewer who last saw `previous` must be
  /// sent it, else nil: `changed(from: previous, to: project(fix)) ?
  /// project(fix) : nil`, with the cell's centre worked out only when the
  /// frame changed (most fixes stay in their cell and slot). O(1).
  public func project(_ fix: Fix, ifChangedFrom previous: ApproximateFix?) -> ApproximateFix? {
    let cell = grid.cell(containing: fix.coordinate)
    let slot = slotStart(of: fix.timeMilliseconds)
    if let previous, previous.cell == cell, previous.timeMilliseconds == slot { return nil }
    return frame(fix, cell: cell, slotStart: slot)
  }

  private func frame(_ fix: Fix, cell: GridCell, slotStart: Int64) -> ApproximateFix {
    ApproximateFix(
      cell: cell,
      coordinate: grid.centre(of: cell),
      horizontalAccuracyMeters: widenedAccuracy(fix.horizontalAccuracyMeters),
      timeMilliseconds: slotStart,
      device: fix.device,
      user: fix.user)
  }

  /// Projects a whole batch; element i equals `project(batch[i])`.
  /// - Complexity: O(n): the column projection below plus one pass to
  ///   assemble the values.
  public func project(_ batch: FixColumns) -> [ApproximateFix] {
    let n = batch.count
    var ids = [Int64](repeating: 0, count: n)
    var latitudes = [Double](repeating: 0, count: n)
    var longitudes = [Double](repeating: 0, count: n)
    var accuracies = [Double](repeating: 0, count: n)
    var slots = [Int64](repeating: 0, count: n)
    var idSpan = ids.mutableSpan
    var latitudeSpan = latitudes.mutableSpan
    var longitudeSpan = longitudes.mutableSpan
    var accuracySpan = accuracies.mutableSpan
    var slotSpan = slots.mutableSpan
    project(
      timesMilliseconds: batch.timeMilliseconds.span, latitudesDegrees: batch.latitudeDegrees.span,
      longitudesDegrees: batch.longitudeDegrees.span, accuraciesMeters: batch.horizontalAccuracyMeters.span,
      cellIDs: &idSpan, centreLatitudesDegrees: &latitudeSpan, centreLongitudesDegrees: &longitudeSpan,
      accuraciesOutMeters: &accuracySpan, slotStartsMilliseconds: &slotSpan)
    return (0..<n).map { i in
      ApproximateFix(
        cell: GridCell(rawValue: ids[i]),
        coordinate: Coordinate(latitudeDegrees: latitudes[i], longitudeDegrees: longitudes[i]),
        horizontalAccuracyMeters: accuracies[i], timeMilliseconds: slots[i], device: batch.device[i],
        user: batch.user[i])
    }
  }

  /// The projection of fixes given as columns, written into the caller's
  /// columns (no allocation): for fix i, its cell and the cell's centre
  /// (``GridCell/none`` and NaN outside the domain), its accuracy widened
  /// (``widenedAccuracy(_:)``) and its time floored to its slot
  /// (``slotStart(of:)``) — what ``project(_:)-(Fix)`` gives, column by
  /// column. What the C ABI's `hearth_privacy_project` runs on the caller's
  /// arrays.
  /// - Precondition: every span has the same count.
  /// - Complexity: O(n): one vectorised grid snap, one pass.
  public func project(
    timesMilliseconds: Span<Int64>, latitudesDegrees: Span<Double>, longitudesDegrees: Span<Double>,
    accuraciesMeters: Span<Double>, cellIDs: inout MutableSpan<Int64>,
    centreLatitudesDegrees: inout MutableSpan<Double>, centreLongitudesDegrees: inout MutableSpan<Double>,
    accuraciesOutMeters: inout MutableSpan<Double>, slotStartsMilliseconds: inout MutableSpan<Int64>
  ) {
    let n = timesMilliseconds.count
    precondition(
      accuraciesMeters.count == n && accuraciesOutMeters.count == n && slotStartsMilliseconds.count == n,
      "project: every span must have the same count")
    grid.snap(
      latitudesDegrees: latitudesDegrees, longitudesDegrees: longitudesDegrees, cellIDs: &cellIDs,
      centreLatitudesDegrees: &centreLatitudesDegrees, centreLongitudesDegrees: &centreLongitudesDegrees)
    for i in 0..<n {
      accuraciesOutMeters[i] = widenedAccuracy(accuraciesMeters[i])
      slotStartsMilliseconds[i] = slotStart(of: timesMilliseconds[i])
    }
  }

  /// Whether a viewer who last saw `previous` must be sent `next`: true for a
  /// first frame, a new cell or a new time slot. O(1).
  public func changed(from previous: ApproximateFix?, to next: ApproximateFix) -> Bool {
    guard let previous else { return true }
    return previous.cell != next.cell || previous.timeMilliseconds != next.timeMilliseconds
  }

  /// The start of the slot containing `timeMilliseconds` (floor, also for
  /// times before 1970). Exact. A time in the first slot below Int64.min's
  /// reach (within one slot of Int64.min, whose floor is not an Int64) gets
  /// the lowest slot start there is. O(1).
  public func slotStart(of timeMilliseconds: Int64) -> Int64 {
    let (quotient, remainder) = timeMilliseconds.quotientAndRemainder(dividingBy: timeSlotMilliseconds)
    let (start, overflow) = (remainder < 0 ? quotient - 1 : quotient).multipliedReportingOverflow(
      by: timeSlotMilliseconds)
    return overflow ? quotient * timeSlotMilliseconds : start
  }

  /// The accuracy a viewer is told: at least ``minimumAccuracyMeters``
  /// (NaN becomes the minimum), metres. Exact. O(1).
  public func widenedAccuracy(_ accuracy: Double) -> Double {
    accuracy >= minimumAccuracyMeters ? accuracy : minimumAccuracyMeters  // NaN → minimum
  }
}
