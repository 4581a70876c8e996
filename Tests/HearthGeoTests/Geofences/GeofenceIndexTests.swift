import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Geofence index")
struct GeofenceIndexTests {
  /// Random places anywhere (including near the poles and the antimeridian)
  /// and points around their edges.
  func scatter(_ count: Int, seed: UInt64) -> ([Geofence], [Coordinate]) {
    var g = SeededGenerator(seed: seed)
    var places: [Geofence] = []
    var points: [Coordinate] = []
    for i in 0..<count {
      let latitude =
        i % 10 == 0 ? g.nextDouble(in: 80, 89.9) * (g.nextUnit() < 0.5 ? -1 : 1) : g.nextDouble(in: -80, 80)
      let longitude = i % 7 == 0 ? 179.99 * (g.nextUnit() < 0.5 ? -1 : 1) : g.nextDouble(in: -180, 180)
      let radius = g.nextDouble(in: 20, 5000)
      let center = point(latitude, longitude)
      places.append(Geofence(id: PlaceID(UInt32(i)), center: center, radiusMeters: radius))
      for _ in 0..<4 {
        let distance = radius * g.nextDouble(in: 0.98, 1.02)
        points.append(
          GreatCircle.destination(
            from: center, initialBearingDegrees: g.nextDouble(in: 0, 360), distanceMeters: distance))
      }
    }
    return (places, points)
  }

  /// The bulk screen of `points` (smallest place index holding each, or −1).
  static func screen(_ points: [Coordinate], _ index: GeofenceIndex) -> [Int32] {
    let lat = points.map(\.latitudeDegrees)
    let lon = points.map(\.longitudeDegrees)
    var out = [Int32](repeating: 7, count: points.count)
    lat.withUnsafeBufferPointer { a in
      lon.withUnsafeBufferPointer { b in
        out.withUnsafeMutableBufferPointer {
          index.smallestContaining(latitudesDegrees: a, longitudesDegrees: b, into: $0)
        }
      }
    }
    return out
  }

  @Test("isWithin is exactly distance ≤ threshold, on both sides of every edge")
  func exactDecision() {
    let (places, points) = scatter(3000, seed: 1)
    let index = GeofenceIndex(places: places)
    for (k, p) in points.enumerated() {
      let i = k / 4
      let exact = GreatCircle.distanceMeters(from: places[i].center, to: p)
      #expect(index.isWithin(places[i].radiusMeters, of: i, p) == (exact <= places[i].radiusMeters))
      // The edge itself: exactly at the distance is inside, one ulp less is outside.
      #expect(index.isWithin(exact, of: i, p))
      #expect(!index.isWithin(exact.nextDown, of: i, p))
    }
  }

  @Test(
    "regression 2026-12-04: a negative or NaN threshold holds no point, not even one a few metres off the centre (a squared threshold once let it in)"
  )
  func negativeThresholdHoldsNothing() {
    let place = Geofence(
      id: 1, center: Coordinate(latitudeDegrees: -21.35, longitudeDegrees: -11.39), radiusMeters: 7)
    let index = GeofenceIndex(places: [place])
    let near = GreatCircle.destination(from: place.center, initialBearingDegrees: 30, distanceMeters: 6.5)
    #expect(index.isWithin(7, of: 0, near))
    #expect(index.isWithin(0, of: 0, place.center))
    #expect(!index.isWithin(-23.3, of: 0, near))
    #expect(!index.isWithin(-0.000_001, of: 0, place.center))
    #expect(!index.isWithin(.nan, of: 0, near))
  }

  @Test("the index finds exactly the places a brute-force scan finds")
  func matchesBruteForce() {
    let (places, points) = scatter(600, seed: 2)
    for cell in [250.0, 1000, 5000] {
      let index = GeofenceIndex(places: places, cellSizeMeters: cell)
      for p in points {
        var found: [Int] = []
        index.forEachContaining(p) { found.append($0) }
        let expected = places.indices.filter {
          GreatCircle.distanceMeters(from: places[$0].center, to: p) <= places[$0].radiusMeters
        }
        #expect(found.sorted() == expected, "cell \(cell)")
      }
    }
  }

