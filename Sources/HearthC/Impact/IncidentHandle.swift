import CHearth
import Foundation
import HearthImpact
import HearthRuntime

/// One incident's state (SPEC §10), moved by `hearth_incident_check`.
final class IncidentHandle: Handle {
  var state: IncidentState
  init(_ state: IncidentState) { self.state = state }
}

@c public func hearth_incident_create(
  _ verdict_ms: Int64, _ account: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) { () throws(ArgumentError) in
    guard let account = try string(account, "account") else {
      return FailedHandle.with(HEARTH_ERROR_ARGUMENT, "account is NULL")
    }
    if let why = IncidentState.clockProblem(verdict_ms) {
      return FailedHandle.with(HEARTH_ERROR_ARGUMENT, "verdict_ms: \(why)")
    }
    return (IncidentHandle(IncidentState(verdictMilliseconds: verdict_ms, account: account)), HEARTH_OK)
  }
}

/// The lifecycle's input for a HEARTH_INPUT_* code and its arguments.
private func incidentInput(_ code: Int32, status: Int32, tokensHeld: Int32, account: String?)
  throws(ArgumentError)
  -> IncidentInput
{
  switch code {
  case HEARTH_INPUT_NOTHING: return .nothing
  case HEARTH_INPUT_DISMISSED: return .dismissed
  case HEARTH_INPUT_ALERT_NOW: return .alertNow
  case HEARTH_INPUT_DELIVERED: return .sendResult(.delivered)
  case HEARTH_INPUT_NETWORK_FAILURE: return .sendResult(.networkFailure)
  case HEARTH_INPUT_HTTP: return .sendResult(.http(status: Int(status), tokensHeld: tokensHeld != 0))
  case HEARTH_INPUT_FIREWALL_PAGE: return .sendResult(.firewallPage)
  case HEARTH_INPUT_UPLOAD_SUCCEEDED: return .uploadSucceeded
  case HEARTH_INPUT_SIGNED_IN:
    guard let account else { throw ArgumentError(reason: "HEARTH_INPUT_SIGNED_IN needs an account") }
    return .signedIn(account: account)
  default: throw ArgumentError(reason: "unknown incident input \(code)")
  }
}

extension IncidentEnd {
  var code: Int32 {
    switch self {
    case .dismissed: HEARTH_END_DISMISSED
    case .delivered: HEARTH_END_DELIVERED
    case .refused: HEARTH_END_REFUSED
    case .droppedAfterAnHour: HEARTH_END_DROPPED_AFTER_AN_HOUR
    case .otherAccount: HEARTH_END_OTHER_ACCOUNT
    }
  }
}

@c public func hearth_incident_check(
  _ incident: OpaquePointer?, _ now_ms: Int64, _ input: Int32, _ http_status: Int32, _ tokens_held: Int32,
  _ account: UnsafePointer<CChar>?, _ action: UnsafeMutablePointer<hearth_incident_action>?
) -> Int32 {
  guard let h = Handle.from(incident, as: IncidentHandle.self) else { return wrongHandle(incident) }
  return guarded(h) { () throws(ArgumentError) in
    guard let action else { throw ArgumentError(reason: "action is NULL") }
    if let why = IncidentState.clockProblem(now_ms) { throw ArgumentError(reason: "now_ms: \(why)") }
    let given = try incidentInput(
      input, status: http_status, tokensHeld: tokens_held, account: try string(account, "account"))
    let record: hearth_incident_action =
      switch h.state.check(now: now_ms, given) {
      case .none: hearth_incident_action(action: HEARTH_ACTION_NONE, end: -1, time_ms: 0)
      case .ask(let until): hearth_incident_action(action: HEARTH_ACTION_ASK, end: -1, time_ms: until)
      case .send: hearth_incident_action(action: HEARTH_ACTION_SEND, end: -1, time_ms: 0)
      case .waitUntil(let t): hearth_incident_action(action: HEARTH_ACTION_WAIT_UNTIL, end: -1, time_ms: t)
      case .finished(let end):
        hearth_incident_action(action: HEARTH_ACTION_FINISHED, end: end.code, time_ms: 0)
      }
    action.pointee = record
    return h.succeed()
  }
}

@c public func hearth_incident_save(_ incident: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?)
  -> Int32
{
  guard let h = Handle.from(incident, as: IncidentHandle.self) else { return wrongHandle(incident) }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  do { return handOutBytes(out, try encoder.encode(h.state)) } catch {
    return handOutFailure(out, HEARTH_ERROR_BAD_INPUT, "cannot encode the incident: \(error)")
  }
}

@c public func hearth_incident_restore(
  _ state: UnsafePointer<UInt8>?, _ size: Int64, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  create(out) {
    do {
      let bytes = try input(state, try checkedCount(size, "size"), "state")
      // The runtime checks the version and every value, and names what it refuses.
      return (IncidentHandle(try SavedIncident.restore(Data(bytes))), HEARTH_OK)
    } catch let error as ArgumentError {
      return FailedHandle.with(HEARTH_ERROR_ARGUMENT, error.reason)
    } catch {
      return FailedHandle.with(HEARTH_ERROR_BAD_INPUT, "\(error)")
    }
  }
}
