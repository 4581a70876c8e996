import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("GreatCircle batch kernels")
struct GreatCircleBatchTests {
  /// Random coordinates with every edge category mixed in: NaN, infinities,
  /// out-of-range values, poles, ±180°, coincident and antipodal neighbours.
  static func mixedColumns(count: Int, seed: UInt64) -> (lat: [Double], lon: [Double]) {
    var generator = SeededGenerator(seed: seed)
    var lat: [Double] = []
    var lon: [Double] = []
    let specials: [(Double, Double)] = [
      (.nan, 0), (0, .nan), (.infinity, 1), (95, 0), (90, 0), (-90, 45), (10, 180), (10, -180),
    ]
    for i in 0..<count {
      switch generator.next() % 10 {
      case 0:
        let special = specials[Int(generator.next() % UInt64(specials.count))]
        lat.append(special.0)
        lon.append(special.1)
      case 1 where i > 0:  // antipode of the previous point
        lat.append(-lat[i - 1])
        lon.append(lon[i - 1] > 0 ? lon[i - 1] - 180 : lon[i - 1] + 180)
      case 2 where i > 0:  // same as the previous point
        lat.append(lat[i - 1])
        lon.append(lon[i - 1])
      default:
        lat.append(generator.nextDouble(in: -90, 90))
        lon.append(generator.nextDouble(in: -180, 180))
      }
    }
    return (lat, lon)
  }

  @Test("pairs: every element bit-identical to the scalar function", arguments: [0, 1, 3, 1000, 4097])
  func pairsMatchScalar(count: Int) {
    let a = Self.mixedColumns(count: count, seed: 1)
    let b = Self.mixedColumns(count: count, seed: 2)
    var out: [Double] = []
    GreatCircle.distancesMeters(
      latitudes1Degrees: a.lat, longitudes1Degrees: a.lon, latitudes2Degrees: b.lat,
      longitudes2Degrees: b.lon, into: &out)
    #expect(out.count == count)
    for i in 0..<count {
      let scalar = GreatCircle.distanceMeters(
        latitude1Degrees: a.lat[i], longitude1Degrees: a.lon[i],
        latitude2Degrees: b.lat[i], longitude2Degrees: b.lon[i])
      #expect(scalar.bitPattern == out[i].bitPattern, "pair \(i)")
    }
  }

  @Test("one-to-many: bit-identical to the scalar function, also from a pole and for antipodes")
  func oneToManyMatchesScalar() {
    let points = Self.mixedColumns(count: 3000, seed: 3)
    for origin in [
      Coordinate(latitudeDegrees: 51.5, longitudeDegrees: -0.1),
      Coordinate(latitudeDegrees: 90, longitudeDegrees: 0),
      Coordinate(latitudeDegrees: -points.lat[5], longitudeDegrees: points.lon[5] - 180),
    ] {
      var out: [Double] = []
      GreatCircle.distancesMeters(
        from: origin, toLatitudesDegrees: points.lat, longitudesDegrees: points.lon, into: &out)
      for i in points.lat.indices {
        let scalar = GreatCircle.distanceMeters(
          from: origin, to: Coordinate(latitudeDegrees: points.lat[i], longitudeDegrees: points.lon[i]))
        #expect(scalar.bitPattern == out[i].bitPattern, "point \(i) from \(origin)")
      }
    }
  }

