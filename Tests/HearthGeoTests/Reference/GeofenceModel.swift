import Foundation

@testable import HearthGeo

/// A reference model of SPEC §3 with the choices docs/guides/geofences.md
/// names, written from the rules rather than from the engine: every place is
/// tested against every fix with the exact great-circle distance (no index,
/// no candidate list), waiting decisions are found by scanning every place
/// (no waiting list), and nothing is evicted. Edits of places are not
/// modelled (the regression tests hold them).
struct GeofenceModel {
  /// A waiting decision's minute runs on the clock of the device that sent
  /// the fix (from `time`, on that device's later fixes only) and on the
  /// server's (from `received`, that fix's receipt).
  struct Mark {
    var time: Int64
    var received: Int64
    var odometer: Double
    var late: Bool
    var device: DeviceID
    var clearSeen = false
  }
  struct PlaceMemory {
    var inside = false
    var watermark = Int64.min
    var departure: Mark?
    var arrival: (time: Int64, received: Int64, late: Bool, device: DeviceID)?
    var lastLeft: Int64?
    var quietUntil: Int64?
    var idle: Bool { !inside && departure == nil && arrival == nil }
  }
  struct Person {
    var places: [PlaceID: PlaceMemory] = [:]
    var odometer = 0.0
    var lastSharp: Fix?
    var lastFix: Fix?
    var lastDeparture: (place: PlaceID, mark: Mark)?
  }

  let places: [Geofence]  // ascending id
  let circlesOfPerson: [UserID: [CircleID]]
  var people: [UserID: Person] = [:]
  var events: [GeofenceEvent] = []
  /// The clock of the call being made, and whether the person's fixes in it are late.
  private var now: Int64 = 0
  private var late = false

  init(places: [Geofence], circlesOfPerson: [UserID: [CircleID]]) {
    self.places = places.sorted { $0.id < $1.id }
    self.circlesOfPerson = circlesOfPerson
  }

  func visible(_ person: UserID) -> [Geofence] {
    guard let circles = circlesOfPerson[person] else { return places }
    return places.filter { circles.contains($0.circle) }
  }

  func place(_ id: PlaceID) -> Geofence { places.first { $0.id == id }! }

  // MARK: Calls

  mutating func process(_ fixes: [Fix], receivedAt received: Int64) {
    now = received
    for person in Set(fixes.map(\.user)).sorted() {
      let own = fixes.filter { $0.user == person }.sorted {
        ($0.timeMilliseconds, $0.device) < ($1.timeMilliseconds, $1.device)
      }
      late = received - (own.map(\.timeMilliseconds).max() ?? .min) > 15 * 60_000
      var p = people[person] ?? Person()
      // The server's minute is over for whatever it ran out on by this
      // receipt, before the fixes are heard; then the fixes; then the clock again.
      settle(upTo: received, server: true, person, &p)
      for fix in own { apply(fix, person, &p) }
      settle(upTo: received, server: true, person, &p)
      people[person] = p
    }
  }

  mutating func advance(to time: Int64) {
    now = time
    late = false
    for person in people.keys.sorted() {
      var p = people[person]!
      settle(upTo: time, server: true, person, &p)
      people[person] = p
    }
  }

  // MARK: One fix

