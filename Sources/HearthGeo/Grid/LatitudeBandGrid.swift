// A deterministic grid of roughly square cells of a given size on the sphere.
//
// Construction ("latitude bands"; documented in docs/guides/grid.md):
//   * the meridian (πR ≈ 20 015 km) is cut into rowCount = round(πR / s)
//     bands of equal height 180°/rowCount;
//   * band r (r = 0 at the south pole) is cut into
//     n_r = round(2πR·cos φ_r / s) columns of equal width 360°/n_r, where
//     φ_r is the band's middle latitude; the two polar bands are one cell
//     each (a cap around the pole, so the pole is one cell whatever its
//     longitude is written as), and a cap's centre is its pole;
//   * the cell id is r·2³² + c, c counted eastwards from −180°.
//
// Goals, in priority order:
//   1. Determinism: the cell depends only on (latitude, longitude), through
//      IEEE multiply, add and truncation of non-negative values (no fused
//      operations, no library calls), and the column table is built from our
//      own polynomial with every n_r at least 1e-6 away from a rounding tie
//      (tested), so ids are identical on every platform, build and batch size.
//   2. Cells close to s on a side at every latitude (worst cases in the
//      guide), tiling the sphere without gaps or overlaps.
//   3. Speed: one multiply-add and a table lookup per coordinate, branch-free
//      but for the polar caps' test on a centre's latitude (always predicted).

import _HearthShims

/// A grid cell, identified by band (row) and column.
public struct GridCell: RawRepresentable, Sendable, Hashable, Codable, Comparable {
  /// row·2³² + column; −1 for "no cell" (NaN or out-of-range input).
  public var rawValue: Int64
  public init(rawValue: Int64) { self.rawValue = rawValue }
  public init(row: Int, column: Int) { rawValue = Int64(row) << 32 | Int64(column) }

  /// The id given to NaN or out-of-range positions.
  public static let none = GridCell(rawValue: -1)

  /// Band index, 0 at the south pole.
  public var row: Int { Int(rawValue >> 32) }
  /// Column index, 0 at −180°, counted eastwards.
  public var column: Int { Int(rawValue & 0xFFFF_FFFF) }
  public var isNone: Bool { rawValue < 0 }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The edges of a cell, degrees.
public struct CellBounds: Sendable, Hashable, Codable {
  public var southDegrees: Double
  public var northDegrees: Double
  public var westDegrees: Double
  public var eastDegrees: Double
}

/// A deterministic grid of cells about ``cellSizeMeters`` on a side.
public struct LatitudeBandGrid: Sendable {
  /// The nominal cell size, metres.
  public let cellSizeMeters: Double
  /// Number of latitude bands.
  public let rowCount: Int
  /// Height of every band, degrees.
  public var rowHeightDegrees: Double { tables.rowHeightDegrees }
  /// The lookup tables that define the cells, for re-implementations in
  /// other languages (the benchmark's C reference uses them).
  public let tables: Tables

  /// The numbers that define a grid's cells. Every cell computation is a
  /// function of a position and these tables only.
  public struct Tables: Sendable, Hashable {
    /// rowCount / 180.
    public let rowsPerDegree: Double
    /// rowCount − 1, as a Double (the clamp for latitude 90°).
    public let lastRow: Double
    /// 180 / rowCount.
    public let rowHeightDegrees: Double
    /// Per band r, two Doubles at `2r`: n_r / 360 (columns per degree) and
    /// 360 / n_r (column width, degrees). Interleaved so that one band is one
    /// 16-byte fetch and the privacy grid's table (427 KB) fits a 512 KB L2
    /// cache: a snap over scattered points then costs one L2 hit per point.
    /// n_r itself is recovered exactly as round(360 · columns per degree).
    public let bands: [Double]

    /// Doubles per band in ``bands``.
    public static let bandStride = 2

    func columnCount(row: Int) -> Double { columnCount(columnsPerDegree: bands[Self.bandStride * row]) }
    func columnWidthDegrees(row: Int) -> Double { bands[Self.bandStride * row + 1] }