  @Test("bulk screening equals the smallest containing place point by point")
  func bulk() {
    let (places, points) = scatter(500, seed: 3)
    let index = GeofenceIndex(places: places)
    let out = Self.screen(points, index)
    for (k, p) in points.enumerated() {
      #expect(out[k] == index.smallestContaining(p).map(Int32.init) ?? -1)
    }
    #expect(out.contains(-1) && out.contains { $0 >= 0 })
  }

  @Test("placeAt: smallest containing, else the nearest centre whose edge is within the cap")
  func placeAt() {
    let home = point(48.137, 11.575)
    let big = Geofence(id: 1, center: home, radiusMeters: 500)
    let small = Geofence(
      id: 2, center: GreatCircle.destination(from: home, initialBearingDegrees: 90, distanceMeters: 100),
      radiusMeters: 50)
    let far = Geofence(
      id: 3, center: GreatCircle.destination(from: home, initialBearingDegrees: 0, distanceMeters: 5000),
      radiusMeters: 100)
    let index = GeofenceIndex(places: [big, small, far])
    #expect(index.placeAt(small.center) == 1)  // inside both: the smaller
    #expect(index.placeAt(home) == 0)
    // North of `far`: outside it; its edge is 1000 m away → found; 1000.01 m → nothing.
    let edge = GreatCircle.destination(from: far.center, initialBearingDegrees: 0, distanceMeters: 100)
    let justIn = GreatCircle.destination(from: edge, initialBearingDegrees: 0, distanceMeters: 999.99)
    let justOut = GreatCircle.destination(from: edge, initialBearingDegrees: 0, distanceMeters: 1000.01)
    #expect(index.placeAt(justIn) == 2)
    #expect(index.placeAt(justOut) == nil)
    // Between two places, the nearer centre wins.
    let between = GreatCircle.destination(from: home, initialBearingDegrees: 0, distanceMeters: 2000)
    #expect(index.placeAt(between, capMeters: 5000) == 0)
  }

  /// Issue 16: a 2·10⁷ m circle (and any radius far above the cell size)
  /// must cost the index one entry, not a cell per square kilometre of the
  /// globe; answers stay exactly those of a brute-force scan.
  @Test("a globe-sized place costs one entry and the answers still match a brute-force scan")
  func aGlobeSizedPlaceIsBoundedAndExact() {
    var (places, points) = scatter(300, seed: 5)
    let n = places.count
    places.append(Geofence(id: PlaceID(UInt32(n)), center: point(10, 20), radiusMeters: 2e7))
    places.append(Geofence(id: PlaceID(UInt32(n + 1)), center: point(-60, 170), radiusMeters: 3e6))
    places.append(Geofence(id: PlaceID(UInt32(n + 2)), center: point(0, 0), radiusMeters: .nan))
    places.append(Geofence(id: PlaceID(UInt32(n + 3)), center: point(0, 0), radiusMeters: -5))
    points += [point(-10, -160), point(-60, 170), point(89.99, 0), point(0, 0)]
    let index = GeofenceIndex(places: places, cellSizeMeters: 250)
    func brute(_ p: Coordinate) -> [Int] {
      places.indices.filter {
        GreatCircle.distanceMeters(from: places[$0].center, to: p) <= places[$0].radiusMeters
      }.sorted { (places[$0].radiusMeters, $0) < (places[$1].radiusMeters, $1) }
    }
    for p in points {
      var found: [Int] = []
      index.forEachContaining(p) { found.append($0) }
      let expected = brute(p)
      #expect(found == expected)
      #expect(index.smallestContaining(p) == expected.first)
    }
    // The bulk screen agrees point by point.
    let out = Self.screen(points, index)
    #expect(out == points.map { brute($0).first.map(Int32.init) ?? -1 })
    // placeAt with wide places: the huge circle holds the antipode's neighbourhood too.
    #expect(index.placeAt(point(-10, -160)) == brute(point(-10, -160)).first)
  }

