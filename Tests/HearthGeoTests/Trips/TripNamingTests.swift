import Foundation
import Testing
import _HearthTestSupport

@testable import HearthGeo

/// SPEC §7 names: the start from the fence's records (first departure
/// during the trip), else by SPEC §3 placeAt (the smallest place holding
/// it, else the nearest centre whose edge is within 1 km); the end from the
/// last arrival not left again.
@Suite("Trip names (SPEC §7)")
struct TripNamingTests {
  typealias Day = TripNamingDay

  /// The day's two trips (the segmenter alone, with the places).
  static func trips(_ places: [Geofence]) -> [TripSegment] {
    var state = TripSegmenterState()
    let fixes = Day.history()
    return TripSegmenter(places: places).process(
      fixes, now: fixes.timeMilliseconds.max()! + 3_600_000, state: &state
    ).segments.filter(\.isTrip)
  }

  static func event(
    _ kind: GeofenceEventKind, _ place: PlaceID, at t: Int64, _ outcome: GeofenceOutcome = .announced
  ) -> GeofenceEvent {
    GeofenceEvent(
      kind: kind, outcome: outcome, reasons: [.entered], place: place, circle: 7, person: UserID(1),
      eventMilliseconds: t, decidedMilliseconds: t, journey: nil)
  }

  @Test(
    "a start the fence never saw them leave, 850 m from a café's centre (inside the cap): the café, by placeAt, 850 m"
  )
  func cafeAt850Meters() throws {
    let places = Day.places(cafeMeters: 850).map(\.geofence)
    let trip = try #require(Self.trips(places).first)
    let ends = TripNaming.ends(of: trip, events: [], fence: GeofenceEngine(places: places))
    #expect(ends.from == 2 && ends.fromSource == .placeAt, "\(ends)")
    #expect(abs((ends.fromDistanceMeters ?? .nan) - 850) < 1e-6, "\(ends)")
    #expect(ends.to == nil && ends.toSource == nil)
  }

  @Test("the cap is on the café's edge: 1 000 m − 1 cm from the start named, 1 000 m + 1 cm not")
  func capEdge() throws {
    for (edge, named) in [(999.99, true), (1_000.0, true), (1_000.01, false)] {
      let places = Day.places(cafeMeters: edge + Day.cafeRadiusMeters).map(\.geofence)
      let trip = try #require(Self.trips(places).first)
      let ends = TripNaming.ends(of: trip, events: [], fence: GeofenceEngine(places: places))
      #expect((ends.from == 2) == named && (ends.fromSource == .placeAt) == named, "edge \(edge) m: \(ends)")
      #expect((ends.fromDistanceMeters != nil) == named, "edge \(edge) m: \(ends)")
    }
  }

  @Test("a start inside a place is named by placeAt: the smallest place holding it, at its distance")
  func startInsideAPlace() throws {
    let small = Geofence(
      id: 5, circle: 7,
      center: GreatCircle.destination(from: Day.start, initialBearingDegrees: 180, distanceMeters: 50),
      radiusMeters: 200)
    let large = Geofence(id: 4, circle: 7, center: Day.start, radiusMeters: 2_000)
    let places = [large, small] + Day.places(cafeMeters: 850).map(\.geofence)
    let trip = try #require(Self.trips(places).first)
    let ends = TripNaming.ends(of: trip, events: [], fence: GeofenceEngine(places: places))
    #expect(ends.from == 5 && ends.fromSource == .placeAt, "\(ends)")
    #expect(abs((ends.fromDistanceMeters ?? .nan) - 50) < 1e-6, "\(ends)")
  }