  private mutating func apply(_ fix: Fix, _ person: UserID, _ p: inout Person) {
    guard fix.horizontalAccuracyMeters <= 250 else { return }
    let t = fix.timeMilliseconds
    settle(upTo: t, server: false, device: fix.device, person, &p)
    var speed = fix.speedMetersPerSecond
    if speed == nil, let previous = p.lastFix, previous.timeMilliseconds < t {
      speed = SpeedModel.agreed(previous, fix)?.speed
    }
    if t > (p.lastFix?.timeMilliseconds ?? .min) { p.lastFix = fix }
    if fix.horizontalAccuracyMeters <= 100 && t > (p.lastSharp?.timeMilliseconds ?? .min) {
      if let previous = p.lastSharp {
        p.odometer += GreatCircle.distanceMeters(from: previous.coordinate, to: fix.coordinate)
      }
      p.lastSharp = fix
    }
    let margin = max(40, fix.horizontalAccuracyMeters > 100 ? 2 * fix.horizontalAccuracyMeters : 0)
    var arrivals: [(PlaceID, Int64, GeofenceReason, Bool)] = []
    var started: [PlaceID] = []
    for place in visible(person) {
      let d = GreatCircle.distanceMeters(from: place.center, to: fix.coordinate)
      let inside = d <= place.radiusMeters
      var m = p.places[place.id] ?? PlaceMemory()
      guard inside || !m.idle, t > m.watermark else { continue }
      m.watermark = t
      let clear = !inside && !(d <= place.radiusMeters + margin)
      if !m.inside {
        if inside {
          m.inside = true
          if let speed, speed >= 5 {
            m.arrival = (t, now, late, fix.device)
            emit(.arrival, .pending, [.fastArrivalWaiting], place, t, t, late: late, person)
          } else {
            arrivals.append((place.id, t, .entered, late))
          }
        }
      } else if let arrival = m.arrival {
        // Out the far side is judged against the radius, not the band
        // (issue 28 item 5): beyond it, the fix is further out than the one inside.
        // A network estimate (error over 100 m) counts as out only from more
        // than twice its error beyond the radius (F3); nearer, it changes nothing.
        let network = fix.horizontalAccuracyMeters > 100
        let out = network ? d > place.radiusMeters + 2 * fix.horizontalAccuracyMeters : true
        if !inside {
          if out {
            m.arrival = nil
            m.inside = false
            emit(.arrival, .cancelled, [.drovePast], place, arrival.time, t, late: arrival.late, person)
          }
        } else if let speed, speed < 5 {
          arrivals.append((place.id, arrival.time, .fastArrivalSlowed, arrival.late || late))
        }
      } else if let departure = m.departure {
        if inside {
          m.departure = nil
          emit(.departure, .cancelled, [.backInside], place, departure.time, t, late: departure.late, person)
        } else if clear {
          m.departure?.clearSeen = true
        }
      } else if clear {
        m.departure = Mark(time: t, received: now, odometer: p.odometer, late: late, device: fix.device)
        started.append(place.id)
      }
      p.places[place.id] = m
    }
    decide(arrivals, at: t, server: false, device: fix.device, person, &p)
    for id in started where p.places[id]?.departure?.time == t {
      emit(
        .departure, .pending, [.leftWaitingForConfirmation], place(id), t, t,
        late: p.places[id]!.departure!.late, person)
    }
  }

  // MARK: The clock

  /// When a wait started by `device`'s fix at `time`, received at
  /// `received`, started on the server's clock or on `clock`'s device's
  /// (nil: another device's clock, which does not end it).
  private static func start(
    _ time: Int64, _ received: Int64, _ device: DeviceID, server: Bool, clock: DeviceID?
  ) -> Int64? {
    server ? received : device == clock ? time : nil
  }

  /// `time` on the server's clock (a receipt, the timer) or on the clock of
  /// `device` (one of its fixes).
  private mutating func settle(
    upTo time: Int64, server: Bool, device: DeviceID? = nil, _ person: UserID, _ p: inout Person
  ) {
    while true {
      let arrivalWaiting = p.places.values.contains { $0.arrival != nil }
      var deadline = Int64.max
      for m in p.places.values {
        if let a = m.arrival, let s = Self.start(a.time, a.received, a.device, server: server, clock: device)
        {
          deadline = min(deadline, s + 60_000)
        }
        if !arrivalWaiting, let d = m.departure,
          let s = Self.start(d.time, d.received, d.device, server: server, clock: device)
        {
          deadline = min(deadline, s + 60_000)
        }
      }
      guard deadline <= time else { return }
      let arrivals = p.places.filter {
        $0.value.arrival.map {
          Self.start($0.time, $0.received, $0.device, server: server, clock: device).map { $0 + 60_000 }
            == deadline
        } ?? false
      }
      .map {
        ($0.key, $0.value.arrival!.time, GeofenceReason.fastArrivalMinutePassed, $0.value.arrival!.late)
      }
      .sorted { $0.0 < $1.0 }
      decide(arrivals, at: deadline, server: server, device: device, person, &p)
    }
  }

  // MARK: Announcing

