import CHearth
import HearthGeo

// Great-circle distances in bulk, straight onto the caller's arrays: the
// library's batch kernels read and write them in place (no copy), so a call
// costs the kernel plus the count check.

@c public func hearth_distances_m(
  _ count: Int64, _ lat1_deg: UnsafePointer<Double>?, _ lon1_deg: UnsafePointer<Double>?,
  _ lat2_deg: UnsafePointer<Double>?, _ lon2_deg: UnsafePointer<Double>?,
  _ out_m: UnsafeMutablePointer<Double>?
) -> Int32 {
  guarded { () throws(ArgumentError) in
    let n = try checkedCount(count)
    let (a, b) = (try input(lat1_deg, n, "lat1_deg"), try input(lon1_deg, n, "lon1_deg"))
    let (c, d) = (try input(lat2_deg, n, "lat2_deg"), try input(lon2_deg, n, "lon2_deg"))
    let out = try output(out_m, n, "out_m")
    writing(out, over: [Column(a, ""), Column(b, ""), Column(c, ""), Column(d, "")]) { out in
      var span = out.mutableSpan
      GreatCircle.distancesMeters(
        latitudes1Degrees: a.span, longitudes1Degrees: b.span, latitudes2Degrees: c.span,
        longitudes2Degrees: d.span,
        into: &span)
    }
    return HEARTH_OK
  }
}

@c public func hearth_distances_from_m(
  _ origin_lat_deg: Double, _ origin_lon_deg: Double, _ count: Int64, _ lat_deg: UnsafePointer<Double>?,
  _ lon_deg: UnsafePointer<Double>?, _ out_m: UnsafeMutablePointer<Double>?
) -> Int32 {
  guarded { () throws(ArgumentError) in
    let n = try checkedCount(count)
    let (lat, lon) = (try input(lat_deg, n, "lat_deg"), try input(lon_deg, n, "lon_deg"))
    let out = try output(out_m, n, "out_m")
    writing(out, over: [Column(lat, ""), Column(lon, "")]) { out in
      var span = out.mutableSpan
      GreatCircle.distancesMeters(
        from: Coordinate(latitudeDegrees: origin_lat_deg, longitudeDegrees: origin_lon_deg),
        toLatitudesDegrees: lat.span, longitudesDegrees: lon.span, into: &span)
    }
    return HEARTH_OK
  }
}

@c public func hearth_track_distances_m(
  _ count: Int64, _ lat_deg: UnsafePointer<Double>?, _ lon_deg: UnsafePointer<Double>?,
  _ steps_m: UnsafeMutablePointer<Double>?, _ cumulative_m: UnsafeMutablePointer<Double>?
) -> Int32 {
  guarded { () throws(ArgumentError) in
    let n = try checkedCount(count)
    let (lat, lon) = (try input(lat_deg, n, "lat_deg"), try input(lon_deg, n, "lon_deg"))
    let (steps, cumulative) = (try output(steps_m, n, "steps_m"), try output(cumulative_m, n, "cumulative_m"))
    try apart(
      [Column(steps, "steps_m"), Column(cumulative, "cumulative_m")],
      from: [Column(lat, "lat_deg"), Column(lon, "lon_deg")])
    var stepSpan = steps.mutableSpan
    var cumulativeSpan = cumulative.mutableSpan
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: lat.span, longitudesDegrees: lon.span, steps: &stepSpan, cumulative: &cumulativeSpan)
    return HEARTH_OK
  }
}

// MARK: The grid and the privacy projection

/// A grid, immutable after creation (so shared freely between threads).
final class GridHandle: Handle {
  let grid: LatitudeBandGrid
  override class var sharedAcrossThreads: Bool { true }
  init(_ grid: LatitudeBandGrid) { self.grid = grid }
}

@c public func hearth_grid_create(_ cell_size_m: Double, _ out: UnsafeMutablePointer<OpaquePointer?>?)
  -> Int32
{
  create(out) {
    guard LatitudeBandGrid.cellSizeRangeMeters.contains(cell_size_m) else {
      return FailedHandle.with(
        HEARTH_ERROR_ARGUMENT, "cell_size_m must be between 1 m and 10 000 km, not \(cell_size_m)")
    }
    // The privacy grid is built once per handle; 750 m costs 26 687 cosines.
    return (GridHandle(LatitudeBandGrid(cellSizeMeters: cell_size_m)), HEARTH_OK)
  }
}

