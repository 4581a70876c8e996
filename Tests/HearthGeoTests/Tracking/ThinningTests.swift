import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Thinning and the driving gate (SPEC §6)")
struct ThinningTests {
  typealias W = FenceWorld

  @Test("gate steps: 50, 70, 100 km/h → 100, 150, 200 m; the step is strictly below 0.9 × 10 s of travel")
  func gateSteps() {
    let rules = ThinningRules()
    #expect(rules.gateMeters(atMetersPerSecond: 50 / 3.6) == 100)
    #expect(rules.gateMeters(atMetersPerSecond: 70 / 3.6) == 150)
    #expect(rules.gateMeters(atMetersPerSecond: 100 / 3.6) == 200)
    // Travel exactly on a step → the step below (strictly); a hair more → that step.
    var exact = ThinningRules()
    exact.gateFraction = 1
    #expect(exact.gateMeters(atMetersPerSecond: 15) == 100)
    #expect(exact.gateMeters(atMetersPerSecond: 15.000_001) == 150)
    #expect(rules.gateMeters(atMetersPerSecond: 5) == 0)
  }

  @Test("steady drives at 50, 70 and 100 km/h keep a fix every 10 s from a 1 Hz feed")
  func steadyDrives() {
    for kmh in [50.0, 70, 100] {
      var thinner = Thinner()
      let v = kmh / 3.6
      let fixes = (0..<121).map { W.fix(v * Double($0), Double($0), accuracy: 5, speed: v) }
      let kept = thinner.offer(FixColumns(fixes)).enumerated().filter(\.element.kept).map(\.offset)
      #expect(kept == Array(stride(from: 0, through: 120, by: 10)), "\(kmh) km/h: \(kept)")
    }
  }

  @Test(
    "a steady drive fed every 10 s keeps every fix though the stamps jitter: up to 250 ms early counts, 251 ms does not"
  )
  func steadyDrivesWithJitter() {
    for kmh in [50.0, 70, 100] {
      let v = kmh / 3.6
      // Every other fix 1 ms early; ±20 ms of jitter; exactly 250 ms early.
      for early in [
        { (k: Int) in k % 2 == 1 ? 0.001 : 0 }, { (k: Int) in k % 3 == 0 ? -0.02 : 0.02 }, { _ in 0.25 },
      ] {
        var thinner = Thinner()
        var seconds = 0.0
        let fixes = (0..<30).map { k -> Fix in
          if k > 0 { seconds += 10 - early(k) }
          return W.fix(v * seconds, seconds, accuracy: 5, speed: v)
        }
        let kept = thinner.offer(FixColumns(fixes)).filter(\.kept).count
        #expect(kept == 30, "\(kmh) km/h: \(kept) of 30")
      }
    }
    var t = Thinner()
    _ = t.offer(W.fix(0, 0, speed: 15))
    #expect(t.offer(W.fix(146.235, 9.749, speed: 15)).reason == .drivingTooSoon)
    #expect(t.offer(W.fix(146.25, 9.75, speed: 15)).reason == .drivingGatePassed)
    #expect(ThinningRules().drivingIntervalEarliestMilliseconds == 9_750)
  }

  /// Found by a review: a first fix with a NaN latitude became the last kept
  /// fix, every later distance was NaN, and nothing was kept again.
  @Test("a fix that is not a position is dropped and changes nothing")
  func notAPosition() {
    var t = Thinner()
    for (lat, lon) in [
      (Double.nan, 11.0), (48.0, .nan), (90.000_001, 11), (48, -180.000_001), (.infinity, 0),
    ] {
      let bad = Fix(
        timeMilliseconds: W.t0, latitudeDegrees: lat, longitudeDegrees: lon, horizontalAccuracyMeters: 5)
      #expect(t.offer(bad) == ThinningDecision(kept: false, reason: .notAPosition, driving: false))
    }
    let kept = (0..<20).map { t.offer(W.fix(Double($0) * 500, Double($0) * 60)).kept }
    #expect(kept.allSatisfy { $0 })
    var edge = Thinner()
    let pole = Fix(
      timeMilliseconds: 0, latitudeDegrees: 90, longitudeDegrees: 180, horizontalAccuracyMeters: 5)
    #expect(edge.offer(pole).kept)
  }

  @Test("a drive starts at 6 m/s (not 5.99) without the classifier; the first fix off road speed is kept")
  func driveStartAndOffRoadSpeed() {
    var t = Thinner()
    _ = t.offer(W.fix(0, 0, speed: 5.99))
    #expect(!t.isDriving)
    _ = t.offer(W.fix(100, 20, speed: 6))
    #expect(t.isDriving)
    var d = Thinner()
    for k in 0..<10 { _ = d.offer(W.fix(Double(k) * 15, Double(k), speed: 15)) }
    // 9.5 s after the last kept fix the 10 s gate would refuse it, but it is
    // the first fix below road speed.
    let slow = d.offer(W.fix(140, 9.5, speed: 3))
    #expect(slow.kept && slow.reason == .firstOffRoadSpeed)
    #expect(!d.offer(W.fix(141, 10, speed: 2)).kept)  // the second one is gated again
  }

  @Test("a drive ends after 3 min of crawling, not 2:59.999")
  func crawlEnds() {
    var t = Thinner()
    _ = t.offer(W.fix(0, 0, speed: 15))
    _ = t.offer(W.fix(10, 10, speed: 1))
    _ = t.offer(W.fix(20, 189.999, speed: 1))
    #expect(t.isDriving)
    _ = t.offer(W.fix(30, 190, speed: 1))
    #expect(!t.isDriving)
  }

