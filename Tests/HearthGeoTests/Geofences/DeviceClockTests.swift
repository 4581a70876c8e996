import Foundation
import Testing

@testable import HearthGeo

/// A waiting departure or fast arrival runs on the clock of the device
/// that started it and on the server's; another device of the same person
/// keeps its own clock (SPEC §1 accepts fixes up to 5 min ahead), so its
/// fix times end no wait it did not start (review20). Its fixes still
/// count as fixes: back inside, out the far side, a second clear fix.
@Suite("Geofence waits and the clocks of several devices")
struct DeviceClockTests {
  typealias W = FenceWorld
  static let minute: Int64 = 60_000

  /// `W.fix` sent by `device`, stamped `aheadMilliseconds` ahead of real time.
  static func fix(
    _ meters: Double, _ seconds: Double, device: UInt32, aheadMilliseconds: Int64 = 0, speed: Double? = 0
  ) -> Fix {
    var f = W.fix(meters, seconds, speed: speed)
    f.device = DeviceID(device)
    f.timeMilliseconds += aheadMilliseconds
    return f
  }

  /// The phone (device 1) at home, then clear of it at 10 s: a departure
  /// waits, received at t0 + 11 s.
  static func leftHome() -> W {
    var w = W()
    w.feed([fix(0, 0, device: 1)], receivedAt: W.t0 + 1_000)
    let pending = w.feed([fix(300, 10, device: 1, speed: 1.5)], receivedAt: W.t0 + 11_000)
    #expect(W.summary(pending) == ["departure pending 1"])
    return w
  }

  @Test(
    "a tablet 4 min ahead, back inside 20 s later, cancels the departure (it announced it, then an arrival)")
  func aTabletAheadBackInsideCancels() {
    for ahead in [0, 4 * Self.minute] {
      var w = Self.leftHome()
      let out = w.feed(
        [Self.fix(20, 30, device: 2, aheadMilliseconds: ahead, speed: 1)], receivedAt: W.t0 + 31_000)
      #expect(W.summary(out) == ["departure cancelled 1"], "ahead \(ahead) ms")
    }
  }

  @Test(
    "a tablet's fix in the band a minute on by its own clock ends nothing; the server's minute from the receipt does (59.999 / 60 s); the phone's own clock still does"
  )
  func onlyTheStartingDevicesClockEndsTheWait() {
    var w = Self.leftHome()
    // 120 m: outside the 100 m radius, inside the 40 m band (not clear).
    let band = w.feed(
      [Self.fix(120, 30, device: 2, aheadMilliseconds: 4 * Self.minute)], receivedAt: W.t0 + 31_000)
    #expect(band.isEmpty)
    #expect(w.engine.advance(to: W.t0 + 70_999, state: &w.state).isEmpty)
    let minute = w.engine.advance(to: W.t0 + 71_000, state: &w.state)
    #expect(W.summary(minute) == ["departure announced 1"])
    #expect(minute.first?.reasons == [.minuteWithoutReturn])
    #expect(minute.first?.decidedMilliseconds == W.t0 + 71_000)
    // The phone's own fix in the band 60 s after the one that started the
    // wait ends it on its clock, at once; 59.999 s does not.
    for (seconds, ends) in [(69.999, false), (70.0, true)] {
      var v = Self.leftHome()
      let out = v.feed([Self.fix(120, seconds, device: 1)], receivedAt: W.t0 + 11_500)
      #expect(
        W.summary(out) == (ends ? ["departure announced 1"] : []), "phone's fix at \(seconds) s")
    }
  }

  @Test(
    "a drive-by: the tablet in the car, 4 min ahead, out the far side 20 s later cancels the fast arrival")
  func aTabletAheadCancelsAFastArrival() {
    for ahead in [0, 4 * Self.minute] {
      var w = W()
      w.feed([Self.fix(-400, 0, device: 1, speed: 12)], receivedAt: W.t0 + 1_000)
      let pending = w.feed([Self.fix(-20, 30, device: 1, speed: 12)], receivedAt: W.t0 + 31_000)
      #expect(W.summary(pending) == ["arrival pending 1"])
      let out = w.feed(
        [Self.fix(220, 50, device: 2, aheadMilliseconds: ahead, speed: 12)], receivedAt: W.t0 + 51_000)
      #expect(W.summary(out) == ["arrival cancelled 1"], "ahead \(ahead) ms")
      #expect(out.first?.reasons == [.drovePast], "ahead \(ahead) ms")
    }
  }

  @Test("a state saved before devices were kept reads as before: any device's clock ends its waits")
  func aStateSavedWithoutDevicesReadsAsBefore() throws {
    let w = Self.leftHome()
    let text = try #require(String(data: try JSONEncoder().encode(w.state), encoding: .utf8))
    #expect(text.contains(#""device":1"#))
    let old = text.replacingOccurrences(of: #","device":1"#, with: "")
      .replacingOccurrences(of: #""device":1,"#, with: "")
    #expect(!old.contains("\"device\""))
    for (saved, announced) in [(text, false), (old, true)] {
      var v = W()
      v.state = try JSONDecoder().decode(GeofenceState.self, from: Data(saved.utf8))
      let out = v.feed(
        [Self.fix(120, 30, device: 2, aheadMilliseconds: 4 * Self.minute)], receivedAt: W.t0 + 31_000)
      #expect(
        W.summary(out) == (announced ? ["departure announced 1"] : []), "\(saved == old ? "old" : "new")")
    }
  }
}
