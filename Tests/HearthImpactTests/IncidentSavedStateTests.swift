import Foundation
import Testing

@testable import HearthImpact

/// A saved incident carries its format version, and a restore refuses any
/// value the lifecycle could never have written, naming the field; a state
/// saved before versions were written still restores (an incident in flight
/// across an upgrade is not lost).
@Suite("Incident saved state: format version and values")
struct IncidentSavedStateTests {
  static let t0: Int64 = 1_700_000_000_000

  /// A sending incident's saved JSON object.
  static func sendingObject() throws -> [String: Any] {
    var s = IncidentState(verdictMilliseconds: t0, account: "a")
    _ = s.check(now: t0, .alertNow)
    let bytes = try JSONEncoder().encode(s)
    return try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
  }

  static func decode(_ object: [String: Any]) throws -> IncidentState {
    try JSONDecoder().decode(IncidentState.self, from: try JSONSerialization.data(withJSONObject: object))
  }

  /// The refusal's coding path (dotted) and description, or nil when accepted.
  static func refusal(_ object: [String: Any]) -> (path: String, why: String)? {
    do {
      _ = try decode(object)
      return nil
    } catch DecodingError.dataCorrupted(let c) {
      return (c.codingPath.map(\.stringValue).joined(separator: "."), c.debugDescription)
    } catch {
      return ("?", "\(error)")
    }
  }

