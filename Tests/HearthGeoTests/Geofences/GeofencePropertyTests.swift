import Foundation
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthGeo

/// Properties over random walks among three places (one nested in another):
/// batch == stream, any split, state saved and restored, idempotent replay,
/// no flapping inside the band.
@Suite("Geofence engine properties")
struct GeofencePropertyTests {
  typealias W = FenceWorld
  static let places = [
    Geofence(id: 1, center: W.home, radiusMeters: 150),
    Geofence(id: 2, center: W.home, radiusMeters: 60),
    Geofence(
      id: 3, center: GreatCircle.destination(from: W.home, initialBearingDegrees: 45, distanceMeters: 600),
      radiusMeters: 120),
  ]

  /// A random walk of up to 25 min: fixes 5–90 s apart, some network, some
  /// ignored, some fast, with jumps between the places.
  static func walk(_ seed: UInt64) -> [Fix] {
    var g = SeededGenerator(seed: seed)
    var position = W.home
    var t = 0.0
    var fixes: [Fix] = []
    while t < 1500 {
      t += g.nextDouble(in: 5, 90)
      let roll = g.nextUnit()
      if roll < 0.15 {
        position = GreatCircle.destination(
          from: places[Int(g.nextUnit() * 3)].center, initialBearingDegrees: g.nextDouble(in: 0, 360),
          distanceMeters: g.nextDouble(in: 0, 300))
      } else {
        position = GreatCircle.destination(
          from: position, initialBearingDegrees: g.nextDouble(in: 0, 360),
          distanceMeters: g.nextDouble(in: 0, 120))
      }
      let accuracy = roll < 0.2 ? g.nextDouble(in: 101, 260) : g.nextDouble(in: 3, 60)
      let speed: Double? = g.nextUnit() < 0.3 ? g.nextDouble(in: 0, 15) : (g.nextUnit() < 0.5 ? nil : 0.5)
      fixes.append(
        Fix(
          timeMilliseconds: W.t0 + Int64(t * 1000), latitudeDegrees: position.latitudeDegrees,
          longitudeDegrees: position.longitudeDegrees, horizontalAccuracyMeters: accuracy,
          speedMetersPerSecond: speed,
          headingDegrees: g.nextUnit() < 0.5 ? g.nextDouble(in: 0, 360) : nil, user: UserID(1)))
    }
    return fixes
  }

  static let engine = GeofenceEngine(places: places)
  /// The same with no upload ever late: a walk's first fixes received at
  /// its end are 25 min old, which the late rule (tested on its own)
  /// would send to the feed.
  static let neverLate = {
    var rules = GeofenceRules()
    rules.late = LateUploadRule(lateAfterMilliseconds: .max)
    return GeofenceEngine(places: places, rules: rules)
  }()

  /// `state` with the receipts of its waiting decisions forgotten (its
  /// waiting list derived again, through the coded form).
  static func receiptsForgotten(_ state: GeofenceState) throws -> GeofenceState {
    var state = state
    for (id, var person) in state.people {
      for r in person.records.indices {
        person.records[r].pendingDeparture?.receivedMilliseconds = nil
        person.records[r].pendingArrival?.receivedMilliseconds = nil
      }
      state.people[id] = person
    }
    return try JSONDecoder().decode(GeofenceState.self, from: JSONEncoder().encode(state))
  }

  /// One timely batch: received at its newest fix.
  func batch(_ fixes: [Fix], _ state: inout GeofenceState) -> [GeofenceEvent] {
    Self.engine.process(
      FixColumns(fixes), receivedAtMilliseconds: fixes.map(\.timeMilliseconds).max()!, state: &state)
  }

  /// Streaming each fix as it is taken gives what one batch gives; and the
  /// fixes of one receipt give the same however they are cut into batches.
  /// (Batches received at different times are different histories: the
  /// server's settling minute starts at a receipt, review 2 F2.)
  @Test(
    "stream (one fix at a time) == one batch == any split of one receipt into batches",
    arguments: UInt64(1)...60)
  func splits(seed: UInt64) throws {
    let fixes = Self.walk(seed)
    var whole = GeofenceState()
    let reference = batch(fixes, &whole)
    #expect(!reference.isEmpty)
    var streamState = GeofenceState()
    let stream = fixes.flatMap { batch([$0], &streamState) }
    #expect(stream == reference)
    // The same state, but for when the server heard a decision still
    // waiting at the end (as each fix was taken, or with the last).
    #expect(try Self.receiptsForgotten(streamState) == Self.receiptsForgotten(whole))
    let received = fixes.map(\.timeMilliseconds).max()!
    var once = GeofenceState()
    let together = Self.neverLate.process(FixColumns(fixes), receivedAtMilliseconds: received, state: &once)
    #expect(together == reference)
    var g = SeededGenerator(seed: seed &+ 99)
    var state = GeofenceState()
    var split: [GeofenceEvent] = []
    var start = 0
    while start < fixes.count {
      let end = min(fixes.count, start + 1 + Int(g.nextUnit() * 6))
      split += Self.neverLate.process(
        FixColumns(Array(fixes[start..<end])), receivedAtMilliseconds: received, state: &state)
      start = end
    }
    #expect(split == together)
    #expect(state == once)
  }

  @Test("saving and restoring the state mid-stream changes nothing", arguments: UInt64(1)...30)
  func serialise(seed: UInt64) throws {
    let fixes = Self.walk(seed)
    let cut = fixes.count / 2
    var straight = GeofenceState()
    let reference = batch(Array(fixes[..<cut]), &straight) + batch(Array(fixes[cut...]), &straight)
    var state = GeofenceState()
    var events = batch(Array(fixes[..<cut]), &state)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let saved = try encoder.encode(state)
    var restored = try JSONDecoder().decode(GeofenceState.self, from: saved)
    #expect(restored == state)
    #expect(try encoder.encode(restored) == saved)
    events += batch(Array(fixes[cut...]), &restored)
    #expect(events == reference)
  }

  @Test("replaying any part of what was processed adds nothing", arguments: UInt64(1)...30)
  func idempotent(seed: UInt64) {
    let fixes = Self.walk(seed)
    var state = GeofenceState()
    _ = batch(fixes, &state)
    let before = state
    var g = SeededGenerator(seed: seed)
    let part = fixes.filter { _ in g.nextUnit() < 0.4 }
    guard !part.isEmpty else { return }
    #expect(batch(part, &state).isEmpty)
    #expect(state == before)
  }

  @Test(
    "no flapping: any sequence of sharp fixes inside radius + 40 m gives one arrival and nothing else",
    arguments: UInt64(1)...40)
  func noFlapping(seed: UInt64) {
    var g = SeededGenerator(seed: seed)
    let place = Geofence(id: 1, center: W.home, radiusMeters: g.nextDouble(in: 30, 300))
    var w = W([place])
    var fixes = [W.fix(0, 0)]
    for k in 1...60 {
      fixes.append(
        W.fix(
          g.nextDouble(in: 0, place.radiusMeters + 40) * 0.99999, Double(k) * g.nextDouble(in: 1, 120),
          bearing: g.nextDouble(in: 0, 360), accuracy: g.nextDouble(in: 1, 100), speed: g.nextDouble(in: 0, 8)
        ))
    }
    fixes.sort { $0.timeMilliseconds < $1.timeMilliseconds }
    let events =
      w.feed(fixes) + w.engine.advance(to: fixes.last!.timeMilliseconds + 3_600_000, state: &w.state)
    #expect(events.filter { $0.outcome != .pending }.map(\.kind) == [.arrival], "\(W.summary(events))")
  }
}
