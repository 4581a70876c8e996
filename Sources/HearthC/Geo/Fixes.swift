import CHearth
import HearthGeo

// `hearth_fixes` (columns from C) to and from `FixColumns`, validation and dedupe.

extension FixColumns {
  /// The batch a `hearth_fixes` describes. Codes outside an enum (an
  /// activity of 9) are refused, naming the fix and column. Speeds and
  /// headings are the platform's raw readings and are read as every file
  /// reader reads them (``SpeedReading``, SPEC §1 *Unmeasured speed*): a
  /// negative or NaN speed is unmeasured, and so is a 0 on a fix looser than
  /// 30 m; a negative or NaN heading is not measured. A reading a reader
  /// refuses (a speed above 600 m/s or infinite, a heading above 360°) is
  /// kept, for validation to reject the fix with its reason.
  /// - Complexity: O(n): one append per fix (the library's columns are its own arrays).
  init(_ c: hearth_fixes) throws(ArgumentError) {
    let n = try checkedCount(c.count, "fixes.count")
    let time = try input(c.time_ms, n, "fixes.time_ms")
    let latitude = try input(c.latitude_deg, n, "fixes.latitude_deg")
    let longitude = try input(c.longitude_deg, n, "fixes.longitude_deg")
    let accuracy = try input(c.horizontal_accuracy_m, n, "fixes.horizontal_accuracy_m")
    let speed = optionalInput(c.speed_mps, n)
    let heading = optionalInput(c.heading_deg, n)
    let altitude = optionalInput(c.altitude_m, n)
    let activity = optionalInput(c.activity, n)
    let source = optionalInput(c.source, n)
    let battery = optionalInput(c.battery_level, n)
    let charging = optionalInput(c.charging, n)
    let device = optionalInput(c.device, n)
    let user = optionalInput(c.user, n)
    func code<E: RawRepresentable>(_ column: UnsafeBufferPointer<UInt8>?, _ i: Int, _ name: String)
      throws(ArgumentError)
      -> E where E.RawValue == UInt8
    {
      let raw = column?[i] ?? 0
      guard let value = E(rawValue: raw) else {
        throw ArgumentError(reason: "fix \(i): fixes.\(name) \(raw) is not a known code")
      }
      return value
    }
    func present(_ column: UnsafeBufferPointer<Double>?, _ i: Int) -> Double? {
      guard let v = column?[i], !v.isNaN else { return nil }
      return v
    }
    self.init()
    reserveCapacity(n)
    for i in 0..<n {
      append(
        Fix(
          timeMilliseconds: time[i], latitudeDegrees: latitude[i], longitudeDegrees: longitude[i],
          horizontalAccuracyMeters: accuracy[i],
          speedMetersPerSecond: present(speed, i).flatMap {
            SpeedReading.storedSpeedMetersPerSecond(raw: $0, horizontalAccuracyMeters: accuracy[i])
          },
          headingDegrees: present(heading, i).flatMap(FixValidation.heading(raw:)),
          altitudeMeters: present(altitude, i),
          activity: try code(activity, i, "activity"), source: try code(source, i, "source"),
          batteryLevel: present(battery, i), charging: try code(charging, i, "charging"),
          device: DeviceID(device?[i] ?? 0), user: UserID(user?[i] ?? 0)))
    }
  }

  /// Writes the columns into `out` (each non-NULL column `count` long).
  func write(to out: hearth_fixes_out) {
    func copy<T>(_ column: [T], _ pointer: UnsafeMutablePointer<T>?) {
      guard let pointer else { return }
      column.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: $0.count) }
    }
    guard count > 0 else { return }
    copy(timeMilliseconds, out.time_ms)
    copy(latitudeDegrees, out.latitude_deg)
    copy(longitudeDegrees, out.longitude_deg)
    copy(horizontalAccuracyMeters, out.horizontal_accuracy_m)
    copy(speedMetersPerSecond, out.speed_mps)
    copy(headingDegrees, out.heading_deg)
    copy(altitudeMeters, out.altitude_m)
    copy(activity.map(\.rawValue), out.activity)
    copy(source.map(\.rawValue), out.source)
    copy(batteryLevel, out.battery_level)
    copy(charging.map(\.rawValue), out.charging)
    copy(device.map(\.rawValue), out.device)
    copy(user.map(\.rawValue), out.user)
  }
}

extension SchemaError {
  /// The header's record of this error.
  var record: hearth_schema_error {
    let field: Int32 =
      switch self.field {
      case .time: HEARTH_FIELD_TIME
      case .latitude: HEARTH_FIELD_LATITUDE
      case .longitude: HEARTH_FIELD_LONGITUDE
      case .horizontalAccuracy: HEARTH_FIELD_HORIZONTAL_ACCURACY
      case .speed: HEARTH_FIELD_SPEED
      case .heading: HEARTH_FIELD_HEADING
      case .altitude: HEARTH_FIELD_ALTITUDE
      case .batteryLevel: HEARTH_FIELD_BATTERY_LEVEL
      }
    let reason = self.reason == .notFinite ? HEARTH_SCHEMA_NOT_FINITE : HEARTH_SCHEMA_OUT_OF_RANGE
    return hearth_schema_error(index: Int64(index), field: field, reason: reason, value: value)
  }
}

