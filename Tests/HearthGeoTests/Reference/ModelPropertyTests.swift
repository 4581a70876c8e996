import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// The engines against their reference models (Reference/*Models.swift) on
/// random histories: identical outputs demanded.
@Suite("Engines agree with their reference models")
struct ModelPropertyTests {
  func expectPass(_ report: String?) {
    if let report { Issue.record(Comment(rawValue: report)) }
  }

  /// Equal, or equal but for NaNs (a fix of unknown accuracy carries NaN into
  /// a presence row or a stop; NaN is never == itself). Swift prints every
  /// Double exactly, so equal descriptions mean equal values.
  static func same<T: Equatable>(_ a: T, _ b: T) -> Bool { a == b || "\(a)" == "\(b)" }

  /// The scenario's uploads, each sorted as the pipeline hands it to the engines.
  static func batches(_ s: ServerScenario) -> [(received: Int64, fixes: [Fix])] {
    s.steps.compactMap {
      guard case .upload(let received, let fixes) = $0 else { return nil }
      return (
        received,
        fixes.sorted {
          ($0.user, $0.timeMilliseconds, $0.device) < ($1.user, $1.timeMilliseconds, $1.device)
        }
      )
    }
  }

  @Test("agreed speed: the engine's pair rule and batch equal the model on random pairs")
  func agreedSpeedAgreesWithTheModel() {
    expectPass(
      PropertyCheck.run(
        "agreed speed", cases: PropertyCampaign.cases(default: 600), generator: PropertyRandom.init(seed:), generate: { ServerScenario.generate(&$0) },
        check: { s in
          for (_, fixes) in Self.batches(s) {
            let batch = AgreedSpeedBatch(FixColumns(fixes))
            for i in fixes.indices.dropFirst() {
              let model = SpeedModel.agreed(fixes[i - 1], fixes[i])
              let pair = AgreedSpeed.pair(fixes[i - 1], fixes[i])
              let fromBatch = batch.neighbourMetersPerSecond[i]
              if model?.speed != pair?.metersPerSecond || model?.loose != (pair.map { $0.source == .loose })
                || (model?.speed ?? .nan) != fromBatch && !(model == nil && fromBatch.isNaN)
                || (model?.loose ?? false) != batch.neighbourIsLoose[i]
              {
                return "pair \(ServerScenario.describe(fixes[i - 1])) → \(ServerScenario.describe(fixes[i])): model \(String(describing: model)), engine \(String(describing: pair)), batch \(fromBatch)"
              }
            }
          }
          return nil
        }))
  }

  @Test("speed alert: the engine equals the model on random histories")
  func speedAlertAgreesWithTheModel() {
    expectPass(
      PropertyCheck.run(
        "speed alert", cases: PropertyCampaign.cases(default: 600), generator: PropertyRandom.init(seed:), generate: { ServerScenario.generate(&$0) },
        check: { s in
          let batches = Self.batches(s)
          let engine = SpeedAlertEngine(limits: s.limits, circlesOfPerson: s.circlesOfPerson)
          var state = SpeedAlertState()
          var events: [SpeedAlertEvent] = []
          for (received, fixes) in batches {
            events += engine.process(FixColumns(fixes), receivedAtMilliseconds: received, state: &state)
          }
          let model = SpeedModel.speedAlerts(batches, limits: s.limits, circlesOfPerson: s.circlesOfPerson)
          // The order of decisions within one batch is not part of the contract.
          func key(_ e: SpeedAlertEvent) -> String {
            "\(e.person) \(e.circle) \(e.startMilliseconds) \(e.endMilliseconds) \(e.outcome)"
          }
          guard events.sorted(by: { key($0) < key($1) }) != model.sorted(by: { key($0) < key($1) }) else { return nil }
          func text(_ e: [SpeedAlertEvent]) -> [String] {
            e.map { "p\($0.person) c\($0.circle) \($0.outcome) \($0.startMilliseconds - ServerScenario.t0)…\($0.endMilliseconds - ServerScenario.t0) \($0.reasons)" }
          }
          return "engine:\n  " + text(events).joined(separator: "\n  ") + "\nmodel:\n  "
            + text(model).joined(separator: "\n  ")
        }))
  }

