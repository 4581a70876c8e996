import HearthGeo
import HearthTrace

/// A scripted day for the SPEC §7 trip names, the same through every door
/// (replay lines, `geo trips`, the C ABI; python/tests/test_trip_names.py
/// builds the same day): ten minutes at a start that is in no place, a
/// drive 3 km east to a school, ten minutes there, a drive 3 km on to home,
/// ten minutes there. A café lies north of the start at a chosen distance,
/// so the first trip's start is named by placeAt or not at all; the second
/// starts where the fence saw them leave the school.
public enum TripNamingDay {
  /// Where the day starts (in no place).
  public static let start = Coordinate(latitudeDegrees: 48.137, longitudeDegrees: 11.575)
  public static let t0: Int64 = 1_700_000_000_000
  public static let cafeRadiusMeters = 30.0

  /// `meters` east of `origin` (default: the start).
  public static func east(_ meters: Double, of origin: Coordinate = start) -> Coordinate {
    GreatCircle.destination(from: origin, initialBearingDegrees: 90, distanceMeters: meters)
  }

  /// The places, all in circle 7: the café (id 2, radius 30 m) whose
  /// centre is `cafeMeters` north of the start, the school (id 3) 3 km east
  /// of the start, home (id 1) 6 km east; radii 100 m.
  public static func places(cafeMeters: Double) -> [NamedPlace] {
    [
      NamedPlace(
        geofence: Geofence(
          id: 2, circle: 7,
          center: GreatCircle.destination(from: start, initialBearingDegrees: 0, distanceMeters: cafeMeters),
          radiusMeters: cafeRadiusMeters), name: "Café"),
      NamedPlace(geofence: Geofence(id: 3, circle: 7, center: east(3000), radiusMeters: 100), name: "School"),
      NamedPlace(geofence: Geofence(id: 1, circle: 7, center: east(6000), radiusMeters: 100), name: "Home"),
    ]
  }

  /// Person (and device) `person`'s day: a fix every minute while staying
  /// (11 fixes, speed 0), every 10 s while driving at 15 m/s (150 m steps),
  /// a minute's silence after each drive; accuracy 8 m.
  public static func history(person: UInt32 = 1) -> FixColumns {
    var fixes: [Fix] = []
    var t: Int64 = t0
    func fix(_ at: Coordinate, speed: Double) {
      fixes.append(
        Fix(
          timeMilliseconds: t, latitudeDegrees: at.latitudeDegrees, longitudeDegrees: at.longitudeDegrees,
          horizontalAccuracyMeters: 8, speedMetersPerSecond: speed, device: DeviceID(person),
          user: UserID(person)))
    }
    func stay(at meters: Double) {
      for _ in 0...10 {
        fix(east(meters), speed: 0)
        t += 60_000
      }
    }
    func drive(from a: Double, to b: Double) {
      var x = a
      while x < b {
        x = min(b, x + 150)
        t += 10_000
        fix(east(x), speed: 15)
      }
      t += 60_000
    }
    stay(at: 0)
    drive(from: 0, to: 3000)
    stay(at: 3000)
    drive(from: 3000, to: 6000)
    stay(at: 6000)
    return FixColumns(fixes)
  }
}
