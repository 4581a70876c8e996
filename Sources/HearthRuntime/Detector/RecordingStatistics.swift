import Foundation
import HearthImpact
import HearthTrace

/// What every output says of a recording beside the verdicts: the hours the
/// accelerometer recorded, the peak total |a|, and the streams too slow for
/// the detector. Computed here only, from the samples the detector is
/// handed, so `impact detect`, libhearth's report and `hearth_trace_info`
/// give the same numbers for the same samples.
///
/// Samples are counted in the order given (a stream's own time order, batch
/// after batch); the sums are then the same however the samples were cut
/// into batches.
public struct RecordingStatistics: Sendable, Hashable {
  /// The streams whose rates are judged.
  public enum Stream: String, Sendable, Hashable, CaseIterable {
    case accelerometer, gyroscope, barometer
  }

  /// A step between accelerometer samples longer than this is a pause, not
  /// recorded time, s. Choice: 1 s (a phone delivers samples every 10–20 ms;
  /// a second without one is the recording stopping, not sampling).
  public static let pauseSeconds = 1.0

  /// Below these median rates a stream cannot show what the detector
  /// measures, Hz: an accelerometer under 20 Hz a 60–150 ms crash pulse, a
  /// gyroscope under 5 Hz the spin within a 1 s window, a barometer under
  /// 2 Hz a rise within 2 s.
  public static func minimumRateHz(_ stream: Stream) -> Double {
    switch stream {
    case .accelerometer: 20
    case .gyroscope: 5
    case .barometer: 2
    }
  }

  /// The sample steps of one stream.
  private struct Steps: Sendable, Hashable {
    var last: Double?
    var count = 0
    var intervals = IntervalCounter()

    mutating func add(_ t: Double) {
      if let last, t - last > 0 { intervals.add(t - last) }
      last = t
      count += 1
    }
  }

  private var accelerometer = Steps()
  private var gyroscope = Steps()
  private var barometer = Steps()
  private var secondsWithData = 0.0
  private var peakMetersPerSecondSquared = 0.0

  public init() {}

  /// Counts one accelerometer sample (gravity included): its step from the
  /// last one (recorded time unless a pause), its total |a|. O(1) expected.
  public mutating func addAccelerometer(seconds t: Double, x: Double, y: Double, z: Double) {
    if let last = accelerometer.last {
      let step = t - last
      if step > 0 && step <= Self.pauseSeconds { secondsWithData += step }
    }
    accelerometer.add(t)
    let magnitude = (x * x + y * y + z * z).squareRoot()
    if magnitude > peakMetersPerSecondSquared { peakMetersPerSecondSquared = magnitude }
  }

  /// Counts the time of one sample of `stream` (the accelerometer's go
  /// through ``addAccelerometer(seconds:x:y:z:)``). O(1) expected.
  public mutating func add(_ stream: Stream, seconds t: Double) {
    switch stream {
    case .accelerometer: accelerometer.add(t)
    case .gyroscope: gyroscope.add(t)
    case .barometer: barometer.add(t)
    }
  }

  /// Counts every sample of a batch handed to the detector. O(n) expected.
  public mutating func add(_ batch: ImpactBatch) {
    for s in batch.accelerometer { addAccelerometer(seconds: s.seconds, x: s.x, y: s.y, z: s.z) }
    for s in batch.gyroscope { gyroscope.add(s.seconds) }
    for s in batch.barometer { barometer.add(s.seconds) }
  }

  /// Hours the accelerometer recorded: the sum of its sample steps, a step
  /// longer than ``pauseSeconds`` left out (a pause, not recorded time).
  public var hoursWithData: Double { secondsWithData / 3600 }

  /// The largest total |a| (gravity included) of the accelerometer, g (0
  /// with no sample).
  public var peakAccelerationG: Double { peakMetersPerSecondSquared / ImpactConfiguration.standardGravity }

  /// The median sample rate of `stream`, Hz: the reciprocal of its median
  /// step between samples (steps that do not move forward left out); nil
  /// with fewer than 3 samples or no step forward. Exact up to
  /// ``IntervalCounter/exactLimit`` distinct steps, within 0.01 % beyond.
  public func medianRateHz(_ stream: Stream) -> Double? {
    let s =
      switch stream {
      case .accelerometer: accelerometer
      case .gyroscope: gyroscope
      case .barometer: barometer
      }
    guard s.count >= 3, s.intervals.count > 0 else { return nil }
    return s.intervals.value(atRank: s.intervals.count / 2).map { 1 / $0 }
  }

  /// One warning per stream whose median rate is under
  /// ``minimumRateHz(_:)``, saying what it cannot show. A rate within a
  /// relative 1e-9 of the minimum counts as at it (float stamps exactly at
  /// the minimum, steps of 0.2 s ± an ulp), and the rate is printed in as
  /// many digits as it takes to stay under the minimum ("4.999 Hz (under
  /// 5 Hz)", never "5 Hz (under 5 Hz)").
  public var rateWarnings: [String] {
    Stream.allCases.compactMap { stream in
      let minimum = Self.minimumRateHz(stream)
      guard let rate = medianRateHz(stream), rate < minimum * (1 - 1e-9) else { return nil }
      let what =
        switch stream {
        case .accelerometer: "a 60–150 ms crash pulse; jolts will be missed or understated"
        case .gyroscope: "a spin within the impact's window reliably"
        case .barometer: "a pressure rise within 2 s reliably"
        }
      return
        "the \(stream.rawValue) runs at \(Self.digits(rate, below: minimum)) Hz (under \(Int(minimum)) Hz): it cannot show \(what)"
    }
  }

  /// `value` in 3 significant digits, or as many more as it takes to print
  /// a number still below `limit`.
  static func digits(_ value: Double, below limit: Double) -> String {
    for precision in 3...17 {
      let text = String(format: "%.\(precision)g", value)
      if let shown = Double(text), shown < limit { return text }
    }
    return "\(value)"
  }
}
