import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// The trip segmenter, alone and inside the ingest pipeline, against the
/// reference model (Reference/TripModel.swift) on random trip-shaped
/// histories: the same segments, stays and counts demanded after every call.
@Suite("Trips agree with their reference model")
struct TripPropertyTests {
  func expectPass(_ report: String?) {
    if let report { Issue.record(Comment(rawValue: report)) }
  }

  /// Trip-shaped days for up to three people, with everything the server
  /// sees happen (late, shuffled, duplicated uploads, ticks, save/restore,
  /// place edits).
  static func generate(_ r: inout PropertyRandom) -> ServerScenario {
    var options = ServerScenario.Options()
    options.people = 1...3
    options.tripShapes = true
    var s = ServerScenario.generate(&r, options: options)
    // Server batches: some uploads merged with the one before (people and
    // phones interleaved, received at the later receipt).
    var merged: [ServerScenario.Step] = []
    for step in s.steps {
      if case .upload(let received, let fixes) = step, case .upload(let r0, let f0)? = merged.last,
        r.chance(0.25)
      {
        merged[merged.count - 1] = .upload(received: max(r0, received), fixes: r.shuffled(f0 + fixes))
      } else {
        merged.append(step)
      }
    }
    s.steps = merged
    return s
  }

  /// The first call and person where the engine's output and the model's
  /// differ, or nil. `engine[k]`: what call k closed.
  static func compare(_ engine: [TripOutput], _ model: [UserID: TripModel.Decided]) -> String? {
    for (person, decided) in model.sorted(by: { $0.key < $1.key }) {
      for k in engine.indices {
        let segments = engine[k].segments.filter { $0.person == person }
        let stays = engine[k].stays.filter { $0.person == person }
        let expected = decided.perCall[k]
        let sameSegments =
          segments.count == expected.segments.count
          && zip(segments, expected.segments).allSatisfy { TripModel.difference($0, $1) == nil }
        guard sameSegments && stays == expected.stays else {
          let what = zip(segments, expected.segments).compactMap { TripModel.difference($0, $1) }.first
          return "call \(k), p\(person.rawValue)\(what.map { " (\($0) differ)" } ?? ""):\nengine:\n  "
            + (segments.map(TripModel.describe) + stays.map(TripModel.describe)).joined(separator: "\n  ")
            + "\nmodel:\n  "
            + (expected.segments.map(TripModel.describe) + expected.stays.map(TripModel.describe))
            .joined(separator: "\n  ")
        }
      }
    }
    return nil
  }

  /// `state` saved as JSON and restored; the error, if it could not be.
  /// The same names, and placeAt distances within a micrometre (the
  /// engine measures from the start to the centre, the model the other way).
  static func sameNames(_ a: TripNaming.Ends, _ b: TripNaming.Ends) -> Bool {
    var (x, y) = (a, b)
    (x.fromDistanceMeters, y.fromDistanceMeters) = (nil, nil)
    switch (a.fromDistanceMeters, b.fromDistanceMeters) {
    case (nil, nil): return x == y
    case (let d?, let e?): return x == y && abs(d - e) < 1e-6
    default: return false
    }
  }

  static func saveAndRestore<State: Codable>(_ state: inout State) -> String? {
    do {
      state = try JSONDecoder().decode(State.self, from: JSONEncoder().encode(state))
      return nil
    } catch {
      return "state did not round-trip: \(error)"
    }
  }

