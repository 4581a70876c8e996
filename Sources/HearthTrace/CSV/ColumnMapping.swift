import Foundation
import HearthGeo

/// Reads CSV files of any layout into a trace, by a mapping that says which
/// column holds which field in which unit. Mappings are JSON (see
/// datasets/mappings/ for the shipped ones and docs/guides/trace-formats.md):
///
/// ```json
/// { "name": "…",
///   "files": [
///     { "file": "gps.csv",
///       "time": { "column": "time", "format": "iso8601" },
///       "fixes": { "latitude":  { "column": "latitude",  "unit": "deg" },
///                  "longitude": { "column": "longitude", "unit": "deg" },
///                  "speed":     { "column": "speed",     "unit": "m/s" } } },
///     { "file": "imu.csv",
///       "time": { "column": "time", "format": "iso8601" },
///       "accelerometer": { "x": { "column": "a_x", "unit": "m/s^2" }, "…": "…",
///                          "content": "includesGravity" } } ],
///   "clock": { "file": "gnss.csv", "epoch": { "column": "utc_ms", "format": "epoch-milliseconds" },
///              "relative": { "column": "t_boot_s", "format": "relative-seconds" } } }
/// ```
/// Time formats: `iso8601`, `time-of-day` (with a `date`),
/// `epoch-seconds`, `epoch-milliseconds`, `epoch-nanoseconds` (wall-clock
/// times), and `relative-seconds`, `relative-milliseconds`,
/// `relative-nanoseconds` (sensor clocks; fixes need a `clock` or an
/// `origin` to place them on the wall clock); no column but `rate_hz` (or
/// ``ReadOptions/rateHertz``) for a fixed-rate file. Local times (ISO 8601
/// without an offset, times of day) are read in the time's `timezone`, else
/// ``ReadOptions/timeZone``; without either the file is refused. See
/// ``Time``. Targets: `fixes` (latitude, longitude,
/// horizontalAccuracy, speed, heading, altitude), `accelerometer`, `gravity`,
/// `gyroscope` (x, y, z), `barometer` (pressure, relativeAltitude) and
/// `scalars` (name → column). Units per ``Quantity``.
public struct ColumnMapping: Sendable, Hashable, Codable {
  public struct Column: Sendable, Hashable, Codable {
    public var column: String
    /// The values' unit (through ``Quantity``); required for every quantity
    /// unless the mapping's ``ColumnMapping/units`` is "SI".
    public var unit: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case column, unit }
  }
  /// Where a file's times come from.
  ///
  /// ```json
  /// { "column": "t", "format": "relative-nanoseconds", "origin": "2024-05-01T10:00:00+02:00" }
  /// { "column": "clock", "format": "time-of-day", "date": "2024-05-01", "timezone": "Europe/Berlin" }
  /// { "rate_hz": 100, "origin": "2024-05-01T08:00:00Z" }
  /// ```
  public struct Time: Sendable, Hashable, Codable {
    /// The time column; nil for a fixed-rate file.
    public var column: String?
    /// The column's format (required with a column; none without).
    public var format: String?
    /// `time-of-day` only: the date of the file's first row, `YYYY-MM-DD`
    /// on the local calendar. A time of day more than 12 h before the
    /// file's first is on the next day (a recording crossing midnight once).
    public var date: String?
    /// `iso8601` and `time-of-day` only: the zone of times written without
    /// an offset, an IANA name or a fixed offset (``TimeZoneRule``); it
    /// wins over ``ReadOptions/timeZone``.
    public var timezone: String?
    /// No column: the file's sample rate, Hz; the row k lines after the
    /// header is at k / rate s (a blank or broken line is a missed sample).
    /// Wins over ``ReadOptions/rateHertz``.
    public var rateHertz: Double?
    /// A relative clock (relative formats, a fixed rate) only: the wall-clock
    /// time of its 0, ISO 8601 with an offset. The file is then on the wall
    /// clock, as an epoch column would put it.
    public var origin: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case column, format, date, timezone, origin
      case rateHertz = "rate_hz"
    }

    public init(
      column: String?, format: String?, date: String? = nil, timezone: String? = nil,
      rateHertz: Double? = nil,
      origin: String? = nil
    ) {
      self.column = column
      self.format = format
      self.date = date
      self.timezone = timezone
      self.rateHertz = rateHertz
      self.origin = origin
    }
  }
  public struct Vector: Sendable, Hashable, Codable {
    public var x: Column
    public var y: Column
    public var z: Column
    public var content: AccelerationContent?

    enum CodingKeys: String, CodingKey, CaseIterable { case x, y, z, content }
  }
  public struct Fixes: Sendable, Hashable, Codable {
    public var latitude: Column
    public var longitude: Column
    public var horizontalAccuracy: Column?
    public var speed: Column?
    public var heading: Column?
    public var altitude: Column?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case latitude, longitude, horizontalAccuracy, speed, heading, altitude
    }
  }
  public struct Barometer: Sendable, Hashable, Codable {
    public var pressure: Column
    public var relativeAltitude: Column?

    enum CodingKeys: String, CodingKey, CaseIterable { case pressure, relativeAltitude }
  }
  public struct File: Sendable, Hashable, Codable {
    public var file: String
    public var time: Time
    public var fixes: Fixes?
    public var accelerometer: Vector?
    public var gravity: Vector?
    public var gyroscope: Vector?
    public var barometer: Barometer?
    public var scalars: [String: Column]?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case file, time, fixes, accelerometer, gravity, gyroscope, barometer, scalars
    }
  }
  public struct Clock: Sendable, Hashable, Codable {
    public var file: String
    public var epoch: Time
    public var relative: Time

    enum CodingKeys: String, CodingKey, CaseIterable { case file, epoch, relative }
  }

  public var name: String
  public var files: [File]
  public var clock: Clock?
  /// "SI": a quantity mapped with no `unit` is in the unit the trace stores
  /// it in (``Quantity/storedUnit``: m/s², rad/s, hPa, m/s, m, degrees).
  /// Without it every quantity names its unit: a missing one is an error,
  /// never a silent guess (36 km/h read as 36 m/s).
  public var units: String?

  enum CodingKeys: String, CodingKey, CaseIterable { case name, files, clock, units }

  /// The only value of ``units``.
  public static let siUnits = "SI"

  /// Largest mapping file read, bytes.
  static let maximumFileBytes = 1 << 20

  /// Loads a mapping from a JSON file.
  /// - Throws: `TraceError.io` (missing, not a regular file, over 1 MiB);
  ///   `.malformed` naming where and why: an unknown key (with the known
  ///   key nearest it), a quantity with no unit (without `"units": "SI"`), a
  ///   missing or mistyped field.
  public static func load(path: String) throws -> ColumnMapping {
    let bytes = try RegularFile.read(path, limit: maximumFileBytes)
    if let problem = JSONKeys.problem(in: bytes) {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 0), reason: "not a column mapping: \(problem)")
    }
    do {
      return try JSONDecoder().decode(ColumnMapping.self, from: Data(bytes))
    } catch let error as DecodingError {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 0),
        reason: "not a column mapping: \(Excerpt.of(JSONKeys.describe(error), bytes: 400))")
    } catch {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 0),
        reason: "not a column mapping: \(Excerpt.of("\(error)", bytes: 300))")
    }
  }

  /// Reads the mapped files from `folder` into one trace.
  ///
  /// - Throws: `TraceError.unsupported` for an unknown unit or time format
  ///   (naming the mapping field), a file outside `folder` (an absolute name
  ///   or `..`), or a stream mapped by two files; the CSV errors of each
  ///   file. A file that is missing or broken sinks the import: a mapping
  ///   names exactly what it expects.
  public func read(folder: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport) {
    try recording(folder: folder, options: options).readWhole()
  }

  /// The mapping over `folder` as a ``Recording``: the clock read, the
  /// origin found, every file's columns, units and streams decided.
  ///
  /// Time origin: the clock's boot time (the median of epoch − relative over
  /// the clock file's first 100 000 usable rows), else the earliest valid
  /// wall-clock time of a row any mapped file keeps in time order (a row
  /// rejected as too far out of order, or as a lone jump ahead, sets none;
  /// one rejected later for its values does: only the time column is read
  /// for the origin, review27 R7). With a clock, its file is placed
  /// on the relative clock even where its time names the epoch column, and
  /// a step of the epoch column is in the clock file's report (SPEC §9).
  func recording(folder: String, options: ReadOptions) throws -> Recording {
    try checkUnits()
    var recording = Recording(
      metadata: TraceMetadata(format: "csv-mapping:\(Excerpt.of(name, bytes: 120))"), files: [],
      options: options)
    recording.failuresAreFatal = true
    var origin: Int64?
    var relativeClockKnown = false
    if let clock {
      let (offset, report) = try Self.bootOffset(clock, folder: folder, options: options)
      recording.plannedReports.append(report)
      origin = offset
      relativeClockKnown = offset != nil
    }
    if origin == nil {
      for file in files where Self.isWallClock(file.time) {
        let plan = try self.plan(
          file, folder: folder, origin: nil, relativeClockKnown: false, options: options, timeOnly: true)
        if let earliest = try plan.survey().earliestKey.flatMap({ Int64(exactly: $0) }) {
          origin = min(origin ?? earliest, earliest)
        }
      }
    }
    recording.metadata.timeOriginMilliseconds = origin
    var mapped: [String: String] = [:]  // stream → file
    for file in files {
      for (part, name) in file.parts {
        let plan = try self.plan(
          part, folder: folder, origin: origin, relativeClockKnown: relativeClockKnown, options: options,
          name: name)
        for target in plan.targets {
          let stream = target.name
          if let earlier = mapped.updateValue(file.file, forKey: stream) {
            throw TraceError.unsupported(
              SourceLocation(file: Excerpt.of(file.file, bytes: 120), line: 0),
              reason: "\(stream) is mapped by both \(Excerpt.of(earlier, bytes: 120)) and this file")
          }
        }
        recording.files.append(plan)
      }
      recording.metadata.sourceFiles.append(file.file)
    }
    return recording
  }

  /// Whether `time` reads on the wall clock: a wall-clock format, or a
  /// relative clock placed by an `origin`.
  static func isWallClock(_ time: Time) -> Bool {
    time.origin != nil || (time.column != nil && !(time.format ?? "").hasPrefix("relative-"))
  }

  /// The path of mapped file `name` in `folder`.
  /// - Throws: `TraceError.unsupported` when `name` would leave the folder.
  static func path(of name: String, in folder: String) throws -> String {
    guard let path = FolderListing.child(name, of: folder) else {
      throw TraceError.unsupported(
        SourceLocation(file: Excerpt.of(name, bytes: 120), line: 0),
        reason: "a mapping names files inside its folder only (no absolute path, no '..')")
    }
    return path
  }

  /// How `time` reads: a wall clock or a relative one.
  /// - Throws: `TraceError.unsupported` naming the file and column for an
  ///   unknown format, a field the format does not take, a zone, date,
  ///   origin or rate that does not read, a fixed-rate file with no rate.
  static func timeSpec(_ time: Time, origin: Int64?, file: String, options: ReadOptions) throws
    -> CSVRowSpec.Time
  {
    let format = time.format ?? ""
    func refuse(_ reason: String) -> TraceError {
      TraceError.unsupported(
        SourceLocation(
          file: Excerpt.of(file, bytes: 120), line: 1,
          columnName: time.column.map { Excerpt.of($0, bytes: 80) }),
        reason: reason)
    }
    let local = format == "iso8601" || format == "time-of-day"
    if time.timezone != nil && !local { throw refuse("\"timezone\" is for iso8601 and time-of-day times") }
    if time.date != nil && format != "time-of-day" { throw refuse("\"date\" is for time-of-day times") }
    let relative = time.column == nil || format.hasPrefix("relative-")
    if time.origin != nil && !relative {
      throw refuse("\"origin\" places a relative clock; this one is the wall clock")
    }
    var zone = options.timeZone
    if let name = time.timezone {
      guard let named = TimeZoneRule(name) else {
        throw refuse(
          "timezone '\(Excerpt.of(name, bytes: 40))' is neither an IANA zone nor an offset such as +02:00")
      }
      zone = named
    }
    var placed: Int64?
    if let text = time.origin {
      guard let (ms, offset) = ISOTime.parse(Substring(text)), let offset else {
        throw refuse(
          "origin '\(Excerpt.of(text, bytes: 40))' is not an ISO 8601 time with an offset (2024-05-01T10:00:00+02:00)"
        )
      }
      let utc = ms - Int64(offset) * 60_000
      guard ReadingBounds.fixMilliseconds.contains(utc) else { throw refuse("origin outside 1900–2200") }
      placed = utc
    }
    let reading: CSVRowSpec.MappedTime.Reading
    guard let name = time.column else {
      guard time.format == nil else {
        throw refuse("a time format needs a \"column\" (a fixed-rate file has \"rate_hz\")")
      }
      guard let hertz = time.rateHertz ?? options.rateHertz else {
        throw refuse(
          "no time column: give the time a \"column\", or a \"rate_hz\" (or --rate HZ) for a fixed-rate file")
      }
      guard hertz.isFinite, hertz > 0, hertz <= maximumRateHertz else {
        throw refuse("rate \(hertz) Hz: a fixed rate is above 0 and at most \(Int(maximumRateHertz)) Hz")
      }
      return .mapped(
        .init(
          reading: .rate(hertz: hertz), placedMilliseconds: placed, originMilliseconds: origin,
          format: "rows at \(hertz) Hz"))
    }
    guard time.rateHertz == nil else { throw refuse("a time has a \"column\" or a \"rate_hz\", not both") }
    let column = CSVRowSpec.Column(name)
    switch format {
    case "relative-seconds": reading = .relative(column, secondsPerUnit: 1)
    case "relative-milliseconds": reading = .relative(column, secondsPerUnit: 1e-3)
    case "relative-nanoseconds": reading = .relativeNanoseconds(column)
    case "epoch-seconds": reading = .epoch(column, millisecondsPerUnit: 1000)
    case "epoch-milliseconds": reading = .epoch(column, millisecondsPerUnit: 1)
    case "epoch-nanoseconds": reading = .epochNanoseconds(column)
    case "iso8601": reading = .iso8601(column, zone: zone)
    case "time-of-day":
      guard let date = time.date, let day = ISOTime.days(date: Substring(date)) else {
        throw refuse("a time-of-day time needs a \"date\" (YYYY-MM-DD) of the file's first row")
      }
      reading = .timeOfDay(column, day: day, zone: zone)
    default: throw refuse("time format '\(Excerpt.of(format, bytes: 40))'")
    }
    // The format as a rejection names it, with the shape a time of day
    // takes (a logger's "10:00:00:1234" shows what differs).
    let words =
      (format == "time-of-day" ? "time-of-day hh:mm:ss[.fff]" : format)
      + (local && zone != nil ? " in \(zone?.name ?? "")" : "")
    return .mapped(
      .init(reading: reading, placedMilliseconds: placed, originMilliseconds: origin, format: words))
  }

  /// The fastest fixed rate accepted, Hz (well above any phone sensor's).
  public static let maximumRateHertz = 1_000_000.0

  /// The clock's boot time in epoch ms, and its file's report, which holds
  /// every step of the epoch column against the relative one
  /// (``FileReport/clockSteps``).
  static func bootOffset(_ clock: Clock, folder: String, options: ReadOptions) throws -> (Int64?, FileReport)
  {
    let path = try path(of: clock.file, in: folder)
    guard isWallClock(clock.epoch), !isWallClock(clock.relative), let relativeColumn = clock.relative.column
    else {
      throw TraceError.unsupported(
        SourceLocation(file: Excerpt.of(clock.file, bytes: 120), line: 1),
        reason: "a clock pairs a wall-clock column with a relative one")
    }
    // Epoch ms as keys, the relative time (in seconds) as a scalar value.
    let relativeFactor: Double =
      switch clock.relative.format {
      case "relative-milliseconds": 1e-3
      case "relative-nanoseconds": 1e-9
      default: 1
      }
    let spec = CSVRowSpec(
      time: try timeSpec(clock.epoch, origin: 0, file: clock.file, options: options),
      fields: [.scalar(.init(relativeColumn), factor: relativeFactor, range: nil)], keysAreMilliseconds: true)
    let source = try CSVRowSource(path: path, name: clock.file, spec: spec, columnCount: 1, options: options)
    var clocks = ClockComparison(
      file: clock.file, toleranceSeconds: options.clockStepToleranceSeconds, medianRows: 100_000)
    while let block = try source.next() {
      for i in 0..<block.count {
        let relative = block.columns[0][i]
        if relative.isFinite && ReadingBounds.isSensorTime(relative) {
          clocks.add(monotonicSeconds: relative, wallMilliseconds: block.keys[i], line: Int(block.lines[i]))
        }
      }
    }
    var report = source.report
    clocks.record(into: &report)
    report.settle()
    return (clocks.medianOffsetMilliseconds, report)
  }

  /// One mapped file's plan. `timeOnly`: no streams, keys in ms (to find the origin).
  /// `name`: the file's name in its report and errors (the file's own by default).
  func plan(
    _ file: File, folder: String, origin: Int64?, relativeClockKnown: Bool, options: ReadOptions,
    timeOnly: Bool = false, name: String? = nil
  ) throws -> RecordingFile {
    let path = try Self.path(of: file.file, in: folder)
    let name = name ?? file.file
    // The clock's own file carries the relative clock on every row: it is
    // placed on it, whatever wall-clock column the file's time names (SPEC §9).
    var time = file.time
    if relativeClockKnown, let clock, clock.file == file.file, Self.isWallClock(file.time) {
      time = clock.relative
    }
    func factor(_ column: Column?, _ quantity: Quantity) throws -> Double {
      guard let unit = column?.unit else { return 1 }
      guard let factor = quantity.factor(from: unit) else {
        throw TraceError.unsupported(
          SourceLocation(
            file: Excerpt.of(name, bytes: 120), line: 1,
            columnName: Excerpt.of(column?.column ?? "", bytes: 80)),
          reason: "unit '\(Excerpt.of(unit, bytes: 40))' is not a unit of \(quantity.rawValue)")
      }
      return factor
    }
    func spec(_ column: Column) -> CSVRowSpec.Column { CSVRowSpec.Column(column.column) }
    var targets: [StreamTarget] = []
    var fields: [CSVRowSpec.Field] = []
    var checks: [(Int, GravityCheck.Kind)] = []
    var units: [String] = []
    func vector(_ v: Vector?, _ target: StreamTarget, _ quantity: Quantity, check: GravityCheck.Kind?) throws
    {
      guard let v, !timeOnly else { return }
      let fx = try factor(v.x, quantity)
      guard try factor(v.y, quantity) == fx, try factor(v.z, quantity) == fx else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(name, bytes: 120), line: 1),
          reason: "x, y and z of one stream in different units")
      }
      if let check { checks.append((targets.count, check)) }
      targets.append(target)
      fields.append(
        .vector(
          x: spec(v.x), y: spec(v.y), z: spec(v.z), factor: fx, limit: ReadingBounds.axisLimit(quantity)))
      if let unit = v.x.unit {
        units.append("\(target.name): \(unit)" + (fx == 1 ? "" : " × \(fx) → \(quantity.storedUnit)"))
      }
    }
    let wallClock = Self.isWallClock(time)
    let content = file.accelerometer?.content ?? .includesGravity
    try vector(
      file.accelerometer, .accelerometer(content), .acceleration,
      check: content == .includesGravity ? .totalAcceleration : nil)
    try vector(file.gravity, .gravity, .acceleration, check: .gravityEstimate)
    try vector(file.gyroscope, .gyroscope, .angularRate, check: nil)
    if let b = file.barometer, !timeOnly {
      targets.append(.barometer)
      fields.append(
        .pressure(
          spec(b.pressure), altitude: b.relativeAltitude.map(spec), factor: try factor(b.pressure, .pressure),
          altitudeFactor: try factor(b.relativeAltitude, .length)))
    }
    for (scalarName, column) in (file.scalars ?? [:]).sorted(by: { $0.key < $1.key }) where !timeOnly {
      // A unit of no quantity is kept as given, unconverted.
      let unit = column.unit ?? ""
      let quantity = Quantity.allCases.first { $0.factor(from: unit) != nil }
      targets.append(.scalar(name: scalarName, unit: quantity?.storedUnit ?? unit))
      fields.append(.scalar(spec(column), factor: quantity?.factor(from: unit) ?? 1, range: nil))
    }
    if let f = file.fixes, !timeOnly {
      guard wallClock || relativeClockKnown else {
        throw TraceError.unsupported(
          SourceLocation(file: Excerpt.of(name, bytes: 120), line: 1),
          reason: "fixes on a relative clock need a \"clock\" in the mapping or an \"origin\" in the time")
      }
      targets.append(.fixes(provider: nil))
      fields.append(
        .fix(
          .init(
            latitude: spec(f.latitude), longitude: spec(f.longitude),
            accuracy: f.horizontalAccuracy.map(spec),
            speed: f.speed.map(spec), heading: f.heading.map(spec), altitude: f.altitude.map(spec),
            latitudeFactor: try factor(f.latitude, .angle), longitudeFactor: try factor(f.longitude, .angle),
            accuracyFactor: try factor(f.horizontalAccuracy, .length),
            speedFactor: try factor(f.speed, .speed),
            headingFactor: try factor(f.heading, .angle), altitudeFactor: try factor(f.altitude, .length),
            originMilliseconds: origin)))
    }
    let fixOnly = timeOnly || (targets == [.fixes(provider: nil)] && wallClock)
    let rowSpec = CSVRowSpec(
      time: try Self.timeSpec(time, origin: origin, file: name, options: options), fields: fields,
      keysAreMilliseconds: fixOnly)
    let columnCount = targets.reduce(0) { $0 + $1.columnCount }
    return RecordingFile(
      name: name, targets: targets,
      rule: targets == [.fixes(provider: nil)] ? .sameKeyOrSameFix : .sameKeyAndValues,
      keysAreMilliseconds: fixOnly, gravityChecks: checks,
      units: units.isEmpty ? nil : units.joined(separator: "; "),
      open: {
        try CSVRowSource(path: path, name: name, spec: rowSpec, columnCount: columnCount, options: options)
      })
  }
}

