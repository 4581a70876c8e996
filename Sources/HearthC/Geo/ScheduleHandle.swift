import CHearth
import HearthGeo
import HearthRuntime

/// The runtime's server schedule (``ServerSchedule``) of one history, as the
/// header's steps and rows, with each upload's refusal. Immutable: any
/// number of threads read it at once, so its calls give their errors in
/// the status only and never write its message.
final class ScheduleHandle: Handle {
  let steps: [hearth_step]
  let rows: [Int64]
  override class var sharedAcrossThreads: Bool { true }

  init(_ schedule: ServerSchedule, refused: [Bool]) {
    steps = zip(schedule.steps, refused).map { step, refused in
      hearth_step(
        time_ms: step.timeMilliseconds, first_row: Int64(step.rows.lowerBound),
        row_count: Int64(step.rows.count),
        kind: step.isUpload ? HEARTH_STEP_UPLOAD : HEARTH_STEP_TICK, refused: refused ? 1 : 0)
    }
    rows = schedule.rows.map(Int64.init)
  }
}

extension ServerSchedule.Settings {
  /// The header's settings, each checked (the reason names the field).
  init(_ s: hearth_schedule_settings) throws(ArgumentError) {
    func atLeast(_ value: Int64, _ least: Int64, _ name: String) throws(ArgumentError) -> Int64 {
      guard value >= least else {
        throw ArgumentError(reason: "settings.\(name) is \(value), below \(least)")
      }
      return value
    }
    self.init()
    uploads = ServerUploads.Policy(
      maximumFixes: Int(try atLeast(s.max_fixes, 1, "max_fixes")),
      maximumSpanMilliseconds: try atLeast(s.max_span_ms, 0, "max_span_ms"),
      receiptDelayMilliseconds: try atLeast(s.receipt_delay_ms, 0, "receipt_delay_ms"))
    tickMilliseconds = try atLeast(s.tick_ms, 1, "tick_ms")
    idleTickingMilliseconds = try atLeast(s.idle_ticking_ms, 0, "idle_ticking_ms")
    untilMilliseconds = s.until_ms == .min ? nil : s.until_ms
    lingerMilliseconds = try atLeast(s.linger_ms, 0, "linger_ms")
  }
}

@c public func hearth_schedule_defaults(_ out: UnsafeMutablePointer<hearth_schedule_settings>?) -> Int32 {
  guard let out else { return HEARTH_ERROR_ARGUMENT }
  let d = ServerSchedule.Settings()
  out.pointee = hearth_schedule_settings(
    max_fixes: Int64(d.uploads.maximumFixes), max_span_ms: d.uploads.maximumSpanMilliseconds,
    receipt_delay_ms: d.uploads.receiptDelayMilliseconds, tick_ms: d.tickMilliseconds,
    idle_ticking_ms: d.idleTickingMilliseconds, until_ms: d.untilMilliseconds ?? .min,
    linger_ms: d.lingerMilliseconds)
  return HEARTH_OK
}

@c public func hearth_schedule_create(
  _ fixes: UnsafePointer<hearth_fixes>?, _ received_ms: UnsafePointer<Int64>?,
  _ settings: UnsafePointer<hearth_schedule_settings>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    do throws(ArgumentError) {
      guard let fixes else { throw ArgumentError(reason: "fixes is NULL") }
      guard let settings else { throw ArgumentError(reason: "settings is NULL") }
      let history = try FixColumns(fixes.pointee)
      let chosen = try ServerSchedule.Settings(settings.pointee)
      let receipts = try received_ms.map { _ throws(ArgumentError) in
        Array(try input(received_ms, history.count, "received_ms"))
      }
      let schedule = ServerSchedule(history, receivedAtMilliseconds: receipts, settings: chosen)
      if let why = schedule.refusal { throw ArgumentError(reason: why) }
      return (ScheduleHandle(schedule, refused: schedule.refusals(of: history)), HEARTH_OK)
    } catch {
      return FailedHandle.with(HEARTH_ERROR_ARGUMENT, error.reason)
    }
  }
}

@c public func hearth_schedule_count(
  _ schedule: OpaquePointer?, _ steps: UnsafeMutablePointer<Int64>?, _ rows: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(schedule, as: ScheduleHandle.self) else { return wrongHandle(schedule) }
  steps?.pointee = Int64(h.steps.count)
  rows?.pointee = Int64(h.rows.count)
  return HEARTH_OK
}

@c public func hearth_schedule_steps(
  _ schedule: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<hearth_step>?
) -> Int32 {
  guard let h = Handle.from(schedule, as: ScheduleHandle.self) else { return wrongHandle(schedule) }
  return copyOut(h.steps, capacity: capacity, to: out, on: nil, "steps")
}

@c public func hearth_schedule_rows(
  _ schedule: OpaquePointer?, _ capacity: Int64, _ out: UnsafeMutablePointer<Int64>?
) -> Int32 {
  guard let h = Handle.from(schedule, as: ScheduleHandle.self) else { return wrongHandle(schedule) }
  return copyOut(h.rows, capacity: capacity, to: out, on: nil, "rows")
}
