import Foundation
import HearthImpact
import Testing

/// SPEC §10 read straight off the text: what each call of `check` should
/// return, worked out from the whole history of calls so far (no state kept
/// between calls), and seeded random histories that the state machine —
/// saved and restored at random points — must answer identically. Waits
/// run on the incident's own clock: the verdict time plus every forward
/// move of the app's clock between calls (a clock set back adds nothing);
/// the times answered are on the app's clock of the call.
enum ReferenceIncident {
  /// One call of `check`; `restored`: the state was saved and restored
  /// just before it (a process killed and started again).
  typealias Call = (now: Int64, input: IncidentInput, restored: Bool)

  static func retryable(_ r: IncidentInput.SendResult) -> Bool {
    switch r {
    case .delivered: return false
    case .networkFailure, .firewallPage: return true
    case .http(let status, let tokens):
      return (500...599).contains(status) || status == 429 || (status == 401 && tokens)
    }
  }

  /// The answer to the last call of `calls`, from all of them.
  static func answer(verdict v: Int64, account: String, _ calls: [Call], _ rules: IncidentRules)
    -> IncidentAction
  {
    // The retry ladder: 15 s, 30 s, 1 min after attempts 1, 2, 3, then every 2 min.
    func wait(after attempt: Int) -> Int64 {
      attempt <= rules.retryDelaysMilliseconds.count
        ? rules.retryDelaysMilliseconds[attempt - 1] : rules.retryEveryMilliseconds
    }
    var end: IncidentEnd?
    var raised = false
    var late = false  // the ask ran out after 5 min: only the person can raise it
    var attempts = 0
    var inFlight = false  // a send ordered, its result not back
    var due: Int64 = 0  // on the incident's clock
    var answer = IncidentAction.none
    var clock = v  // the incident's clock
    var last = v  // the app's clock at the previous call
    for (now, input, restored) in calls {
      // A killed process lost the request it had on its way.
      if restored { inFlight = false }
      if let end {
        answer = .finished(end)
        continue
      }
      clock += max(0, now - last)
      last = now
      let t = clock
      func onAppClock(_ time: Int64) -> Int64 { now + (time - t) }
      func finish(_ e: IncidentEnd) {
        end = e
        answer = .finished(e)
      }
      func send() {
        attempts += 1
        due = t + wait(after: attempts)
        inFlight = true
        answer = .send
      }
      if raised, case .sendResult(.delivered) = input {
        finish(.delivered)  // got through, even when the news comes after the hour
      } else if raised, case .sendResult(.http(let status, _)) = input, (200...299).contains(status) {
        finish(.delivered)
      } else if t - v >= rules.dropMilliseconds {
        finish(.droppedAfterAnHour)  // dropped after an hour, whatever it was doing
      } else if case .signedIn(let other) = input, !other.utf8.elementsEqual(account.utf8) {
        finish(.otherAccount)
      } else if case .dismissed = input {
        finish(.dismissed)  // "I'm okay" (while sending: ends the retries)
      } else if !raised {
        if case .alertNow = input {
          raised = true
          send()
        } else if !late && t < v + rules.askMilliseconds {
          answer = .ask(untilMilliseconds: onAppClock(v + rules.askMilliseconds))
        } else if !late && t - v < rules.automaticMilliseconds {
          raised = true  // silence raises, while under 5 minutes
          send()
        } else {
          late = true
          answer = .waitUntil(onAppClock(v + rules.dropMilliseconds))
        }
      } else if case .sendResult(let failure) = input {
        if retryable(failure) {
          due = t + wait(after: attempts)
          inFlight = false
          answer = .waitUntil(onAppClock(due))
        } else {
          finish(.refused)
        }
      } else if case .uploadSucceeded = input, !inFlight {
        send()  // at once after any successful upload, when no attempt is on its way
      } else if t >= due {
        send()
      } else {
        answer = .waitUntil(onAppClock(due))
      }
    }
    return answer
  }
}

@Suite("Incident lifecycle == the reference model on random histories")
struct IncidentPropertyTests {
  static let t0: Int64 = 1_700_000_000_000

