import HearthGeo

/// A three-axis sensor stream as a struct of arrays, in SI units, sorted by time.
///
/// `seconds` are relative to the trace's ``TraceMetadata/timeOriginMilliseconds``
/// (Sensor Logger's `seconds_elapsed`, phyphox's experiment time), and may be
/// negative (samples logged just before the recording's nominal start).
public struct VectorStream: Sendable, Hashable {
  /// Sample times, seconds since the trace's time origin, ascending.
  public var seconds: [Double] = []
  /// Components in the device frame, SI units of the stream's quantity.
  /// The frame is Android's for every reader (x right, y up the screen, z
  /// out of it; right-handed), and accelerations are specific force: a phone
  /// at rest reads +9.81 m/s² along the axis pointing up, and a gravity
  /// estimate points up as well (readers negate iOS's axes to reach it).
  public var x: [Double] = []
  public var y: [Double] = []
  public var z: [Double] = []

  public init() {}

  public init(seconds: [Double], x: [Double], y: [Double], z: [Double]) {
    precondition(seconds.count == x.count && x.count == y.count && y.count == z.count)
    self.seconds = seconds
    self.x = x
    self.y = y
    self.z = z
  }

  public var count: Int { seconds.count }
  public var isEmpty: Bool { seconds.isEmpty }

  /// Appends one sample. O(1) amortised.
  public mutating func append(seconds t: Double, x a: Double, y b: Double, z c: Double) {
    seconds.append(t)
    x.append(a)
    y.append(b)
    z.append(c)
  }

  /// Duration between the first and last sample, seconds (0 when < 2 samples).
  public var spanSeconds: Double { count < 2 ? 0 : seconds[count - 1] - seconds[0] }

  /// Mean sample rate, Hz (0 when < 2 samples).
  public var meanRateHz: Double { spanSeconds > 0 ? Double(count - 1) / spanSeconds : 0 }
}

/// Barometer samples: pressure (hPa) and, when the logger gives it, the
/// altitude change it implies (m); sorted by time.
public struct PressureStream: Sendable, Hashable {
  public var seconds: [Double] = []
  public var hectopascals: [Double] = []
  /// Relative altitude, metres; NaN where the source has none.
  public var relativeAltitudeMeters: [Double] = []

  public init() {}

  public init(seconds: [Double], hectopascals: [Double], relativeAltitudeMeters: [Double]? = nil) {
    precondition(seconds.count == hectopascals.count)
    self.seconds = seconds
    self.hectopascals = hectopascals
    self.relativeAltitudeMeters =
      relativeAltitudeMeters ?? Array(repeating: .nan, count: seconds.count)
    precondition(self.relativeAltitudeMeters.count == seconds.count)
  }

  public var count: Int { seconds.count }
  public var isEmpty: Bool { seconds.isEmpty }
}

/// Any other single-valued signal (a car's own CAN speed, a wheel speed),
/// with its unit named by the importer; sorted by time.
public struct ScalarStream: Sendable, Hashable {
  public var seconds: [Double] = []
  public var values: [Double] = []
  /// The SI unit of `values`, e.g. "m/s".
  public var unit: String

  public init(seconds: [Double] = [], values: [Double] = [], unit: String) {
    precondition(seconds.count == values.count)
    self.seconds = seconds
    self.values = values
    self.unit = unit
  }

  public var count: Int { seconds.count }
}

/// Whether an accelerometer stream contains gravity.
public enum AccelerationContent: String, Sendable, Hashable, Codable {
  /// Total specific force, as a raw accelerometer reads it: about 9.81 m/s²
  /// upwards at rest (Sensor Logger's TotalAcceleration.csv, phyphox's
  /// "Acceleration with g", comma2k19's IMU).
  case includesGravity
  /// Gravity removed by the phone (Sensor Logger's Accelerometer.csv, iOS
  /// userAcceleration, Android's linear acceleration): about 0 at rest.
  case excludesGravity
}

/// The accelerometer stream and what it contains.
public struct AccelerationStream: Sendable, Hashable {
  public var samples: VectorStream
  public var content: AccelerationContent

  public init(samples: VectorStream, content: AccelerationContent) {
    self.samples = samples
    self.content = content
  }
}

/// The platform a recording came from (it decides the raw units).
public enum Platform: String, Sendable, Hashable, Codable {
  case iOS = "ios"
  case android
  case unknown
}

/// The motion classifier's verdict from a moment on.
public struct ActivitySample: Sendable, Hashable, Codable {
  /// Seconds since the trace's time origin.
  public var seconds: Double
  public var activity: Activity

  public init(seconds: Double, activity: Activity) {
    self.seconds = seconds
    self.activity = activity
  }
}

/// Where a trace came from.
public struct TraceMetadata: Sendable, Hashable, Codable {
  /// Device model, e.g. "Pixel 6a".
  public var device: String?
  public var platform: Platform
  /// The files read, in order.
  public var sourceFiles: [String]
  /// Milliseconds since the Unix epoch of sensor time 0 (nil when unknown,
  /// e.g. comma2k19's seconds since boot).
  public var timeOriginMilliseconds: Int64?
  /// Which reader made the trace ("sensor-logger", "phyphox", "gpx", …).
  public var format: String

  public init(
    device: String? = nil, platform: Platform = .unknown, sourceFiles: [String] = [],
    timeOriginMilliseconds: Int64? = nil, format: String
  ) {
    self.device = device
    self.platform = platform
    self.sourceFiles = sourceFiles
    self.timeOriginMilliseconds = timeOriginMilliseconds
    self.format = format
  }
}