  @Test("a departure said during the trip names the start, whatever placeAt would say; one not said does not")
  func departureSeenByTheFence() throws {
    let places = Day.places(cafeMeters: 850).map(\.geofence)
    let trip = try #require(Self.trips(places).first)
    let fence = GeofenceEngine(places: places)
    let during = trip.summary.startMilliseconds + 30_000
    for outcome in [GeofenceOutcome.announced, .feedOnly] {
      let ends = TripNaming.ends(
        of: trip, events: [Self.event(.departure, 1, at: during, outcome)], fence: fence)
      #expect(ends.from == 1 && ends.fromSource == .fence && ends.fromDistanceMeters == nil, "\(ends)")
    }
    for outcome in [GeofenceOutcome.pending, .cancelled] {
      let ends = TripNaming.ends(
        of: trip, events: [Self.event(.departure, 1, at: during, outcome)], fence: fence)
      #expect(ends.from == 2 && ends.fromSource == .placeAt, "\(outcome): \(ends)")
    }
    // At the trip's first fix it is during the trip; a millisecond before, not.
    let start = trip.summary.startMilliseconds
    #expect(TripNaming.ends(of: trip, events: [Self.event(.departure, 1, at: start)], fence: fence).from == 1)
    #expect(
      TripNaming.ends(of: trip, events: [Self.event(.departure, 1, at: start - 1)], fence: fence).from == 2)
  }

  @Test("placeAt only looks at the places the person sees: a café of another circle is not theirs")
  func circles() throws {
    var places = Day.places(cafeMeters: 850).map(\.geofence)
    places[0].circle = 8
    let trip = try #require(Self.trips(places).first)
    let theirs = GeofenceEngine(places: places, circlesOfPerson: [UserID(1): [7]])
    #expect(TripNaming.ends(of: trip, events: [], fence: theirs).from == nil)
    let both = GeofenceEngine(places: places, circlesOfPerson: [UserID(1): [7, 8]])
    #expect(TripNaming.ends(of: trip, events: [], fence: both).from == 2)
    // A person not listed sees every place, as for their events.
    let unlisted = GeofenceEngine(places: places, circlesOfPerson: [UserID(9): [7]])
    #expect(TripNaming.ends(of: trip, events: [], fence: unlisted).from == 2)
  }

  /// The day through the pipeline in 5-min uploads, then an hour of ticks:
  /// each output's trips named through `memory` (saved and restored at
  /// `restoreAt`, an upload number, when given).
  /// `forgetful`: a new memory for every output (no door may do this).
  static func pipelineNames(
    memory: inout TripNaming.Memory, restoreAt: Int? = nil, forgetful: Bool = false
  ) throws -> [TripNaming.Ends] {
    let places = Day.places(cafeMeters: 850).map(\.geofence)
    let pipeline = IngestPipeline(places: places, circlesOfPerson: [UserID(1): [7]])
    var state = IngestState()
    let fixes = Day.history()
    var names: [TripNaming.Ends] = []
    func take(_ output: IngestOutput) {
      if forgetful { memory = TripNaming.Memory() }
      let ends = memory.name(
        output.trips.segments, events: output.geofenceEvents, fence: pipeline.geofences, trips: state.trips)
      names += zip(output.trips.segments, ends).filter(\.0.isTrip).map(\.1)
    }
    var start = 0
    var upload = 0
    while start < fixes.count {
      var end = start
      while end < fixes.count && fixes.timeMilliseconds[end] - fixes.timeMilliseconds[start] < 300_000 {
        end += 1
      }
      let batch = fixes.selecting(Array(start..<end))
      take(
        pipeline.ingest(batch, receivedAtMilliseconds: batch.timeMilliseconds.last! + 1_000, state: &state))
      upload += 1
      if upload == restoreAt {
        memory = try JSONDecoder().decode(TripNaming.Memory.self, from: JSONEncoder().encode(memory))
      }
      start = end
    }
    let last = fixes.timeMilliseconds.max()!
    for minute in 1...60 { take(pipeline.advance(to: last + Int64(minute) * 60_000, state: &state)) }
    return names
  }

  @Test(
    "through the pipeline: the school's departure, decided uploads before its trip closed, names the second start"
  )
  func memoryAcrossOutputs() throws {
    var memory = TripNaming.Memory()
    let names = try Self.pipelineNames(memory: &memory)
    try #require(names.count == 2, "\(names)")
    #expect(
      names[0].from == 2 && names[0].fromSource == .placeAt && names[0].to == 3 && names[0].toSource == .fence
    )
    #expect(
      names[1].from == 3 && names[1].fromSource == .fence && names[1].to == 1 && names[1].toSource == .fence)
    // Nothing older than what is still open is kept: at the end, the stay at home.
    let kept = memory.remembered(UserID(1))
    #expect(kept.allSatisfy { $0.place == 1 }, "\(kept)")
    // A memory saved and restored between uploads names the same.
    for k in [3, 6, 9, 12] {
      var restored = TripNaming.Memory()
      #expect(try Self.pipelineNames(memory: &restored, restoreAt: k) == names, "restored after upload \(k)")
    }
    // Each output on its own, the second start would be named by placeAt
    // (the school holds it), not from the fence's departure.
    var forgetful = TripNaming.Memory()
    let alone = try Self.pipelineNames(memory: &forgetful, forgetful: true)
    #expect(alone.count == 2 && alone[1].from == 3 && alone[1].fromSource == .placeAt, "\(alone)")
  }

  @Test(
    "the memory keeps at most eventsPerPerson events a person, the newest: 3 of 3 kept, the oldest of 4 dropped"
  )
  func memoryCap() {
    let fence = GeofenceEngine(places: Day.places(cafeMeters: 850).map(\.geofence))
    let events = (0..<4).map {
      Self.event($0 % 2 == 0 ? .arrival : .departure, 1, at: Day.t0 + Int64($0) * 60_000)
    }
    var three = TripNaming.Memory(eventsPerPerson: 3)
    _ = three.name([], events: Array(events.prefix(3)), fence: fence, trips: TripSegmenterState())
    #expect(three.remembered(UserID(1)) == Array(events.prefix(3)))
    _ = three.name([], events: [events[3]], fence: fence, trips: TripSegmenterState())
    #expect(three.remembered(UserID(1)) == Array(events.suffix(3)))
    // Events nobody said are not kept at all.
    var memory = TripNaming.Memory()
    _ = memory.name(
      [],
      events: [
        Self.event(.arrival, 1, at: Day.t0, .pending), Self.event(.arrival, 1, at: Day.t0, .cancelled),
      ],
      fence: fence, trips: TripSegmenterState())
    #expect(memory.remembered(UserID(1)).isEmpty)
  }
}