  @Test("track: steps match the scalar function; the path is their compensated sum")
  func trackMatchesScalar() {
    let track = Self.mixedColumns(count: 2500, seed: 4)
    var steps: [Double] = []
    var path: [Double] = []
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: track.lat, longitudesDegrees: track.lon, steps: &steps, cumulative: &path)
    #expect(steps[0] == 0 && path[0] == 0)
    for i in 1..<track.lat.count {
      let scalar = GreatCircle.distanceMeters(
        latitude1Degrees: track.lat[i - 1], longitude1Degrees: track.lon[i - 1],
        latitude2Degrees: track.lat[i], longitude2Degrees: track.lon[i])
      #expect(scalar.bitPattern == steps[i].bitPattern, "step \(i)")
    }
    // The mixed track has NaN steps, so the path is NaN from the first one on.
    let firstNaN = steps.firstIndex { $0.isNaN }!
    #expect(path[..<firstNaN].allSatisfy { !$0.isNaN })
    #expect(path[firstNaN...].allSatisfy { $0.isNaN })
  }

  @Test(
    "steps and distances from the first point in one pass: bit for bit the two kernels",
    arguments: [1, 2, 127, 128, 129, 300, 2500])
  func stepsAndDistancesFromFirstMatchTheTwoKernels(count: Int) {
    // Block edges (127 steps a block), antipodes of the first point, NaN and
    // out-of-domain points, a first point at a pole or NaN.
    for seed: UInt64 in [5, 6, 7] {
      var track = Self.mixedColumns(count: count, seed: seed)
      if seed == 6 { (track.lat[0], track.lon[0]) = (90, 0) }
      if seed == 7 && count > 3 { (track.lat[3], track.lon[3]) = (-track.lat[0], track.lon[0] - 180) }
      var expectedSteps: [Double] = []
      var path: [Double] = []
      GreatCircle.trackDistancesMeters(
        latitudesDegrees: track.lat, longitudesDegrees: track.lon, steps: &expectedSteps, cumulative: &path)
      var expectedFromFirst: [Double] = []
      GreatCircle.distancesMeters(
        from: Coordinate(latitudeDegrees: track.lat[0], longitudeDegrees: track.lon[0]),
        toLatitudesDegrees: track.lat, longitudesDegrees: track.lon, into: &expectedFromFirst)
      var steps = [Double](repeating: -1, count: count)
      var fromFirst = [Double](repeating: -1, count: count)
      var stepSpan = steps.mutableSpan
      var fromFirstSpan = fromFirst.mutableSpan
      GreatCircle.stepsAndDistancesFromFirstMeters(
        latitudesDegrees: track.lat.span, longitudesDegrees: track.lon.span, steps: &stepSpan,
        fromFirst: &fromFirstSpan)
      _ = consume stepSpan
      _ = consume fromFirstSpan
      #expect(steps.map(\.bitPattern) == expectedSteps.map(\.bitPattern), "steps, seed \(seed)")
      #expect(
        fromFirst.map(\.bitPattern) == expectedFromFirst.map(\.bitPattern), "from the first, seed \(seed)")
    }
  }

  @Test("track path: compensated sum stays within 2 ulp of the exact sum over a million steps")
  func compensatedPath() {
    // Steps of 0.1 m on the equator: 0.1 is not a binary fraction, so a plain
    // running sum drifts; the exact sum of the computed steps is known.
    let n = 1_000_001
    let lat = [Double](repeating: 0, count: n)
    let lon = (0..<n).map { Double($0) * 1e-6 }
    var steps: [Double] = []
    var path: [Double] = []
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: lat, longitudesDegrees: lon, steps: &steps, cumulative: &path)
    // Exact sum of the Double steps via integer accumulation of their bits is
    // awkward; sum pairwise in extended steps instead (error ≪ 1 ulp of total).
    var exact = 0.0
    var residual = 0.0
    for x in steps {  // Kahan-Babuška in a different order: independent check
      let t = exact + x
      residual += abs(exact) >= abs(x) ? (exact - t) + x : (x - t) + exact
      exact = t
    }
    #expect(ulpDistance(path[n - 1], exact + residual) <= 2)
    var naive = 0.0
    for x in steps { naive += x }
    #expect(ulpDistance(naive, exact + residual) > 2, "the workload must be one where a plain sum drifts")
  }

  @Test("track path: Neumaier's sum bit for bit, also where a step is longer than the path before it")
  func pathIsNeumaierSum() {
    // Steps from 1 mm to a quarter of the globe, so that a step often
    // exceeds the path so far near the start (the other branch of the
    // error term) and is tiny against it later.
    var generator = SeededGenerator(seed: 12)
    var lat = [0.0]
    var lon = [0.0]
    for i in 1..<4000 {
      let degrees = i % 97 == 0 ? generator.nextDouble(in: 30, 90) : generator.nextDouble(in: 1e-8, 0.05)
      lat.append(0)
      lon.append(GreatCircle.reducedLongitudeDifferenceDegrees(lon[i - 1] + degrees))
    }
    var steps: [Double] = []
    var path: [Double] = []
    GreatCircle.trackDistancesMeters(
      latitudesDegrees: lat, longitudesDegrees: lon, steps: &steps, cumulative: &path)
    var sum = 0.0
    var compensation = 0.0
    for (i, x) in steps.enumerated() {
      let t = sum + x
      if sum >= x { compensation += (sum - t) + x } else { compensation += (x - t) + sum }
      sum = t
      #expect((sum + compensation).bitPattern == path[i].bitPattern, "point \(i)")
    }
  }

  @Test("results do not depend on how the input is split into batches")
  func batchSplits() {
    let a = Self.mixedColumns(count: 1500, seed: 5)
    let b = Self.mixedColumns(count: 1500, seed: 6)
    var whole: [Double] = []
    GreatCircle.distancesMeters(
      latitudes1Degrees: a.lat, longitudes1Degrees: a.lon, latitudes2Degrees: b.lat,
      longitudes2Degrees: b.lon, into: &whole)
    var generator = SeededGenerator(seed: 9)
    var start = 0
    while start < 1500 {
      let end = min(1500, start + 1 + Int(generator.next() % 200))
      var part: [Double] = []
      GreatCircle.distancesMeters(
        latitudes1Degrees: Array(a.lat[start..<end]), longitudes1Degrees: Array(a.lon[start..<end]),
        latitudes2Degrees: Array(b.lat[start..<end]), longitudes2Degrees: Array(b.lon[start..<end]),
        into: &part)
      #expect(part.map(\.bitPattern) == whole[start..<end].map(\.bitPattern))
      start = end
    }
  }
}
