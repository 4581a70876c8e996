import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

@Suite("Sensor Logger folders")
struct SensorLoggerReaderTests {
  static var memsNav: String {
    TestPaths.sharedDatasets.appendingPathComponent("mems-nav-drives/raw/2023-08-04_214758").path
  }

  @Test("the real MEMS-Nav export loads with every row accounted for")
  func realExport() throws {
    let (trace, report) = try SensorLoggerReader.read(folder: Self.memsNav)
    #expect(report.reconciles)
    #expect(trace.metadata.platform == .android)
    #expect(trace.metadata.device == "Pixel 6a")
    #expect(trace.metadata.timeOriginMilliseconds == 1_691_185_678_576)
    #expect(trace.fixes.count + (report.file(endingWith: "Location.csv")?.rowsRejected ?? 0) == 8784)
    // 29 of the 758 network rows repeat the fix before them exactly, but
    // 20–80 s later (the provider's own interval), not at the sensor rate:
    // fixes of their own, as a stopped car's identical fixes are
    // (DuplicateRule.repeatedFixSeconds).
    #expect(trace.providerFixes["network"]?.count == 758)
    #expect(report.file(endingWith: "LocationNetwork.csv")?.rejectedByReason == [:])
    #expect(trace.providerFixes["gps"] != nil)
    let first = trace.fixes[0]
    #expect(first.timeMilliseconds == 1_691_185_677_581)
    #expect(abs(first.latitudeDegrees - 40.1046933) < 1e-12)
    #expect(abs(first.horizontalAccuracyMeters - 4.186999797821045) < 1e-12)
    // Network fixes run from 11.7 m to 3.1 km of accuracy.
    let network = trace.providerFixes["network"]!.horizontalAccuracyMeters
    #expect(network.min()! > 11.7 && network.max()! > 3000)
    for (name, file) in report.files.map({ ($0.file, $0) }) {
      #expect(file.skippedBecause == nil, "\(name)")
    }
  }
}

@Suite("Sensor Logger import rules on made-up exports")
struct SensorLoggerRulesTests {
  @Test(
    "negative seconds_elapsed are kept; rows out of order are sorted and counted; exact duplicates dropped")
  func ordering() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Gyroscope.csv",
      "time,seconds_elapsed,z,y,x\n1,-0.5,1,1,1\n3,0.5,3,3,3\n2,0.0,2,2,2\n3,0.5,3,3,3\n4,0.5,9,9,9\n")
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    let gyro = try #require(trace.gyroscope)
    #expect(gyro.seconds == [-0.5, 0, 0.5, 0.5])
    #expect(gyro.z == [1, 2, 3, 9])
    let file = try #require(report.file(endingWith: "Gyroscope.csv"))
    #expect(file.reorderedRows == 1)
    #expect(file.rejectedByReason == [.duplicate: 1])
    #expect(file.rowsRead == 5 && file.rowsKept == 4 && file.reconciles)
  }

  @Test(
    "location: negative speed and accuracy mean missing; out-of-range rows rejected; same-time fixes deduplicated"
  )
  func location() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Location.csv",
      """
      time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude
      1000000000,0,5,-1,-1,10,2.0,48.0
      2000000000,1,40,0,90,10,2.0,48.0
      3000000000,2,-1,3,90,10,2.0,91.0
      2000000000,1,40,0,90,10,2.0,48.0

      """)
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.fixes.count == 2)
    #expect(trace.fixes[0].speedMetersPerSecond == nil && trace.fixes[0].headingDegrees == nil)
    #expect(trace.fixes[1].speedMetersPerSecond == nil, "Android zero on a 40 m fix is unmeasured")
    let file = try #require(report.file(endingWith: "Location.csv"))
    #expect(file.rejectedByReason == [.outOfRange: 1, .duplicate: 1] && file.reconciles)
  }

  @Test("a broken file is skipped with its reason; the others still load; strict mode throws")
  func brokenFile() throws {
    let folder = TemporaryFolder()
    folder.write("Gyroscope.csv", "time,seconds_elapsed,z,y\n1,0,1,1\n")  // no x column
    folder.write("Barometer.csv", "")
    folder.write("Gravity.csv", "time,seconds_elapsed,z,y,x\n1,0,9.8,0.2,0.3\n")
    let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
    #expect(trace.gravity?.count == 1)
    #expect(report.file(endingWith: "Gyroscope.csv")?.skippedBecause?.contains("missing column 'x'") == true)
    #expect(report.file(endingWith: "Barometer.csv")?.skippedBecause?.contains("empty file") == true)
    #expect(throws: TraceError.self) {
      try SensorLoggerReader.read(folder: folder.path, options: ReadOptions(strict: true))
    }
    #expect(throws: TraceError.self) { try SensorLoggerReader.read(folder: TemporaryFolder().path) }
  }
}
