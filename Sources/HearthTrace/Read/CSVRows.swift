import HearthGeo

/// How the rows of one CSV file become checked rows of a ``RowBlock``: which
/// columns hold the time and each stream's values, in which units, and the
/// checks every value passes (``ReadingBounds``). Sensor Logger, phyphox and
/// column-mapped files are all read through it.
struct CSVRowSpec: Sendable {
  /// A column found by name: the first of `names` in the header (exact
  /// match first, then ignoring case).
  struct Column: Sendable, Hashable {
    var names: [String]
    var required = true

    init(_ names: String..., required: Bool = true) {
      self.names = names
      self.required = required
    }

    init(names: [String], required: Bool = true) {
      self.names = names
      self.required = required
    }
  }

  /// A column-mapped file's clock (``ColumnMapping/Time``), decided.
  struct MappedTime: Sendable, Hashable {
    enum Reading: Sendable, Hashable {
      /// Relative: the column's value × `secondsPerUnit`.
      case relative(Column, secondsPerUnit: Double)
      /// Relative whole nanoseconds (Android's uptime clock).
      case relativeNanoseconds(Column)
      /// No time column: the row k lines after the header's is at k / hertz s.
      case rate(hertz: Double)
      /// Since the epoch: the column's value × `millisecondsPerUnit`.
      case epoch(Column, millisecondsPerUnit: Double)
      /// Whole nanoseconds since the epoch.
      case epochNanoseconds(Column)
      /// ISO 8601 text; one written without an offset is local time in
      /// `zone` (the file is refused at such a row when there is none).
      case iso8601(Column, zone: TimeZoneRule?)
      /// A time of day on `day` (days since 1970-01-01 on the local
      /// calendar), local time in `zone` unless written with an offset.
      case timeOfDay(Column, day: Int, zone: TimeZoneRule?)
    }
    var reading: Reading
    /// Epoch ms of a relative clock's 0 (the mapping's `origin`); nil: the
    /// relative clock is the trace's own.
    var placedMilliseconds: Int64?
    /// The trace's origin, epoch ms: wall-clock rows count seconds from it (0 when nil).
    var originMilliseconds: Int64?
    /// The mapping's name of the format, for rejections.
    var format: String
  }

  /// Where a row's time comes from.
  enum Time: Sendable, Hashable {
    /// A sensor clock: seconds = value × factor.
    case seconds(Column, factor: Double)
    /// Sensor Logger's files: rows carrying both clocks are placed by
    /// `seconds_elapsed` (the monotonic clock, s from the origin; a fix at
    /// origin + that, ms) and their `time` (the wall clock, ns since the
    /// epoch) is compared with it (``ClockComparison``). A file with one of
    /// them is read by it: `seconds_elapsed` alone, or `time` alone (a
    /// sensor's from the origin, a fix's as ms since the epoch, floored).
    case sensorLogger(originMilliseconds: Int64?)
    /// A column-mapped file's clock.
    case mapped(MappedTime)
  }

  /// The columns of a fix. Negative accuracy, speed or heading mean "not
  /// measured"; a zero speed on a loose fix is unmeasured (``SpeedReading``).
  struct FixColumns: Sendable, Hashable {
    var latitude: Column
    var longitude: Column
    var accuracy: Column?
    var speed: Column?
    var heading: Column?
    var altitude: Column?
    /// Unit factors to degrees, m, m/s.
    var latitudeFactor = 1.0, longitudeFactor = 1.0, accuracyFactor = 1.0, speedFactor = 1.0
    var headingFactor = 1.0, altitudeFactor = 1.0
    /// Fix times from sensor seconds: origin + seconds (when the file's
    /// clock is not a wall clock).
    var originMilliseconds: Int64?
  }