    /// n_r from n_r/360 rounded to a Double: 360·fl(n/360) is within 1e-13 of
    /// the integer n for every n < 2³¹, so rounding it to the nearest integer
    /// (by adding and subtracting 2⁵², exact and branch-free) gives n exactly.
    @inline(__always)
    func columnCount(columnsPerDegree: Double) -> Double {
      (360 * columnsPerDegree + 0x1p52) - 0x1p52
    }
  }

  /// The privacy grid of SPEC §2: cells of about 750 m.
  public static let privacy = LatitudeBandGrid(cellSizeMeters: 750)
  /// The reverse-geocoder cache grid of SPEC §2: cells of about 100 m.
  public static let geocoderCache = LatitudeBandGrid(cellSizeMeters: 100)

  /// The cell sizes a grid can be built for, metres: 1 m to 10 000 km (a
  /// door checks a size it is handed against this before building one).
  public static let cellSizeRangeMeters: ClosedRange<Double> = 1...10_000_000

  /// Builds the grid for a nominal cell size.
  /// - Precondition: `cellSizeMeters` within ``cellSizeRangeMeters``.
  /// - Complexity: O(πR / s) polynomial cosines (26 687 for 750 m).
  public init(cellSizeMeters: Double) {
    precondition(
      Self.cellSizeRangeMeters.contains(cellSizeMeters),
      "LatitudeBandGrid: cell size must be between 1 m and 10 000 km")
    let radius = GreatCircle.earthMeanRadiusMeters
    let rows = max(2, Int((Double.pi * radius / cellSizeMeters).rounded()))
    self.cellSizeMeters = cellSizeMeters
    rowCount = rows
    let equatorColumns = 2 * Double.pi * radius / cellSizeMeters
    var bands = [Double](repeating: 0, count: Tables.bandStride * rows)
    for row in 0..<rows {
      let middle = -90 + (Double(row) + 0.5) * (180 / Double(rows))
      let isPolar = row == 0 || row == rows - 1
      let columns =
        isPolar ? 1 : max(1, (equatorColumns * HaversineKernel.cosineOfLatitude(middle)).rounded())
      bands[Tables.bandStride * row] = columns / 360
      bands[Tables.bandStride * row + 1] = 360 / columns
    }
    tables = Tables(
      rowsPerDegree: Double(rows) / 180, lastRow: Double(rows - 1),
      rowHeightDegrees: 180 / Double(rows), bands: bands)
  }

  /// Number of columns in band `row`; 0 for a row outside 0..<``rowCount``
  /// (no cell lies there). O(1).
  public func columnCount(row: Int) -> Int {
    guard row >= 0 && row < rowCount else { return 0 }
    return Int(tables.columnCount(row: row))
  }

  /// Total number of cells on the sphere.
  public var cellCount: Int { (0..<rowCount).reduce(0) { $0 + columnCount(row: $1) } }

  /// The value n_r was rounded from for band `row`: 2πR·cos φ_r / s. Tests
  /// check it is never near a rounding tie, which is what makes the column
  /// counts (and so the cell ids) identical on every platform.
  func unroundedColumnCountForTesting(row: Int) -> Double {
    let middle = -90 + (Double(row) + 0.5) * (180 / Double(rowCount))
    return 2 * Double.pi * GreatCircle.earthMeanRadiusMeters / cellSizeMeters
      * HaversineKernel.cosineOfLatitude(middle)
  }

  // MARK: One point

  /// The cell containing a point.
  ///
  /// - Domain: latitude in [-90°, 90°], longitude in [-180°, 180°] (180° is
  ///   the same meridian as −180° and lands in column 0; both poles are a
  ///   single cell whatever the longitude).
  /// - Returns: the cell, or ``GridCell/none`` for NaN or out-of-range input.
  /// - Complexity: O(1). Identical to the batch form.
  public func cell(containing point: Coordinate) -> GridCell {
    let (latitude, longitude) = (point.latitudeDegrees, point.longitudeDegrees)
    guard abs(latitude) <= 90 && abs(longitude) <= 180 else { return .none }
    let row = Int(Self.row(latitude: latitude, rowsPerDegree: tables.rowsPerDegree, lastRow: tables.lastRow))
    let perDegree = tables.bands[Tables.bandStride * row]
    let column = Self.column(
      longitude: longitude, columnsPerDegree: perDegree,
      columnCount: tables.columnCount(columnsPerDegree: perDegree))
    return GridCell(row: row, column: Int(column))
  }

