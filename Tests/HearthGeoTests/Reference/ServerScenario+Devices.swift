import Foundation

import struct HearthSim.SeededGenerator

@testable import HearthGeo

/// Issue 28's classes of history (`ServerScenario.Options.devices`): one
/// person, several devices, each with its own clock and cadence, and late
/// uploads of whole drives.
///
/// Per person, at random:
/// - a **home tablet** (device `10 × user + 3`) at the person's first spot,
///   `still`, a fix every 1, 5 or 15 min on a clock that runs up to 5 min
///   ahead of or behind the server's (within the 5-min future allowance,
///   sometimes exactly on time), uploaded in batches every 5, 15 or 30 min,
///   some of them late: batches of old `still` fixes from a second device;
/// - a **carried second device** (device `10 × user + 4`, a watch or a
///   second phone) going where the phone goes, on its own clock and its own
///   cadence (every first to fourth phone fix), sometimes on the same
///   millisecond as the phone, uploaded in runs of its own;
/// - a **late drive**: after the person's day the phone drives on at 15 to
///   25 m/s (over every generated limit) with no signal, and uploads the
///   whole drive from 15 min to 4 h later together with one fresh fix, some
///   exactly at the 15 min edge (to the millisecond).
///
/// Uploads keep to the scenario's options: late ones only with `late`, at
/// most `maximumUploadSpanMilliseconds` long, received
/// `receiptDelayMilliseconds` after their newest fix (real time) when set.
/// The draws come from a generator derived from the scenario's own state,
/// so the rest of a scenario's draws do not depend on these.
extension ServerScenario {
  static func otherDevicesUploads(
    _ fixes: [Fix], options: Options, seed: UInt64
  ) -> [(received: Int64, fixes: [Fix])] {
    let late = options.late
    var r = PropertyRandom(seed: seed ^ 0x5EED_0000_DE71_CE28)
    var uploads: [(received: Int64, fixes: [Fix])] = []
    for user in Set(fixes.map(\.user)).sorted() {
      let phone = DeviceID(user.rawValue * 10 + 1)
      let own = fixes.filter { $0.user == user && $0.device == phone }
      guard let first = own.first, let last = own.last else { continue }
      /// A clock offset, ms: up to 5 min either way (never 5 min or more
      /// ahead: validation would reject it), sometimes none.
      func offset() -> Int64 {
        switch r.int(0, 4) {
        case 0: 0
        case 1: 4 * 60_000
        default: Int64(r.int(-300_000, 299_000))
        }
      }
      /// When an upload whose newest fix was taken at `newest` (real time)
      /// is received; a tablet's timer (`windowEnd`) sends later when the
      /// scenario has no fixed receipt delay.
      func receipt(after newest: Int64, windowEnd: Int64? = nil) -> Int64 {
        let sent =
          options.receiptDelayMilliseconds.map { newest + $0 } ?? (windowEnd ?? newest)
          + Int64(r.int(500, 5_000))
        return sent + (late && r.chance(0.15) ? Int64(r.int(16, 60)) * 60_000 : 0)
      }
      if r.chance(0.5) {  // the home tablet
        let home = local(first.coordinate)
        let skew = offset()
        let every = Int64([1, 5, 15][r.int(0, 2)]) * 60_000
        let window = min(Int64([5, 15, 30][r.int(0, 2)]) * 60_000, options.maximumUploadSpanMilliseconds)
        var batch: [Fix] = []
        var newest = Int64.min
        var windowEnd = first.timeMilliseconds + window
        var t = first.timeMilliseconds + Int64(r.int(0, 59_999))
        while t <= last.timeMilliseconds + 30 * 60_000 {
          if t > windowEnd {
            if !batch.isEmpty { uploads.append((receipt(after: newest, windowEnd: windowEnd), batch)) }
            batch = []
            windowEnd += window
            continue
          }
          newest = t
          let c = coordinate(east: home.east + r.double(-5, 5), north: home.north + r.double(-5, 5))
          batch.append(
            Fix(
              timeMilliseconds: t + skew, latitudeDegrees: c.latitudeDegrees,
              longitudeDegrees: c.longitudeDegrees,
              horizontalAccuracyMeters: r.double(8, 30), speedMetersPerSecond: 0, activity: .still,
              device: DeviceID(user.rawValue * 10 + 3), user: user))
          t += every
        }
        if !batch.isEmpty { uploads.append((receipt(after: newest, windowEnd: windowEnd), batch)) }
      }
      if r.chance(0.3) {  // a second device going where the phone goes
        let skew = r.chance(0.3) ? 0 : offset()
        let step = r.int(1, 4)
        var carried: [(real: Int64, fix: Fix)] = []
        for (k, fix) in own.enumerated() where k % step == 0 && fix.source != .heartbeat {
          var copy = fix
          let (e, n) = local(fix.coordinate)
          let c = coordinate(east: e + r.double(-3, 3), north: n + r.double(-3, 3))
          (copy.latitudeDegrees, copy.longitudeDegrees) = (c.latitudeDegrees, c.longitudeDegrees)
          copy.timeMilliseconds += skew
          copy.horizontalAccuracyMeters = r.double(5, 40)
          copy.device = DeviceID(user.rawValue * 10 + 4)
          carried.append((fix.timeMilliseconds, copy))
        }
        var start = 0
        while start < carried.count {
          var end = min(carried.count, start + r.int(1, 20))
          while end > start + 1
            && carried[end - 1].real - carried[start].real > options.maximumUploadSpanMilliseconds
          {
            end -= 1
          }
          uploads.append((receipt(after: carried[end - 1].real), carried[start..<end].map(\.fix)))
          start = end
        }
      }
      if late && r.chance(0.25) {  // a late drive, then one fresh fix
        var here = local(last.coordinate)
        let speed = r.double(15, 25)
        let every = Int64(r.int(5, 10)) * 1_000
        let a = r.double(0, 2 * Double.pi)
        var t = last.timeMilliseconds + Int64(r.int(60, 600)) * 1_000
        var drive: [Fix] = []
        for _ in 0..<r.int(4, 30) {
          t += every
          here.east += cos(a) * speed * Double(every) / 1000
          here.north += sin(a) * speed * Double(every) / 1000
          let c = coordinate(east: here.east, north: here.north)
          drive.append(
            Fix(
              timeMilliseconds: t, latitudeDegrees: c.latitudeDegrees, longitudeDegrees: c.longitudeDegrees,
              horizontalAccuracyMeters: r.double(4, 12), speedMetersPerSecond: speed + r.double(-1, 1),
              activity: .automotive, device: phone, user: user))
        }
        let age: Int64 =
          switch r.int(0, 3) {
          case 0: 15 * 60_000
          case 1: 15 * 60_000 + 1
          default: Int64(r.int(16, 240)) * 60_000
          }
        let received = t + age
        var fresh = drive[drive.count - 1]
        fresh.timeMilliseconds = received - Int64(r.int(500, 3_000))
        fresh.speedMetersPerSecond = 0
        fresh.activity = .still
        uploads.append((received, drive + [fresh]))
      }
    }
    return uploads
  }
}
