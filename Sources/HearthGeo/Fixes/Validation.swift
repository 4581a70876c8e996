/// Ingest validation (SPEC §1, *Validation*).
///
/// Two kinds of bad input are told apart:
/// - a **schema error** (a latitude or longitude outside its range or not
///   finite) means the sender is broken: the whole batch is refused, naming
///   the first offending fix and field;
/// - an **implausible fix** (too far in the future, too old, no usable
///   accuracy, a speed, heading, altitude or battery level no phone
///   reports) is rejected on its own with a reason code and counted; the
///   rest of the batch goes on.
///
/// Nothing is dropped silently: `accepted + rejected == input` always.
public enum FixValidation {
  /// The times a fix may carry at all, ms since the epoch: [1900-01-01,
  /// 2200-01-01) UTC, whatever the server clock says; the file readers take
  /// the same span (`ReadingBounds.fixMilliseconds`). Before it a fix is too
  /// old, from its end on in the future. It keeps the difference of any two
  /// accepted fixes' times far inside Int64: a door's clock near Int64.min
  /// for one batch and near Int64.max for the next would otherwise accept
  /// two fixes whose interval overflows in every engine.
  public static let plausibleMilliseconds: Range<Int64> = -2_208_988_800_000..<7_258_118_400_000

  /// Why `milliseconds` cannot be the server's clock (a batch's receipt, a
  /// timer tick), or nil: a server's clock reads a date in
  /// ``plausibleMilliseconds``. Outside it, a clock in the wrong unit (ns,
  /// s) would raise every waiting stop and close every trip at once, or
  /// tick through centuries. The ABI's ingest (`hearth_ingest_batch`,
  /// `hearth_ingest_tick`), the upload-log reader and the runtime's server
  /// schedule (its receipts and end) refuse it with this reason; the
  /// schedule's derived receipts and lingering end stay inside. O(1).
  public static func serverClockProblem(_ milliseconds: Int64) -> String? {
    plausibleMilliseconds.contains(milliseconds)
      ? nil : "\(milliseconds) is not a time from 1900 to 2200 in ms since the epoch"
  }
}

extension FixValidation {
  // The values a fix's measured fields can take, the same for every door:
  // the file readers refuse a row outside them (`ReadingBounds`) and
  // validation rejects a fix outside them, so a value a reader would refuse
  // never reaches an engine through the C ABI either (a speed of 10⁹ m/s is
  // no reading, whatever an engine would make of it). The reasons for each
  // bound are in docs/guides/trace-formats.md.

  /// Largest horizontal accuracy, m (a cell-tower fix is a few km).
  public static let maximumAccuracyMeters = 100_000.0
  /// Largest measured speed, m/s (faster than any airliner).
  public static let maximumSpeedMetersPerSecond = 600.0
  /// Headings, degrees clockwise from true north (360 is north too).
  public static let headingDegrees: ClosedRange<Double> = 0...360
  /// Altitudes, m (the Dead Sea shore is −430 m, a stratospheric balloon 40 km).
  public static let altitudeMeters: ClosedRange<Double> = -2000...100_000
  /// Battery levels, a fraction.
  public static let batteryLevels: ClosedRange<Double> = 0...1

  /// Why a fix's stored optional fields (NaN: not measured, as
  /// ``FixColumns`` holds them) cannot be a reading, or nil: the first of
  /// accuracy above its maximum, speed, heading, altitude, battery outside
  /// its range (±∞ is outside every range; a negative speed or heading is
  /// outside too, since a door has already made a platform's "not measured"
  /// NaN: ``SpeedReading``, ``heading(raw:)``). O(1).
  @inline(__always)
  public static func rangeProblem(
    accuracyMeters: Double, speedMetersPerSecond: Double, headingDegrees heading: Double,
    altitudeMeters altitude: Double, batteryLevel: Double
  ) -> RejectionReason? {
    // Each test is false for NaN (not measured) and true for ±∞ past a bound.
    if accuracyMeters > maximumAccuracyMeters { return .accuracyOutOfRange }
    if outside(speedMetersPerSecond, 0...maximumSpeedMetersPerSecond) { return .speedOutOfRange }
    if outside(heading, headingDegrees) { return .headingOutOfRange }
    if outside(altitude, altitudeMeters) { return .altitudeOutOfRange }
    if outside(batteryLevel, batteryLevels) { return .batteryOutOfRange }
    return nil
  }

  /// Whether `value` is a number outside `range` (NaN is not). O(1).
  @inline(__always)
  static func outside(_ value: Double, _ range: ClosedRange<Double>) -> Bool {
    value < range.lowerBound || value > range.upperBound
  }

