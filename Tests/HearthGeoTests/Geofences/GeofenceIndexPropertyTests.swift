import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// Issue 29.6 and issue 33 (Growth/geofences): the index on layouts where
/// places overlap a lot (radii from metres to the 100 km a places file
/// allows, clustered, near the poles and the antimeridian), checked against
/// a plain scan of every place, including layouts edited between batches of
/// lookups (a reconfigured pipeline rebuilds its index from the edited list).
@Suite("Geofence index: overlapping layouts against a scan of every place")
struct GeofenceIndexPropertyTests {
  func expectPass(_ report: String?) {
    if let report { Issue.record(Comment(rawValue: report)) }
  }

  /// A layout and the batches of points looked up in it; between batches
  /// the places are edited (moved, resized, removed, added).
  struct Layout: Shrinkable, CustomStringConvertible {
    var batches: [(places: [Geofence], points: [Coordinate])]
    var cellSizeMeters: Double?
    /// The second disc the index is built with (a pipeline's shared index).
    var exclusion: GeofenceIndex.ExclusionDisc?

    var shrinkCandidates: [Layout] {
      var out: [Layout] = []
      if batches.count > 1 {
        out.append(
          Layout(
            batches: Array(batches.prefix(batches.count - 1)), cellSizeMeters: cellSizeMeters,
            exclusion: exclusion))
        out.append(
          Layout(
            batches: Array(batches.suffix(batches.count - 1)), cellSizeMeters: cellSizeMeters,
            exclusion: exclusion))
      }
      for (b, batch) in batches.enumerated() {
        for half in [batch.places.count / 2, batch.places.count - 1]
        where half >= 1 && half < batch.places.count {
          var smaller = self
          smaller.batches[b].places = Array(batch.places.prefix(half))
          out.append(smaller)
        }
        for half in [batch.points.count / 2, batch.points.count - 1]
        where half >= 1 && half < batch.points.count {
          var smaller = self
          smaller.batches[b].points = Array(batch.points.suffix(half))
          out.append(smaller)
        }
      }
      return out
    }

    var description: String {
      "cell size \(cellSizeMeters.map { "\($0) m" } ?? "default"), excluded disc "
        + (exclusion.map { "min(r, \($0.capMeters) m) + \($0.edgeMeters) m" } ?? "none") + "\n"
        + batches.enumerated().map { b, batch in
          "batch \(b): places "
            + batch.places.map {
              "#\($0.id) (\($0.center.latitudeDegrees), \($0.center.longitudeDegrees)) r \($0.radiusMeters)"
            }.joined(separator: "; ") + "\n  points "
            + batch.points.map { "(\($0.latitudeDegrees), \($0.longitudeDegrees))" }.joined(separator: "; ")
        }.joined(separator: "\n")
    }
  }

  /// Radii log-uniform from 5 m to 100 km; centres in a few clusters (so
  /// places overlap by the hundred), some at 80°–89.9° and at ±180°.
  static func radius(_ r: inout PropertyRandom) -> Double {
    r.chance(0.1) ? Geofence.maximumRadiusMeters : exp(r.double(log(5), log(Geofence.maximumRadiusMeters)))
  }