  static func input(_ r: inout SplitMix64) -> IncidentInput {
    switch r.pick(12) {
    case 0, 1, 2, 3: return .nothing
    case 4: return .dismissed
    case 5: return .alertNow
    case 6: return .uploadSucceeded
    case 7: return .signedIn(account: r.chance(0.5) ? "a" : "b")
    case 8: return .sendResult(.delivered)
    case 9: return .sendResult(.networkFailure)
    case 10: return .sendResult(.firewallPage)
    default:
      return .sendResult(
        .http(
          status: [199, 200, 299, 300, 401, 403, 429, 500, 503, 599, 600][r.pick(11)],
          tokensHeld: r.chance(0.5)))
    }
  }

  @Test(
    "every answer of check equals the reference model's, with the state saved and restored at random points")
  func agreesWithTheModel() throws {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 10)
    let n = DetectorPropertyTests.cases(1_200) * 2
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    var sends = 0
    for i in 0..<n {
      var state = IncidentState(verdictMilliseconds: Self.t0, account: "a")
      var calls: [ReferenceIncident.Call] = []
      var now = Self.t0 + Int64(r.pick(40_000)) - 5_000
      for _ in 0..<(1 + r.pick(25)) {
        let steps: [Int64] = [0, 1, 999, 5_000, 14_999, 15_000, 30_000, 60_000, 120_000, 270_000, 900_000]
        // The app's clock set back now and then: a second, a minute, an hour, a day.
        let back: [Int64] = [-1, -60_000, -3_600_000, -86_400_000]
        now +=
          r.chance(0.08)
          ? back[r.pick(back.count)]
          : r.chance(0.7) ? steps[r.pick(steps.count)] : Int64(r.pick(200_000))
        let input = Self.input(&r)
        let restored = r.chance(0.2)
        calls.append((now, input, restored))
        if restored { state = try decoder.decode(IncidentState.self, from: encoder.encode(state)) }
        let got = state.check(now: now, input)
        let expected = ReferenceIncident.answer(verdict: Self.t0, account: "a", calls, IncidentRules())
        if got == .send { sends += 1 }
        guard got == expected else {
          Issue.record(
            "history \(i): \(calls.map { "\($0.now - Self.t0) ms \($0.input)" })\n  got \(got), expected \(expected)"
          )
          return
        }
      }
    }
    #expect(sends > n / 4)
  }

  @Test(
    "regression: a clock tick while an attempt is in flight waits for its retry time instead of sending again"
  )
  func noDoubleSend() {
    var s = IncidentState(verdictMilliseconds: Self.t0, account: "a")
    #expect(s.check(now: Self.t0 + 30_000) == .send)
    #expect(s.check(now: Self.t0 + 30_001) == .waitUntil(Self.t0 + 45_000))
    #expect(s.check(now: Self.t0 + 44_999) == .waitUntil(Self.t0 + 45_000))
    #expect(s.check(now: Self.t0 + 45_000) == .send)  // no result by then: the attempt failed
  }

  @Test(
    "regression: a saved state that would trap (sending with 0 attempts) is a decoding error; extreme clocks saturate"
  )
  func hostileState() throws {
    var s = IncidentState(verdictMilliseconds: Self.t0, account: "a")
    _ = s.check(now: Self.t0, .alertNow)
    let json = String(decoding: try JSONEncoder().encode(s), as: UTF8.self)
    let zero = json.replacingOccurrences(of: "\"attempts\":1", with: "\"attempts\":0")
    #expect(zero != json)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(IncidentState.self, from: Data(zero.utf8))
    }
    let negative =
      #"{"askMilliseconds":-1,"automaticMilliseconds":0,"dropMilliseconds":0,"retryDelaysMilliseconds":[],"retryEveryMilliseconds":0}"#
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(IncidentRules.self, from: Data(negative.utf8))
    }
    // Clocks at the ends of Int64 answer without trapping.
    for (verdict, now) in [(Int64.max, Int64.min), (Int64.min, Int64.max), (Int64.max - 10, Int64.max)] {
      var x = IncidentState(verdictMilliseconds: verdict, account: "a")
      _ = x.check(now: now)
      _ = x.check(now: now, .alertNow)
      _ = x.check(now: now, .sendResult(.networkFailure))
      _ = x.check(now: now, .uploadSucceeded)
    }
  }
}