  /// The values of one target (parallel to ``RecordingFile/targets``).
  enum Field: Sendable, Hashable {
    /// Three components × factor (sign included), each within `limit`.
    case vector(x: Column, y: Column, z: Column, factor: Double, limit: Double)
    /// Pressure × factor (hPa) and an optional relative altitude × its factor (m).
    case pressure(Column, altitude: Column?, factor: Double, altitudeFactor: Double)
    /// One value × factor; NaN is missing; outside `range` (when given) out of range.
    case scalar(Column, factor: Double, range: ClosedRange<Double>?)
    case fix(FixColumns)
    /// An activity name (iOS's and Android's words).
    case activity(Column)
  }

  var time: Time
  var fields: [Field]
  /// Keys are fix milliseconds (else sensor seconds).
  var keysAreMilliseconds: Bool
}

/// A CSV file read through its ``CSVRowSpec``, block by block.
final class CSVRowSource: RowSource {
  private let reader: CSVRowReader
  private var converter: CSVRowConverter
  private var rejections = FileReport(file: "")
  private let strict: Bool

  /// `clockMedianRows`: how many rows' clock offsets to keep for
  /// ``medianClockOffsetMilliseconds`` (a file read to find an origin).
  init(
    path: String, name: String, spec: CSVRowSpec, columnCount: Int, options: ReadOptions,
    clockMedianRows: Int = 0
  ) throws {
    var resolved: CSVRowConverter?
    let clocks = ClockComparison(
      file: name, toleranceSeconds: options.clockStepToleranceSeconds, medianRows: clockMedianRows)
    reader = try CSVRowReader(
      path: path, displayName: name, options: options, batchRows: 16_384,
      select: { header, _ in
        let (converter, requests) = try CSVRowConverter.resolve(
          spec, header: header, file: name, columnCount: columnCount, clocks: clocks)
        resolved = converter
        return requests
      })
    // `select` ran during the reader's init (or the init threw).
    guard var resolved else { preconditionFailure("the CSV reader did not read the header") }
    resolved.firstDataLine = reader.firstDataLine
    converter = resolved
    rejections = FileReport(file: name)
    strict = options.strict
  }

  var report: FileReport {
    var r = reader.report
    r.rowsKept -= rejections.rowsRejected
    for (reason, n) in rejections.rejectedByReason { r.rejectedByReason[reason, default: 0] += n }
    r.rejections += rejections.rejections
    converter.clocks.record(into: &r)
    return r
  }

  /// The median of (wall − monotonic) over the rows read so far that carry
  /// both clocks (at most `clockMedianRows`): the epoch ms of the monotonic
  /// clock's 0 (``ClockComparison/medianOffsetMilliseconds``).
  var medianClockOffsetMilliseconds: Int64? { converter.clocks.medianOffsetMilliseconds }

  func next() throws -> RowBlock? {
    while let batch = try reader.next() {
      var block = RowBlock(columnCount: converter.columnCount)
      block.reserveCapacity(batch.count)
      try converter.convert(batch, into: &block, report: &rejections, strict: strict)
      if !block.isEmpty { return block }
    }
    return nil
  }
}

/// A ``CSVRowSpec`` resolved against a header: every column as its index
/// in a batch, so converting a row does no lookup.
struct CSVRowConverter {
  /// A column of the spec found in the header.
  struct Slot: Sendable {
    /// Index among the batch's columns of its kind.
    var batchIndex: Int
    var headerIndex: Int
    var name: String
  }

  /// How a row's time is read.
  private enum TimeSource {
    case seconds(Slot, factor: Double)
    case nanosecondsFromOrigin(Slot, originNanoseconds: Int64?)
    case nanosecondsSinceEpoch(Slot, origin: Int64?)
    /// Two clocks: placed by `monotonic` (seconds; a fix at `origin` + it),
    /// `wall` (ns since the epoch) compared with it.
    case twoClocks(monotonic: Slot, wall: Slot, origin: Int64?)
    case wallNumber(Slot, millisecondsPerUnit: Double, origin: Int64?)
    case wallText(Slot, zone: TimeZoneRule?, origin: Int64?)
    case timeOfDay(Slot, dayMilliseconds: Int64, zone: TimeZoneRule?, origin: Int64?)
    /// A relative clock, on the wall clock from `placed` when given.
    case relative(Slot, secondsPerUnit: Double, nanoseconds: Bool, placed: Int64?, origin: Int64?)
    /// No time column: row k after the header at k / hertz s (placed likewise).
    case rate(hertz: Double, placed: Int64?, origin: Int64?)
    case none
  }