  /// Whether no fix of `batch` has a field outside its range
  /// (``rangeProblem(accuracyMeters:speedMetersPerSecond:headingDegrees:altitudeMeters:batteryLevel:)``
  /// nil for every fix): one pass per column with no branch per value, so
  /// that validation looks at each fix's fields only in a batch that has
  /// such a value. O(n).
  static func allInRange(_ batch: FixColumns) -> Bool {
    func none(_ column: [Double], _ range: ClosedRange<Double>) -> Bool {
      column.withUnsafeBufferPointer { values in
        var count = 0
        for value in values { count &+= outside(value, range) ? 1 : 0 }
        return count == 0
      }
    }
    return none(batch.horizontalAccuracyMeters, -Double.infinity...maximumAccuracyMeters)
      && none(batch.speedMetersPerSecond, 0...maximumSpeedMetersPerSecond)
      && none(batch.headingDegrees, headingDegrees) && none(batch.altitudeMeters, altitudeMeters)
      && none(batch.batteryLevel, batteryLevels)
  }

  /// A platform's raw heading as a fix stores it: nil (not measured) for
  /// NaN or a negative finite reading (iOS's −1); anything else as it is,
  /// so that ``rangeProblem(accuracyMeters:speedMetersPerSecond:headingDegrees:altitudeMeters:batteryLevel:)``
  /// rejects 400° or −∞. Exact. O(1).
  public static func heading(raw: Double) -> Double? {
    raw.isNaN || (raw < 0 && raw.isFinite) ? nil : raw
  }
}

/// Limits for ``FixValidation/validate(_:nowMilliseconds:rules:)``.
public struct ValidationRules: Sendable, Hashable, Codable {
  /// A fix dated more than this after the server's clock is rejected, ms.
  /// Default 5 min.
  public var maximumFutureMilliseconds: Int64
  /// A fix dated more than this before the server's clock is rejected, ms.
  /// Default 7 days.
  public var maximumAgeMilliseconds: Int64

  public init(
    maximumFutureMilliseconds: Int64 = 5 * 60_000,
    maximumAgeMilliseconds: Int64 = 7 * 86_400_000
  ) {
    self.maximumFutureMilliseconds = maximumFutureMilliseconds
    self.maximumAgeMilliseconds = maximumAgeMilliseconds
  }

  /// How long a stored fix's key matters to dedupe, ms: the age limit plus
  /// the future limit (saturating). A fix older than a device's newest
  /// stored fix by more than this was too old on every server clock that
  /// could accept the newest, so on a clock that never steps back it can
  /// only come back rejected (``DedupeIndex`` may forget its key).
  public var keysMatterMilliseconds: Int64 {
    let (sum, overflow) = max(0, maximumAgeMilliseconds).addingReportingOverflow(
      max(0, maximumFutureMilliseconds))
    return overflow ? .max : sum
  }
}

/// The column a validation finding is about.
public enum FixField: String, Sendable, Hashable, Codable, CaseIterable {
  case time, latitude, longitude, horizontalAccuracy, speed, heading, altitude, batteryLevel
}

/// Why a whole batch was refused.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Reason: String, Sendable, Hashable, Codable {
    case notFinite = "not a finite number"
    case outOfRange = "outside its range"
  }
  /// Index of the first offending fix in the batch.
  public var index: Int
  public var field: FixField
  public var reason: Reason
  /// The offending value.
  public var value: Double

  public var description: String {
    let range = field == .latitude ? "[-90, 90]" : "[-180, 180]"
    return "fix \(index): \(field.rawValue) \(value) is \(reason.rawValue) \(range); batch refused"
  }
}

/// Why a single fix was rejected.
public enum RejectionReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// Dated more than ``ValidationRules/maximumFutureMilliseconds`` ahead,
  /// or from 2200-01-01 on (``FixValidation/plausibleMilliseconds``).
  case inFuture
  /// Dated more than ``ValidationRules/maximumAgeMilliseconds`` ago, or
  /// before 1900-01-01; on the ingest path also older than a newer fix of
  /// the same device by more than ``ValidationRules/keysMatterMilliseconds``
  /// once dedupe forgot that far back (only after the server's clock
  /// stepped back: the fix was too old on the clock that took the newer one).
  case tooOld
  /// Horizontal accuracy NaN, negative or infinite: the fix cannot be gated.
  case accuracyMissing
  /// Horizontal accuracy above ``FixValidation/maximumAccuracyMeters``.
  case accuracyOutOfRange
  /// A measured speed outside 0 … ``FixValidation/maximumSpeedMetersPerSecond``
  /// (infinite included).
  case speedOutOfRange
  /// A heading outside ``FixValidation/headingDegrees``.
  case headingOutOfRange
  /// An altitude outside ``FixValidation/altitudeMeters``.
  case altitudeOutOfRange
  /// A battery level outside ``FixValidation/batteryLevels``.
  case batteryOutOfRange

  /// The field the reason is about.
  public var field: FixField {
    switch self {
    case .inFuture, .tooOld: .time
    case .accuracyMissing, .accuracyOutOfRange: .horizontalAccuracy
    case .speedOutOfRange: .speed
    case .headingOutOfRange: .heading
    case .altitudeOutOfRange: .altitude
    case .batteryOutOfRange: .batteryLevel
    }
  }
}

