import Foundation
import HearthGeo

/// Reads a Sensor Logger export folder (the app by Kelvin Choi; one CSV per
/// sensor).
///
/// | file | columns used | becomes |
/// |---|---|---|
/// | Metadata.csv | platform, device name, recording epoch time (ms), standardisation | ``TraceMetadata`` |
/// | TotalAcceleration.csv | time, seconds_elapsed, z, y, x | accelerometer, gravity included |
/// | Accelerometer.csv | same | accelerometer, gravity removed (when there is no TotalAcceleration.csv) |
/// | AccelerometerUncalibrated.csv | same | accelerometer, gravity included (when neither of the above can give gravity) |
/// | Gravity.csv | same | ``Trace/gravity`` |
/// | Gyroscope.csv | same | ``Trace/gyroscope`` (rad/s) |
/// | Barometer.csv | time, seconds_elapsed, relativeAltitude, pressure | ``Trace/barometer`` |
/// | WatchBarometer.csv | time, seconds_elapsed, pressure | ``Trace/scalars`` "watchPressure" (hPa) |
/// | Location.csv | time, seconds_elapsed, latitude, longitude, horizontalAccuracy, speed, bearing, altitude | ``Trace/fixes`` |
/// | LocationGps.csv, LocationNetwork.csv | same | ``Trace/providerFixes`` ("gps", "network") |
/// | Activity.csv | time, seconds_elapsed, activity | ``Trace/activities`` |
///
/// Units per platform, file and setting: ``SensorLoggerFile`` (calibrated
/// acceleration and gravity are m/s² and the phone's barometer hPa on both
/// platforms; only the uncalibrated iOS accelerometer is in g and the watch
/// barometer in kPa, unless "Standardise Units & Frames" was on). iOS axes
/// are negated to Android's convention. Every file's units are stated in its
/// ``FileReport/units``; gravity streams pass ``GravityCheck`` or are
/// rejected as a unit problem. Every file has two clocks: `time`, the wall
/// clock (ns since the epoch), and `seconds_elapsed`, the monotonic one (s
/// from the recording's start, negative for samples logged before it).
/// Every row is placed by `seconds_elapsed` — a fix at the origin + it, in
/// ms — so fixes and sensors stay on one clock when the phone's wall clock
/// is corrected mid-recording (SPEC §9); `time` is compared with it and a
/// step is reported (``FileReport/clockSteps``). A row whose `time` does
/// not read is a `badTime`. Without Metadata.csv the origin is the median
/// of `time` − `seconds_elapsed` over Location.csv's rows. A file with only
/// one of the columns is read by it. Negative speeds, accuracies and bearings
/// mean "not measured"; a zero speed on a fix looser than 30 m is unmeasured
/// (``SpeedReading``). Zipped exports: unzip first — the Swift toolchain
/// alone has no inflate on Linux (docs/decisions/0004).
public enum SensorLoggerReader {
  /// Reads the export folder at `folder`.
  ///
  /// A file that cannot be read at all (empty, no header, a required column
  /// missing, a unit that cannot be known, a unit problem) is skipped and
  /// reported in its ``FileReport/skippedBecause``; the other files still
  /// load. In strict mode it throws instead.
  /// - Throws: `TraceError.io` when the folder cannot be listed or holds no
  ///   Sensor Logger file; any error in strict mode.
  public static func read(folder: String, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    try recording(folder: folder, options: options).readWhole()
  }