  /// Found by a review against the SPEC (specrev-phone F4): a fix with no
  /// measured speed counted as standing still, so a phone whose fixes came
  /// without speeds never started a drive without the classifier, and a
  /// drive the classifier started "crawled" to its end after 3 min at
  /// 70 km/h (SPEC §1: an unmeasured speed is derived from the neighbours).
  @Test(
    "a fix with no measured speed is judged against a fix 10 to 60 s back: the least speed 6 m/s starts a drive, 5.99 does not; the most under 6 is below road speed; 9.999 s and 60.001 s back say nothing"
  )
  func unmeasuredSpeedIsDerived() {
    func startsADrive(_ second: Fix, firstAccuracy: Double = 5) -> Bool {
      var t = Thinner()
      _ = t.offer(W.fix(0, 0, accuracy: firstAccuracy, speed: nil))
      _ = t.offer(second)
      return t.isDriving
    }
    // Road speed when the distance less both accuracies, over the time, is.
    #expect(startsADrive(W.fix(70.01, 10, accuracy: 5, speed: nil)))
    #expect(!startsADrive(W.fix(69.9, 10, accuracy: 5, speed: nil)))
    #expect(startsADrive(W.fix(60.01, 10, accuracy: 0, speed: nil), firstAccuracy: 0))
    // iOS's −1 and Android's 0 on a fix looser than 30 m are unmeasured; a 0 at 30 m is a stop.
    #expect(startsADrive(W.fix(600, 10, accuracy: 5, speed: -1)))
    #expect(startsADrive(W.fix(600, 10, accuracy: 30.01, speed: 0)))
    #expect(!startsADrive(W.fix(600, 10, accuracy: 30, speed: 0)))
    // 150 m between two 100 m fixes is jitter; an accuracy that is not a number proves nothing.
    #expect(!startsADrive(W.fix(150, 10, accuracy: 100, speed: nil), firstAccuracy: 100))
    #expect(!startsADrive(W.fix(600, 10, accuracy: .nan, speed: nil)))
    #expect(!startsADrive(W.fix(600, 10, accuracy: 5, speed: nil), firstAccuracy: .infinity))
    // The neighbour must be within 60 s, and at least 0.5 s before.
    #expect(startsADrive(W.fix(600, 60, accuracy: 5, speed: nil)))
    #expect(!startsADrive(W.fix(600, 60.001, accuracy: 5, speed: nil)))
    #expect(startsADrive(W.fix(600, 10, accuracy: 5, speed: nil)))
    #expect(!startsADrive(W.fix(600, 9.999, accuracy: 5, speed: nil)))
    // review40: over 1 s, two 10 m fixes 27 m apart show nothing (a still phone's scatter).
    #expect(!startsADrive(W.fix(27, 1, accuracy: 10, speed: -1), firstAccuracy: 10))
    // A drive at 10 m/s, then a fix without a speed 20 s after the first, judged against it.
    func afterADrive(_ meters: Double) -> ThinningDecision {
      var t = Thinner()
      _ = t.offer(W.fix(0, 0, accuracy: 5, speed: 10))
      _ = t.offer(W.fix(100, 10, accuracy: 5, speed: 10))
      return t.offer(W.fix(meters, 20, accuracy: 5, speed: nil))
    }
    // Below road speed when even the most is: (109.9 + 10) / 20 < 6; at 110.1 neither is shown,
    // and the fix is judged by the gate; at road speed from 130 m: (130.01 − 10) / 20 ≥ 6.
    #expect(afterADrive(109.9).reason == .firstOffRoadSpeed)
    #expect(afterADrive(110.1).reason == .drivingGatePassed && afterADrive(110.1).driving)
    #expect(afterADrive(130.01).reason == .drivingWithinGate && afterADrive(130.01).driving)
    // Over less than 10 s a slow reading proves nothing: 1 s after a 20 m/s fix, 9 m on.
    var shortly = Thinner()
    _ = shortly.offer(W.fix(0, 0, accuracy: 5, speed: 20))
    #expect(shortly.offer(W.fix(9, 1, accuracy: 5, speed: nil)).reason == .drivingTooSoon)
    #expect(shortly.isDriving)
    // A neighbour dated after the fix (a late fix) derives nothing.
    var back = Thinner()
    _ = back.offer(W.fix(0, 100, accuracy: 5, speed: nil))
    _ = back.offer(W.fix(600, 90, accuracy: 5, speed: nil))
    #expect(!back.isDriving)
    // A 70 km/h drive with no speeds: driving throughout (no crawl ends it), one fix in 10 s,
    // the same fix by fix and as a batch.
    let v = 70 / 3.6
    let drive = (0..<300).map { W.fix(v * Double($0), Double($0), accuracy: 5, speed: nil) }
    var single = Thinner()
    let decisions = drive.map { single.offer($0) }
    // (Driving from the fix 10 s after the first; from then on one fix in 10 s.)
    #expect(decisions[10...].allSatisfy { $0.driving })
    let keptWhileDriving = decisions.indices.filter { $0 >= 10 && decisions[$0].kept }
    #expect(zip(keptWhileDriving, keptWhileDriving.dropFirst()).allSatisfy { $1 - $0 == 10 })
    var batch = Thinner()
    #expect(batch.offer(FixColumns(drive)) == decisions)
    #expect(batch == single)
  }