// Every object of a mapping is read strictly: an unknown key is an error
// naming it and the nearest known key (a typo such as "unti" would
// otherwise be dropped and its meaning lost).

extension ColumnMapping {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    name = try c.decode(String.self, forKey: .name)
    files = try c.decode([File].self, forKey: .files)
    clock = try c.decodeIfPresent(Clock.self, forKey: .clock)
    units = try c.decodeIfPresent(String.self, forKey: .units)
    if let units, units != Self.siUnits {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [CodingKeys.units],
          debugDescription:
            "'\(Excerpt.of(units, bytes: 40))': the only value is \"\(Self.siUnits)\" (quantities with no unit are in the units the trace stores)"
        ))
    }
  }

  /// Refuses a quantity mapped with no unit unless ``units`` is "SI": a
  /// value in km/h or g must never be read as m/s or m/s² by default.
  /// - Throws: `TraceError.unsupported` naming the file, the column and the field.
  func checkUnits() throws {
    guard units != Self.siUnits else { return }
    for file in files {
      for (field, column, quantity) in file.columns where column.unit == nil {
        guard let quantity else { continue }  // a scalar may have no unit
        throw TraceError.unsupported(
          SourceLocation(
            file: Excerpt.of(file.file, bytes: 120), line: 1, columnName: Excerpt.of(column.column, bytes: 80)
          ),
          reason:
            "\(field) has no \"unit\": give its unit (\(quantity.storedUnit) or another unit of \(quantity.rawValue)), or \"units\": \"\(Self.siUnits)\" at the top of the mapping to read every quantity without one in SI"
        )
      }
    }
  }
}

