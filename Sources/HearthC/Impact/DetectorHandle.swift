import CHearth
import Foundation
import HearthImpact
import HearthRuntime
import HearthTrace

/// A detector: the runtime's session (the detector, its verdicts, and what
/// the report says beside them, counted there for every door, so the
/// report is the command's byte for byte).
final class DetectorHandle: Handle {
  var session: ImpactSession

  init(configuration: ImpactConfiguration) {
    session = ImpactSession(configuration: configuration)
  }

  var verdicts: [ImpactVerdict] { session.verdicts }
  var conditionCount: Int { verdicts.reduce(0) { $0 + $1.conditions.count } }
}

/// The configuration a JSON object of settings gives over the defaults
/// (nil or empty: the defaults), as `--config` reads it.
func configuration(_ json: UnsafePointer<CChar>?) throws -> ImpactConfiguration {
  guard let text = try string(json, "configuration_json"), !text.isEmpty else { return ImpactConfiguration() }
  return try ImpactConfigurationFile.decode(Data(text.utf8), name: "configuration")
}

/// How a batch's fix speeds reach the detector.
enum FixSpeedSource {
  /// As given (`hearth_detector_feed`, ABI 1.0): negative or NaN is
  /// unmeasured, every other value (a 0 included) is a measured speed.
  case asGiven
  /// Through the runtime's rule with each fix's accuracy, m
  /// (`hearth_detector_feed_with_accuracy`, ABI 1.4; ``ImpactFixSpeeds``):
  /// NULL is every accuracy unknown.
  case withAccuracy(UnsafePointer<Double>?)
}

extension ImpactBatch {
  /// The batch a `hearth_sensor_batch` describes (the detector's samples are
  /// values, so the columns are gathered into them: O(n)), its fix speeds
  /// taken as `speeds` says.
  init(_ b: hearth_sensor_batch, speeds: FixSpeedSource = .asGiven) throws(ArgumentError) {
    func vectors(
      _ count: Int64, _ t: UnsafePointer<Double>?, _ x: UnsafePointer<Double>?, _ y: UnsafePointer<Double>?,
      _ z: UnsafePointer<Double>?, _ name: String
    ) throws(ArgumentError) -> [Sample3] {
      let n = try checkedCount(count, "\(name)_count")
      let (t, x) = (try input(t, n, "\(name)_t_s"), try input(x, n, "\(name)_x"))
      let (y, z) = (try input(y, n, "\(name)_y"), try input(z, n, "\(name)_z"))
      return (0..<n).map { Sample3(t[$0], x[$0], y[$0], z[$0]) }
    }
    func scalars(_ count: Int64, _ t: UnsafePointer<Double>?, _ v: UnsafePointer<Double>?, _ name: String)
      throws(ArgumentError) -> [Sample1]
    {
      let n = try checkedCount(count, "\(name)_count")
      let (t, v) = (try input(t, n, "\(name)_t_s"), try input(v, n, "\(name) values"))
      return (0..<n).map { Sample1(t[$0], v[$0]) }
    }
    func fixes() throws(ArgumentError) -> [Sample1] {
      guard case .withAccuracy(let accuracy) = speeds else {
        return try scalars(b.fix_count, b.fix_t_s, b.fix_speed_mps, "fix")
      }
      let n = try checkedCount(b.fix_count, "fix_count")
      let (t, v) = (try input(b.fix_t_s, n, "fix_t_s"), try input(b.fix_speed_mps, n, "fix_speed_mps"))
      guard let accuracy else {
        return ImpactFixSpeeds.samples(
          seconds: t, rawSpeedsMetersPerSecond: v, horizontalAccuracyMeters: repeatElement(.nan, count: n))
      }
      return ImpactFixSpeeds.samples(
        seconds: t, rawSpeedsMetersPerSecond: v,
        horizontalAccuracyMeters: UnsafeBufferPointer(start: accuracy, count: n))
    }
    self.init(
      accelerometer: try vectors(
        b.accelerometer_count, b.accelerometer_t_s, b.accelerometer_x_mps2, b.accelerometer_y_mps2,
        b.accelerometer_z_mps2, "accelerometer"),
      gyroscope: try vectors(
        b.gyroscope_count, b.gyroscope_t_s, b.gyroscope_x_radps, b.gyroscope_y_radps, b.gyroscope_z_radps,
        "gyroscope"),
      barometer: try scalars(b.barometer_count, b.barometer_t_s, b.barometer_hpa, "barometer"),
      fixes: try fixes(),
      vehicleGate: b.vehicle_gate != 0)
  }
}