  /// Found by a review of the fix above (review38): GPS scatter of a phone
  /// standing still derived 6 m/s and more between 1 s fixes and kept
  /// hundreds of fixes an hour as a "drive"; a late fix, one 0.4 s after
  /// another or the first after a clock step read as 0 m/s, "left road
  /// speed" and was kept, and a late fix became the next one's neighbour;
  /// an unknown accuracy made the thinner unsavable and unequal to itself.
  @Test(
    "no speeds: a phone standing still is no drive; late, crowded and stepped fixes keep what measured speeds keep; an unknown accuracy saves"
  )
  func unmeasuredSpeedEdges() throws {
    // Ten minutes at 1 Hz within 4 m of one spot, accuracies 5 to 20 m, iOS's −1.
    var generator = SeededGenerator(seed: 38)
    var still = Thinner()
    let scatter = (0..<600).map { k in
      W.fix(
        4 * generator.nextDouble(in: 0, 1), Double(k), bearing: generator.nextDouble(in: 0, 360),
        accuracy: generator.nextDouble(in: 5, 20), speed: -1)
    }
    let decisions = scatter.map { still.offer($0) }
    #expect(!decisions.contains { $0.driving } && decisions.filter(\.kept).count == 1)
    // A drive at 20 m/s, 1 Hz, without speeds and with 20 m/s measured, with a fix 185 s late
    // after the 100th, one 0.4 s after the 130th, and a clock stepped back an hour at the 200th:
    // the same fixes kept, the same drive.
    func drive(_ speed: Double?) -> [ThinningDecision] {
      var fixes: [Fix] = []
      for k in 0..<300 {
        let seconds = Double(k) - (k >= 200 ? 3_600 : 0)
        fixes.append(W.fix(20 * Double(k), seconds, accuracy: 5, speed: speed))
        if k == 100 { fixes.append(W.fix(20 * (Double(k) - 185), seconds - 185, accuracy: 5, speed: speed)) }
        if k == 130 { fixes.append(W.fix(20 * Double(k) + 8, seconds + 0.4, accuracy: 5, speed: speed)) }
      }
      var t = Thinner()
      return fixes.map { t.offer($0) }
    }
    let measured = drive(20)
    let derived = drive(nil)
    // (Without speeds the drive starts 10 s in, so its 10 s phase may differ from then on.)
    #expect(!derived.contains { $0.reason == .firstOffRoadSpeed })
    #expect(derived[10...].allSatisfy { $0.driving })
    #expect(abs(derived[10...].filter(\.kept).count - measured[10...].filter(\.kept).count) <= 1)
    // review39: a drive at 20 m/s, then half an hour parked within 2 m with no speeds (iOS −1
    // at 5 m, 1 Hz; Android 0 at 40 m every 5 s; −1 at 65 m every 10 s): the drive ends within
    // 3 min 20 s, as with a measured 0, and few fixes are kept.
    for (accuracy, every, reading) in [(5.0, 1.0, -1.0), (40, 5, 0), (65, 10, -1)] {
      var t = Thinner()
      for k in 0..<60 { _ = t.offer(W.fix(20 * Double(k), Double(k), accuracy: 5, speed: 20)) }
      let end = GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 1_200)
      var parked: [ThinningDecision] = []
      var seconds = 60.0
      while seconds < 60 + 1_800 {
        parked.append(
          t.offer(
            W.fix(
              2 * generator.nextDouble(in: 0, 1), seconds, bearing: generator.nextDouble(in: 0, 360),
              accuracy: accuracy, speed: reading, from: end)))
        seconds += every
      }
      let lastDriving = parked.lastIndex { $0.driving }.map { Double($0) * every } ?? 0
      #expect(lastDriving < 200 && !t.isDriving, "accuracy \(accuracy) m every \(every) s")
      #expect(parked.filter(\.kept).count < 30, "accuracy \(accuracy) m every \(every) s")
    }
    // review39: drives at 8 to 20 m/s, 1 Hz, no speeds, 5 and 10 m accuracy: a drive within
    // 20 s, kept as the same drive with measured speeds keeps it, give or take its first 20 s.
    for (v, accuracy) in [(8.0, 5.0), (12, 5), (15, 5), (20, 5), (20, 10), (13.9, 10)] {
      func kept(_ speed: Double?) -> (kept: Int, driving: Int) {
        var t = Thinner()
        let decisions = (0..<600).map {
          t.offer(W.fix(v * Double($0), Double($0), accuracy: accuracy, speed: speed))
        }
        return (decisions.filter(\.kept).count, decisions.filter(\.driving).count)
      }
      let (measuredKept, _) = kept(v)
      let (derivedKept, derivedDriving) = kept(nil)
      #expect(derivedDriving >= 580, "\(v) m/s at \(accuracy) m: driving on \(derivedDriving) of 600")
      #expect(
        abs(derivedKept - measuredKept) <= 4, "\(v) m/s at \(accuracy) m: \(derivedKept) vs \(measuredKept)")
    }
    // review40: a drive at 30 km/h whose fixes (15 m) fall alternately 10 m ahead and behind:
    // neither shown slow nor always fast, it stays a drive and keeps about one fix in 10 s.
    var city = Thinner()
    let slow = (0..<600).map { k in
      city.offer(W.fix(8.3 * Double(k) + (k % 2 == 0 ? 10 : -10), Double(k), accuracy: 15, speed: -1))
    }
    #expect(slow[20...].allSatisfy { $0.driving })
    #expect(slow.filter(\.kept).count <= 66 && !slow.contains { $0.reason == .firstOffRoadSpeed })
    // An unknown or infinite accuracy: the state saves, restores and equals itself.
    for accuracy in [Double.nan, .infinity] {
      var t = Thinner()
      _ = t.offer(W.fix(0, 0, accuracy: accuracy, speed: 3))
      #expect(t == t)
      #expect(try JSONDecoder().decode(Thinner.self, from: JSONEncoder().encode(t)) == t)
    }
  }

  /// Found by a review against the SPEC (specrev-phone F1): after the
  /// phone's clock stepped back an hour mid-drive, every fix was "too soon"
  /// until the clock caught up, so an hour of driving kept no fix, and the
  /// crawl's count stalled the same way.
  @Test(
    "after the clock steps back an hour mid-drive, one fix in 10 s is kept again from the fix after the step; late fixes move neither the interval nor a crawl"
  )
  func drivingAfterTheClockStepsBack() {
    var t = Thinner()
    let v = 28.0
    for k in 0..<60 { _ = t.offer(W.fix(v * Double(k), Double(k), speed: v)) }
    // The clock goes back an hour at 60 s; the drive goes on at 1 fix a second.
    var kept: [Int] = []
    for k in 60..<180 where t.offer(W.fix(v * Double(k), Double(k) - 3_600, speed: v)).kept { kept.append(k) }
    // The fix at the step is one alone (it could be late): too soon. The next confirms the step,
    // and the interval counts from it: one fix in 10 s from 71 on.
    #expect(kept == Array(stride(from: 71, to: 180, by: 10)))
    // One late fix alone keeps nothing and moves nothing: the next kept fix is 10 s after the
    // one kept at 50 (were the interval counted from the late fix, 56 would be kept).
    var late = Thinner()
    for k in 0..<56 { _ = late.offer(W.fix(v * Double(k), Double(k), speed: v)) }
    #expect(!late.offer(W.fix(v * 30, 30 - 3_600, speed: v)).kept)
    let after = (56..<80).filter { late.offer(W.fix(v * Double($0), Double($0), speed: v)).kept }
    #expect(after == [60, 70])
    // A fix 1 ms late just before a real step (review37): the step is still seen, from the
    // fix after the late one.
    var slightly = Thinner()
    for k in 0..<60 { _ = slightly.offer(W.fix(v * Double(k), Double(k), speed: v)) }
    _ = slightly.offer(W.fix(v * 59, 58.999, speed: v))
    let stepped = (60..<180).filter {
      slightly.offer(W.fix(v * Double($0), Double($0) - 3_600, speed: v)).kept
    }
    #expect(stepped == Array(stride(from: 70, to: 180, by: 10)))
    // A crawl is not moved by late fixes, one or two in a row (review35, review36: they ended
    // the drive after 10 s of crawling): it ends 3 min after it began, not 2:59.999.
    for lateFixes in [[-600.0], [-300, -299]] {
      var c = Thinner()
      _ = c.offer(W.fix(0, 0, speed: 15))
      _ = c.offer(W.fix(10, 10, speed: 1))
      for t in lateFixes { _ = c.offer(W.fix(5, t, speed: 1)) }
      _ = c.offer(W.fix(20, 20, speed: 1))
      _ = c.offer(W.fix(30, 189.999, speed: 1))
      #expect(c.isDriving, "late fixes at \(lateFixes)")
      _ = c.offer(W.fix(40, 190, speed: 1))
      #expect(!c.isDriving)
    }
  }

  /// Issue 15 item 13: one "not driving" verdict mid-road ended the drive,
  /// and parking never did. SPEC §6: 3 min of crawling, or the phone parks.
  @Test("a single 'not driving' verdict does not end a drive; parking does")
  func drivingGateEndsOnParkingNotOnOneVerdict() {
    var c = Thinner()
    _ = c.offer(W.fix(0, 0, speed: 15), classifierSaysDriving: true)
    _ = c.offer(W.fix(150, 10, speed: 15), classifierSaysDriving: false)
    #expect(c.isDriving)
    // Crawling with the classifier saying "not driving": still the 3-minute rule.
    _ = c.offer(W.fix(160, 20, speed: 1), classifierSaysDriving: false)
    _ = c.offer(W.fix(170, 199.999, speed: 1), classifierSaysDriving: false)
    #expect(c.isDriving)
    _ = c.offer(W.fix(180, 200, speed: 1), classifierSaysDriving: false)
    #expect(!c.isDriving)
    // Parked: over at once, whatever the speed says.
    var p = Thinner()
    _ = p.offer(W.fix(0, 0, speed: 15), classifierSaysDriving: true)
    _ = p.offer(W.fix(150, 10, speed: 15), phoneParked: false)
    #expect(p.isDriving)
    _ = p.offer(W.fix(150, 20, speed: 0), phoneParked: true)
    #expect(!p.isDriving)
  }

  @Test("off the road: the 60 m distance filter and near-duplicates")
  func distanceFilter() {
    var t = Thinner()
    #expect(t.offer(W.fix(0, 0, speed: 1)).reason == .first)
    #expect(t.offer(W.fix(0.5, 0.5, speed: 1)).reason == .nearDuplicate)
    #expect(t.offer(W.fix(59.99, 40, speed: 1)).reason == .withinDistanceFilter)
    #expect(t.offer(W.fix(60.01, 80, speed: 1)).reason == .movedDistanceFilter)
  }

  @Test("state encodes and decodes to the same machine")
  func codable() throws {
    var t = Thinner()
    _ = t.offer(W.fix(0, 0, speed: 15))
    let restored = try JSONDecoder().decode(Thinner.self, from: JSONEncoder().encode(t))
    #expect(restored == t)
    // Mid-step (one fix dated back held as a candidate), then a state saved before the step
    // detector was kept (no `steps`): read as before, with a fresh detector.
    var stepped = Thinner()
    _ = stepped.offer(W.fix(0, 0, speed: 15))
    _ = stepped.offer(W.fix(10, -100, speed: 1))
    #expect(try JSONDecoder().decode(Thinner.self, from: JSONEncoder().encode(stepped)) == stepped)
    var object = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(t)) as? [String: Any])
    #expect(object.removeValue(forKey: "steps") != nil)
    #expect(object.removeValue(forKey: "neighbour") != nil)
    let old = try JSONDecoder().decode(Thinner.self, from: JSONSerialization.data(withJSONObject: object))
    var fresh = Thinner()
    _ = fresh.offer(W.fix(0, 0, speed: 15))
    #expect(old.isDriving)
    var resumed = old
    #expect(resumed.offer(W.fix(200, 10, speed: 15)) == fresh.offer(W.fix(200, 10, speed: 15)))
    // Saved before the detector, then the clock steps back an hour (review36): its newest fix
    // is the last kept, so the step is seen and fixes are kept again.
    var legacy = try JSONDecoder().decode(Thinner.self, from: JSONSerialization.data(withJSONObject: object))
    let keptAfterStep = (1..<40).filter {
      legacy.offer(W.fix(15 * Double($0), Double($0) - 3_600, speed: 15)).kept
    }
    #expect(keptAfterStep == [12, 22, 32])
    // Saved before the neighbour was kept: the next fix without a speed has none to derive from.
    var slow = Thinner()
    _ = slow.offer(W.fix(0, 0, speed: 3))
    var saved = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(slow)) as? [String: Any])
    #expect(saved.removeValue(forKey: "neighbour") != nil)
    var noNeighbour = try JSONDecoder().decode(
      Thinner.self, from: JSONSerialization.data(withJSONObject: saved))
    var withNeighbour = slow
    _ = noNeighbour.offer(W.fix(600, 10, accuracy: 5, speed: nil))
    _ = withNeighbour.offer(W.fix(600, 10, accuracy: 5, speed: nil))
    #expect(!noNeighbour.isDriving && withNeighbour.isDriving)
  }
}

