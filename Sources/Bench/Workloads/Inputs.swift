import Foundation
import HearthGeo
import HearthSim

/// Deterministic workload inputs (SplitMix64 with fixed seeds): the same
/// arrays on every run (on another platform they can differ in the last bit of
/// a latitude, through libm's asin, sin and cos).
enum Inputs {
  /// Columns of latitudes and longitudes, degrees.
  struct Points {
    var latitudes: [Double]
    var longitudes: [Double]
    var count: Int { latitudes.count }
  }

  /// Points uniform by area over the whole sphere (latitude = asin(2u − 1)).
  static func globe(count: Int, seed: UInt64) -> Points {
    var generator = SeededGenerator(seed: seed)
    var points = Points(latitudes: [], longitudes: [])
    points.latitudes.reserveCapacity(count)
    points.longitudes.reserveCapacity(count)
    for _ in 0..<count {
      let z = generator.nextDouble(in: -1, 1)
      points.latitudes.append(asin(z) * 180 / .pi)
      points.longitudes.append(generator.nextDouble(in: -180, 180))
    }
    return points
  }

  /// Points uniform in a 22 km × 22 km box over central Paris (city-scale
  /// distances, the server's common case).
  static func city(count: Int, seed: UInt64) -> Points {
    var generator = SeededGenerator(seed: seed)
    var points = Points(latitudes: [], longitudes: [])
    points.latitudes.reserveCapacity(count)
    points.longitudes.reserveCapacity(count)
    for _ in 0..<count {
      points.latitudes.append(generator.nextDouble(in: 48.76, 48.96))
      points.longitudes.append(generator.nextDouble(in: 2.20, 2.50))
    }
    return points
  }

  /// A continuous track: a vehicle-like random walk with 5–40 m steps and a
  /// slowly turning heading, starting in Europe; longitude wraps at ±180°
  /// and latitude reflects at ±85°, so every edge case of a long track occurs.
  static func track(count: Int, seed: UInt64) -> Points {
    var generator = SeededGenerator(seed: seed)
    var points = Points(latitudes: [], longitudes: [])
    points.latitudes.reserveCapacity(count)
    points.longitudes.reserveCapacity(count)
    var latitude = 47.0
    var longitude = 8.0
    var heading = 0.7
    let metersPerDegree = GreatCircle.earthMeanRadiusMeters * .pi / 180
    for _ in 0..<count {
      points.latitudes.append(latitude)
      points.longitudes.append(longitude)
      heading += generator.nextDouble(in: -0.15, 0.15)
      let step = generator.nextDouble(in: 5, 40)
      latitude += step * cos(heading) / metersPerDegree
      let cosLatitude = max(0.05, cos(latitude * .pi / 180))
      longitude += step * sin(heading) / (metersPerDegree * cosLatitude)
      if latitude > 85 {
        latitude = 170 - latitude
        heading = .pi - heading
      }
      if latitude < -85 {
        latitude = -170 - latitude
        heading = .pi - heading
      }
      if longitude > 180 { longitude -= 360 }
      if longitude < -180 { longitude += 360 }
    }
    return points
  }

  /// Generated location days (seeds 1…count), one user per day whose circle
  /// (id = the seed) holds that day's places; the carried phone only.
  struct Days {
    var days: [LocationDay] = []
    var places: [Geofence] = []
    var circlesOfPerson: [UserID: [CircleID]] = [:]
  }

  static func days(_ count: Int) -> Days {
    var result = Days()
    for seed in 1...UInt64(count) {
      var options = DayOptions()
      options.user = UInt32(seed)
      options.homeTablet = false
      let day = DayGenerator.generate(seed: seed, options: options)
      result.circlesOfPerson[UserID(UInt32(seed))] = [CircleID(UInt32(seed))]
      for place in day.places {
        result.places.append(
          Geofence(
            id: PlaceID(UInt32(result.places.count)), circle: CircleID(UInt32(seed)), center: place.center,
            radiusMeters: place.radiusMeters))
      }
      result.days.append(day)
    }
    return result
  }
}