  @Test(
    "the occupancy bitset: 64 bits per occupied cell up to 1 MiB, at least 16 beyond, a power of two",
    arguments: [10, 1_000, 40_000, 120_000])
  func occupancySizing(places count: Int) {
    var g = SeededGenerator(seed: 33)
    // Places of 50–300 m over a box of France (5° × 8°), several cells each.
    let places = (0..<count).map { i in
      Geofence(
        id: PlaceID(UInt32(i)), center: point(g.nextDouble(in: 43, 48), g.nextDouble(in: -2, 6)),
        radiusMeters: g.nextDouble(in: 50, 300))
    }
    let index = GeofenceIndex(places: places)
    let (bits, cells) = index.occupancySizeForTesting
    // The hashes' shifts fill their rooms exactly (a shift one too large
    // would use half of each and still give every answer).
    let rooms = index.hashRoomsForTesting
    #expect(rooms.bits == bits)
    #expect(rooms.slots.allSatisfy { $0.byShift == $0.bySize })
    let mebibyteOfBits = 1 << 23
    #expect(bits & (bits - 1) == 0 && bits >= 512)
    #expect(bits >= 16 * cells)
    if 64 * cells <= mebibyteOfBits {
      // Under the bound: 64 bits a cell, rounded up to a power of two.
      #expect(bits >= 64 * cells && (bits == 512 || bits < 128 * cells))
    } else {
      // Past it: the greater of 1 MiB and the power of two that gives 16 a cell.
      #expect(bits == max(mebibyteOfBits, 1 << (Int.bitWidth - (16 * cells - 1).leadingZeroBitCount)))
    }
    if count == 40_000 { #expect(64 * cells > mebibyteOfBits, "this layout must pass the bound") }
    if count == 120_000 {
      // Past 2¹⁸ cells the rule gives the size it gave before the 64-bit
      // rule; past 2¹⁹, 16 a cell is more than 1 MiB, so a cap at 1 MiB
      // fails here.
      #expect(cells > 1 << 19, "this layout must pass 2¹⁹ cells")
      #expect(bits == 1 << (Int.bitWidth - (16 * cells - 1).leadingZeroBitCount))
    }
  }

  @Test(
    "cells at least half the radius (one level for radii within a factor of two) up to the entry budget, at least the radius beyond"
  )
  func halfRadiusCellsWithinTheBudget() {
    var g = SeededGenerator(seed: 3_3)
    // 1 000 places of 50–300 m: base cell the median, about 175 m.
    let places = (0..<1_000).map { i in
      Geofence(
        id: PlaceID(UInt32(i)), center: point(g.nextDouble(in: 48, 48.2), g.nextDouble(in: 2.2, 2.5)),
        radiusMeters: g.nextDouble(in: 50, 300))
    }
    let radii = places.map(\.radiusMeters)
    let base = radii.sorted()[radii.count / 2]
    let estimate = GeofenceIndex.estimatedEntries(radii: radii, baseMeters: base, radiusPerCellSize: 2)
    #expect(estimate > 9_000 && estimate < 16_000, "\(estimate)")
    let budget = Int(estimate.rounded(.up))
    for (entryBudget, perCell, levels) in [
      (GeofenceIndex.halfRadiusCellsEntryBudget, 2.0, 1), (budget, 2, 1), (budget - 1, 1, 2), (0, 1, 2),
    ] {
      let index = GeofenceIndex(places: places, cellSizeMeters: nil, exclusion: nil, entryBudget: entryBudget)
      #expect(index.layoutForTesting == (perCell, levels), "budget \(entryBudget)")
      // Entries on average: 4 to 21 a place on cells of at least r/2 (up
      // to about 25 each), 1 to 9 on cells of at least r (4 to 16 each;
      // fewer for the places below the base size).
      let (low, high) = perCell == 2 ? (4, 21) : (1, 9)
      #expect(
        (low * places.count...high * places.count).contains(index.entryCount),
        "budget \(entryBudget): \(index.entryCount) entries")
      let centres = places.map(\.center)
      let smallest = centres.map { index.smallestContaining($0).map(Int32.init) ?? -1 }
      #expect(Self.screen(centres, index) == smallest)
    }
    // The places files at their limits estimate more than the budget, so
    // they are indexed as before (the memory PlacesLimitsCommandTests holds).
    let disc = SuddenStopRules().exclusionDisc
    for (count, radius) in [(550_000, 50.0...300), (1_000_000, 20...2_000)] {
      let radii = (0..<count).map { _ in
        GeofenceIndex.registeredRadius(g.nextDouble(in: radius.lowerBound, radius.upperBound), disc)
      }
      let base = radii.sorted()[count / 2]
      let estimate = GeofenceIndex.estimatedEntries(radii: radii, baseMeters: base, radiusPerCellSize: 2)
      #expect(estimate > Double(GeofenceIndex.halfRadiusCellsEntryBudget), "\(count) places: \(estimate)")
    }
    // A base size below the grids' smallest cell, or NaN, has no level (the
    // doubling that finds one would never end at 0 or below; review14).
    for base in [0.0, -0.0, -5, 0.5, .nan, -.infinity] {
      let level = GeofenceIndex.level(radiusMeters: 100, baseMeters: base, radiusPerCellSize: 2)
      #expect(level == nil, "\(base)")
      #expect(GeofenceIndex.estimatedEntries(radii: [100, 300], baseMeters: base, radiusPerCellSize: 2) == 0)
    }
    #expect(GeofenceIndex.level(radiusMeters: 100, baseMeters: 1, radiusPerCellSize: 2) == 6)
  }