@Suite("Parking and the park fix (SPEC §6)")
struct ParkingTests {
  typealias W = FenceWorld

  @Test("parked after 5 min inside 90 m (default filter), not after 4:59.999; 60 m floor for small filters")
  func parkByPosition() {
    #expect(ParkingRules().radiusMeters == 90)
    var small = ParkingRules()
    small.distanceFilterMeters = 30
    #expect(small.radiusMeters == 60)
    var p = ParkingDetector()
    #expect(p.offer(W.fix(0, 0, speed: 0)).reason == .newAnchor)
    #expect(p.offer(W.fix(89.99, 100, speed: 0)).reason == .insideNotLongEnough)
    #expect(!p.offer(W.fix(50, 299.999, speed: 0)).parked)
    #expect(p.offer(W.fix(50, 300, speed: 0)).reason == .parkedByPosition)
    var q = ParkingDetector()
    _ = q.offer(W.fix(0, 0, speed: 0))
    #expect(q.offer(W.fix(90.01, 100, speed: 0)).reason == .newAnchor)
  }

  @Test("only a fix clear of the anchor by more than its own error, and no looser than 100 m, ends a stop")
  func leaving() {
    func parked() -> ParkingDetector {
      var p = ParkingDetector()
      _ = p.offer(W.fix(0, 0, speed: 0))
      _ = p.offer(W.fix(0, 300, speed: 0))
      return p
    }
    var a = parked()
    #expect(a.offer(W.fix(90 + 30 - 0.01, 400, accuracy: 30, speed: 0)).parked)
    var b = parked()
    #expect(b.offer(W.fix(90 + 30 + 0.01, 400, accuracy: 30, speed: 0)).reason == .leftParking)
    var c = parked()
    #expect(c.offer(W.fix(5000, 400, accuracy: 100.01, speed: 0)).parked)
    var d = parked()
    #expect(!d.offer(W.fix(5000, 400, accuracy: 100, speed: 0)).parked)
  }