  /// The export as a ``Recording``: Metadata.csv read (platform, setting,
  /// origin), every sensor file's units decided, one accelerometer chosen.
  static func recording(folder: String, options: ReadOptions) throws -> Recording {
    let names = try FolderListing.names(folder)
    let present = Set(names.compactMap(SensorLoggerFile.init(rawValue:)))
    guard present.contains(where: { $0 != .metadata }) else {
      throw TraceError.io(
        path: folder, reason: "no Sensor Logger CSV files (Location.csv, Accelerometer.csv, …)")
    }
    func path(_ file: SensorLoggerFile) -> String {
      (folder as NSString).appendingPathComponent(file.rawValue)
    }
    var recording = Recording(metadata: TraceMetadata(format: "sensor-logger"), files: [], options: options)
    var settings = SensorLoggerSettings()
    if present.contains(.metadata) {
      recording.metadata.sourceFiles.append(SensorLoggerFile.metadata.rawValue)
      do {
        let (values, report) = try CSVTable.firstRow(
          path: path(.metadata), displayName: SensorLoggerFile.metadata.rawValue, options: options,
          wants: [
            .init(key: "platform", names: ["platform"], kind: .text, required: false),
            .init(key: "device", names: ["device name", "deviceName"], kind: .text, required: false),
            .init(key: "epoch", names: ["recording epoch time"], kind: .integer, required: false),
            .init(key: "standardisation", names: ["standardisation"], kind: .text, required: false),
          ])
        settings.hasMetadata = true
        if let platform = values.texts["platform"]?.lowercased() {
          settings.platform =
            platform.contains("ios") ? .iOS : platform.contains("android") ? .android : .unknown
        }
        if let flag = values.texts["standardisation"]?.lowercased() {
          settings.standardised = flag == "true" ? true : flag == "false" ? false : nil
          // Neither word: the setting is unknown, not off.
          if settings.standardised == nil { settings.unreadableStandardisation = String(flag.prefix(32)) }
        }
        recording.metadata.platform = settings.platform
        recording.metadata.device = values.texts["device"]
        var metadataReport = report
        if let epoch = values.integers["epoch"] {
          if ReadingBounds.fixMilliseconds.contains(epoch) {
            recording.metadata.timeOriginMilliseconds = epoch
          } else {
            metadataReport.units = "recording epoch time \(epoch) ms is outside 1900–2200: ignored"
          }
        }
        recording.plannedReports.append(metadataReport)
      } catch let error as TraceError {
        if options.strict { throw error }
        recording.plannedReports.append(
          FileReport(skipped: SensorLoggerFile.metadata.rawValue, because: error))
      }
    }
    // Without a recording start, the start is where Location.csv's two
    // clocks put it (the first fix, when the file has only `time`).
    if recording.metadata.timeOriginMilliseconds == nil, present.contains(.location) {
      recording.metadata.timeOriginMilliseconds =
        clockOrigin(path(.location), options: options)
        ?? (try? file(.location, path(.location), settings: settings, origin: nil, options: options).survey())?
        .earliestKey.flatMap { Int64(exactly: $0) }
    }
    let origin = recording.metadata.timeOriginMilliseconds
    func plan(_ name: SensorLoggerFile) -> RecordingFile {
      file(name, path(name), settings: settings, origin: origin, options: options)
    }
    /// Adds the first candidate whose header reads; the others before it are
    /// reported skipped with their reasons.
    func addFirstReadable(_ candidates: [SensorLoggerFile]) throws {
      for candidate in candidates where present.contains(candidate) {
        let planned = plan(candidate)
        recording.metadata.sourceFiles.append(candidate.rawValue)
        do {
          _ = try planned.open()
          recording.files.append(planned)
          return
        } catch let error as TraceError {
          if options.strict { throw error }
          recording.plannedReports.append(FileReport(skipped: candidate.rawValue, because: error))
        }
      }
    }
    // Gravity removed needs Gravity.csv to give the total back; without it
    // the uncalibrated accelerometer (gravity included) serves better.
    let linearFirst = present.contains(.gravity) || !present.contains(.accelerometerUncalibrated)
    try addFirstReadable(
      [.totalAcceleration]
        + (linearFirst
          ? [.accelerometer, .accelerometerUncalibrated] : [.accelerometerUncalibrated, .accelerometer]))
    for name in [
      SensorLoggerFile.gravity, .gyroscope, .barometer, .watchBarometer, .location, .locationGPS,
      .locationNetwork,
      .activity,
    ] where present.contains(name) {
      recording.metadata.sourceFiles.append(name.rawValue)
      recording.files.append(plan(name))
    }
    return recording
  }

