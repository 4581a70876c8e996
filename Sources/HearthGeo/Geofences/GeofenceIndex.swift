import Foundation
import _HearthShims

/// A spatial index over circular places, so a fix is tested only against
/// the places near it (1 to a million places, overlapping or not).
///
/// Places are registered on *levels*: grids (`LatitudeBandGrid`) whose cells
/// double in size from the base size s (level 0) upwards. A place of radius
/// r goes to the lowest level whose cells are at least r/2 on a side (r
/// when the layout is too large for the entry budget), so it touches about
/// 25 cells at most whatever its radius (a 100 km place is on cells of
/// 50–100 km, not on 1 681 cells of 5 km). A lookup snaps the
/// fix to each level that holds places (a handful: radii from 50 m to
/// 100 km span 12 levels at most), finds the cell in an open-addressing hash
/// table and tests only that cell's places. So memory is O(places) and a
/// lookup costs O(levels + candidates), where the candidates are the places
/// whose cells hold the fix: at most a few times the places holding it, and
/// never the places far away however many overlap elsewhere (issue 29.6).
///
/// The test is a flat-Earth distance in the place's own frame with a 0.2 %
/// margin (its error is below 10⁻⁵ within 60 km below 80° of latitude);
/// inside the margin, and at high latitude, the exact great-circle distance
/// decides, so every answer equals `GreatCircle.distanceMeters(…) ≤ threshold`
/// and no answer depends on the levels or the cell size.
///
/// A place that would still touch more than ``maximumCellsPerPlace`` cells
/// on its level, or is wider than the largest cells a grid has, is not
/// registered in cells at all: it is kept in a short list of *wide* places
/// that every lookup tests directly (a 20 000 km circle costs one list
/// entry). A place whose radius is not a positive finite number, or whose
/// centre is not a coordinate (latitude in [-90°, 90°], longitude in
/// [-180°, 180°]), holds no point; a point that is not a coordinate is in
/// no place and near none.
///
/// An index may also answer for a second, *excluded* disc around every
/// place (``ExclusionDisc``: the sudden-stop check's min(r, 200 m) + 40 m):
/// each place is then registered on the cells of the larger of its two
/// discs, so one index serves the geofence engine, the trips and the
/// sudden-stop check of a pipeline (a million places in one index, not
/// three; issue 29.6). The answers about the places themselves do not
/// change; only which cells hold them.
///
/// Immutable once built and shared, not copied, by the engines that use it
/// (a reference type so that copying an engine costs one retain); `Sendable`;
/// queries allocate nothing.
public final class GeofenceIndex: Sendable {
  public let places: [Geofence]
  /// The base grid (level 0; cells of the base size).
  public let grid: LatitudeBandGrid
  /// The second disc the index also answers for (nil: none).
  public let exclusion: ExclusionDisc?
  /// Per place, what the edge test reads, in one 64-byte record.
  private let data: [PlaceData]
  // Cells → places: CSR member lists (smallest radius first) and, per
  // level, an open-addressing table of slots (key, bucket) for O(1) lookups.
  private let members: [Int32]
  /// Open addressing: a cell key (−1 = empty) and its members' range, in
  /// one 16-byte slot so a probe touches one cache line. Each level has its
  /// own power-of-two region.
  private let slots: [Slot]
  /// One bit per hash of an occupied (level, cell): 64 bits per cell (about
  /// 1.5 % of empty cells pass, as the hash sees the whole key) up to 1 MiB,
  /// at least 16 (about 6 %) beyond.
  /// Most fixes lie in no place's cell and stop here, reading a small,
  /// cache-resident bitset instead of the table.
  private let occupancy: [UInt64]
  /// 64 − log₂(bits): a cell's bit is the top bits of its hash.
  private let occupancyShift: UInt64
  /// The levels that hold places, ascending by cell size (so by radius:
  /// every place of a level is smaller than every place of the next).
  private let levels: [Level]
  /// Places too wide for the cells, ascending by (radius, index).
  private let wide: [Int32]

  /// A place touching more cells than this on its level is kept in the wide list.
  public static let maximumCellsPerPlace = 256
  /// A place goes to the lowest level whose cell size is at least its
  /// radius divided by the index's `radiusPerCellSize`: 2 (cells at least
  /// half as wide as the radius, so a place touches about 25 of them at
  /// most (26 with the margins of ``cells(around:meters:grid:limit:_:)``), and
  /// places from the base size to twice it share level 0: a layout whose
  /// radii span a factor of two around the median sits on one level, one
  /// snap and one bitset probe a lookup) while the layout's estimated
  /// entries are at most ``halfRadiusCellsEntryBudget``; 1 beyond (cells
  /// at least the radius, 4 to 16 cells a place: about half the
  /// entries).
  let radiusPerCellSize: Double
  /// About 4 M estimated (cell, place) entries: about 475 000 places of
  /// 50–300 m in a pipeline's index (with the sudden-stop disc), 420 000
  /// in an engine's own. 480 000 of them on cells of half their radius took
  /// 0.33 GB in all in `hearth geo replay` (0.30 GB on cells of their
  /// radius). 550 000 of them, or a million of 20 m – 2 km, estimate more
  /// and get cells at least their radius.
  public static let halfRadiusCellsEntryBudget = 1 << 22