  @Test("a still verdict parks at once, unless the journey guard needs the position to agree")
  func journeyGuard() {
    var quiet = ParkingDetector()
    var still = W.fix(0, 0, speed: 0)
    still.activity = .still
    #expect(quiet.offer(still).reason == .parkedByStillVerdict)
    // Travelled 400.01 m in the last 10 min: guard on.
    var p = ParkingDetector()
    _ = p.offer(W.fix(0, 0, speed: 1))
    _ = p.offer(W.fix(400.01, 300, speed: 1))
    var s2 = W.fix(400.01, 310, speed: 0)
    s2.activity = .still
    #expect(p.offer(s2).reason == .stillIgnoredJourneyGuard)
    var q = ParkingDetector()
    _ = q.offer(W.fix(0, 0, speed: 1))
    _ = q.offer(W.fix(399.99, 300, speed: 1))
    var s3 = W.fix(399.99, 310, speed: 0)
    s3.activity = .still
    #expect(q.offer(s3).parked)
    // 3 m/s within the last 3 min: guard on; 2.99: off.
    var r = ParkingDetector()
    _ = r.offer(W.fix(0, 0, speed: 3))
    var s4 = W.fix(1, 100, speed: 0)
    s4.activity = .still
    #expect(!r.offer(s4).parked)
    var u = ParkingDetector()
    _ = u.offer(W.fix(0, 0, speed: 2.99))
    #expect(u.offer(s4).parked)
  }