  /// The centre of a cell (the point every position in it snaps to): the
  /// middle of its band and column, except a polar cap's, which is its pole
  /// (±90°, longitude 0°). NaN for ``GridCell/none`` or a cell outside the
  /// grid. Exact to the rounding of one multiply and one add per coordinate.
  /// O(1).
  public func centre(of cell: GridCell) -> Coordinate {
    guard contains(cell) else { return Coordinate(latitudeDegrees: .nan, longitudeDegrees: .nan) }
    return Coordinate(
      latitudeDegrees: Self.centreLatitude(
        row: Double(cell.row), lastRow: tables.lastRow, rowHeightDegrees: rowHeightDegrees),
      longitudeDegrees: (Double(cell.column) + 0.5) * tables.columnWidthDegrees(row: cell.row) - 180)
  }

  /// The edges of a cell (south < north, west < east; a polar cap spans
  /// −180°…180°). NaN edges for ``GridCell/none``. O(1).
  public func bounds(of cell: GridCell) -> CellBounds {
    guard contains(cell) else {
      return CellBounds(southDegrees: .nan, northDegrees: .nan, westDegrees: .nan, eastDegrees: .nan)
    }
    let width = tables.columnWidthDegrees(row: cell.row)
    return CellBounds(
      southDegrees: Double(cell.row) * rowHeightDegrees - 90,
      northDegrees: Double(cell.row + 1) * rowHeightDegrees - 90,
      westDegrees: Double(cell.column) * width - 180,
      eastDegrees: Double(cell.column + 1) * width - 180)
  }

  /// Whether `cell` is a cell of this grid.
  public func contains(_ cell: GridCell) -> Bool {
    !cell.isNone && cell.row < rowCount && cell.column < columnCount(row: cell.row)
  }

  // MARK: Many points

  /// Snaps every point to its cell: writes the cell id and the cell centre.
  ///
  /// Identical, element by element, to ``cell(containing:)`` and
  /// ``centre(of:)``; NaN or out-of-range points get id −1 and a NaN centre.
  /// - Precondition: all five spans have the same count.
  /// - Complexity: O(n), two table lookups per point, no allocation; the
  ///   only compares are the clamps and the polar caps' test.
  public func snap(
    latitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    cellIDs: inout MutableSpan<Int64>,
    centreLatitudesDegrees: inout MutableSpan<Double>,
    centreLongitudesDegrees: inout MutableSpan<Double>
  ) {
    let n = latitudes.count
    precondition(
      longitudes.count == n && cellIDs.count == n && centreLatitudesDegrees.count == n
        && centreLongitudesDegrees.count == n,
      "snap: every span must have the same count")
    guard n > 0 else { return }
    latitudes.withUnsafeBufferPointer { latitudeBuffer in
      longitudes.withUnsafeBufferPointer { longitudeBuffer in
        cellIDs.withUnsafeMutableBufferPointer { idBuffer in
          centreLatitudesDegrees.withUnsafeMutableBufferPointer { centreLatitudeBuffer in
            centreLongitudesDegrees.withUnsafeMutableBufferPointer { centreLongitudeBuffer in
              snapKernel(
                count: n, latitudes: latitudeBuffer.baseAddress!, longitudes: longitudeBuffer.baseAddress!,
                ids: idBuffer.baseAddress!, centreLatitudes: centreLatitudeBuffer.baseAddress!,
                centreLongitudes: centreLongitudeBuffer.baseAddress!)
            }
          }
        }
      }
    }
  }