  /// One file's plan: its streams, units and time.
  static func file(
    _ name: SensorLoggerFile, _ path: String, settings: SensorLoggerSettings, origin: Int64?,
    options: ReadOptions
  ) -> RecordingFile {
    typealias Column = CSVRowSpec.Column
    let sensorTime = CSVRowSpec.Time.sensorLogger(originMilliseconds: origin)
    let units = name.units(settings)
    let factor: Double
    switch units {
    case .success(let u)?: factor = u.negate ? -u.factor : u.factor
    default: factor = 1
    }
    func vector(_ quantity: Quantity) -> CSVRowSpec.Field {
      .vector(
        x: Column("x"), y: Column("y"), z: Column("z"), factor: factor,
        limit: ReadingBounds.axisLimit(quantity))
    }
    let target: StreamTarget
    let spec: CSVRowSpec
    var check: GravityCheck.Kind?
    var rule = DuplicateRule.sameKeyAndValues
    switch name {
    case .totalAcceleration, .accelerometerUncalibrated:
      target = .accelerometer(.includesGravity)
      spec = CSVRowSpec(time: sensorTime, fields: [vector(.acceleration)], keysAreMilliseconds: false)
      check = .totalAcceleration
    case .accelerometer:
      target = .accelerometer(.excludesGravity)
      spec = CSVRowSpec(time: sensorTime, fields: [vector(.acceleration)], keysAreMilliseconds: false)
    case .gravity:
      target = .gravity
      spec = CSVRowSpec(time: sensorTime, fields: [vector(.acceleration)], keysAreMilliseconds: false)
      check = .gravityEstimate
    case .gyroscope:
      target = .gyroscope
      spec = CSVRowSpec(time: sensorTime, fields: [vector(.angularRate)], keysAreMilliseconds: false)
    case .barometer:
      target = .barometer
      spec = CSVRowSpec(
        time: sensorTime,
        fields: [
          .pressure(
            Column("pressure"), altitude: Column("relativeAltitude", required: false), factor: factor,
            altitudeFactor: 1)
        ],
        keysAreMilliseconds: false)
    case .watchBarometer:
      target = .scalar(name: "watchPressure", unit: Quantity.pressure.storedUnit)
      spec = CSVRowSpec(
        time: sensorTime,
        fields: [.scalar(Column("pressure"), factor: factor, range: ReadingBounds.pressureHectopascals)],
        keysAreMilliseconds: false)
    case .location, .locationGPS, .locationNetwork:
      target = .fixes(provider: name == .location ? nil : name == .locationGPS ? "gps" : "network")
      spec = CSVRowSpec(
        time: sensorTime,
        fields: [
          .fix(
            .init(
              latitude: Column("latitude"), longitude: Column("longitude"),
              accuracy: Column("horizontalAccuracy", required: false),
              speed: Column("speed", required: false),
              heading: Column("bearing", "course", required: false),
              altitude: Column("altitude", required: false), originMilliseconds: origin))
        ], keysAreMilliseconds: true)
      rule = .sameKeyOrSameFix
    case .activity:
      target = .activities
      spec = CSVRowSpec(
        time: sensorTime, fields: [.activity(Column("activity", "type"))], keysAreMilliseconds: false)
    case .metadata:
      preconditionFailure("Metadata.csv is read while planning")
    }
    var description: String?
    if case .success(let u)? = units { description = u.description }
    let columns = target.columnCount
    return RecordingFile(
      name: name.rawValue, targets: [target], rule: rule, keysAreMilliseconds: spec.keysAreMilliseconds,
      gravityChecks: check.map { [(0, $0)] } ?? [], units: description,
      open: {
        if case .failure(let unknown)? = units {
          throw TraceError.unsupported(SourceLocation(file: name.rawValue, line: 0), reason: unknown.reason)
        }
        return try CSVRowSource(
          path: path, name: name.rawValue, spec: spec, columnCount: columns, options: options)
      })
  }

  /// How many rows of Location.csv ``clockOrigin(_:options:)`` reads at most.
  static let originRows = 100_000

  /// The epoch ms of `seconds_elapsed` = 0 from a location file's two
  /// clocks: the median of `time` − `seconds_elapsed` over its first
  /// ``originRows`` rows that carry both (``ClockComparison``); nil when the
  /// file has not both columns or no such row.
  static func clockOrigin(_ path: String, options: ReadOptions) -> Int64? {
    let name = SensorLoggerFile.location.rawValue
    let clocksOnly = CSVRowSpec(
      time: .sensorLogger(originMilliseconds: nil), fields: [], keysAreMilliseconds: false)
    guard
      let source = try? CSVRowSource(
        path: path, name: name, spec: clocksOnly, columnCount: 0, options: options,
        clockMedianRows: originRows)
    else { return nil }
    while source.report.rowsRead < originRows, (try? source.next()) ?? nil != nil {}
    return source.medianClockOffsetMilliseconds
  }

  /// Activity names used by iOS (CMMotionActivity) and Android (DetectedActivity).
  static func activity(named name: String) -> Activity {
    switch name.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: " ", with: "") {
    case "stationary", "still": .still
    case "walking", "onfoot": .walking
    case "running": .running
    case "cycling", "onbicycle", "bicycle": .cycling
    case "automotive", "invehicle", "driving", "vehicle": .automotive
    default: .unknown
    }
  }
}

/// ⌊a / b⌋ for b > 0, also for negative a.
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
  let (q, r) = a.quotientAndRemainder(dividingBy: b)
  return r < 0 ? q - 1 : q
}
