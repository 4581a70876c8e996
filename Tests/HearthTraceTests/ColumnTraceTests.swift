import Foundation
import HearthGeo
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

/// A recording built from columns is checked exactly as a trace folder with
/// the same columns is read: the same samples kept, the same rows rejected
/// for the same reasons.
@Suite("Recordings built from columns are checked as a trace folder's rows")
struct ColumnTraceTests {
  /// Random columns with the values readers reject mixed in: NaN and huge
  /// times, repeats, disorder, out-of-range values, bad activity codes, fixes
  /// outside 1900–2200 or off the globe.
  static func columns(_ random: inout SeededGenerator, rows: Int) -> Trace {
    var trace = Trace(metadata: TraceMetadata(format: "columns"))
    let oddTimes: [Double] = [.nan, .infinity, -3e15, 1e10, 1.000_000_1e10, -1e10]
    func time(_ i: Int) -> Double {
      switch random.next() % 20 {
      case 0: oddTimes[Int(random.next() % UInt64(oddTimes.count))]
      case 1: Double(i) * 0.02 - 0.5  // behind its neighbours: out of order
      default: Double(i) * 0.02
      }
    }
    func vector(_ scale: Double, _ limit: Double) -> VectorStream {
      var s = VectorStream()
      for i in 0..<rows {
        let z =
          random.next() % 25 == 0 ? [Double.nan, limit * 1.01, -.infinity][Int(random.next() % 3)] : scale
        s.append(seconds: time(i), x: 0.1, y: -0.2, z: z)
        if random.next() % 30 == 0 { s.append(seconds: s.seconds[s.count - 1], x: 0.1, y: -0.2, z: z) }
      }
      return s
    }
    trace.accelerometer = AccelerationStream(samples: vector(9.81, 256 * 9.80665), content: .includesGravity)
    trace.gyroscope = vector(0.3, 4000 * Double.pi / 180)
    var barometer = PressureStream()
    for i in 0..<rows {
      let p = random.next() % 20 == 0 ? [101.3, .nan, 1260.5][Int(random.next() % 3)] : 1013.25
      barometer.append(seconds: [time(i)], hectopascals: [p], relativeAltitudeMeters: [.nan])
    }
    trace.barometer = barometer
    // Activities at quarter seconds: trace.json's JSON parser does not give
    // every decimal back to the last bit (2.8000000000000003 reads as
    // 2.800000000000001), and the comparison here is bit for bit.
    trace.activities = (0..<rows / 10).map { i in
      ActivitySample(
        seconds: random.next() % 20 == 0 ? oddTimes[i % oddTimes.count] : Double(i) * 0.25,
        activity: Activity(rawValue: UInt8(random.next() % 6)) ?? .unknown)
    }
    var fixes = FixColumns()
    for i in 0..<rows / 5 {
      let odd = random.next() % 15 == 0
      fixes.append(
        Fix(
          timeMilliseconds: odd
            ? [Int64.max, -2_208_988_800_001, 7_258_118_400_000][Int(random.next() % 3)]
            : 1_700_000_000_000 + Int64(i) * 1000,
          latitudeDegrees: random.next() % 20 == 0 ? 91 : 48.1, longitudeDegrees: 11.5,
          horizontalAccuracyMeters: random.next() % 20 == 0 ? 2e5 : 5, speedMetersPerSecond: 12,
          headingDegrees: nil, altitudeMeters: nil))
    }
    trace.fixes = fixes
    return trace
  }

  static func built(_ trace: Trace) -> ColumnTrace {
    var columns = ColumnTrace(metadata: trace.metadata)
    if let a = trace.accelerometer?.samples {
      columns.append(.accelerometer, seconds: a.seconds, x: a.x, y: a.y, z: a.z)
    }
    if let g = trace.gyroscope { columns.append(.gyroscope, seconds: g.seconds, x: g.x, y: g.y, z: g.z) }
    if let b = trace.barometer {
      columns.append(.barometer, seconds: b.seconds, x: b.hectopascals, y: [Double]?.none, z: [Double]?.none)
    }
    columns.append(
      .activities, seconds: trace.activities.map(\.seconds),
      x: trace.activities.map { Double($0.activity.rawValue) }, y: [Double]?.none, z: [Double]?.none)
    columns.append(fixes: trace.fixes)
    return columns
  }

  @Test("random columns with bad values: kept and rejected exactly as the same columns in a trace folder")
  func sameAsTraceFolder() throws {
    var random = SeededGenerator(seed: PropertyCampaign.baseSeed)
    for n in 0..<PropertyCampaign.cases(default: 20) {
      let raw = Self.columns(&random, rows: 50 + Int(random.next() % 400))
      let folder = TemporaryFolder()
      try TraceFolder.write(raw, to: folder.path("t"))
      let (expected, folderReport) = try TraceFolder.read(folder.path("t"))
      let (trace, report) = Self.built(raw).read()
      for (name, mine, theirs) in [
        ("accelerometer", trace.accelerometer?.samples.seconds, expected.accelerometer?.samples.seconds),
        ("gyroscope", trace.gyroscope?.seconds, expected.gyroscope?.seconds),
        ("barometer", trace.barometer?.seconds, expected.barometer?.seconds),
        ("activities", trace.activities.map(\.seconds), expected.activities.map(\.seconds)),
      ] {
        #expect(mine?.map(\.bitPattern) == theirs?.map(\.bitPattern), "case \(n): \(name) times differ")
      }
      #expect(trace.fixes == expected.fixes || trace.matches(expected), "case \(n): fixes differ")
      #expect(trace.matches(expected), "case \(n): a value differs")
      for name in ["accelerometer", "gyroscope", "barometer", "activities", "fixes"] {
        let mine = report.files.first { $0.file == name }
        let theirs = folderReport.files.first { $0.file == name || $0.file == "trace.json \(name)" }
        #expect(
          mine?.rowsRead == theirs?.rowsRead && mine?.rowsKept == theirs?.rowsKept, "case \(n), \(name)")
        #expect(mine?.rejectedByReason == theirs?.rejectedByReason, "case \(n), \(name)")
      }
      // Every stream comes out in time order.
      #expect(
        trace.accelerometer.map { zip($0.samples.seconds, $0.samples.seconds.dropFirst()).allSatisfy(<=) }
          == true)
    }
  }

  @Test("a negative fix speed is unmeasured (NaN), as the CSV readers take iOS's −1")
  func negativeSpeed() {
    var columns = ColumnTrace(metadata: TraceMetadata(format: "columns"))
    columns.append(
      fixes: FixColumns([
        Fix(
          timeMilliseconds: 1_700_000_000_000, latitudeDegrees: 1, longitudeDegrees: 2,
          horizontalAccuracyMeters: 5,
          speedMetersPerSecond: -1, headingDegrees: nil, altitudeMeters: nil)
      ]))
    let (trace, report) = columns.read()
    #expect(trace.fixes.count == 1 && trace.fixes.speedMetersPerSecond[0].isNaN)
    #expect(report.files.first?.rowsRejected == 0)
  }
}
