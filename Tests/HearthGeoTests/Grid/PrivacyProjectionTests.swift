import HearthGeo
import Testing

import struct HearthSim.SeededGenerator

@Suite("Approximate sharing projection (SPEC §2)")
struct PrivacyProjectionTests {
  let projection = PrivacyProjection()
  let slot: Int64 = 300_000

  func fix(_ lat: Double, _ lon: Double, time: Int64 = 1_790_000_123_456, accuracy: Double = 8) -> Fix {
    Fix(
      timeMilliseconds: time, latitudeDegrees: lat, longitudeDegrees: lon,
      horizontalAccuracyMeters: accuracy, speedMetersPerSecond: 13, headingDegrees: 270,
      activity: .automotive, device: DeviceID(3), user: UserID(4))
  }

  @Test("output depends only on the cell and the slot, not on where in the cell the fix was")
  func deterministic() {
    let a = projection.project(fix(48.85840, 2.29450))
    let b = projection.project(fix(48.85841, 2.29452, time: 1_790_000_123_456 + 10_000))
    #expect(a.cell == b.cell)
    #expect(a == b)
    #expect(a.coordinate == projection.grid.centre(of: a.cell))
    #expect(a.coordinate != Coordinate(latitudeDegrees: 48.85840, longitudeDegrees: 2.29450))
  }

  @Test("a fix in a polar cap is shown at the pole itself; one in the band beside the cap is not")
  func poles() {
    let height = projection.grid.rowHeightDegrees
    for pole in [90.0, -90.0] {
      let inward = pole > 0 ? -1.0 : 1.0
      let inCap = [fix(pole, 37), fix(pole + inward * height * 0.999, -120)]
      let beside = fix(pole + inward * height * 1.001, -120)
      for shown in inCap.map(projection.project) + projection.project(FixColumns(inCap)) {
        #expect(shown.coordinate.latitudeDegrees == pole, "\(shown)")
      }
      for shown in [projection.project(beside)] + projection.project(FixColumns([beside])) {
        #expect(abs(shown.coordinate.latitudeDegrees - (pole + inward * 1.5 * height)) < 1e-9, "\(shown)")
      }
    }
  }

  @Test("accuracy widened to at least 750 m: 749.99 → 750, 750 stays, 900 stays, NaN → 750")
  func accuracy() {
    #expect(projection.project(fix(1, 1, accuracy: 749.99)).horizontalAccuracyMeters == 750)
    #expect(projection.project(fix(1, 1, accuracy: 750)).horizontalAccuracyMeters == 750)
    #expect(projection.project(fix(1, 1, accuracy: 900)).horizontalAccuracyMeters == 900)
    #expect(projection.project(fix(1, 1, accuracy: .nan)).horizontalAccuracyMeters == 750)
  }

  @Test("time floored to 5 min, also before 1970")
  func timeFloor() {
    #expect(projection.slotStart(of: 0) == 0)
    #expect(projection.slotStart(of: slot - 1) == 0)
    #expect(projection.slotStart(of: slot) == slot)
    #expect(projection.slotStart(of: -1) == -slot)
    #expect(projection.slotStart(of: -slot) == -slot)
    #expect(projection.project(fix(1, 1, time: 7 * slot + 299_999)).timeMilliseconds == 7 * slot)
  }

  @Test("regression 2026-12-04: the 750 m floor can be raised, never lowered or unset by an argument")
  func floorOnlyRises() {
    for asked in [Double.nan, .infinity, -.infinity, -1, 0, 100, 749.99] {
      let p = PrivacyProjection(minimumAccuracyMeters: asked)
      #expect(p.minimumAccuracyMeters == 750, "\(asked)")
      #expect(p.project(fix(1, 1, accuracy: 5)).horizontalAccuracyMeters == 750, "\(asked)")
    }
    let raised = PrivacyProjection(minimumAccuracyMeters: 750.01)
    #expect(raised.minimumAccuracyMeters == 750.01 && raised.widenedAccuracy(750) == 750.01)
    // A coarser grid's floor is its own cell.
    #expect(PrivacyProjection(grid: LatitudeBandGrid(cellSizeMeters: 5000)).minimumAccuracyMeters == 5000)
    #expect(PrivacyProjection.argumentProblem(minimumAccuracyMeters: .nan, timeSlotMilliseconds: slot) != nil)
    #expect(PrivacyProjection.argumentProblem(minimumAccuracyMeters: 750, timeSlotMilliseconds: 0) != nil)
    #expect(PrivacyProjection.argumentProblem(minimumAccuracyMeters: 750, timeSlotMilliseconds: 1) == nil)
  }