  /// A field with its columns resolved.
  private enum Compiled {
    case vector(x: Slot, y: Slot, z: Slot, factor: Double, limit: Double)
    case pressure(Slot, altitude: Slot?, factor: Double, altitudeFactor: Double)
    case scalar(Slot, factor: Double, range: ClosedRange<Double>?)
    case fix(Fix)
    case activity(Slot)

    struct Fix {
      var latitude: Slot, longitude: Slot
      var accuracy: Slot?, speed: Slot?, heading: Slot?, altitude: Slot?
      var spec: CSVRowSpec.FixColumns
    }

    var columnCount: Int {
      switch self {
      case .vector: 3
      case .pressure: 2
      case .scalar, .activity: 1
      case .fix: FixLayout.columnCount
      }
    }
  }

  let file: String
  let columnCount: Int
  let keysAreMilliseconds: Bool
  private var time = TimeSource.none
  private var fields: [Compiled] = []
  /// The mapped time format, named in a bad time's rejection.
  private var timeFormat: String?
  /// The line of the first row after the header (a fixed rate's row 0).
  var firstDataLine = 2
  /// A time-of-day file's first time of day, ms: the anchor of its midnight
  /// crossing (``ColumnMapping/Time``).
  private var firstTimeOfDay: Int64?
  /// The wall clock against the monotonic one, for rows carrying both.
  private(set) var clocks: ClockComparison

  private init(file: String, columnCount: Int, keysAreMilliseconds: Bool, clocks: ClockComparison) {
    self.file = file
    self.columnCount = columnCount
    self.keysAreMilliseconds = keysAreMilliseconds
    self.clocks = clocks
  }

