import CHearth
import Dispatch
import Testing

/// A handle passed where another kind belongs: refused, and its message is
/// written only on a kind used from one thread at a time (review25: the
/// message written on a shared bytes handle raced with its readers).
@Suite("A handle of another kind is refused without writing on a handle other threads may read")
struct HandleKindTests {
  /// One fix, for a schedule of one upload.
  static func oneFixSchedule() -> OpaquePointer? {
    var time: Int64 = 1_700_000_000_000
    var latitude = 51.5
    var longitude = -0.12
    var accuracy = 10.0
    var settings = hearth_schedule_settings()
    #expect(hearth_schedule_defaults(&settings) == HEARTH_OK)
    var schedule: OpaquePointer?
    let status = withUnsafePointer(to: &time) { t in
      withUnsafePointer(to: &latitude) { la in
        withUnsafePointer(to: &longitude) { lo in
          withUnsafePointer(to: &accuracy) { a in
            var fixes = hearth_fixes()
            fixes.count = 1
            (fixes.time_ms, fixes.latitude_deg, fixes.longitude_deg, fixes.horizontal_accuracy_m) = (
              t, la, lo, a
            )
            return hearth_schedule_create(&fixes, nil, &settings, &schedule)
          }
        }
      }
    }
    #expect(status == HEARTH_OK)
    return schedule
  }

  @Test(
    "bytes, a grid, a schedule and a trace handed to another kind's call: HEARTH_ERROR_ARGUMENT, their message as it was"
  )
  func sharedKindsKeepTheirMessage() {
    var refused: OpaquePointer?  // failed bytes carrying a reason
    #expect(hearth_privacy_check_settings(1000, 0, &refused) == HEARTH_ERROR_ARGUMENT)
    let reason = lastError(refused)
    #expect(reason.contains("slot"))
    var empty: OpaquePointer?
    #expect(hearth_privacy_check_settings(1000, 60_000, &empty) == HEARTH_OK)
    var grid: OpaquePointer?
    #expect(hearth_grid_create(750, &grid) == HEARTH_OK)
    var trace: OpaquePointer?
    #expect(hearth_trace_create("{}", &trace) == HEARTH_OK)
    let schedule = Self.oneFixSchedule()
    for (handle, before) in [(refused, reason), (empty, ""), (grid, ""), (trace, ""), (schedule, "")] {
      #expect(hearth_detector_finish(handle) == HEARTH_ERROR_ARGUMENT)
      #expect(hearth_ingest_tick(handle, 1_700_000_000_000) == HEARTH_ERROR_ARGUMENT)
      #expect(lastError(handle) == before)
    }
    // The shared kinds refuse one another too.
    var steps: Int64 = -1
    #expect(hearth_schedule_count(grid, &steps, nil) == HEARTH_ERROR_ARGUMENT)
    #expect(steps == -1)
    var count: Int64 = -1
    #expect(hearth_trace_count(schedule, 0, &count) == HEARTH_ERROR_ARGUMENT)
    #expect(lastError(grid) == "" && lastError(schedule) == "")
    for handle in [refused, empty, grid, trace, schedule] { release(handle) }
  }

  @Test("a detector or a dedupe index handed to another kind's call is told so on its own message")
  func oneThreadKindsAreTold() {
    var detector: OpaquePointer?
    #expect(hearth_detector_create(nil, &detector) == HEARTH_OK)
    var dedupe: OpaquePointer?
    #expect(hearth_dedupe_create(&dedupe) == HEARTH_OK)
    for handle in [detector, dedupe] {
      #expect(hearth_schedule_count(handle, nil, nil) == HEARTH_ERROR_ARGUMENT)
      #expect(lastError(handle) == "a handle of another kind was passed")
    }
    // The next call of its own kind clears it.
    #expect(hearth_detector_finish(detector) == HEARTH_OK)
    #expect(lastError(detector) == "")
    for handle in [detector, dedupe] { release(handle) }
  }

  @Test(
    "a handle that failed to create is HEARTH_ERROR_STATE on every call, its reason kept; NULL is an argument"
  )
  func failedAndNull() {
    var failed: OpaquePointer?
    #expect(hearth_grid_create(-1, &failed) == HEARTH_ERROR_ARGUMENT)
    let reason = lastError(failed)
    #expect(!reason.isEmpty)
    #expect(hearth_ingest_tick(failed, 0) == HEARTH_ERROR_STATE)
    #expect(hearth_schedule_count(failed, nil, nil) == HEARTH_ERROR_STATE)
    #expect(lastError(failed) == reason)
    #expect(hearth_schedule_count(nil, nil, nil) == HEARTH_ERROR_ARGUMENT)
    release(failed)
  }

  @Test("a schedule's own errors are in the status only: a capacity too small, a NULL array")
  func scheduleErrorsLeaveItsMessage() {
    let schedule = Self.oneFixSchedule()
    var steps: Int64 = 0
    var rows: Int64 = 0
    #expect(hearth_schedule_count(schedule, &steps, &rows) == HEARTH_OK)
    #expect(steps >= 1 && rows == 1)
    var step = hearth_step()
    #expect(hearth_schedule_steps(schedule, 0, &step) == HEARTH_ERROR_CAPACITY)
    #expect(hearth_schedule_rows(schedule, 1, nil) == HEARTH_ERROR_ARGUMENT)
    #expect(lastError(schedule) == "")
    var row: Int64 = -1
    #expect(hearth_schedule_rows(schedule, 1, &row) == HEARTH_OK)
    #expect(row == 0)
    release(schedule)
  }

  /// Before, every such call freed the handle's last message and stored a
  /// new one: two threads at once freed the same message twice.
  @Test("threads handing one bytes handle to the wrong call while others read it: no write, no crash")
  func concurrentMisuseOfSharedBytes() {
    var refused: OpaquePointer?
    #expect(hearth_privacy_check_settings(1000, 0, &refused) == HEARTH_ERROR_ARGUMENT)
    let reason = lastError(refused)
    nonisolated(unsafe) let shared = refused
    DispatchQueue.concurrentPerform(iterations: 8) { lane in
      for _ in 0..<2_000 {
        if lane.isMultiple(of: 2) {
          _ = hearth_detector_finish(shared)
        } else {
          _ = hearth_last_error(UnsafeRawPointer(shared)).map { String(cString: $0) }
        }
      }
    }
    #expect(lastError(refused) == reason)
    release(refused)
  }
}