  static let radiansPerDegree = Double.pi / 180
  static let metersPerDegree = GreatCircle.earthMeanRadiusMeters * Double.pi / 180

  /// A disc around each place of radius min(r, `capMeters`) + `edgeMeters`
  /// for a place of radius r, metres: the sudden-stop check's excluded
  /// disc (``SuddenStopRules``). Any finite cap and edge: the registered
  /// radius max(r, min(r, cap) + edge) never decreases as r grows, so
  /// levels still ascend by radius. A disc whose radius is not a positive
  /// finite number excludes nothing.
  public struct ExclusionDisc: Sendable, Hashable {
    public var capMeters: Double
    public var edgeMeters: Double
    public init(capMeters: Double, edgeMeters: Double) {
      self.capMeters = capMeters
      self.edgeMeters = edgeMeters
    }

    /// The disc's radius for a place of `radiusMeters`, metres.
    @inline(__always)
    public func radiusMeters(ofPlace radiusMeters: Double) -> Double {
      min(radiusMeters, capMeters) + edgeMeters
    }
  }

  /// The radius a place is registered on cells with: its own, or its
  /// excluded disc's when that is larger (and finite).
  static func registeredRadius(_ radiusMeters: Double, _ exclusion: ExclusionDisc?) -> Double {
    guard let disc = exclusion?.radiusMeters(ofPlace: radiusMeters), disc.isFinite, disc > radiusMeters else {
      return radiusMeters
    }
    return disc
  }

  struct Slot: Sendable {
    var key: Int64 = -1
    var start: Int32 = 0
    var end: Int32 = 0
  }

  /// One level: its grid, its region of the slot table (start, size − 1,
  /// and 64 − log₂ size: a key's first slot is the top bits of its hash),
  /// the salt that separates its cells in the occupancy bitset, its
  /// largest radius and its entries' range of ``members``.
  struct Level: Sendable {
    var grid: LatitudeBandGrid
    var slotBase: Int
    var slotMask: Int
    var slotShift: UInt64
    var salt: Int64
    var largestRadiusMeters: Double
    var entries: Range<Int>
  }

  /// Whether `point` is a coordinate: latitude in [-90°, 90°] and
  /// longitude in [-180°, 180°] (false for NaN), the grids' domain.
  @inline(__always)
  static func isCoordinate(_ point: Coordinate) -> Bool {
    isCoordinate(point.latitudeDegrees, point.longitudeDegrees)
  }

  /// ``isCoordinate(_:)`` for a latitude and longitude in degrees.
  @inline(__always)
  static func isCoordinate(_ latitude: Double, _ longitude: Double) -> Bool {
    abs(latitude) <= 90 && abs(longitude) <= 180
  }

  /// The edge test's constants for one place: centre (degrees), the flat
  /// frame's cos²φ₀ and sinφ₀·cosφ₀, the radius and the squared angular
  /// radius with its 0.2 % margins; `flat` is false above 80° of latitude.
  struct PlaceData: Sendable {
    var latitude: Double
    var longitude: Double
    var cosSquared: Double
    var sinCos: Double
    var radius: Double
    var innerSquared: Double
    var outerSquared: Double
    var flat: Bool
  }

  /// The level (0 = base) of a place of `radiusMeters` on base cells of
  /// `baseMeters`: the lowest whose cells are at least r divided by
  /// `radiusPerCellSize`; nil when no grid has cells that large, or
  /// `baseMeters` is below the grids' smallest cell size or NaN (so the
  /// doubling below always ends: at most 24 steps).
  static func level(radiusMeters: Double, baseMeters: Double, radiusPerCellSize: Double) -> Int? {
    guard baseMeters >= LatitudeBandGrid.cellSizeRangeMeters.lowerBound else { return nil }
    var level = 0
    var size = baseMeters
    while size * radiusPerCellSize < radiusMeters {
      size *= 2
      level += 1
      guard size <= LatitudeBandGrid.cellSizeRangeMeters.upperBound else { return nil }
    }
    return level
  }

  /// Builds the index. `cellSizeMeters` (the base size) defaults to the
  /// median radius (clamped to 50 m … 5 km): each place of a typical layout
  /// then touches up to about 25 cells of level 0 (4 to 16 of level 0 or
  /// 1 past the entry budget) and a fix meets a few times as many
  /// candidates as places hold it.
  /// `exclusion`: a second disc per place that
  /// ``anyExclusionHolds(_:admitting:)`` tests (nil: none).
  /// - Complexity: O(n log n) for n places (each touches about 25 cells
  ///   at most, never more than ``maximumCellsPerPlace``); memory about 60 to
  ///   90 bytes per cell touched plus one grid table per level in use, and
  ///   the occupancy bitset: 8 to 16 bytes per occupied cell while that is
  ///   at most 1 MiB, beyond it the larger of 1 MiB and 2 to 4 bytes a cell.
  public convenience init(
    places: [Geofence], cellSizeMeters: Double? = nil, exclusion: ExclusionDisc? = nil
  ) {
    self.init(
      places: places, cellSizeMeters: cellSizeMeters, exclusion: exclusion,
      entryBudget: Self.halfRadiusCellsEntryBudget)
  }