extension ColumnMapping.Column {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    column = try c.decode(String.self, forKey: .column)
    unit = try c.decodeIfPresent(String.self, forKey: .unit)
  }
}

extension ColumnMapping.Time {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    self.init(
      column: try c.decodeIfPresent(String.self, forKey: .column),
      format: try c.decodeIfPresent(String.self, forKey: .format),
      date: try c.decodeIfPresent(String.self, forKey: .date),
      timezone: try c.decodeIfPresent(String.self, forKey: .timezone),
      rateHertz: try c.decodeIfPresent(Double.self, forKey: .rateHertz),
      origin: try c.decodeIfPresent(String.self, forKey: .origin))
  }
}

extension ColumnMapping.Vector {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    x = try c.decode(ColumnMapping.Column.self, forKey: .x)
    y = try c.decode(ColumnMapping.Column.self, forKey: .y)
    z = try c.decode(ColumnMapping.Column.self, forKey: .z)
    content = try c.decodeIfPresent(AccelerationContent.self, forKey: .content)
  }
}

extension ColumnMapping.Fixes {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    latitude = try c.decode(ColumnMapping.Column.self, forKey: .latitude)
    longitude = try c.decode(ColumnMapping.Column.self, forKey: .longitude)
    horizontalAccuracy = try c.decodeIfPresent(ColumnMapping.Column.self, forKey: .horizontalAccuracy)
    speed = try c.decodeIfPresent(ColumnMapping.Column.self, forKey: .speed)
    heading = try c.decodeIfPresent(ColumnMapping.Column.self, forKey: .heading)
    altitude = try c.decodeIfPresent(ColumnMapping.Column.self, forKey: .altitude)
  }
}