extension RejectionReason {
  /// The header's HEARTH_FIX_* code.
  var code: Int32 {
    switch self {
    case .inFuture: HEARTH_FIX_IN_FUTURE
    case .tooOld: HEARTH_FIX_TOO_OLD
    case .accuracyMissing: HEARTH_FIX_ACCURACY_MISSING
    case .accuracyOutOfRange: HEARTH_FIX_ACCURACY_OUT_OF_RANGE
    case .speedOutOfRange: HEARTH_FIX_SPEED_OUT_OF_RANGE
    case .headingOutOfRange: HEARTH_FIX_HEADING_OUT_OF_RANGE
    case .altitudeOutOfRange: HEARTH_FIX_ALTITUDE_OUT_OF_RANGE
    case .batteryOutOfRange: HEARTH_FIX_BATTERY_OUT_OF_RANGE
    }
  }
}

@c public func hearth_validate(
  _ fixes: UnsafePointer<hearth_fixes>?, _ now_ms: Int64, _ max_future_ms: Int64, _ max_age_ms: Int64,
  _ verdict: UnsafeMutablePointer<Int32>?, _ schema: UnsafeMutablePointer<hearth_schema_error>?
) -> Int32 {
  guarded { () throws(ArgumentError) in
    let batch = try validationBatch(fixes, max_future_ms, max_age_ms)
    let out = try output(verdict, batch.count, "verdict")
    let rules = ValidationRules(maximumFutureMilliseconds: max_future_ms, maximumAgeMilliseconds: max_age_ms)
    switch FixValidation.validate(batch, nowMilliseconds: now_ms, rules: rules) {
    case .failure(let error):
      schema?.pointee = error.record
      return HEARTH_ERROR_SCHEMA
    case .success(let report):
      for i in report.acceptedIndices { out[i] = HEARTH_FIX_ACCEPTED }
      for r in report.rejections { out[r.index] = r.reason.code }
      return HEARTH_OK
    }
  }
}

/// The batch `hearth_validate` reads from its arguments, or why it refuses
/// them: NULL fixes, a negative limit, a column the batch cannot be read
/// from (a code outside its enum, named by fix and column). O(n).
private func validationBatch(
  _ fixes: UnsafePointer<hearth_fixes>?, _ maximumFutureMilliseconds: Int64, _ maximumAgeMilliseconds: Int64
) throws(ArgumentError) -> FixColumns {
  guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
  for (name, limit) in [("max_future_ms", maximumFutureMilliseconds), ("max_age_ms", maximumAgeMilliseconds)]
  where limit < 0 {
    throw ArgumentError(reason: "\(name) is \(limit), below 0")
  }
  return try FixColumns(fixes.pointee)
}

/// `hearth_validate`'s arguments checked as it checks them (all but the
/// verdict array): HEARTH_OK with empty bytes, or HEARTH_ERROR_ARGUMENT
/// with the reason on the failed bytes handle (the call itself has no
/// handle to carry it). O(n).
@c public func hearth_validate_check_arguments(
  _ fixes: UnsafePointer<hearth_fixes>?, _ max_future_ms: Int64, _ max_age_ms: Int64,
  _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  do {
    _ = try validationBatch(fixes, max_future_ms, max_age_ms)
    return handOutBytes(out, [])
  } catch {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, error.reason)
  }
}

/// A dedupe index.
final class DedupeHandle: Handle {
  var index = DedupeIndex()
}

@c public func hearth_dedupe_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
  create(out) { (DedupeHandle(), HEARTH_OK) }
}

@c public func hearth_dedupe_insert(
  _ dedupe: OpaquePointer?, _ fixes: UnsafePointer<hearth_fixes>?, _ outcome: UnsafeMutablePointer<Int32>?
) -> Int32 {
  guard let h = Handle.from(dedupe, as: DedupeHandle.self) else { return wrongHandle(dedupe) }
  return guarded(h) { () throws(ArgumentError) in
    guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
    let batch = try FixColumns(fixes.pointee)
    let out = try output(outcome, batch.count, "outcome")
    let result = h.index.insert(batch)
    for i in result.insertedIndices { out[i] = HEARTH_DEDUPE_INSERTED }
    for i in result.duplicateIndices { out[i] = HEARTH_DEDUPE_DUPLICATE }
    for i in result.stillAdoptionIndices { out[i] = HEARTH_DEDUPE_STILL_ADOPTED }
    return h.succeed()
  }
}

@c public func hearth_dedupe_count(_ dedupe: OpaquePointer?, _ count: UnsafeMutablePointer<Int64>?) -> Int32 {
  guard let h = Handle.from(dedupe, as: DedupeHandle.self) else { return wrongHandle(dedupe) }
  guard let count else { return h.fail(HEARTH_ERROR_ARGUMENT, "count is NULL") }
  count.pointee = Int64(h.index.count)
  return h.succeed()
}
