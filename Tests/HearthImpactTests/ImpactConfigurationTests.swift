import Foundation
import HearthImpact
import Testing

@Suite("Impact configuration: every §9 value named, documented, Codable with checked domains")
struct ImpactConfigurationTests {
  static func decode(_ json: String) throws -> ImpactConfiguration {
    try JSONDecoder().decode(ImpactConfiguration.self, from: Data(json.utf8))
  }

  @Test("the defaults are the documented ones (the header once said 0.32 s for gravity) and valid")
  func defaults() {
    let c = ImpactConfiguration()
    #expect(c.problems.isEmpty)
    #expect(c.gravityTimeConstantSeconds == 2 && c.vibrationTimeConstantSeconds == 0.32)
    #expect(c.vibrationBinSeconds == 1 && c.joltPeakWindowSeconds == 0.5 && c.joltChainSeconds == 1)
    #expect(c.vibrationMovingFromSeconds == -10 && c.vibrationMovingToSeconds == -1)
    #expect(c.vibrationMovingAtJoltFromSeconds == -3 && c.vibrationMovingAtJoltToSeconds == -0.5)
    #expect(c.vibrationStopEarliestStartSeconds == 1 && c.vibrationStopLatestStartSeconds == 5)
    #expect(c.vibrationStopWindowSeconds == 5 && c.verdictDeadlineSeconds == 10 && c.lateDataSeconds == 2)
    #expect(c.stoppedMetersPerSecond == 1.5 && c.movingAgainMetersPerSecond == 1.5)
  }

