import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

/// `GreatCircle.Separation` answers every comparison exactly as the exact
/// distance compared with the same threshold does; it only skips computing it.
@Suite("GreatCircle.Separation")
struct GreatCircleSeparationTests {
  /// The four comparisons of `separation` against the exact distance's; nil when all agree.
  static func disagreement(_ a: Coordinate, _ b: Coordinate, _ threshold: Double) -> String? {
    let exact = GreatCircle.distanceMeters(from: a, to: b)
    let s = GreatCircle.Separation(a, b)
    let answers = [
      ("≤", s.isAtMost(threshold), exact <= threshold), ("<", s.isBelow(threshold), exact < threshold),
      (">", s.isAbove(threshold), exact > threshold), ("≥", s.isAtLeast(threshold), exact >= threshold),
    ]
    let wrong = answers.filter { $0.1 != $0.2 }.map(\.0)
    guard !wrong.isEmpty || s.meters.bitPattern != exact.bitPattern else { return nil }
    return "distance \(exact) m against \(threshold) m: \(wrong) disagree (meters \(s.meters))"
  }

  struct Case: Shrinkable, CustomStringConvertible {
    var latitude: Double
    var longitude: Double
    var bearing: Double
    var threshold: Double
    /// The second point lies `threshold` × (1 + relative) + offset metres away.
    var relative: Double
    var offset: Double

    var a: Coordinate { Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude) }
    var b: Coordinate {
      let d = (threshold.isFinite ? threshold : 100) * (1 + relative) + offset
      return GreatCircle.destination(from: a, initialBearingDegrees: bearing, distanceMeters: d)
    }
    var description: String {
      "from (\(latitude), \(longitude)) bearing \(bearing)°, threshold \(threshold) m × (1 + \(relative)) + \(offset) m"
    }
    var shrinkCandidates: [Case] {
      var out: [Case] = []
      if relative != 0 { out.append(with { $0.relative = 0 }) }
      if offset != 0 { out.append(with { $0.offset = 0 }) }
      if bearing != 0 { out.append(with { $0.bearing = 0 }) }
      if latitude.rounded() != latitude { out.append(with { $0.latitude = $0.latitude.rounded() }) }
      if longitude.rounded() != longitude { out.append(with { $0.longitude = $0.longitude.rounded() }) }
      return out
    }
    func with(_ change: (inout Case) -> Void) -> Case {
      var copy = self
      change(&copy)
      return copy
    }
  }

  static let thresholds: [Double] = [
    0, 1e-7, 1e-6, 1e-3, 0.5, 1, 50, 60, 100, 150, 1_000, 12_345.678, 99_999, 100_000, 100_001, 300_000,
    5e6, .infinity, -1, .nan,
  ]

  @Test("every comparison equals the exact distance's, on pairs at and around each threshold")
  func agreesWithTheExactDistance() {
    let failure = PropertyCheck.run(
      "Separation compares as the distance does", cases: PropertyCampaign.cases(default: 20_000),
      generator: { SeededGenerator(seed: $0) },
      generate: { random in
        let latitudes: [Double] = [
          .random(in: -90...90, using: &random), .random(in: -60...60, using: &random),
          89.999_9, -89.999_9, 90, -90, 0,
        ]
        let longitudes: [Double] = [
          .random(in: -180...180, using: &random), 179.999_99, -179.999_99, 180,
          .random(in: 0...360, using: &random),
        ]
        let relatives: [Double] = [
          0, 1e-15, -1e-15, 1e-12, -1e-12, 1e-9, -1e-9, 8e-7, -8e-7, 1e-6, -1e-6, 3.9e-5, -3.9e-5, 5e-5,
          -5e-5, 1e-4, -1e-4, 1e-3, -1e-3, .random(in: -1...3, using: &random),
        ]
        let threshold =
          Bool.random(using: &random)
          ? Self.thresholds.randomElement(using: &random) ?? 60 : .random(in: 0...200_000, using: &random)
        return Case(
          latitude: latitudes.randomElement(using: &random) ?? 0,
          longitude: longitudes.randomElement(using: &random) ?? 0,
          bearing: .random(in: 0..<360, using: &random), threshold: threshold,
          relative: relatives.randomElement(using: &random) ?? 0,
          offset: [0, 0, 0, 1e-9, -1e-9, 0.001].randomElement(using: &random) ?? 0)
      },
      check: { c in Self.disagreement(c.a, c.b, c.threshold) })
    #expect(failure == nil, "\(failure ?? "")")
  }

  @Test("inputs that are not positions, far pairs and odd thresholds compare as the distance does")
  func edges() {
    func p(_ lat: Double, _ lon: Double) -> Coordinate {
      Coordinate(latitudeDegrees: lat, longitudeDegrees: lon)
    }
    let pairs: [(Coordinate, Coordinate)] = [
      (p(.nan, 0), p(0, 0)), (p(0, .nan), p(0, 0)), (p(91, 0), p(90, 0)), (p(0, 0), p(0, 541)),
      (p(0, -300), p(0, 300)), (p(0, .infinity), p(0, 0)), (p(10, 20), p(10, 20)),
      (p(0, 0), p(0, .leastNonzeroMagnitude)), (p(0, 0), p(1e-300, 0)),
      (p(45, 179.999_999), p(45, -179.999_999)),
      (p(0, 0), p(0, 180)), (p(0, 0), p(0.57, 0)), (p(0, 0), p(0.58, 0)), (p(89.9, 0), p(89.9, 180)),
      (p(52.52, 13.4), p(52.520_9, 13.4)), (p(0, 0), p(-0.0, 359.999_999_9)),
    ]
    for (a, b) in pairs {
      for threshold in Self.thresholds + [GreatCircle.distanceMeters(from: a, to: b)] {
        let failure = Self.disagreement(a, b, threshold)
        #expect(failure == nil, "\(a) → \(b): \(failure ?? "")")
      }
    }
  }

  @Test("the margins cover the bounds they rest on, with room for rounding")
  func marginsCoverTheBounds() {
    typealias S = GreatCircle.Separation
    // The flat haversine overstates h by at most m²/3, m the larger half-difference.
    let halfDifference = S.largestDifferenceRadians / 2
    #expect(halfDifference * halfDifference / 3 < S.aboveMargin / 1.1)
    // sin² x falls short of x² by at most x²/3, x = r / 2R at the largest threshold.
    let x = S.thresholdRangeMeters.upperBound / (2 * GreatCircle.earthMeanRadiusMeters)
    #expect(x * x / 3 < S.belowMargin / 2)
  }

  @Test("the shortcut decides typical tracking pairs; only the narrow band computes the distance")
  func shortcutIsTaken() {
    let home = Coordinate(latitudeDegrees: 48.853, longitudeDegrees: 2.349)
    var decided = 0
    var band = 0
    for k in 0..<1_000 {
      let d = Double(k) * 0.2  // 0…200 m
      let b = GreatCircle.destination(from: home, initialBearingDegrees: Double(k % 360), distanceMeters: d)
      switch GreatCircle.Separation(home, b).side(of: 100) {
      case 0: band += 1
      default: decided += 1
      }
    }
    // Only the pair at exactly 100 m (and none of the others, 0.2 m apart)
    // falls in the band of 100 m × (1 − 5·10⁻⁵ … 1 + 5·10⁻⁶).
    #expect(band == 1)
    #expect(decided == 999)
  }
}
