import Foundation
import HearthGeo

/// A trace as a folder of `.npy` columns, so numpy opens every column
/// directly and a folder written by numpy in this layout opens here:
///
/// ```
/// trace/
///   trace.json                     metadata, units, which streams exist
///   fixes/time_ms.npy              <i8, ms since the epoch
///   fixes/latitude_deg.npy         <f8   (longitude_deg, accuracy_m, speed_mps,
///                                         heading_deg, altitude_m, battery_fraction)
///   fixes/activity.npy             |u1   (source, charging: |u1; device, user: <i8)
///   accelerometer/t.npy            <f8, seconds since the time origin
///   accelerometer/value.npy        <f8, N×3 (x, y, z), m/s²
///   gravity/, gyroscope/           the same (m/s², rad/s)
///   barometer/t.npy, value.npy     N×2 (hPa, relative altitude m)
///   scalars/<name>/t.npy, value.npy
/// ```
/// The `t`/`value` pairs follow comma2k19's `processed_log` convention;
/// ``readComma2k19Segment(_:)`` reads that dataset's own folders.
/// This is the project's only on-disk layout of its own (decision 0004).
public enum TraceFolder {
  /// Writes `trace` under `folder` (created if needed). Values are written
  /// bit for bit; reading the folder back gives an equal trace.
  public static func write(_ trace: Trace, to folder: String) throws {
    let fm = FileManager.default
    func path(_ parts: String...) -> String { ([folder] + parts).joined(separator: "/") }
    func makeFolder(_ p: String) throws {
      do { try fm.createDirectory(atPath: p, withIntermediateDirectories: true) } catch {
        throw TraceError.io(path: p, reason: error.localizedDescription)
      }
    }
    try makeFolder(folder)
    let f = trace.fixes
    if !f.isEmpty {
      try makeFolder(path("fixes"))
      try NPYArray.write(f.timeMilliseconds, to: path("fixes", "time_ms.npy"))
      try NPYArray.write(f.latitudeDegrees, to: path("fixes", "latitude_deg.npy"))
      try NPYArray.write(f.longitudeDegrees, to: path("fixes", "longitude_deg.npy"))
      try NPYArray.write(f.horizontalAccuracyMeters, to: path("fixes", "accuracy_m.npy"))
      try NPYArray.write(f.speedMetersPerSecond, to: path("fixes", "speed_mps.npy"))
      try NPYArray.write(f.headingDegrees, to: path("fixes", "heading_deg.npy"))
      try NPYArray.write(f.altitudeMeters, to: path("fixes", "altitude_m.npy"))
      try NPYArray.write(f.batteryLevel, to: path("fixes", "battery_fraction.npy"))
      try NPYArray.write(f.activity.map(\.rawValue), to: path("fixes", "activity.npy"))
      try NPYArray.write(f.source.map(\.rawValue), to: path("fixes", "source.npy"))
      try NPYArray.write(f.charging.map(\.rawValue), to: path("fixes", "charging.npy"))
      try NPYArray.write(f.device.map { Int64($0.rawValue) }, to: path("fixes", "device.npy"))
      try NPYArray.write(f.user.map { Int64($0.rawValue) }, to: path("fixes", "user.npy"))
    }
    func writeVector(_ stream: VectorStream?, _ name: String) throws {
      guard let stream, !stream.isEmpty else { return }
      try makeFolder(path(name))
      try NPYArray.write(stream.seconds, to: path(name, "t.npy"))
      var values = [Double](repeating: 0, count: stream.count * 3)
      for i in 0..<stream.count {
        values[3 * i] = stream.x[i]
        values[3 * i + 1] = stream.y[i]
        values[3 * i + 2] = stream.z[i]
      }
      try NPYArray.write(values, shape: [stream.count, 3], to: path(name, "value.npy"))
    }
    try writeVector(trace.accelerometer?.samples, "accelerometer")
    try writeVector(trace.gravity, "gravity")
    try writeVector(trace.gyroscope, "gyroscope")
    if let barometer = trace.barometer, !barometer.isEmpty {
      try makeFolder(path("barometer"))
      try NPYArray.write(barometer.seconds, to: path("barometer", "t.npy"))
      var values = [Double](repeating: 0, count: barometer.count * 2)
      for i in 0..<barometer.count {
        values[2 * i] = barometer.hectopascals[i]
        values[2 * i + 1] = barometer.relativeAltitudeMeters[i]
      }
      try NPYArray.write(values, shape: [barometer.count, 2], to: path("barometer", "value.npy"))
    }
    for (name, stream) in trace.scalars.sorted(by: { $0.key < $1.key }) {
      try makeFolder(path("scalars", name))
      try NPYArray.write(stream.seconds, to: path("scalars", name, "t.npy"))
      try NPYArray.write(stream.values, to: path("scalars", name, "value.npy"))
    }
    var manifest: [(String, JSONValue)] = [
      ("layout", .string("hearth-trace-folder/1")),
      ("format", .string(trace.metadata.format)),
      ("platform", .string(trace.metadata.platform.rawValue)),
      ("sourceFiles", .array(trace.metadata.sourceFiles.map { .string($0) })),
    ]
    if let device = trace.metadata.device { manifest.append(("device", .string(device))) }
    if let origin = trace.metadata.timeOriginMilliseconds {
      manifest.append(("timeOriginMilliseconds", .number(Double(origin))))
    }
    if let accelerometer = trace.accelerometer {
      manifest.append(("accelerometerContent", .string(accelerometer.content.rawValue)))
    }
    manifest.append(
      (
        "scalarUnits",
        .object(trace.scalars.sorted(by: { $0.key < $1.key }).map { ($0.key, .string($0.value.unit)) })
      ))
    manifest.append(
      (
        "activities",
        .array(trace.activities.map { .array([.number($0.seconds), .number(Double($0.activity.rawValue))]) })
      ))
    do {
      try Data(JSONValue.object(manifest).text.utf8).write(to: URL(fileURLWithPath: path("trace.json")))
    } catch {
      throw TraceError.io(path: path("trace.json"), reason: error.localizedDescription)
    }
  }

