import Foundation
import HearthGeo
import HearthSim
import HearthTrace

/// How the speed rules (SPEC §4, §5) do against real speeds and generated
/// truth: agreed speed against a car's own CAN speed (comma2k19) and a
/// phone's 1 Hz speeds (MEMS-Nav), speed alerts and sudden stops against
/// labelled days, and sudden stops on real drives where nothing happened.
public enum SpeedEvaluation {
  /// Signed errors (agreed − reference), m/s, summarised.
  public struct ErrorSummary: Sendable, Hashable, Codable {
    public var name: String
    public var pairs: Int
    public var meanError: Double
    public var medianAbsoluteError: Double
    public var p90AbsoluteError: Double
    public var maxAbsoluteError: Double

    init(name: String, errors: [Double]) {
      self.name = name
      pairs = errors.count
      let absolute = errors.map(abs).sorted()
      meanError = errors.isEmpty ? .nan : errors.reduce(0, +) / Double(errors.count)
      medianAbsoluteError = absolute.isEmpty ? .nan : absolute[absolute.count / 2]
      p90AbsoluteError = absolute.isEmpty ? .nan : absolute[min(absolute.count - 1, absolute.count * 9 / 10)]
      maxAbsoluteError = absolute.last ?? .nan
    }
  }

  /// A reference speed series (ms since the epoch, m/s).
  public struct Reference: Sendable {
    var times: [Int64]
    var speeds: [Double]

    public init(times: [Int64], speeds: [Double]) {
      let order = times.indices.sorted { times[$0] < times[$1] }
      self.times = order.map { times[$0] }
      self.speeds = order.map { speeds[$0] }
    }

    /// Mean reference speed over [from, to] (nil when no sample lies in it).
    func mean(_ from: Int64, _ to: Int64) -> Double? {
      var low = 0
      var high = times.count
      while low < high {
        let mid = (low + high) / 2
        if times[mid] < from { low = mid + 1 } else { high = mid }
      }
      var sum = 0.0
      var n = 0
      var k = low
      while k < times.count && times[k] <= to {
        sum += speeds[k]
        n += 1
        k += 1
      }
      return n > 0 ? sum / Double(n) : nil
    }
  }

  /// Keeps one fix per `every` ms (the first at or after each step).
  public static func subsample(_ fixes: FixColumns, everyMilliseconds every: Int64) -> FixColumns {
    var kept: [Int] = []
    var next = Int64.min
    for i in 0..<fixes.count where fixes.timeMilliseconds[i] >= next {
      kept.append(i)
      next = fixes.timeMilliseconds[i] + every
    }
    return fixes.selecting(kept)
  }

  /// Agreed speed of each neighbouring pair of the subsampled fixes against
  /// the mean reference speed over the pair's interval.
  public static func agreedVersusReference(
    _ name: String, fixes: FixColumns, reference: Reference, everyMilliseconds: Int64
  ) -> ErrorSummary {
    let sampled = subsample(fixes, everyMilliseconds: everyMilliseconds)
    var errors: [Double] = []
    for i in 1..<max(1, sampled.count) {
      guard let agreed = AgreedSpeed.pair(sampled[i - 1], sampled[i]),
        let truth = reference.mean(sampled.timeMilliseconds[i - 1], sampled.timeMilliseconds[i])
      else { continue }
      errors.append(agreed.metersPerSecond - truth)
    }
    return ErrorSummary(name: name, errors: errors)
  }

  /// comma2k19: u-blox fixes against the car's CAN speed, every 1 s and 30 s.
  public static func comma2k19(segment: String) throws -> [ErrorSummary] {
    let (trace, _) = try TraceFolder.readComma2k19Segment(segment)
    guard let can = trace.scalars["canSpeed"], let origin = trace.metadata.timeOriginMilliseconds else {
      return []
    }
    let reference = Reference(
      times: can.seconds.map { origin + Int64(($0 * 1000).rounded()) }, speeds: can.values)
    return [1_000, 30_000].map {
      agreedVersusReference(
        "comma2k19 vs CAN, fixes every \($0 / 1000) s", fixes: trace.fixes, reference: reference,
        everyMilliseconds: $0)
    }
  }