  @Test("the segmenter equals the model after every call: unsorted uploads, ticks, save/restore, place edits")
  func segmenterAgreesWithTheModel() {
    expectPass(
      PropertyCheck.run(
        "trips", cases: PropertyCampaign.cases(default: 600), generator: PropertyRandom.init(seed:),
        generate: Self.generate,
        check: { s in
          var segmenter = TripSegmenter(
            places: s.places, circlesOfPerson: s.circlesOfPerson, cellSizeMeters: 5_000)
          var state = TripSegmenterState()
          var model = TripModel(places: s.places, circlesOfPerson: s.circlesOfPerson)
          var engine: [TripOutput] = []
          for step in s.steps {
            switch step {
            case .upload(let received, let fixes):
              // As uploaded: people interleaved, times in any order.
              var out = segmenter.process(FixColumns(fixes), now: received, state: &state)
              out += segmenter.advance(to: received, state: &state)
              engine.append(out)
              model.upload(fixes, now: received)
            case .tick(let t):
              engine.append(segmenter.advance(to: t, state: &state))
              model.tick(t)
            case .saveRestore:
              if let error = Self.saveAndRestore(&state) { return error }
            case .edit(let places):
              segmenter = TripSegmenter(
                places: places, circlesOfPerson: s.circlesOfPerson, cellSizeMeters: 5_000)
              segmenter.reconcile(&state)
              model.edit(places)
            }
          }
          let decided = Dictionary(uniqueKeysWithValues: model.people.map { ($0, model.decided($0)) })
          if let difference = Self.compare(engine, decided) { return difference }
          for (person, d) in decided.sorted(by: { $0.key < $1.key }) {
            let counts = (state.droppedLate(person), state.skipped(person), state.duplicates(person))
            guard counts == (d.droppedLate, d.skipped, d.duplicates) else {
              return
                "p\(person.rawValue) counts (late, skipped, duplicates): engine \(counts), model \((d.droppedLate, d.skipped, d.duplicates))"
            }
          }
          return nil
        }))
  }

  /// The pipeline's front door (Reference/FrontDoorModel.swift).
  typealias FrontDoor = FrontDoorModel

  @Test("the pipeline's trips equal the model's after every upload and tick; names and notices too")
  func pipelineTripsAgreeWithTheModel() {
    // Which ways of naming the cases reached (agreeing proves little otherwise).
    var reached = Set<String>()
    expectPass(
      PropertyCheck.run(
        "pipeline trips", cases: PropertyCampaign.cases(default: 400), generator: PropertyRandom.init(seed:),
        generate: Self.generate,
        check: { s in
          var pipeline = ScenarioRun.pipeline(s, places: s.places)
          var state = IngestState()
          var model = TripModel(places: s.places, circlesOfPerson: s.circlesOfPerson)
          var door = FrontDoor()
          var engine: [TripOutput] = []
          var events: [GeofenceEvent] = []
          var places = s.places
          // Names as the doors give them: through a memory of the fence's
          // events, saved and restored with the state. The model names
          // each trip from every event said up to the output that closed it.
          var memory = TripNaming.Memory()
          var named: [(trip: TripSegment, ends: TripNaming.Ends, expected: TripNaming.Ends)] = []
          func note(_ trip: TripSegment, _ ends: TripNaming.Ends) {
            reached.insert(
              "start \(ends.fromSource?.rawValue ?? "unnamed"), end \(ends.toSource?.rawValue ?? "unnamed")")
            if ends.fromSource == .placeAt, let d = ends.fromDistanceMeters,
              let place = places.first(where: { $0.id == ends.from })
            {
              reached.insert(d <= place.radiusMeters ? "placeAt inside" : "placeAt nearest")
            }
            let everyone = TripModel.placeAt(
              trip.summary.start, places, person: trip.person, circlesOfPerson: [:])
            let theirs = TripModel.placeAt(
              trip.summary.start, places, person: trip.person, circlesOfPerson: s.circlesOfPerson)
            if everyone?.place != theirs?.place { reached.insert("another circle's place") }
          }
          func take(_ out: IngestOutput) {
            engine.append(out.trips)
            events += out.geofenceEvents
            let ends = memory.name(
              out.trips.segments, events: out.geofenceEvents, fence: pipeline.geofences, trips: state.trips)
            for (trip, e) in zip(out.trips.segments, ends) where trip.isTrip {
              let expected = TripModel.ends(
                of: trip, events: events, places: places, circlesOfPerson: s.circlesOfPerson)
              named.append((trip, e, expected))
              note(trip, e)
            }
          }
          for step in s.steps {
            switch step {
            case .upload(let received, let fixes):
              take(pipeline.ingest(FixColumns(fixes), receivedAtMilliseconds: received, state: &state))
              model.upload(door.forwarded(fixes, received: received), now: received)
            case .tick(let t):
              take(pipeline.advance(to: t, state: &state))
              model.tick(t)
            case .saveRestore:
              if let error = Self.saveAndRestore(&state) { return error }
              if let error = Self.saveAndRestore(&memory) { return error }
            case .edit(let edited):
              pipeline = ScenarioRun.pipeline(s, places: edited)
              _ = pipeline.adopt(&state)
              model.edit(edited)
              places = edited
            }
          }
          let decided = Dictionary(uniqueKeysWithValues: model.people.map { ($0, model.decided($0)) })
          if let difference = Self.compare(engine, decided) { return difference }
          // Names from the fence's records, and what each trip says.
          for (trip, ends, expected) in named {
            guard Self.sameNames(ends, expected) else {
              return "names of \(TripModel.describe(trip)): engine \(ends), model \(expected)"
            }
            for after in [0, TripModel.stoppedNotice, TripModel.stoppedNotice + 1] {
              let now = trip.summary.endMilliseconds + after
              let notice = TripNaming.notice(for: trip, ends: ends, places: places, now: now)
              let said = TripModel.notice(for: trip, ends: ends, places: places, now: now)
              guard notice == said else {
                return
                  "notice of \(TripModel.describe(trip)) \(after) ms after: engine \(notice), model \(said)"
              }
            }
          }
          return nil
        }))
    // A short campaign (HEARTH_PROPERTY_CASES) may miss some; 200 cases reach all.
    guard PropertyCampaign.cases(default: 400) >= 200 else { return }
    for wanted in [
      "start fence, end fence", "start placeAt, end fence", "start unnamed, end unnamed",
      "start fence, end unnamed",
      "placeAt inside", "placeAt nearest", "another circle's place",
    ] {
      #expect(reached.contains(wanted), "names never reached: \(wanted) (reached \(reached.sorted()))")
    }
  }