/// One rejected fix.
public struct Rejection: Sendable, Hashable, Codable {
  public var index: Int
  public var reason: RejectionReason

  public init(index: Int, reason: RejectionReason) {
    self.index = index
    self.reason = reason
  }
}

/// What validation decided for a batch that passed the schema check.
public struct ValidationReport: Sendable, Hashable {
  /// Number of fixes in the input batch.
  public var inputCount: Int
  /// Indices of the accepted fixes, ascending.
  public var acceptedIndices: [Int]
  /// Every rejected fix with its reason, ascending by index.
  public var rejections: [Rejection]

  public init(inputCount: Int, acceptedIndices: [Int], rejections: [Rejection]) {
    self.inputCount = inputCount
    self.acceptedIndices = acceptedIndices
    self.rejections = rejections
  }

  /// Rejections counted by reason (every reason present, zero included).
  public var rejectedCountsByReason: [RejectionReason: Int] {
    var counts = Dictionary(uniqueKeysWithValues: RejectionReason.allCases.map { ($0, 0) })
    for rejection in rejections { counts[rejection.reason, default: 0] += 1 }
    return counts
  }

  /// `accepted + rejected == input`: true for every report validation makes.
  public var reconciles: Bool { acceptedIndices.count + rejections.count == inputCount }
}

extension FixValidation {
  /// Validates a batch against the server clock.
  ///
  /// - Parameters:
  ///   - batch: the uploaded fixes, in upload order.
  ///   - nowMilliseconds: the server clock, ms since the epoch.
  ///   - rules: the time limits.
  /// - Returns: `.failure` with the first schema error (lowest index; latitude
  ///   checked before longitude), or `.success` with the accepted indices and
  ///   every rejection. A fix can have several problems; it is reported once,
  ///   with the first reason in the order time (future, old), accuracy
  ///   (missing, out of range), speed, heading, altitude, battery
  ///   (``rangeProblem(accuracyMeters:speedMetersPerSecond:headingDegrees:altitudeMeters:batteryLevel:)``).
  /// - Complexity: O(n), no allocation per fix.
  public static func validate(
    _ batch: FixColumns, nowMilliseconds: Int64, rules: ValidationRules = ValidationRules()
  ) -> Result<ValidationReport, SchemaError> {
    let n = batch.count
    for index in 0..<n {
      if let error = schemaError(
        latitude: batch.latitudeDegrees[index], longitude: batch.longitudeDegrees[index],
        index: index)
      {
        return .failure(error)
      }
    }
    var accepted: [Int] = []
    accepted.reserveCapacity(n)
    var rejections: [Rejection] = []
    let newestAllowed = nowMilliseconds.addingReportingOverflow(rules.maximumFutureMilliseconds)
    let oldestAllowed = nowMilliseconds.subtractingReportingOverflow(rules.maximumAgeMilliseconds)
    let newest = min(
      newestAllowed.overflow ? Int64.max : newestAllowed.partialValue, plausibleMilliseconds.upperBound - 1)
    let oldest = max(
      oldestAllowed.overflow ? Int64.min : oldestAllowed.partialValue, plausibleMilliseconds.lowerBound)
    let fieldsInRange = allInRange(batch)
    for index in 0..<n {
      let time = batch.timeMilliseconds[index]
      let accuracy = batch.horizontalAccuracyMeters[index]
      let reason: RejectionReason? =
        if time > newest { .inFuture } else if time < oldest {
          .tooOld
        } else if !(accuracy >= 0 && accuracy.isFinite) {
          .accuracyMissing
        } else if fieldsInRange {
          nil
        } else {
          rangeProblem(
            accuracyMeters: accuracy, speedMetersPerSecond: batch.speedMetersPerSecond[index],
            headingDegrees: batch.headingDegrees[index], altitudeMeters: batch.altitudeMeters[index],
            batteryLevel: batch.batteryLevel[index])
        }
      if let reason {
        rejections.append(Rejection(index: index, reason: reason))
      } else {
        accepted.append(index)
      }
    }
    return .success(ValidationReport(inputCount: n, acceptedIndices: accepted, rejections: rejections))
  }

  /// The schema error of one position, if any.
  @inline(__always)
  static func schemaError(latitude: Double, longitude: Double, index: Int) -> SchemaError? {
    if !latitude.isFinite {
      return SchemaError(index: index, field: .latitude, reason: .notFinite, value: latitude)
    }
    if abs(latitude) > 90 {
      return SchemaError(index: index, field: .latitude, reason: .outOfRange, value: latitude)
    }
    if !longitude.isFinite {
      return SchemaError(index: index, field: .longitude, reason: .notFinite, value: longitude)
    }
    if abs(longitude) > 180 {
      return SchemaError(index: index, field: .longitude, reason: .outOfRange, value: longitude)
    }
    return nil
  }
}
