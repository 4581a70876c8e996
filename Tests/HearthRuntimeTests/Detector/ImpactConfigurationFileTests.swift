import Foundation
import HearthImpact
import HearthRuntime
import HearthTrace
import Testing

@Suite("The detector's configuration file")
struct ImpactConfigurationFileTests {
  func decode(_ text: String) throws -> ImpactConfiguration {
    try ImpactConfigurationFile.decode(Data(text.utf8), name: "c.json")
  }

  @Test("a setting named twice is refused by name (review26 F7: the first one counted)")
  func repeatedSetting() throws {
    #expect(try decode(#"{"spinRadiansPerSecond": 3}"#).spinRadiansPerSecond == 3)
    do {
      _ = try decode(#"{"spinRadiansPerSecond": 3, "spinRadiansPerSecond": 4}"#)
      Issue.record("a repeated setting was read")
    } catch let TraceError.malformed(_, reason) {
      #expect(reason.contains(#"the member "spinRadiansPerSecond" appears twice"#), "\(reason)")
    }
  }

  @Test("any subset of the settings: missing ones keep their defaults; a written file reads back equal")
  func subsetAndRoundTrip() throws {
    let spin = try decode("{\"spinRadiansPerSecond\": 3}")
    var expected = ImpactConfiguration()
    expected.spinRadiansPerSecond = 3
    #expect(spin == expected)
    #expect(try decode("{}") == ImpactConfiguration())
    var custom = ImpactConfiguration()
    custom.joltMetersPerSecondSquared = 5 * ImpactConfiguration.standardGravity
    custom.pressureRiseHectopascals = 1.25
    custom.stayStoppedMinimumFixes = 4
    let written = try ImpactConfigurationFile.encode(custom)
    #expect(try ImpactConfigurationFile.decode(written, name: "w.json") == custom)
    // The file is the readable, sorted form.
    let text = String(decoding: written, as: UTF8.self)
    #expect(text.contains("\"pressureRiseHectopascals\" : 1.25") && text.hasSuffix("}\n"))
  }

  @Test(
    "a typo, a string, a boolean, a fraction where a count is wanted or a non-object is an error naming the key"
  )
  func refusals() {
    func reason(_ text: String) -> String {
      do {
        _ = try decode(text)
        return "accepted"
      } catch { return "\(error)" }
    }
    #expect(
      reason("{\"spinRadianPerSecond\": 3}").contains(
        "c.json: unknown setting 'spinRadianPerSecond' (nearest known: 'spinRadiansPerSecond'; known: "))
    #expect(
      reason("{\"spinRadiansPerSecond\": \"3\"}").contains("'spinRadiansPerSecond' must be a finite number"))
    #expect(reason("{\"spinRadiansPerSecond\": true}").contains("must be a finite number"))
    #expect(reason("{\"stayStoppedMinimumFixes\": 3.5}").contains("stayStoppedMinimumFixes"))
    #expect(reason("{\"stayStoppedMinimumFixes\": 3}") == "accepted")
    #expect(reason("[1, 2]").contains("not a JSON object"))
    #expect(
      reason("{\"spinRadiansPerSecond\": 1e400}").contains("not a JSON object")
        || reason("{\"spinRadiansPerSecond\": 1e400}").contains("finite"))
    #expect(throws: TraceError.self) { try ImpactConfigurationFile.read(path: "/nonexistent/c.json") }
  }

  @Test("threshold flags in SPEC units replace the file's values")
  func thresholds() {
    var base = ImpactConfiguration()
    base.spinRadiansPerSecond = 9
    let c = ImpactThresholds(joltG: 5, pressureRiseHectopascals: 3).applied(to: base)
    #expect(c.joltMetersPerSecondSquared == 5 * 9.80665 && c.pressureRiseHectopascals == 3)
    #expect(c.spinRadiansPerSecond == 9 && c.freeFallSeconds == ImpactConfiguration().freeFallSeconds)
  }

  @Test(
    "a threshold outside its setting's domain is named by the door's own name and value, with the setting's range"
  )
  func thresholdProblemsNameTheFlag() {
    let given = ImpactThresholds(joltG: -4, spinRadiansPerSecond: 3, freeFallSeconds: -1)
    let found = given.problems(over: ImpactConfiguration()) { "--" + $0.rawValue }
    #expect(found.count == 2, "\(found)")
    #expect(found.first?.hasPrefix("--joltG -4: joltMetersPerSecondSquared: ") == true, "\(found)")
    #expect(found.first?.contains("(0, 627.6256] m/s²") == true, "\(found)")
    #expect(found.last == "--freeFallSeconds -1: freeFallSeconds: -1 s is outside [0, ∞) s", "\(found)")
    #expect(
      ImpactThresholds(joltG: 64, freeFallSeconds: 0).problems(over: ImpactConfiguration()) { $0.rawValue }
        .isEmpty)
    #expect(
      ImpactThresholds(joltG: 64.000_001).problems(over: ImpactConfiguration()) { $0.rawValue }.count == 1)
  }
}
