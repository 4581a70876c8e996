import HearthGeo
import Testing

import struct HearthSim.SeededGenerator

@Suite("Ingest validation (SPEC §1)")
struct ValidationTests {
  let now: Int64 = 1_790_000_000_000

  func fix(time: Int64? = nil, lat: Double = 40, lon: Double = -75, accuracy: Double = 10) -> Fix {
    Fix(
      timeMilliseconds: time ?? now, latitudeDegrees: lat, longitudeDegrees: lon,
      horizontalAccuracyMeters: accuracy)
  }

  func report(_ fixes: [Fix]) throws -> ValidationReport {
    try FixValidation.validate(FixColumns(fixes), nowMilliseconds: now).get()
  }

  @Test("latitude and longitude at their limits are fine; beyond them the batch is refused")
  func schemaLimits() throws {
    let edges = [fix(lat: 90), fix(lat: -90), fix(lon: 180), fix(lon: -180)]
    #expect(try report(edges).acceptedIndices == [0, 1, 2, 3])
    let cases: [(Fix, FixField, SchemaError.Reason)] = [
      (fix(lat: 90.000001), .latitude, .outOfRange), (fix(lat: -90.5), .latitude, .outOfRange),
      (fix(lon: 180.000001), .longitude, .outOfRange), (fix(lon: -181), .longitude, .outOfRange),
      (fix(lat: .nan), .latitude, .notFinite), (fix(lon: .infinity), .longitude, .notFinite),
    ]
    for (bad, field, reason) in cases {
      let batch = FixColumns([fix(), fix(), bad, fix(lat: 100)])
      let result = FixValidation.validate(batch, nowMilliseconds: now)
      guard case .failure(let error) = result else {
        Issue.record("batch with \(bad) was not refused")
        continue
      }
      #expect(error.index == 2 && error.field == field && error.reason == reason)
      #expect(error.description.contains("fix 2"))
    }
  }

  @Test("fix times outside 1900–2200 are implausible whatever the server clock says, both ends")
  func plausibleSpan() throws {
    let first = FixValidation.plausibleMilliseconds.lowerBound  // 1900-01-01T00:00:00Z
    let end = FixValidation.plausibleMilliseconds.upperBound  // 2200-01-01T00:00:00Z
    #expect(first == -2_208_988_800_000 && end == 7_258_118_400_000)
    func reasons(_ times: [Int64], clock: Int64) throws -> [RejectionReason?] {
      let report = try FixValidation.validate(FixColumns(times.map { fix(time: $0) }), nowMilliseconds: clock)
        .get()
      return times.indices.map { i in report.rejections.first { $0.index == i }?.reason }
    }
    // A clock at either end: the relative limits alone would accept every one of these.
    #expect(try reasons([first, first - 1], clock: first + 1) == [nil, .tooOld])
    #expect(try reasons([end - 1, end], clock: end - 1) == [nil, .inFuture])
    // A door's clock at the ends of Int64: nothing there is a fix.
    #expect(try reasons([Int64.min, Int64.min + 1_000], clock: Int64.min + 2_000) == [.tooOld, .tooOld])
    #expect(try reasons([Int64.max - 1_000, Int64.max], clock: Int64.max - 2_000) == [.inFuture, .inFuture])
  }

  @Test("future limit: 5 min ahead accepted, 1 ms more rejected")
  func future() throws {
    let r = try report([fix(time: now + 300_000), fix(time: now + 300_001)])
    #expect(r.acceptedIndices == [0])
    #expect(r.rejections == [Rejection(index: 1, reason: .inFuture)])
  }

  @Test("age limit: 7 days old accepted, 1 ms older rejected")
  func age() throws {
    let week: Int64 = 7 * 86_400_000
    let r = try report([fix(time: now - week), fix(time: now - week - 1)])
    #expect(r.acceptedIndices == [0])
    #expect(r.rejections == [Rejection(index: 1, reason: .tooOld)])
  }

