import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

@Suite("Latitude-band grid (SPEC §2)")
struct LatitudeBandGridTests {
  let grid = LatitudeBandGrid.privacy

  @Test("construction: bands of ~750 m, polar caps of one cell")
  func construction() {
    #expect(grid.rowCount == 26_687)
    #expect(abs(grid.rowHeightDegrees * .pi / 180 * GreatCircle.earthMeanRadiusMeters - 750) < 0.01)
    #expect(grid.columnCount(row: 0) == 1 && grid.columnCount(row: grid.rowCount - 1) == 1)
    // No row beyond the grid: no columns (review15: an index trap before).
    #expect(grid.columnCount(row: -1) == 0 && grid.columnCount(row: grid.rowCount) == 0)
    #expect(grid.columnCount(row: .min) == 0 && grid.columnCount(row: .max) == 0)
    #expect(grid.columnCount(row: grid.rowCount / 2) == 53_374)  // at the equator: 2πR / 750
    #expect(LatitudeBandGrid.geocoderCache.rowCount == 200_151)
  }

  /// Every band's column count is far from a rounding tie, so a last-bit
  /// difference in the cosine (FMA or not, another platform) cannot change it.
  @Test("column counts are at least 1e-8 from a rounding tie", arguments: [750.0, 100.0])
  func noTies(cellSize: Double) {
    let g = cellSize == 750 ? LatitudeBandGrid.privacy : LatitudeBandGrid.geocoderCache
    var closest = 1.0
    for row in 1..<(g.rowCount - 1) {
      let u = g.unroundedColumnCountForTesting(row: row)
      closest = min(closest, abs(u - u.rounded(.down) - 0.5))
    }
    #expect(closest > 1e-8, "closest tie \(closest)")
  }

  /// Golden ids: these must never change (cached cells and viewers' frames
  /// depend on them). Cross-checked against an independent evaluation of the
  /// construction in docs/guides/grid.md (Python, glibc's cosine), which
  /// gave the same ids.
  @Test("cell ids are stable: golden values")
  func goldenIDs() {
    let golden: [(Double, Double, Int64)] = [
      (0, 0, 13_343 << 32 | 26_687),
      (48.8584, 2.2945, 20_587 << 32 | 17_781),
      (-33.8568, 151.2153, 8_323 << 32 | 40_778),
      (90, 0, 26_686 << 32), (-90, 123, 0),
      (10, 180, 14_826 << 32), (10, -180, 14_826 << 32),
    ]
    for (lat, lon, id) in golden {
      #expect(grid.cell(containing: point(lat, lon)).rawValue == id, "\(lat), \(lon)")
    }
  }

  @Test("every point of a cell projects to the same cell and centre (seeded property)")
  func cellsAreConstant() {
    var generator = SeededGenerator(seed: 21)
    for _ in 0..<3000 {
      let cell = grid.cell(
        containing: point(generator.nextDouble(in: -90, 90), generator.nextDouble(in: -180, 180)))
      let bounds = grid.bounds(of: cell)
      let centre = grid.centre(of: cell)
      for _ in 0..<5 {
        // Stay 1e-9 of a cell inside its edges, where rounding cannot matter.
        let lat =
          bounds.southDegrees + (bounds.northDegrees - bounds.southDegrees)
          * generator.nextDouble(in: 1e-9, 1 - 1e-9)
        let lon =
          bounds.westDegrees + (bounds.eastDegrees - bounds.westDegrees)
          * generator.nextDouble(in: 1e-9, 1 - 1e-9)
        let inner = grid.cell(containing: point(lat, lon))
        #expect(inner == cell, "\(lat), \(lon) left \(cell)")
        #expect(grid.centre(of: inner) == centre)
      }
      #expect(grid.cell(containing: centre) == cell, "a centre snaps to its own cell")
    }
  }

  @Test("cells tile: each point lies in its cell's bounds; neighbours abut with no gap")
  func tiling() {
    var generator = SeededGenerator(seed: 22)
    for _ in 0..<20_000 {
      let p = point(generator.nextDouble(in: -90, 90), generator.nextDouble(in: -180, 180))
      let b = grid.bounds(of: grid.cell(containing: p))
      let slack = 1e-9
      #expect(p.latitudeDegrees >= b.southDegrees - slack && p.latitudeDegrees <= b.northDegrees + slack)
      #expect(p.longitudeDegrees >= b.westDegrees - slack && p.longitudeDegrees <= b.eastDegrees + slack)
    }
    for row in stride(from: 0, to: grid.rowCount, by: 997) {
      let n = grid.columnCount(row: row)
      var east = -180.0
      for column in 0..<n {
        let b = grid.bounds(of: GridCell(row: row, column: column))
        #expect(b.westDegrees == east, "gap or overlap in row \(row) at column \(column)")
        east = b.eastDegrees
      }
      #expect(abs(east - 180) < 1e-9, "row \(row) does not close at 180°")
      if row + 1 < grid.rowCount {
        let here = grid.bounds(of: GridCell(row: row, column: 0))
        let above = grid.bounds(of: GridCell(row: row + 1, column: 0))
        #expect(here.northDegrees == above.southDegrees)
      }
    }
  }