  @Test(
    "writes format version 1; reads 1 and a state without a version (as 1); refuses 0, 2, 99 and a string by name"
  )
  func version() throws {
    let object = try Self.sendingObject()
    #expect(object["formatVersion"] as? Int == 1)
    #expect(IncidentState.formatVersion == 1)
    let original = try Self.decode(object)
    #expect(Self.refusal(object) == nil)
    var none = object
    none["formatVersion"] = nil
    #expect(try Self.decode(none) == original, "saved before versions were written: read as version 1")
    // The seed of the fuzz corpus is such a state, as trackers in the field hold it.
    let old = #"{"verdictMilliseconds":1700000000000,"account":"a","phase":{"asking":{}}}"#
    var restored = try JSONDecoder().decode(IncidentState.self, from: Data(old.utf8))
    #expect(restored.check(now: Self.t0) == .ask(untilMilliseconds: Self.t0 + 30_000))
    for version: Any in [0, 2, 99, -1] {
      var other = object
      other["formatVersion"] = version
      let refused = try #require(Self.refusal(other), "\(version)")
      #expect(refused.path == "formatVersion", "\(version)")
      #expect(
        refused.why.contains("formatVersion \(version); this library reads version 1"), "\(refused.why)")
    }
    for version: Any in ["1", 1.5, [1]] {
      var other = object
      other["formatVersion"] = version
      let refused = try #require(Self.refusal(other), "\(version)")
      #expect(
        refused.path == "formatVersion" && refused.why.contains("formatVersion"), "\(version): \(refused)")
    }
  }

  @Test("the verdict time lies in 1900–2200: both edges accepted, one millisecond past each refused by name")
  func verdictWindow() throws {
    let window = IncidentState.timeWindowMilliseconds
    var object = try Self.sendingObject()
    // The next attempt's time is checked too: kept inside while the verdict moves.
    for good in [window.lowerBound, window.upperBound - 1] {
      object["verdictMilliseconds"] = good
      (object["clockMilliseconds"], object["lastCheckMilliseconds"]) = (good, good)
      #expect(Self.refusal(object) == nil, "\(good)")
    }
    // Without the incident's clock (a state saved before it was kept), which
    // then reads as the verdict's.
    (object["clockMilliseconds"], object["lastCheckMilliseconds"]) = (nil, nil)
    for bad in [window.lowerBound - 1, window.upperBound, Int64.min, Int64.max] {
      object["verdictMilliseconds"] = bad
      let refused = try #require(Self.refusal(object), "\(bad)")
      #expect(refused.path == "verdictMilliseconds", "\(bad)")
      #expect(refused.why.contains("verdictMilliseconds \(bad) ms is outside 1900–2200"), "\(refused.why)")
    }
  }

  @Test(
    "the incident's clock and the last check lie in 1900–2200 and the clock not before the verdict, each side named; a state without them reads as checked at the verdict"
  )
  func incidentClock() throws {
    let object = try Self.sendingObject()
    #expect(
      object["clockMilliseconds"] as? Int64 == Self.t0 && object["lastCheckMilliseconds"] as? Int64 == Self.t0
    )
    let window = IncidentState.timeWindowMilliseconds
    for key in ["clockMilliseconds", "lastCheckMilliseconds"] {
      for good in [Self.t0, window.upperBound - 1] {
        var o = object
        o[key] = good
        #expect(Self.refusal(o) == nil, "\(key) \(good)")
      }
      for bad in [window.upperBound, Int64.max] {
        var o = object
        o[key] = bad
        let refused = try #require(Self.refusal(o), "\(key) \(bad)")
        #expect(
          refused.path == key && refused.why.contains("\(key) \(bad) ms is outside 1900–2200"), "\(refused)")
      }
    }
    var o = object
    o["lastCheckMilliseconds"] = window.lowerBound
    #expect(Self.refusal(o) == nil, "the app's clock may have been set back to 1900")
    o["clockMilliseconds"] = Self.t0 - 1
    let before = try #require(Self.refusal(o))
    #expect(before.path == "clockMilliseconds" && before.why.contains("before the verdict"), "\(before)")
    // Saved before the incident kept its own clock: as if last checked at
    // the verdict, so it answers as it did then.
    var old = object
    (old["clockMilliseconds"], old["lastCheckMilliseconds"]) = (nil, nil)
    var restored = try Self.decode(old)
    var straight = try Self.decode(object)
    #expect(restored == straight)
    #expect(restored.check(now: Self.t0 + 10_000) == straight.check(now: Self.t0 + 10_000))
  }

  @Test("a sending phase: 1…2⁵³ attempts and a next attempt in 1900–2200, each side named")
  func sendingPhase() throws {
    let object = try Self.sendingObject()
    func with(attempts: Any, next: Any) -> [String: Any] {
      var o = object
      o["phase"] = ["sending": ["attempts": attempts, "nextMilliseconds": next]]
      return o
    }
    let window = IncidentState.timeWindowMilliseconds
    #expect(Self.refusal(with(attempts: 1, next: Self.t0)) == nil)
    #expect(Self.refusal(with(attempts: 1 << 53, next: Self.t0)) == nil)
    #expect(Self.refusal(with(attempts: 1, next: window.lowerBound)) == nil)
    #expect(Self.refusal(with(attempts: 1, next: window.upperBound - 1)) == nil)
    for attempts in [0, -1, (1 << 53) + 1] {
      let refused = try #require(Self.refusal(with(attempts: attempts, next: Self.t0)), "\(attempts)")
      #expect(
        refused.path == "phase" && refused.why.contains("sending with \(attempts) attempts"), "\(refused)")
    }
    for next in [window.lowerBound - 1, window.upperBound, Int64.max] {
      let refused = try #require(Self.refusal(with(attempts: 2, next: next)), "\(next)")
      #expect(
        refused.path == "phase"
          && refused.why.contains("sending.nextMilliseconds \(next) ms is outside 1900–2200"),
        "\(refused)")
    }
  }

  @Test("raisedBy is absent, person or silence; anything else is refused by name")
  func raisedBy() throws {
    var object = try Self.sendingObject()
    #expect(object["raisedBy"] as? String == "person")
    for good: Any? in ["person", "silence", nil] {
      object["raisedBy"] = good
      #expect(Self.refusal(object) == nil, "\(String(describing: good))")
    }
    for bad in ["", "Person", "timer"] {
      object["raisedBy"] = bad
      let refused = try #require(Self.refusal(object), "\(bad)")
      #expect(refused.path == "raisedBy" && refused.why.contains("raisedBy '\(bad)'"), "\(refused)")
    }
  }

  @Test(
    "a retry time past 2200 (huge allowed delays, or the window's last minutes) is kept at the window's last millisecond, so the state restores; one inside is untouched"
  )
  func retryTimeStaysInTheWindow() throws {
    let last = IncidentState.timeWindowMilliseconds.upperBound - 1
    func roundTrip(_ s: IncidentState) throws -> IncidentState {
      try JSONDecoder().decode(IncidentState.self, from: try JSONEncoder().encode(s))
    }
    var huge = IncidentRules()
    huge.retryDelaysMilliseconds = [.max]
    huge.retryEveryMilliseconds = .max
    var s = IncidentState(verdictMilliseconds: Self.t0, account: "a")
    #expect(s.check(now: Self.t0, .alertNow, rules: huge) == .send)
    #expect(s.phase == .sending(attempts: 1, nextMilliseconds: last))
    #expect(try roundTrip(s) == s)
    #expect(s.check(now: Self.t0 + 1, .sendResult(.networkFailure), rules: huge) == .waitUntil(last))
    #expect(try roundTrip(s) == s)
    // The default 15 s retry 15 s before the window's end lands on its last
    // millisecond, untouched; 1 ms later it would land past it.
    var late = IncidentState(verdictMilliseconds: last - 15_000, account: "a")
    #expect(late.check(now: last - 15_000, .alertNow) == .send)
    #expect(late.phase == .sending(attempts: 1, nextMilliseconds: last))
    #expect(try roundTrip(late) == late)
    #expect(late.check(now: last - 14_999, .sendResult(.networkFailure)) == .waitUntil(last))
    #expect(late.phase == .sending(attempts: 1, nextMilliseconds: last))
    #expect(try roundTrip(late) == late)
  }

  @Test("every state the lifecycle writes from clocks in the window restores to itself")
  func writtenStatesRestore() throws {
    let inputs: [IncidentInput] = [
      .nothing, .alertNow, .sendResult(.networkFailure), .uploadSucceeded,
      .sendResult(.http(status: 503, tokensHeld: false)),
      .dismissed, .sendResult(.delivered),
    ]
    for (k, first) in inputs.enumerated() {
      var s = IncidentState(verdictMilliseconds: Self.t0, account: "a")
      var now = Self.t0
      for input in [first] + inputs.dropFirst(k) {
        now += 20_000
        _ = s.check(now: now, input)
        let back = try JSONDecoder().decode(IncidentState.self, from: try JSONEncoder().encode(s))
        #expect(back == s)
      }
    }
  }
}