  /// The expected cells of the bounding boxes of circles of `radii`
  /// (metres, with the 1 % and 1 m that ``cells(around:meters:grid:limit:_:)``
  /// adds) on their levels above base cells of `baseMeters`:
  /// Σ (2 (1.01 r + 1) / s + 1)² over those a level takes. O(n).
  static func estimatedEntries(radii: [Double], baseMeters: Double, radiusPerCellSize: Double) -> Double {
    radii.reduce(0) { sum, r in
      guard r > 0, r.isFinite,
        let level = level(radiusMeters: r, baseMeters: baseMeters, radiusPerCellSize: radiusPerCellSize)
      else { return sum }
      let across = 2 * (r * 1.01 + 1) / (baseMeters * Double(1 << level)) + 1
      return sum + across * across
    }
  }

  /// Builds the index with cells at least half a place's radius while
  /// ``estimatedEntries(radii:baseMeters:radiusPerCellSize:)`` is at most
  /// `entryBudget`, else at least its radius (the tests lower the budget
  /// to reach both).
  init(places: [Geofence], cellSizeMeters: Double?, exclusion: ExclusionDisc?, entryBudget: Int) {
    self.places = places
    self.exclusion = exclusion
    let radii = places.map { Self.registeredRadius($0.radiusMeters, exclusion) }.sorted()
    let size = cellSizeMeters ?? min(5_000, max(50, radii.isEmpty ? 1_000 : radii[radii.count / 2]))
    let baseGrid = LatitudeBandGrid(cellSizeMeters: size)
    let halfRadiusEntries = Self.estimatedEntries(radii: radii, baseMeters: size, radiusPerCellSize: 2)
    let radiusPerCellSize = halfRadiusEntries <= Double(entryBudget) ? 2.0 : 1.0
    self.radiusPerCellSize = radiusPerCellSize
    grid = baseGrid
    data = places.map { place in
      let c = HaversineKernel.cosineOfLatitude(place.center.latitudeDegrees)
      let t = place.radiusMeters / GreatCircle.earthMeanRadiusMeters
      return PlaceData(
        latitude: place.center.latitudeDegrees, longitude: place.center.longitudeDegrees, cosSquared: c * c,
        sinCos: c * Polynomial.sine(place.center.latitudeDegrees * Self.radiansPerDegree),
        radius: place.radiusMeters,
        innerSquared: t * t * 0.996, outerSquared: t * t * 1.004,
        flat: abs(place.center.latitudeDegrees) <= 80)
    }

    // Each place's level (−1: none, −2: wide).
    var levelOf = [Int8](repeating: -1, count: places.count)
    var grids: [Int: LatitudeBandGrid] = [0: baseGrid]
    for (i, place) in places.enumerated() {
      guard place.radiusMeters > 0, place.radiusMeters.isFinite, Self.isCoordinate(place.center) else {
        continue
      }
      guard
        let level = Self.level(
          radiusMeters: Self.registeredRadius(place.radiusMeters, exclusion), baseMeters: size,
          radiusPerCellSize: radiusPerCellSize)
      else {
        levelOf[i] = -2
        continue
      }
      levelOf[i] = Int8(level)
      if grids[level] == nil {
        grids[level] = LatitudeBandGrid(cellSizeMeters: size * Double(1 << level))
      }
    }
    // Places in cells ranked smallest first (ties: lower index); each
    // (level, cell, rank) entry packed into 12 bytes, sorted by integers:
    // within a cell the first hit is then the smallest place.
    var wide: [Int32] = []
    var order: [Int32] = places.indices.filter { levelOf[$0] >= 0 }.map(Int32.init)
    // (Comparisons spelled out, not as tuples: a debug build compares
    // tuples through generic metadata, a thousand times slower.)
    func smallerPlace(_ a: Int32, _ b: Int32) -> Bool {
      let (ra, rb) = (places[Int(a)].radiusMeters, places[Int(b)].radiusMeters)
      return ra < rb || (ra == rb && a < b)
    }
    order.sort(by: smallerPlace)
    struct Entry {
      /// level << 58 | cell id (a cell id is under 2⁵⁷: rows < 2²⁵ for cells of 1 m and more).
      var levelCell: Int64
      var rank: Int32
    }
    var entries: [Entry] = []
    var cellsOfPlace: [Int64] = []
    for (rank, i) in order.enumerated() {
      let level = Int(levelOf[Int(i)])
      let place = places[Int(i)]
      cellsOfPlace.removeAll(keepingCapacity: true)
      let fits = Self.cells(
        around: place.center, meters: Self.registeredRadius(place.radiusMeters, exclusion),
        grid: grids[level, default: baseGrid],
        limit: Self.maximumCellsPerPlace
      ) { cellsOfPlace.append($0) }
      if fits {
        for cell in cellsOfPlace {
          entries.append(Entry(levelCell: Int64(level) << 58 | cell, rank: Int32(rank)))
        }
      } else {
        levelOf[Int(i)] = -2
      }
    }
    for i in places.indices where levelOf[i] == -2 { wide.append(Int32(i)) }
    wide.sort(by: smallerPlace)
    self.wide = wide
    entries.sort { $0.levelCell < $1.levelCell || ($0.levelCell == $1.levelCell && $0.rank < $1.rank) }
    // Buckets (a level's cell and the start of its members) in order;
    // members in CSR.
    var bucketCells: [Int64] = []
    var bucketStarts: [Int32] = []
    var members: [Int32] = []
    members.reserveCapacity(entries.count)
    for k in entries.indices {
      if k == 0 || entries[k - 1].levelCell != entries[k].levelCell {
        bucketCells.append(entries[k].levelCell)
        bucketStarts.append(Int32(members.count))
      }
      members.append(order[Int(entries[k].rank)])
    }
    bucketStarts.append(Int32(members.count))
    entries = []
    order = []
    self.members = members
    // 64 bits per occupied cell (about 1.5 % of empty cells pass) while
    // that fits in 1 MiB, and never fewer than 16 (about 6 %): a fix that
    // passes wrongly costs a probe of the table, a cache miss.
    var bits = 512
    while bits < 16 * bucketCells.count || (bits < 64 * bucketCells.count && bits < 1 << 23) { bits *= 2 }
    var occupancy = [UInt64](repeating: 0, count: bits / 64)
    let occupancyShift = UInt64(64 - bits.trailingZeroBitCount)
    // Per level: its buckets' range and its slot region (at most half
    // full), sized first so the table is allocated once.
    var ranges: [(level: Int, first: Int, last: Int, capacity: Int)] = []
    var first = 0
    while first < bucketCells.count {
      let level = Int(bucketCells[first] >> 58)
      var last = first
      while last < bucketCells.count && Int(bucketCells[last] >> 58) == level { last += 1 }
      var capacity = 16
      while capacity < 2 * (last - first) { capacity *= 2 }
      ranges.append((level, first, last, capacity))
      first = last
    }
    var slots = [Slot](repeating: Slot(), count: ranges.reduce(0) { $0 + $1.capacity })
    var levels: [Level] = []
    var base = 0
    let cellBits: Int64 = (1 << 58) - 1
    for range in ranges {
      let salt = Int64(range.level) << 58
      let mask = range.capacity - 1
      let slotShift = UInt64(64 - range.capacity.trailingZeroBitCount)
      var largest = 0.0
      for b in range.first..<range.last {
        let key = bucketCells[b] & cellBits
        let bit = Self.occupancyHash(key ^ salt, shift: occupancyShift)
        occupancy[bit >> 6] |= 1 << UInt64(bit & 63)
        var slot = Self.hash(key, shift: slotShift)
        while slots[base + slot].key != -1 { slot = (slot + 1) & mask }
        slots[base + slot] = Slot(key: key, start: bucketStarts[b], end: bucketStarts[b + 1])
        for k in Int(bucketStarts[b])..<Int(bucketStarts[b + 1]) {
          largest = max(largest, places[Int(members[k])].radiusMeters)
        }
      }
      levels.append(
        Level(
          grid: grids[range.level, default: baseGrid], slotBase: base, slotMask: mask, slotShift: slotShift,
          salt: salt, largestRadiusMeters: largest,
          entries: Int(bucketStarts[range.first])..<Int(bucketStarts[range.last])))
      base += range.capacity
    }
    self.levels = levels
    self.occupancy = occupancy
    self.occupancyShift = occupancyShift
    self.slots = slots
  }

