import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Trips (SPEC §7)")
struct TripSegmenterTests {
  typealias W = FenceWorld
  static let away = GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 3000)

  /// A stay at `meters` east of home from `from` to `to` seconds, a fix a minute.
  static func stay(at meters: Double, from: Double, to: Double, every: Double = 60, person: UInt32 = 1)
    -> [Fix]
  {
    stride(from: from, through: to, by: every).map {
      W.fix(meters, $0, accuracy: 10, speed: 0, person: person)
    }
  }

  /// Driving east from `fromMeters` at `speed` m/s, a fix every `every` s, starting at `start` s.
  static func drive(
    fromMeters: Double, toMeters: Double, start: Double, speed: Double = 15, every: Double = 10,
    person: UInt32 = 1
  ) -> [Fix] {
    var fixes: [Fix] = []
    var t = start
    var x = fromMeters
    while x < toMeters {
      x = min(toMeters, x + speed * every)
      t += every
      fixes.append(W.fix(x, t, accuracy: 8, speed: speed, person: person))
    }
    return fixes
  }

  /// Home 10 min, a 3 km drive, 10 min at the other end.
  static func day(person: UInt32 = 1, start: Double = 0) -> [Fix] {
    let home = stay(at: 0, from: start, to: start + 600, person: person)
    let drive = drive(fromMeters: 0, toMeters: 3000, start: start + 600, person: person)
    let end = drive.last!.timeMilliseconds
    let there = stay(
      at: 3000, from: Double(end - W.t0) / 1000 + 60, to: Double(end - W.t0) / 1000 + 660, person: person)
    return home + drive + there
  }

  func run(
    _ fixes: [Fix], places: [Geofence] = [], rules: TripRules = TripRules(), after: Int64 = 3_600_000
  ) -> [TripSegment] {
    let segmenter = TripSegmenter(places: places, rules: rules)
    var state = TripSegmenterState()
    return segmenter.process(
      FixColumns(fixes), now: fixes.map(\.timeMilliseconds).max()! + after, state: &state
    ).segments
  }

  /// A parked phone's one fix 1.5 km off, with no measured speeds, made a
  /// valid 3 km trip (found by a review against the SPEC).
  @Test("a stray fix out and back at 35 km/h or more is left out of a segment; a slower out-and-back stays")
  func strayFixesAreLeftOut() {
    /// Parked at 0 m every 30 s (10 m, no speed), then one fix `meters` off at
    /// 300 s (8 m, no speed), then parked again to 11 min.
    func parked(strayMeters meters: Double, every: Double = 30) -> [Fix] {
      stride(from: 0.0, through: 660, by: every).map { t in
        W.fix(t == 300 ? meters : 0, t, accuracy: 10, speed: nil)
      }
    }
    let stray = run(parked(strayMeters: 1500))
    #expect(stray.allSatisfy { !$0.isTrip })
    #expect(stray.allSatisfy { $0.fixes.allSatisfy { $0.coordinate == W.fix(0, 0).coordinate } })
    // Out and back at 35 km/h on each leg is the line: 291.67 m in 30 s.
    let slower = run(parked(strayMeters: 291.6))
    #expect(slower.contains { $0.fixes.contains { $0.timeMilliseconds == W.t0 + 300_000 } })
    let faster = run(parked(strayMeters: 291.7))
    #expect(!faster.contains { $0.fixes.contains { $0.timeMilliseconds == W.t0 + 300_000 } })
    // A fix with a measured speed is never stray: it is a reading of its own.
    var measured = parked(strayMeters: 1500)
    measured[10].speedMetersPerSecond = 50
    #expect(run(measured).contains { $0.fixes.contains { $0.timeMilliseconds == W.t0 + 300_000 } })
    // A real drive without measured speeds is untouched.
    let drive = Self.day().map { fix -> Fix in
      var f = fix
      f.speedMetersPerSecond = nil
      return f
    }
    let trips = run(drive).filter(\.isTrip)
    #expect(trips.count == 1 && abs((trips.first?.summary.pathMeters ?? 0) - 3000) < 1)
    // A car already driving into the fix before turns back: its turning
    // point stays (a U-turn, not a parked phone's outlier).
    var uturn = (0...20).map { W.fix(Double($0) * 150, 600 + Double($0) * 10, accuracy: 8, speed: nil) }
    uturn.append(W.fix(3150, 810, accuracy: 8, speed: nil))
    uturn.append(W.fix(3010, 820, accuracy: 8, speed: nil))
    uturn += Self.stay(at: 3010, from: 880, to: 1600).map {
      var f = $0
      f.speedMetersPerSecond = nil
      return f
    }
    #expect(run(uturn).contains { $0.fixes.contains { $0.timeMilliseconds == W.t0 + 810_000 } })
  }

  @Test(
    "a drive between two stays is one trip from the last fix at home to the first fix there, with its aggregates"
  )
  func oneTrip() {
    let fixes = Self.day()
    let trips = run(fixes).filter(\.isTrip)
    #expect(trips.count == 1)
    let trip = trips[0]
    #expect(trip.reasons == [.valid] && trip.endedBy == .dwell)
    #expect(trip.summary.startMilliseconds == W.t0 + 600_000)
    #expect(abs(trip.summary.pathMeters - 3000) < 0.5 && abs(trip.summary.displacementMeters - 3000) < 0.5)
    #expect(abs(trip.summary.maxAgreedSpeedMetersPerSecond! - 15) < 0.01)
    // The same rule as the speed alert, on every pair.
    var uneven = trip.fixes
    for k in uneven.indices { uneven[k].speedMetersPerSecond = k % 3 == 0 ? nil : Double(10 + k % 7) }
    for k in uneven.indices where k % 4 == 0 { uneven[k].horizontalAccuracyMeters = 45 }
    #expect(TripSummary(uneven)!.maxAgreedSpeedMetersPerSecond == AgreedSpeed.stretch(FixColumns(uneven)))
    #expect(
      abs(
        trip.summary.averageSpeedMetersPerSecond - 3000 / (Double(trip.summary.durationMilliseconds) / 1000))
        < 1e-9)
    #expect(trip.fixes.first!.coordinate == W.fix(0, 600).coordinate)
    #expect(GreatCircle.distanceMeters(from: trip.summary.end, to: Self.away) < 0.01)
    #expect(trip.id == UInt64(1) << 32 | 1)
  }

  @Test(
    "a summary's path and displacement are the track functions' own, bit for bit, whether its scratch is on the stack or the heap",
    arguments: [1, 2, 3, 41, 42, 43, 126, 127, 128, 129, 300])
  func summaryMatchesTrackFunctions(count: Int) {
    var generator = SeededGenerator(seed: UInt64(count))
    var fixes: [Fix] = []
    var meters = 0.0
    for k in 0..<count {
      meters += generator.nextDouble(in: 0, 400)
      fixes.append(W.fix(meters, Double(k) * 10, accuracy: 8, speed: generator.nextDouble(in: 0, 30)))
    }
    let latitudes = fixes.map(\.latitudeDegrees)
    let longitudes = fixes.map(\.longitudeDegrees)
    var steps: [Double] = []
    var path: [Double] = []
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: latitudes, longitudesDegrees: longitudes, steps: &steps, cumulative: &path)
    var fromStart: [Double] = []
    GreatCircle.distancesMeters(
      from: fixes[0].coordinate, toLatitudesDegrees: latitudes, longitudesDegrees: longitudes,
      into: &fromStart)
    let summary = TripSummary(fixes)!
    #expect(summary.pathMeters.bitPattern == path[count - 1].bitPattern)
    #expect(summary.displacementMeters.bitPattern == fromStart.max()!.bitPattern)
    #expect(summary.maxAgreedSpeedMetersPerSecond == AgreedSpeed.stretch(FixColumns(fixes)))
  }

  @Test("the four validity thresholds, both sides")
  func thresholds() {
    let segmenter = TripSegmenter()
    var summary = TripSummary(Self.drive(fromMeters: 0, toMeters: 3000, start: 0))!
    #expect(segmenter.failedThresholds(pointCount: 3, summary).isEmpty)
    #expect(segmenter.failedThresholds(pointCount: 2, summary) == [.tooFewPoints])
    summary.endMilliseconds = summary.startMilliseconds + 120_000
    #expect(segmenter.failedThresholds(pointCount: 3, summary).isEmpty)
    summary.endMilliseconds -= 1
    #expect(segmenter.failedThresholds(pointCount: 3, summary) == [.tooShortInTime])
    summary.endMilliseconds += 1
    summary.pathMeters = 250
    #expect(segmenter.failedThresholds(pointCount: 3, summary).isEmpty)
    summary.pathMeters = 249.999
    #expect(segmenter.failedThresholds(pointCount: 3, summary) == [.tooShortInPath])
    summary.pathMeters = 250
    summary.displacementMeters = 150
    #expect(segmenter.failedThresholds(pointCount: 3, summary).isEmpty)
    summary.displacementMeters = 149.999
    #expect(segmenter.failedThresholds(pointCount: 3, summary) == [.tooLittleDisplacement])
    // End to end: a 200 m walk round the block is a segment, not a trip.
    let short =
      Self.stay(at: 0, from: 0, to: 600)
      + Self.drive(fromMeters: 0, toMeters: 200, start: 600, speed: 1.5, every: 30)
      + Self.stay(at: 200, from: 800, to: 1400)
    let segments = run(short)
    #expect(segments.count == 1 && !segments[0].isTrip && segments[0].reasons.contains(.tooShortInPath))
  }

  @Test("a stay over 5 min within 100 m splits; 5 min exactly does not")
  func dwell() {
    // Drive 3 km, wait, drive 3 km on.
    func trip(waiting seconds: Double) -> [TripSegment] {
      let first = Self.drive(fromMeters: 0, toMeters: 3000, start: 600)
      let t = Double(first.last!.timeMilliseconds - W.t0) / 1000
      let wait = [W.fix(3000, t + seconds, accuracy: 8, speed: 0)]
      let second = Self.drive(fromMeters: 3000, toMeters: 6000, start: t + seconds)
      let end = Double(second.last!.timeMilliseconds - W.t0) / 1000
      return run(
        Self.stay(at: 0, from: 0, to: 600) + first + wait + second
          + Self.stay(at: 6000, from: end + 60, to: end + 660)
      )
      .filter(\.isTrip)
    }
    #expect(trip(waiting: 300).count == 1)
    #expect(trip(waiting: 300.001).count == 2)
  }

  @Test("a silence over 5 min splits unless travelled through; 45 min caps everything")
  func gaps() {
    func segments(gap: Double, speedBefore: Double?, distance: Double) -> [TripSegment] {
      var first = Self.drive(fromMeters: 0, toMeters: 3000, start: 600)
      first[first.count - 1].speedMetersPerSecond = speedBefore
      let t = Double(first.last!.timeMilliseconds - W.t0) / 1000
      let second = Self.drive(
        fromMeters: 3000 + distance - 150, toMeters: 6000 + distance, start: t + gap - 10)
      let end = Double(second.last!.timeMilliseconds - W.t0) / 1000
      return run(
        Self.stay(at: 0, from: 0, to: 600) + first + second
          + Self.stay(at: 6000 + distance, from: end + 60, to: end + 660)
      ).filter(\.isTrip)
    }
    #expect(segments(gap: 300, speedBefore: 0, distance: 0).count == 1)  // 5 min exactly
    #expect(segments(gap: 300.001, speedBefore: 0, distance: 0).count == 2)  // stopped before it
    #expect(segments(gap: 600, speedBefore: 15, distance: 600.01).count == 1)  // 1 m/s across, moving
    #expect(segments(gap: 600, speedBefore: 15, distance: 599).count == 2)  // just under 1 m/s
    #expect(segments(gap: 600, speedBefore: 0.99, distance: 5000).count == 2)  // not moving before
    #expect(segments(gap: 2700, speedBefore: 15, distance: 5000).count == 1)
    #expect(segments(gap: 2700.001, speedBefore: 15, distance: 5000).count == 2)
  }

  @Test("a journey between two named places is a trip whatever its length, over a silence up to 45 min")
  func journey() {
    let a = Geofence(id: 1, center: W.home, radiusMeters: 80)
    let bCenter = GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 200)
    let b = Geofence(id: 2, center: bCenter, radiusMeters: 80)
    func result(silence: Double) -> [TripSegment] {
      let home = Self.stay(at: 0, from: 0, to: 600)
      let there = Self.stay(at: 200, from: 600 + silence, to: 600 + silence + 600)
      return run(home + there, places: [a, b])
    }
    let trips = result(silence: 2700).filter(\.isTrip)
    #expect(trips.count == 1)
    #expect(
      trips[0].reasons.contains(.journeyBetweenNamedPlaces) && trips[0].startPlace == 1
        && trips[0].endPlace == 2)
    #expect(trips[0].summary.startMilliseconds == W.t0 + 600_000)  // the last fix at the origin
    #expect(result(silence: 2700.001).filter(\.isTrip).isEmpty)
    // Without places the same 200 m hop is nothing.
    #expect(
      run(Self.stay(at: 0, from: 0, to: 600) + Self.stay(at: 200, from: 1200, to: 1800)).filter(\.isTrip)
        .isEmpty)
  }

  /// Found by a review against the SPEC (specrev-geo F1): a journey from a
  /// place the phone had only passed through (no 5-min stay) went on from
  /// the drive that came there, so home → school → work was one trip.
  @Test(
    "a journey starts at the last fix at its origin: the drive that came to the origin is a trip of its own, ending at its first fix there"
  )
  func journeyFromAPlaceWithoutAStay() {
    let home = Geofence(id: 1, center: W.home, radiusMeters: 100)
    let school = Geofence(id: 2, center: Self.away, radiusMeters: 100)
    let workCenter = GreatCircle.destination(from: W.home, initialBearingDegrees: 90, distanceMeters: 6000)
    let work = Geofence(id: 3, center: workCenter, radiusMeters: 100)
    let atHome = Self.stay(at: 0, from: 0, to: 600)
    let drive = Self.drive(fromMeters: 0, toMeters: 3000, start: 600)
    let arrived = Double(drive[drive.count - 1].timeMilliseconds - W.t0) / 1000
    let atSchool = [20.0, 40, 60].map { W.fix(3000, arrived + $0, accuracy: 10, speed: 0) }
    func day(silence: Double) -> [TripSegment] {
      let atWork = Self.stay(at: 6000, from: arrived + 60 + silence, to: arrived + 60 + silence + 600)
      return run(atHome + drive + atSchool + atWork, places: [home, school, work])
    }
    let trips = day(silence: 1200).filter(\.isTrip)
    #expect(trips.map(\.startPlace) == [1, 2] && trips.map(\.endPlace) == [2, 3])
    // The drive ends at its first fix at school (the last fix of the drive is already inside
    // it); the journey starts at the last fix at school.
    #expect(trips.first?.summary.endMilliseconds == drive.last?.timeMilliseconds)
    #expect(trips.last?.summary.startMilliseconds == atSchool.last?.timeMilliseconds)
    #expect(trips.last?.reasons.contains(.journeyBetweenNamedPlaces) == true)
    // Over 45 min the silence splits: no journey, the drive to school one trip.
    let split = day(silence: 2700.001).filter(\.isTrip)
    #expect(split.count == 1 && split.first?.endPlace == 2)
  }

  @Test(
    "heartbeats and fixes looser than 100 m are skipped; late fixes within the idle gap are sorted in, older ones dropped"
  )
  func inputs() {
    let fixes = Self.day()
    let k = fixes.count / 2
    var beat = fixes[k]
    beat.source = .heartbeat
    beat.timeMilliseconds += 1
    beat.latitudeDegrees += 0.01  // would add a kilometre each way
    var loose = beat
    loose.source = .ordinary
    loose.timeMilliseconds += 1
    loose.horizontalAccuracyMeters = 100.001
    var sharpEnough = fixes[k]
    sharpEnough.timeMilliseconds += 3
    sharpEnough.horizontalAccuracyMeters = 100
    var unknown = sharpEnough  // no accuracy at all (an AIS position): kept
    unknown.timeMilliseconds += 1
    unknown.horizontalAccuracyMeters = .nan
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    let trips = segmenter.process(
      FixColumns(fixes + [beat, loose, sharpEnough, unknown]), now: fixes.last!.timeMilliseconds + 3_600_000,
      state: &state
    ).segments.filter(\.isTrip)
    #expect(trips.count == 1 && abs(trips[0].summary.pathMeters - 3000) < 1)
    #expect(state.skipped(UserID(1)) == 2)
    // The last fix at home, the drive, the 100 m one, the one without
    // accuracy and the first fix of the stay it reached.
    #expect(trips[0].fixes.count == Self.drive(fromMeters: 0, toMeters: 3000, start: 0).count + 4)
    // Out of order within the idle gap: same result; behind the watermark: dropped and counted.
    var late = TripSegmenterState()
    let shuffled = fixes.enumerated().sorted { ($0.offset % 7, $0.offset) < ($1.offset % 7, $1.offset) }.map(
      \.element)
    let lateTrips = segmenter.process(
      FixColumns(shuffled), now: fixes.last!.timeMilliseconds + 3_600_000, state: &late)
    var inOrder = TripSegmenterState()
    #expect(
      lateTrips
        == segmenter.process(
          FixColumns(fixes), now: fixes.last!.timeMilliseconds + 3_600_000, state: &inOrder))
    #expect(
      segmenter.process(FixColumns([fixes[3]]), now: fixes.last!.timeMilliseconds + 3_600_000, state: &late)
        == TripOutput())
    #expect(late.droppedLate(UserID(1)) == 1)
  }

  @Test(
    "clocks at the ends of Int64: no overflow trap, and an extreme clock closes or keeps as its sign says")
  func extremeClocks() {
    // Found by fuzzing hearth_ingest_tick: now − idle gap − last fix's time
    // overflowed for a clock near Int64.min.
    let fixes = Self.drive(fromMeters: 0, toMeters: 3_000, start: 0)
    let segmenter = TripSegmenter()
    for now in [Int64.min, Int64.min + 1, Int64.max] {
      var state = TripSegmenterState()
      // Every fix considered (older than the idle gap), the segment open.
      var out = segmenter.process(
        FixColumns(fixes), now: fixes.last!.timeMilliseconds + TripRules().idleGapMilliseconds + 1,
        state: &state)
      #expect(out.segments.isEmpty && (state.people[1]?.segment.count ?? 0) == fixes.count)
      out += segmenter.advance(to: now, state: &state)
      out += segmenter.process(FixColumns(fixes), now: now, state: &state)
      // Far in the past nothing is idle; far in the future the drive closes.
      #expect(out.segments.count == (now == .max ? 1 : 0), "now \(now)")
    }
  }

  @Test("a long drive sent one fix per upload: the open segment grows geometrically, not copied every upload")
  func longDriveGrowsGeometrically() {
    // 600 km at 15 m/s, a fix every 10 s: 4 000 fixes in one open segment.
    let fixes = Self.drive(fromMeters: 0, toMeters: 600_000, start: 0)
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    var grown = 0
    var capacity = 0
    for fix in fixes {
      _ = segmenter.process(FixColumns([fix]), now: fix.timeMilliseconds + 1_000, state: &state)
      let now = state.people[1]?.segment.capacity ?? 0
      if now != capacity { grown += 1 }
      capacity = now
    }
    #expect(fixes.count == 4_000 && (state.people[1]?.segment.count ?? 0) > 3_900)
    // About log2(4 000) ≈ 12 growths; reserving count + n per upload grew
    // (and copied every fix so far) on nearly every upload.
    #expect(grown <= 24, "the open segment's storage changed \(grown) times")
  }

  @Test("an upload in reverse order with repeats gives what the same fixes in order give, in one merge")
  func aReversedUploadIsMergedNotSortedInOneByOne() {
    // 40 000 fixes of a 600 km drive, a fix a second; every 100th sent twice.
    let drive = Self.drive(fromMeters: 0, toMeters: 600_000, start: 0, every: 1)
    let repeated = drive.indices.filter { $0 % 100 == 0 }.map { drive[$0] }
    let now = drive.last!.timeMilliseconds + 3_600_000
    let segmenter = TripSegmenter()
    var inOrder = TripSegmenterState()
    let expected = segmenter.process(FixColumns(drive), now: now, state: &inOrder)
    var reversed = TripSegmenterState()
    // (Sorted in one at a time from the back, this upload moved 8 · 10⁸ fixes.)
    let got = segmenter.process(FixColumns(drive.reversed() + repeated), now: now, state: &reversed)
    #expect(drive.count == 40_000 && got == expected && expected.segments.count == 1)
    #expect(reversed.people[1]?.duplicates == repeated.count && inOrder.people[1]?.duplicates == 0)
    // Two people's reversed fixes interleaved one by one (a run per fix):
    // each person's are still merged once per batch, not once per run.
    let second = drive.map {
      var fix = $0
      fix.user = UserID(2)
      return fix
    }
    var bothInOrder = TripSegmenterState()
    let both = segmenter.process(FixColumns(drive + second), now: now, state: &bothInOrder)
    var interleaved = TripSegmenterState()
    let mixed = Array(zip(drive.reversed(), second.reversed()).map { [$0, $1] }.joined())
    #expect(segmenter.process(FixColumns(mixed + repeated), now: now, state: &interleaved) == both)
    #expect(interleaved.people[1]?.duplicates == repeated.count && interleaved.people[2]?.duplicates == 0)
    #expect(both.segments.count == 2)
  }

  @Test("a stay after a long drive keeps the stay's fixes, not the drive's storage")
  func aStayDoesNotKeepTheDrivesStorage() {
    // 4 000 fixes of driving, then 30 min parked at the end, a fix a minute, one upload each.
    let drive = Self.drive(fromMeters: 0, toMeters: 600_000, start: 0)
    let end = Double(drive.last!.timeMilliseconds - W.t0) / 1000
    let parked = Self.stay(at: 600_000, from: end + 60, to: end + 1_860)
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    var trips: [TripSegment] = []
    for fix in drive + parked {
      trips += segmenter.process(FixColumns([fix]), now: fix.timeMilliseconds + 1_000, state: &state).segments
    }
    // The drive closed at the stay, whole; what stays open is the stay's few fixes.
    #expect(trips.count == 1 && trips[0].isTrip && trips[0].fixes.count > 3_900)
    let open = state.people[1]?.segment ?? []
    #expect(!open.isEmpty && open.count < 40)
    // Its storage is the stay's size, not the drive's 4 096 fixes (426 KB
    // a person held for as long as they stayed).
    #expect(open.capacity < 64, "the open segment holds room for \(open.capacity) fixes")
  }

  @Test(
    "uploads in time order after the pending fixes (taken straight from the batch) equal the same uploads reversed (sorted into pending)"
  )
  func inOrderUploadsEqualTheGeneralPath() {
    // Two days back to back, with heartbeats, a network estimate and a
    // few retried fixes, cut into uploads of 7 received a minute after their last
    // fix: most fixes wait out the idle gap across uploads.
    var fixes = Self.day() + Self.day(start: 4000)
    for k in stride(from: 5, to: fixes.count, by: 11) { fixes[k].source = .heartbeat }
    fixes[9].horizontalAccuracyMeters = 150
    let segmenter = TripSegmenter()
    var inOrder = TripSegmenterState()
    var reversed = TripSegmenterState()
    var a = TripOutput()
    var b = TripOutput()
    var differing: [Int] = []
    for start in stride(from: 0, to: fixes.count, by: 7) {
      var upload = Array(fixes[start..<min(start + 7, fixes.count)])
      // Now and then a retry of the previous upload's last fix (still
      // pending: a duplicate) or of an older one (considered already: late);
      // these uploads take the general path.
      if start % 21 == 14 { upload.insert(fixes[start - 1], at: 0) }
      if start % 21 == 7 { upload.insert(fixes[start - 7], at: 0) }
      let now = upload.last!.timeMilliseconds + 60_000
      a += segmenter.process(FixColumns(upload), now: now, state: &inOrder)
      b += segmenter.process(FixColumns(upload.reversed()), now: now, state: &reversed)
      if a != b || inOrder != reversed { differing.append(start) }
    }
    #expect(differing.isEmpty)
    #expect(inOrder.droppedLate(UserID(1)) > 0 && inOrder.duplicates(UserID(1)) > 0)
    let end = fixes.last!.timeMilliseconds + 3_600_000
    a += segmenter.advance(to: end, state: &inOrder)
    b += segmenter.advance(to: end, state: &reversed)
    #expect(a.segments.filter(\.isTrip).count == 2)
    #expect(a == b)
    #expect(inOrder == reversed)
    #expect(inOrder.skipped(UserID(1)) > 0 && inOrder.skipped(UserID(1)) == reversed.skipped(UserID(1)))
  }

  @Test("only fixes older than the idle gap are considered; the segment closes once nothing can continue it")
  func idle() {
    let fixes = Self.stay(at: 0, from: 0, to: 600) + Self.drive(fromMeters: 0, toMeters: 3000, start: 600)
    let last = fixes.last!.timeMilliseconds
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    // The car is moving at its last fix: a later fix could still show it travelled through.
    #expect(segmenter.process(FixColumns(fixes), now: last + 300_000, state: &state).segments.isEmpty)
    #expect(segmenter.advance(to: last + 300_000 + 2_700_000, state: &state).segments.isEmpty)
    let closed = segmenter.advance(to: last + 300_000 + 2_700_001, state: &state).segments
    #expect(closed.count == 1 && closed[0].isTrip && closed[0].endedBy == .gap)
  }

  @Test("batch == fix by fix == chunks, two people interleaved; trip ids per person")
  func streaming() {
    let people: [Fix] =
      Self.day(person: 1) + Self.day(person: 2, start: 30) + Self.day(person: 1, start: 4000)
    let all = people.sorted { a, b in
      a.timeMilliseconds != b.timeMilliseconds ? a.timeMilliseconds < b.timeMilliseconds : a.user < b.user
    }
    let segmenter = TripSegmenter()
    let end = all.last!.timeMilliseconds + 3_600_000
    var a = TripSegmenterState()
    let batch = segmenter.process(FixColumns(all), now: end, state: &a)
    var b = TripSegmenterState()
    var stream = TripOutput()
    for fix in all { stream += segmenter.process(FixColumns([fix]), now: fix.timeMilliseconds, state: &b) }
    stream += segmenter.advance(to: end, state: &b)
    var c = TripSegmenterState()
    var chunks = TripOutput()
    for start in stride(from: 0, to: all.count, by: 13) {
      let part = Array(all[start..<min(start + 13, all.count)])
      chunks += segmenter.process(FixColumns(part), now: part.last!.timeMilliseconds, state: &c)
    }
    chunks += segmenter.advance(to: end, state: &c)
    let key = { (s: TripSegment) in s.id }
    let expected: [UInt64] = [1 << 32 | 1, 1 << 32 | 2, 2 << 32 | 1]
    #expect(batch.segments.filter(\.isTrip).map(key).sorted() == expected)
    func sorted(_ o: TripOutput) -> ([TripSegment], [TripStay]) {
      (
        o.segments.sorted { $0.id < $1.id },
        o.stays.sorted { ($0.person, $0.startMilliseconds) < ($1.person, $1.startMilliseconds) }
      )
    }
    // Stays left: person 1 home, the first destination, home again; person 2
    // home. The last destination of each was never left, so not reported.
    #expect(batch.stays.map(\.person.rawValue).sorted() == [1, 1, 1, 2])
    #expect(sorted(batch) == sorted(stream))
    #expect(sorted(batch) == sorted(chunks))
    #expect(a == b && a == c)
  }

  @Test(
    "ends are named from the fence's records, a start it never saw them leave by placeAt; feed-only or 'stopped X km from'"
  )
  func naming() {
    let home = Geofence(id: 1, center: W.home, radiusMeters: 100)
    let work = Geofence(id: 2, center: Self.away, radiusMeters: 100)
    let trip = run(Self.day()).first(where: \.isTrip)!
    let places = GeofenceEngine(places: [home, work])
    func event(_ kind: GeofenceEventKind, _ place: PlaceID, _ seconds: Double) -> GeofenceEvent {
      let t = W.t0 + Int64(seconds * 1000)
      return GeofenceEvent(
        kind: kind, outcome: .announced, reasons: [.entered], place: place, circle: 0, person: UserID(1),
        eventMilliseconds: t, decidedMilliseconds: t, journey: nil)
    }
    let named = TripNaming.ends(
      of: trip, events: [event(.departure, 1, 610), event(.arrival, 2, 790)], fence: places)
    #expect(named == TripNaming.Ends(from: 1, fromSource: .fence, to: 2, toSource: .fence))
    // Arrived and left again: no end name; that departure is the first of the trip.
    let left = TripNaming.ends(
      of: trip, events: [event(.arrival, 2, 700), event(.departure, 2, 720)], fence: places)
    #expect(left == TripNaming.Ends(from: 2, fromSource: .fence, to: nil))
    // The trip starts at the last fix at home (its centre): placeAt, 0 m.
    let unseen = TripNaming.ends(of: trip, events: [], fence: places)
    #expect(unseen == TripNaming.Ends(from: 1, fromSource: .placeAt, fromDistanceMeters: 0, to: nil))
    let end = trip.summary.endMilliseconds
    #expect(TripNaming.notice(for: trip, ends: named, places: [home, work], now: end) == .feedOnly(place: 2))
    let near = TripNaming.notice(for: trip, ends: left, places: [home, work], now: end + 1_800_000)
    #expect(
      near
        == .stoppedNear(place: 2, meters: GreatCircle.distanceMeters(from: Self.away, to: trip.summary.end)))
    #expect(TripNaming.notice(for: trip, ends: left, places: [home, work], now: end + 1_800_001) == .nothing)
    // The stay's first fix stands where the drive's last did: a step under
    // 5 m, left out of the drawn line.
    #expect(trip.trail().points.count == trip.fixes.count - 1)
  }

  /// Issue 15 item 17: the stay disc was cut off both ends of every trip, so
  /// walks under about 350 m were never trips.
  @Test("a 260 m walk with 160 m displacement over 3 min between two 5-min stays is a trip, stay to stay")
  func aShortWalkBetweenTwoStaysIsATrip() {
    // Stay at home (a fix every 30 s for 5.5 min), then 3 min of walking
    // in 13 m steps 9 s apart (1.44 m/s): east 65 m, north 39 m, east 91 m,
    // south 65 m — 260 m of path, at most 160.8 m from the start — then a
    // stay of 5.5 min where it ended.
    var fixes = (0...11).map { W.fix(0, Double($0) * 30, accuracy: 5, speed: 0) }
    let legs: [(bearing: Double, steps: Int)] = [(90, 5), (0, 3), (90, 7), (180, 5)]
    var here = W.home
    var t = 330.0
    for (bearing, steps) in legs {
      for _ in 0..<steps {
        here = GreatCircle.destination(from: here, initialBearingDegrees: bearing, distanceMeters: 13)
        t += 9
        fixes.append(W.fix(0, t, accuracy: 5, speed: 1.44, from: here))
      }
    }
    let end = here
    for k in 1...11 { fixes.append(W.fix(0, t + Double(k) * 30, accuracy: 5, speed: 0, from: end)) }
    let segments = run(fixes)
    let trips = segments.filter(\.isTrip)
    #expect(trips.count == 1, "\(segments.map(\.reasons))")
    guard let trip = trips.first else { return }
    // From the last fix of the first stay to the first fix of the second.
    #expect(trip.summary.startMilliseconds == W.t0 + 330_000)
    #expect(trip.summary.endMilliseconds == W.t0 + Int64(t * 1000) + 30_000)
    #expect(abs(trip.summary.pathMeters - 260) < 0.01)
    #expect(abs(trip.summary.displacementMeters - (156.0 * 156 + 39 * 39).squareRoot()) < 0.01)
    // Moving is a measured speed of 1 m/s or the ground beyond both
    // accuracies: the walk at 0.999 m/s with fixes too close to tell is not.
    var slow = fixes
    for k in slow.indices where slow[k].speedMetersPerSecond == 1.44 { slow[k].speedMetersPerSecond = 0.999 }
    #expect(run(slow).filter(\.isTrip).isEmpty)
  }

  /// Found by the trip property (Reference/TripPropertyTests): a fix with no
  /// accuracy (NaN, an AIS position) is kept on purpose, and a state holding
  /// one could not be saved ("Unable to encode Double.nan directly in JSON").
  @Test("a state holding a fix with no accuracy saves and restores, and goes on as if never saved")
  func aStateHoldingAFixWithNoAccuracySavesAndRestores() throws {
    var fixes = Self.day()
    let k = fixes.count / 2
    fixes[k].horizontalAccuracyMeters = .nan
    let segmenter = TripSegmenter()
    var straight = TripSegmenterState()
    var saved = TripSegmenterState()
    let last = fixes.last!.timeMilliseconds
    // Mid-drive: the NaN fix is in the open segment; the last ones are pending.
    let now = fixes[k + 3].timeMilliseconds + 300_000
    let a = segmenter.process(FixColumns(fixes), now: now, state: &straight)
    #expect(segmenter.process(FixColumns(fixes), now: now, state: &saved) == a)
    let json = try JSONEncoder().encode(saved)
    saved = try JSONDecoder().decode(TripSegmenterState.self, from: json)
    #expect(String(decoding: json, as: UTF8.self).contains("accuracyUnknown"))
    let b = segmenter.advance(to: last + 3_600_000, state: &straight)
    let c = segmenter.advance(to: last + 3_600_000, state: &saved)
    // (NaN is not equal to itself: compare the fixes' times and the accuracy's NaN-ness.)
    let trips = b.segments.filter(\.isTrip)
    #expect(trips.count == 1 && c.segments.filter(\.isTrip).count == 1)
    #expect(
      b.segments.map { $0.fixes.map(\.timeMilliseconds) }
        == c.segments.map { $0.fixes.map(\.timeMilliseconds) })
    #expect(c.segments.flatMap(\.fixes).filter { $0.horizontalAccuracyMeters.isNaN }.count == 1)
    // A state saved before the flag existed (every accuracy a number) still decodes.
    var sharp = TripSegmenterState()
    _ = segmenter.process(FixColumns(Self.day()), now: now, state: &sharp)
    let plain = try JSONEncoder().encode(sharp)
    #expect(!String(decoding: plain, as: UTF8.self).contains("accuracyUnknown"))
    #expect(try JSONDecoder().decode(TripSegmenterState.self, from: plain) == sharp)
  }

  /// Found by review15: a saved person whose closed-segment count was
  /// UInt32.max, or whose counters were Int.max, decoded, and the next close
  /// or count trapped on overflow.
  @Test(
    "regression 2026-12-06: saved counts decode up to their limits and are refused past them; a count at the last id closes segments without trapping"
  )
  func savedCountsAtTheirLimits() throws {
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    let day = Self.day()
    let mid = day[day.count / 2].timeMilliseconds
    _ = segmenter.process(FixColumns(day), now: mid, state: &state)
    let json = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any])
    func decoded(_ key: String, _ value: Any) -> TripSegmenterState? {
      var copy = json
      var people = copy["people"] as? [Any] ?? []
      var person = people[1] as? [String: Any] ?? [:]
      person[key] = value
      people[1] = person
      copy["people"] = people
      guard let data = try? JSONSerialization.data(withJSONObject: copy) else { return nil }
      return try? JSONDecoder().decode(TripSegmenterState.self, from: data)
    }
    for key in ["droppedLate", "skipped", "duplicates"] {
      #expect(decoded(key, 1 << 53) != nil, "\(key)")
      #expect(decoded(key, (1 << 53) + 1) == nil, "\(key)")
      #expect(decoded(key, -1) == nil, "\(key)")
    }
    #expect(decoded("segmentsClosed", UInt32.max) == nil)
    var edge = try #require(decoded("segmentsClosed", UInt32.max - 1))
    // The rest of the day closes its trip and stay with ids up to the last
    // one; a second day's go on at it (repeating it) without a trap.
    var out = segmenter.process(FixColumns(day), now: mid, state: &edge)
    out += segmenter.process(FixColumns(Self.day(start: 86_400)), now: mid, state: &edge)
    out += segmenter.advance(to: day.last!.timeMilliseconds + 3 * 86_400_000, state: &edge)
    let ids = out.segments.map { UInt32(truncatingIfNeeded: $0.id) }
    #expect(ids.count >= 2 && ids.allSatisfy { $0 == .max })
  }

  /// Found by a review: a saved state may list a clock deadline for a
  /// person it holds nothing of; the advance skipped that entry but kept
  /// it, so every later advance visited it again.
  @Test("a deadline for a person the state does not hold is forgotten by the first advance that meets it")
  func aDeadlineWithoutItsPerson() throws {
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    let day = Self.day()
    _ = segmenter.process(FixColumns(day), now: day[day.count / 2].timeMilliseconds, state: &state)
    var json = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any])
    var waiting = json["waiting"] as? [Any] ?? []
    waiting += [999, 5] as [Any]  // person 999 due at 5 ms; no such person
    json["waiting"] = waiting
    var restored = try JSONDecoder().decode(
      TripSegmenterState.self, from: JSONSerialization.data(withJSONObject: json))
    #expect(restored.waiting.contains(UserID(999)))
    // Before the deadline it stays; at it, it goes, and the rest is as without it.
    #expect(segmenter.advance(to: 4, state: &restored).segments.isEmpty)
    #expect(restored.waiting.contains(UserID(999)))
    var plain = state
    #expect(segmenter.advance(to: 5, state: &restored) == segmenter.advance(to: 5, state: &plain))
    #expect(!restored.waiting.contains(UserID(999)))
    #expect(restored == plain)
  }

  /// Found by the trip property (Reference/TripPropertyTests): while a later
  /// fix waited out the idle gap, the clock advance did not visit the person
  /// until that fix came due, so a segment nothing could continue closed up
  /// to the idle gap (5 min) later than the rules say, and the trip card with it.
  @Test("a segment closes on the clock at the split gap even while a later fix waits out the idle gap")
  func aSegmentClosesOnTimeWhileALaterFixIsPending() {
    var fixes = Self.drive(fromMeters: 0, toMeters: 3000, start: 0)
    fixes[fixes.count - 1].speedMetersPerSecond = 0  // it stopped there
    let last = fixes.last!.timeMilliseconds
    // Uploaded with the drive 8 min after its end: a fix from 6 min after it, pending until 11 min.
    let later = W.fix(3500, Double(last - W.t0) / 1000 + 360, accuracy: 8, speed: 0)
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    #expect(
      segmenter.process(FixColumns(fixes + [later]), now: last + 480_000, state: &state).segments.isEmpty)
    // 5 min of idle gap and 5 min of split gap after the last fix: not yet…
    #expect(segmenter.advance(to: last + 600_000, state: &state).segments.isEmpty)
    // …and one millisecond later the trip closes, by the clock.
    let closed = segmenter.advance(to: last + 600_001, state: &state).segments
    #expect(closed.count == 1 && closed.first?.isTrip == true && closed.first?.endedBy == .gap)
    #expect(closed.first?.summary.endMilliseconds == last)
    // The pending fix is still considered when its time comes, and opens the next segment.
    #expect(segmenter.advance(to: later.timeMilliseconds + 300_000, state: &state).segments.isEmpty)
    #expect(state.people[1]?.segment == [later])
  }

  /// Found by the trip property (Reference/TripPropertyTests): a segment
  /// ending at a named place waits as a possible journey origin and was
  /// scheduled for the 45 min journey silence; when the place was removed,
  /// it stayed open until then, and fixes uploaded late in the meantime
  /// continued it (making a stay of what had been closed).
  @Test("removing the place a segment waits at closes it on the next clock advance, after reconcile")
  func removingTheOriginPlaceClosesTheWaitingSegment() {
    let home = Geofence(id: 1, center: W.home, radiusMeters: 150)
    // A short walk inside home that stopped 120 m from where it began.
    let fixes = [
      W.fix(0, 0, accuracy: 10, speed: 0), W.fix(60, 40, accuracy: 10, speed: 1.5),
      W.fix(120, 80, accuracy: 10, speed: 0),
    ]
    let last = fixes[2].timeMilliseconds
    let atHome = TripSegmenter(places: [home])
    var state = TripSegmenterState()
    // Past the split gap it stays open: a journey from home may follow.
    #expect(atHome.process(FixColumns(fixes), now: last + 700_000, state: &state).segments.isEmpty)
    #expect(atHome.advance(to: last + 700_000, state: &state).segments.isEmpty)
    var unreconciled = state
    let noPlaces = TripSegmenter()
    #expect(noPlaces.reconcile(&state) == 1)
    let closed = noPlaces.advance(to: last + 710_000, state: &state).segments
    #expect(closed.count == 1 && closed.first?.endedBy == .gap && closed.first?.isTrip == false)
    // Without reconcile the segmenter would not look before the journey silence.
    #expect(noPlaces.advance(to: last + 710_000, state: &unreconciled).segments.isEmpty)
  }

  /// Two phones of one person at one millisecond: the first received stays
  /// and the other was dropped without a count (every input is counted).
  @Test("a second fix at a millisecond already pending is counted as a duplicate, the first one kept")
  func aSecondFixAtTheSameMillisecondIsCounted() throws {
    let fixes = Self.day()
    var tablet = fixes[3]
    tablet.device = 2
    tablet.latitudeDegrees += 0.01  // a kilometre off: it would show in the path
    let segmenter = TripSegmenter()
    var state = TripSegmenterState()
    let out = segmenter.process(
      FixColumns(fixes + [tablet]), now: fixes.last!.timeMilliseconds + 3_600_000, state: &state)
    var alone = TripSegmenterState()
    #expect(
      out
        == segmenter.process(FixColumns(fixes), now: fixes.last!.timeMilliseconds + 3_600_000, state: &alone))
    #expect(
      state.duplicates(UserID(1)) == 1 && state.droppedLate(UserID(1)) == 0 && state.skipped(UserID(1)) == 0)
    // Once considered, the same millisecond is behind the watermark: late.
    _ = segmenter.process(FixColumns([tablet]), now: fixes.last!.timeMilliseconds + 3_600_000, state: &state)
    #expect(state.duplicates(UserID(1)) == 1 && state.droppedLate(UserID(1)) == 1)
    let restored = try JSONDecoder().decode(TripSegmenterState.self, from: JSONEncoder().encode(state))
    #expect(restored.duplicates(UserID(1)) == 1)
  }
}
