import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// What the server path produced for one scenario, step by step.
struct ScenarioRun {
  /// Per upload: the fixes, when received, and what came out.
  var uploads: [(received: Int64, fixes: [Fix], output: IngestOutput)] = []
  var geofenceEvents: [GeofenceEvent] = []
  var speedAlerts: [SpeedAlertEvent] = []
  var suddenStops: [SuddenStopEvent] = []
  var trips = TripOutput()
  var finalState = IngestState()

  mutating func add(_ o: IngestOutput) {
    geofenceEvents += o.geofenceEvents
    speedAlerts += o.speedAlerts
    suddenStops += o.suddenStops
    trips += o.trips
  }

  /// Everything decided, as a multiset (the order of people within one
  /// batch is not part of the contract).
  struct Decided: Equatable {
    var geofences: [GeofenceEvent: Int] = [:]
    var speed: [SpeedAlertEvent: Int] = [:]
    var stops: [SuddenStopEvent: Int] = [:]
    var segments: [TripSegment: Int] = [:]
    var stays: [TripStay: Int] = [:]
  }

  var decided: Decided {
    var d = Decided()
    for e in geofenceEvents { d.geofences[e, default: 0] += 1 }
    for e in speedAlerts { d.speed[e, default: 0] += 1 }
    for e in suddenStops { d.stops[e, default: 0] += 1 }
    for e in trips.segments { d.segments[e, default: 0] += 1 }
    for e in trips.stays { d.stays[e, default: 0] += 1 }
    return d
  }

  /// The decisions as readable lines, sorted (for a failure's message).
  var decidedText: [String] {
    (geofenceEvents.map {
      "G \($0.person) \($0.kind) \($0.outcome) place \($0.place) at \($0.eventMilliseconds - ServerScenario.t0) decided \($0.decidedMilliseconds - ServerScenario.t0) \($0.reasons) \($0.journey.map { "journey \($0.distanceMeters) m" } ?? "")"
    }
      + speedAlerts.map {
        "S \($0.person) \($0.circle) \($0.outcome) \($0.startMilliseconds - ServerScenario.t0)…\($0.endMilliseconds - ServerScenario.t0) \($0.reasons)"
      }
      + suddenStops.map {
        "X \($0.person) \($0.outcome) stop \($0.stopMilliseconds - ServerScenario.t0) decided \($0.decidedMilliseconds - ServerScenario.t0) \($0.reasons)"
      }
      + trips.segments.map {
        "T \($0.person) \($0.summary.startMilliseconds - ServerScenario.t0)…\($0.summary.endMilliseconds - ServerScenario.t0) trip \($0.isTrip) \($0.reasons) \($0.fixes.count) fixes \($0.id) \($0.endedBy)"
      }
      + trips.stays.map {
        "Y \($0.person) \($0.startMilliseconds - ServerScenario.t0)…\($0.endMilliseconds - ServerScenario.t0)"
      }).sorted()
  }

  static func pipeline(_ s: ServerScenario, places: [Geofence]) -> IngestPipeline {
    // Coarse cells: the same answers, and far fewer grid rows to build in a debug build.
    IngestPipeline(
      places: places, circlesOfPerson: s.circlesOfPerson, speedLimits: s.limits, cellSizeMeters: 5_000)
  }

  /// Plays the scenario through `IngestPipeline` (`built`: the pipeline for
  /// the scenario's first places, when the caller already has it: building
  /// one costs more than a small scenario in a debug build).
  static func play(_ s: ServerScenario, saveAndRestore: Bool = true, built: IngestPipeline? = nil)
    -> ScenarioRun
  {
    var run = ScenarioRun()
    var pipeline = built ?? pipeline(s, places: s.places)
    var state = IngestState()
    for step in s.steps {
      switch step {
      case .upload(let received, let fixes):
        let output = pipeline.ingest(FixColumns(fixes), receivedAtMilliseconds: received, state: &state)
        run.uploads.append((received, fixes, output))
        run.add(output)
      case .tick(let t):
        run.add(pipeline.advance(to: t, state: &state))
      case .saveRestore:
        guard saveAndRestore else { continue }
        do {
          state = try JSONDecoder().decode(IngestState.self, from: JSONEncoder().encode(state))
        } catch {
          Issue.record("state did not round-trip: \(error)")
        }
      case .edit(let places):
        pipeline = Self.pipeline(s, places: places)
        _ = pipeline.adopt(&state)
      }
    }
    run.finalState = state
    return run
  }
}