/// The header's condition codes, in the order of `hearth.h`.
let conditionNames: [ImpactCondition.Name] = [
  .jolt, .movingBeforeGPS, .movingAtJoltGPS, .movingBeforeVibration, .movingAtJoltVibration, .restWithin,
  .stayedStoppedGPS, .stoppedVibrationRatio, .spin, .pressureRise, .freeFallVeto,
]

@c public func hearth_condition_name(_ condition: Int32) -> UnsafePointer<CChar>? {
  switch condition {
  case HEARTH_CONDITION_JOLT: cText("jolt")
  case HEARTH_CONDITION_MOVING_BEFORE_GPS: cText("movingBeforeGPS")
  case HEARTH_CONDITION_MOVING_AT_JOLT_GPS: cText("movingAtJoltGPS")
  case HEARTH_CONDITION_MOVING_BEFORE_VIBRATION: cText("movingBeforeVibration")
  case HEARTH_CONDITION_MOVING_AT_JOLT_VIBRATION: cText("movingAtJoltVibration")
  case HEARTH_CONDITION_REST_WITHIN: cText("restWithin")
  case HEARTH_CONDITION_STAYED_STOPPED_GPS: cText("stayedStoppedGPS")
  case HEARTH_CONDITION_STOPPED_VIBRATION_RATIO: cText("stoppedVibrationRatio")
  case HEARTH_CONDITION_SPIN: cText("spin")
  case HEARTH_CONDITION_PRESSURE_RISE: cText("pressureRise")
  case HEARTH_CONDITION_FREE_FALL_VETO: cText("freeFallVeto")
  default: cText("")
  }
}

@c public func hearth_condition_unit(_ condition: Int32) -> UnsafePointer<CChar>? {
  guard condition >= 0 && Int(condition) < conditionNames.count else { return cText("") }
  return switch ImpactUnits.unit(conditionNames[Int(condition)]) {
  case "m/s²": cText("m/s²")
  case "m/s": cText("m/s")
  case "rad/s": cText("rad/s")
  case "hPa": cText("hPa")
  case "s": cText("s")
  default: cText("fraction")
  }
}

@c public func hearth_detector_create(
  _ configuration_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    do { return (DetectorHandle(configuration: try configuration(configuration_json)), HEARTH_OK) } catch {
      return FailedHandle.with(status(of: error), "\(error)")
    }
  }
}

/// The detector behind `pointer`, ready to be fed.
private func feedable(_ pointer: OpaquePointer?) -> (DetectorHandle?, Int32) {
  guard let h = Handle.from(pointer, as: DetectorHandle.self) else { return (nil, wrongHandle(pointer)) }
  guard !h.session.isFinished else {
    return (nil, h.fail(HEARTH_ERROR_STATE, "the detector was finished; create a new one"))
  }
  return (h, HEARTH_OK)
}

@c public func hearth_detector_feed(_ detector: OpaquePointer?, _ batch: UnsafePointer<hearth_sensor_batch>?)
  -> Int32
{
  let (handle, status) = feedable(detector)
  guard let h = handle else { return status }
  return guarded(h) { () throws(ArgumentError) in
    guard let batch else { throw ArgumentError(reason: "batch is NULL") }
    h.session.feed(try ImpactBatch(batch.pointee))
    return h.succeed()
  }
}