extension ColumnMapping.Barometer {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    pressure = try c.decode(ColumnMapping.Column.self, forKey: .pressure)
    relativeAltitude = try c.decodeIfPresent(ColumnMapping.Column.self, forKey: .relativeAltitude)
  }
}

extension ColumnMapping.File {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    file = try c.decode(String.self, forKey: .file)
    time = try c.decode(ColumnMapping.Time.self, forKey: .time)
    fixes = try c.decodeIfPresent(ColumnMapping.Fixes.self, forKey: .fixes)
    accelerometer = try c.decodeIfPresent(ColumnMapping.Vector.self, forKey: .accelerometer)
    gravity = try c.decodeIfPresent(ColumnMapping.Vector.self, forKey: .gravity)
    gyroscope = try c.decodeIfPresent(ColumnMapping.Vector.self, forKey: .gyroscope)
    barometer = try c.decodeIfPresent(ColumnMapping.Barometer.self, forKey: .barometer)
    scalars = try c.decodeIfPresent([String: ColumnMapping.Column].self, forKey: .scalars)
  }
}

extension ColumnMapping.Clock {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
    file = try c.decode(String.self, forKey: .file)
    epoch = try c.decode(ColumnMapping.Time.self, forKey: .epoch)
    relative = try c.decode(ColumnMapping.Time.self, forKey: .relative)
  }
}