  /// The converter and the column requests for `header`.
  /// - Throws: `TraceError.malformed` naming the first required column that
  ///   is missing (the header shortened); `.unsupported` for a column wanted
  ///   both as text and as a number.
  /// `clocks`: what compares a file's two clocks, when it has them.
  static func resolve(
    _ spec: CSVRowSpec, header: [String], file: String, columnCount: Int, clocks: ClockComparison
  ) throws
    -> (CSVRowConverter, [CSVColumnRequest])
  {
    var converter = CSVRowConverter(
      file: file, columnCount: columnCount, keysAreMilliseconds: spec.keysAreMilliseconds, clocks: clocks)
    var requests: [CSVColumnRequest] = []
    var counts: [CSVColumnRequest.Kind: Int] = [:]
    var byHeader: [Int: (CSVColumnRequest.Kind, Slot)] = [:]
    func find(_ column: CSVRowSpec.Column?, _ kind: CSVColumnRequest.Kind, time: String? = nil) throws
      -> Slot?
    {
      guard let column else { return nil }
      guard let index = try CSVTable.index(of: column.names, in: header, file: file) else {
        if column.required {
          throw TraceError.malformed(
            SourceLocation(file: file, line: 1),
            reason:
              "missing column '\(Excerpt.of(column.names[0], bytes: 80))' (header: \(Excerpt.of(header.joined(separator: ", "))))"
          )
        }
        return nil
      }
      if let (known, slot) = byHeader[index] {
        // One header column may serve several fields, as one kind.
        guard known == kind else {
          throw TraceError.unsupported(
            SourceLocation(
              file: file, line: 1, column: index + 1, columnName: Excerpt.of(header[index], bytes: 80)),
            reason: "column wanted both as text and as a number")
        }
        return slot
      }
      let slot = Slot(
        batchIndex: counts[kind, default: 0], headerIndex: index, name: Excerpt.of(header[index], bytes: 80))
      counts[kind, default: 0] += 1
      byHeader[index] = (kind, slot)
      requests.append(CSVColumnRequest(index: index, kind: kind, timeFormat: time))
      return slot
    }
    switch spec.time {
    case .seconds(let column, let factor):
      if let slot = try find(column, .number, time: "a number of seconds") {
        converter.time = .seconds(slot, factor: factor)
      }
    case .sensorLogger(let origin):
      let monotonic = try find(
        CSVRowSpec.Column("seconds_elapsed", required: false), .number, time: "seconds")
      let wall = try find(
        CSVRowSpec.Column("time", required: false), .integer, time: "whole nanoseconds since the epoch")
      switch (monotonic, wall) {
      case (let monotonic?, let wall?):
        converter.time = .twoClocks(monotonic: monotonic, wall: wall, origin: origin)
      case (let monotonic?, nil):
        converter.time = .seconds(monotonic, factor: 1)
      case (nil, let wall?) where spec.keysAreMilliseconds:
        converter.time = .nanosecondsSinceEpoch(wall, origin: nil)
      case (nil, let wall?):
        let (nanoseconds, overflow) = (origin ?? 0).multipliedReportingOverflow(by: 1_000_000)
        converter.time = .nanosecondsFromOrigin(wall, originNanoseconds: overflow ? nil : nanoseconds)
      case (nil, nil):
        throw TraceError.malformed(
          SourceLocation(file: file, line: 1), reason: "no time column (seconds_elapsed or time)")
      }
    case .mapped(let mapped):
      converter.time = try mappedTime(mapped, find: find)
      converter.timeFormat = mapped.format
    }
    for field in spec.fields {
      switch field {
      case .vector(let x, let y, let z, let factor, let limit):
        guard let xs = try find(x, .number), let ys = try find(y, .number), let zs = try find(z, .number)
        else {
          throw TraceError.malformed(SourceLocation(file: file, line: 1), reason: "a vector needs x, y and z")
        }
        converter.fields.append(.vector(x: xs, y: ys, z: zs, factor: factor, limit: limit))
      case .pressure(let p, let altitude, let factor, let altitudeFactor):
        guard let ps = try find(p, .number) else {
          throw TraceError.malformed(SourceLocation(file: file, line: 1), reason: "no pressure column")
        }
        converter.fields.append(
          .pressure(ps, altitude: try find(altitude, .number), factor: factor, altitudeFactor: altitudeFactor)
        )
      case .scalar(let c, let factor, let range):
        guard let slot = try find(c, .number) else {
          throw TraceError.malformed(SourceLocation(file: file, line: 1), reason: "no column '\(c.names[0])'")
        }
        converter.fields.append(.scalar(slot, factor: factor, range: range))
      case .fix(let f):
        guard let lat = try find(f.latitude, .number), let lon = try find(f.longitude, .number) else {
          throw TraceError.malformed(
            SourceLocation(file: file, line: 1), reason: "no latitude or longitude column")
        }
        converter.fields.append(
          .fix(
            .init(
              latitude: lat, longitude: lon, accuracy: try find(f.accuracy, .number),
              speed: try find(f.speed, .number), heading: try find(f.heading, .number),
              altitude: try find(f.altitude, .number), spec: f)))
      case .activity(let c):
        guard let slot = try find(c, .text) else {
          throw TraceError.malformed(SourceLocation(file: file, line: 1), reason: "no activity column")
        }
        converter.fields.append(.activity(slot))
      }
    }
    precondition(
      converter.fields.reduce(0) { $0 + $1.columnCount } == columnCount, "targets and fields differ")
    return (converter, requests)
  }