  /// The generator must reach the rules, or agreeing proves little.
  @Test("the trip-shaped histories reach every verdict, end and count the model decides")
  func theGeneratorReachesTheTripRules() {
    var reached = Set<String>()
    var random = PropertyRandom(seed: PropertyCampaign.baseSeed)
    for _ in 0..<150 {
      let s = Self.generate(&random)
      var model = TripModel(places: s.places, circlesOfPerson: s.circlesOfPerson)
      for step in s.steps {
        switch step {
        case .upload(let received, let fixes): model.upload(fixes, now: received)
        case .tick(let t): model.tick(t)
        case .edit(let places):
          model.edit(places)
          reached.insert("edit")
        case .saveRestore: reached.insert("save/restore")
        }
      }
      for person in model.people {
        let d = model.decided(person)
        if d.droppedLate > 0 { reached.insert("late") }
        if d.skipped > 0 { reached.insert("skipped") }
        if d.duplicates > 0 { reached.insert("duplicate") }
        for closed in d.perCall {
          if !closed.stays.isEmpty { reached.insert("stay") }
          for segment in closed.segments {
            for reason in segment.reasons { reached.insert(reason.rawValue) }
            reached.insert("\(segment.isTrip ? "trip" : "segment") \(segment.endedBy.rawValue)")
            let silences = zip(segment.fixes, segment.fixes.dropFirst()).map {
              $1.timeMilliseconds - $0.timeMilliseconds
            }
            if segment.isTrip && silences.contains(where: { $0 > TripModel.splitGap }) {
              reached.insert("trip across a silence")
            }
            if segment.fixes.contains(where: { $0.horizontalAccuracyMeters.isNaN }) {
              reached.insert("no accuracy")
            }
          }
        }
      }
    }
    for wanted in [
      "late", "skipped", "duplicate", "stay", "valid", "journeyBetweenNamedPlaces", "tooFewPoints",
      "tooShortInTime",
      "tooShortInPath", "tooLittleDisplacement", "trip dwell", "trip gap", "segment dwell", "segment gap",
      "trip across a silence", "no accuracy", "edit", "save/restore",
    ] {
      #expect(reached.contains(wanted), "never reached: \(wanted)")
    }
  }
}
