import Foundation
import HearthImpact
import Testing

/// Issue 16 / issue 15 item 5, the detector's side: a bad sample is skipped
/// and counted, never kept, and never silences a later jolt.
@Suite("Impact detector: bad samples are skipped, counted and harmless")
struct BadSampleTests {
  static let g = ImpactConfiguration.standardGravity
  static let crash = JoltSequenceTests.collision(at: 30)

  /// The crash fed in 0.25 s batches with `edit` applied to the batch holding `at`.
  static func streamed(
    _ scene: Scene, editAt at: Double, receivedLag: Double? = nil, _ edit: (inout ImpactBatch) -> Void
  ) -> (verdicts: [ImpactVerdict], counters: ImpactCounters) {
    let whole = scene.batch
    var detector = ImpactDetector()
    var verdicts: [ImpactVerdict] = []
    var start = -0.25
    while start < scene.duration + 1 {
      var piece = whole.window(from: start, to: start + 0.25)
      if let lag = receivedLag { piece.receivedSeconds = start + 0.25 + lag }
      if at >= start && at < start + 0.25 { edit(&piece) }
      verdicts += detector.process(piece)
      start += 0.25
    }
    return (verdicts + detector.finish(), detector.counters)
  }

  @Test("regression (issue 16): a NaN or blank sample time before the jolt no longer silences the detector")
  func nanTime() {
    for bad in [Double.nan, .infinity, -.infinity, 1e300] {
      let r = Self.streamed(Self.crash, editAt: 25) {
        $0.accelerometer.insert(Sample3(bad, 0, 0, Self.g), at: 3)
      }
      #expect(r.verdicts.map(\.outcome) == [.possibleImpact], "time \(bad)")
      #expect(r.counters.accelerometer.badTime == 1, "time \(bad)")
    }
  }

  @Test("time bound: ±1e10 s is a time, the next double beyond is not")
  func timeBound() {
    let bound = ImpactConfiguration().maximumAbsoluteTimeSeconds
    var d = ImpactDetector()
    _ = d.process(ImpactBatch(accelerometer: [Sample3(-bound, 0, 0, Self.g)], vehicleGate: true))
    #expect(d.counters.accelerometer.badTime == 0)
    _ = d.process(ImpactBatch(accelerometer: [Sample3(bound.nextUp, 0, 0, Self.g)], vehicleGate: true))
    #expect(d.counters.accelerometer.badTime == 1)
  }

  /// Found by review17: a bound of 1e308 s passed the checks, and a sample
  /// near it made the bin index t / 0.05 s overflow to ∞, after which the
  /// search for the bin's end never ended.
  @Test(
    "the time bound may be 1e300 s, not the next double; samples at ±1e300 s with the shortest bin are taken"
  )
  func largestTimeBound() {
    var c = ImpactConfiguration()
    c.vibrationBinSeconds = 0.05
    c.maximumAbsoluteTimeSeconds = ImpactConfiguration.largestTimeBoundSeconds
    #expect(c.problems.isEmpty)
    var beyond = c
    beyond.maximumAbsoluteTimeSeconds = ImpactConfiguration.largestTimeBoundSeconds.nextUp
    #expect(beyond.problems.count == 1)
    #expect(beyond.problems.first?.hasPrefix("maximumAbsoluteTimeSeconds: ") == true)
    beyond.maximumAbsoluteTimeSeconds = 1e308
    #expect(!beyond.problems.isEmpty)
    for bound in [-1e300, 1e300] {
      var d = ImpactDetector(configuration: c)
      let times = bound < 0 ? [bound, bound.nextUp] : [bound.nextDown, bound]
      let samples = times.map { Sample3($0, 0, 0, Self.g) }
      _ = d.process(ImpactBatch(accelerometer: samples, vehicleGate: true))
      _ = d.finish()
      #expect(d.counters.accelerometer.badTime == 0, "at \(bound) s")
    }
  }

  @Test(
    "a sample stamped after the batch was received is a bad time: a far-future glitch cannot make every later sample old"
  )
  func futureGlitch() {
    let glitch = { (b: inout ImpactBatch) in b.accelerometer.append(Sample3(5_000, 0, 0, Self.g)) }
    let guarded = Self.streamed(Self.crash, editAt: 25, receivedLag: 0.05, glitch)
    #expect(guarded.verdicts.map(\.outcome) == [.possibleImpact])
    #expect(guarded.counters.accelerometer.badTime == 1 && guarded.counters.accelerometer.notNewer == 0)
    // Without a receipt time the glitch is taken as the newest sample, and
    // every later one is counted as not newer (documented; a reader should
    // give receipt times): nothing is silent about it.
    let unguarded = Self.streamed(Self.crash, editAt: 25, glitch)
    #expect(unguarded.counters.accelerometer.notNewer > 1_000)
  }

  @Test(
    "regression (issue 16): an infinite or 1e300 acceleration is skipped (it poisoned gravity for minutes)")
  func hugeAcceleration() {
    for bad in [Double.infinity, 1e300, -1e300, Double.nan] {
      let r = Self.streamed(Self.crash, editAt: 25) { $0.accelerometer[2].x = bad }
      #expect(r.verdicts.map(\.outcome) == [.possibleImpact], "x = \(bad)")
      #expect(r.counters.accelerometer.badValue == 1)
    }
  }