@c public func hearth_detector_feed_with_accuracy(
  _ detector: OpaquePointer?, _ batch: UnsafePointer<hearth_sensor_batch>?,
  _ fix_accuracy_m: UnsafePointer<Double>?
) -> Int32 {
  let (handle, status) = feedable(detector)
  guard let h = handle else { return status }
  return guarded(h) { () throws(ArgumentError) in
    guard let batch else { throw ArgumentError(reason: "batch is NULL") }
    h.session.feed(try ImpactBatch(batch.pointee, speeds: .withAccuracy(fix_accuracy_m)))
    return h.succeed()
  }
}

@c public func hearth_detector_feed_received(
  _ detector: OpaquePointer?, _ batch: UnsafePointer<hearth_sensor_batch>?,
  _ fix_accuracy_m: UnsafePointer<Double>?, _ received_s: Double
) -> Int32 {
  let (handle, status) = feedable(detector)
  guard let h = handle else { return status }
  return guarded(h) { () throws(ArgumentError) in
    guard let batch else { throw ArgumentError(reason: "batch is NULL") }
    // As the samples' times: within ±maximumAbsoluteTimeSeconds (a receipt
    // in nanoseconds, not divided by 10⁹, is far beyond and would silently
    // bound nothing); NaN: not known.
    let bound = h.session.configuration.maximumAbsoluteTimeSeconds
    guard received_s.isNaN || abs(received_s) <= bound else {
      throw ArgumentError(
        reason:
          "received_s is \(received_s): a receipt time is seconds on the samples' clock, within ±\(bound) s (NaN: not known; nanoseconds not divided by 10⁹?)"
      )
    }
    var b = try ImpactBatch(
      batch.pointee, speeds: fix_accuracy_m.map { .withAccuracy($0) } ?? .asGiven)
    b.receivedSeconds = received_s.isNaN ? nil : received_s
    h.session.feed(b)
    return h.succeed()
  }
}

/// The gate policy of a HEARTH_GATE_* code.
func gatePolicy(_ code: Int32) -> VehicleGatePolicy? {
  switch code {
  case HEARTH_GATE_RECORDING: .recording
  case HEARTH_GATE_ON: .on
  case HEARTH_GATE_OFF: .off
  default: nil
  }
}