  /// Found by a review against the SPEC (specrev-phone F7): the guard was
  /// read before the fix carrying the verdict was counted.
  @Test("the fix that says still counts in the guard: its own step past 400 m, and its own 3 m/s")
  func journeyGuardCountsTheVerdictsFix() {
    func offer(_ stillAt: Double, speed: Double = 0) -> ParkingDecision.Reason {
      var p = ParkingDetector()
      _ = p.offer(W.fix(0, 0, speed: 1))
      _ = p.offer(W.fix(399, 300, speed: 1))
      var still = W.fix(stillAt, 310, speed: speed)
      still.activity = .still
      return p.offer(still).reason
    }
    #expect(offer(400.01) == .stillIgnoredJourneyGuard)
    #expect(offer(399.99) == .parkedByStillVerdict)
    #expect(offer(399, speed: 3) == .stillIgnoredJourneyGuard)
    #expect(offer(399, speed: 2.99) == .parkedByStillVerdict)
    // A verdict's fix that is not a position adds no step (review37: its NaN made the sum false
    // and let a guarded phone park): 500 m before it still hold the guard.
    var guarded = ParkingDetector()
    _ = guarded.offer(W.fix(0, 0, speed: 1))
    _ = guarded.offer(W.fix(500, 300, speed: 1))
    var nowhere = W.fix(500, 310, speed: 0)
    nowhere.latitudeDegrees = .nan
    nowhere.activity = .still
    #expect(guarded.offer(nowhere).reason == .stillIgnoredJourneyGuard)
    // The step into the verdict's fix counts only from a fix within the 10 min (review35):
    // 5 km from a fix 10 min before it is travel; from one 10 min and 1 ms before, it is not.
    for (gap, guarded) in [(600.0, true), (600.001, false)] {
      var p = ParkingDetector()
      _ = p.offer(W.fix(0, 0, speed: 0))
      var still = W.fix(5_000, gap, speed: 0)
      still.activity = .still
      #expect(p.offer(still).reason == (guarded ? .stillIgnoredJourneyGuard : .parkedByStillVerdict))
    }
  }

  /// Found by a review: after a drive the journey guard ignores the
  /// arrival's `still` verdict, and an OS with a 60 m distance filter then
  /// sends nothing: the phone never parked and never got its park fix.
  @Test(
    "a phone that stops and goes silent parks by the clock 5 min after its anchor (not 4:59.999), and its park fix follows 30 s later"
  )
  func parkingByTheClock() {
    var p = ParkingDetector()
    // A drive: the journey guard is on at the arrival.
    for k in 0..<10 { _ = p.offer(W.fix(Double(k) * 150, Double(k) * 10, speed: 15)) }
    var arrival = W.fix(1_500, 100, speed: 0)
    arrival.activity = .still
    #expect(p.offer(arrival).reason == .stillIgnoredJourneyGuard)
    let anchor = W.t0 + 100_000
    #expect(p.advance(to: anchor + 299_999) == nil && !p.parked)
    #expect(p.advance(to: anchor + 300_000) == ParkingDecision(parked: true, reason: .parkedByPosition))
    #expect(p.parkedAtMilliseconds == anchor + 300_000)
    #expect(p.advance(to: anchor + 400_000) == nil, "a tick never repeats or undoes it")
    #expect(p.parkFix(now: anchor + 329_999) == nil)
    #expect(p.parkFix(now: anchor + 330_000)?.source == .park)
    // A late tick parks at the same moment; a fix that left the circle
    // before the tick starts a new stay.
    var late = ParkingDetector()
    _ = late.offer(W.fix(0, 0, speed: 0))
    _ = late.advance(to: W.t0 + 3_600_000)
    #expect(late.parkedAtMilliseconds == W.t0 + 300_000)
    var moved = ParkingDetector()
    _ = moved.offer(W.fix(0, 0, speed: 0))
    _ = moved.offer(W.fix(200, 200, speed: 1))
    #expect(moved.advance(to: W.t0 + 300_000) == nil)
    #expect(moved.advance(to: W.t0 + 500_000) != nil && moved.parkedAtMilliseconds == W.t0 + 500_000)
  }

