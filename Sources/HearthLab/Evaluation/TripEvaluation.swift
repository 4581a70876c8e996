import HearthGeo
import HearthSim

/// Trip segmentation (SPEC §7) scored against generated days: the carried
/// phone's uploads go through one `TripSegmenter` with the day's places, and
/// the trips found are matched to the labelled trips by time overlap.
public enum TripEvaluation {
  public struct Metrics: Sendable, Hashable, Codable {
    public var days = 0
    /// Labelled trips (every journey between two stops of ≥ 5 min).
    public var labelled = 0
    public var labelledFound = 0
    public var found = 0
    /// Found trips overlapping a labelled trip by at least half of the shorter of the two.
    public var foundMatching = 0
    /// Segments rejected by the validity thresholds, and journeys kept whatever their length.
    public var rejectedSegments = 0
    public var journeys = 0
    /// For matched pairs: start and end time errors (s) and distance of the
    /// found ends from the true positions at the true start and end (m).
    public var startSeconds: [Double] = []
    public var endSeconds: [Double] = []
    public var startMeters: [Double] = []
    public var endMeters: [Double] = []

    public var precision: Double { Double(foundMatching) / Double(max(1, found)) }
    public var recall: Double { Double(labelledFound) / Double(max(1, labelled)) }
  }

  /// The segments of one generated day (carried phone, uploads in arrival order).
  public static func segments(_ day: LocationDay, rules: TripRules = TripRules()) -> [TripSegment] {
    output(day, rules: rules).segments
  }

  /// Segments and stays of one generated day.
  public static func output(_ day: LocationDay, rules: TripRules = TripRules()) -> TripOutput {
    let segmenter = TripSegmenter(places: GeofenceEvaluation.geofences(day.places), rules: rules)
    var state = TripSegmenterState()
    var out = TripOutput()
    var last = day.options.startEpochMilliseconds
    for upload in day.uploads where upload.device.rawValue == 1 {
      out += segmenter.process(upload.fixes, now: upload.receivedMilliseconds, state: &state)
      last = max(last, upload.receivedMilliseconds)
    }
    out += segmenter.advance(to: last + 2 * 3_600_000, state: &state)
    return out
  }

  public static func evaluate(seeds: ClosedRange<UInt64>, options: DayOptions = DayOptions()) -> Metrics {
    var m = Metrics()
    for seed in seeds {
      let day = DayGenerator.generate(seed: seed, options: options)
      score(day, segments(day), into: &m)
    }
    return m
  }

  static func score(_ day: LocationDay, _ segments: [TripSegment], into m: inout Metrics) {
    m.days += 1
    let trips = segments.filter(\.isTrip)
    m.rejectedSegments += segments.count - trips.count
    m.journeys += trips.filter { $0.reasons.contains(.journeyBetweenNamedPlaces) }.count
    m.found += trips.count
    let labels = day.labels.trips
    m.labelled += labels.count
    func overlap(_ t: TripSegment, _ l: TripLabel) -> Bool {
      let shared =
        min(t.summary.endMilliseconds, l.endMilliseconds)
        - max(t.summary.startMilliseconds, l.startMilliseconds)
      let shorter = min(t.summary.durationMilliseconds, l.endMilliseconds - l.startMilliseconds)
      return shared > 0 && 2 * shared >= shorter
    }
    let start = day.options.startEpochMilliseconds
    func truth(at time: Int64) -> Coordinate {
      let i = Int((time - start) / 1000)
      return day.truth.coordinate(at: max(0, min(day.truth.count - 1, i)))
    }
    for t in trips where labels.contains(where: { overlap(t, $0) }) { m.foundMatching += 1 }
    for l in labels {
      guard let t = trips.first(where: { overlap($0, l) }) else { continue }
      m.labelledFound += 1
      m.startSeconds.append(Double(t.summary.startMilliseconds - l.startMilliseconds) / 1000)
      m.endSeconds.append(Double(t.summary.endMilliseconds - l.endMilliseconds) / 1000)
      m.startMeters.append(
        GreatCircle.distanceMeters(from: t.summary.start, to: truth(at: l.startMilliseconds)))
      m.endMeters.append(GreatCircle.distanceMeters(from: t.summary.end, to: truth(at: l.endMilliseconds)))
    }
  }
}