  static func generate(_ r: inout PropertyRandom) -> Layout {
    // No second disc, the sudden-stop check's, or another (a cap of zero,
    // an edge wider than most places, a negative edge).
    let discs: [GeofenceIndex.ExclusionDisc?] = [
      nil, SuddenStopRules().exclusionDisc, GeofenceIndex.ExclusionDisc(capMeters: 0, edgeMeters: 40),
      GeofenceIndex.ExclusionDisc(capMeters: 5_000, edgeMeters: 2_000),
      GeofenceIndex.ExclusionDisc(capMeters: 200, edgeMeters: -30),
      // Discs of no radius or of an infinite one exclude nothing.
      GeofenceIndex.ExclusionDisc(capMeters: 0, edgeMeters: 0),
      GeofenceIndex.ExclusionDisc(capMeters: -40, edgeMeters: 40),
      GeofenceIndex.ExclusionDisc(capMeters: 200, edgeMeters: .infinity),
    ]
    let exclusion = discs[r.int(0, discs.count - 1)]
    let clusters = (0..<r.int(1, 3)).map { _ in
      Coordinate(
        latitudeDegrees: r.chance(0.2)
          ? (r.chance(0.3) ? r.double(89.95, 90) : r.double(80, 89.9)) * (r.chance(0.5) ? -1 : 1)
          : r.double(-70, 70),
        longitudeDegrees: r.chance(0.2) ? 179.9 * (r.chance(0.5) ? -1 : 1) : r.double(-180, 180))
    }
    func near(_ r: inout PropertyRandom, _ meters: Double) -> Coordinate {
      GreatCircle.destination(
        from: clusters[r.int(0, clusters.count - 1)], initialBearingDegrees: r.double(0, 360),
        distanceMeters: r.double(0, meters))
    }
    var nextID: UInt32 = 0
    func place(_ r: inout PropertyRandom) -> Geofence {
      defer { nextID += 1 }
      return Geofence(
        id: PlaceID(nextID), circle: CircleID(UInt32(r.int(0, 1))), center: near(&r, r.double(0, 120_000)),
        radiusMeters: radius(&r))
    }
    var places = (0..<r.int(1, 60)).map { _ in place(&r) }
    var batches: [(places: [Geofence], points: [Coordinate])] = []
    for _ in 0..<r.int(1, 4) {
      var points: [Coordinate] = []
      for _ in 0..<r.int(1, 60) {
        if r.chance(0.6), !places.isEmpty {
          // Around an edge (the place's, or its excluded disc's when the
          // index has one): just inside, on, or just outside.
          let p = places[r.int(0, places.count - 1)]
          let disc = exclusion?.radiusMeters(ofPlace: p.radiusMeters) ?? p.radiusMeters
          let edge = r.chance(0.5) && disc.isFinite ? max(0, disc) : p.radiusMeters
          points.append(
            GreatCircle.destination(
              from: p.center, initialBearingDegrees: r.double(0, 360),
              distanceMeters: edge * r.double(0.99, 1.01)))
        } else {
          points.append(near(&r, 250_000))
        }
      }
      batches.append((places, points))
      // The edit: move, resize, remove and add a few.
      for _ in 0..<r.int(0, 4) where !places.isEmpty {
        let k = r.int(0, places.count - 1)
        switch r.int(0, 3) {
        case 0: places[k].center = near(&r, 120_000)
        case 1: places[k].radiusMeters = radius(&r)
        case 2: places.remove(at: k)
        default: places.append(place(&r))
        }
      }
    }
    let sizes: [Double?] = [nil, 50, 1_000, 25_000]
    return Layout(batches: batches, cellSizeMeters: sizes[r.int(0, sizes.count - 1)], exclusion: exclusion)
  }

  /// The plain reference: every place's exact distance.
  static func holding(_ places: [Geofence], _ point: Coordinate) -> [Int] {
    places.indices.filter {
      GreatCircle.distanceMeters(from: places[$0].center, to: point) <= places[$0].radiusMeters
    }
    .sorted { (places[$0].radiusMeters, $0) < (places[$1].radiusMeters, $1) }
  }

  /// The places whose excluded disc holds `point` (none without a disc; a
  /// place or a disc of no positive finite radius excludes nothing).
  static func excluding(_ places: [Geofence], _ point: Coordinate, _ disc: GeofenceIndex.ExclusionDisc?)
    -> [Int]
  {
    guard let disc else { return [] }
    return places.indices.filter {
      let meters = disc.radiusMeters(ofPlace: places[$0].radiusMeters)
      return places[$0].radiusMeters > 0 && places[$0].radiusMeters.isFinite && meters > 0 && meters.isFinite
        && GreatCircle.distanceMeters(from: places[$0].center, to: point) <= meters
    }
  }

  static func placeAt(_ places: [Geofence], _ point: Coordinate, capMeters: Double) -> Int? {
    if let inside = holding(places, point).first { return inside }
    var best: (Double, Int)?
    for i in places.indices {
      let d = GreatCircle.distanceMeters(from: places[i].center, to: point)
      guard d - places[i].radiusMeters <= capMeters else { continue }
      if best == nil || (d, i) < best! { best = (d, i) }
    }
    return best?.1
  }

  @Test(
    "regression 2026-12-04: a circle reaching round the pole is in every column of the rows beside the cap (an arc of nearly 360° whose ends fall in one column)"
  )
  func circlesRoundThePole() {
    let cases: [(Double, Double, Double, Double, Double)] = [
      (-89.99883782069196, 172.5709043238419, 500, -89.99506015702083, 158.08660715036535),
      (-89.99883885740606, -96.75236101491979, 500, -89.9946740429047, -91.03815916129503),
      (-89.99533182755644, -15.523922991905152, 2_000, -89.9801929381309, 32.90931408820347),
    ]
    for (lat, lon, radius, fixLat, fixLon) in cases {
      let place = Geofence(
        id: 1, center: Coordinate(latitudeDegrees: lat, longitudeDegrees: lon), radiusMeters: radius)
      let fix = Coordinate(latitudeDegrees: fixLat, longitudeDegrees: fixLon)
      #expect(Self.holding([place], fix) == [0])
      var found: [Int] = []
      GeofenceIndex(places: [place]).appendContaining(fix, to: &found)
      #expect(found == [0], "place at (\(lat), \(lon)), r \(radius) m; fix at (\(fixLat), \(fixLon))")
      #expect(GeofenceIndex(places: [place]).smallestContaining(fix) == 0)
    }
  }