  @Test("presence: the engine's row equals the model's after every fix")
  func presenceAgreesWithTheModel() {
    expectPass(
      PropertyCheck.run(
        "presence", cases: PropertyCampaign.cases(default: 1000), generator: PropertyRandom.init(seed:),
        generate: { r -> ServerScenario in
          var o = ServerScenario.Options()
          o.people = 1...1
          return ServerScenario.generate(&r, options: o)
        },
        check: { s in
          var presence = Presence()
          var offered: [(fix: Fix, received: Int64)] = []
          for (received, fixes) in Self.batches(s) {
            for fix in fixes {
              presence.advance(with: fix, receivedAtMilliseconds: received)
              offered.append((fix, received))
              let model = PresenceModel.presence(offered)
              if !Self.same(presence.row, model.map(PresenceRow.init(fix:))) {
                return "after \(ServerScenario.describe(fix)): engine \(String(describing: presence.row)), model \(String(describing: model))"
              }
            }
          }
          return nil
        }))
  }

  /// A random run of moments of a small or large server.
  struct OutageCase: CustomStringConvertible, Shrinkable {
    var moments: [(now: Int64, phones: [PresenceStatus.PhoneView], pushFailure: Int64?)]
    var description: String {
      moments.map { m in
        "t=\(m.now / 60_000) min push=\(m.pushFailure.map { "\($0 / 60_000)" } ?? "-") "
          + m.phones.map { "\($0.counts ? "" : "x")\($0.quiet ? "q" : "r")\($0.announced ? "a" : "")\($0.fresh ? "f" : "")" }
          .joined(separator: " ")
      }.joined(separator: "\n")
    }
    var shrinkCandidates: [OutageCase] {
      var out: [OutageCase] = []
      for i in moments.indices {
        var c = self
        c.moments.remove(at: i)
        out.append(c)
        for j in moments[i].phones.indices {
          var d = self
          d.moments[i].phones.remove(at: j)
          out.append(d)
        }
      }
      return out
    }
  }

  @Test("whose outage is it: the chained decision equals the model read off SPEC §8")
  func outageHoldAgreesWithTheModel() {
    expectPass(
      PropertyCheck.run(
        "outage hold", cases: PropertyCampaign.cases(default: 2000), generator: PropertyRandom.init(seed:),
        generate: { (r: inout PropertyRandom) -> OutageCase in
          var now: Int64 = 0
          var moments: [(Int64, [PresenceStatus.PhoneView], Int64?)] = []
          let size = [1, 2, 3, 7, 8, 9, 12][r.int(0, 6)]
          for _ in 0..<r.int(1, 8) {
            now += Int64(r.int(1, 40)) * 60_000
            let phones = (0..<max(1, size + r.int(-1, 1))).map { _ in
              PresenceStatus.PhoneView(
                counts: r.chance(0.9), quiet: r.chance(0.5), announced: r.chance(0.2), fresh: r.chance(0.3))
            }
            moments.append((now, phones, r.chance(0.15) ? now - Int64(r.int(0, 45)) * 60_000 : nil))
          }
          return OutageCase(moments: moments)
        },
        check: { c in
          var until: Int64?
          for k in c.moments.indices {
            let m = c.moments[k]
            let decision = PresenceStatus.holdOfflineAlerts(
              phones: m.phones, lastPushFailureMilliseconds: m.pushFailure, holdUntilMilliseconds: until, now: m.now)
            until = decision.holdUntilMilliseconds
            let model = PresenceModel.holds(c.moments, at: k)
            if decision.hold != model {
              return "moment \(k): engine \(decision.hold) (\(decision.reason)), model \(model)"
            }
          }
          return nil
        }))
  }