  @Test("regression 2026-12-04: times at Int64's ends have a slot start, no trap")
  func timeFloorAtTheEnds() {
    let lowest = (Int64.min / slot) * slot  // the lowest multiple of the slot there is
    #expect(projection.slotStart(of: .min) == lowest)
    #expect(projection.slotStart(of: lowest - 1) == lowest)
    #expect(projection.slotStart(of: lowest) == lowest)
    #expect(projection.slotStart(of: lowest + slot) == lowest + slot)
    #expect(projection.slotStart(of: .max) == (Int64.max / slot) * slot)
    #expect(projection.project(fix(1, 1, time: .min)).timeMilliseconds == lowest)
  }

  @Test("a new frame only for a new cell or a new five-minute slot")
  func changeTest() {
    let first = projection.project(fix(48.8584, 2.2945, time: 10 * slot))
    #expect(projection.changed(from: nil, to: first))
    let sameCellSameSlot = projection.project(
      fix(48.85842, 2.29451, time: 10 * slot + slot - 1, accuracy: 30))
    #expect(!projection.changed(from: first, to: sameCellSameSlot))
    let nextSlot = projection.project(fix(48.8584, 2.2945, time: 11 * slot))
    #expect(projection.changed(from: first, to: nextSlot))
    let otherCell = projection.project(fix(48.8684, 2.2945, time: 10 * slot))
    #expect(projection.changed(from: first, to: otherCell))
  }

  /// Equal, a NaN centre (a position off the domain) equal to itself.
  static func same(_ a: ApproximateFix?, _ b: ApproximateFix?) -> Bool {
    guard var a, var b else { return a == nil && b == nil }
    let bits = { (c: Coordinate) in [c.latitudeDegrees.bitPattern, c.longitudeDegrees.bitPattern] }
    guard bits(a.coordinate) == bits(b.coordinate) else { return false }
    (a.coordinate, b.coordinate) = (Coordinate(latitudeDegrees: 0, longitudeDegrees: 0), a.coordinate)
    b.coordinate = a.coordinate
    return a == b
  }

  @Test("project(_:ifChangedFrom:) is the projection when changed(from:to:) says so, else nil")
  func projectIfChanged() {
    var generator = SeededGenerator(seed: 32)
    // A walk of small steps and short waits (mostly the same cell and slot),
    // with jumps, positions off the domain (no cell) and slot edges.
    var previous: ApproximateFix? = nil
    var (lat, lon, time) = (48.85, 2.29, Int64(10) * slot - 3)
    var sent = 0
    for i in 0..<3_000 {
      if i % 97 == 0 { (lat, lon) = (generator.nextDouble(in: -90, 90), generator.nextDouble(in: -180, 180)) }
      lat = min(90, max(-90, lat + generator.nextDouble(in: -0.002, 0.002)))
      lon = min(180, max(-180, lon + generator.nextDouble(in: -0.002, 0.002)))
      time += Int64(generator.nextDouble(in: 0, 20_000))
      let position = i % 211 == 5 ? (Double.nan, lon) : (lat, lon)
      let next = fix(position.0, position.1, time: time, accuracy: generator.nextDouble(in: 0, 2000))
      let full = projection.project(next)
      let expected = projection.changed(from: previous, to: full) ? full : nil
      #expect(Self.same(projection.project(next, ifChangedFrom: previous), expected))
      if let expected {
        previous = expected
        sent += 1
      }
    }
    #expect(sent > 100 && sent < 2_500)  // both sides were seen
  }

  @Test("batch projection equals fix-by-fix projection")
  func batch() {
    var generator = SeededGenerator(seed: 31)
    let fixes = (0..<500).map { i in
      fix(
        generator.nextDouble(in: -90, 90), generator.nextDouble(in: -180, 180),
        time: Int64(i) * 77_777 - 1_000_000, accuracy: generator.nextDouble(in: 0, 2000))
    }
    #expect(projection.project(FixColumns(fixes)) == fixes.map(projection.project))
  }
}
