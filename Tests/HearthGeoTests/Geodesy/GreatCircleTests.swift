import Foundation
import HearthGeo
import Testing
import _HearthTestSupport
import struct HearthSim.SeededGenerator

@Suite("GreatCircle edge cases")
struct GreatCircleTests {
  let radius = GreatCircle.earthMeanRadiusMeters

  @Test("coincident points are exactly 0 m apart, also at the poles and the antimeridian")
  func coincident() {
    for p in [point(0, 0), point(90, 17), point(-90, -3), point(45.5, 180), point(-12.25, -180)] {
      #expect(GreatCircle.distanceMeters(from: p, to: p) == 0)
    }
    // The same place written with ±180°.
    #expect(GreatCircle.distanceMeters(from: point(10, 180), to: point(10, -180)) == 0)
    // Every longitude of a pole is the same point.
    #expect(GreatCircle.distanceMeters(from: point(90, 0), to: point(90, 123)) == 0)
  }

  @Test("quarter and half circles are exact to the ulp")
  func knownAngles() {
    let quarter = radius * .pi / 2
    #expect(ulpDistance(GreatCircle.distanceMeters(from: point(0, 0), to: point(0, 90)), quarter) <= 2)
    #expect(ulpDistance(GreatCircle.distanceMeters(from: point(0, 0), to: point(90, 0)), quarter) <= 2)
    #expect(ulpDistance(GreatCircle.distanceMeters(from: point(90, 0), to: point(-90, 0)), radius * .pi) <= 2)
    #expect(ulpDistance(GreatCircle.distanceMeters(from: point(0, -90), to: point(0, 90)), radius * .pi) <= 2)
  }

  @Test("crossing the antimeridian is the short way round")
  func antimeridian() {
    let east = point(0, 179.999)
    let west = point(0, -179.999)
    let expected = radius * 0.002 * .pi / 180
    #expect(abs(GreatCircle.distanceMeters(from: east, to: west) - expected) < 1e-6)
    // Longitudes written 0…360 give the same distances as −180…180.
    #expect(
      GreatCircle.distanceMeters(from: point(5, 350), to: point(6, 10))
        == GreatCircle.distanceMeters(from: point(5, -10), to: point(6, 10)))
  }

  @Test("NaN and out-of-domain input give NaN, never a trap")
  func nanInNanOut() {
    let bad: [(Double, Double)] = [
      (.nan, 0), (0, .nan), (.infinity, 0), (0, -.infinity), (90.0000001, 0), (-91, 0), (0, 541),
    ]
    for (lat, lon) in bad {
      #expect(GreatCircle.distanceMeters(from: point(lat, lon), to: point(0, 0)).isNaN, "\(lat), \(lon)")
      #expect(GreatCircle.distanceMeters(from: point(0, 0), to: point(lat, lon)).isNaN, "\(lat), \(lon)")
    }
    // The domain's edges themselves are fine.
    #expect(GreatCircle.distanceMeters(from: point(90, 0), to: point(-90, 540)).isFinite)
    #expect(GreatCircle.initialBearingDegrees(from: point(.nan, 0), to: point(1, 1)).isNaN)
    #expect(
      GreatCircle.destination(from: point(0, 0), initialBearingDegrees: .nan, distanceMeters: 1)
        .latitudeDegrees.isNaN)
  }

  @Test("symmetric, and obeys the triangle inequality (seeded property)")
  func metricProperties() {
    var generator = SeededGenerator(seed: 7)
    func random() -> Coordinate {
      point(generator.nextDouble(in: -90, 90), generator.nextDouble(in: -180, 180))
    }
    for _ in 0..<2000 {
      let (a, b, c) = (random(), random(), random())
      let ab = GreatCircle.distanceMeters(from: a, to: b)
      #expect(ab == GreatCircle.distanceMeters(from: b, to: a), "\(a) \(b)")
      let bc = GreatCircle.distanceMeters(from: b, to: c)
      let ac = GreatCircle.distanceMeters(from: a, to: c)
      #expect(ac <= ab + bc + 1e-6, "\(a) \(b) \(c)")
      #expect(ab >= 0 && ab <= radius * .pi + 1e-6)
    }
  }

  @Test("bearings: cardinal directions, poles and coincident points")
  func bearings() {
    #expect(GreatCircle.initialBearingDegrees(from: point(0, 0), to: point(1, 0)) == 0)
    #expect(abs(GreatCircle.initialBearingDegrees(from: point(0, 0), to: point(0, 1)) - 90) < 1e-12)
    #expect(abs(GreatCircle.initialBearingDegrees(from: point(0, 0), to: point(-1, 0)) - 180) < 1e-12)
    #expect(abs(GreatCircle.initialBearingDegrees(from: point(0, 0), to: point(0, -1)) - 270) < 1e-12)
    #expect(GreatCircle.initialBearingDegrees(from: point(12, 34), to: point(12, 34)) == 0)
    // From the north pole every direction is south: measured from the start's
    // meridian, a destination on the same meridian is due 180°.
    #expect(abs(GreatCircle.initialBearingDegrees(from: point(90, 10), to: point(40, 10)) - 180) < 1e-9)
    #expect(abs(GreatCircle.initialBearingDegrees(from: point(-90, 10), to: point(40, 10))) < 1e-9)
  }

  @Test("destination then distance and bearing round-trip")
  func destinationRoundTrip() {
    var generator = SeededGenerator(seed: 8)
    for _ in 0..<1000 {
      let start = point(generator.nextDouble(in: -80, 80), generator.nextDouble(in: -180, 180))
      let bearing = generator.nextDouble(in: 0, 360)
      let distance = generator.nextDouble(in: 1, 5_000_000)
      let end = GreatCircle.destination(from: start, initialBearingDegrees: bearing, distanceMeters: distance)
      #expect(abs(GreatCircle.distanceMeters(from: start, to: end) - distance) < 1e-6 + 1e-12 * distance)
      #expect(
        angularDifferenceDegrees(GreatCircle.initialBearingDegrees(from: start, to: end), bearing) < 1e-8)
      #expect(end.longitudeDegrees >= -180 && end.longitudeDegrees < 180)
    }
    // Travelling over a pole comes down the far meridian.
    let over = GreatCircle.destination(
      from: point(80, 0), initialBearingDegrees: 0, distanceMeters: radius * 20 * .pi / 180)
    #expect(abs(over.latitudeDegrees - 80) < 1e-9)
    #expect(abs(abs(over.longitudeDegrees) - 180) < 1e-9)
  }

  @Test("longitude reduction is exact and lands in [-180, 180)")
  func reduction() {
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(180) == -180)
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(-180) == -180)
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(190) == -170)
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(-190.5) == 169.5)
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(720.25) == 0.25)
    #expect(GreatCircle.reducedLongitudeDifferenceDegrees(.infinity).isNaN)
  }
}
