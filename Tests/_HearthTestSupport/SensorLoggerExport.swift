import Foundation
import HearthGeo
import HearthTrace

/// A phone's wall clock beside its monotonic clock, as a recording app sees
/// them: the wall clock reads the recording's start plus the monotonic
/// time, plus every step it has taken by then (an NTP correction, a manual
/// change of the clock). The reference model the readers' two-clock rule is
/// checked against (SPEC §9: every stream is placed on the monotonic clock).
public struct WallClock: Sendable, Hashable, CustomStringConvertible {
  /// One jump of the wall clock.
  public struct Step: Sendable, Hashable {
    /// When it jumps, seconds on the monotonic clock: rows at this time or
    /// later read the jumped clock.
    public var atSeconds: Double
    /// How far it jumps, seconds (positive: forward). Whole milliseconds.
    public var bySeconds: Double

    public init(atSeconds: Double, bySeconds: Double) {
      self.atSeconds = atSeconds
      self.bySeconds = bySeconds
    }
  }

  /// The wall clock at monotonic time 0, ms since the epoch (the recording's
  /// start, Sensor Logger's "recording epoch time").
  public var startMilliseconds: Int64
  public var steps: [Step]

  public init(startMilliseconds: Int64, steps: [Step] = []) {
    self.startMilliseconds = startMilliseconds
    self.steps = steps
  }

  /// The wall clock at monotonic `seconds`, whole ms since the epoch (the
  /// monotonic time rounded to the millisecond, then every step taken).
  public func milliseconds(atSeconds seconds: Double) -> Int64 {
    startMilliseconds + Int64((seconds * 1000).rounded()) + stepMilliseconds(atSeconds: seconds)
  }

  /// Every step taken by monotonic `seconds`, added up, ms.
  public func stepMilliseconds(atSeconds seconds: Double) -> Int64 {
    steps.filter { $0.atSeconds <= seconds }.reduce(0) { $0 + Int64(($1.bySeconds * 1000).rounded()) }
  }

  public var description: String {
    "wall clock from \(startMilliseconds) ms"
      + (steps.isEmpty
        ? ", no step"
        : ", steps " + steps.map { "\($0.bySeconds) s at \($0.atSeconds) s" }.joined(separator: ", "))
  }
}

/// Writes a trace as a Sensor Logger export folder (Android, the setting
/// off: every unit as the app writes it there), every row carrying both
/// clocks: `time` (ns since the epoch, whole milliseconds, from a
/// ``WallClock`` that may step) and `seconds_elapsed` (the trace's own
/// time, written exactly). Fixes' `seconds_elapsed` is their time from the
/// trace's origin. For reader tests; not a product writer.
public enum SensorLoggerExport {
  /// Writes `trace` into `folder` (created if missing): Metadata.csv,
  /// TotalAcceleration.csv or Accelerometer.csv, Gravity.csv, Gyroscope.csv,
  /// Barometer.csv, Location.csv and Activity.csv, each only when the trace
  /// has that stream. `wallClock` defaults to one that never steps, from the
  /// trace's origin (1 700 000 000 000 ms when it has none);
  /// `metadata: false` leaves Metadata.csv out.
  public static func write(
    _ trace: Trace, to folder: String, wallClock: WallClock? = nil, metadata: Bool = true
  ) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let origin = trace.metadata.timeOriginMilliseconds ?? 1_700_000_000_000
    let clock = wallClock ?? WallClock(startMilliseconds: origin)
    func save(_ name: String, _ header: String, _ rows: [(seconds: Double, values: String)]) throws {
      var text = header + "\n"
      for row in rows {
        text += "\(clock.milliseconds(atSeconds: row.seconds) * 1_000_000),\(row.seconds),\(row.values)\n"
      }
      try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
    }
    func number(_ value: Double, missing: String) -> String { value.isNaN ? missing : "\(value)" }
    func vectors(_ name: String, _ s: VectorStream) throws {
      try save(
        name, "time,seconds_elapsed,z,y,x",
        s.seconds.indices.map { (s.seconds[$0], "\(s.z[$0]),\(s.y[$0]),\(s.x[$0])") })
    }
    if metadata {
      try
        "version,device name,recording epoch time,platform,standardisation\n3,HearthTest,\(origin),android,false\n"
        .write(toFile: folder + "/Metadata.csv", atomically: true, encoding: .utf8)
    }
    if let a = trace.accelerometer {
      try vectors(a.content == .includesGravity ? "TotalAcceleration.csv" : "Accelerometer.csv", a.samples)
    }
    if let g = trace.gravity { try vectors("Gravity.csv", g) }
    if let g = trace.gyroscope { try vectors("Gyroscope.csv", g) }
    if let b = trace.barometer {
      try save(
        "Barometer.csv", "time,seconds_elapsed,relativeAltitude,pressure",
        b.seconds.indices.map {
          (b.seconds[$0], "\(number(b.relativeAltitudeMeters[$0], missing: "")),\(b.hectopascals[$0])")
        })
    }
    if !trace.fixes.isEmpty {
      let f = trace.fixes
      try save(
        "Location.csv", "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude",
        f.timeMilliseconds.indices.map { i in
          let values = [
            number(f.horizontalAccuracyMeters[i], missing: "-1"),
            number(f.speedMetersPerSecond[i], missing: "-1"),
            number(f.headingDegrees[i], missing: "-1"), number(f.altitudeMeters[i], missing: ""),
            "\(f.longitudeDegrees[i])", "\(f.latitudeDegrees[i])",
          ]
          return (Double(f.timeMilliseconds[i] - origin) / 1000, values.joined(separator: ","))
        })
    }
    if !trace.activities.isEmpty {
      let names: [Activity: String] = [
        .unknown: "unknown", .still: "stationary", .walking: "walking", .running: "running",
        .cycling: "cycling", .automotive: "automotive",
      ]
      try save(
        "Activity.csv", "time,seconds_elapsed,activity",
        trace.activities.map { ($0.seconds, names[$0.activity] ?? "unknown") })
    }
  }
}
