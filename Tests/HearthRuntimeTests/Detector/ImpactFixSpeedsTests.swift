import HearthGeo
import HearthImpact
import HearthSim
import HearthTrace
import Testing

@testable import HearthRuntime

/// Raw fixes to the detector's fix samples (SPEC §1 *Unmeasured speed*, the
/// rule the readers apply), and what it changes for the detector (SPEC §9).
@Suite("ImpactFixSpeeds: raw platform speeds with their accuracy, as the detector's fix samples")
struct ImpactFixSpeedsTests {
  static func speed(_ raw: Double, accuracy: Double) -> Double {
    ImpactFixSpeeds.sample(seconds: 7, rawSpeedMetersPerSecond: raw, horizontalAccuracyMeters: accuracy).value
  }

  @Test("a 0 is a real stop on a fix of 30 m or sharper, unmeasured on a looser one")
  func bothSidesOfThirtyMetres() {
    #expect(Self.speed(0, accuracy: 0) == 0)
    #expect(Self.speed(0, accuracy: 29.99) == 0)
    #expect(Self.speed(0, accuracy: 30) == 0)
    #expect(Self.speed(0, accuracy: 30.0.nextUp) == -1)
    #expect(Self.speed(0, accuracy: 65) == -1)
    #expect(Self.speed(0, accuracy: 2_000) == -1)
    // The threshold is the parameter's.
    let strict = ImpactFixSpeeds.sample(
      seconds: 1, rawSpeedMetersPerSecond: 0, horizontalAccuracyMeters: 20,
      zeroIsUnmeasuredBeyondAccuracyMeters: 10)
    #expect(strict.value == -1 && strict.seconds == 1)
  }

  @Test("a small measured speed is kept on any accuracy; only an exact 0 is the platform's 'not measured'")
  func zeroAgainstSmallSpeed() {
    for accuracy in [5.0, 30, 31, 65, 5_000, .nan, -1] {
      #expect(Self.speed(0.1, accuracy: accuracy) == 0.1, "accuracy \(accuracy)")
      #expect(Self.speed(0.0.nextUp, accuracy: accuracy) == 0.0.nextUp, "accuracy \(accuracy)")
      #expect(Self.speed(13.9, accuracy: accuracy) == 13.9, "accuracy \(accuracy)")
    }
    #expect(Self.speed(-0.0, accuracy: 5) == 0)
    #expect(Self.speed(-0.0, accuracy: 65) == -1)
  }

  @Test("unknown accuracy (NaN, or negative as iOS's −1): a 0 is unmeasured")
  func unknownAccuracy() {
    for accuracy in [Double.nan, -1, -0.5, -1e300] {
      #expect(Self.speed(0, accuracy: accuracy) == -1, "accuracy \(accuracy)")
    }
  }

  @Test("iOS's −1, any negative speed and NaN are unmeasured whatever the accuracy")
  func unmeasuredSpeeds() {
    for accuracy in [0.0, 5, 65, .nan] {
      for raw in [-1.0, -0.5, -1e300, .nan] {
        #expect(Self.speed(raw, accuracy: accuracy) == -1, "speed \(raw), accuracy \(accuracy)")
      }
    }
  }

  @Test("an accuracy that is no reading (±∞, above 100 km) makes the fix one the detector skips and counts")
  func accuracyNotAReading() {
    for accuracy in [Double.infinity, -.infinity, ReadingBounds.maximumAccuracyMeters.nextUp, 1e9] {
      for raw in [0.0, 12, -1] {
        #expect(Self.speed(raw, accuracy: accuracy) == .infinity, "speed \(raw), accuracy \(accuracy)")
      }
    }
    // The bound itself is a reading (a cell-tower fix is a few km).
    #expect(Self.speed(12, accuracy: ReadingBounds.maximumAccuracyMeters) == 12)
    #expect(Self.speed(0, accuracy: ReadingBounds.maximumAccuracyMeters) == -1)
    // The detector skips such a fix as a bad value; the rest of the batch goes on.
    var detector = ImpactDetector()
    let fixes = ImpactFixSpeeds.samples(
      seconds: [1, 2, 3], rawSpeedsMetersPerSecond: [10, 11, 12], horizontalAccuracyMeters: [5, .infinity, 5])
    _ = detector.process(
      ImpactBatch(
        accelerometer: [Sample3(1, 0, 0, 9.81), Sample3(3, 0, 0, 9.81)], fixes: fixes, vehicleGate: true))
    #expect(detector.counters.fixes.badValue == 1 && detector.counters.fixes.total == 1)
  }