  /// MEMS-Nav processed drives: fixes every 30 s against the phone's own
  /// 1 Hz speeds (what the thinned track loses), and every 1 s.
  public static func memsNav(processedFolder: String, mappingPath: String) throws -> [ErrorSummary] {
    let drives = try FileManager.default.contentsOfDirectory(atPath: processedFolder).filter {
      !$0.hasSuffix(".md")
    }.sorted()
    var all = FixColumns()
    var errorsBy: [Int64: [Double]] = [1_000: [], 30_000: []]
    for drive in drives {
      let (trace, _) = try TraceImport.read(path: processedFolder + "/" + drive, mappingPath: mappingPath)
      let fixes = trace.fixes
      all.append(contentsOf: fixes)
      let reference = Reference(
        times: fixes.timeMilliseconds, speeds: fixes.speedMetersPerSecond.map { $0.isNaN ? 0 : $0 })
      for every in [Int64(1_000), 30_000] {
        let sampled = subsample(fixes, everyMilliseconds: every)
        for i in 1..<max(1, sampled.count) {
          guard let agreed = AgreedSpeed.pair(sampled[i - 1], sampled[i]),
            let truth = reference.mean(sampled.timeMilliseconds[i - 1], sampled.timeMilliseconds[i])
          else { continue }
          errorsBy[every]!.append(agreed.metersPerSecond - truth)
        }
      }
    }
    return [1_000, 30_000].map {
      ErrorSummary(name: "MEMS-Nav vs its 1 Hz speeds, fixes every \($0 / 1000) s", errors: errorsBy[$0]!)
    }
  }

  // MARK: Generated days

  public struct AlertMetrics: Sendable, Hashable, Codable {
    public var days = 0
    /// True stretches over the limit for ≥ 15 s, by length: 15–30 s, 30–60 s, ≥ 60 s.
    public var stretches = [0, 0, 0]
    public var stretchesDecided = [0, 0, 0]
    public var decisions = 0
    public var decisionsMatching = 0
    public var announced = 0

    public var precision: Double { Double(decisionsMatching) / Double(max(1, decisions)) }
    public var recall: Double {
      Double(stretchesDecided.reduce(0, +)) / Double(max(1, stretches.reduce(0, +)))
    }
  }

  /// The speed alert with a circle limit of `limitKmh` over generated days:
  /// decisions (announced, feed-only or suppressed) against the true
  /// episodes over the limit lasting ≥ 15 s (dips under a minute merged;
  /// overlap with 20 s slack).
  public static func speedAlerts(seeds: ClosedRange<UInt64>, limitKmh: Double = 50) -> AlertMetrics {
    var m = AlertMetrics()
    let limit = SpeedLimit(kilometersPerHour: limitKmh)
    for seed in seeds {
      let day = DayGenerator.generate(seed: seed)
      m.days += 1
      let user = UserID(day.options.user)
      let engine = SpeedAlertEngine(limits: [1: limit], circlesOfPerson: [user: [1]])
      var state = SpeedAlertState()
      var decisions: [SpeedAlertEvent] = []
      for upload in day.uploads where upload.device.rawValue == 1 && !upload.isRepeat {
        decisions += engine.process(
          upload.fixes, receivedAtMilliseconds: upload.receivedMilliseconds, state: &state)
      }
      let start = day.options.startEpochMilliseconds
      var stretches: [(Int64, Int64)] = []
      var i = 0
      let v = day.truth.speedMetersPerSecond
      while i < v.count {
        guard v[i] > limit.metersPerSecond else {
          i += 1
          continue
        }
        var j = i
        while j < v.count && v[j] > limit.metersPerSecond { j += 1 }
        // Dips under the limit shorter than 60 s (a corner, a slower car)
        // do not end an episode: the phone's 10 s fixes cannot see them.
        if let last = stretches.last, start + Int64(i) * 1000 - last.1 < 60_000 {
          stretches[stretches.count - 1].1 = start + Int64(j - 1) * 1000
        } else {
          stretches.append((start + Int64(i) * 1000, start + Int64(j - 1) * 1000))
        }
        i = j
      }
      stretches.removeAll { $0.1 - $0.0 < 15_000 }
      func overlaps(_ e: SpeedAlertEvent, _ s: (Int64, Int64)) -> Bool {
        e.startMilliseconds <= s.1 + 20_000 && e.endMilliseconds >= s.0 - 20_000
      }
      for s in stretches {
        let seconds = (s.1 - s.0) / 1000
        let bucket = seconds < 30 ? 0 : (seconds < 60 ? 1 : 2)
        m.stretches[bucket] += 1
        if decisions.contains(where: { overlaps($0, s) }) { m.stretchesDecided[bucket] += 1 }
      }
      m.decisions += decisions.count
      m.announced += decisions.filter { $0.outcome == .announced }.count
      m.decisionsMatching += decisions.filter { e in stretches.contains { overlaps(e, $0) } }.count
    }
    return m
  }