  /// A mapped clock's source, its column found as `find` finds columns.
  private static func mappedTime(
    _ mapped: CSVRowSpec.MappedTime,
    find: (CSVRowSpec.Column?, CSVColumnRequest.Kind, String?) throws -> Slot?
  ) throws -> TimeSource {
    let (placed, origin, format) = (mapped.placedMilliseconds, mapped.originMilliseconds, mapped.format)
    func slot(_ column: CSVRowSpec.Column, _ kind: CSVColumnRequest.Kind) throws -> Slot {
      // Mapped columns are required: a missing one has thrown.
      guard let slot = try find(column, kind, format) else {
        throw TraceError.malformed(.init(file: "", line: 1), reason: "no time column")
      }
      return slot
    }
    switch mapped.reading {
    case .relative(let column, let secondsPerUnit):
      return .relative(
        try slot(column, .number), secondsPerUnit: secondsPerUnit, nanoseconds: false, placed: placed,
        origin: origin)
    case .relativeNanoseconds(let column):
      return .relative(
        try slot(column, .integer), secondsPerUnit: 1e-9, nanoseconds: true, placed: placed, origin: origin)
    case .rate(let hertz):
      return .rate(hertz: hertz, placed: placed, origin: origin)
    case .epoch(let column, let millisecondsPerUnit):
      return .wallNumber(try slot(column, .number), millisecondsPerUnit: millisecondsPerUnit, origin: origin)
    case .epochNanoseconds(let column):
      return .nanosecondsSinceEpoch(try slot(column, .integer), origin: origin)
    case .iso8601(let column, let zone):
      return .wallText(try slot(column, .text), zone: zone, origin: origin)
    case .timeOfDay(let column, let day, let zone):
      return .timeOfDay(
        try slot(column, .text), dayMilliseconds: Int64(day) * 86_400_000, zone: zone, origin: origin)
    }
  }

  /// A row's time: its sort key, sensor seconds, and wall-clock ms when the clock is one.
  private struct RowTime {
    var key: Double
    var seconds: Double
    var milliseconds: Int64?
  }

  /// Converts every row of `batch`, appending good ones to `block` and
  /// rejecting bad ones into `report` (which counts only rejections here).
  mutating func convert(_ batch: CSVBatch, into block: inout RowBlock, report: inout FileReport, strict: Bool)
    throws
  {
    for i in 0..<batch.count {
      let line = batch.lines[i]
      func reject(_ reason: RowRejection.Reason, _ slot: Slot?, _ detail: String) throws {
        let rejection = RowRejection(
          location: SourceLocation(
            file: file, line: line, column: slot.map { $0.headerIndex + 1 } ?? 0, columnName: slot?.name),
          reason: reason, detail: detail)
        if strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.reject(rejection)
      }
      guard let rowTime = try rowTime(batch, i, line: line) else {
        let (slot, text) = badTime(batch, i)
        // The value gives way so that the expected format stays whole
        // within a rejection's 64 characters.
        let room = max(8, 62 - (timeFormat?.count ?? 0) - 12)
        let shown = text.count > room ? String(text.prefix(room - 1)) + "…" : text
        try reject(.badTime, slot, timeFormat.map { "'\(shown)': expected \($0)" } ?? text)
        continue
      }
      if let (reason, slot, detail) = problem(batch, i, rowTime) {
        try reject(reason, slot, detail)
        continue
      }
      block.keys.append(rowTime.key)
      block.lines.append(RowBlock.line(line))
      var offset = 0
      for field in fields {
        append(field, batch, i, rowTime, to: &block, at: offset)
        offset += field.columnCount
      }
    }
  }

  @inline(__always)
  private func value(_ batch: CSVBatch, _ slot: Slot?, _ i: Int) -> Double {
    guard let slot else { return .nan }
    return batch.numbers[slot.batchIndex][i]
  }

  private var timeSlot: Slot? {
    switch time {
    case .seconds(let s, _), .nanosecondsFromOrigin(let s, _), .nanosecondsSinceEpoch(let s, _),
      .wallNumber(let s, _, _), .wallText(let s, _, _), .timeOfDay(let s, _, _, _):
      s
    case .twoClocks(let s, _, _), .relative(let s, _, _, _, _): s
    case .rate, .none: nil
    }
  }

