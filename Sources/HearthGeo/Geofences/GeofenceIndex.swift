import Foundation
import _HearthShims

/// A spatial index over circular places, so a fix is tested only against
/// the places near it (1 to 100 000 places and more).
///
/// Each place is registered in every cell of a `LatitudeBandGrid` (1 km by
/// default) that its circle may touch; a lookup finds the fix's cell in an
/// open-addressing hash table and tests only that cell's places. The test
/// is a flat-Earth distance in the place's own frame with a 0.2 % margin
/// (its error is below 10⁻⁵ within 60 km below 80° of latitude); inside the
/// margin, and at high latitude, the exact great-circle distance decides, so
/// every answer equals `GreatCircle.distanceMeters(…) ≤ threshold`.
///
/// A place that would touch more than ``maximumCellsPerPlace`` cells (a
/// radius far above the cell size) is not registered in cells at all: it is
/// kept in a short list of *wide* places that every lookup tests directly.
/// So the index costs memory in proportion to the number of places whatever
/// their radii (a 20 000 km circle costs one list entry, not 5 GB of cells),
/// and a lookup costs O(candidates in the cell + wide places). A place whose
/// radius is not a positive finite number holds no point.
///
/// Immutable once built and shared, not copied, by the engines that use it
/// (a reference type so that copying an engine costs one retain); `Sendable`;
/// queries allocate nothing.
public final class GeofenceIndex: Sendable {
  public let places: [Geofence]
  public let grid: LatitudeBandGrid
  /// Per place, what the edge test reads, in one 64-byte record.
  private let data: [PlaceData]
  // Cells → places: CSR member lists (smallest radius first) and an
  // open-addressing table of slots (key, bucket) for O(1) lookups.
  private let members: [Int32]
  /// Open addressing: a cell key (−1 = empty) and its members' range, in
  /// one 16-byte slot so a probe touches one cache line.
  private let slots: [Slot]
  private let slotMask: Int
  /// One bit per hash of an occupied cell (16 bits per cell, so about 6 % of
  /// empty cells pass): most fixes lie in no place's cell and stop here,
  /// reading a small, cache-resident bitset instead of the table.
  private let occupancy: [UInt64]
  private let occupancyMask: Int
  /// Places too wide for the cells, ascending by (radius, index).
  private let wide: [Int32]
  /// The largest radius among the places registered in cells, m.
  private let largestCellRadiusMeters: Double

  /// A place touching more cells than this is kept in the wide list.
  public static let maximumCellsPerPlace = 256

  static let radiansPerDegree = Double.pi / 180
  static let metersPerDegree = GreatCircle.earthMeanRadiusMeters * Double.pi / 180

  struct Slot: Sendable {
    var key: Int64 = -1
    var start: Int32 = 0
    var end: Int32 = 0
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

