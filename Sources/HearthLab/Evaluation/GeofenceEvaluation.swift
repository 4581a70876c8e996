import HearthGeo
import HearthSim

/// How well the geofence engine (SPEC §3) finds the true place visits of
/// generated days: precision and recall of announced arrivals and
/// departures, and how long after the true crossing they are announced.
public enum GeofenceEvaluation {
  /// An event matches a visit when it names the visit's place and happened
  /// within this long of the true crossing (the phone's cadence is 10–30 s).
  public static let matchToleranceMilliseconds: Int64 = 180_000

  public struct Metrics: Sendable, Hashable, Codable {
    public var days = 0
    public var visits = 0
    /// Visits under way when the day began (state reseeded: no arrival expected).
    public var seededVisits = 0
    /// Visits that ended before the day did (a departure can be expected).
    public var endedVisits = 0
    public var arrivalsAnnounced = 0
    public var arrivalsAnnouncedMatching = 0
    public var visitsWithArrival = 0
    public var departuresAnnounced = 0
    public var departuresAnnouncedMatching = 0
    public var visitsWithDeparture = 0
    /// Unmatched announcements caused by a labelled outlier fix (a false
    /// departure and the arrival back that follows it).
    public var falseAfterOutlier = 0
    public var feedOnly = 0
    public var cancelled = 0
    /// Seconds from the true crossing to the announcement (decision time).
    public var arrivalLatencySeconds: [Double] = []
    public var departureLatencySeconds: [Double] = []

    public var arrivalPrecision: Double {
      Double(arrivalsAnnouncedMatching) / Double(max(1, arrivalsAnnounced))
    }
    public var arrivalRecall: Double { Double(visitsWithArrival) / Double(max(1, visits - seededVisits)) }
    public var departurePrecision: Double {
      Double(departuresAnnouncedMatching) / Double(max(1, departuresAnnounced))
    }
    public var departureRecall: Double { Double(visitsWithDeparture) / Double(max(1, endedVisits)) }
  }

  /// The day's places as geofences (circle 0).
  public static func geofences(_ places: [Place]) -> [Geofence] {
    places.map { Geofence(id: PlaceID(UInt32($0.id)), center: $0.center, radiusMeters: $0.radiusMeters) }
  }

  /// Replays one generated day: the carried phone's uploads in arrival order,
  /// each received when the day says, then the clock to the day's end.
  public static func replay(_ day: LocationDay, rules: GeofenceRules = GeofenceRules()) -> [GeofenceEvent] {
    let engine = GeofenceEngine(places: geofences(day.places), rules: rules)
    var state = GeofenceState()
    // The server knew yesterday that they were home.
    let home = day.places[0].center
    engine.reseed(
      UserID(day.options.user), circle: 0,
      from: FixColumns([
        Fix(
          timeMilliseconds: day.options.startEpochMilliseconds - 1000, latitudeDegrees: home.latitudeDegrees,
          longitudeDegrees: home.longitudeDegrees, horizontalAccuracyMeters: 10,
          user: UserID(day.options.user))
      ]), state: &state)
    var events: [GeofenceEvent] = []
    for upload in day.uploads where upload.device.rawValue == 1 {
      events += engine.process(
        upload.fixes, receivedAtMilliseconds: upload.receivedMilliseconds, state: &state)
    }
    events += engine.advance(to: day.options.startEpochMilliseconds + 86_400_000 + 3_600_000, state: &state)
    return events
  }

  /// Scores the engine over the days of `seeds`.
  /// - Complexity: O(days × fixes); about 10 ms per day in a release build.
  public static func evaluate(seeds: ClosedRange<UInt64>, options: DayOptions = DayOptions()) -> Metrics {
    var m = Metrics()
    for seed in seeds {
      let day = DayGenerator.generate(seed: seed, options: options)
      score(day, replay(day), into: &m)
    }
    return m
  }

