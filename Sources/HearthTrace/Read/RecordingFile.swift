import HearthGeo

/// A stream of the trace that a file's rows feed, with the value columns it
/// takes in a ``RowBlock``.
enum StreamTarget: Hashable, Sendable {
  /// x, y, z in m/s².
  case accelerometer(AccelerationContent)
  /// x, y, z in m/s².
  case gravity
  /// x, y, z in rad/s.
  case gyroscope
  /// hPa, relative altitude m (NaN: none).
  case barometer
  /// One value in `unit`.
  case scalar(name: String, unit: String)
  /// ``FixLayout``'s columns; `provider` nil for the fused fixes.
  case fixes(provider: String?)
  /// The `Activity` raw value.
  case activities

  /// The stream's name in words ("accelerometer", "scalar speed").
  var name: String {
    switch self {
    case .accelerometer(let content): "accelerometer (\(content.rawValue))"
    case .gravity: "gravity"
    case .gyroscope: "gyroscope"
    case .barometer: "barometer"
    case .scalar(let name, _): "scalar \(name)"
    case .fixes(let provider): provider.map { "fixes (\($0))" } ?? "fixes"
    case .activities: "activities"
    }
  }

  var columnCount: Int {
    switch self {
    case .accelerometer, .gravity, .gyroscope: 3
    case .barometer: 2
    case .scalar, .activities: 1
    case .fixes: FixLayout.columnCount
    }
  }

  /// The quantity of a vector target's components.
  var vectorQuantity: Quantity? {
    switch self {
    case .accelerometer, .gravity: .acceleration
    case .gyroscope: .angularRate
    default: nil
    }
  }
}

/// A fix's columns in a ``RowBlock``: time (ms since the epoch), latitude,
/// longitude (degrees), accuracy (m, NaN unmeasured), speed (m/s, NaN
/// unmeasured), heading (degrees, NaN), altitude (m, NaN), activity,
/// source, battery (fraction, NaN), charging (raw values), device, user.
enum FixLayout {
  static let columnCount = 13
  static let time = 0, latitude = 1, longitude = 2, accuracy = 3, speed = 4, heading = 5, altitude = 6
  static let activity = 7, source = 8, battery = 9, charging = 10, device = 11, user = 12

  /// Appends a fix's columns (the extra fields at their defaults).
  @inline(__always)
  static func append(
    _ fix: FixFields, speedMetersPerSecond: Double, to block: inout RowBlock, at offset: Int
  ) {
    block.columns[offset + time].append(Double(fix.milliseconds))
    block.columns[offset + latitude].append(fix.latitude)
    block.columns[offset + longitude].append(fix.longitude)
    block.columns[offset + accuracy].append(fix.measuredAccuracy)
    block.columns[offset + speed].append(speedMetersPerSecond)
    block.columns[offset + heading].append(fix.measuredHeading)
    block.columns[offset + altitude].append(fix.altitude)
    block.columns[offset + activity].append(Double(Activity.unknown.rawValue))
    block.columns[offset + source].append(Double(FixSource.ordinary.rawValue))
    block.columns[offset + battery].append(.nan)
    block.columns[offset + charging].append(Double(ChargingState.unknown.rawValue))
    block.columns[offset + device].append(0)
    block.columns[offset + user].append(0)
  }

  /// Fix `i` of the block (whose columns were checked when they were read).
  static func fix(_ block: RowBlock, _ i: Int, at offset: Int) -> Fix {
    func value(_ k: Int) -> Double { block.columns[offset + k][i] }
    func present(_ k: Int) -> Double? { value(k).isNaN ? nil : value(k) }
    func code(_ k: Int) -> UInt8 { UInt8(exactly: value(k)) ?? 0 }
    func id(_ k: Int) -> UInt32 { UInt32(exactly: value(k)) ?? 0 }
    return Fix(
      timeMilliseconds: Int64(exactly: value(time)) ?? 0, latitudeDegrees: value(latitude),
      longitudeDegrees: value(longitude), horizontalAccuracyMeters: value(accuracy),
      speedMetersPerSecond: present(speed), headingDegrees: present(heading),
      altitudeMeters: present(altitude),
      activity: Activity(rawValue: code(activity)) ?? .unknown,
      source: FixSource(rawValue: code(source)) ?? .ordinary,
      batteryLevel: present(battery), charging: ChargingState(rawValue: code(charging)) ?? .unknown,
      device: DeviceID(id(device)), user: UserID(id(user)))
  }
}

/// A source of a file's checked rows, block by block in file order.
protocol RowSource: AnyObject {
  /// The next block (never empty), nil at the end of the file.
  func next() throws -> RowBlock?
  /// Every row read so far, kept or rejected.
  var report: FileReport { get }
}

/// One file of a recording: the streams it feeds, how its rows are ordered,
/// and how to open it (any number of times: a stream reads a file twice).
struct RecordingFile: Sendable {
  var name: String
  /// The streams, in the order of their columns in a row.
  var targets: [StreamTarget]
  var rule: DuplicateRule
  /// Whether keys are fix milliseconds (fix files on the wall clock); else
  /// sensor seconds from the trace's origin.
  var keysAreMilliseconds: Bool
  /// The gravity-bearing vector targets to check (their indices in `targets`).
  var gravityChecks: [(target: Int, kind: GravityCheck.Kind)]
  /// The file's units in words, for its report.
  var units: String?
  /// Opens a fresh pass over the file.
  var open: @Sendable () throws -> any RowSource

  /// The first column of target `k`.
  func offset(of k: Int) -> Int { targets[..<k].reduce(0) { $0 + $1.columnCount } }
  var columnCount: Int { targets.reduce(0) { $0 + $1.columnCount } }

  /// Keys per second: 1000 for fix milliseconds, else 1.
  var keysPerSecond: Double { keysAreMilliseconds ? 1000 : 1 }

  /// The sensor time of a key, seconds from `originMilliseconds`.
  @inline(__always)
  func seconds(ofKey key: Double, originMilliseconds: Int64) -> Double {
    keysAreMilliseconds ? (key - Double(originMilliseconds)) / 1000 : key
  }
}

extension RecordingFile {
  /// A first pass over the file: what its checked rows' keys say.
  func survey() throws -> FileSurvey {
    let source = try open()
    var survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds * keysPerSecond)
    while let block = try source.next() { survey.add(block.keys) }
    return survey
  }
}
