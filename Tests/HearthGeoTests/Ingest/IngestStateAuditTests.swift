import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// A saved ingest state is versioned and checked before a pipeline computes
/// with it: a state edited by hand is refused with the path of the bad
/// value, never accepted into a trap at the next batch.
@Suite struct IngestStateAuditTests {
  static let encoder: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    e.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return e
  }()
  static let decoder: JSONDecoder = {
    let d = JSONDecoder()
    d.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return d
  }()

  /// A scenario played half way (its pipeline, the state, the rest of its steps).
  static func halfWay(seed: UInt64) -> (IngestPipeline, IngestState, [ServerScenario.Step]) {
    var random = PropertyRandom(seed: seed)
    let scenario = ServerScenario.generate(&random)
    let pipeline = ScenarioRun.pipeline(scenario, places: scenario.places)
    var state = IngestState()
    let half = scenario.steps.count / 2
    for step in scenario.steps.prefix(half) {
      switch step {
      case .upload(let received, let fixes):
        _ = pipeline.ingest(FixColumns(fixes), receivedAtMilliseconds: received, state: &state)
      case .tick(let now): _ = pipeline.advance(to: now, state: &state)
      case .saveRestore, .edit: break
      }
    }
    return (pipeline, state, Array(scenario.steps.dropFirst(half)))
  }

  @Test("states the engines write pass the audit and carry the format version")
  func realStatesPass() throws {
    for seed in 0..<UInt64(PropertyCampaign.cases(default: 40)) {
      let (pipeline, state, _) = Self.halfWay(seed: PropertyCampaign.baseSeed &+ seed)
      #expect(state.problems(under: pipeline).isEmpty, "seed \(seed): \(state.problems(under: pipeline))")
      let saved = try Self.encoder.encode(state)
      let object = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
      #expect(object["formatVersion"] as? Int == IngestState.formatVersion)
      #expect(try Self.decoder.decode(IngestState.self, from: saved) == state)
    }
  }

  @Test(
    "a drive that stops in the window's last minute saves and restores: the waits past 2200 are written as its last millisecond, decided the same (review19)"
  )
  func waitsPastTheWindowSave() throws {
    let pipeline = IngestPipeline(places: [], circlesOfPerson: [:])
    let last = IngestState.timeWindowMilliseconds.upperBound - 1
    for stopBefore: Int64 in [60_000, 3_600_000] {
      var fixes = SuddenStopTests.scenario(stillFixes: 0)
      let shift = last - stopBefore - fixes[fixes.count - 1].timeMilliseconds
      for i in fixes.indices { fixes[i].timeMilliseconds += shift }
      var state = IngestState()
      let now = last - stopBefore
      let out = pipeline.ingest(FixColumns(fixes), receivedAtMilliseconds: now, state: &state)
      #expect(out.suddenStops.map(\.outcome) == [SuddenStopEvent.Outcome.pending], "\(stopBefore)")
      let saved = try Self.encoder.encode(state)
      let text = String(decoding: saved, as: UTF8.self)
      var restored = try Self.decoder.decode(IngestState.self, from: saved)
      #expect(
        restored.problems(under: pipeline).isEmpty, "\(stopBefore): \(restored.problems(under: pipeline))")
      // Only a deadline past the window is written at its last millisecond.
      #expect(text.contains("\(last)") == (stopBefore == 60_000), "\(stopBefore)")
      #expect((restored == state) == (stopBefore != 60_000), "\(stopBefore)")
      for t in [now + 1_000, last - 1, last] {
        #expect(
          "\(pipeline.advance(to: t, state: &restored))" == "\(pipeline.advance(to: t, state: &state))",
          "\(stopBefore) at \(t)")
      }
    }
  }

  @Test("a state of another format version, or of none, is refused by name; version 2 still reads")
  func version() throws {
    let saved = try Self.encoder.encode(IngestState())
    var object = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
    #expect(IngestState.formatVersion == 3 && IngestState.readableFormatVersions == 2...3)
    for refused in [1, 4] {
      object["formatVersion"] = refused
      let other = try JSONSerialization.data(withJSONObject: object)
      #expect { try Self.decoder.decode(IngestState.self, from: other) } throws: {
        "\($0)".contains("format version \(refused); this library reads versions 2–3")
      }
    }
    // Version 2, with a last alert saved as a bare time (before it kept its
    // receipt and phone): reads, the time as its receipt too.
    var speedAlerts = try #require(object["speedAlerts"] as? [String: Any])
    speedAlerts["lastAlert"] = [7, 1_700_000_000_000]
    object["speedAlerts"] = speedAlerts
    object["formatVersion"] = 2
    let two = try Self.decoder.decode(
      IngestState.self, from: try JSONSerialization.data(withJSONObject: object))
    let alert = try #require(two.speedAlerts.lastAlert[CircleID(7)])
    #expect(alert.milliseconds == 1_700_000_000_000 && alert.receivedMilliseconds == 1_700_000_000_000)
    object["formatVersion"] = nil
    let none = try JSONSerialization.data(withJSONObject: object)
    #expect { try Self.decoder.decode(IngestState.self, from: none) } throws: {
      "\($0)".contains("without a format version")
    }
  }

  @Test("a state restored into a pipeline without its places names the place")
  func unknownPlace() throws {
    for seed in 0..<UInt64(20) {
      let (pipeline, state, _) = Self.halfWay(seed: seed)
      guard !state.geofences.people.isEmpty,
        state.geofences.people.values.contains(where: { !$0.records.isEmpty })
      else { continue }
      let bare = IngestPipeline(places: [], circlesOfPerson: [:], speedLimits: [:], cellSizeMeters: 5_000)
      let problems = state.problems(under: bare)
      #expect(problems.contains { $0.contains("is not one of the pipeline's places") }, "\(problems)")
      #expect(state.problems(under: pipeline).isEmpty)
      return
    }
    Issue.record("no generated state had a place record")
  }

  /// Every number of `object` (a decoded JSON tree) with its path.
  static func numbers(_ value: Any, _ path: [Any] = []) -> [[Any]] {
    if let d = value as? [String: Any] { return d.keys.sorted().flatMap { numbers(d[$0]!, path + [$0]) } }
    if let a = value as? [Any] { return a.enumerated().flatMap { numbers($1, path + [$0]) } }
    if value is NSNumber, !(value is Bool) || "\(type(of: value))".contains("Number") { return [path] }
    return []
  }

  @Test("single-value edits of a saved state: refused with a path, or computed with without a trap")
  func handEdits() throws {
    // (UInt32.max: a closed-segment count with no id after it, review15.)
    let extremes: [Any] = [Int64.min, Int64.max, -1, 0, 1e308, -1e308, Int64.min + 1, Int64(UInt32.max)]
    var refused = 0
    var accepted = 0
    for seed in 0..<UInt64(PropertyCampaign.cases(default: 6)) {
      let (pipeline, state, rest) = Self.halfWay(seed: PropertyCampaign.baseSeed &+ 1000 &+ seed)
      let tree = try JSONSerialization.jsonObject(with: try Self.encoder.encode(state))
      var random = PropertyRandom(seed: seed)
      let leaves = Self.numbers(tree)
      for _ in 0..<min(leaves.count, 60) {
        let path = leaves[random.int(0, leaves.count - 1)]
        let value = extremes[random.int(0, extremes.count - 1)]
        let edited = JSONTree.replacing(tree, at: path[...], with: value)
        guard let data = try? JSONSerialization.data(withJSONObject: edited),
          var restored = try? Self.decoder.decode(IngestState.self, from: data),
          restored.problems(under: pipeline).isEmpty
        else {
          refused += 1
          continue
        }
        accepted += 1
        if ProcessInfo.processInfo.environment["HEARTH_AUDIT_TRACE"] != nil {
          FileHandle.standardError.write(Data("accepted edit: seed \(seed) \(path) = \(value)\n".utf8))
        }
        // Accepted: the rest of the history runs (a trap here fails the run).
        for step in rest {
          switch step {
          case .upload(let received, let fixes):
            _ = pipeline.ingest(FixColumns(fixes), receivedAtMilliseconds: received, state: &restored)
          case .tick(let now): _ = pipeline.advance(to: now, state: &restored)
          case .saveRestore, .edit: break
          }
        }
      }
    }
    #expect(refused > 0 && accepted > 0, "refused \(refused), accepted \(accepted)")
  }

  @Test(
    "the agreed speeds a sudden stop keeps (cruising, lastAgreed, lastCruiseSpeed) are speeds: 0 kept, −0.001 refused by path"
  )
  func suddenStopSpeeds() throws {
    let pipeline = IngestPipeline(places: [], circlesOfPerson: [:])
    func state(cruising: Double, lastAgreed: Double?, lastCruiseSpeed: Double) -> IngestState {
      var state = IngestState()
      let stop = TrackPoint(
        FixColumns([
          Fix(
            timeMilliseconds: 1_700_000_000_000, latitudeDegrees: 48, longitudeDegrees: 2,
            horizontalAccuracyMeters: 5, speedMetersPerSecond: 0)
        ]), 0)
      var person = SuddenStopState.PersonState()
      person.last = stop
      person.lastAgreed = lastAgreed
      person.lastCruiseSpeed = lastCruiseSpeed
      person.candidate = .init(stop: stop, needsRoughFixes: false, cruising: cruising)
      person.raised = [.init(stop: stop, needsRoughFixes: false, cruising: cruising)]
      state.suddenStops.people[7] = person
      return state
    }
    #expect(state(cruising: 0, lastAgreed: 0, lastCruiseSpeed: 0).problems(under: pipeline).isEmpty)
    #expect(state(cruising: 30, lastAgreed: nil, lastCruiseSpeed: 12).problems(under: pipeline).isEmpty)
    let problems = state(cruising: -0.001, lastAgreed: -0.001, lastCruiseSpeed: -0.001).problems(
      under: pipeline)
    let why = "speed -0.001 m/s is negative (a speed is ≥ 0 m/s, or NaN: not measured)"
    #expect(
      problems.sorted() == [
        "suddenStops.people[1].candidate.cruising: \(why)", "suddenStops.people[1].lastAgreed: \(why)",
        "suddenStops.people[1].lastCruiseSpeed: \(why)", "suddenStops.people[1].raised[0].cruising: \(why)",
      ], "\(problems)")
  }

  @Test(
    "a person's closed-segment count below 2³² − 1 passes, 2³² − 1 is refused by path (review15: the next close trapped)"
  )
  func closedSegmentCount() {
    let pipeline = IngestPipeline(places: [], circlesOfPerson: [:])
    func problems(_ closed: UInt32) -> [String] {
      var state = IngestState()
      var person = TripSegmenterState.Person()
      person.segmentsClosed = closed
      state.trips.people[7] = person
      return state.problems(under: pipeline)
    }
    #expect(problems(UInt32.max - 1).isEmpty)
    let why = "4294967295 segments closed leaves no id for the next"
    #expect(problems(UInt32.max) == ["trips.people[1].segmentsClosed: \(why)"])
  }

  @Test("the fuzz seeds are states this library reads (versions 2 and 3, every engine, a last alert)")
  func fuzzSeed() throws {
    let corpus = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fuzz/Corpus/ingestState")
    let state = try JSONDecoder().decode(
      IngestState.self, from: Data(contentsOf: corpus.appendingPathComponent("seed-state")))
    #expect(!state.geofences.people.isEmpty && state.dedupe.count == 12)
    let alerted = try JSONDecoder().decode(
      IngestState.self, from: Data(contentsOf: corpus.appendingPathComponent("seed-state-alert")))
    let alert = try #require(alerted.speedAlerts.lastAlert[CircleID(1)])
    #expect(alert.receivedMilliseconds == 1_700_000_331_000 && alert.person == UserID(1))
    #expect(alerted.dedupe == state.dedupe)
  }

}