  /// Found by a review: one 500 m fix 150 m off restarted the stay, and
  /// parking came 2:30 late.
  @Test(
    "a fix looser than 100 m outside the circle neither restarts the stay nor ends it; 100 m does restart it")
  func looseFixKeepsTheStay() {
    func stay(looseAccuracy: Double) -> ParkingDetector {
      var p = ParkingDetector()
      _ = p.offer(W.fix(0, 0, speed: 0))
      _ = p.offer(W.fix(150, 150, accuracy: looseAccuracy, speed: 0))
      _ = p.offer(W.fix(5, 300, speed: 0))
      return p
    }
    let loose = stay(looseAccuracy: 100.001)
    #expect(
      loose.parked && loose.parkedAtMilliseconds == W.t0 + 300_000 && loose.anchor?.timeMilliseconds == W.t0)
    let sharp = stay(looseAccuracy: 100)
    #expect(!sharp.parked && sharp.anchor?.timeMilliseconds == W.t0 + 300_000)
  }

  @Test("park fix: after 30 s without a fresh fix, from the newest fix under 2 min old, else the anchor")
  func parkFix() {
    var p = ParkingDetector()
    _ = p.offer(W.fix(0, 0, speed: 0))
    _ = p.offer(W.fix(20, 300, accuracy: 17, speed: 0))  // parks at 300 s
    #expect(p.parkFix(now: W.t0 + 329_999) == nil)
    let made = p.parkFix(now: W.t0 + 330_000)!
    #expect(made.source == .park && made.activity == .still && made.timeMilliseconds == W.t0 + 330_000)
    #expect(made.horizontalAccuracyMeters == 17)
    #expect(p.parkFix(now: W.t0 + 400_000) == nil)  // once
    // Newest fix 2 min old or more: the anchor.
    var q = ParkingDetector()
    _ = q.offer(W.fix(0, 0, accuracy: 9, speed: 0))
    var still = W.fix(3, 10, accuracy: 40, speed: 0)
    still.activity = .still
    _ = q.offer(still)  // parks at 10 s by the verdict
    let fromAnchor = q.parkFix(now: W.t0 + 130_000)!
    #expect(fromAnchor.horizontalAccuracyMeters == 9)
    var r = ParkingDetector()
    _ = r.offer(W.fix(0, 0, accuracy: 9, speed: 0))
    _ = r.offer(still)
    #expect(r.parkFix(now: W.t0 + 129_999)!.horizontalAccuracyMeters == 40)
  }

  /// Found by a review: the guard kept every fix dated after the one
  /// offered, so a clock that stepped back kept the drive before the step
  /// in "the last 10 min" until the clock caught up, and fixes in falling
  /// time order were all kept (each offer slower than the last).
  @Test(
    "after the clock steps back, the guard counts fixes up to 10 min after the new time, not 10 min and 1 ms"
  )
  func journeyGuardAfterTheClockStepsBack() {
    // 400.01 m travelled by 300 s: guard on at any moment within 10 min of that fix.
    for (before, guarded) in [(Int64(600_000), true), (600_001, false)] {
      var p = ParkingDetector()
      _ = p.offer(W.fix(0, 0, speed: 1))
      _ = p.offer(W.fix(400.01, 300, speed: 1))
      var still = W.fix(400.01, 310, speed: 0)
      still.activity = .still
      still.timeMilliseconds = W.t0 + 300_000 - before  // dated `before` ms before the last fix
      #expect(p.journeyGuardActive(at: still.timeMilliseconds) == guarded, "\(before) ms before")
      #expect(p.offer(still).reason == (guarded ? .stillIgnoredJourneyGuard : .parkedByStillVerdict))
    }
    // Falling times: only what lies within 10 min either side stays.
    var falling = ParkingDetector()
    for k in 0..<2_000 {
      _ = falling.offer(W.fix(Double(k % 7), 10_000 - Double(k)))
      #expect(falling.recent.count == min(k + 1, 601))
    }
  }

  /// Found by a review against the SPEC (specrev-phone F2): after the
  /// clock stepped back an hour, the park fix waited an hour and 30 s. (The
  /// stay itself still waits for the clock: fixes cannot tell a step from
  /// late fixes, review36.)
  @Test(
    "after the clock steps back past the moment of parking, the park fix comes 30 s after the step (not 29.999 s); late fixes change no stay"
  )
  func parkingAfterTheClockStepsBack() {
    var p = ParkingDetector()
    _ = p.offer(W.fix(0, 0, speed: 0))
    #expect(p.offer(W.fix(1, 300, speed: 0)).reason == .parkedByPosition)
    let parkedAt = W.t0 + 300_000
    #expect(p.parkFix(now: parkedAt - 3_600_000) == nil)
    #expect(p.parkFix(now: parkedAt - 3_600_000 + 29_999) == nil)
    #expect(p.parkFix(now: parkedAt - 3_600_000 + 30_000)?.source == .park)
    // Late fixes, one or two in a row, inside the circle or loose outside it (review35, review36:
    // they parked the phone a second after it arrived): the stay counts from its anchor.
    for late in [
      [W.fix(1, -300, speed: 0)], [W.fix(150, -600, accuracy: 150, speed: 0)],
      [W.fix(1, -300, speed: 0), W.fix(1, -299, speed: 0)],
    ] {
      var q = ParkingDetector()
      _ = q.offer(W.fix(0, 0, speed: 0))
      for fix in late { #expect(q.offer(fix).reason != .parkedByPosition) }
      #expect(q.offer(W.fix(1, 1, speed: 0)).reason == .insideNotLongEnough)
      #expect(!q.offer(W.fix(1, 299.999, speed: 0)).parked && q.offer(W.fix(1, 300, speed: 0)).parked)
    }
  }

  @Test("late batches keep the activity the tracker had, from a timeline kept for an hour")
  func timeline() {
    var timeline = ActivityTimeline()
    timeline.record(.walking, at: W.t0)
    timeline.record(.automotive, at: W.t0 + 600_000)
    timeline.record(.still, at: W.t0 + 3_600_000 + 600_000)
    // The first fix is older than the hour kept: unknown, not a guess.
    let late = FixColumns([W.fix(0, 300), W.fix(100, 900), W.fix(200, 4300)])
    #expect(timeline.label(late).activity == [.unknown, .automotive, .still])
    var fresh = ActivityTimeline()
    fresh.record(.walking, at: W.t0)
    fresh.record(.automotive, at: W.t0 + 600_000)
    #expect(fresh.label(late).activity == [.walking, .automotive, .automotive])
    // Older than the hour kept (the verdict before the horizon still covers it).
    #expect(timeline.activity(at: W.t0 + 700_000) == .automotive)
    #expect(timeline.activity(at: W.t0 - 1) == .unknown)
  }

  /// Found by a review against the SPEC (specrev-phone F3): the verdict in
  /// force was the last one recorded at or before a time, so one recorded
  /// after the clock stepped back ruled every fix from before the step.
  @Test("after the clock steps back an hour, each late fix gets the verdict dated latest at or before it")
  func timelineAfterTheClockStepsBack() {
    var timeline = ActivityTimeline()
    timeline.record(.automotive, at: W.t0)
    timeline.record(.walking, at: W.t0 + 600_000)
    timeline.record(.still, at: W.t0 - 3_000_000)  // the clock went back an hour
    let late = FixColumns([W.fix(0, 300), W.fix(100, 660), W.fix(200, -2_700), W.fix(300, -3_300)])
    #expect(timeline.label(late).activity == [.automotive, .walking, .still, .unknown])
    // Two verdicts dated alike: the one recorded last.
    timeline.record(.cycling, at: W.t0 + 600_000)
    #expect(timeline.activity(at: W.t0 + 600_000) == .cycling)
    #expect(timeline.activity(at: W.t0 + 599_999) == .automotive)
    // A verdict a second for over an hour, alternating: the whole hour is kept (review35: a cap
    // of 3 600 dropped the verdict in force at the hour's start).
    var steady = ActivityTimeline()
    let cycle: [Activity] = [.automotive, .walking]
    for k in 0...3_700 { steady.record(cycle[k % 2], at: W.t0 + Int64(k) * 1_000) }
    #expect(steady.activity(at: W.t0 + 100_000) == .automotive)  // the hour's start
    #expect(steady.activity(at: W.t0 + 99_999) == .unknown)
    // A repeat, then the clock steps back (review36: a repeat left out let the verdict after the
    // step rule the time of the repeat).
    var repeated = ActivityTimeline()
    repeated.record(.automotive, at: W.t0)
    repeated.record(.automotive, at: W.t0 + 100_000)
    repeated.record(.walking, at: W.t0 + 50_000)
    #expect(repeated.activity(at: W.t0 + 100_000) == .automotive)
    #expect(repeated.activity(at: W.t0 + 60_000) == .walking)
    // A clock that steps back a second at every verdict: what is kept stays bounded.
    var stepping = ActivityTimeline()
    for k in 0..<8_000 { stepping.record(k % 2 == 0 ? .walking : .still, at: W.t0 - Int64(k) * 1_000) }
    #expect(stepping.verdicts.count == ActivityTimeline.maximumVerdicts)
    #expect(stepping.activity(at: W.t0 - 7_999_000) == .still)
  }
}