@c public func hearth_grid_snap(
  _ grid: OpaquePointer?, _ count: Int64, _ lat_deg: UnsafePointer<Double>?,
  _ lon_deg: UnsafePointer<Double>?,
  _ cell_id: UnsafeMutablePointer<Int64>?, _ centre_lat_deg: UnsafeMutablePointer<Double>?,
  _ centre_lon_deg: UnsafeMutablePointer<Double>?
) -> Int32 {
  guard let h = Handle.from(grid, as: GridHandle.self) else { return wrongHandle(grid) }
  // No message on the grid: it is shared between threads, so it stays immutable.
  return guarded { () throws(ArgumentError) in
    let n = try checkedCount(count)
    let (lat, lon) = (try input(lat_deg, n, "lat_deg"), try input(lon_deg, n, "lon_deg"))
    let (idColumn, latitudeColumn, longitudeColumn) = (
      try output(cell_id, n, "cell_id"), try output(centre_lat_deg, n, "centre_lat_deg"),
      try output(centre_lon_deg, n, "centre_lon_deg")
    )
    try apart(
      [
        Column(idColumn, "cell_id"), Column(latitudeColumn, "centre_lat_deg"),
        Column(longitudeColumn, "centre_lon_deg"),
      ], from: [Column(lat, "lat_deg"), Column(lon, "lon_deg")])
    var ids = idColumn.mutableSpan
    var centreLatitudes = latitudeColumn.mutableSpan
    var centreLongitudes = longitudeColumn.mutableSpan
    h.grid.snap(
      latitudesDegrees: lat.span, longitudesDegrees: lon.span, cellIDs: &ids,
      centreLatitudesDegrees: &centreLatitudes, centreLongitudesDegrees: &centreLongitudes)
    return HEARTH_OK
  }
}

@c public func hearth_privacy_project(
  _ grid: OpaquePointer?, _ min_accuracy_m: Double, _ slot_ms: Int64, _ count: Int64,
  _ time_ms: UnsafePointer<Int64>?, _ lat_deg: UnsafePointer<Double>?, _ lon_deg: UnsafePointer<Double>?,
  _ accuracy_m: UnsafePointer<Double>?, _ cell_id: UnsafeMutablePointer<Int64>?,
  _ centre_lat_deg: UnsafeMutablePointer<Double>?, _ centre_lon_deg: UnsafeMutablePointer<Double>?,
  _ accuracy_out_m: UnsafeMutablePointer<Double>?, _ slot_start_ms: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(grid, as: GridHandle.self) else { return wrongHandle(grid) }
  return guarded { () throws(ArgumentError) in
    if let problem = privacySettingsProblem(min_accuracy_m, slot_ms) { throw ArgumentError(reason: problem) }
    let n = try checkedCount(count)
    let projection = PrivacyProjection(
      grid: h.grid, minimumAccuracyMeters: min_accuracy_m, timeSlotMilliseconds: slot_ms)
    let (times, accuracy) = (try input(time_ms, n, "time_ms"), try input(accuracy_m, n, "accuracy_m"))
    let (lat, lon) = (try input(lat_deg, n, "lat_deg"), try input(lon_deg, n, "lon_deg"))
    let columns = (
      accuracy: try output(accuracy_out_m, n, "accuracy_out_m"),
      slots: try output(slot_start_ms, n, "slot_start_ms"),
      ids: try output(cell_id, n, "cell_id"), latitudes: try output(centre_lat_deg, n, "centre_lat_deg"),
      longitudes: try output(centre_lon_deg, n, "centre_lon_deg")
    )
    try apart(
      [
        Column(columns.accuracy, "accuracy_out_m"), Column(columns.slots, "slot_start_ms"),
        Column(columns.ids, "cell_id"), Column(columns.latitudes, "centre_lat_deg"),
        Column(columns.longitudes, "centre_lon_deg"),
      ],
      from: [
        Column(times, "time_ms"), Column(lat, "lat_deg"), Column(lon, "lon_deg"),
        Column(accuracy, "accuracy_m"),
      ])
    var accuracyOut = columns.accuracy.mutableSpan
    var slots = columns.slots.mutableSpan
    var ids = columns.ids.mutableSpan
    var centreLatitudes = columns.latitudes.mutableSpan
    var centreLongitudes = columns.longitudes.mutableSpan
    projection.project(
      timesMilliseconds: times.span, latitudesDegrees: lat.span, longitudesDegrees: lon.span,
      accuraciesMeters: accuracy.span, cellIDs: &ids, centreLatitudesDegrees: &centreLatitudes,
      centreLongitudesDegrees: &centreLongitudes, accuraciesOutMeters: &accuracyOut,
      slotStartsMilliseconds: &slots)
    return HEARTH_OK
  }
}

/// Why `hearth_privacy_project` refuses these settings; nil when it takes them. O(1).
private func privacySettingsProblem(_ minimumAccuracyMeters: Double, _ slotMilliseconds: Int64) -> String? {
  let problem = PrivacyProjection.argumentProblem(
    minimumAccuracyMeters: minimumAccuracyMeters, timeSlotMilliseconds: slotMilliseconds)
  return problem.map { "min_accuracy_m \(minimumAccuracyMeters), slot_ms \(slotMilliseconds): \($0)" }
}

/// `hearth_privacy_project`'s settings checked as it checks them: HEARTH_OK
/// with empty bytes, or HEARTH_ERROR_ARGUMENT with the reason on the failed
/// bytes handle (the grid is shared between threads and keeps no message). O(1).
@c public func hearth_privacy_check_settings(
  _ min_accuracy_m: Double, _ slot_ms: Int64, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let problem = privacySettingsProblem(min_accuracy_m, slot_ms) else { return handOutBytes(out, []) }
  return handOutFailure(out, HEARTH_ERROR_ARGUMENT, problem)
}
