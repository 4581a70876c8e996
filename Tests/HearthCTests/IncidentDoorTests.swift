import CHearth
import Testing

@Suite("The incident door checks the verdict time as a saved state is checked")
struct IncidentDoorTests {
  /// An incident made from a verdict outside 1900–2200 saved, and its saved
  /// state was refused on restore (the state's own check); the door now
  /// refuses it before an incident exists.
  @Test(
    "a verdict in 1900–2200 starts an incident; one millisecond outside, or Int64's ends, is refused by name")
  func verdictWindow() {
    let first: Int64 = -2_208_988_800_000  // 1900-01-01
    let end: Int64 = 7_258_118_400_000  // 2200-01-01, excluded
    for verdict in [first, end - 1, 1_700_000_000_000] {
      var incident: OpaquePointer?
      #expect(hearth_incident_create(verdict, "ada", &incident) == HEARTH_OK)
      // What it makes, it restores.
      var saved: OpaquePointer?
      #expect(hearth_incident_save(incident, &saved) == HEARTH_OK)
      var back: OpaquePointer?
      #expect(hearth_incident_restore(hearth_bytes_data(saved), hearth_bytes_size(saved), &back) == HEARTH_OK)
      for handle in [incident, saved, back] { release(handle) }
    }
    for verdict in [first - 1, end, .min, .max] {
      var incident: OpaquePointer?
      #expect(hearth_incident_create(verdict, "ada", &incident) == HEARTH_ERROR_ARGUMENT)
      #expect(lastError(incident) == "verdict_ms: \(verdict) ms is outside 1900–2200: not a clock")
      release(incident)
    }
  }

  /// A clock outside 1900–2200 at a check made a state that saved and was
  /// then refused on restore: the incident was lost at the next process kill.
  @Test(
    "a check's now_ms in 1900–2200 is taken, saved and restored; one millisecond outside is refused and changes nothing"
  )
  func checkClockWindow() {
    let first: Int64 = -2_208_988_800_000
    let end: Int64 = 7_258_118_400_000
    let verdict: Int64 = 1_700_000_000_000
    var incident: OpaquePointer?
    #expect(hearth_incident_create(verdict, "ada", &incident) == HEARTH_OK)
    var action = hearth_incident_action()
    for now in [first - 1, end, .min, .max] {
      #expect(
        hearth_incident_check(incident, now, HEARTH_INPUT_NETWORK_FAILURE, 0, 0, nil, &action)
          == HEARTH_ERROR_ARGUMENT)
      #expect(lastError(incident) == "now_ms: \(now) ms is outside 1900–2200: not a clock")
    }
    // Nothing changed: the question is still open 30 s after the verdict.
    #expect(hearth_incident_check(incident, verdict, HEARTH_INPUT_NOTHING, 0, 0, nil, &action) == HEARTH_OK)
    #expect(action.action == HEARTH_ACTION_ASK && action.time_ms == verdict + 30_000)
    for now in [first, end - 1] {
      #expect(hearth_incident_check(incident, now, HEARTH_INPUT_NOTHING, 0, 0, nil, &action) == HEARTH_OK)
      var saved: OpaquePointer?
      #expect(hearth_incident_save(incident, &saved) == HEARTH_OK)
      var back: OpaquePointer?
      #expect(
        hearth_incident_restore(hearth_bytes_data(saved), hearth_bytes_size(saved), &back) == HEARTH_OK,
        "\(now)")
      release(saved)
      release(back)
    }
    release(incident)
  }
}