  /// The time column that did not read in row `i` and its text: of two
  /// clocks, the wall clock's once the monotonic one reads.
  private func badTime(_ batch: CSVBatch, _ i: Int) -> (Slot?, String) {
    if case .twoClocks(let monotonic, let wall, _) = time {
      let seconds = batch.numbers[monotonic.batchIndex][i]
      if seconds.isFinite && ReadingBounds.isSensorTime(seconds) {
        return (wall, "\(batch.integers[wall.batchIndex][i]) ns: not a time within 1900–2200")
      }
    }
    return (timeSlot, timeText(batch, i))
  }

  private func timeText(_ batch: CSVBatch, _ i: Int) -> String {
    switch time {
    case .seconds(let s, _), .wallNumber(let s, _, _), .twoClocks(let s, _, _):
      "\(batch.numbers[s.batchIndex][i])"
    case .nanosecondsFromOrigin(let s, _), .nanosecondsSinceEpoch(let s, _):
      "\(batch.integers[s.batchIndex][i]) ns"
    case .wallText(let s, _, _), .timeOfDay(let s, _, _, _): batch.texts[s.batchIndex][i]
    case .relative(let s, _, let nanoseconds, _, _):
      nanoseconds ? "\(batch.integers[s.batchIndex][i]) ns" : "\(batch.numbers[s.batchIndex][i])"
    case .rate: "line \(batch.lines[i])"
    case .none: "no time column"
    }
  }

  /// Row `i`'s time, nil when it is missing or outside ``ReadingBounds``.
  /// - Throws: `TraceError.unsupported` at a local time with no zone to read it in.
  private mutating func rowTime(_ batch: CSVBatch, _ i: Int, line: Int) throws -> RowTime? {
    func sensor(_ seconds: Double) -> RowTime? {
      guard seconds.isFinite, ReadingBounds.isSensorTime(seconds) else { return nil }
      return RowTime(key: seconds, seconds: seconds, milliseconds: nil)
    }
    func wall(_ ms: Int64, origin: Int64?) -> RowTime? {
      guard ReadingBounds.fixMilliseconds.contains(ms) else { return nil }
      let (delta, overflow) = ms.subtractingReportingOverflow(origin ?? 0)
      guard !overflow else { return nil }
      let seconds = Double(delta) / 1000
      guard ReadingBounds.isSensorTime(seconds) else { return nil }
      return RowTime(key: keysAreMilliseconds ? Double(ms) : seconds, seconds: seconds, milliseconds: ms)
    }
    switch time {
    case .seconds(let s, let factor):
      return sensor(batch.numbers[s.batchIndex][i] * factor)
    case .nanosecondsFromOrigin(let s, let origin):
      let ns = batch.integers[s.batchIndex][i]
      // An epoch time: within 1900–2200 like any wall-clock time.
      guard let origin, ReadingBounds.fixMilliseconds.contains(floorDivide(ns, 1_000_000)) else { return nil }
      let (delta, overflow) = ns.subtractingReportingOverflow(origin)
      return overflow ? nil : sensor(Double(delta) * 1e-9)
    case .nanosecondsSinceEpoch(let s, let origin):
      return wall(floorDivide(batch.integers[s.batchIndex][i], 1_000_000), origin: origin)
    case .twoClocks(let monotonic, let wall, let origin):
      let seconds = batch.numbers[monotonic.batchIndex][i]
      let ns = batch.integers[wall.batchIndex][i]
      let ms = floorDivide(ns, 1_000_000)
      guard seconds.isFinite, ReadingBounds.isSensorTime(seconds), ReadingBounds.fixMilliseconds.contains(ms)
      else { return nil }
      clocks.add(
        monotonicSeconds: seconds, wallMilliseconds: Double(ms) + Double(ns - ms * 1_000_000) * 1e-6,
        line: line)
      guard keysAreMilliseconds, let origin,
        let placed = ReadingBounds.fixTime(seconds: seconds, from: origin)
      else {
        // A fix with no origin to place it from is rejected by `problem`.
        return RowTime(key: seconds, seconds: seconds, milliseconds: nil)
      }
      return RowTime(key: Double(placed), seconds: seconds, milliseconds: placed)
    case .wallNumber(let s, let scale, let origin):
      return ReadingBounds.fixTime(milliseconds: batch.numbers[s.batchIndex][i] * scale).flatMap {
        wall($0, origin: origin)
      }
    case .wallText(let s, let zone, let origin):
      guard let (local, offset) = ISOTime.parse(Substring(batch.texts[s.batchIndex][i])) else { return nil }
      return try utc(local, offset, zone, s, line).flatMap { wall($0, origin: origin) }
    case .timeOfDay(let s, let day, let zone, let origin):
      guard let (ofDay, offset) = ISOTime.timeOfDay(Substring(batch.texts[s.batchIndex][i])) else {
        return nil
      }
      // A recording may cross midnight once: a time of day more than 12 h
      // before the file's first is on the next day.
      let anchor = firstTimeOfDay ?? ofDay
      firstTimeOfDay = anchor
      let local = day + ofDay + (ofDay < anchor - 43_200_000 ? 86_400_000 : 0)
      return try utc(local, offset, zone, s, line).flatMap { wall($0, origin: origin) }
    case .relative(let s, let secondsPerUnit, let nanoseconds, let placed, let origin):
      let relative: Double
      if nanoseconds {
        // Whole seconds and the rest apart, both with the time's sign (no
        // cancellation below 0): exact to the nanosecond for any Int64,
        // Int64.min included (no product that could overflow).
        let (whole, rest) = batch.integers[s.batchIndex][i].quotientAndRemainder(dividingBy: 1_000_000_000)
        relative = Double(whole) + Double(rest) * 1e-9
      } else {
        relative = batch.numbers[s.batchIndex][i] * secondsPerUnit
      }
      guard let placed else { return sensor(relative) }
      return self.placed(relative, at: placed, origin: origin)
    case .rate(let hertz, let placed, let origin):
      // Divided, not multiplied by 1 / rate: row 3 at 50 Hz is 0.06 s, not 0.060000000000000005.
      let relative = Double(batch.lines[i] - firstDataLine) / hertz
      guard let placed else { return sensor(relative) }
      return self.placed(relative, at: placed, origin: origin)
    case .none:
      return nil
    }
  }