  @Test("accuracy that cannot gate anything rejects the fix; zero is allowed")
  func accuracy() throws {
    let r = try report([fix(accuracy: .nan), fix(accuracy: -1), fix(accuracy: .infinity), fix(accuracy: 0)])
    #expect(r.acceptedIndices == [3])
    #expect(r.rejections.map(\.reason) == [.accuracyMissing, .accuracyMissing, .accuracyMissing])
    #expect(
      r.rejections.map(\.reason.field) == [.horizontalAccuracy, .horizontalAccuracy, .horizontalAccuracy])
  }

  @Test("speed, heading, altitude, battery and accuracy: each bound taken, the next value past it rejected")
  func fieldRanges() throws {
    func with(
      accuracy: Double = 10, speed: Double? = nil, heading: Double? = nil, altitude: Double? = nil,
      battery: Double? = nil
    ) -> Fix {
      Fix(
        timeMilliseconds: now, latitudeDegrees: 40, longitudeDegrees: -75, horizontalAccuracyMeters: accuracy,
        speedMetersPerSecond: speed, headingDegrees: heading, altitudeMeters: altitude, batteryLevel: battery)
    }
    let cases: [(Fix, RejectionReason?)] = [
      (with(), nil),
      (with(accuracy: 100_000), nil), (with(accuracy: 100_000.0.nextUp), .accuracyOutOfRange),
      (with(speed: 0), nil), (with(speed: 600), nil), (with(speed: 600.0.nextUp), .speedOutOfRange),
      (with(speed: -0.0.nextUp), .speedOutOfRange), (with(speed: .infinity), .speedOutOfRange),
      (with(speed: -.infinity), .speedOutOfRange), (with(speed: .nan), nil),
      (with(heading: 0), nil), (with(heading: 360), nil), (with(heading: 360.0.nextUp), .headingOutOfRange),
      (with(heading: -0.0.nextUp), .headingOutOfRange), (with(heading: -.infinity), .headingOutOfRange),
      (with(altitude: -2000), nil), (with(altitude: (-2000.0).nextDown), .altitudeOutOfRange),
      (with(altitude: 100_000), nil), (with(altitude: 100_000.0.nextUp), .altitudeOutOfRange),
      (with(altitude: .infinity), .altitudeOutOfRange),
      (with(battery: 0), nil), (with(battery: 1), nil), (with(battery: 1.0.nextUp), .batteryOutOfRange),
      (with(battery: -0.0.nextUp), .batteryOutOfRange), (with(battery: -.infinity), .batteryOutOfRange),
      // One reason per fix, the first in the documented order.
      (with(accuracy: .nan, speed: 1e9), .accuracyMissing),
      (with(accuracy: 1e6, speed: 1e9, heading: 400), .accuracyOutOfRange),
      (with(speed: 1e9, heading: 400, altitude: 1e9, battery: 5), .speedOutOfRange),
      (with(heading: 400, altitude: 1e9, battery: 5), .headingOutOfRange),
      (with(altitude: 1e9, battery: 5), .altitudeOutOfRange),
    ]
    let r = try report(cases.map(\.0))
    for (i, (fix, expected)) in cases.enumerated() {
      #expect(r.rejections.first { $0.index == i }?.reason == expected, "\(fix)")
    }
    #expect(r.reconciles)
    #expect(
      [RejectionReason.speedOutOfRange, .headingOutOfRange, .altitudeOutOfRange, .batteryOutOfRange].map(
        \.field)
        == [.speed, .heading, .altitude, .batteryLevel])
    #expect(RejectionReason.accuracyOutOfRange.field == .horizontalAccuracy)
  }

  @Test(
    "a platform's raw speed and heading as a door stores them: not measured, measured, or kept to be rejected"
  )
  func rawReadings() {
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: -1, horizontalAccuracyMeters: 5) == nil)
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: 0, horizontalAccuracyMeters: 50) == nil)
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: 0, horizontalAccuracyMeters: 5) == 0)
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: 600, horizontalAccuracyMeters: 5) == 600)
    #expect(
      SpeedReading.storedSpeedMetersPerSecond(raw: 600.0.nextUp, horizontalAccuracyMeters: 5) == 600.0.nextUp)
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: .infinity, horizontalAccuracyMeters: 5) == .infinity)
    #expect(
      SpeedReading.storedSpeedMetersPerSecond(raw: -.infinity, horizontalAccuracyMeters: 5) == -.infinity)
    #expect(SpeedReading.storedSpeedMetersPerSecond(raw: .nan, horizontalAccuracyMeters: 5) == nil)
    #expect(FixValidation.heading(raw: -1) == nil && FixValidation.heading(raw: .nan) == nil)
    #expect(FixValidation.heading(raw: 0) == 0 && FixValidation.heading(raw: 400) == 400)
    #expect(FixValidation.heading(raw: -.infinity) == -.infinity)
  }

  @Test("accepted + rejected == input, counted by reason (seeded mix)")
  func reconciliation() throws {
    var generator = SeededGenerator(seed: 3)
    var fixes: [Fix] = []
    for _ in 0..<5000 {
      let offset = Int64(generator.nextDouble(in: -8 * 86_400_000, 600_000))
      let accuracy = generator.next() % 20 == 0 ? Double.nan : generator.nextDouble(in: 0, 3000)
      fixes.append(fix(time: now + offset, accuracy: accuracy))
    }
    let r = try report(fixes)
    #expect(r.reconciles)
    #expect(r.acceptedIndices.count + r.rejections.count == 5000)
    let counts = r.rejectedCountsByReason
    #expect(counts.values.reduce(0, +) == r.rejections.count)
    #expect(counts[.inFuture]! > 0 && counts[.tooOld]! > 0 && counts[.accuracyMissing]! > 0)
    #expect(
      FixValidation.validate(FixColumns(), nowMilliseconds: now)
        == .success(
          ValidationReport(inputCount: 0, acceptedIndices: [], rejections: [])))
  }

  @Test("limits are parameters, and extreme clocks do not overflow")
  func parameters() throws {
    let rules = ValidationRules(maximumFutureMilliseconds: 0, maximumAgeMilliseconds: 1000)
    let r = try FixValidation.validate(
      FixColumns([fix(time: now + 1), fix(time: now - 1000), fix(time: now - 1001)]),
      nowMilliseconds: now, rules: rules
    ).get()
    #expect(r.acceptedIndices == [1])
    let extreme = try FixValidation.validate(
      FixColumns([fix(time: .max), fix(time: .min)]), nowMilliseconds: .max - 1
    ).get()
    // No overflow; and neither end of Int64 is a fix time (1900–2200, `plausibleSpan`).
    #expect(extreme.acceptedIndices.isEmpty && extreme.rejections.map(\.reason) == [.inFuture, .tooOld])
  }
}
