import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Issue 16, second review: one row far out of order made the streamed
/// reader hold every row after it. Rows more than
/// ``RowOrderer/maximumReorderSeconds`` behind are rejected as `outOfOrder`,
/// whole and streamed alike, and the streamed reader holds at most that much.
@Suite("The reorder horizon is capped; rows further back are rejected")
struct ReorderHorizonTests {
  @Test("regression 2026-12-02: one out-of-order row made the streamed reader buffer the whole file")
  func strayRowDoesNotHoldTheFile() {
    // 1000 s at 10 Hz in order, then one row at −1 s, 1001 s behind.
    var block = RowBlock(columnCount: 1)
    for i in 0..<10_000 { block.append(key: Double(i) * 0.1, line: i + 2, 0) }
    block.append(key: -1, line: 10_002, 0)
    var survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds)
    survey.add(block.keys)
    // The row at −1 s is rejected: it sets no origin (review26 F6) and no
    // horizon, so nothing waits.
    #expect(survey.earliestKey == 0 && survey.horizon == 0)
    // Were it 1001 s deep, the orderer would still hold no more than 60 s.
    #expect(
      RowOrderer(columnCount: 1, horizon: 1001, rule: .sameKeyAndValues).horizon
        == RowOrderer.maximumReorderSeconds)
    var orderer = RowOrderer(columnCount: 1, horizon: survey.horizon, rule: .sameKeyAndValues)
    var report = FileReport(file: "f")
    report.rowsRead = block.count
    report.rowsKept = block.count
    var out = orderer.push(block, report: &report)
    #expect(out.count >= 10_000 - 601, "at most 60 s of rows wait, not the file (\(out.count) out)")
    out.append(contentsOf: orderer.finish(report: &report))
    #expect(out.count == 10_000 && out.keys.first == 0)
    #expect(report.rejectedByReason == [.outOfOrder: 1] && report.reconciles && report.reorderedRows == 0)
    // The whole file at once: the same verdict.
    var whole = block
    var wholeReport = FileReport(file: "f")
    wholeReport.rowsRead = block.count
    wholeReport.rowsKept = block.count
    whole.finish(rule: .sameKeyAndValues, report: &wholeReport)
    #expect(whole.keys == out.keys && wholeReport == report)
  }

  /// A Sensor Logger folder whose TotalAcceleration rows are at `seconds`.
  static func folder(seconds: [Double]) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording epoch time,platform\n3,Pixel,1700000000000,android\n")
    var text = "time,seconds_elapsed,z,y,x\n"
    for s in seconds { text += "\(1_700_000_000_000_000_000 + Int64((s * 1e9).rounded())),\(s),9.81,0,0\n" }
    folder.write("TotalAcceleration.csv", text)
    return folder
  }

  /// 100 s of TotalAcceleration at 50 Hz in order, then rows at the given seconds.
  static func folder(lateRowsAt late: [Double]) -> TemporaryFolder {
    folder(seconds: (0..<5000).map { Double($0) * 0.02 } + late)
  }

  @Test(
    "a row 59.9 s behind is put in order; 60.1 s behind is rejected as outOfOrder, whole and streamed",
    arguments: [1, 333, 65_536])
  func bothSidesOfTheHorizon(samples: Int) throws {
    // The newest row is at 99.98 s.
    let folder = Self.folder(lateRowsAt: [99.98 - 59.9 + 0.001, 99.98 - 60.1, -1])
    let (whole, wholeReport) = try TraceImport.read(path: folder.path)
    let stream = try TraceImport.stream(path: folder.path)
    var seconds: [Double] = []
    let streamedReport = try stream.forEachChunk(samples: samples) { chunk in
      seconds += chunk.trace.accelerometer?.samples.seconds ?? []
    }
    let file = try #require(wholeReport.file(endingWith: "TotalAcceleration.csv"))
    #expect(file.rowsRead == 5003 && file.rowsKept == 5001 && file.reconciles)
    #expect(file.rejectedByReason == [.outOfOrder: 2] && file.reorderedRows == 1)
    #expect(file.rejections.map(\.location.line) == [5003, 5004])
    #expect(seconds == whole.accelerometer?.samples.seconds && streamedReport == wholeReport)
    #expect(seconds == seconds.sorted())
  }
}
