import HearthGeo
import HearthImpact
import HearthRuntime
import HearthSim

// Generated drives to `ImpactDetector`: the simulator's batches with the
// runtime's fix conversion (recordings go through HearthRuntime's feed).

extension SensorBatch {
  /// This simulator batch for `ImpactDetector` (`originMilliseconds`: the drive's start).
  public func impactBatch(originMilliseconds: Int64) -> ImpactBatch {
    ImpactBatch(
      accelerometer: accelerometer.samples3, gyroscope: gyroscope.samples3,
      barometer: zip(barometer.seconds, barometer.hectopascals).map { Sample1($0, $1) },
      fixes: fixes.speedSamples(originMilliseconds: originMilliseconds), vehicleGate: vehicleGate)
  }
}