  public struct StopMetrics: Sendable, Hashable, Codable {
    public var days = 0
    public var labelled = 0
    public var labelledRaised = 0
    /// Raised incidents, and those matching a label.
    public var raised = 0
    public var raisedMatching = 0
    /// Raised, then dropped when a sharp fix landed over 300 m away.
    public var raisedThenDropped = 0
    /// Labelled stops whose five minutes fell in a tunnel or gap (no fix to see them).
    public var labelledInGap = 0
    /// Labelled stops within an hour of an incident already raised (SPEC:
    /// once an hour per person), not counted against recall.
    public var labelledWithinTheHour = 0

    public var precision: Double { Double(raisedMatching) / Double(max(1, raised)) }
    public var recall: Double { Double(labelledRaised) / Double(max(1, labelled - labelledWithinTheHour)) }
  }

  /// The sudden-stop check (with the day's places) over generated days,
  /// against the labelled sudden stops (a raised incident matches a label
  /// within 2 min and 300 m).
  public static func suddenStops(seeds: ClosedRange<UInt64>, options: DayOptions = DayOptions())
    -> StopMetrics
  {
    var m = StopMetrics()
    for seed in seeds {
      let day = DayGenerator.generate(seed: seed, options: options)
      m.days += 1
      let engine = SuddenStopEngine(places: GeofenceEvaluation.geofences(day.places))
      var state = SuddenStopState()
      var events: [SuddenStopEvent] = []
      for upload in day.uploads where upload.device.rawValue == 1 && !upload.isRepeat {
        events += engine.process(upload.fixes, state: &state)
      }
      events += engine.advance(to: day.options.startEpochMilliseconds + 86_400_000 + 3_600_000, state: &state)
      // Every raised incident counts (the alert went out); the generator's
      // drivers carry on afterwards, so most are dropped later, as they should be.
      let raised = events.filter { $0.outcome == .raised }
      m.raisedThenDropped += events.filter { $0.outcome == .cancelled }.count
      func matches(_ e: SuddenStopEvent, _ label: SuddenStopLabel) -> Bool {
        abs(e.stopMilliseconds - label.stopMilliseconds) <= 120_000
          && GreatCircle.distanceMeters(from: e.coordinate, to: label.coordinate) <= 300 + e.accuracyMeters
      }
      for label in day.labels.suddenStops {
        m.labelled += 1
        if raised.contains(where: { matches($0, label) }) {
          m.labelledRaised += 1
        } else if raised.contains(where: {
          $0.decidedMilliseconds < label.stopMilliseconds
            && label.stopMilliseconds + 300_000 - $0.decidedMilliseconds < 3_600_000
        }) {
          m.labelledWithinTheHour += 1
        }
        if day.labels.gaps.contains(where: {
          $0.device == 1 && $0.startMilliseconds <= label.stopMilliseconds
            && $0.endMilliseconds >= label.stopMilliseconds
        }) {
          m.labelledInGap += 1
        }
      }
      m.raised += raised.count
      m.raisedMatching += raised.filter { e in day.labels.suddenStops.contains { matches(e, $0) } }.count
    }
    return m
  }

  /// The sudden-stop check on real drives in which no crash happened: every
  /// raised incident, per drive.
  public static func realSuddenStops(_ drives: [(name: String, fixes: FixColumns)]) -> [(
    name: String, raised: [SuddenStopEvent]
  )] {
    drives.map { drive in
      let engine = SuddenStopEngine()
      var state = SuddenStopState()
      let order = drive.fixes.timeMilliseconds.indices.sorted {
        drive.fixes.timeMilliseconds[$0] < drive.fixes.timeMilliseconds[$1]
      }
      var events = engine.process(drive.fixes.selecting(order), state: &state)
      events += engine.advance(to: (drive.fixes.timeMilliseconds.max() ?? 0) + 3_600_000, state: &state)
      return (drive.name, events.filter { $0.outcome == .raised })
    }
  }
}