@Suite("Live trail (SPEC §6)")
struct LiveTrailTests {
  typealias W = FenceWorld

  @Test("steps under 5 m and far looser fixes are left out; silences over 2 min are dashed")
  func trail() {
    let fixes = FixColumns([
      W.fix(0, 0, accuracy: 10), W.fix(4.99, 5, accuracy: 10), W.fix(5.01, 10, accuracy: 10),
      W.fix(60, 20, accuracy: 30.01), W.fix(120, 30, accuracy: 51), W.fix(200, 150.001, accuracy: 10),
      W.fix(300, 270.001, accuracy: 10),
    ])
    let trail = LiveTrail(fixes)
    #expect(trail.points.map(\.index) == [0, 2, 3, 5, 6])
    #expect(trail.omitted.map(\.reason) == [.stepUnderFiveMeters, .farLooserThanRecent])
    #expect(trail.points.map(\.dashedFromPrevious) == [false, false, false, true, false])
  }

  /// Found by a review: measured over drawn fixes only, the last few stayed
  /// 5 m for ever, and 30 min of 65 m fixes were all left out.
  @Test(
    "a phone going from 5 m to 65 m fixes is drawn again once they are the last few; a lone outlier stays out"
  )
  func looserFixesBecomeTheLastFew() {
    var fixes = (0..<5).map { W.fix(Double($0) * 100, Double($0) * 10, accuracy: 5) }
    fixes += (5..<35).map { W.fix(Double($0) * 100, Double($0) * 60, accuracy: 65) }
    let trail = LiveTrail(FixColumns(fixes))
    // Three 65 m fixes are far looser than a median of 5 m; from the fourth, 65 m is the median.
    #expect(trail.omitted.map(\.index) == [5, 6, 7])
    #expect(trail.points.map(\.index) == Array(0..<5) + Array(8..<35))
    var outlier = (0..<10).map { W.fix(Double($0) * 100, Double($0) * 10, accuracy: 5) }
    outlier[6].horizontalAccuracyMeters = 500
    #expect(LiveTrail(FixColumns(outlier)).omitted.map(\.index) == [6])
  }

  /// The rule as SPEC §6 words it: the median of the last `recentCount`
  /// finite accuracies before each fix, sorted afresh every time.
  static func farLooserByScan(_ fixes: [Fix], rules: LiveTrailRules) -> [Bool] {
    var recent: [Double] = []
    return fixes.map { fix in
      let accuracy = fix.horizontalAccuracyMeters
      let median = recent.isEmpty ? nil : recent.sorted()[recent.count / 2]
      if accuracy.isFinite {
        recent.append(accuracy)
        if recent.count > rules.recentCount { recent.removeFirst() }
      }
      return median.map { accuracy > rules.looserFactor * $0 && accuracy > rules.looserFloorMeters } ?? false
    }
  }

  /// The sorted window that replaced a sort per fix (review15: a window of
  /// a million took 22 s for 20 000 fixes) decides exactly as the sort did.
  /// Its speed is not asserted here (the measurement is in the CHANGELOG).
  @Test(
    "the far-looser test equals a median sorted afresh for every fix, for windows of -3 to 10⁶ fixes, with repeats, zeros, NaN and ±∞"
  )
  func looserTestEqualsAFreshMedian() {
    var g = SeededGenerator(seed: 6_122_026)
    let values: [Double] = [0, -0.0, 5, 5, 50, 65, .nan, .infinity, -.infinity, 200]
    let fixes = (0..<3_000).map { k in
      let accuracy =
        g.nextUnit() < 0.3 ? values[Int(g.nextUnit() * Double(values.count))] : g.nextDouble(in: 1, 300)
      // Far apart, so no step is under 5 m: every fix is drawn unless far looser.
      return W.fix(Double(k) * 50, Double(k), accuracy: accuracy)
    }
    for window in [-3, 0, 1, 2, 5, 6, 64, 1_000_000] {
      var rules = LiveTrailRules()
      rules.recentCount = window
      let expected = Self.farLooserByScan(fixes, rules: rules)
      let trail = LiveTrail(FixColumns(fixes), rules: rules)
      let omitted = Set(trail.omitted.filter { $0.reason == .farLooserThanRecent }.map(\.index))
      #expect(fixes.indices.map(omitted.contains) == expected, "window \(window)")
      #expect(expected.contains(true) || window <= 0, "window \(window)")
    }
  }
}