@c public func hearth_detector_feed_trace(_ detector: OpaquePointer?, _ trace: OpaquePointer?, _ gate: Int32)
  -> Int32
{
  let (handle, status) = feedable(detector)
  guard let h = handle else { return status }
  guard let t = Handle.from(trace, as: TraceHandle.self) else {
    return h.fail(HEARTH_ERROR_ARGUMENT, "trace is not a readable trace handle")
  }
  guard let policy = gatePolicy(gate) else {
    return h.fail(HEARTH_ERROR_ARGUMENT, "unknown vehicle gate \(gate)")
  }
  // Streamed, as `impact detect` streams it: a file read again from its
  // path, columns through the readers' checks, in bounded memory.
  do {
    try h.session.feed(t.stream(), name: t.name, gate: policy)
    return h.succeed()
  } catch {
    return h.fail(HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}

@c public func hearth_detector_finish(_ detector: OpaquePointer?) -> Int32 {
  let (handle, status) = feedable(detector)
  guard let h = handle else { return status }
  h.session.finish()
  return h.succeed()
}

@c public func hearth_detector_count(
  _ detector: OpaquePointer?, _ verdicts: UnsafeMutablePointer<Int64>?,
  _ conditions: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(detector, as: DetectorHandle.self) else { return wrongHandle(detector) }
  verdicts?.pointee = Int64(h.verdicts.count)
  conditions?.pointee = Int64(h.conditionCount)
  return h.succeed()
}

extension ImpactVerdict.Outcome {
  var code: Int32 {
    switch self {
    case .possibleImpact: HEARTH_OUTCOME_POSSIBLE_IMPACT
    case .silent: HEARTH_OUTCOME_SILENT
    case .suppressed: HEARTH_OUTCOME_SUPPRESSED
    }
  }
}

@c public func hearth_detector_verdicts(
  _ detector: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_verdict>?
) -> Int32 {
  guard let h = Handle.from(detector, as: DetectorHandle.self) else { return wrongHandle(detector) }
  return guarded(h) { () throws(ArgumentError) in
    guard try checkedCount(capacity, "capacity") >= h.verdicts.count else {
      return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(h.verdicts.count) verdicts")
    }
    let records = try output(out, h.verdicts.count, "out")
    var first: Int64 = 0
    for (i, v) in h.verdicts.enumerated() {
      records[i] = hearth_verdict(
        outcome: v.outcome.code, used_gps: v.usedGPS ? 1 : 0, jolt_s: v.joltSeconds,
        decided_s: v.decidedSeconds,
        jolt_g: (v.measured(.jolt) ?? .nan) / ImpactConfiguration.standardGravity, first_condition: first,
        condition_count: Int64(v.conditions.count))
      first += Int64(v.conditions.count)
    }
    return h.succeed()
  }
}

@c public func hearth_detector_conditions(
  _ detector: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_condition>?
) -> Int32 {
  guard let h = Handle.from(detector, as: DetectorHandle.self) else { return wrongHandle(detector) }
  return guarded(h) { () throws(ArgumentError) in
    let total = h.conditionCount
    guard try checkedCount(capacity, "capacity") >= total else {
      return h.fail(HEARTH_ERROR_CAPACITY, "capacity \(capacity) < \(total) conditions")
    }
    let records = try output(out, total, "out")
    var k = 0
    for (i, v) in h.verdicts.enumerated() {
      for c in v.conditions {
        let code = conditionNames.firstIndex(of: c.name) ?? -1
        records[k] = hearth_condition(
          verdict: Int64(i), condition: Int32(code), held: c.held ? 1 : 0, measured: c.measured,
          threshold: c.threshold)
        k += 1
      }
    }
    return h.succeed()
  }
}

@c public func hearth_detector_counters(
  _ detector: OpaquePointer?, _ skipped_samples: UnsafeMutablePointer<Int64>?,
  _ jolts_gate_off: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(detector, as: DetectorHandle.self) else { return wrongHandle(detector) }
  skipped_samples?.pointee = Int64(h.session.detector.counters.skippedSamples)
  jolts_gate_off?.pointee = Int64(h.session.detector.counters.joltsGateOff)
  return h.succeed()
}

/// Lines as the command prints them: each followed by a newline.
func text(_ lines: [String]) -> [UInt8] { Array(lines.map { $0 + "\n" }.joined().utf8) }

@c public func hearth_detector_report(
  _ detector: OpaquePointer?, _ file_name: UnsafePointer<CChar>?, _ format: Int32,
  _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let h = Handle.from(detector, as: DetectorHandle.self) else { return wrongHandle(detector) }
  let name: String?
  do throws(ArgumentError) { name = try string(file_name, "file_name") } catch {
    return handOutFailure(out, HEARTH_ERROR_ARGUMENT, error.reason)
  }
  let records = h.session.records(file: name ?? "-")
  do {
    switch format {
    case HEARTH_FORMAT_TEXT: return handOutBytes(out, text(records.text))
    case HEARTH_FORMAT_JSON: return handOutBytes(out, text(try records.jsonLines()))
    case HEARTH_FORMAT_CSV: return handOutBytes(out, text([VerdictRecords.csvHeader] + records.csv))
    default: return handOutFailure(out, HEARTH_ERROR_ARGUMENT, "unknown format \(format)")
    }
  } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "\(error)")
  }
}

@c public func hearth_configuration_json(
  _ configuration_json: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  do {
    return handOutBytes(out, try ImpactConfigurationFile.encode(try configuration(configuration_json)))
  } catch {
    return handOutFailure(out, status(of: error), "\(error)")
  }
}
