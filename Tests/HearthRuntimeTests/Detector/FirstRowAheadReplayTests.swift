import Foundation
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

/// A recording whose first row of a stream carries a corrupted stamp years
/// ahead (both clocks): before, that row was kept whatever its time and every
/// later row of the file was more than 60 s behind it, so a crash recording
/// lost its accelerometer or its fixes and the detector missed the crash. A
/// first row more than 60 s ahead of every row of the 64 after it is now
/// rejected (``ArrivalRule/firstRowStrays(_:limit:)``).
@Suite("A first row dated years ahead costs that row, not the crash")
struct FirstRowAheadReplayTests {
  @Test(
    "catalogue crash C1 as a Sensor Logger export, the first row of one stream dated years ahead: the same verdict",
    arguments: ["accelerometer", "Location.csv", "Gyroscope.csv"])
  func sameVerdict(stream: String) throws {
    let scenario = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 7)
    let expected = try #require(ImpactFeed(trace: scenario.trace, gate: .recording)).verdicts()
    #expect(expected.map(\.outcome) == [.possibleImpact], "the scenario itself is a report")
    let folder = TemporaryFolder()
    try SensorLoggerExport.write(scenario.trace, to: folder.path)
    let accelerometer =
      scenario.trace.accelerometer?.content == .includesGravity
      ? "TotalAcceleration.csv" : "Accelerometer.csv"
    let file = stream == "accelerometer" ? accelerometer : stream
    let text = try String(contentsOfFile: folder.path(file), encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var first = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    // 2096: both clocks of the row 3·10⁹ s (about 95 years) ahead.
    first[0] = String(try #require(Int64(first[0])) + 3_000_000_000 * 1_000_000_000)
    first[1] = String(try #require(Double(first[1])) + 3e9)
    lines[1] = first.joined(separator: ",")
    try lines.joined(separator: "\n").write(toFile: folder.path(file), atomically: true, encoding: .utf8)

    let replay = try ImpactReplay.run(TraceImport.stream(path: folder.path), path: "c1", gate: .recording)
    #expect(replay.verdicts.map(\.outcome) == expected.map(\.outcome))
    #expect(replay.verdicts.map(\.joltSeconds) == expected.map(\.joltSeconds))
    let report = try #require(replay.report.file(endingWith: file))
    #expect(report.rejectedByReason == [.outOfOrder: 1] && report.rejections.first?.location.line == 2)
    // Read whole, the same.
    let (whole, wholeReport) = try TraceImport.read(path: folder.path)
    let verdicts = try #require(ImpactFeed(trace: whole, gate: .recording)).verdicts()
    #expect(verdicts.map(\.outcome) == expected.map(\.outcome))
    #expect(verdicts.map(\.joltSeconds) == expected.map(\.joltSeconds))
    #expect(wholeReport.file(endingWith: file) == report)
  }
}