  /// Entries the index holds: (cell, place) pairs plus wide places (for
  /// the tests of its size). O(1).
  var entryCount: Int { members.count + wide.count }

  /// The places a lookup at `point` tests: its cells' members on every
  /// level plus the wide places (for the tests of its cost). O(levels).
  func candidateCount(_ point: Coordinate) -> Int {
    levels.indices.reduce(wide.count) { $0 + candidates(point, level: $1).count }
  }

  /// The cell-size rule the index chose and the levels it holds places on
  /// (for the tests of the entry budget). O(1).
  var layoutForTesting: (radiusPerCellSize: Double, levels: Int) { (radiusPerCellSize, levels.count) }

  /// The occupancy bitset's size in bits and the occupied cells it marks
  /// (for the tests of its sizing rule). O(cells).
  var occupancySizeForTesting: (bits: Int, cells: Int) {
    (occupancy.count * 64, slots.reduce(0) { $0 + ($1.key == -1 ? 0 : 1) })
  }

  /// The rooms the hashes' shifts address: the bitset's, and per level its
  /// slot region's by shift and by size (for the tests). O(levels).
  var hashRoomsForTesting: (bits: Int, slots: [(byShift: Int, bySize: Int)]) {
    (1 << (64 - Int(occupancyShift)), levels.map { (1 << (64 - Int($0.slotShift)), $0.slotMask + 1) })
  }