  @Test("an infinite speed is left for the detector's bound (not made unmeasured); too fast is kept as given")
  func infiniteSpeeds() {
    #expect(Self.speed(.infinity, accuracy: 5) == .infinity)
    #expect(Self.speed(-.infinity, accuracy: 65) == -.infinity)
    #expect(Self.speed(1_000, accuracy: 5) == 1_000)
  }

  @Test("the columns give the samples fix by fix, in order")
  func columns() {
    let t = [0.0, 1, 2, 3, 4, 5]
    let v = [0.0, 0, 0.2, -1, 0, 9]
    let a = [65.0, 8, 65, 5, .nan, -1]
    let out = ImpactFixSpeeds.samples(seconds: t, rawSpeedsMetersPerSecond: v, horizontalAccuracyMeters: a)
    #expect(out.map(\.seconds) == t)
    #expect(out.map(\.value) == [-1, 0, 0.2, -1, -1, 9])
    // No accuracy column: every accuracy unknown.
    let unknown = ImpactFixSpeeds.samples(
      seconds: t, rawSpeedsMetersPerSecond: v, horizontalAccuracyMeters: repeatElement(.nan, count: t.count))
    #expect(unknown.map(\.value) == [-1, -1, 0.2, -1, -1, 9])
    #expect(
      ImpactFixSpeeds.samples(seconds: [], rawSpeedsMetersPerSecond: [], horizontalAccuracyMeters: []).isEmpty
    )
  }

  /// The catalogue's frontal crash at 50 km/h, cut as the phone delivers it,
  /// with every fix before the jolt made an Android network fix: speed 0
  /// (never measured) at 65 m; the fixes after it GPS-class (5 m).
  static func looseZerosBeforeTheCrash() throws -> (
    raw: [ImpactBatch], converted: [ImpactBatch], jolt: Double
  ) {
    let trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 4).trace
    let feed = try #require(ImpactFeed(trace: trace, gate: .on))
    let truth = feed.verdicts()
    let crash = try #require(truth.first { $0.outcome == .possibleImpact }, "C1 as generated: \(truth)")
    #expect(crash.usedGPS, "the generated drive has measured speeds, so GPS judges it")
    var raw: [ImpactBatch] = []
    var converted: [ImpactBatch] = []
    for batch in feed.batches() {
      let before = batch.fixes.map { $0.seconds < crash.joltSeconds }
      let speeds = zip(batch.fixes, before).map { $1 ? 0 : $0.value }
      let accuracies = before.map { $0 ? 65.0 : 5.0 }
      var old = batch
      // hearth_detector_feed: speeds as given.
      old.fixes = zip(batch.fixes, speeds).map { Sample1($0.seconds, $1) }
      raw.append(old)
      var new = batch
      new.fixes = ImpactFixSpeeds.samples(
        seconds: batch.fixes.map(\.seconds), rawSpeedsMetersPerSecond: speeds,
        horizontalAccuracyMeters: accuracies)
      converted.append(new)
    }
    return (raw, converted, crash.joltSeconds)
  }

  static func verdicts(_ batches: [ImpactBatch]) -> [ImpactVerdict] {
    var detector = ImpactDetector()
    var out: [ImpactVerdict] = []
    for batch in batches { out += detector.process(batch) }
    return out + detector.finish()
  }

  @Test("a crash after loose Android zeros is no longer judged 'not moving' from GPS")
  func looseZerosNoLongerStopTheCar() throws {
    let (raw, converted, jolt) = try Self.looseZerosBeforeTheCrash()
    // Speeds as given: the zeros read as a stopped car, GPS says "not
    // moving" and the crash goes silent.
    let asGiven = try #require(Self.verdicts(raw).first { $0.joltSeconds == jolt })
    #expect(asGiven.usedGPS)
    #expect(asGiven.conditions.first { $0.name == .movingBeforeGPS }?.held == false)
    #expect(asGiven.outcome != .possibleImpact)
    // Through the rule: the zeros are unmeasured, no fix is current at the
    // jolt, and the car's vibration says it was moving.
    let fixed = try #require(Self.verdicts(converted).first { $0.joltSeconds == jolt })
    #expect(!fixed.usedGPS)
    #expect(!fixed.conditions.contains { $0.name == .movingBeforeGPS && !$0.held })
    #expect(fixed.conditions.first { $0.name == .movingBeforeVibration }?.held == true)
    #expect(fixed.outcome == .possibleImpact, "\(fixed)")
  }
}
