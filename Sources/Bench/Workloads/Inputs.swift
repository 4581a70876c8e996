import HearthGeo

/// Deterministic workload inputs (SplitMix64 with fixed seeds): the same
/// arrays on every machine and run.
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
      points.latitudes.append(asinDegrees(z))
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
      latitude += step * cosApprox(heading) / metersPerDegree
      let cosLatitude = max(0.05, cosApprox(latitude * .pi / 180))
      longitude += step * sinApprox(heading) / (metersPerDegree * cosLatitude)
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

  // Generator-only trigonometry: the workloads must be identical on every
  // platform, so they avoid libm (whose last bits vary between platforms).
  private static func sinApprox(_ x: Double) -> Double { taylorSine(x) }
  private static func cosApprox(_ x: Double) -> Double { taylorSine(x + .pi / 2) }
  private static func asinDegrees(_ z: Double) -> Double {
    // Newton on sin(θ) = z from θ₀ = z·90°; portable and exact enough for test data.
    var theta = z * .pi / 2
    for _ in 0..<40 {
      let derivative = taylorSine(theta + .pi / 2)
      guard abs(derivative) > 1e-12 else { break }
      theta -= (taylorSine(theta) - z) / derivative
    }
    return max(-90, min(90, theta * 180 / .pi))
  }
  /// sin(x) by range reduction to [−π, π] and a Taylor series to x²¹.
  private static func taylorSine(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * .pi)
    if y > .pi { y -= 2 * .pi }
    if y < -.pi { y += 2 * .pi }
    var term = y
    var sum = y
    let y2 = y * y
    for k in stride(from: 2, through: 22, by: 2) {
      term *= -y2 / Double(k * (k + 1))
      sum += term
    }
    return sum
  }
}
