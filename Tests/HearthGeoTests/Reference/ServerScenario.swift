import Foundation
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

/// The draws the scenarios use, portable (from `nextUnit`, not the
/// standard library's unspecified algorithms).
extension SeededGenerator {
  /// Uniform in [low, high).
  mutating func double(_ low: Double, _ high: Double) -> Double { nextDouble(in: low, high) }
  /// Uniform in low...high.
  mutating func int(_ low: Int, _ high: Int) -> Int {
    min(high, low + Int(nextUnit() * Double(high - low + 1)))
  }
  /// True with probability `p`.
  mutating func chance(_ p: Double) -> Bool { nextUnit() < p }
  /// The elements in a random order (Fisher–Yates).
  mutating func shuffled<T>(_ array: [T]) -> [T] {
    var a = array
    for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, int(0, i)) }
    return a
  }
}

typealias PropertyRandom = SeededGenerator

/// A random server history for the property tests: a few people, their
/// phones, circles and places, and what the server sees happen, in order:
/// uploads (with their receipt times; shuffled, duplicated, split, late),
/// clock ticks with no fixes, the state saved and restored, places edited.
/// Positions are kept in metres east and north of one centre so a printed
/// case reads as a small map.
struct ServerScenario: CustomStringConvertible, Shrinkable {
  static let centre = Coordinate(latitudeDegrees: 48.137, longitudeDegrees: 11.575)
  static let t0: Int64 = 1_700_000_000_000
  static let metresPerDegree = GreatCircle.earthMeanRadiusMeters * Double.pi / 180

  enum Step {
    case upload(received: Int64, fixes: [Fix])
    case tick(Int64)
    case saveRestore
    /// The places from then on (the circle memberships stay).
    case edit([Geofence])
  }

  var places: [Geofence]
  var circlesOfPerson: [UserID: [CircleID]]
  var limits: [CircleID: SpeedLimit]
  var steps: [Step]