@Suite("Server path properties (random histories)")
struct PipelinePropertyTests {
  /// Cases per property in CI (HEARTH_PROPERTY_CASES overrides them all).
  static func cases(_ count: Int) -> Int { PropertyCampaign.cases(default: count) }

  func expectPass(_ report: String?) {
    if let report { Issue.record(Comment(rawValue: report)) }
  }

  @Test("every fix of an upload is accounted for: inserted, duplicate or rejected; or the upload refused")
  func everyRejectedInputIsCounted() {
    expectPass(
      PropertyCheck.run(
        "accounting", cases: Self.cases(600), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0) },
        check: { s in
          for (k, u) in ScenarioRun.play(s).uploads.enumerated() {
            let o = u.output
            if o.schemaError != nil { continue }
            if o.inserted + o.duplicates + o.rejections.count != u.fixes.count {
              return
                "upload \(k): \(o.inserted) inserted + \(o.duplicates) duplicates + \(o.rejections.count) rejected ≠ \(u.fixes.count)"
            }
          }
          return nil
        }))
  }

  @Test("state saved and restored at random points gives exactly what a straight run gives")
  func saveAndRestoreChangesNothing() {
    expectPass(
      PropertyCheck.run(
        "save/restore", cases: Self.cases(300), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0) },
        check: { s in
          let built = ScenarioRun.pipeline(s, places: s.places)
          let restored = ScenarioRun.play(s, built: built)
          let straight = ScenarioRun.play(s, saveAndRestore: false, built: built)
          if restored.decided != straight.decided {
            return firstDifference(restored.decidedText, straight.decidedText)
          }
          if restored.finalState != straight.finalState { return "final states differ" }
          return nil
        }))
  }

  @Test("a retried upload (same fixes, same receipt) adds nothing")
  func aRetriedUploadAddsNothing() {
    expectPass(
      PropertyCheck.run(
        "retry", cases: Self.cases(300), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0) },
        check: { s in
          var retried = s
          retried.steps = s.steps.flatMap { step -> [ServerScenario.Step] in
            if case .upload = step { return [step, step] }
            return [step]
          }
          let built = ScenarioRun.pipeline(s, places: s.places)
          let once = ScenarioRun.play(s, built: built)
          let twice = ScenarioRun.play(retried, built: built)
          if once.decided != twice.decided { return firstDifference(once.decidedText, twice.decidedText) }
          for k in stride(from: 1, to: twice.uploads.count, by: 2)
          where twice.uploads[k].output.producedCount > 0 {
            return "the retry of upload \(k / 2) produced \(twice.uploads[k].output.producedCount) outputs"
          }
          return nil
        }))
  }

  @Test("batch == streaming == any split, for time-ordered uploads each received at its newest fix")
  func batchEqualsStreamingEqualsAnySplit() {
    var options = ServerScenario.Options()
    options.late = false
    options.shuffled = false
    options.maximumUploadSpanMilliseconds = 5 * 60_000
    options.receiptDelayMilliseconds = 0
    // Whether a second device's `still` fix takes the row depends on the
    // holder's age at the receipt (SPEC §1), so receiving part of an upload
    // earlier is another history once a holder nears 15 min (the campaign
    // found it: both right). Issue 28's several-device histories are held
    // to the models behind the front door instead (PersonGatePropertyTests).
    options.devices = false
    expectPass(
      PropertyCheck.run(
        "splits", cases: Self.cases(200), generator: PropertyRandom.init(seed:),
        generate: { r -> ServerScenario in
          var s = ServerScenario.generate(&r, options: options)
          // Server batches: time-ordered merges of consecutive uploads.
          var merged: [ServerScenario.Step] = []
          for step in s.steps {
            if case .upload(let received, let fixes) = step, case .upload(let r0, let f0)? = merged.last,
              received - (f0.map(\.timeMilliseconds).min() ?? received) <= 5 * 60_000, r.chance(0.5)
            {
              merged[merged.count - 1] = .upload(received: max(r0, received), fixes: f0 + fixes)
            } else {
              merged.append(step)
            }
          }
          // Two phones of one person reporting the same millisecond: the
          // first received wins in every engine, so which one depends on the
          // split; such ties are left out here (the campaign found them).
          var seen = Set<String>()
          s.steps = merged.map {
            guard case .upload(let received, let fixes) = $0 else { return $0 }
            let distinct = fixes.filter { seen.insert("\($0.user) \($0.timeMilliseconds)").inserted }
            return .upload(
              received: received,
              fixes: distinct.sorted { ($0.timeMilliseconds, $0.user) < ($1.timeMilliseconds, $1.user) })
          }
          // A timely server: its timer ticks every minute. (Without it, a
          // split that is received earlier decides a waiting arrival while
          // the news is fresh, the whole batch after it went stale: both
          // right for what the server knew then; the campaign found it.)
          var ticked: [ServerScenario.Step] = []
          var clock: Int64?
          for step in s.steps {
            if case .upload(let received, let fixes) = step {
              // Not past the upload's oldest fix, so a split's earlier receipt never goes back in time.
              let until = min(received, fixes.map(\.timeMilliseconds).min() ?? received)
              if var t = clock {
                while t + 60_000 < until {
                  t += 60_000
                  ticked.append(.tick(t))
                }
              }
              clock = received
            }
            ticked.append(step)
          }
          s.steps = ticked
          return s
        },
        check: { s in
          let built = ScenarioRun.pipeline(s, places: s.places)
          let whole = ScenarioRun.play(s, built: built)
          // The geofences' settling minute runs on the server's clock from
          // a receipt (review 2 F2), and so does a circle's speed-alert
          // cooldown (review20, review22 F1), so an
          // upload's first part received earlier is another history for
          // them: their events are held to the same split received at
          // once, the other engines' to the split as it was (first part
          // received at its newest fix).
          for cut in [1, 2, 3] {
            func split(earlier: Bool) -> ServerScenario {
              var split = s
              split.steps = s.steps.flatMap { step -> [ServerScenario.Step] in
                guard case .upload(let received, let fixes) = step, fixes.count > 1 else { return [step] }
                let k = max(1, min(fixes.count - 1, fixes.count * cut / 4))
                let first = Array(fixes[..<k])
                return [
                  .upload(
                    received: earlier ? first.map(\.timeMilliseconds).max() ?? received : received,
                    fixes: first),
                  .upload(received: received, fixes: Array(fixes[k...])),
                ]
              }
              return split
            }
            var parts = ScenarioRun.play(split(earlier: true), built: built)
            let atOnce = ScenarioRun.play(split(earlier: false), built: built)
            parts.geofenceEvents = atOnce.geofenceEvents
            parts.speedAlerts = atOnce.speedAlerts
            if parts.decided != whole.decided {
              return "cut at \(cut)/4 (geofences and speed alerts: received at once): "
                + firstDifference(parts.decidedText, whole.decidedText)
            }
          }
          return nil
        }))
  }

  @Test("no announcement without the event it announces; nothing announced from a late upload")
  func announcementsHaveTheirEventsAndLateUploadsAnnounceNothing() {
    expectPass(
      PropertyCheck.run(
        "announcements", cases: Self.cases(600), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0) },
        check: { s in
          let run = ScenarioRun.play(s)
          // Fix times each person sent only in late uploads.
          let rule = LateUploadRule()
          var lateTimes: [UserID: Set<Int64>] = [:]
          var timelyTimes: [UserID: Set<Int64>] = [:]
          for u in run.uploads {
            for person in Set(u.fixes.map(\.user)) {
              let own = u.fixes.filter { $0.user == person }
              let late = rule.isLate(
                newestFixMilliseconds: own.map(\.timeMilliseconds).max() ?? .min,
                receivedAtMilliseconds: u.received)
              for f in own {
                if late {
                  lateTimes[person, default: []].insert(f.timeMilliseconds)
                } else {
                  timelyTimes[person, default: []].insert(f.timeMilliseconds)
                }
              }
            }
          }
          func onlyLate(_ person: UserID, _ t: Int64) -> Bool {
            lateTimes[person]?.contains(t) == true && timelyTimes[person]?.contains(t) != true
          }
          var pendingDepartures = Set<String>()
          var pendingArrivals = Set<String>()
          for e in run.geofenceEvents {
            let key = "\(e.person) \(e.place) \(e.eventMilliseconds)"
            if e.outcome == .pending {
              if e.kind == .departure { pendingDepartures.insert(key) } else { pendingArrivals.insert(key) }
            }
            guard e.outcome == .announced else { continue }
            if e.kind == .departure && !pendingDepartures.contains(key) {
              return "departure announced without its pending departure: \(e)"
            }
            if e.kind == .arrival && e.reasons.first != .entered && !pendingArrivals.contains(key) {
              return "fast arrival announced without its pending arrival: \(e)"
            }
            if onlyLate(e.person, e.eventMilliseconds) { return "announced from a late upload: \(e)" }
          }
          var pendingStops = Set<String>()
          for e in run.suddenStops {
            let key = "\(e.person) \(e.stopMilliseconds)"
            if e.outcome == .pending { pendingStops.insert(key) }
            if e.outcome == .raised && !pendingStops.contains(key) {
              return "stop raised without its pending stop: \(e)"
            }
          }
          for a in run.speedAlerts where a.outcome == .announced {
            if a.endMilliseconds - a.startMilliseconds < SpeedAlertRules().minimumOverMilliseconds {
              return "speed alert over less than 15 s: \(a)"
            }
            if onlyLate(a.person, a.endMilliseconds) {
              return "speed alert announced from a late upload: \(a)"
            }
          }
          return nil
        }))
  }
}