  /// When the truth crossed the place's edges around a visit: in at the
  /// radius (walking up to it) and out beyond radius + 40 m (SPEC §3's
  /// exit), in ms. A visit is parked time; the crossings are what a
  /// geofence can see.
  static func crossings(_ visit: VisitLabel, _ day: LocationDay) -> (arrive: Int64, leave: Int64) {
    let place = day.places[visit.place]
    let truth = day.truth
    let start = day.options.startEpochMilliseconds
    func distance(_ s: Int) -> Double {
      GreatCircle.distanceMeters(from: place.center, to: truth.coordinate(at: s))
    }
    var first = Int((visit.arriveMilliseconds - start) / 1000)
    while first > 0 && distance(first - 1) <= place.radiusMeters { first -= 1 }
    var last = Int((visit.leaveMilliseconds - start) / 1000)
    while last + 1 < truth.count && distance(last) <= place.radiusMeters + 40 { last += 1 }
    return (start + Int64(first) * 1000, start + Int64(last) * 1000)
  }

  static func score(_ day: LocationDay, _ events: [GeofenceEvent], into m: inout Metrics) {
    m.days += 1
    let dayEnd = day.options.startEpochMilliseconds + 86_399_000
    let edges = day.labels.visits.map { crossings($0, day) }
    let announced = events.filter { $0.outcome == .announced }
    m.feedOnly += events.filter { $0.outcome == .feedOnly }.count
    m.cancelled += events.filter { $0.outcome == .cancelled }.count
    func near(_ a: Int64, _ b: Int64) -> Bool { abs(a - b) <= matchToleranceMilliseconds }
    /// The first announced or fed event of `kind` at the visit's place near `time`.
    func found(_ kind: GeofenceEventKind, _ visit: VisitLabel, _ time: Int64) -> GeofenceEvent? {
      events.first {
        $0.kind == kind && $0.place == PlaceID(UInt32(visit.place))
          && ($0.outcome == .announced || $0.outcome == .feedOnly)
          && near($0.eventMilliseconds, time)
      }
    }
    for (visit, edge) in zip(day.labels.visits, edges) {
      m.visits += 1
      // The day starts at home with the state reseeded there: no arrival to find.
      if visit.arriveMilliseconds <= day.options.startEpochMilliseconds {
        m.seededVisits += 1
      } else if let arrival = found(.arrival, visit, edge.arrive) {
        m.visitsWithArrival += 1
        if arrival.outcome == .announced {
          m.arrivalLatencySeconds.append(Double(arrival.decidedMilliseconds - edge.arrive) / 1000)
        }
      }
      guard visit.leaveMilliseconds < dayEnd else { continue }
      m.endedVisits += 1
      if let departure = found(.departure, visit, edge.leave) {
        m.visitsWithDeparture += 1
        if departure.outcome == .announced {
          m.departureLatencySeconds.append(Double(departure.decidedMilliseconds - edge.leave) / 1000)
        }
      }
    }
    let outliers = Set(day.labels.outliers.filter { $0.device == 1 }.map(\.timeMilliseconds))
    var outlierDepartures: [(PlaceID, Int64)] = []
    for event in announced {
      let place = Int(event.place.rawValue)
      let matches = zip(day.labels.visits, edges).contains { visit, edge in
        visit.place == place
          && near(event.eventMilliseconds, event.kind == .arrival ? edge.arrive : edge.leave)
      }
      if event.kind == .arrival {
        m.arrivalsAnnounced += 1
        if matches { m.arrivalsAnnouncedMatching += 1 }
        // The way back in after a departure an outlier caused.
        if !matches
          && outlierDepartures.contains(where: {
            $0.0 == event.place && event.eventMilliseconds - $0.1 <= 3_600_000
              && event.eventMilliseconds > $0.1
          })
        {
          m.falseAfterOutlier += 1
        }
      } else {
        m.departuresAnnounced += 1
        if matches { m.departuresAnnouncedMatching += 1 }
        if !matches && outliers.contains(event.eventMilliseconds) {
          m.falseAfterOutlier += 1
          outlierDepartures.append((event.place, event.eventMilliseconds))
        }
      }
    }
  }
}