/// One recording: fixes, sensor streams and where it came from.
///
/// Every stream is in SI units (m/s², rad/s, hPa; fixes in degrees, metres,
/// m/s) and sorted by time; fix times are Int64 milliseconds since the epoch,
/// sensor times Double seconds since ``TraceMetadata/timeOriginMilliseconds``.
public struct Trace: Sendable, Hashable {
  public var fixes = FixColumns()
  /// Fixes from one location provider only, by name ("gps", "network"), when
  /// the recording kept them apart (Sensor Logger's LocationGps.csv and
  /// LocationNetwork.csv); ``fixes`` is the fused stream.
  public var providerFixes: [String: FixColumns] = [:]
  public var accelerometer: AccelerationStream?
  /// Gravity as the phone estimated it (Sensor Logger's Gravity.csv), m/s².
  public var gravity: VectorStream?
  /// Angular rate, rad/s.
  public var gyroscope: VectorStream?
  public var barometer: PressureStream?
  /// Other named signals (e.g. "canSpeed").
  public var scalars: [String: ScalarStream] = [:]
  /// Activity verdicts over time (Sensor Logger's Activity.csv).
  public var activities: [ActivitySample] = []
  public var metadata: TraceMetadata

  public init(metadata: TraceMetadata) { self.metadata = metadata }

  /// The accelerometer with gravity included: the stream itself if it already
  /// includes gravity; otherwise gravity-free acceleration plus the phone's
  /// gravity estimate, linearly interpolated to the accelerometer's times.
  /// Nil when neither is possible.
  /// - Complexity: O(n + m) for n accelerometer and m gravity samples.
  public func accelerationIncludingGravity() -> VectorStream? {
    guard let accelerometer else { return nil }
    if accelerometer.content == .includesGravity { return accelerometer.samples }
    guard let gravity, !gravity.isEmpty else { return nil }
    var total = accelerometer.samples
    var j = 0
    for i in 0..<total.count {
      let t = total.seconds[i]
      while j + 1 < gravity.count && gravity.seconds[j + 1] <= t { j += 1 }
      let (gx, gy, gz) = Self.interpolate(gravity, at: t, from: j)
      total.x[i] += gx
      total.y[i] += gy
      total.z[i] += gz
    }
    return total
  }

  private static func interpolate(_ s: VectorStream, at t: Double, from j: Int) -> (Double, Double, Double) {
    guard j + 1 < s.count, s.seconds[j] <= t else {
      let k = t < s.seconds[0] ? 0 : s.count - 1
      return (s.x[k], s.y[k], s.z[k])
    }
    let span = s.seconds[j + 1] - s.seconds[j]
    let w = span > 0 ? (t - s.seconds[j]) / span : 0
    return (
      s.x[j] + (s.x[j + 1] - s.x[j]) * w, s.y[j] + (s.y[j + 1] - s.y[j]) * w,
      s.z[j] + (s.z[j + 1] - s.z[j]) * w
    )
  }
}

extension Trace {
  /// Whether `other` holds the same samples, stream by stream, and the same
  /// metadata, NaN counting as equal to NaN (`==` follows IEEE, where a NaN
  /// reading — a missing relative altitude — differs from itself). O(n).
  public func matches(_ other: Trace) -> Bool {
    func same(_ a: [Double], _ b: [Double]) -> Bool {
      a.count == b.count
        && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) || $0 == $1 }
    }
    func same(_ a: VectorStream?, _ b: VectorStream?) -> Bool {
      guard let a, let b else { return a == nil && b == nil }
      return same(a.seconds, b.seconds) && same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z)
    }
    func same(_ a: PressureStream?, _ b: PressureStream?) -> Bool {
      guard let a, let b else { return a == nil && b == nil }
      return same(a.seconds, b.seconds) && same(a.hectopascals, b.hectopascals)
        && same(a.relativeAltitudeMeters, b.relativeAltitudeMeters)
    }
    func same(_ a: [String: ScalarStream], _ b: [String: ScalarStream]) -> Bool {
      a.keys.sorted() == b.keys.sorted()
        && a.allSatisfy { key, s in
          b[key].map { $0.unit == s.unit && same($0.seconds, s.seconds) && same($0.values, s.values) }
            ?? false
        }
    }
    return metadata == other.metadata && fixes == other.fixes && providerFixes == other.providerFixes
      && accelerometer?.content == other.accelerometer?.content
      && same(accelerometer?.samples, other.accelerometer?.samples) && same(gravity, other.gravity)
      && same(gyroscope, other.gyroscope) && same(barometer, other.barometer) && same(scalars, other.scalars)
      && activities == other.activities
  }
}

extension VectorStream {
  /// Drops the first `n` samples. O(count).
  public mutating func removeFirst(_ n: Int) {
    guard n > 0 else { return }
    seconds.removeFirst(n)
    x.removeFirst(n)
    y.removeFirst(n)
    z.removeFirst(n)
  }
}

extension PressureStream {
  /// Drops the first `n` samples. O(count).
  public mutating func removeFirst(_ n: Int) {
    guard n > 0 else { return }
    seconds.removeFirst(n)
    hectopascals.removeFirst(n)
    relativeAltitudeMeters.removeFirst(n)
  }
}