  private mutating func decide(
    _ arrivals: [(PlaceID, Int64, GeofenceReason, Bool)], at t: Int64, server: Bool, device: DeviceID?,
    _ person: UserID, _ p: inout Person
  ) {
    for (id, _, _, _) in arrivals { p.places[id]?.arrival = nil }
    var departures: [(PlaceID, Mark, GeofenceReason)] = []
    if !p.places.values.contains(where: { $0.arrival != nil }) {
      for (id, m) in p.places.sorted(by: { $0.key < $1.key }) {
        guard let d = m.departure else { continue }
        if d.clearSeen {
          departures.append((id, d, .secondFixClear))
        } else if let s = Self.start(d.time, d.received, d.device, server: server, clock: device),
          s + 60_000 <= t
        {
          departures.append((id, d, .minuteWithoutReturn))
        }
      }
    }
    func size(_ id: PlaceID) -> (Double, PlaceID) { (place(id).radiusMeters, id) }
    let smallestDeparture = departures.map(\.0).min { size($0) < size($1) }
    let smallestArrival = arrivals.map(\.0).min { size($0) < size($1) }
    for (id, mark, reason) in departures {
      p.places[id]?.departure = nil
      p.places[id]?.inside = false
      p.places[id]?.lastLeft = mark.time
      var reasons = [reason]
      if !arrivals.isEmpty { reasons.append(.arrivedElsewhere) }
      if id == smallestDeparture {
        p.lastDeparture = (id, mark)
      } else {
        reasons.append(.smallerPlaceAnnounced)
      }
      if let q = p.places[id]?.quietUntil, mark.time < q { reasons.append(.placeQuiet) }
      decided(.departure, reasons, place(id), mark.time, t, nil, late: mark.late, person)
    }
    var anyAnnounced = false
    for (id, time, reason, lateArrival) in arrivals {
      var reasons = [reason]
      if id != smallestArrival { reasons.append(.smallerPlaceAnnounced) }
      var m = p.places[id] ?? PlaceMemory()
      if let q = m.quietUntil, time < q { reasons.append(.placeQuiet) }
      if let left = m.lastLeft, time - left <= 10 * 60_000 {
        reasons.append(.returnedSoon)
        m.quietUntil = max(m.quietUntil ?? .min, time + 15 * 60_000)
      }
      p.places[id] = m
      var journey: Journey?
      if id == smallestArrival, let left = p.lastDeparture {
        journey = Journey(
          fromPlace: left.place, departedMilliseconds: left.mark.time,
          distanceMeters: p.odometer - left.mark.odometer,
          durationMilliseconds: time - left.mark.time)
        p.lastDeparture = nil
      }
      if decided(.arrival, reasons, place(id), time, t, journey, late: lateArrival, person) {
        anyAnnounced = true
      }
    }
    guard anyAnnounced else { return }
    let arrived = Set(arrivals.map(\.0))
    for (id, m) in p.places.sorted(by: { $0.key < $1.key }) where !arrived.contains(id) {
      guard let mark = m.departure else { continue }
      p.places[id]?.departure = nil
      p.places[id]?.inside = false
      p.places[id]?.lastLeft = mark.time
      emit(.departure, .feedOnly, [.supersededByArrival], place(id), mark.time, t, late: mark.late, person)
    }
  }

  /// Returns whether it was announced.
  @discardableResult
  private mutating func decided(
    _ kind: GeofenceEventKind, _ reasons: [GeofenceReason], _ place: Geofence, _ time: Int64, _ at: Int64,
    _ journey: Journey?, late: Bool, _ person: UserID
  ) -> Bool {
    let feedOnlyReasons: Set<GeofenceReason> = [
      .smallerPlaceAnnounced, .placeQuiet, .arrivedElsewhere, .supersededByArrival,
    ]
    let outcome: GeofenceOutcome = reasons.contains(where: feedOnlyReasons.contains) ? .feedOnly : .announced
    return emit(kind, outcome, reasons, place, time, at, journey: journey, late: late, person) == .announced
  }

  @discardableResult
  private mutating func emit(
    _ kind: GeofenceEventKind, _ outcome: GeofenceOutcome, _ reasons: [GeofenceReason], _ place: Geofence,
    _ time: Int64, _ at: Int64, journey: Journey? = nil, late: Bool, _ person: UserID
  ) -> GeofenceOutcome {
    var outcome = outcome
    var reasons = reasons
    if outcome == .announced || outcome == .feedOnly {
      if now - time > 30 * 60_000 {
        reasons.append(.staleNews)
        outcome = .feedOnly
      }
      if late {
        reasons.append(.lateBatch)
        outcome = .feedOnly
      }
    }
    events.append(
      GeofenceEvent(
        kind: kind, outcome: outcome, reasons: ReasonList(reasons), place: place.id, circle: place.circle,
        person: person,
        eventMilliseconds: time, decidedMilliseconds: at, journey: journey))
    return outcome
  }
}