  /// Builds the index. `cellSizeMeters` defaults to the median radius
  /// (clamped to 50 m … 5 km): each place then touches about nine cells and
  /// a fix meets about three times as many candidates as places hold it.
  /// - Complexity: O(Σ cells touched) ≈ O(n · (1 + 2r/s)²) for n places of
  ///   radius r on cells of size s.
  public init(places: [Geofence], cellSizeMeters: Double? = nil) {
    self.places = places
    let radii = places.map(\.radiusMeters).sorted()
    let size = cellSizeMeters ?? min(5_000, max(50, radii.isEmpty ? 1_000 : radii[radii.count / 2]))
    grid = LatitudeBandGrid(cellSizeMeters: size)
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

    var pairs: [(Int64, Int32)] = []
    var wide: [Int32] = []
    var largest = 0.0
    var cellsOfPlace: [Int64] = []
    for (i, place) in places.enumerated() {
      guard place.radiusMeters > 0, place.radiusMeters.isFinite, place.center.latitudeDegrees.isFinite,
        place.center.longitudeDegrees.isFinite
      else { continue }
      cellsOfPlace.removeAll(keepingCapacity: true)
      let fits = Self.cells(
        around: place.center, meters: place.radiusMeters, grid: grid, limit: Self.maximumCellsPerPlace
      ) { cellsOfPlace.append($0) }
      if fits {
        for cell in cellsOfPlace { pairs.append((cell, Int32(i))) }
        largest = max(largest, place.radiusMeters)
      } else {
        wide.append(Int32(i))
      }
    }
    wide.sort { (places[Int($0)].radiusMeters, $0) < (places[Int($1)].radiusMeters, $1) }
    self.wide = wide
    largestCellRadiusMeters = largest
    // Within a cell, smallest radius first: the first hit is the smallest place.
    pairs.sort {
      $0.0 != $1.0
        ? $0.0 < $1.0
        : (places[Int($0.1)].radiusMeters, $0.1) < (places[Int($1.1)].radiusMeters, $1.1)
    }
    var keys: [Int64] = []
    var starts: [Int32] = []
    var members: [Int32] = []
    members.reserveCapacity(pairs.count)
    for (key, place) in pairs {
      if keys.last != key {
        keys.append(key)
        starts.append(Int32(members.count))
      }
      members.append(place)
    }
    starts.append(Int32(members.count))
    self.members = members
    var capacity = 16
    while capacity < 4 * keys.count { capacity *= 2 }
    var bits = 512
    while bits < 16 * keys.count { bits *= 2 }
    var occupancy = [UInt64](repeating: 0, count: bits / 64)
    var slots = [Slot](repeating: Slot(), count: capacity)
    for (bucket, key) in keys.enumerated() {
      let bit = Self.occupancyHash(key) & (bits - 1)
      occupancy[bit >> 6] |= 1 << UInt64(bit & 63)
      var slot = Self.hash(key) & (capacity - 1)
      while slots[slot].key != -1 { slot = (slot + 1) & (capacity - 1) }
      slots[slot] = Slot(key: key, start: starts[bucket], end: starts[bucket + 1])
    }
    self.occupancy = occupancy
    occupancyMask = bits - 1
    self.slots = slots
    slotMask = capacity - 1
  }