  @Test("the bitset's bit and the first slot depend on a cell's row, column and level, at every room")
  func hashesSeeTheWholeKey() {
    func key(row: Int64, column: Int64, level: Int64 = 0) -> Int64 { level << 58 | row << 32 | column }
    // 64 cells of one column whose rows differ by 2¹², 64 neighbouring
    // columns of one row, the 12 levels of one cell (the bitset's salt; each
    // level has its own slots): each family lands in at least half as many
    // places as it has members, or as the room has, at every room the index
    // makes (bitsets of 2⁹ bits and up, slot regions of 2⁴ and up) to 2²³
    // (with the product's lower bits, the rows all met in one, and so did
    // the levels). A check that the hash is spread, not that it is good:
    // neighbouring rows share a first slot in regions of 16 more often than
    // chance (the row is hashed by the multiplier's low half, near ½).
    let rows = (0..<64).map { key(row: 5_000 + Int64($0) << 12, column: 777) }
    let columns = (0..<64).map { key(row: 5_000, column: 700 + Int64($0)) }
    let levels = (0..<12).map { key(row: 5_000, column: 777, level: Int64($0)) }
    for log2 in 4...23 {
      let (shift, room) = (UInt64(64 - log2), 1 << log2)
      func spread(_ keys: [Int64], _ hash: (Int64, UInt64) -> Int) -> Bool {
        let values = keys.map { hash($0, shift) }
        #expect(values.allSatisfy { (0..<room).contains($0) }, "2^\(log2): out of range")
        return 2 * Set(values).count >= min(room, keys.count)
      }
      #expect(spread(rows, GeofenceIndex.hash(_:shift:)), "2^\(log2): slots, rows")
      #expect(spread(columns, GeofenceIndex.hash(_:shift:)), "2^\(log2): slots, columns")
      guard log2 >= 9 else { continue }
      #expect(spread(rows, GeofenceIndex.occupancyHash(_:shift:)), "2^\(log2): bits, rows")
      #expect(spread(columns, GeofenceIndex.occupancyHash(_:shift:)), "2^\(log2): bits, columns")
      #expect(spread(levels, GeofenceIndex.occupancyHash(_:shift:)), "2^\(log2): bits, levels")
    }
  }

