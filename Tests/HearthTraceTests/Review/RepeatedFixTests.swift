import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Issue 16, second review: only a fix logged again within
/// ``DuplicateRule/repeatedFixSeconds`` of the one kept is a repeat; a
/// stopped car's identical fixes a second apart are fixes.
@Suite("Identical fixes: a repeat at the sensor rate, or a car standing still")
struct RepeatedFixTests {
  static let header = "time,seconds_elapsed,latitude,longitude,horizontalAccuracy,speed,bearing,altitude\n"

  /// A Location.csv row `seconds` after the start at a fixed position.
  static func row(_ seconds: Double, latitude: Double = 51.503, speed: Double = 0) -> String {
    "\(1_700_000_000_000_000_000 + Int64((seconds * 1e9).rounded())),\(seconds),\(latitude),-0.1,5,\(speed),90,10\n"
  }

  func fixes(_ text: String) throws -> ([Double], FileReport, [Double], FileReport) {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording epoch time,platform\n3,Pixel,1700000000000,android\n")
    folder.write("Location.csv", Self.header + text)
    let (trace, report) = try TraceImport.read(path: folder.path)
    let stream = try TraceImport.stream(path: folder.path)
    var streamed: [Double] = []
    let streamedReport = try stream.forEachChunk(samples: 3) { chunk in
      streamed += chunk.trace.fixes.timeMilliseconds.map { Double($0 - 1_700_000_000_000) / 1000 }
    }
    return try (
      trace.fixes.timeMilliseconds.map { Double($0 - 1_700_000_000_000) / 1000 },
      #require(report.file(endingWith: "Location.csv")), streamed,
      #require(streamedReport.file(endingWith: "Location.csv"))
    )
  }

  @Test(
    "regression 2026-12-02: identical fixes were merged however far apart in time (a stopped car after a crash)"
  )
  func stoppedCarKeepsItsFixes() throws {
    // 30 s driving, then stopped: the same fix once a second for 30 s.
    var text = ""
    for i in 0..<30 { text += Self.row(Double(i), latitude: 51.5 + Double(i) * 0.0001, speed: 15) }
    for i in 30..<60 { text += Self.row(Double(i)) }
    let (whole, report, streamed, streamedReport) = try fixes(text)
    #expect(whole.count == 60 && report.rejectedByReason.isEmpty)
    #expect(streamed == whole && streamedReport == report)
    #expect(whole.last == 59, "a fix after the stop, for the detector's 'stopped after' rule")
  }

  @Test("the same fix again 0.999 s after the kept one is a repeat; 1.0 s after, a fix of its own")
  func repeatInterval() throws {
    let (whole, report, streamed, streamedReport) = try fixes(
      [0, 0.5, 0.999, 1.0, 1.999, 2.0].map { Self.row($0) }.joined())
    // Kept: 0; 0.5 and 0.999 repeat it; 1.0 is 1 s after it: kept; 1.999
    // repeats 1.0; 2.0 is 1 s after 1.0: kept.
    #expect(whole == [0, 1.0, 2.0])
    #expect(report.rejectedByReason == [.duplicate: 3] && report.reconciles)
    #expect(streamed == whole && streamedReport == report)
  }
}
