import Foundation

@testable import HearthGeo

/// Issue 28: two classes of history the random days lacked, drawn by the
/// crash piece of `ServerScenario.track`:
/// - a stop seen only through rough fixes: a measured cruise, then a stop
///   fix up to 2.5 min later and the fixes after it, mostly rough (at and
///   around 50 m and 250 m, or of unknown accuracy) and without a speed, standing
///   at the stop, at the edge of its disc (50 m + accuracy), away from it
///   or driving on, the first one sometimes exactly when a car still doing
///   35 km/h would leave the disc; now and then a sharp fix in between;
/// - a fast drive-by of a place (the smallest most often, then the
///   largest): one fix inside,
///   the next a hair inside or outside the radius, in the 40 m band or
///   beyond it, past the place or back on the near side.
extension ServerScenario {
  /// One such piece from `here` at `t` (both moved on), or nil for the
  /// original crash piece. Draws only from `r`.
  static func incidentPiece(
    _ user: UserID, places: [Geofence], at here: inout (east: Double, north: Double), time t: inout Int64,
    _ r: inout PropertyRandom
  ) -> [Fix]? {
    switch r.int(0, 2) {
    case 1: return roughStop(user, at: &here, time: &t, &r)
    case 2 where !places.isEmpty: return driveBy(user, places: places, at: &here, time: &t, &r)
    default: return nil
    }
  }

  private static func fix(
    _ user: UserID, _ east: Double, _ north: Double, _ time: Int64, speed: Double?, accuracy: Double,
    activity: Activity = .automotive
  ) -> Fix {
    let c = coordinate(east: east, north: north)
    return Fix(
      timeMilliseconds: time, latitudeDegrees: c.latitudeDegrees, longitudeDegrees: c.longitudeDegrees,
      horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speed, activity: activity,
      device: DeviceID(user.rawValue * 10 + 1), user: user)
  }

  /// A rough accuracy: at the 50 m line and the 250 m one (the loosest
  /// that shows a stop from position), either side, or unknown.
  private static func roughAccuracy(_ r: inout PropertyRandom) -> Double {
    switch r.int(0, 8) {
    case 0: 50
    case 1: 50.001
    case 2: .nan
    case 3: 250
    case 4: 250.001
    default: r.double(51, 300)
    }
  }

  private static func roughStop(
    _ user: UserID, at here: inout (east: Double, north: Double), time t: inout Int64,
    _ r: inout PropertyRandom
  ) -> [Fix] {
    var fixes: [Fix] = []
    let angle = r.double(0, 2 * Double.pi)
    let (ux, uy) = (cos(angle), sin(angle))
    let speed = [12.0, 18, 25][r.int(0, 2)]
    let every = Double(r.int(5, 10))
    for _ in 0..<r.int(2, 4) {
      t += Int64(every * 1000)
      here = (here.east + ux * speed * every, here.north + uy * speed * every)
      fixes.append(
        fix(
          user, here.east + r.double(-3, 3), here.north + r.double(-3, 3), t,
          speed: r.chance(0.8) ? speed + r.double(-0.5, 0.5) : nil, accuracy: r.double(3, 15)))
    }
    // The stop fix: within 40 s, at the 40 s and 2 min lines to the
    // millisecond, in between, or later.
    let gaps: [Int64] = [
      Int64(r.int(1, 40)) * 1000, 40_000, 40_001, Int64(r.int(41, 119)) * 1000, 120_000, 120_001,
      Int64(r.int(121, 150)) * 1000,
    ]
    t += gaps[r.int(0, gaps.count - 1)]
    here = (here.east + ux * r.double(5, 60), here.north + uy * r.double(5, 60))
    let stop = here
    let sharpStop = r.chance(0.2)
    let stopAccuracy = sharpStop ? r.double(3, 30) : roughAccuracy(&r)
    fixes.append(
      fix(user, stop.east, stop.north, t, speed: sharpStop && r.chance(0.7) ? 0 : nil, accuracy: stopAccuracy)
    )
    let stopTime = t
    let drivesOn = r.chance(0.15)
    for k in 0..<r.int(0, 6) {
      let sharp = r.chance(0.12)
      let accuracy = sharp ? r.double(3, 50) : roughAccuracy(&r)
      let disc = 50 + (accuracy.isFinite ? accuracy : 0)
      if k == 0 && r.chance(0.3) && accuracy.isFinite {
        // When a car still doing 35 km/h would leave the disc, ±1 ms.
        t = stopTime + Int64((disc / (35 / 3.6) * 1000).rounded(.down)) + Int64(r.int(0, 1))
      } else {
        t += Int64(r.int(5, 90)) * 1000
      }
      let distance: Double
      if drivesOn {
        distance = speed * Double(t - stopTime) / 1000
      } else {
        switch r.int(0, 9) {
        case 0: distance = disc - 0.01
        case 1: distance = disc + 0.01
        case 2: distance = r.double(disc, disc + 400)
        default: distance = r.double(0, 20)
        }
      }
      let bearing = drivesOn ? angle : r.double(0, 2 * Double.pi)
      fixes.append(
        fix(
          user, stop.east + cos(bearing) * distance, stop.north + sin(bearing) * distance, t,
          speed: sharp && r.chance(0.5) ? 0 : nil, accuracy: accuracy, activity: .unknown))
    }
    if let last = fixes.last { here = local(last.coordinate) }
    t += Int64(r.int(5, 30)) * 60_000
    return fixes
  }

