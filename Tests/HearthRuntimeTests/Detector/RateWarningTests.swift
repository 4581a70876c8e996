import HearthGeo
import HearthRuntime
import HearthTrace
import Testing

@Suite("Rate warnings say the rate in digits that show it is under the minimum (issue 29.12)")
struct RateWarningTests {
  /// A phone at rest: accelerometer with gravity at 50 Hz, gyroscope at `gyroscopeHertz`.
  static func warnings(gyroscopeHertz: Double) throws -> [String] {
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    var acceleration = VectorStream()
    for i in 0..<500 { acceleration.append(seconds: Double(i) * 0.02, x: 0, y: 0, z: 9.80665) }
    trace.accelerometer = AccelerationStream(samples: acceleration, content: .includesGravity)
    var gyroscope = VectorStream()
    for i in 0..<50 { gyroscope.append(seconds: Double(i) / gyroscopeHertz, x: 0, y: 0, z: 0) }
    trace.gyroscope = gyroscope
    return try #require(ImpactFeed(trace: trace, gate: .on)).statistics.rateWarnings
  }

  @Test(
    "a gyroscope at 4.999 Hz is 'runs at 4.999 Hz (under 5 Hz)', never '5 Hz (under 5 Hz)'; at 5 Hz there is no warning"
  )
  func gyroscopeJustUnderFive() throws {
    for (hertz, shown) in [(4.999, "4.999"), (4.9999, "4.9999"), (4.99, "4.99"), (2.5, "2.5")] {
      let found = try Self.warnings(gyroscopeHertz: hertz)
      #expect(
        found.count == 1 && found[0].hasPrefix("the gyroscope runs at \(shown) Hz (under 5 Hz)"),
        "\(hertz): \(found)")
    }
    #expect(try Self.warnings(gyroscopeHertz: 5).isEmpty)
  }
}
