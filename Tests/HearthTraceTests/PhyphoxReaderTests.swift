import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

@Suite("phyphox exports")
struct PhyphoxReaderTests {
  static let folder = TestPaths.sharedDatasets.appendingPathComponent("phone-drop-freefall/raw_data")
  static let expectedRows: [String: Int] = [
    "fall_1": 1748, "fall_10": 1388, "fall_11": 1369, "fall_2": 1520, "fall_3": 1449, "fall_4": 1678,
    "fall_5": 1812, "fall_6": 1642, "fall_7": 1368, "fall_8": 1405, "fall_9": 1669, "up_and_down_2": 1001,
    "up_and_down_3": 1037, "up_and_down_4": 738, "up_and_down_5": 917, "up_and_down_6": 824,
    "up_and_down_7": 805, "up_and_down_8": 836,
  ]

  @Test("all 18 real recordings load with their row counts, in m/s² with gravity, timed from meta")
  func realRecordings() throws {
    for (name, rows) in Self.expectedRows {
      let (trace, report) = try PhyphoxReader.read(path: Self.folder.appendingPathComponent(name).path)
      #expect(report.reconciles, "\(name)")
      let accelerometer = try #require(trace.accelerometer, "\(name)")
      #expect(accelerometer.samples.count == rows, "\(name)")
      #expect(accelerometer.content == .includesGravity)
      // Held in the hand most of the time, the phone reads about 1 g: the
      // median magnitude tells m/s² (≈ 9.8) from g (≈ 1) and from gravity-free data (≈ 0).
      let s = accelerometer.samples
      var magnitudes: [Double] = []
      for i in 0..<s.count {
        let squared: Double = s.x[i] * s.x[i] + s.y[i] * s.y[i] + s.z[i] * s.z[i]
        magnitudes.append(squared.squareRoot())
      }
      magnitudes.sort()
      let median = magnitudes[magnitudes.count / 2]
      #expect(median > 5 && median < 15, "\(name): median |a| \(median)")
      #expect(trace.metadata.timeOriginMilliseconds != nil && trace.metadata.device?.contains("ASUS") == true)
    }
  }

  @Test(
    "locale variant: semicolons, decimal commas, °/s and kPa converted; a NaN component rejects its sample")
  func localeAndUnits() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Gyroscope.csv",
      "\"Time (s)\";\"Gyroscope x (°/s)\";\"Gyroscope y (°/s)\";\"Gyroscope z (°/s)\"\n0,0;180;NaN;0\n0,5;90;0;-90\n"
    )
    folder.write("Pressure.csv", "\"Time (s)\",\"Pressure (kPa)\"\n0,101.325\n")
    let (trace, report) = try PhyphoxReader.read(path: folder.path)
    #expect(report.reconciles)
    let gyro = try #require(trace.gyroscope)
    #expect(gyro.seconds == [0.5])
    #expect(abs(gyro.x[0] - .pi / 2) < 1e-15 && abs(gyro.z[0] + .pi / 2) < 1e-15)
    #expect(report.file(endingWith: "Gyroscope.csv")?.rejectedByReason == [.missingValue: 1])
    #expect(report.file(endingWith: "Pressure.csv")?.units?.contains("kPa × 10") == true)
    #expect(abs(trace.barometer!.hectopascals[0] - 1013.25) < 1e-9)
  }

  @Test("an unknown unit names the file and column; strict mode throws it")
  func unknownUnit() throws {
    let folder = TemporaryFolder()
    folder.write("Raw Data.csv", "\"Time (s)\",\"Acceleration x (furlong/fortnight^2)\"\n0,1\n")
    let (_, report) = try PhyphoxReader.read(path: folder.path)
    let reason = try #require(report.files.first?.skippedBecause)
    #expect(reason.contains("Raw Data.csv:1:2") && reason.contains("furlong"))
    #expect(throws: TraceError.self) {
      try PhyphoxReader.read(path: folder.path, options: ReadOptions(strict: true))
    }
  }
}