  /// A local reading (ms on the local clock) as epoch ms: by its own offset
  /// when written with one, else in `zone`; nil in a zone's skipped hour.
  /// - Throws: `TraceError.unsupported` when there is neither.
  private func utc(_ local: Int64, _ offsetMinutes: Int?, _ zone: TimeZoneRule?, _ slot: Slot, _ line: Int)
    throws
    -> Int64?
  {
    if let offsetMinutes { return local - Int64(offsetMinutes) * 60_000 }
    guard let zone else {
      throw TraceError.unsupported(
        SourceLocation(file: file, line: line, column: slot.headerIndex + 1, columnName: slot.name),
        reason:
          "a local time with no zone: name one (the mapping's time \"timezone\", or --timezone ZONE / ReadOptions.timeZone)"
      )
    }
    return zone.utcMilliseconds(local: local)
  }

  /// A relative time on the wall clock: `placed` (epoch ms of its 0) + `relative` s.
  private func placed(_ relative: Double, at placed: Int64, origin: Int64?) -> RowTime? {
    let (delta, overflow) = placed.subtractingReportingOverflow(origin ?? 0)
    guard !overflow, let ms = ReadingBounds.fixTime(seconds: relative, from: placed) else { return nil }
    let seconds = Double(delta) / 1000 + relative
    guard ReadingBounds.isSensorTime(seconds) else { return nil }
    return RowTime(key: keysAreMilliseconds ? Double(ms) : seconds, seconds: seconds, milliseconds: ms)
  }