  /// The snap loop on raw pointers (the caller checked the counts; Span's
  /// per-element bounds checks would keep it scalar).
  ///
  /// Points go through in blocks of 32, in two passes each: the first looks
  /// the band values up into a stack buffer, the second does the
  /// arithmetic and writes the outputs. Split this way the compiler can prove
  /// that the table reads never alias the output writes, and the second pass
  /// vectorises (a single pass measured 1.6× slower).
  func snapKernel(
    count n: Int, latitudes: UnsafePointer<Double>, longitudes: UnsafePointer<Double>,
    ids: UnsafeMutablePointer<Int64>, centreLatitudes: UnsafeMutablePointer<Double>,
    centreLongitudes: UnsafeMutablePointer<Double>
  ) {
    let block = 32
    let rowsPerDegree = tables.rowsPerDegree
    let lastRow = tables.lastRow
    let height = tables.rowHeightDegrees
    tables.bands.withUnsafeBufferPointer { bandTable in
      // 3 × 32 Doubles < 1 KiB: always on the stack, so provably distinct
      // from every other pointer here.
      withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * block) { scratch in
        let bands = bandTable.baseAddress!
        let stride = Tables.bandStride
        let rows = scratch.baseAddress!
        let bandPerDegree = rows + block
        let bandWidth = bandPerDegree + block
        var start = 0
        while start < n {
          let m = min(block, n &- start)
          let la = latitudes + start
          let lo = longitudes + start
          for k in 0..<m {
            let row = Int(Self.row(latitude: la[k], rowsPerDegree: rowsPerDegree, lastRow: lastRow))
            let band = bands + stride &* row
            rows[k] = Double(row)
            bandPerDegree[k] = band[0]
            bandWidth[k] = band[1]
          }
          let outID = ids + start
          let outLatitude = centreLatitudes + start
          let outLongitude = centreLongitudes + start
          for k in 0..<m {
            let row = rows[k]
            let perDegree = bandPerDegree[k]
            let column = Self.column(
              longitude: lo[k], columnsPerDegree: perDegree,
              columnCount: tables.columnCount(columnsPerDegree: perDegree))
            let valid = abs(la[k]) <= 90 && abs(lo[k]) <= 180
            let id = Int64(hearth_int32_from_nonnegative(row)) << 32 | Int64(column)
            outID[k] = valid ? id : -1
            outLatitude[k] =
              valid ? Self.centreLatitude(row: row, lastRow: lastRow, rowHeightDegrees: height) : .nan
            outLongitude[k] = valid ? (Double(column) + 0.5) * bandWidth[k] - 180 : .nan
          }
          start &+= m
        }
      }
    }
  }

  /// ``snapKernel(count:latitudes:longitudes:ids:centreLatitudes:centreLongitudes:)``
  /// without the centres: writes each point's cell id only (−1 for NaN or
  /// out-of-range points), element by element the same id. For callers that
  /// read ids alone (the geofence index's bulk screen): per point one band
  /// value is looked up instead of two and two stores are saved.
  ///
  /// Two passes per block of 32, as in the full kernel (the band lookups into
  /// a stack buffer, then the arithmetic, which vectorises); the row is
  /// recomputed in the second pass rather than carried (a multiply-add is
  /// cheaper than a store and a load).
  /// - Complexity: O(n), one table lookup per point, no allocation.
  func cellIDsKernel(
    count n: Int, latitudes: UnsafePointer<Double>, longitudes: UnsafePointer<Double>,
    ids: UnsafeMutablePointer<Int64>
  ) {
    let block = 32
    let rowsPerDegree = tables.rowsPerDegree
    let lastRow = tables.lastRow
    tables.bands.withUnsafeBufferPointer { bandTable in
      withUnsafeTemporaryAllocation(of: Double.self, capacity: block) { scratch in
        let bands = bandTable.baseAddress!
        let stride = Tables.bandStride
        let bandPerDegree = scratch.baseAddress!
        var start = 0
        while start < n {
          let m = min(block, n &- start)
          let la = latitudes + start
          let lo = longitudes + start
          for k in 0..<m {
            let row = Int(Self.row(latitude: la[k], rowsPerDegree: rowsPerDegree, lastRow: lastRow))
            bandPerDegree[k] = bands[stride &* row]
          }
          let outID = ids + start
          for k in 0..<m {
            let row = Self.row(latitude: la[k], rowsPerDegree: rowsPerDegree, lastRow: lastRow)
            let perDegree = bandPerDegree[k]
            let column = Self.column(
              longitude: lo[k], columnsPerDegree: perDegree,
              columnCount: tables.columnCount(columnsPerDegree: perDegree))
            let valid = abs(la[k]) <= 90 && abs(lo[k]) <= 180
            let id = Int64(row) << 32 | Int64(column)
            outID[k] = valid ? id : -1
          }
          start &+= m
        }
      }
    }
  }