  /// Reads a folder written by ``write(_:to:)`` (or by numpy in that layout).
  /// - Throws: `TraceError.io` when trace.json is missing; the NPY errors;
  ///   `.malformed` when columns of one stream have different lengths.
  public static func read(_ folder: String) throws -> (Trace, ImportReport) {
    func path(_ parts: String...) -> String { ([folder] + parts).joined(separator: "/") }
    let fm = FileManager.default
    guard let data = fm.contents(atPath: path("trace.json")),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw TraceError.io(path: path("trace.json"), reason: "missing or not a JSON object") }
    var metadata = TraceMetadata(format: json["format"] as? String ?? "hearth-trace-folder")
    metadata.platform = Platform(rawValue: json["platform"] as? String ?? "") ?? .unknown
    metadata.device = json["device"] as? String
    metadata.sourceFiles = json["sourceFiles"] as? [String] ?? []
    metadata.timeOriginMilliseconds = (json["timeOriginMilliseconds"] as? NSNumber)?.int64Value
    var trace = Trace(metadata: metadata)
    var report = ImportReport()
    func exists(_ p: String) -> Bool { fm.fileExists(atPath: p) }
    func count(_ n: Int, _ name: String) -> FileReport {
      var r = FileReport(file: name)
      r.rowsRead = n
      r.rowsKept = n
      return r
    }
    if exists(path("fixes", "time_ms.npy")) {
      let time = try NPYArray.read(path: path("fixes", "time_ms.npy")).int64s
      func doubles(_ name: String) throws -> [Double] {
        let p = path("fixes", name)
        guard exists(p) else { return Array(repeating: .nan, count: time.count) }
        let values = try NPYArray.read(path: p).doubles
        guard values.count == time.count else {
          throw TraceError.malformed(
            SourceLocation(file: p, line: 1), reason: "\(values.count) values for \(time.count) fixes")
        }
        return values
      }
      func bytes(_ name: String) throws -> [UInt8] {
        try doubles(name).map { $0.isFinite ? UInt8(clamping: Int($0)) : 0 }
      }
      let lat = try doubles("latitude_deg.npy")
      let lon = try doubles("longitude_deg.npy")
      let accuracy = try doubles("accuracy_m.npy")
      let speed = try doubles("speed_mps.npy")
      let heading = try doubles("heading_deg.npy")
      let altitude = try doubles("altitude_m.npy")
      let battery = try doubles("battery_fraction.npy")
      let activity = try bytes("activity.npy")
      let source = try bytes("source.npy")
      let charging = try bytes("charging.npy")
      let device = try doubles("device.npy")
      let user = try doubles("user.npy")
      var fixes = FixColumns()
      fixes.reserveCapacity(time.count)
      func present(_ v: Double) -> Double? { v.isNaN ? nil : v }
      for i in time.indices {
        fixes.append(
          Fix(
            timeMilliseconds: time[i], latitudeDegrees: lat[i], longitudeDegrees: lon[i],
            horizontalAccuracyMeters: accuracy[i], speedMetersPerSecond: present(speed[i]),
            headingDegrees: present(heading[i]), altitudeMeters: present(altitude[i]),
            activity: Activity(rawValue: activity[i]) ?? .unknown,
            source: FixSource(rawValue: source[i]) ?? .ordinary,
            batteryLevel: present(battery[i]), charging: ChargingState(rawValue: charging[i]) ?? .unknown,
            device: DeviceID(UInt32(clamping: Int(device[i].isFinite ? device[i] : 0))),
            user: UserID(UInt32(clamping: Int(user[i].isFinite ? user[i] : 0)))))
      }
      trace.fixes = fixes
      report.files.append(count(fixes.count, "fixes"))
    }
    func readVector(_ name: String) throws -> VectorStream? {
      guard exists(path(name, "t.npy")) else { return nil }
      let t = try NPYArray.read(path: path(name, "t.npy")).doubles
      let value = try NPYArray.read(path: path(name, "value.npy"))
      guard value.matrixShape.rows == t.count, value.matrixShape.columns == 3 else {
        throw TraceError.malformed(
          SourceLocation(file: path(name, "value.npy"), line: 1),
          reason: "expected \(t.count)×3, found \(value.shape)")
      }
      report.files.append(count(t.count, name))
      return VectorStream(seconds: t, x: value.column(0), y: value.column(1), z: value.column(2))
    }
    if let samples = try readVector("accelerometer") {
      let content =
        AccelerationContent(rawValue: json["accelerometerContent"] as? String ?? "") ?? .includesGravity
      trace.accelerometer = AccelerationStream(samples: samples, content: content)
    }
    trace.gravity = try readVector("gravity")
    trace.gyroscope = try readVector("gyroscope")
    if exists(path("barometer", "t.npy")) {
      let t = try NPYArray.read(path: path("barometer", "t.npy")).doubles
      let value = try NPYArray.read(path: path("barometer", "value.npy"))
      guard value.matrixShape.rows == t.count, value.matrixShape.columns == 2 else {
        throw TraceError.malformed(
          SourceLocation(file: path("barometer", "value.npy"), line: 1), reason: "expected \(t.count)×2")
      }
      trace.barometer = PressureStream(
        seconds: t, hectopascals: value.column(0), relativeAltitudeMeters: value.column(1))
      report.files.append(count(t.count, "barometer"))
    }
    let units = json["scalarUnits"] as? [String: String] ?? [:]
    for name in ((try? fm.contentsOfDirectory(atPath: path("scalars"))) ?? []).sorted() {
      let t = try NPYArray.read(path: path("scalars", name, "t.npy")).doubles
      let v = try NPYArray.read(path: path("scalars", name, "value.npy")).doubles
      guard v.count == t.count else {
        throw TraceError.malformed(
          SourceLocation(file: path("scalars", name), line: 1), reason: "t and value differ in length")
      }
      trace.scalars[name] = ScalarStream(seconds: t, values: v, unit: units[name] ?? "")
      report.files.append(count(t.count, "scalars/\(name)"))
    }
    if let activities = json["activities"] as? [[Double]] {
      trace.activities = activities.compactMap { pair in
        guard pair.count == 2 else { return nil }
        return ActivitySample(
          seconds: pair[0], activity: Activity(rawValue: UInt8(clamping: Int(pair[1]))) ?? .unknown)
      }
    }
    return (trace, report)
  }

  /// Reads one comma2k19 segment folder (the one holding `processed_log/`):
  /// IMU/accelerometer (m/s², forward-right-down, gravity included),
  /// IMU/gyro (rad/s), CAN/speed (the car's own speed, scalar "canSpeed", m/s)
  /// and GNSS/live_gnss_ublox (fixes: latitude, longitude, speed, UTC ms,
  /// altitude, bearing). Sensor times are seconds since the device booted;
  /// the time origin is set so that they line up with the GNSS UTC times.
  public static func readComma2k19Segment(_ segment: String) throws -> (Trace, ImportReport) {
    let log = (segment as NSString).appendingPathComponent("processed_log")
    func array(_ parts: String...) throws -> NPYArray {
      try NPYArray.read(path: ([log] + parts).joined(separator: "/"))
    }
    var trace = Trace(metadata: TraceMetadata(device: "comma EON", platform: .android, format: "comma2k19"))
    var report = ImportReport()
    func record(_ name: String, _ n: Int) {
      var r = FileReport(file: name)
      r.rowsRead = n
      r.rowsKept = n
      report.files.append(r)
      trace.metadata.sourceFiles.append(name)
    }
    let gnssT = try array("GNSS", "live_gnss_ublox", "t").doubles
    let gnss = try array("GNSS", "live_gnss_ublox", "value")
    guard gnss.matrixShape.columns == 6, gnss.matrixShape.rows == gnssT.count else {
      throw TraceError.malformed(
        SourceLocation(file: "live_gnss_ublox/value", line: 1), reason: "expected N×6, found \(gnss.shape)")
    }
    let utc = gnss.column(3)
    // Boot time in epoch ms: the median of UTC − boot seconds over the fixes.
    let offsets = zip(utc, gnssT).map { $0 - $1 * 1000 }.sorted()
    let bootMilliseconds = offsets.isEmpty ? 0 : offsets[offsets.count / 2]
    trace.metadata.timeOriginMilliseconds = Int64(bootMilliseconds.rounded())
    var fixes = FixColumns()
    let (lat, lon, speed, altitude, bearing) = (
      gnss.column(0), gnss.column(1), gnss.column(2), gnss.column(4), gnss.column(5)
    )
    for i in 0..<gnssT.count {
      fixes.append(
        Fix(
          timeMilliseconds: Int64(utc[i].rounded()), latitudeDegrees: lat[i], longitudeDegrees: lon[i],
          horizontalAccuracyMeters: .nan, speedMetersPerSecond: speed[i] >= 0 ? speed[i] : nil,
          headingDegrees: bearing[i], altitudeMeters: altitude[i]))
    }
    var fixReport = FileReport(file: "GNSS/live_gnss_ublox")
    fixReport.rowsRead = fixes.count
    fixReport.rowsKept = fixes.count
    // "Lines" of an array are its row numbers, 1-based.
    trace.fixes = StreamAssembly.finish(
      fixes, lines: fixes.timeMilliseconds.indices.map { $0 + 1 }, report: &fixReport)
    report.files.append(fixReport)
    trace.metadata.sourceFiles.append("GNSS/live_gnss_ublox")
    func vector(_ group: String, _ name: String) throws -> VectorStream {
      let t = try array(group, name, "t").doubles
      let v = try array(group, name, "value")
      guard v.matrixShape.rows == t.count, v.matrixShape.columns == 3 else {
        throw TraceError.malformed(
          SourceLocation(file: "\(group)/\(name)/value", line: 1), reason: "expected N×3, found \(v.shape)")
      }
      record("\(group)/\(name)", t.count)
      // Boot seconds are already seconds since the time origin (the boot).
      return VectorStream(seconds: t, x: v.column(0), y: v.column(1), z: v.column(2))
    }
    trace.accelerometer = AccelerationStream(
      samples: try vector("IMU", "accelerometer"), content: .includesGravity)
    trace.gyroscope = try vector("IMU", "gyro")
    let canT = try array("CAN", "speed", "t").doubles
    let canV = try array("CAN", "speed", "value").column(0)
    trace.scalars["canSpeed"] = ScalarStream(seconds: canT, values: canV, unit: "m/s")
    record("CAN/speed", canT.count)
    return (trace, report)
  }
}