  private static func driveBy(
    _ user: UserID, places: [Geofence], at here: inout (east: Double, north: Double), time t: inout Int64,
    _ r: inout PropertyRandom
  ) -> [Fix] {
    // The smallest place most often, the largest next, any now and then.
    let bySize = places.sorted { ($0.radiusMeters, $0.id) < ($1.radiusMeters, $1.id) }
    let pick = r.double(0, 1)
    let place =
      pick < 0.45 ? bySize[0] : pick < 0.8 ? bySize[bySize.count - 1] : bySize[r.int(0, bySize.count - 1)]
    let centre = local(place.center)
    let radius = place.radiusMeters
    let angle = r.double(0, 2 * Double.pi)
    let (ux, uy) = (cos(angle), sin(angle))  // along the road
    let (wx, wy) = (-uy, ux)  // across it
    let lateral = r.double(0, 0.9) * radius
    let half = (radius * radius - lateral * lateral).squareRoot()
    func at(_ along: Double) -> (Double, Double) {
      (centre.east + ux * along + wx * lateral, centre.north + uy * along + wy * lateral)
    }
    let speed = [9.0, 15, 22][r.int(0, 2)]
    let measured = r.chance(0.8)
    var fixes: [Fix] = []
    func emit(_ along: Double) {
      let (e, n) = at(along)
      fixes.append(
        fix(
          user, e, n, t, speed: measured ? speed + r.double(-0.5, 0.5) : nil, accuracy: r.double(3, 20)))
    }
    // The next fix's distance from the centre: a hair inside or outside the
    // radius, in the band, at its edge, or beyond it.
    let distances = [
      radius - 0.01, radius + 0.01, radius + r.double(0, 40), radius + 39.99, radius + 40.01,
      radius + r.double(40, 150),
    ]
    let next = distances[r.int(0, distances.count - 1)]
    let farSide = r.chance(0.8)
    let nextAlong = (max(0, next * next - lateral * lateral)).squareRoot() * (farSide ? 1 : -1)
    let inside = r.double(-0.95 * half, farSide ? min(0.95 * half, nextAlong - 1) : 0.95 * half)
    // The approach, one to three fixes at road speed, then the fix inside.
    let step = speed * Double(r.int(1, 5))
    let approach = r.int(1, 3)
    // Driven there from where the day was, at road speed.
    let (e0, n0) = at(inside - Double(approach + 1) * step - radius)
    let far = ((e0 - here.east) * (e0 - here.east) + (n0 - here.north) * (n0 - here.north)).squareRoot()
    t += 10_000 + Int64((far / speed * 1000).rounded())
    for k in stride(from: approach, through: 1, by: -1) {
      t += Int64((step / speed * 1000).rounded())
      emit(inside - Double(k) * step - radius)
    }
    t += Int64(((radius + step) / speed * 1000).rounded())
    emit(inside)
    // The next fix: on along the road, or turned back to the near side.
    t +=
      farSide
      ? max(1_000, Int64(((nextAlong - inside) / speed * 1000).rounded())) : Int64(r.int(5, 30)) * 1000
    emit(nextAlong)
    // Then on (or back) the way it went.
    let onwards = farSide ? 1.0 : -1.0
    for k in 1...r.int(1, 3) {
      t += Int64(r.int(2, 10)) * 1000
      emit(nextAlong + onwards * Double(k) * step)
    }
    if let last = fixes.last { here = local(last.coordinate) }
    t += Int64(r.int(1, 10)) * 60_000
    return fixes
  }
}