  @Test("accelerometer bound: 64 g per axis is a reading, just beyond is not")
  func accelerationBound() {
    let bound = ImpactConfiguration().maximumAccelerationMetersPerSecondSquared
    var d = ImpactDetector()
    _ = d.process(ImpactBatch(accelerometer: [Sample3(1, bound, -bound, 0)], vehicleGate: true))
    _ = d.process(ImpactBatch(accelerometer: [Sample3(2, 0, 0, -bound.nextUp)], vehicleGate: true))
    #expect(d.counters.accelerometer.badValue == 1)
  }

  @Test(
    "regression (issue 15, 5): a gyroscope 'no reading' −100 marker is skipped, not a 173 rad/s spin that vouches for any jolt"
  )
  func gyroscopeMarker() {
    var s = Self.crash
    s.spins = []  // no real spin: the jolt must stay silent
    let r = Self.streamed(s, editAt: 30.1) { b in
      for i in b.gyroscope.indices { b.gyroscope[i] = Sample3(b.gyroscope[i].seconds, -100, -100, -100) }
    }
    #expect(r.verdicts.map(\.outcome) == [.silent], "\(r.verdicts.map(\.explanation))")
    #expect(r.counters.gyroscope.badValue >= 1 && (r.verdicts.first?.measured(.spin) ?? 99) < 1)
    let bound = ImpactConfiguration().maximumRotationRadiansPerSecond
    var d = ImpactDetector()
    _ = d.process(
      ImpactBatch(gyroscope: [Sample3(1, bound, 0, 0), Sample3(2, bound.nextUp, 0, 0)], vehicleGate: true))
    #expect(d.counters.gyroscope.badValue == 1)
  }

  @Test(
    "gyroscope: the |ω|² screen keeps the per-axis bound exactly (at the bound, an ulp beyond, every axis at it, squares that overflow or underflow)"
  )
  func rotationScreen() {
    for bound in [ImpactConfiguration().maximumRotationRadiansPerSecond, 1, 1e-200, 1e200, 1.3e154, 1.4e154] {
      let values = [
        bound, -bound, bound.nextUp, -bound.nextUp, bound.nextDown, bound / 2, 0, .nan, .infinity, -.infinity,
        1e300, 1e-300, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
      ]
      var samples: [Sample3] = []
      for x in values {
        for (y, z) in [(0.0, 0.0), (bound, bound), (-bound, bound.nextDown), (x, x)] {
          samples.append(Sample3(Double(samples.count), x, y, z))
          samples.append(Sample3(Double(samples.count), y, x, z))
          samples.append(Sample3(Double(samples.count), z, y, x))
        }
      }
      // The rule the screen must keep: every axis within ±bound, NaN not.
      let bad = samples.filter { s in ![s.x, s.y, s.z].allSatisfy { abs($0) <= bound } }.count
      var configuration = ImpactConfiguration()
      configuration.maximumRotationRadiansPerSecond = bound
      for cut in [1, 3, samples.count] {
        var d = ImpactDetector(configuration: configuration)
        for start in stride(from: 0, to: samples.count, by: cut) {
          let batch = Array(samples[start..<min(samples.count, start + cut)])
          _ = d.process(ImpactBatch(gyroscope: batch, vehicleGate: true))
        }
        #expect(
          d.counters.gyroscope.badValue == bad && d.counters.gyroscope.notNewer == 0,
          "bound \(bound), batches of \(cut): \(d.counters.gyroscope)")
      }
    }
  }

  @Test("barometer: 260–1260 hPa are readings; kPa (101.3) and NaN are not")
  func pressureBounds() {
    var d = ImpactDetector()
    let samples = [260, 1260, 259.99, 1260.01, 101.3, .nan, .infinity].enumerated().map {
      Sample1(Double($0), $1)
    }
    _ = d.process(ImpactBatch(barometer: samples, vehicleGate: true))
    #expect(d.counters.barometer.badValue == 5)
    // A kPa stretch around the jolt does not make a pressure rise.
    var s = Self.crash
    s.spins = []
    s.pressureSteps = [.init(seconds: 30.5, value: 3)]
    #expect(s.reports().count == 1)
    let r = Self.streamed(s, editAt: 30.6) { b in
      for i in b.barometer.indices { b.barometer[i].value /= 10 }
    }
    #expect(r.verdicts.map(\.outcome) == [.possibleImpact] && r.counters.barometer.badValue >= 1)
  }

  @Test(
    "GPS speed: up to 515 m/s is a speed, NaN and negative are unmeasured, +∞ and beyond 515 m/s are skipped")
  func speedBounds() {
    var d = ImpactDetector()
    let speeds = [515, .nan, -1, 515.01, .infinity, -.infinity].enumerated().map { Sample1(Double($0), $1) }
    _ = d.process(ImpactBatch(fixes: speeds, vehicleGate: true))
    #expect(d.counters.fixes.badValue == 3 && d.counters.fixes.notNewer == 0)
  }

  @Test("repeats and late samples are counted per stream as not newer")
  func notNewer() {
    var d = ImpactDetector()
    _ = d.process(
      ImpactBatch(accelerometer: [Sample3(1, 0, 0, Self.g), Sample3(1, 0, 0, Self.g)], vehicleGate: true))
    _ = d.process(
      ImpactBatch(
        accelerometer: [Sample3(0.5, 0, 0, Self.g)], fixes: [Sample1(3, 1), Sample1(3, 2)], vehicleGate: true)
    )
    #expect(
      d.counters.accelerometer.notNewer == 2 && d.counters.fixes.notNewer == 1
        && d.counters.skippedSamples == 3)
  }
}