  static func coordinate(east: Double, north: Double) -> Coordinate {
    let latitude = centre.latitudeDegrees + north / metresPerDegree
    let longitude =
      centre.longitudeDegrees + east / (metresPerDegree * cos(centre.latitudeDegrees * Double.pi / 180))
    return Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude)
  }

  static func local(_ c: Coordinate) -> (east: Double, north: Double) {
    (
      (c.longitudeDegrees - centre.longitudeDegrees) * metresPerDegree
        * cos(centre.latitudeDegrees * Double.pi / 180),
      (c.latitudeDegrees - centre.latitudeDegrees) * metresPerDegree
    )
  }

  // MARK: Generating

  /// Knobs for what a scenario may contain.
  struct Options {
    var people = 1...2
    var late = true
    var shuffled = true
    var duplicated = true
    var edits = true
    var saveRestore = true
    var ticks = true
    /// Uploads span at most this long (first to last fix), ms.
    var maximumUploadSpanMilliseconds: Int64 = .max
    /// Received this long after the newest fix, ms (nil: 0.5–5 s at random).
    var receiptDelayMilliseconds: Int64? = nil
    /// Days shaped for the trip rules as well (`tripPiece`): more pieces a
    /// person, short walks at the validity thresholds, silences in drives and
    /// stays, journeys between named places, wandering inside a stay, times
    /// at the thresholds to the millisecond, fixes at 100 m, 100.001 m and
    /// with no accuracy. Off, the draws are exactly those of the other
    /// properties (their cases do not change).
    var tripShapes = false
    /// Issue 28's histories (ServerScenario+Devices.swift): a home tablet's
    /// batches of old `still` fixes, a carried second device, each on its
    /// own clock and cadence, and late drives uploaded with a fresh fix;
    /// and the stays' occasional `still` fix from a second device.
    var devices = true
  }

  static func generate(_ r: inout PropertyRandom, options: Options = Options()) -> ServerScenario {
    let circleCount = r.int(1, 2)
    var places: [Geofence] = []
    for k in 0..<r.int(1, 4) {
      places.append(
        Geofence(
          id: PlaceID(UInt32(k + 1)), circle: CircleID(UInt32(r.int(1, circleCount))),
          center: coordinate(east: r.double(-1500, 1500), north: r.double(-1500, 1500)),
          radiusMeters: [40.0, 45, 80, 100, 150, 300, 500][r.int(0, 6)]))
    }
    var circlesOfPerson: [UserID: [CircleID]] = [:]
    var limits: [CircleID: SpeedLimit] = [:]
    for c in 1...circleCount where r.chance(0.8) {
      limits[CircleID(UInt32(c))] = SpeedLimit(kilometersPerHour: [30.0, 50, 70][r.int(0, 2)])
    }
    var fixes: [(device: DeviceID, fix: Fix)] = []
    for p in 1...r.int(options.people.lowerBound, options.people.upperBound) {
      let user = UserID(UInt32(p))
      circlesOfPerson[user] = Array(
        Set((0..<r.int(1, 2)).map { _ in CircleID(UInt32(r.int(1, circleCount))) })
      )
      .sorted()
      for fix in track(
        user, places: places, &r, tripShapes: options.tripShapes, secondDevice: options.devices)
      {
        fixes.append((fix.device, fix))
      }
    }
    // Each phone uploads its own fixes in runs of 1 to 30, received a few
    // seconds after the newest; some late, some retried, some shuffled.
    var uploads: [(received: Int64, fixes: [Fix])] = []
    for device in Set(fixes.map { UInt64($0.fix.user.rawValue) << 32 | UInt64($0.device.rawValue) }).sorted()
    {
      let own = fixes.filter { UInt64($0.fix.user.rawValue) << 32 | UInt64($0.device.rawValue) == device }
        .map(\.fix)
      var start = 0
      while start < own.count {
        var end = min(own.count, start + r.int(1, 30))
        while end > start + 1
          && own[end - 1].timeMilliseconds - own[start].timeMilliseconds
            > options.maximumUploadSpanMilliseconds
        {
          end -= 1
        }
        var batch = Array(own[start..<end])
        var received =
          (batch.map(\.timeMilliseconds).max() ?? t0)
          + (options.receiptDelayMilliseconds ?? Int64(r.int(500, 5_000)))
        if options.late && r.chance(0.08) { received += Int64(r.int(16, 40)) * 60_000 }
        if options.shuffled && r.chance(0.15) { batch = r.shuffled(batch) }
        uploads.append((received, batch))
        if options.duplicated && r.chance(0.1) {
          uploads.append((received + Int64(r.int(0, 120_000)), Array(batch[0..<r.int(1, batch.count)])))
        }
        start = end
      }
    }
    if options.devices {
      uploads += otherDevicesUploads(fixes.map(\.fix), options: options, seed: r.state)
    }
    uploads.sort { $0.received < $1.received }
    var steps: [Step] = []
    var clock = t0
    var editedPlaces = places
    for upload in uploads {
      if options.ticks && r.chance(0.3) {
        let tick = clock + Int64(r.double(0, 1) * Double(max(0, upload.received - clock)))
        steps.append(.tick(tick))
      }
      steps.append(.upload(received: upload.received, fixes: upload.fixes))
      clock = upload.received
      if options.saveRestore && r.chance(0.05) { steps.append(.saveRestore) }
      if options.edits && r.chance(0.02) && !editedPlaces.isEmpty {
        editedPlaces.remove(at: r.int(0, editedPlaces.count - 1))
        steps.append(.edit(editedPlaces))
      }
    }
    if options.ticks { steps.append(.tick(clock + 3_600_000)) }
    return ServerScenario(places: places, circlesOfPerson: circlesOfPerson, limits: limits, steps: steps)
  }

  /// One person's day in pieces: stays (at a place or anywhere), walks and
  /// drives between them, a crash now and then (a fast stop, then
  /// heartbeats or silence), network estimates and heartbeats mixed in; a
  /// second device (a tablet at home, saying `still`) for some people,
  /// unless `secondDevice` is false (the draw is made either way, so the
  /// rest of the history is the same).
  static func track(
    _ user: UserID, places: [Geofence], _ r: inout PropertyRandom, tripShapes: Bool = false,
    secondDevice: Bool = true
  ) -> [Fix] {
    var fixes: [Fix] = []
    var t = t0 + Int64(r.int(0, 600_000))
    var here =
      places.isEmpty || r.chance(0.3)
      ? (east: r.double(-1500, 1500), north: r.double(-1500, 1500))
      : local(places[r.int(0, places.count - 1)].center)
    let phone = DeviceID(user.rawValue * 10 + 1)
    func emit(
      _ east: Double, _ north: Double, speed: Double?, accuracy: Double, activity: Activity,
      source: FixSource = .ordinary, device: DeviceID? = nil
    ) {
      let c = coordinate(east: east, north: north)
      fixes.append(
        Fix(
          timeMilliseconds: t, latitudeDegrees: c.latitudeDegrees, longitudeDegrees: c.longitudeDegrees,
          horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speed, activity: activity, source: source,
          device: device ?? phone, user: user))
    }
    for _ in 0..<(tripShapes ? r.int(2, 6) : r.int(1, 4)) {
      let piece = tripShapes ? r.int(0, 15) : r.int(0, 9)
      if piece >= 10 {
        fixes += tripPiece(piece, user, places: places, at: &here, time: &t, &r)
        continue
      }
      switch piece {
      case 0...3:  // a stay
        let end = t + Int64(r.int(1, 12)) * 60_000
        // At most 30 fixes a stay.
        let every = max(Int64([5, 10, 30, 60, 120][r.int(0, 4)]) * 1000, (end - t) / 30)
        while t < end {
          if r.chance(0.08) {
            emit(
              here.east + r.double(-200, 200), here.north + r.double(-200, 200), speed: nil,
              accuracy: r.double(101, 300), activity: .unknown)
          } else if r.chance(0.05) {
            emit(here.east, here.north, speed: 0, accuracy: 10, activity: .still, source: .heartbeat)
          } else if r.chance(0.05) {
            // An over-confident outlier (or a step out to the bins and back).
            emit(here.east + r.double(120, 400), here.north, speed: 0, accuracy: 5, activity: .unknown)
          } else {
            emit(
              here.east + r.double(-6, 6), here.north + r.double(-6, 6), speed: r.chance(0.2) ? nil : 0,
              accuracy: r.double(3, 40), activity: r.chance(0.5) ? .still : .unknown)
          }
          if r.chance(0.03) && secondDevice {
            emit(
              here.east, here.north, speed: 0, accuracy: 15, activity: .still,
              device: DeviceID(user.rawValue * 10 + 2))
          }
          t += every
        }
      case 4...8:  // a move to a place or anywhere
        let target =
          places.isEmpty || r.chance(0.3)
          ? (east: r.double(-1500, 1500), north: r.double(-1500, 1500))
          : local(places[r.int(0, places.count - 1)].center)
        let speed = [1.4, 4, 9, 14, 22][r.int(0, 4)]
        let cadence = Double([1, 5, 10, 20, 30][r.int(0, 4)]) * (speed < 5 ? 3 : 1)
        let dx = target.east - here.east
        let dy = target.north - here.north
        let distance = (dx * dx + dy * dy).squareRoot()
        // At most 30 fixes a move.
        let steps = min(30, max(1, Int(distance / (speed * cadence))))
        let every = distance / speed / Double(steps)
        for k in 1...steps {
          let f = Double(k) / Double(steps)
          t += Int64(every * 1000)
          if r.chance(0.07) {
            emit(
              here.east + dx * f + r.double(-150, 150), here.north + dy * f + r.double(-150, 150), speed: nil,
              accuracy: tripShapes ? looseAccuracy(&r) : r.double(101, 300), activity: .unknown)
          } else {
            emit(
              here.east + dx * f + r.double(-4, 4), here.north + dy * f + r.double(-4, 4),
              speed: r.chance(0.15) ? nil : speed + r.double(-1, 1), accuracy: r.double(3, 30),
              activity: speed > 6 ? .automotive : .walking)
          }
        }
        here = target
      default:  // a crash: a fast stop, then heartbeats or nothing (or, issue 28, IncidentShapes.swift)
        if let shaped = incidentPiece(user, places: places, at: &here, time: &t, &r) {
          fixes += shaped
          continue
        }
        t += 10_000
        emit(here.east + 150, here.north, speed: 18, accuracy: 8, activity: .automotive)
        t += Int64(r.int(1, 45)) * 1000
        here.east += 160
        emit(here.east, here.north, speed: 0, accuracy: 8, activity: .unknown)
        if r.chance(0.5) {
          for _ in 0..<r.int(1, 4) {
            t += Int64(r.int(60, 400)) * 1000
            emit(here.east, here.north, speed: 0, accuracy: 10, activity: .still, source: .heartbeat)
          }
        }
        t += Int64(r.int(5, 30)) * 60_000
      }
    }
    return fixes
  }

  /// A network estimate's accuracy on a trip-shaped day: at the skip
  /// threshold (kept), just over it, none at all (kept), or looser.
  static func looseAccuracy(_ r: inout PropertyRandom) -> Double {
    switch r.int(0, 5) {
    case 0: 100
    case 1: 100.001
    case 2: .nan
    default: r.double(101, 300)
    }
  }

  /// One piece of a trip-shaped day (`Options.tripShapes`), from `here` at
  /// `t`; moves both on. Pieces 10–15: a short walk out and back at the
  /// validity thresholds; a drive with a silence in it (travelled through
  /// or not, the fix before moving, unmeasured or stopped); a journey (a
  /// few fixes at one named place, a silence, then fixes inside another);
  /// wandering inside a stay; a silence inside a stay, coming back inside
  /// the disc or just outside it; a stay or a silence at 5 or 45 min to the
  /// millisecond.
  static func tripPiece(
    _ piece: Int, _ user: UserID, places: [Geofence], at here: inout (east: Double, north: Double),
    time t: inout Int64,
    _ r: inout PropertyRandom
  ) -> [Fix] {
    var fixes: [Fix] = []
    let phone = DeviceID(user.rawValue * 10 + 1)
    func emit(_ e: Double, _ n: Double, _ time: Int64, speed: Double?, accuracy: Double, activity: Activity) {
      let c = coordinate(east: e, north: n)
      fixes.append(
        Fix(
          timeMilliseconds: time, latitudeDegrees: c.latitudeDegrees, longitudeDegrees: c.longitudeDegrees,
          horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speed, activity: activity, device: phone,
          user: user))
    }
    /// Still fixes at `here` every `every` ms for `count` fixes.
    func still(_ count: Int, every: Int64, jitter: Double = 5) {
      for _ in 0..<count {
        t += every
        emit(
          here.east + r.double(-jitter, jitter), here.north + r.double(-jitter, jitter), t,
          speed: r.chance(0.3) ? nil : 0, accuracy: r.double(3, 30), activity: .still)
      }
    }
    /// A straight move from `here` by (dx, dy) at `speed` m/s, a fix every `every` s.
    func move(_ dx: Double, _ dy: Double, speed: Double, every: Double, measured: Double = 0.8) {
      let length = (dx * dx + dy * dy).squareRoot()
      let steps = min(30, max(1, Int(length / (speed * every))))
      let (e0, n0) = here
      for k in 1...steps {
        let f = Double(k) / Double(steps)
        t += Int64(length / speed / Double(steps) * 1000)
        emit(
          e0 + dx * f + r.double(-3, 3), n0 + dy * f + r.double(-3, 3), t,
          speed: r.chance(measured) ? speed + r.double(-0.3, 0.3) : nil, accuracy: r.double(3, 15),
          activity: speed > 6 ? .automotive : .walking)
      }
      here = (e0 + dx, n0 + dy)
    }
    func direction() -> (Double, Double) {
      let a = r.double(0, 2 * Double.pi)
      return (cos(a), sin(a))
    }
    switch piece {
    case 10:  // out and back near 250 m of path and 150 m from the start
      let out = r.double(120, 190)
      let back = r.double(40, 150)
      let (ux, uy) = direction()
      let turn = r.double(2, 3.14)
      let speed = r.double(0.9, 1.7)
      let every = Double([5, 9, 15, 30][r.int(0, 3)])
      move(ux * out, uy * out, speed: speed, every: every, measured: 0.7)
      move(
        (ux * cos(turn) - uy * sin(turn)) * back, (ux * sin(turn) + uy * cos(turn)) * back, speed: speed,
        every: every, measured: 0.7)
    case 11:  // a drive with a silence
      let (ux, uy) = direction()
      let speed = [4.0, 9, 14][r.int(0, 2)]
      move(ux * r.double(300, 1500), uy * r.double(300, 1500), speed: speed, every: 10)
      if r.chance(0.3), let last = fixes.indices.last {
        fixes[last].speedMetersPerSecond = r.chance(0.5) ? nil : 0
      }
      let silence = Int64([4.5, 5.5, 10, 30, 44, 46][r.int(0, 5)] * 60_000) + Int64(r.int(-20_000, 20_000))
      let across = [0.6, 0.95, 1.05, 2, 8][r.int(0, 4)] * Double(silence) / 1000
      t += silence
      here = (here.east + ux * across, here.north + uy * across)
      emit(
        here.east, here.north, t, speed: r.chance(0.5) ? speed : nil, accuracy: r.double(3, 15),
        activity: .automotive)
      move(ux * r.double(200, 800), uy * r.double(200, 800), speed: speed, every: 10)
    case 12 where places.count >= 2:  // a journey between two named places over a silence
      let a = places[r.int(0, places.count - 1)]
      var b = places[r.int(0, places.count - 1)]
      if b.id == a.id { b = places[(places.firstIndex { $0.id == a.id }.map { $0 + 1 } ?? 0) % places.count] }
      here = local(a.center)
      still(r.int(1, 6), every: Int64(r.int(20, 60)) * 1000)
      t += Int64(r.double(3, 50) * 60_000)
      here = local(b.center)
      still(r.int(1, 8), every: Int64(r.int(20, 60)) * 1000)
    case 13:  // wandering inside a stay
      still(r.int(2, 10), every: Int64(r.int(5, 30)) * 1000)
      let (ux, uy) = direction()
      let reach = r.double(30, 95)
      move(ux * reach, uy * reach, speed: r.double(1, 1.6), every: Double(r.int(5, 10)), measured: 0.9)
      move(-ux * reach, -uy * reach, speed: r.double(1, 1.6), every: Double(r.int(5, 10)), measured: 0.9)
      still(r.int(2, 10), every: Int64(r.int(5, 30)) * 1000)
    case 14:  // a silence inside a stay: back inside the disc, or just outside it
      still(r.int(3, 12), every: Int64(r.int(20, 60)) * 1000)
      t += Int64(r.double(6, 60) * 60_000)
      let (ux, uy) = direction()
      let away = r.chance(0.5) ? r.double(0, 40) : r.double(100, 200)
      here = (here.east + ux * away, here.north + uy * away)
      still(r.int(1, 8), every: Int64(r.int(20, 60)) * 1000)
    default:  // 15 (and 12 without two places): a stay or a silence at its threshold, to the millisecond
      let delta = Int64(r.int(-1, 1))
      if r.chance(0.5) {
        // Three still fixes whose first and last are 5 min ± 1 ms apart.
        still(1, every: 10_000, jitter: 2)
        still(1, every: 150_000, jitter: 2)
        still(1, every: 150_000 + delta, jitter: 2)
      } else {
        let (ux, uy) = direction()
        move(ux * 400, uy * 400, speed: 9, every: 10, measured: 1)
        let silence = (r.chance(0.5) ? 300_000 : 2_700_000) + delta
        let across = 1.5 * Double(silence) / 1000
        t += silence
        here = (here.east + ux * across, here.north + uy * across)
        emit(here.east, here.north, t, speed: 9, accuracy: 5, activity: .automotive)
        move(ux * 400, uy * 400, speed: 9, every: 10, measured: 1)
      }
    }
    return fixes
  }

  // MARK: Shrinking and printing

  var shrinkCandidates: [ServerScenario] {
    var out: [ServerScenario] = []
    for i in steps.indices.reversed() {
      var s = self
      s.steps.remove(at: i)
      out.append(s)
    }
    for i in steps.indices {
      guard case .upload(let received, let fixes) = steps[i], fixes.count > 1 else { continue }
      for j in fixes.indices.reversed() {
        var s = self
        var smaller = fixes
        smaller.remove(at: j)
        s.steps[i] = .upload(received: received, fixes: smaller)
        out.append(s)
      }
    }
    for i in places.indices where places.count > 0 {
      var s = self
      let id = places[i].id
      s.places.remove(at: i)
      s.steps = s.steps.map {
        if case .edit(let edited) = $0 { return .edit(edited.filter { $0.id != id }) }
        return $0
      }
      out.append(s)
    }
    return out
  }

  static func describe(_ fix: Fix) -> String {
    let (e, n) = local(fix.coordinate)
    let speed = fix.speedMetersPerSecond.map { String(format: "%.2f", $0) } ?? "-"
    return String(
      format: "p%u/d%u t=%.3fs (%.1f E, %.1f N) ±%.1f v=%@ %@%@", fix.user.rawValue, fix.device.rawValue,
      Double(fix.timeMilliseconds - t0) / 1000, e, n, fix.horizontalAccuracyMeters, speed, "\(fix.activity)",
      fix.source == .ordinary ? "" : " \(fix.source)")
  }

  static func describe(_ place: Geofence) -> String {
    let (e, n) = local(place.center)
    return String(
      format: "place %u circle %u at (%.1f E, %.1f N) r=%.0f m", place.id.rawValue, place.circle.rawValue, e,
      n,
      place.radiusMeters)
  }

  var description: String {
    var lines = places.map(Self.describe)
    lines.append("circles: \(circlesOfPerson.sorted { $0.key < $1.key }.map { "p\($0.key): \($0.value)" })")
    lines.append(
      "limits km/h: \(limits.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.kilometersPerHour)" })")
    for step in steps {
      switch step {
      case .upload(let received, let fixes):
        lines.append(String(format: "upload received t=%.3fs:", Double(received - Self.t0) / 1000))
        lines += fixes.map { "    " + Self.describe($0) }
      case .tick(let t): lines.append(String(format: "tick t=%.3fs", Double(t - Self.t0) / 1000))
      case .saveRestore: lines.append("save and restore the state")
      case .edit(let places): lines.append("places now: \(places.map(\.id))")
      }
    }
    return lines.joined(separator: "\n")
  }
}