  @Test(
    "a circle's cells hold every point of the circle, and a disc's rows leave out its bounding box's corners"
  )
  func circleCellsAreADisc() {
    var g = SeededGenerator(seed: 33_2)
    let grid = LatitudeBandGrid(cellSizeMeters: 200)
    var fullDiscs = 0
    for _ in 0..<200 {
      let center = point(g.nextDouble(in: -60, 60), g.nextDouble(in: -180, 180))
      let radius = g.nextDouble(in: 200, 380)
      var cells = Set<Int64>()
      GeofenceIndex.cells(around: center, meters: radius, grid: grid) { cells.insert($0) }
      // Cells of at least half the radius (with the margins, under four
      // cells across): at most five rows of five.
      #expect(cells.count <= 25, "r \(radius) m at \(center): \(cells.count) cells")
      // Centred on a cell, a circle of 1.9 cells: five rows of five in its
      // bounding box, whose corners are over 2.1 cells away. A row's
      // columns do not line up with the next row's, so the outer rows take
      // three or four cells, never all five.
      let centred = grid.centre(of: grid.cell(containing: center))
      var disc = 0
      GeofenceIndex.cells(around: centred, meters: 1.9 * 200, grid: grid) { _ in disc += 1 }
      #expect(disc <= 23, "at \(centred): \(disc) cells")
      if disc >= 21 { fullDiscs += 1 }
      for _ in 0..<400 {
        let inside = GreatCircle.destination(
          from: center, initialBearingDegrees: g.nextDouble(in: 0, 360),
          distanceMeters: radius * (g.nextUnit() < 0.5 ? 1 : g.nextUnit()))
        #expect(
          cells.contains(grid.cell(containing: inside).rawValue), "r \(radius) m at \(center): \(inside)")
      }
    }
    // Most cells are about 200 m wide, so most centred circles span five
    // rows and five columns.
    #expect(fullDiscs > 100, "\(fullDiscs) of 200 centred circles on five rows of five")
  }

  @Test("a place touching more cells than the bound goes to the wide list; one just under stays in cells")
  func cellBoundPerPlace() {
    let grid = LatitudeBandGrid(cellSizeMeters: 1000)
    var count = 0
    let small = GeofenceIndex.cells(
      around: point(48, 11), meters: 5_000, grid: grid, limit: GeofenceIndex.maximumCellsPerPlace
    ) { _ in count += 1 }
    #expect(small && count <= GeofenceIndex.maximumCellsPerPlace)
    count = 0
    let huge = GeofenceIndex.cells(
      around: point(48, 11), meters: 2e7, grid: grid, limit: GeofenceIndex.maximumCellsPerPlace
    ) { _ in count += 1 }
    #expect(!huge && count == GeofenceIndex.maximumCellsPerPlace)
  }

  /// SPEC §3 placeAt by brute force over every place: the smallest holding
  /// `p` (by radius, then index), else the nearest centre (ties: the lower
  /// index) whose edge is within `cap`. Places with a bad radius or centre,
  /// and points that are not coordinates, take no part.
  static func placeAtByScan(_ places: [Geofence], _ p: Coordinate, cap: Double) -> Int? {
    func isCoordinate(_ c: Coordinate) -> Bool {
      abs(c.latitudeDegrees) <= 90 && abs(c.longitudeDegrees) <= 180
    }
    guard isCoordinate(p) else { return nil }
    let valid = places.indices.filter {
      places[$0].radiusMeters > 0 && places[$0].radiusMeters.isFinite && isCoordinate(places[$0].center)
    }
    let distance = { (i: Int) in GreatCircle.distanceMeters(from: places[i].center, to: p) }
    let holding = valid.filter { distance($0) <= places[$0].radiusMeters }
    if let smallest = holding.min(by: { (places[$0].radiusMeters, $0) < (places[$1].radiusMeters, $1) }) {
      return smallest
    }
    guard cap >= 0 else { return nil }
    let near = valid.filter { distance($0) - places[$0].radiusMeters <= cap }
    return near.min { (distance($0), $0) < (distance($1), $1) }
  }

  @Test(
    "regression 2026-12-06 (review14 F8): a centre or point off the coordinate domain is in no place and near none; a latitude of 91 no longer traps, a longitude of 1000 no longer hangs placeAt"
  )
  func offTheDomain() {
    let home = point(48.137, 11.575)
    let places = [
      Geofence(id: 0, center: home, radiusMeters: 200),
      Geofence(id: 1, center: point(91, 0), radiusMeters: 100),
      Geofence(id: 2, center: point(-90.5, 10), radiusMeters: 50_000),
      Geofence(id: 3, center: point(48.137, 191.575), radiusMeters: 200),
      Geofence(id: 4, center: point(0, 1000), radiusMeters: 100),
      Geofence(id: 5, center: point(.nan, 0), radiusMeters: 100),
      // A globe-sized place (kept in the wide list) holds every coordinate
      // within 20 000 km of the equator's (0°, 0°), but no non-coordinate.
      Geofence(id: 6, center: point(0, 0), radiusMeters: 2e7),
      Geofence(id: 7, center: point(95, 0), radiusMeters: 2e7),
    ]
    let inside = GreatCircle.destination(from: home, initialBearingDegrees: 45, distanceMeters: 199)
    let outside = GreatCircle.destination(from: home, initialBearingDegrees: 45, distanceMeters: 201)
    let offDomain = [
      point(91, 0), point(-95, 0), point(90.000_001, 11), point(48.137, 180.000_1), point(48.137, 191.575),
      point(0, 1000), point(0, -540), point(.nan, 0), point(0, .nan), point(.infinity, 0),
    ]
    for exclusion in [nil, GeofenceIndex.ExclusionDisc(capMeters: 200, edgeMeters: 40)] {
      for cell in [nil, 50.0] {
        let index = GeofenceIndex(places: places, cellSizeMeters: cell, exclusion: exclusion)
        #expect(index.smallestContaining(inside) == 0)
        #expect(index.smallestContaining(outside) == 6)
        #expect(index.placeAt(outside, capMeters: 0) == 6)
        for p in offDomain {
          var found: [Int] = []
          index.forEachContaining(p) { found.append($0) }
          #expect(found.isEmpty, "\(p)")
          #expect(index.smallestContaining(p) == nil, "\(p)")
          #expect(index.placeAt(p, capMeters: 1_000) == nil, "\(p)")
          #expect(index.placeAt(p, capMeters: 2e7) == nil, "\(p)")
          #expect(!index.anyExclusionHolds(p) { _ in true }, "\(p)")
        }
        #expect(Self.screen(offDomain + [inside, outside], index) == offDomain.map { _ in -1 } + [0, 6])
        // Near the places that are not coordinates, only the valid ones count.
        for p in [point(89.99, 0), point(-89.9, 10), point(48.137, -168.425), point(0.001, 0)] {
          #expect(index.placeAt(p, capMeters: 5_000) == Self.placeAtByScan(places, p, cap: 5_000), "\(p)")
        }
      }
    }
  }

  @Test(
    "regression 2026-12-06 (review14 F8): placeAt with a cap far beyond the cells tests the level's entries instead of walking every cell within the cap, and equals a scan on both sides of the cap"
  )
  func placeAtWithAHugeCap() {
    let (places, _) = scatter(300, seed: 7)
    var g = SeededGenerator(seed: 8)
    let points = (0..<60).map { _ in point(g.nextDouble(in: -90, 90), g.nextDouble(in: -180, 180)) }
    // 50 m cells: a cap of 20 000 km would walk about 2·10¹¹ of them.
    let index = GeofenceIndex(places: places, cellSizeMeters: 50)
    for cap in [0.0, 1_000, 300_000, 5e6, 2e7] {
      for p in points {
        #expect(
          index.placeAt(p, capMeters: cap) == Self.placeAtByScan(places, p, cap: cap), "cap \(cap) at \(p)")
      }
    }
    // One place: its edge exactly 5 000 km away is near enough, 1 m farther is not.
    let far = Geofence(id: 1, center: point(10, 20), radiusMeters: 300)
    let one = GeofenceIndex(places: [far], cellSizeMeters: 50)
    func east(_ meters: Double) -> Coordinate {
      GreatCircle.destination(from: far.center, initialBearingDegrees: 80, distanceMeters: meters)
    }
    let (justIn, justOut) = (east(5e6 + 299), east(5e6 + 301))
    #expect(one.placeAt(justIn, capMeters: 5e6) == 0)
    #expect(one.placeAt(justOut, capMeters: 5e6) == nil)
  }
}