  /// The band of a latitude: ⌊(φ + 90)·rows/180⌋ clamped to [0, rows − 1]
  /// (NaN → 0, so a table lookup with it stays in bounds).
  @inline(__always)
  static func row(latitude: Double, rowsPerDegree: Double, lastRow: Double) -> Int32 {
    let y = (latitude + 90) * rowsPerDegree
    let nonNegative = y >= 0 ? y : 0  // NaN becomes 0
    return hearth_int32_from_nonnegative(nonNegative < lastRow ? nonNegative : lastRow)
  }

  /// The latitude of band `row`'s centres, degrees: the band's middle,
  /// (row + ½)·height − 90, except the polar caps (rows 0 and `lastRow`),
  /// whose centre is the pole itself, −90° and 90° exactly (a cap is a disc
  /// around its pole; its middle latitude would be half a band from it).
  /// The caps are marked the slow path: a cap is one band in tens of
  /// thousands, so two compares that always predict are cheaper than a blend
  /// for every point, which is what the portable release build made of two
  /// plain selects once ``cellIDsKernel(count:latitudes:longitudes:ids:)``
  /// was added beside this kernel (the gate's `Geo/gridSnap750`, 77.9 →
  /// 82.9 instructions a point; with the hint 78.9). The ids do not depend
  /// on it.
  @inline(__always)
  static func centreLatitude(row: Double, lastRow: Double, rowHeightDegrees height: Double) -> Double {
    if _slowPath(row == 0 || row == lastRow) { return row == 0 ? -90 : 90 }
    return (row + 0.5) * height - 90
  }

  /// The column of a longitude in a band of `columnCount` columns:
  /// ⌊(λ + 180)·n/360⌋ clamped to [0, n − 1]. Longitude 180° is first
  /// rewritten as −180° (the same meridian), so it lands in column 0 exactly
  /// as −180° does; the clamp only catches rounding just below 180°.
  @inline(__always)
  static func column(longitude: Double, columnsPerDegree: Double, columnCount: Double) -> Int32 {
    let wrapped = longitude >= 180 ? longitude - 360 : longitude
    let x = (wrapped + 180) * columnsPerDegree
    let nonNegative = x >= 0 ? x : 0  // NaN becomes 0
    let lastColumn = columnCount - 1
    return hearth_int32_from_nonnegative(nonNegative < lastColumn ? nonNegative : lastColumn)
  }

  /// ``snap(latitudesDegrees:longitudesDegrees:cellIDs:centreLatitudesDegrees:centreLongitudesDegrees:)-(Span<Double>,_,_,_,_)``
  /// on arrays; the outputs are resized to the input count if needed (their
  /// storage is reused when the count already matches).
  public func snap(
    latitudesDegrees latitudes: [Double], longitudesDegrees longitudes: [Double],
    cellIDs: inout [Int64], centreLatitudesDegrees: inout [Double],
    centreLongitudesDegrees: inout [Double]
  ) {
    resize(&cellIDs, to: latitudes.count)
    resize(&centreLatitudesDegrees, to: latitudes.count)
    resize(&centreLongitudesDegrees, to: latitudes.count)
    var idSpan = cellIDs.mutableSpan
    var latitudeSpan = centreLatitudesDegrees.mutableSpan
    var longitudeSpan = centreLongitudesDegrees.mutableSpan
    snap(
      latitudesDegrees: latitudes.span, longitudesDegrees: longitudes.span, cellIDs: &idSpan,
      centreLatitudesDegrees: &latitudeSpan, centreLongitudesDegrees: &longitudeSpan)
  }
}