extension PipelinePropertyTests {
  /// The generator must reach the rules, or agreeing proves little.
  @Test("the random histories reach every kind of decision the properties are about")
  func theGeneratorReachesTheRules() {
    var reasons = Set<String>()
    var random = PropertyRandom(seed: PropertyCampaign.baseSeed)
    // 400: a stop raised from rough fixes comes about 2 times in 100 histories.
    for _ in 0..<400 {
      let scenario = ServerScenario.generate(&random)
      let run = ScenarioRun.play(scenario)
      for e in run.geofenceEvents {
        reasons.insert("geofence \(e.kind) \(e.outcome)")
        for reason in e.reasons { reasons.insert("\(reason)") }
      }
      // Issue 28: drive-bys of the smallest and the largest places.
      for e in run.geofenceEvents where e.reasons.contains(.drovePast) {
        if let place = scenario.places.first(where: { $0.id == e.place }) {
          reasons.insert("drovePast r=\(place.radiusMeters)")
        }
      }
      for e in run.speedAlerts { reasons.insert("speed \(e.outcome)") }
      for e in run.suddenStops {
        reasons.insert("stop \(e.outcome)")
        for reason in e.reasons { reasons.insert("stop \(reason)") }
        // Issue 28: raised from a rough stop fix (worse than 50 m, or unknown).
        if e.outcome == .raised && !(e.accuracyMeters <= 50) {
          reasons.insert("stop raised from a rough fix")
        }
      }
      for t in run.trips.segments where t.isTrip { reasons.insert("trip") }
      for u in run.uploads where !u.output.rejections.isEmpty || u.output.duplicates > 0 {
        reasons.insert("duplicates or rejections")
      }
    }
    for wanted in [
      "geofence arrival announced", "geofence departure announced", "geofence arrival pending",
      "geofence arrival cancelled",
      "geofence departure cancelled", "geofence arrival feedOnly", "returnedSoon", "lateBatch",
      "fastArrivalSlowed",
      "drovePast", "secondFixClear", "minuteWithoutReturn", "speed announced", "stop pending", "stop raised",
      "trip",
      "duplicates or rejections",
      // Issue 28.
      "drovePast r=45.0", "drovePast r=500.0", "stop raised from a rough fix", "stop sharpFixAfterLongGap",
      "stop nextFixTooLate", "stop stopNotConfirmed", "stop movedWithinFiveMinutes",
    ] {
      #expect(reasons.contains(wanted), "never reached: \(wanted)")
    }
  }
}

/// The first line where two sorted lists of decisions differ.
func firstDifference(_ a: [String], _ b: [String]) -> String {
  for (x, y) in zip(a, b) where x != y { return "first difference:\n  \(x)\nvs\n  \(y)" }
  if a.count > b.count { return "extra: \(a[b.count])" }
  if b.count > a.count { return "missing: \(b[a.count])" }
  return "the decisions differ in a field the summary does not print (\(a.count) decisions)"
}