  @Test("JSON: keys are the property names with units, stable; a round trip is exact; {} is the defaults")
  func json() throws {
    let c = ImpactConfiguration()
    let data = try JSONEncoder().encode(c)
    let keys = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any]).keys.sorted()
    #expect(keys.count == 49)
    for key in keys where key != "stayStoppedMinimumFixes" {
      #expect(
        [
          "Seconds", "MetersPerSecond", "MetersPerSecondSquared", "RadiansPerSecond", "Hectopascals",
          "Fraction", "Hertz",
        ]
        .contains { key.hasSuffix($0) }, "\(key) has no unit")
    }
    #expect(try JSONDecoder().decode(ImpactConfiguration.self, from: data) == c)
    #expect(try Self.decode("{}") == c)
    var spin = c
    spin.spinRadiansPerSecond = 4.5
    #expect(try Self.decode(#"{"spinRadiansPerSecond": 4.5}"#) == spin)
  }

  @Test(
    "decoding refuses an unknown key (a typo would run the default) and an out-of-domain value, naming it")
  func refusals() {
    #expect(throws: DecodingError.self) { try Self.decode(#"{"spinRadiansPerSecnd": 4}"#) }
    for (json, name) in [
      (#"{"joltPeakWindowSeconds": 0}"#, "joltPeakWindowSeconds"),
      (#"{"spinFromSeconds": 2}"#, "spin window"),
      (#"{"restWithinSeconds": 8}"#, "restWithinSeconds + stayStoppedSeconds"),
      (#"{"supportedGyroscopeHertz": 1e9}"#, "supportedGyroscopeHertz"),
      (#"{"verdictDeadlineSeconds": -1}"#, "verdictDeadlineSeconds"),
      (#"{"stayStoppedMinimumFixes": -3}"#, "stayStoppedMinimumFixes"),
      (#"{"movingAtJoltToSeconds": 0.001}"#, "movingAtJoltToSeconds: 0.001 s ends after the jolt"),
    ] {
      do {
        _ = try Self.decode(json)
        Issue.record("\(json) decoded")
      } catch let DecodingError.dataCorrupted(context) {
        #expect(context.debugDescription.contains(name), "\(context.debugDescription)")
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test("the rings hold the windows at the supported rates, bounded for any valid configuration")
  func ringCapacities() {
    let c = ImpactConfiguration()
    let r = c.ringCapacities
    // Gyroscope: 500 Hz × (0.2 s before + 10 s + 2 s late + 0.25 s + 1 s).
    #expect(r.gyroscope >= 500 * 13 && r.gyroscope < 500 * 14)
    #expect(r.fixes >= 25 * 33 && r.vibrationBins >= 33)
    var big = c
    big.supportedGyroscopeHertz = 2_000
    big.verdictDeadlineSeconds = 60
    big.lateDataSeconds = 30
    big.spinFromSeconds = -60
    #expect(big.problems.isEmpty)
    #expect(big.ringCapacities.gyroscope < 400_000)
  }
}

@Suite("Impact configuration: each threshold a door can set has a domain, refused by name with its range")
struct ImpactThresholdDomainTests {
  static let g = ImpactConfiguration.standardGravity

  static func problems(_ edit: (inout ImpactConfiguration) -> Void) -> [String] {
    var c = ImpactConfiguration()
    edit(&c)
    return c.problems
  }

  @Test(
    "the jolt is in (0, 64 g]: both sides of 0 and of 64 g; −4 g, 1e308 g, ∞ and NaN are refused naming the range"
  )
  func joltDomain() {
    #expect(ImpactConfiguration.maximumJoltMetersPerSecondSquared == 64 * Self.g)
    #expect(Self.problems { $0.joltMetersPerSecondSquared = 64 * Self.g }.isEmpty)
    #expect(Self.problems { $0.joltMetersPerSecondSquared = .leastNonzeroMagnitude }.isEmpty)
    for bad in [(64 * Self.g).nextUp, 0, -4 * Self.g, 1e308 * Self.g, .infinity, .nan] {
      let found = Self.problems { $0.joltMetersPerSecondSquared = bad }
      #expect(found.count == 1, "\(bad): \(found)")
      #expect(
        found.first?.hasPrefix("joltMetersPerSecondSquared: ") == true
          && found.first?.contains("is outside (0, 627.6256] m/s²") == true, "\(found)")
    }
  }

  @Test(
    "spin, pressure rise, moving speed and free fall are ≥ 0 and finite: 0 is taken, the next value below is refused naming [0, ∞)"
  )
  func nonNegativeThresholds() {
    let settings: [(String, WritableKeyPath<ImpactConfiguration, Double>, String)] = [
      ("spinRadiansPerSecond", \.spinRadiansPerSecond, "rad/s"),
      ("pressureRiseHectopascals", \.pressureRiseHectopascals, "hPa"),
      ("movingMedianMetersPerSecond", \.movingMedianMetersPerSecond, "m/s"),
      ("freeFallSeconds", \.freeFallSeconds, "s"),
    ]
    for (name, path, unit) in settings {
      #expect(Self.problems { $0[keyPath: path] = 0 }.isEmpty, "\(name) 0")
      #expect(Self.problems { $0[keyPath: path] = 1e300 }.isEmpty, "\(name) 1e300")
      for bad in [-Double.leastNonzeroMagnitude, -1, .infinity, .nan] {
        let found = Self.problems { $0[keyPath: path] = bad }
        let text = ImpactConfiguration.settingText(bad)
        #expect(found == ["\(name): \(text) \(unit) is outside [0, ∞) \(unit)"], "\(found)")
      }
    }
  }

  @Test("every setting's message names it and its range, whatever the value (a non-finite one too)")
  func everyMessageNamesItsRange() throws {
    let keys = try #require(
      JSONSerialization.jsonObject(with: JSONEncoder().encode(ImpactConfiguration())) as? [String: Any]
    ).keys
    for key in keys where key != "stayStoppedMinimumFixes" {
      let json = Data(#"{"\#(key)": -1e300}"#.utf8)
      do {
        _ = try JSONDecoder().decode(ImpactConfiguration.self, from: json)
        // −1e300 is in the domain of the pressure bounds only.
        #expect(key == "minimumPressureHectopascals", "\(key) took -1e300")
      } catch let DecodingError.dataCorrupted(context) {
        #expect(context.debugDescription.contains(key), "\(context.debugDescription)")
        #expect(
          context.debugDescription.contains("is outside") || context.debugDescription.contains("must be"),
          "\(context.debugDescription)")
      } catch {
        Issue.record("\(key): \(error)")
      }
    }
  }

  /// Found by review45: `movingAtJoltToSeconds` 30 s validated with a 10 s
  /// deadline, and the window read fixes after the jolt that no
  /// completeness check waited for (the speed at the jolt depended on the
  /// batching).
  @Test(
    "regression 2026-12-07: a window before or at the jolt ends at the jolt at the latest: 0 s valid, 1 ms after not"
  )
  func windowsBeforeTheJoltEndByIt() {
    let ends: [(String, WritableKeyPath<ImpactConfiguration, Double>)] = [
      ("movingToSeconds", \.movingToSeconds), ("movingAtJoltToSeconds", \.movingAtJoltToSeconds),
      ("vibrationMovingToSeconds", \.vibrationMovingToSeconds),
      ("vibrationMovingAtJoltToSeconds", \.vibrationMovingAtJoltToSeconds),
      ("pressureBaselineToSeconds", \.pressureBaselineToSeconds),
    ]
    for (name, end) in ends {
      var atJolt = ImpactConfiguration()
      atJolt[keyPath: end] = 0
      #expect(atJolt.problems.isEmpty, "\(name) 0: \(atJolt.problems)")
      var after = ImpactConfiguration()
      after[keyPath: end] = 0.001
      #expect(
        after.problems == [
          "\(name): 0.001 s ends after the jolt (a window before the jolt ends at 0 s at the latest)"
        ])
    }
  }
}