  @inline(__always)
  static func occupancyHash(_ key: Int64) -> Int {
    Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0xD6E8_FEB8_6659_FD93) >> 24)
  }

  @inline(__always)
  static func hash(_ key: Int64) -> Int {
    Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 20)
  }

  /// Calls `body` with every cell id a circle of `meters` around `center`
  /// may touch (a superset: rows by latitude, columns widened by the row's
  /// largest |latitude|, 1 % and 1 m to spare). Stops and returns false as
  /// soon as more than `limit` cells would be needed (true otherwise), so a
  /// huge circle costs O(limit), not O(its area).
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
      let widest = max(abs(max(south, rowSouth)), abs(min(north, rowNorth)))
      let cosine = cos(min(90, widest) * radiansPerDegree)
      let spread = cosine > 1e-9 ? reach / cosine : 360
      if spread >= 180 || columns == 1 {
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

  /// The places whose cells hold `point` (candidates, not yet tested).
  @inline(__always)
  func candidates(_ point: Coordinate) -> Range<Int> {
    let cell = grid.cell(containing: point)
    guard !cell.isNone else { return 0..<0 }
    return bucket(cell.rawValue)
  }

  @inline(__always)
  private func bucket(_ key: Int64) -> Range<Int> {
    let bit = Self.occupancyHash(key) & occupancyMask
    guard occupancy[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return 0..<0 }
    var slot = Self.hash(key) & slotMask
    while true {
      let stored = slots[slot]
      if stored.key == key { return Int(stored.start)..<Int(stored.end) }
      if stored.key == -1 { return 0..<0 }
      slot = (slot + 1) & slotMask
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
  /// `distanceMeters(place:to:) <= meters`, usually without computing it.
  @inline(__always)
  public func isWithin(_ meters: Double, of index: Int, _ point: Coordinate) -> Bool {
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
    for k in candidates(point) {
      let i = Int(members[k])
      if holds(i, point.latitudeDegrees, point.longitudeDegrees) { body(i) }
    }
  }

  /// Appends the index of every place holding `point` to `list`: the
  /// cell's places smallest first, then the wide places that hold it (no
  /// closure: the engine's per-fix path).
  @inline(__always)
  public func appendContaining(_ point: Coordinate, to list: inout [Int]) {
    for k in candidates(point) {
      let i = Int(members[k])
      if holds(i, point.latitudeDegrees, point.longitudeDegrees) { list.append(i) }
    }
    for w in wide where holds(Int(w), point.latitudeDegrees, point.longitudeDegrees) { list.append(Int(w)) }
  }

  /// The smallest place holding `point` (ties: the lower index), or nil.
  public func smallestContaining(_ point: Coordinate) -> Int? {
    var found: Int?
    for k in candidates(point) {
      let i = Int(members[k])
      if holds(i, point.latitudeDegrees, point.longitudeDegrees) {
        found = i
        break
      }
    }
    return smallestWide(point.latitudeDegrees, point.longitudeDegrees, before: found)
  }

  /// `found`, or a wide place holding the point that sorts before it.
  @inline(__always)
  private func smallestWide(_ latitude: Double, _ longitude: Double, before found: Int?) -> Int? {
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
  /// lets through count (a person's circles). O(cells within the cap).
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
    guard capMeters.isFinite, capMeters >= 0 else { return nil }
    Self.cells(around: point, meters: capMeters + largestCellRadiusMeters, grid: grid) { key in
      for k in bucket(key) { consider(Int(members[k])) }
    }
    for w in wide { consider(Int(w)) }
    return best?.index
  }

  /// Screening in bulk: for each point, the index of the smallest place
  /// holding it, or −1. Identical to `smallestContaining` point by point.
  ///
  /// Points go through in blocks of 256: the grid's vectorised snap finds
  /// their cells, then each cell is looked up and its places tested
  /// smallest first (the first hit is the answer).
  /// - Precondition: the three buffers have the same count.
  /// - Complexity: O(n + candidates); no allocation.
  public func smallestContaining(
    latitudesDegrees: UnsafeBufferPointer<Double>, longitudesDegrees: UnsafeBufferPointer<Double>,
    into result: UnsafeMutableBufferPointer<Int32>
  ) {
    let n = latitudesDegrees.count
    precondition(longitudesDegrees.count == n && result.count == n)
    guard n > 0 else { return }
    let block = 256
    withUnsafeTemporaryAllocation(of: Int64.self, capacity: block) { ids in
      withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * block) { centres in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: block) { probes in
          members.withUnsafeBufferPointer { members in
            slots.withUnsafeBufferPointer { slots in
              occupancy.withUnsafeBufferPointer { occupancy in
                data.withUnsafeBufferPointer { data in
                  let lat = latitudesDegrees.baseAddress!
                  let lon = longitudesDegrees.baseAddress!
                  let out = result.baseAddress!
                  var start = 0
                  while start < n {
                    let m = min(block, n &- start)
                    grid.snapKernel(
                      count: m, latitudes: lat + start, longitudes: lon + start, ids: ids.baseAddress!,
                      centreLatitudes: centres.baseAddress!, centreLongitudes: centres.baseAddress! + block)
                    // Pass 1, branch-free: every point gets −1; those whose cell
                    // passes the bitset are listed and their slot starts loading.
                    var survivors = 0
                    for k in 0..<m {
                      let key = ids[k]
                      let bit = Self.occupancyHash(key) & occupancyMask
                      let occupied = key >= 0 && occupancy[bit >> 6] & (1 << UInt64(bit & 63)) != 0
                      hearth_prefetch(slots.baseAddress! + (Self.hash(key) & slotMask))
                      out[start &+ k] = -1
                      probes[survivors] = k
                      survivors &+= occupied ? 1 : 0
                    }
                    // Pass 2: probe the survivors' cells and test their places, smallest first.
                    for s in 0..<survivors {
                      let k = probes[s]
                      let key = ids[k]
                      var slot = Self.hash(key) & slotMask
                      while true {
                        let stored = slots[slot]
                        if stored.key == key {
                          let (la, lo) = (lat[start &+ k], lon[start &+ k])
                          for j in Int(stored.start)..<Int(stored.end) {
                            let p = Int(members[j])
                            let place = data[p]
                            if let q = Self.flatSquared(place, la, lo) {
                              if q <= place.innerSquared {
                                out[start &+ k] = Int32(p)
                                break
                              }
                              if q >= place.outerSquared { continue }
                            }
                            if holds(p, la, lo) {
                              out[start &+ k] = Int32(p)
                              break
                            }
                          }
                          break
                        }
                        if stored.key == -1 { break }
                        slot = (slot &+ 1) & slotMask
                      }
                    }
                    if !wide.isEmpty {
                      for k in 0..<m {
                        let found = out[start &+ k] >= 0 ? Int(out[start &+ k]) : nil
                        if let i = smallestWide(lat[start &+ k], lon[start &+ k], before: found) {
                          out[start &+ k] = Int32(i)
                        }
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
  }
}