extension ColumnMapping.File {
  /// The file as it is read, with the name of each part in its report: the
  /// file itself, or, when it maps fixes beside sensors, its sensors and
  /// then its fixes ("imu.csv (fixes)"), each read on its own pass. A
  /// sensor row carries the last fix again at the sensor rate, and the
  /// fixes part drops those repeats by the repeated-fix rule of a fix file
  /// (``DuplicateRule/sameKeyOrSameFix``) while every sensor row is kept.
  var parts: [(file: ColumnMapping.File, name: String)] {
    guard let fixes,
      accelerometer != nil || gravity != nil || gyroscope != nil || barometer != nil || scalars != nil
    else { return [(self, file)] }
    var sensors = self
    sensors.fixes = nil
    let fixesOnly = ColumnMapping.File(file: file, time: time, fixes: fixes)
    return [(sensors, file), (fixesOnly, file + " (fixes)")]
  }

  /// Every numeric column the file maps, keyed "target.field", with its
  /// quantity (nil for a scalar, whose unit may be none).
  var columns: [(field: String, column: ColumnMapping.Column, quantity: Quantity?)] {
    var out: [(String, ColumnMapping.Column, Quantity?)] = []
    if let f = fixes {
      out.append(("fixes.latitude", f.latitude, .angle))
      out.append(("fixes.longitude", f.longitude, .angle))
      if let c = f.horizontalAccuracy { out.append(("fixes.horizontalAccuracy", c, .length)) }
      if let c = f.speed { out.append(("fixes.speed", c, .speed)) }
      if let c = f.heading { out.append(("fixes.heading", c, .angle)) }
      if let c = f.altitude { out.append(("fixes.altitude", c, .length)) }
    }
    for (prefix, v, quantity) in [
      ("accelerometer", accelerometer, Quantity.acceleration), ("gravity", gravity, .acceleration),
      ("gyroscope", gyroscope, .angularRate),
    ] {
      if let v {
        out += [
          ("\(prefix).x", v.x, quantity), ("\(prefix).y", v.y, quantity), ("\(prefix).z", v.z, quantity),
        ]
      }
    }
    if let b = barometer {
      out.append(("barometer.pressure", b.pressure, .pressure))
      if let c = b.relativeAltitude { out.append(("barometer.relativeAltitude", c, .length)) }
    }
    for (name, c) in (scalars ?? [:]).sorted(by: { $0.key < $1.key }) {
      out.append(("scalar.\(name)", c, nil))
    }
    return out
  }
}
