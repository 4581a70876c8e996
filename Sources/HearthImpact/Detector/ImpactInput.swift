/// One batch of sensor data as the phone delivers it (about every 250 ms).
/// Times are seconds on one clock (any origin). Within a batch samples may be
/// out of order or repeated; the detector sorts each stream and drops
/// samples not newer than the last one it used. Samples with a bad time or
/// an impossible value (the bounds of `ImpactConfiguration`) are skipped.
/// Every skipped sample is counted in `ImpactCounters`, per stream and reason.
public struct ImpactBatch: Sendable, Hashable {
  /// Accelerometer, 50 Hz: total specific force (gravity included), phone frame, m/s².
  public var accelerometer: [Sample3] = []
  /// Gyroscope, 10 Hz: angular rate, phone frame, rad/s.
  public var gyroscope: [Sample3] = []
  /// Barometer, 5 Hz: pressure, hPa.
  public var barometer: [Sample1] = []
  /// GPS fixes that arrived with this batch: time and speed (m/s; nil or a
  /// negative value = unmeasured).
  public var fixes: [Sample1] = []
  /// The OS classifier says "in a vehicle".
  public var vehicleGate: Bool
  /// When the batch was handed over, s on the sample clock (nil: unknown, as
  /// in a replay). A sample stamped after it cannot be real: it is a bad
  /// time, so one glitch far in the future cannot make every later sample
  /// look old.
  public var receivedSeconds: Double?

  public init(
    accelerometer: [Sample3] = [], gyroscope: [Sample3] = [], barometer: [Sample1] = [],
    fixes: [Sample1] = [],
    vehicleGate: Bool, receivedSeconds: Double? = nil
  ) {
    self.accelerometer = accelerometer
    self.gyroscope = gyroscope
    self.barometer = barometer
    self.fixes = fixes
    self.vehicleGate = vehicleGate
    self.receivedSeconds = receivedSeconds
  }

  /// The samples and fixes timed in [from, to) seconds, with this batch's
  /// gate: how a recording is cut into the batches a phone would deliver.
  /// - Complexity: O(n) comparisons over the batch's n samples.
  public func window(from: Double, to: Double) -> ImpactBatch {
    func inside(_ t: Double) -> Bool { t >= from && t < to }
    return ImpactBatch(
      accelerometer: accelerometer.filter { inside($0.seconds) },
      gyroscope: gyroscope.filter { inside($0.seconds) }, barometer: barometer.filter { inside($0.seconds) },
      fixes: fixes.filter { inside($0.seconds) }, vehicleGate: vehicleGate)
  }
}

/// A sample with a time, s.
protocol TimedSample { var seconds: Double { get } }

/// A three-axis sample: time (s) and x, y, z.
public struct Sample3: Sendable, Hashable, Codable, TimedSample {
  public var seconds: Double
  public var x: Double
  public var y: Double
  public var z: Double
  public init(_ seconds: Double, _ x: Double, _ y: Double, _ z: Double) {
    self.seconds = seconds
    self.x = x
    self.y = y
    self.z = z
  }
  var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
}

/// A scalar sample: time (s) and value.
public struct Sample1: Sendable, Hashable, Codable, TimedSample {
  public var seconds: Double
  public var value: Double
  public init(_ seconds: Double, _ value: Double) {
    self.seconds = seconds
    self.value = value
  }
}
