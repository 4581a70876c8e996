import HearthGeo
import HearthImpact
import HearthSim
import HearthTrace

/// Sensor data in the shape the detector takes. Times stay in seconds on the
/// trace's clock; fix times are converted from epoch milliseconds with the
/// trace's origin.
extension SensorBatch {
  /// This batch for `ImpactDetector` (`originMilliseconds`: the drive's start).
  public func impactBatch(originMilliseconds: Int64) -> ImpactBatch {
    ImpactBatch(
      accelerometer: accelerometer.samples3, gyroscope: gyroscope.samples3,
      barometer: zip(barometer.seconds, barometer.hectopascals).map { Sample1($0, $1) },
      fixes: fixes.speedSamples(originMilliseconds: originMilliseconds), vehicleGate: vehicleGate)
  }
}

extension Trace {
  /// The whole recording as one batch for `ImpactDetector.replay`, with the
  /// vehicle gate as given; nil when it has no accelerometer that includes
  /// gravity (nor one plus a gravity stream to add back).
  public func impactBatch(vehicleGate: Bool = true) -> ImpactBatch? {
    guard let stream = accelerometer else { return nil }
    var samples = stream.samples.samples3
    if stream.content == .excludesGravity {
      guard let gravity, gravity.count == samples.count else { return nil }
      for i in samples.indices {
        samples[i].x += gravity.x[i]
        samples[i].y += gravity.y[i]
        samples[i].z += gravity.z[i]
      }
    }
    return ImpactBatch(
      accelerometer: samples, gyroscope: gyroscope?.samples3 ?? [],
      barometer: barometer.map { zip($0.seconds, $0.hectopascals).map { Sample1($0, $1) } } ?? [],
      fixes: fixes.speedSamples(originMilliseconds: metadata.timeOriginMilliseconds ?? 0),
      vehicleGate: vehicleGate)
  }
}

extension VectorStream {
  var samples3: [Sample3] { seconds.indices.map { Sample3(seconds[$0], x[$0], y[$0], z[$0]) } }
}

extension FixColumns {
  /// (seconds since the origin, speed m/s; −1 when unmeasured).
  func speedSamples(originMilliseconds: Int64) -> [Sample1] {
    (0..<count).map { i in
      let speed = speedMetersPerSecond[i]
      return Sample1(Double(timeMilliseconds[i] - originMilliseconds) / 1000, speed.isNaN ? -1 : speed)
    }
  }
}
