import Foundation
import HearthGeo
import HearthSim
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Generated drives written as Sensor Logger exports whose wall clock steps
/// at random times by random amounts (`WallClock`, the reference model):
/// read back, every stream is where the simulator put it on the monotonic
/// clock, and every step larger than the tolerance is reported by every
/// file that has rows on both sides of it, where and by how much it happened.
@Suite("Two clocks, property: random wall-clock steps never move a stream")
struct TwoClocksPropertyTests {
  struct Case: Shrinkable, CustomStringConvertible {
    var scenario: String
    var seed: UInt64
    var steps: [WallClock.Step]

    var shrinkCandidates: [Case] {
      var out: [Case] = []
      for k in steps.indices {
        var fewer = self
        fewer.steps.remove(at: k)
        out.append(fewer)
      }
      for k in steps.indices where abs(steps[k].bySeconds) != 2 {
        var smaller = self
        smaller.steps[k].bySeconds = steps[k].bySeconds < 0 ? -2 : 2
        out.append(smaller)
      }
      if scenario != "C1" { out.append(Case(scenario: "C1", seed: seed, steps: steps)) }
      return out
    }

    var description: String {
      "scenario \(scenario) seed \(seed), steps: "
        + (steps.isEmpty
          ? "none" : steps.map { "\($0.bySeconds) s at \($0.atSeconds) s" }.joined(separator: ", "))
    }
  }

  /// The catalogue's 80-second scenarios (the long drives N1 and N2 left out).
  static let scenarios = ScenarioCatalogue.all.map(\.id).filter { $0 != "N1" && $0 != "N2" }

  static func generate(_ random: inout SeededGenerator) -> Case {
    let scenario = scenarios[Int(random.nextUnit() * Double(scenarios.count)) % scenarios.count]
    var steps: [WallClock.Step] = []
    var at = 1.0
    for _ in 0..<Int(random.nextUnit() * 4) {
      // At least 2 s apart, so no two steps fall between the same two fixes.
      at += 2 + (random.nextUnit() * 20 * 1000).rounded() / 1000
      guard at < 78 else { break }
      // Sizes in whole ms, away from the tolerance by more than the 1 ms the
      // simulator's sub-millisecond times can move a measured step (the exact
      // edges are TwoClocksTests.tolerance's).
      var size = 0.0
      repeat {
        size = (random.nextDouble(in: -40, 40) * 1000).rounded() / 1000
      } while size == 0 || abs(abs(size) - 1) <= 0.002
      steps.append(.init(atSeconds: at, bySeconds: size))
    }
    return Case(scenario: scenario, seed: random.next() % 1000, steps: steps)
  }

  static func check(_ c: Case) -> String? {
    guard let scenario = ScenarioCatalogue.scenario(c.scenario) else { return "no scenario \(c.scenario)" }
    let truth = scenario.generate(seed: c.seed).trace
    guard let origin = truth.metadata.timeOriginMilliseconds else { return "the simulator gave no origin" }
    let folder = TemporaryFolder()
    do {
      try SensorLoggerExport.write(
        truth, to: folder.path, wallClock: WallClock(startMilliseconds: origin, steps: c.steps))
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      let truthTimes = truth.fixes.timeMilliseconds.sorted()
      if trace.fixes.timeMilliseconds != truthTimes {
        let k = zip(trace.fixes.timeMilliseconds, truthTimes).prefix { $0 == $1 }.count
        let read = trace.fixes.timeMilliseconds.dropFirst(k).first.map { "\(($0 - origin)) ms" } ?? "none"
        let wanted = truthTimes.dropFirst(k).first.map { "\(($0 - origin)) ms" } ?? "none"
        return
          "fix \(k) at \(read) from the origin, the truth \(wanted) (\(trace.fixes.count) vs \(truthTimes.count) fixes)"
      }
      if trace.accelerometer?.samples.seconds != truth.accelerometer?.samples.seconds
        || trace.gyroscope?.seconds != truth.gyroscope?.seconds
        || trace.barometer?.seconds != truth.barometer?.seconds
      {
        return "sensor times differ from the truth"
      }
      if trace.metadata.timeOriginMilliseconds != origin {
        return "origin \(String(describing: trace.metadata.timeOriginMilliseconds))"
      }
      // Every file reports the steps above the tolerance between its first and last rows.
      let files: [(String, [Double])] = [
        ("TotalAcceleration.csv", truth.accelerometer?.samples.seconds ?? []),
        ("Gyroscope.csv", truth.gyroscope?.seconds ?? []), ("Barometer.csv", truth.barometer?.seconds ?? []),
        ("Location.csv", truthTimes.map { Double($0 - origin) / 1000 }),
      ]
      for (name, times) in files where !times.isEmpty {
        // Steps between the same two rows add up to one.
        var landed: [(row: Double, by: Double)] = []
        for step in c.steps {
          guard let first = times.first, step.atSeconds > first,
            let row = times.first(where: { $0 >= step.atSeconds })
          else { continue }
          if landed.last?.row == row {
            landed[landed.count - 1].by += step.bySeconds
          } else {
            landed.append((row, step.bySeconds))
          }
        }
        let expected = landed.filter { abs($0.by) > 1 }
        let found = report.file(endingWith: name)?.clockSteps ?? []
        let agrees =
          found.count == expected.count
          && zip(found, expected).allSatisfy {
            $0.atSeconds == $1.row && abs($0.stepSeconds - $1.by) <= 0.001
          }
        if !agrees {
          return
            "\(name): steps \(found.map { "\($0.stepSeconds) s at \($0.atSeconds) s" }) but expected \(expected)"
        }
      }
      // Streamed in chunks, the same trace and report.
      let (streamed, streamReport) = try TraceImport.stream(path: folder.path).readAll()
      if !streamed.matches(trace) || streamReport != report { return "streamed ≠ read whole" }
    } catch {
      return "\(error)"
    }
    return nil
  }

  @Test("fix and sensor times are the simulator's; steps reported where and as large as they were")
  func stepsNeverMoveAStream() {
    let failure = PropertyCheck.run(
      "two clocks", cases: PropertyCampaign.cases(default: 24), generator: SeededGenerator.init(seed:),
      generate: Self.generate, check: Self.check)
    #expect(failure == nil, "\(failure ?? "")")
  }
}
