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
/// | Location.csv | time, latitude, longitude, horizontalAccuracy, speed, bearing, altitude | ``Trace/fixes`` |
/// | LocationGps.csv, LocationNetwork.csv | same | ``Trace/providerFixes`` ("gps", "network") |
/// | Activity.csv | time, seconds_elapsed, activity | ``Trace/activities`` |
///
/// Units per platform, file and setting: ``SensorLoggerFile`` (calibrated
/// acceleration and gravity are m/s² and the phone's barometer hPa on both
/// platforms; only the uncalibrated iOS accelerometer is in g and the watch
/// barometer in kPa, unless "Standardise Units & Frames" was on). iOS axes
/// are negated to Android's convention. Every file's units are stated in its
/// ``FileReport/units``; gravity streams pass ``GravityCheck`` or are
/// rejected as a unit problem. `time` is nanoseconds since the epoch (fix
/// times become ms); `seconds_elapsed` (negative for samples logged before
/// the start) is the sensor time. Negative speeds, accuracies and bearings
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
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw TraceError.io(path: folder, reason: "cannot list the folder: \(error.localizedDescription)")
    }
    let present = Set(names.compactMap(SensorLoggerFile.init(rawValue:)))
    guard present.contains(where: { $0 != .metadata }) else {
      throw TraceError.io(
        path: folder, reason: "no Sensor Logger CSV files (Location.csv, Accelerometer.csv, …)")
    }
    var report = ImportReport()
    var metadata = TraceMetadata(format: "sensor-logger")
    var settings = SensorLoggerSettings()
    func path(_ file: SensorLoggerFile) -> String { (folder as NSString).appendingPathComponent(file.rawValue) }

    /// Runs one file's import; a failure skips the file (or throws in strict mode).
    func attempt(_ file: SensorLoggerFile, _ body: () throws -> FileReport) throws {
      guard present.contains(file) else { return }
      metadata.sourceFiles.append(file.rawValue)
      do {
        report.files.append(try body())
      } catch let error as TraceError {
        if options.strict { throw error }
        var skipped = FileReport(file: file.rawValue)
        skipped.skippedBecause = error.description
        report.files.append(skipped)
      }
    }

    try attempt(.metadata) {
      let (table, fileReport) = try CSVTable.read(
        path: path(.metadata), displayName: SensorLoggerFile.metadata.rawValue, options: options,
        wants: [
          .init(key: "platform", names: ["platform"], kind: .text, required: false),
          .init(key: "device", names: ["device name", "deviceName"], kind: .text, required: false),
          .init(key: "epoch", names: ["recording epoch time"], kind: .integer, required: false),
          .init(key: "standardisation", names: ["standardisation"], kind: .text, required: false),
        ])
      settings.hasMetadata = true
      if let platform = table.texts["platform"]?.first?.lowercased() {
        settings.platform =
          platform.contains("ios") ? .iOS : platform.contains("android") ? .android : .unknown
      }
      if let flag = table.texts["standardisation"]?.first?.lowercased() {
        settings.standardised = flag == "true" ? true : flag == "false" ? false : nil
      }
      metadata.platform = settings.platform
      metadata.device = table.texts["device"]?.first
      metadata.timeOriginMilliseconds = table.integers["epoch"]?.first
      return fileReport
    }

    var trace = Trace(metadata: metadata)
    var origin = metadata.timeOriginMilliseconds
    /// The units of a sensor file, or the reason they cannot be known.
    func units(_ file: SensorLoggerFile) throws -> SensorLoggerFile.Units {
      switch file.units(settings) {
      case .success(let units)?: return units
      case .failure(let unknown)?:
        throw TraceError.unsupported(SourceLocation(file: file.rawValue, line: 0), reason: unknown.reason)
      case nil: preconditionFailure("\(file.rawValue) holds no sensor values")
      }
    }
    /// A vector file in its units, checked for gravity when it holds gravity.
    func vector(_ file: SensorLoggerFile, check: GravityCheck.Kind?) throws -> (VectorStream?, FileReport) {
      try readVector(
        path(file), file.rawValue, units: units(file), check: check, origin: origin, options: options)
    }
    try attempt(.totalAcceleration) {
      let (stream, fileReport) = try vector(.totalAcceleration, check: .totalAcceleration)
      trace.accelerometer = stream.map { AccelerationStream(samples: $0, content: .includesGravity) }
      return fileReport
    }
    // Gravity removed needs Gravity.csv to give the total back; without it
    // the uncalibrated accelerometer (gravity included) serves better.
    let linearFirst = present.contains(.gravity) || !present.contains(.accelerometerUncalibrated)
    for file in linearFirst
      ? [SensorLoggerFile.accelerometer, .accelerometerUncalibrated]
      : [.accelerometerUncalibrated, .accelerometer]
    where trace.accelerometer == nil {
      try attempt(file) {
        let includesGravity = file == .accelerometerUncalibrated
        let (stream, fileReport) = try vector(file, check: includesGravity ? .totalAcceleration : nil)
        trace.accelerometer = stream.map {
          AccelerationStream(samples: $0, content: includesGravity ? .includesGravity : .excludesGravity)
        }
        return fileReport
      }
    }
    try attempt(.gravity) {
      let (stream, fileReport) = try vector(.gravity, check: .gravityEstimate)
      trace.gravity = stream
      return fileReport
    }
    try attempt(.gyroscope) {
      let (stream, fileReport) = try vector(.gyroscope, check: nil)
      trace.gyroscope = stream
      return fileReport
    }
    for file in [SensorLoggerFile.barometer, .watchBarometer] {
      try attempt(file) {
        let units = try units(file)
        var (table, fileReport) = try CSVTable.read(
          path: path(file), displayName: file.rawValue, options: options,
          wants: timeWants + [
            .init(key: "pressure", names: ["pressure"], kind: .number, required: true),
            .init(key: "relativeAltitude", names: ["relativeAltitude"], kind: .number, required: false),
          ])
        fileReport.units = units.description
        let seconds = sensorSeconds(table, origin: origin)
        let stream = StreamAssembly.finish(
          PressureStream(
            seconds: seconds, hectopascals: table.number("pressure")!.map { $0 * units.factor },
            relativeAltitudeMeters: table.number("relativeAltitude", default: .nan)),
          lines: table.lines, report: &fileReport)
        table = CSVTable()
        if file == .barometer {
          trace.barometer = stream
        } else {
          trace.scalars["watchPressure"] = ScalarStream(
            seconds: stream.seconds, values: stream.hectopascals, unit: Quantity.pressure.storedUnit)
        }
        return fileReport
      }
    }
    try attempt(.location) {
      let (fixes, fileReport) = try readFixes(path(.location), SensorLoggerFile.location.rawValue, options)
      trace.fixes = fixes
      return fileReport
    }
    for (file, provider) in [(SensorLoggerFile.locationGPS, "gps"), (.locationNetwork, "network")] {
      try attempt(file) {
        let (fixes, fileReport) = try readFixes(path(file), file.rawValue, options)
        trace.providerFixes[provider] = fixes
        return fileReport
      }
    }
    try attempt(.activity) {
      let (activities, fileReport) = try readActivities(path(.activity), origin: origin, options)
      trace.activities = activities
      return fileReport
    }
    if origin == nil, let first = trace.fixes.timeMilliseconds.first { origin = first }
    metadata.timeOriginMilliseconds = metadata.timeOriginMilliseconds ?? origin
    trace.metadata = metadata
    return (trace, report)
  }

  static let timeWants: [CSVTable.Want] = [
    .init(key: "time", names: ["time"], kind: .integer, required: false),
    .init(key: "seconds", names: ["seconds_elapsed"], kind: .number, required: false),
  ]

  /// Sensor time in seconds: `seconds_elapsed`, else `time` (ns) relative to the origin.
  static func sensorSeconds(_ table: CSVTable, origin: Int64?) -> [Double] {
    if let seconds = table.numbers["seconds"] { return seconds }
    guard let nanoseconds = table.integers["time"] else { return Array(repeating: .nan, count: table.count) }
    let originNanoseconds = (origin ?? 0) * 1_000_000
    return nanoseconds.map { Double($0 - originNanoseconds) * 1e-9 }
  }

  /// A vector file (time, x, y, z) in `units`; when `check` says the stream
  /// holds gravity, it must pass ``GravityCheck`` (in the file's row order)
  /// or every row is rejected as a unit problem.
  static func readVector(
    _ path: String, _ name: String, units: SensorLoggerFile.Units, check: GravityCheck.Kind?, origin: Int64?,
    options: ReadOptions
  ) throws -> (VectorStream?, FileReport) {
    var (table, report) = try CSVTable.read(
      path: path, displayName: name, options: options,
      wants: timeWants + [
        .init(key: "x", names: ["x"], kind: .number, required: true),
        .init(key: "y", names: ["y"], kind: .number, required: true),
        .init(key: "z", names: ["z"], kind: .number, required: true),
      ])
    guard table.numbers["seconds"] != nil || table.integers["time"] != nil else {
      throw TraceError.malformed(
        SourceLocation(file: name, line: 1), reason: "no time column (seconds_elapsed or time)")
    }
    report.units = units.description
    let factor = units.negate ? -units.factor : units.factor
    let scale: (Double) -> Double = { $0 * factor }
    let stream = VectorStream(
      seconds: sensorSeconds(table, origin: origin), x: table.number("x")!.map(scale),
      y: table.number("y")!.map(scale), z: table.number("z")!.map(scale))
    let lines = table.lines
    table = CSVTable()
    if let check {
      guard try StreamAssembly.passesGravityCheck(stream, kind: check, report: &report, options: options)
      else { return (nil, report) }
    }
    return (StreamAssembly.finish(stream, lines: lines, report: &report), report)
  }

  /// Location rows as fixes; rows with a position out of range are rejected.
  static func readFixes(_ path: String, _ name: String, _ options: ReadOptions) throws -> (
    FixColumns, FileReport
  ) {
    let (table, report0) = try CSVTable.read(
      path: path, displayName: name, options: options,
      wants: [
        .init(key: "time", names: ["time"], kind: .integer, required: true),
        .init(key: "latitude", names: ["latitude"], kind: .number, required: true),
        .init(key: "longitude", names: ["longitude"], kind: .number, required: true),
        .init(key: "accuracy", names: ["horizontalAccuracy"], kind: .number, required: false),
        .init(key: "speed", names: ["speed"], kind: .number, required: false),
        .init(key: "bearing", names: ["bearing", "course"], kind: .number, required: false),
        .init(key: "altitude", names: ["altitude"], kind: .number, required: false),
      ])
    var report = report0
    var fixes = FixColumns()
    var lines: [Int] = []
    fixes.reserveCapacity(table.count)
    let times = table.integers["time"]!
    let latitudes = table.number("latitude")!
    let longitudes = table.number("longitude")!
    let accuracies = table.number("accuracy", default: .nan)
    let speeds = table.number("speed", default: .nan)
    let bearings = table.number("bearing", default: .nan)
    let altitudes = table.number("altitude", default: .nan)
    for i in 0..<table.count {
      if let problem = positionProblem(latitude: latitudes[i], longitude: longitudes[i]) {
        let rejection = RowRejection(
          location: SourceLocation(file: name, line: table.lines[i]), reason: problem,
          detail: "latitude \(latitudes[i]), longitude \(longitudes[i])")
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.rowsKept -= 1
        report.reject(rejection)
        continue
      }
      let accuracy = accuracies[i] >= 0 ? accuracies[i] : .nan
      fixes.append(
        Fix(
          timeMilliseconds: floorDivide(times[i], 1_000_000),
          latitudeDegrees: latitudes[i], longitudeDegrees: longitudes[i],
          horizontalAccuracyMeters: accuracy,
          speedMetersPerSecond: SpeedReading.speedMetersPerSecond(
            raw: speeds[i], horizontalAccuracyMeters: accuracy),
          headingDegrees: bearings[i] >= 0 && bearings[i] < 360 ? bearings[i] : nil,
          altitudeMeters: altitudes[i].isFinite ? altitudes[i] : nil))
      lines.append(table.lines[i])
    }
    return (StreamAssembly.finish(fixes, lines: lines, report: &report), report)
  }

  static func readActivities(
    _ path: String, origin: Int64?, _ options: ReadOptions
  ) throws -> ([ActivitySample], FileReport) {
    let (table, report) = try CSVTable.read(
      path: path, displayName: "Activity.csv", options: options,
      wants: timeWants + [.init(key: "activity", names: ["activity", "type"], kind: .text, required: true)])
    let seconds = sensorSeconds(table, origin: origin)
    let samples = zip(seconds, table.texts["activity"]!).map { t, name in
      ActivitySample(seconds: t, activity: activity(named: name))
    }
    return (samples.sorted { $0.seconds < $1.seconds }, report)
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