  /// Why row `i` cannot be kept: reason, the column, the offending values.
  private func problem(_ batch: CSVBatch, _ i: Int, _ time: RowTime) -> (RowRejection.Reason, Slot?, String)?
  {
    for field in fields {
      switch field {
      case .vector(let xs, let ys, let zs, let factor, let limit):
        let (x, y, z) = (
          value(batch, xs, i) * factor, value(batch, ys, i) * factor, value(batch, zs, i) * factor
        )
        if let reason = ReadingBounds.vectorProblem(x, y, z, limit: limit) {
          return (reason, xs, "x \(x), y \(y), z \(z)")
        }
      case .pressure(let ps, let altitude, let factor, let altitudeFactor):
        let p = value(batch, ps, i) * factor
        let a = value(batch, altitude, i) * altitudeFactor
        if let reason = ReadingBounds.pressureProblem(p, altitude: a) {
          return (reason, ps, "pressure \(p) hPa, relative altitude \(a) m")
        }
      case .scalar(let s, let factor, let range):
        let v = value(batch, s, i) * factor
        if v.isInfinite || (range.map { !v.isNaN && !$0.contains(v) } ?? false) {
          return (.outOfRange, s, "\(v)")
        }
      case .fix(let f):
        guard let fix = fixFields(batch, i, f, time) else {
          return (.badTime, timeSlot, "\(time.seconds) s from the origin: no fix time within 1900–2200")
        }
        if let (reason, field, value) = fix.problem() {
          // Labelled with the offending field's own column (the position's: latitude).
          let slot: Slot? =
            switch field {
            case .position: f.latitude
            case .accuracy: f.accuracy
            case .speed: f.speed
            case .heading: f.heading
            case .altitude: f.altitude
            }
          return (reason, slot ?? f.latitude, value)
        }
      case .activity: break
      }
    }
    return nil
  }

  private func fixFields(_ batch: CSVBatch, _ i: Int, _ f: Compiled.Fix, _ time: RowTime) -> FixFields? {
    let ms: Int64
    if let wall = time.milliseconds {
      ms = wall
    } else {
      guard let origin = f.spec.originMilliseconds,
        let sum = ReadingBounds.fixTime(seconds: time.seconds, from: origin)
      else { return nil }
      ms = sum
    }
    let s = f.spec
    return FixFields(
      milliseconds: ms, latitude: value(batch, f.latitude, i) * s.latitudeFactor,
      longitude: value(batch, f.longitude, i) * s.longitudeFactor,
      accuracy: value(batch, f.accuracy, i) * s.accuracyFactor,
      speed: value(batch, f.speed, i) * s.speedFactor,
      heading: value(batch, f.heading, i) * s.headingFactor,
      altitude: value(batch, f.altitude, i) * s.altitudeFactor)
  }

  private func append(
    _ field: Compiled, _ batch: CSVBatch, _ i: Int, _ time: RowTime, to block: inout RowBlock, at offset: Int
  ) {
    switch field {
    case .vector(let xs, let ys, let zs, let factor, _):
      block.columns[offset].append(value(batch, xs, i) * factor)
      block.columns[offset + 1].append(value(batch, ys, i) * factor)
      block.columns[offset + 2].append(value(batch, zs, i) * factor)
    case .pressure(let ps, let altitude, let factor, let altitudeFactor):
      block.columns[offset].append(value(batch, ps, i) * factor)
      block.columns[offset + 1].append(value(batch, altitude, i) * altitudeFactor)
    case .scalar(let s, let factor, _):
      block.columns[offset].append(value(batch, s, i) * factor)
    case .fix(let f):
      // `problem` made sure the fix exists.
      let fix = fixFields(batch, i, f, time) ?? FixFields(milliseconds: 0, latitude: .nan, longitude: .nan)
      let speed =
        SpeedReading.speedMetersPerSecond(raw: fix.speed, horizontalAccuracyMeters: fix.measuredAccuracy)
        ?? .nan
      FixLayout.append(fix, speedMetersPerSecond: speed, to: &block, at: offset)
    case .activity(let s):
      block.columns[offset].append(
        Double(SensorLoggerReader.activity(named: batch.texts[s.batchIndex][i]).rawValue))
    }
  }
}