  @Test("poles are one cell whatever the longitude; ±180° are the same meridian")
  func polesAndAntimeridian() {
    let north = grid.cell(containing: point(90, 0))
    let south = grid.cell(containing: point(-90, 0))
    var generator = SeededGenerator(seed: 23)
    for _ in 0..<100 {
      let lon = generator.nextDouble(in: -180, 180)
      #expect(grid.cell(containing: point(90, lon)) == north)
      #expect(grid.cell(containing: point(-90, lon)) == south)
      #expect(grid.cell(containing: point(89.9999, lon)) == north)  // within the 750 m cap
    }
    #expect(grid.centre(of: north).latitudeDegrees > 89.99)
    for lat in stride(from: -89.0, through: 89.0, by: 7.3) {
      #expect(grid.cell(containing: point(lat, 180)) == grid.cell(containing: point(lat, -180)))
    }
  }

  /// Great-circle distance by the haversine formula with Foundation's
  /// trigonometry: a computation independent of the grid's and of
  /// `GreatCircle`'s, metres.
  static func haversineMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
    let r = Double.pi / 180
    let dLat = (b.latitudeDegrees - a.latitudeDegrees) * r
    let dLon = (b.longitudeDegrees - a.longitudeDegrees) * r
    let h =
      sin(dLat / 2) * sin(dLat / 2)
      + cos(a.latitudeDegrees * r) * cos(b.latitudeDegrees * r) * sin(dLon / 2) * sin(dLon / 2)
    return 2 * GreatCircle.earthMeanRadiusMeters * asin(min(1, sqrt(h)))
  }

  /// The batch snap of the points (`latitudes`, `longitudes`): ids and centres.
  static func snapped(_ g: LatitudeBandGrid, _ latitudes: [Double], _ longitudes: [Double]) -> (
    ids: [Int64], latitudes: [Double], longitudes: [Double]
  ) {
    var ids: [Int64] = []
    var lat: [Double] = []
    var lon: [Double] = []
    g.snap(
      latitudesDegrees: latitudes, longitudesDegrees: longitudes, cellIDs: &ids, centreLatitudesDegrees: &lat,
      centreLongitudesDegrees: &lon)
    return (ids, lat, lon)
  }

  /// The centres the scalar API and the batch snap give for `points`.
  static func centres(_ g: LatitudeBandGrid, _ points: [Coordinate]) -> (
    scalar: [Coordinate], batch: [Coordinate]
  ) {
    let (_, lat, lon) = snapped(g, points.map(\.latitudeDegrees), points.map(\.longitudeDegrees))
    return (
      points.map { g.centre(of: g.cell(containing: $0)) },
      zip(lat, lon).map { Coordinate(latitudeDegrees: $0, longitudeDegrees: $1) }
    )
  }

  @Test(
    "a polar cap's centre is its pole, the band beside it a band's middle: checked by haversine against the cap's edge",
    arguments: [750.0, 100.0, 5_000.0])
  func polarCentres(cellSize: Double) {
    let g = LatitudeBandGrid(cellSizeMeters: cellSize)
    // Re-derived from the construction, not from the grid's tables.
    let rows = (Double.pi * GreatCircle.earthMeanRadiusMeters / cellSize).rounded()
    let height = 180 / rows
    var generator = SeededGenerator(seed: 25)
    for pole in [-90.0, 90.0] {
      let inward = pole < 0 ? 1.0 : -1.0
      // Points of the cap: at the pole (any longitude) and just inside its edge.
      var cap: [Coordinate] = []
      for _ in 0..<20 {
        let lon = generator.nextDouble(in: -180, 180)
        cap.append(point(pole, lon))
        cap.append(point(pole + inward * height * generator.nextDouble(in: 0, 0.999), lon))
      }
      let (scalar, batch) = Self.centres(g, cap)
      for (k, centre) in scalar.enumerated() {
        #expect(centre.latitudeDegrees == pole, "\(cellSize) m: \(cap[k]) → \(centre)")
        #expect(batch[k].latitudeDegrees.bitPattern == centre.latitudeDegrees.bitPattern)
        #expect(batch[k].longitudeDegrees.bitPattern == centre.longitudeDegrees.bitPattern)
        #expect(g.cell(containing: centre) == g.cell(containing: cap[k]), "the centre is in its own cap")
      }
      // Equidistant from every point of the cap's edge: the cap's radius, one band.
      let centre = scalar[0]
      let radius = height * Double.pi / 180 * GreatCircle.earthMeanRadiusMeters
      for _ in 0..<20 {
        let edge = point(pole + inward * height, generator.nextDouble(in: -180, 180))
        #expect(abs(Self.haversineMeters(centre, edge) - radius) < 1e-3, "\(cellSize) m: \(edge)")
      }
      #expect(Self.haversineMeters(centre, point(pole, 0)) == 0)
      // The band beside the cap is an ordinary band: its centres lie in the
      // middle of the band, half a band from each edge.
      let besideRow = pole < 0 ? 1 : g.rowCount - 2
      let beside = g.centre(of: GridCell(row: besideRow, column: 0))
      #expect(abs(beside.latitudeDegrees - (-90 + (Double(besideRow) + 0.5) * height)) < 1e-9)
      let b = g.bounds(of: GridCell(row: besideRow, column: 0))
      let toSouth = Self.haversineMeters(beside, point(b.southDegrees, beside.longitudeDegrees))
      let toNorth = Self.haversineMeters(beside, point(b.northDegrees, beside.longitudeDegrees))
      #expect(abs(toSouth - radius / 2) < 1e-3 && abs(toNorth - radius / 2) < 1e-3, "\(toSouth) \(toNorth)")
    }
  }

  @Test(
    "the cells either side of the antimeridian: centres half a column in, mirrored about ±180°, re-derived with Foundation's cosine",
    arguments: [750.0, 100.0, 5_000.0])
  func antimeridianCentres(cellSize: Double) {
    let g = LatitudeBandGrid(cellSizeMeters: cellSize)
    let rows = Int((Double.pi * GreatCircle.earthMeanRadiusMeters / cellSize).rounded())
    let height = 180 / Double(rows)
    let sample = [1, 2, rows / 7, rows / 3, rows / 2, rows - rows / 5, rows - 3, rows - 2]
    for row in sample {
      let middle = -90 + (Double(row) + 0.5) * height
      let columns = (2 * Double.pi * GreatCircle.earthMeanRadiusMeters / cellSize * cos(middle * .pi / 180))
        .rounded()
      #expect(Double(g.columnCount(row: row)) == max(1, columns), "row \(row)")
      let half = 180 / columns
      // Fixes just east of −180° (and at ±180°, the same meridian) and just west of 180°.
      let (scalar, batch) = Self.centres(
        g,
        [
          point(middle, 180), point(middle, -180), point(middle, -180 + half / 3),
          point(middle, 180 - half / 3),
        ])
      for (k, centre) in scalar.enumerated() {
        #expect(batch[k].latitudeDegrees.bitPattern == centre.latitudeDegrees.bitPattern)
        #expect(batch[k].longitudeDegrees.bitPattern == centre.longitudeDegrees.bitPattern)
        #expect(abs(centre.latitudeDegrees - middle) < 1e-9, "row \(row)")
      }
      // Column 0 starts at −180°, the last column ends at 180°.
      let (first, last) = (scalar[2], scalar[3])
      #expect(scalar[0] == first && scalar[1] == first, "±180° snap to column 0")
      #expect(abs(first.longitudeDegrees - (-180 + half)) < 1e-9, "row \(row): \(first)")
      #expect(abs(last.longitudeDegrees - (180 - half)) < 1e-9, "row \(row): \(last)")
      // Haversine: each centre is equidistant from its cell's west and east
      // edges, and the two are mirror images about the antimeridian.
      for centre in [first, last] {
        let b = g.bounds(of: g.cell(containing: centre))
        let toWest = Self.haversineMeters(centre, point(middle, b.westDegrees))
        let toEast = Self.haversineMeters(centre, point(middle, b.eastDegrees))
        #expect(abs(toWest - toEast) < 1e-3, "row \(row): \(toWest) vs \(toEast)")
      }
      let antimeridian = point(middle, 180)
      #expect(
        abs(Self.haversineMeters(first, antimeridian) - Self.haversineMeters(last, antimeridian)) < 1e-3,
        "row \(row)")
    }
  }

  @Test("cell size: 750 m tall; 749.4–750.6 m wide up to ±85°; 524–1047 m beside the polar caps")
  func worstCaseSizes() {
    let metersPerDegree = GreatCircle.earthMeanRadiusMeters * .pi / 180
    var narrowest = Double.infinity
    var widest = 0.0
    var narrowest85 = Double.infinity
    var widest85 = 0.0
    for row in 1..<(grid.rowCount - 1) {
      let b = grid.bounds(of: GridCell(row: row, column: 0))
      let widthDegrees = b.eastDegrees - b.westDegrees
      let w1 = widthDegrees * metersPerDegree * cos(b.southDegrees * .pi / 180)
      let w2 = widthDegrees * metersPerDegree * cos(b.northDegrees * .pi / 180)
      narrowest = min(narrowest, w1, w2)
      widest = max(widest, w1, w2)
      if abs(b.southDegrees) <= 85 && abs(b.northDegrees) <= 85 {
        narrowest85 = min(narrowest85, w1, w2)
        widest85 = max(widest85, w1, w2)
      }
    }
    #expect(narrowest85 > 749.4 && widest85 < 750.6, "\(narrowest85)…\(widest85)")
    #expect(narrowest > 523 && widest < 1048, "\(narrowest)…\(widest)")
  }

  @Test("batch snap is element-wise identical to the scalar API, NaN and out-of-range included")
  func batchMatchesScalar() {
    var generator = SeededGenerator(seed: 24)
    var lat: [Double] = []
    var lon: [Double] = []
    for i in 0..<5000 {
      switch i % 50 {
      case 0:
        lat.append(.nan)
        lon.append(0)
      case 1:
        lat.append(10)
        lon.append(.infinity)
      case 2:
        lat.append(90.5)
        lon.append(3)
      case 3:
        lat.append(-3)
        lon.append(-180.25)
      case 4:
        lat.append(90)
        lon.append(180)
      default:
        lat.append(generator.nextDouble(in: -90, 90))
        lon.append(generator.nextDouble(in: -180, 180))
      }
    }
    let (ids, centreLat, centreLon) = Self.snapped(grid, lat, lon)
    for i in lat.indices {
      let cell = grid.cell(containing: point(lat[i], lon[i]))
      #expect(ids[i] == cell.rawValue, "point \(i)")
      let centre = grid.centre(of: cell)
      #expect(centreLat[i].bitPattern == centre.latitudeDegrees.bitPattern)
      #expect(centreLon[i].bitPattern == centre.longitudeDegrees.bitPattern)
      let inDomain = abs(lat[i]) <= 90 && abs(lon[i]) <= 180
      #expect(cell.isNone == !inDomain, "point \(i)")
    }
  }

  @Test(
    "the ids-only kernel writes the full kernel's ids, element by element, on several grids and counts",
    arguments: [50.0, 100, 750, 5_000, 2_000_000])
  func idsOnlyKernelMatchesSnap(cellSizeMeters: Double) {
    let grid = LatitudeBandGrid(cellSizeMeters: cellSizeMeters)
    var generator = SeededGenerator(seed: 33)
    let edges: [(Double, Double)] = [
      (.nan, 0), (0, .nan), (10, .infinity), (-.infinity, 1), (90.5, 3), (-90.000001, 3), (-3, -180.25),
      (1, 180.0000001), (90, 180), (-90, -180), (90, 0), (-90, 77), (0, 180), (0, -180),
      (0, 180.nextDown), (90.nextDown, 179.999_999_999), (-0.0, -0.0), (45, 0),
    ]
    var lat: [Double] = []
    var lon: [Double] = []
    for i in 0..<3_001 {
      if i % 40 < edges.count {
        lat.append(edges[i % 40].0)
        lon.append(edges[i % 40].1)
      } else {
        lat.append(generator.nextDouble(in: -90, 90))
        lon.append(generator.nextDouble(in: -180, 180))
      }
    }
    let ids = Self.snapped(grid, lat, lon).ids
    // Every count from 0 to 70 (blocks of 32 split every way), then all.
    for count in Array(0...70) + [lat.count] {
      var only = [Int64](repeating: 7, count: count + 1)
      lat.withUnsafeBufferPointer { la in
        lon.withUnsafeBufferPointer { lo in
          only.withUnsafeMutableBufferPointer { out in
            grid.cellIDsKernel(
              count: count, latitudes: la.baseAddress!, longitudes: lo.baseAddress!, ids: out.baseAddress!)
          }
        }
      }
      #expect(Array(only[..<count]) == Array(ids[..<count]), "count \(count)")
      #expect(only[count] == 7, "wrote past count \(count)")
    }
  }

  @Test("cells, centres and bounds of 'none' and foreign cells are NaN, never a trap")
  func noneCell() {
    #expect(grid.centre(of: .none).latitudeDegrees.isNaN)
    #expect(grid.bounds(of: .none).westDegrees.isNaN)
    #expect(!grid.contains(GridCell(row: 0, column: 1)))
    #expect(!grid.contains(GridCell(row: grid.rowCount, column: 0)))
    #expect(grid.centre(of: GridCell(row: 5, column: 999_999)).longitudeDegrees.isNaN)
  }
}