  @Test("geofences with settling: the engine equals the model on random histories")
  func geofenceEngineAgreesWithTheModel() {
    var options = ServerScenario.Options()
    options.edits = false
    expectPass(
      PropertyCheck.run(
        "geofences", cases: PropertyCampaign.cases(default: 600), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0, options: options) },
        check: { s in
          let engine = GeofenceEngine(places: s.places, circlesOfPerson: s.circlesOfPerson, cellSizeMeters: 5_000)
          var state = GeofenceState()
          var model = GeofenceModel(places: s.places, circlesOfPerson: s.circlesOfPerson)
          var events: [GeofenceEvent] = []
          for step in s.steps {
            switch step {
            case .upload(let received, let fixes):
              let sorted = fixes.sorted {
                ($0.user, $0.timeMilliseconds, $0.device) < ($1.user, $1.timeMilliseconds, $1.device)
              }
              events += engine.process(FixColumns(sorted), receivedAtMilliseconds: received, state: &state)
              events += engine.advance(to: received, state: &state)
              model.process(sorted, receivedAt: received)
              model.advance(to: received)
            case .tick(let t):
              events += engine.advance(to: t, state: &state)
              model.advance(to: t)
            case .saveRestore:
              do { state = try JSONDecoder().decode(GeofenceState.self, from: JSONEncoder().encode(state)) } catch {
                return "state did not round-trip: \(error)"
              }
            case .edit: break
            }
          }
          guard events != model.events else { return nil }
          func text(_ e: [GeofenceEvent]) -> [String] {
            e.map {
              "p\($0.person) \($0.kind) \($0.outcome) place \($0.place) at \(Double($0.eventMilliseconds - ServerScenario.t0) / 1000) decided \(Double($0.decidedMilliseconds - ServerScenario.t0) / 1000) \($0.reasons.map(\.rawValue))\($0.journey.map { String(format: " journey %.1f m", $0.distanceMeters) } ?? "")"
            }
          }
          let a = text(events)
          let b = text(model.events)
          let k = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
          return "events differ at \(k):\nengine:\n  " + a[max(0, k - 3)...].prefix(6).joined(separator: "\n  ")
            + "\nmodel:\n  " + b[max(0, k - 3)...].prefix(6).joined(separator: "\n  ")
        }))
  }

  @Test("sudden stop: the engine equals the model on random histories, heartbeats and ticks included")
  func suddenStopAgreesWithTheModel() {
    var options = ServerScenario.Options()
    options.edits = false
    expectPass(
      PropertyCheck.run(
        "sudden stop", cases: PropertyCampaign.cases(default: 600), generator: PropertyRandom.init(seed:),
        generate: { ServerScenario.generate(&$0, options: options) },
        check: { s in
          let engine = SuddenStopEngine(places: s.places, circlesOfPerson: s.circlesOfPerson, cellSizeMeters: 5_000)
          var state = SuddenStopState()
          var model = SuddenStopModel(places: s.places, circlesOfPerson: s.circlesOfPerson)
          var events: [SuddenStopEvent] = []
          for step in s.steps {
            switch step {
            case .upload(let received, let fixes):
              let sorted = fixes.sorted {
                ($0.user, $0.timeMilliseconds, $0.device) < ($1.user, $1.timeMilliseconds, $1.device)
              }
              events += engine.process(FixColumns(sorted), state: &state)
              events += engine.advance(to: received, state: &state)
              model.process(sorted)
              model.advance(to: received)
            case .tick(let t):
              events += engine.advance(to: t, state: &state)
              model.advance(to: t)
            case .saveRestore, .edit: break
            }
          }
          guard !Self.same(events, model.events) else { return nil }
          func text(_ e: [SuddenStopEvent]) -> [String] {
            e.map { "p\($0.person) \($0.outcome) stop \(Double($0.stopMilliseconds - ServerScenario.t0) / 1000) decided \(Double($0.decidedMilliseconds - ServerScenario.t0) / 1000) \($0.reasons.map(\.rawValue)) cruising \($0.cruisingMetersPerSecond)" }
          }
          return "engine:\n  " + text(events).joined(separator: "\n  ") + "\nmodel:\n  " + text(model.events).joined(separator: "\n  ")
        }))
  }
}
