import Foundation
import HearthGeo
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

/// A crash recorded while the phone's wall clock was corrected: the
/// detector reaches the verdict it reaches on the recording itself (SPEC §9,
/// every stream on the monotonic clock), and the step is reported.
@Suite("A wall clock that steps around a crash does not move the fixes against the jolt")
struct TwoClocksReplayTests {
  @Test(
    "catalogue crash C1 as a Sensor Logger export, its wall clock stepping ±3 s just before or after the jolt",
    arguments: [(38.2, 3.0), (38.2, -3.0), (41.3, -3.0), (41.3, 3.0)])
  func crashVerdictUnchanged(atSeconds: Double, bySeconds: Double) throws {
    let scenario = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 7)
    let origin = try #require(scenario.trace.metadata.timeOriginMilliseconds)
    let expected = try #require(ImpactFeed(trace: scenario.trace, gate: .recording)).verdicts()
    #expect(expected.map(\.outcome) == [.possibleImpact], "the scenario itself is a report")
    let folder = TemporaryFolder()
    try SensorLoggerExport.write(
      scenario.trace, to: folder.path,
      wallClock: WallClock(
        startMilliseconds: origin, steps: [.init(atSeconds: atSeconds, bySeconds: bySeconds)]))
    let replay = try ImpactReplay.run(TraceImport.stream(path: folder.path), path: "c1", gate: .recording)
    #expect(replay.verdicts.map(\.outcome) == expected.map(\.outcome))
    #expect(replay.verdicts.map(\.joltSeconds) == expected.map(\.joltSeconds))
    #expect(replay.report.clockWarnings.contains { $0.hasPrefix("Location.csv: the wall clock stepped") })
  }
}