  @Test("every lookup equals a scan of every place, on overlapping layouts edited between batches")
  func lookupsEqualAScan() {
    expectPass(
      PropertyCheck.run(
        "index lookups", cases: PropertyCampaign.cases(default: 300), generator: PropertyRandom.init(seed:),
        generate: Self.generate,
        check: { layout in
          // Cells at least half the radius (the default budget) and at
          // least the radius (no budget).
          let runs = layout.batches.enumerated().flatMap { b, batch in
            [GeofenceIndex.halfRadiusCellsEntryBudget, 0].map { (b, batch, $0) }
          }
          for (b, batch, budget) in runs {
            let index = GeofenceIndex(
              places: batch.places, cellSizeMeters: layout.cellSizeMeters, exclusion: layout.exclusion,
              entryBudget: budget)
            let screened = GeofenceIndexTests.screen(batch.points, index)
            for (k, point) in batch.points.enumerated() {
              let expected = Self.holding(batch.places, point)
              for circle in [nil, CircleID(0)] {
                let admits = { (i: Int) in circle.map { batch.places[i].circle == $0 } ?? true }
                let excluded = index.anyExclusionHolds(point, admitting: admits)
                let scan = Self.excluding(batch.places, point, layout.exclusion).contains(where: admits)
                if excluded != scan {
                  return
                    "batch \(b) (entry budget \(budget)) point \(k): anyExclusionHolds (circle \(String(describing: circle))) \(excluded), scan \(scan)"
                }
              }
              var ordered: [Int] = []
              index.forEachContaining(point) { ordered.append($0) }
              if ordered != expected {
                return
                  "batch \(b) (entry budget \(budget)) point \(k): forEachContaining \(ordered), scan \(expected)"
              }
              var appended: [Int] = []
              index.appendContaining(point, to: &appended)
              if appended.sorted() != expected.sorted() {
                return
                  "batch \(b) (entry budget \(budget)) point \(k): appendContaining \(appended), scan \(expected)"
              }
              if index.smallestContaining(point) != expected.first {
                return
                  "batch \(b) (entry budget \(budget)) point \(k): smallestContaining \(String(describing: index.smallestContaining(point))), scan \(String(describing: expected.first))"
              }
              if screened[k] != expected.first.map(Int32.init) ?? -1 {
                return
                  "batch \(b) (entry budget \(budget)) point \(k): bulk screen \(screened[k]), scan \(String(describing: expected.first))"
              }
              for cap in [0.0, 1_000] {
                let found = index.placeAt(point, capMeters: cap)
                let scan = Self.placeAt(batch.places, point, capMeters: cap)
                if found != scan {
                  return
                    "batch \(b) (entry budget \(budget)) point \(k): placeAt(cap \(cap)) \(String(describing: found)), scan \(String(describing: scan))"
                }
              }
            }
          }
          return nil
        }))
  }

  /// The quadratic case of issue 29.6: 2 000 places of 100 km over one
  /// city, with a median radius of 150 m among the rest. Each place costs
  /// the index a bounded number of entries, and a lookup tests a bounded
  /// multiple of the places that hold the point, summed over points
  /// spread 400 km around (not every wide place for every lookup).
  @Test(
    "overlapping 100 km places: bounded entries per place, candidates a bounded multiple of the places holding"
  )
  func overlapIsNotQuadratic() {
    var g = PropertyRandom(seed: 29_6)
    let centre = Coordinate(latitudeDegrees: 48.85, longitudeDegrees: 2.35)
    var places: [Geofence] = []
    for i in 0..<6_000 {
      let wide = i % 3 == 0
      places.append(
        Geofence(
          id: PlaceID(UInt32(i)),
          center: GreatCircle.destination(
            from: centre, initialBearingDegrees: g.double(0, 360),
            distanceMeters: g.double(0, wide ? 5_000 : 20_000)),
          radiusMeters: wide ? Geofence.maximumRadiusMeters : g.double(50, 250)))
    }
    let index = GeofenceIndex(places: places)
    #expect(index.entryCount <= 64 * places.count, "\(index.entryCount) entries for \(places.count) places")
    var holding = 0
    var tested = 0
    let points = 400
    for _ in 0..<points {
      let point = GreatCircle.destination(
        from: centre, initialBearingDegrees: g.double(0, 360), distanceMeters: g.double(0, 400_000))
      holding += Self.holding(places, point).count
      tested += index.candidateCount(point)
    }
    #expect(
      tested <= 4 * holding + 64 * points, "\(tested) candidates for \(holding) (point, place) pairs inside")
  }
}