  /// A key's bit in the occupancy bitset: the top `64 − shift` bits of a
  /// multiplicative hash, which depend on every bit of the key (the row, the
  /// column and the level's salt). Lower bits of the product would see only
  /// the key's low bits: cells whose rows differ by a multiple of a small
  /// power of two in the same column would share a bit, and so would the
  /// levels. In [0, 2^(64 − shift)).
  @inline(__always)
  static func occupancyHash(_ key: Int64, shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0xD6E8_FEB8_6659_FD93) &>> shift)
  }

  /// A key's first slot in its level's region: the top `64 − shift` bits of
  /// a multiplicative (Fibonacci) hash, as ``occupancyHash(_:shift:)``. In
  /// [0, 2^(64 − shift)).
  @inline(__always)
  static func hash(_ key: Int64, shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) &>> shift)
  }

  /// Calls `body` with every cell id a circle of `meters` around `center`
  /// may touch (a superset: rows by latitude; per row, the longitudes the
  /// haversine allows at the row's latitude nearest the centre's and its
  /// largest |latitude|,
  /// every column when the circle holds the pole; 1 % and 1 m to spare). Stops and returns false as
  /// soon as more than `limit` cells would be needed (true otherwise), so a
  /// huge circle costs O(limit), not O(its area). A centre that is not a
  /// coordinate, or a negative or NaN radius, touches no cell.
  @discardableResult
  static func cells(
    around center: Coordinate, meters: Double, grid: LatitudeBandGrid, limit: Int = .max,
    _ body: (Int64) -> Void
  ) -> Bool {
    var emitted = 0
    func emit(_ cell: Int64) -> Bool {
      emitted += 1
      guard emitted <= limit else { return false }
      body(cell)
      return true
    }
    guard isCoordinate(center), meters >= 0 else { return true }
    let reach = (meters * 1.01 + 1) / metersPerDegree
    let south = max(-90, center.latitudeDegrees - reach)
    let north = min(90, center.latitudeDegrees + reach)
    let firstRow = grid.cell(containing: Coordinate(latitudeDegrees: south, longitudeDegrees: 0)).row
    let lastRow = grid.cell(containing: Coordinate(latitudeDegrees: north, longitudeDegrees: 0)).row
    guard firstRow <= lastRow else { return true }
    for row in firstRow...lastRow {
      let columns = grid.columnCount(row: row)
      let rowSouth = Double(row) * grid.rowHeightDegrees - 90
      let rowNorth = rowSouth + grid.rowHeightDegrees
      // Longitudes a point of this row within `reach` of the centre may
      // have: hav d = hav Δφ + cos φ₀ · cos φ · hav Δλ, so
      // hav Δλ ≤ (hav d − hav Δφ_min) / (cos φ₀ · cos φ_widest), with Δφ_min
      // the row's nearest latitude to the centre's and |φ_widest| its
      // widest latitude in the box (rows away from the centre's take
      // fewer columns: a disc, not its bounding box; a circle around a
      // pole takes every column of the rows near it).
      let (rowFrom, rowTo) = (max(south, rowSouth), min(north, rowNorth))
      let widest = max(abs(rowFrom), abs(rowTo))
      let nearest = min(max(center.latitudeDegrees, rowFrom), rowTo) - center.latitudeDegrees
      let denominator =
        cos(min(90, abs(center.latitudeDegrees)) * radiansPerDegree) * cos(min(90, widest) * radiansPerDegree)
      let half = sin(min(reach, 180) * radiansPerDegree / 2)
      let halfNearest = sin(min(abs(nearest), 180) * radiansPerDegree / 2)
      let bound =
        denominator > 0 ? max(0, half * half - halfNearest * halfNearest) / denominator : .infinity
      let spread = reach >= 180 || bound >= 1 ? 360 : 2 * asin(bound.squareRoot()) / radiansPerDegree
      // Every column when the arc (2 × spread) plus one column's width
      // reaches round the row: its two ends could then fall in one column,
      // which the walk below would take for an arc inside that column.
      if spread >= 180 || columns == 1 || 2 * spread + 360 / Double(columns) >= 360 {
        for column in 0..<columns {
          guard emit(GridCell(row: row, column: column).rawValue) else { return false }
        }
        continue
      }
      let middle = (rowSouth + rowNorth) / 2
      func column(_ longitude: Double) -> Int {
        var l = longitude
        if l < -180 { l += 360 }
        if l > 180 { l -= 360 }
        return grid.cell(containing: Coordinate(latitudeDegrees: middle, longitudeDegrees: l)).column
      }
      let first = column(center.longitudeDegrees - spread)
      let last = column(center.longitudeDegrees + spread)
      var c = first
      while true {
        guard emit(GridCell(row: row, column: c).rawValue) else { return false }
        if c == last { break }
        c = (c + 1) % columns
      }
    }
    return true
  }

  /// The places of level `level` whose cells hold `point` (candidates, not
  /// yet tested), as a range of ``members``.
  @inline(__always)
  func candidates(_ point: Coordinate, level: Int) -> Range<Int> {
    let cell = levels[level].grid.cell(containing: point)
    guard !cell.isNone else { return 0..<0 }
    return bucket(cell.rawValue, level: level)
  }

  @inline(__always)
  private func bucket(_ key: Int64, level: Int) -> Range<Int> {
    let bit = Self.occupancyHash(key ^ levels[level].salt, shift: occupancyShift)
    guard occupancy[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return 0..<0 }
    let base = levels[level].slotBase
    let mask = levels[level].slotMask
    var slot = Self.hash(key, shift: levels[level].slotShift)
    while true {
      let stored = slots[base + slot]
      if stored.key == key { return Int(stored.start)..<Int(stored.end) }
      if stored.key == -1 { return 0..<0 }
      slot = (slot + 1) & mask
    }
  }

  /// Exact great-circle distance from place `index`'s centre, metres.
  public func distanceMeters(place index: Int, to point: Coordinate) -> Double {
    GreatCircle.distanceMeters(
      latitude1Degrees: data[index].latitude, longitude1Degrees: data[index].longitude,
      latitude2Degrees: point.latitudeDegrees, longitude2Degrees: point.longitudeDegrees)
  }

  /// The flat-Earth squared angular distance (radians²) of `point` from a
  /// place, or nil where that approximation is not trusted.
  @inline(__always)
  static func flatSquared(_ place: PlaceData, _ latitude: Double, _ longitude: Double) -> Double? {
    guard place.flat else { return nil }
    let dLat = (latitude - place.latitude) * radiansPerDegree
    var dLonDegrees = longitude - place.longitude
    if dLonDegrees > 180 { dLonDegrees -= 360 } else if dLonDegrees < -180 { dLonDegrees += 360 }
    let dLon = dLonDegrees * radiansPerDegree
    guard abs(dLat) < 0.01 && abs(dLon) < 0.06 else { return nil }
    return dLat * dLat + (place.cosSquared - place.sinCos * dLat) * dLon * dLon
  }

  /// Whether `point` is within `meters` of place `index`'s centre: exactly
  /// `distanceMeters(place:to:) <= meters`, usually without computing it
  /// (false for a negative or NaN `meters`).
  @inline(__always)
  public func isWithin(_ meters: Double, of index: Int, _ point: Coordinate) -> Bool {
    guard meters >= 0 else { return false }
    let place = data[index]
    if let q = Self.flatSquared(place, point.latitudeDegrees, point.longitudeDegrees) {
      let t = meters / GreatCircle.earthMeanRadiusMeters
      let t2 = t * t
      if q <= t2 * 0.996 { return true }
      if q >= t2 * 1.004 { return false }
    } else if place.flat && abs(point.latitudeDegrees - place.latitude) * Self.radiansPerDegree >= 0.01
      && meters < 60_000
    {
      return false
    }
    return distanceMeters(place: index, to: point) <= meters
  }

  /// Whether `point` is inside place `index` (distance ≤ radius), with the
  /// margins precomputed.
  @inline(__always)
  func holds(_ index: Int, _ latitude: Double, _ longitude: Double) -> Bool {
    let place = data[index]
    if let q = Self.flatSquared(place, latitude, longitude) {
      if q <= place.innerSquared { return true }
      if q >= place.outerSquared { return false }
    }
    return isWithin(
      place.radius, of: index, Coordinate(latitudeDegrees: latitude, longitudeDegrees: longitude))
  }

  /// Whether place `a` sorts before place `b` by (radius, index): the
  /// order "smallest first" means throughout.
  @inline(__always)
  private func smaller(_ a: Int, _ b: Int) -> Bool {
    (data[a].radius, a) < (data[b].radius, b)
  }

  /// Calls `body` with the index of every place whose circle holds `point`
  /// (distance ≤ radius), smallest radius first (ties: lower index).
  @inline(__always)
  public func forEachContaining(_ point: Coordinate, _ body: (Int) -> Void) {
    guard wide.isEmpty else {
      var hits: [Int] = []
      appendContaining(point, to: &hits)
      hits.sort(by: smaller)
      for i in hits { body(i) }
      return
    }
    // Levels ascend by radius and each cell's places are smallest first.
    for level in levels.indices {
      for k in candidates(point, level: level) {
        let i = Int(members[k])
        if holds(i, point.latitudeDegrees, point.longitudeDegrees) { body(i) }
      }
    }
  }

  /// Appends the index of every place holding `point` to `list`: the
  /// cells' places smallest first, level by level, then the wide places
  /// that hold it (no closure: the engine's per-fix path).
  @inline(__always)
  public func appendContaining(_ point: Coordinate, to list: inout [Int]) {
    for level in levels.indices {
      for k in candidates(point, level: level) {
        let i = Int(members[k])
        if holds(i, point.latitudeDegrees, point.longitudeDegrees) { list.append(i) }
      }
    }
    // (A point off the grids' domain has no cell; the wide places must agree.)
    guard !wide.isEmpty, Self.isCoordinate(point) else { return }
    for w in wide where holds(Int(w), point.latitudeDegrees, point.longitudeDegrees) { list.append(Int(w)) }
  }

  /// Whether `point` lies in the ``exclusion`` disc of a place that
  /// `admits` (an index) lets through; false when the index has no such
  /// disc. Exactly `distanceMeters(place:to:) <= disc radius` for some
  /// admitted place whose own radius and disc radius are positive finite
  /// numbers. O(levels + candidates), no allocation.
  public func anyExclusionHolds(_ point: Coordinate, admitting admits: (Int) -> Bool) -> Bool {
    guard let exclusion else { return false }
    func holds(_ i: Int) -> Bool {
      let meters = exclusion.radiusMeters(ofPlace: data[i].radius)
      return meters > 0 && meters.isFinite && admits(i) && isWithin(meters, of: i, point)
    }
    for level in levels.indices {
      for k in candidates(point, level: level) where holds(Int(members[k])) { return true }
    }
    guard Self.isCoordinate(point) else { return false }
    for w in wide where holds(Int(w)) { return true }
    return false
  }

  /// The smallest place holding `point` (ties: the lower index), or nil.
  public func smallestContaining(_ point: Coordinate) -> Int? {
    var found: Int?
    levels: for level in levels.indices {
      for k in candidates(point, level: level) {
        let i = Int(members[k])
        if holds(i, point.latitudeDegrees, point.longitudeDegrees) {
          found = i
          break levels
        }
      }
    }
    return smallestWide(point.latitudeDegrees, point.longitudeDegrees, before: found)
  }

  /// `found`, or a wide place holding the point that sorts before it.
  @inline(__always)
  private func smallestWide(_ latitude: Double, _ longitude: Double, before found: Int?) -> Int? {
    guard !wide.isEmpty, Self.isCoordinate(latitude, longitude) else { return found }
    for w in wide {
      let i = Int(w)
      if let found, !smaller(i, found) { break }
      if holds(i, latitude, longitude) { return i }
    }
    return found
  }

  /// SPEC §3 placeAt: the smallest place holding `point`, else the place
  /// with the nearest centre among those whose edge is within `capMeters`
  /// (ties: the lower index), else nil; only places `admits` (an index)
  /// lets through count (a person's circles); nil for a point that is not
  /// a coordinate, or a negative or NaN cap when no place holds the point.
  /// - Complexity: O(levels + candidates) when a place holds the point;
  ///   else per level O(min(cells within the cap and its largest radius,
  ///   8 × the level's (cell, place) entries + 256)) (a cap of half the
  ///   globe tests the level's entries instead of walking every cell of the
  ///   sphere), plus the wide places.
  public func placeAt(
    _ point: Coordinate, capMeters: Double = GeofenceRules().placeAtNearestCapMeters,
    admitting admits: (Int) -> Bool = { _ in true }
  ) -> Int? {
    var inside: Int?
    forEachContaining(point) { i in
      if inside == nil && admits(i) { inside = i }
    }
    if let inside { return inside }
    var best: (distance: Double, index: Int)?
    func consider(_ i: Int) {
      guard admits(i) else { return }
      let d = distanceMeters(place: i, to: point)
      guard d - places[i].radiusMeters <= capMeters else { return }
      if let b = best, (b.distance, b.index) <= (d, i) { return }
      best = (d, i)
    }
    guard capMeters.isFinite, capMeters >= 0, Self.isCoordinate(point) else { return nil }
    for (l, level) in levels.enumerated() {
      // Walk the cells while they are fewer than 8 × the level's (cell,
      // place) entries (a cell costs a bitset probe, an entry an exact
      // distance: the walk stays the cheaper of the two); past that, test
      // every entry (`consider` keeps the nearest, so a place seen twice
      // changes nothing).
      let walked = Self.cells(
        around: point, meters: capMeters + level.largestRadiusMeters, grid: level.grid,
        limit: max(256, 8 * level.entries.count)
      ) { key in
        for k in bucket(key, level: l) { consider(Int(members[k])) }
      }
      if !walked {
        for k in level.entries { consider(Int(members[k])) }
      }
    }
    for w in wide { consider(Int(w)) }
    return best?.index
  }

  /// Screening in bulk: for each point, the index of the smallest place
  /// holding it, or −1. Identical to `smallestContaining` point by point.
  ///
  /// Points go through in blocks of 256, level by level (ascending, so the
  /// first hit is the answer): the level's vectorised snap finds the cell
  /// ids of the whole block (ids only: the screen never reads the centres),
  /// a branch-free pass keeps the points still unplaced whose cell passes
  /// the occupancy bitset (most points stop there), and
  /// only those look their cell up and test its places, smallest first.
  /// Wide places come last.
  /// - Precondition: the three buffers have the same count.
  /// - Complexity: O(n · levels + candidates); no allocation.
  public func smallestContaining(
    latitudesDegrees: UnsafeBufferPointer<Double>, longitudesDegrees: UnsafeBufferPointer<Double>,
    into result: UnsafeMutableBufferPointer<Int32>
  ) {
    let n = latitudesDegrees.count
    precondition(longitudesDegrees.count == n && result.count == n)
    guard n > 0 else { return }
    let lat = latitudesDegrees.baseAddress!
    let lon = longitudesDegrees.baseAddress!
    let out = result.baseAddress!
    guard !levels.isEmpty else {
      for k in 0..<n { out[k] = smallestWide(lat[k], lon[k], before: nil).map(Int32.init) ?? -1 }
      return
    }
    let block = 256
    withUnsafeTemporaryAllocation(of: Int64.self, capacity: block) { ids in
      withUnsafeTemporaryAllocation(of: Int.self, capacity: block) { probes in
        members.withUnsafeBufferPointer { members in
          slots.withUnsafeBufferPointer { slots in
            occupancy.withUnsafeBufferPointer { occupancy in
              data.withUnsafeBufferPointer { data in
                var start = 0
                while start < n {
                  let m = min(block, n &- start)
                  let (la, lo, o) = (lat + start, lon + start, out + start)
                  for k in 0..<m { o[k] = -1 }
                  for level in levels {
                    level.grid.cellIDsKernel(count: m, latitudes: la, longitudes: lo, ids: ids.baseAddress!)
                    screen(
                      count: m, latitudes: la, longitudes: lo, cells: ids.baseAddress!, on: level,
                      members: members.baseAddress!, slots: slots.baseAddress!,
                      occupancy: occupancy.baseAddress!, data: data.baseAddress!,
                      probes: probes.baseAddress!, into: o)
                  }
                  if !wide.isEmpty {
                    for k in 0..<m {
                      let found = o[k] >= 0 ? Int(o[k]) : nil
                      if let i = smallestWide(la[k], lo[k], before: found) { o[k] = Int32(i) }
                    }
                  }
                  start &+= m
                }
              }
            }
          }
        }
      }
    }
  }

  /// One level of the bulk screen over `count` points whose cell ids on
  /// that level are in `cells`: each point still unplaced (`out[k] < 0`)
  /// whose cell is in the level gets the smallest of its cell's places that
  /// holds it. Pass 1 lists the points that pass the occupancy bitset with
  /// integer arithmetic only (no branch to mispredict: at a few hundred
  /// places a point's bit is a coin toss); their slots start loading; pass
  /// 2 probes and tests. Not inlined: its own registers, once per level and
  /// block.
  @inline(never)
  private func screen(
    count m: Int, latitudes la: UnsafePointer<Double>, longitudes lo: UnsafePointer<Double>,
    cells: UnsafePointer<Int64>, on level: Level,
    members: UnsafePointer<Int32>, slots: UnsafePointer<Slot>, occupancy: UnsafePointer<UInt64>,
    data: UnsafePointer<PlaceData>, probes: UnsafeMutablePointer<Int>, into out: UnsafeMutablePointer<Int32>
  ) {
    let (base, slotMask, slotShift) = (level.slotBase, level.slotMask, level.slotShift)
    let (salt, bitShift) = (level.salt, occupancyShift)
    var survivors = 0
    for k in 0..<m {
      let key = cells[k]
      let bit = Self.occupancyHash(key ^ salt, shift: bitShift)
      let set = Int(truncatingIfNeeded: occupancy[bit &>> 6] &>> UInt64(bit & 63)) & 1
      // 1 when the cell id is valid (≥ 0) and the point still unplaced (< 0).
      let open = Int(truncatingIfNeeded: (~key & Int64(out[k])) >> 63) & 1
      probes[survivors] = k
      survivors &+= set & open
    }
    for s in 0..<survivors {
      hearth_prefetch(slots + base + Self.hash(cells[probes[s]], shift: slotShift))
    }
    for s in 0..<survivors {
      let k = probes[s]
      let key = cells[k]
      var slot = Self.hash(key, shift: slotShift)
      while true {
        let stored = slots[base &+ slot]
        if stored.key == key {
          let (latitude, longitude) = (la[k], lo[k])
          for j in Int(stored.start)..<Int(stored.end) {
            let p = Int(members[j])
            let place = data[p]
            if let q = Self.flatSquared(place, latitude, longitude) {
              if q <= place.innerSquared {
                out[k] = Int32(p)
                break
              }
              if q >= place.outerSquared { continue }
            }
            if holds(p, latitude, longitude) {
              out[k] = Int32(p)
              break
            }
          }
          break
        }
        if stored.key == -1 { break }
        slot = (slot &+ 1) & slotMask
      }
    }
  }
}
