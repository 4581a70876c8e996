/// A speed limit a circle set, in km/h (SPEC §4: off until set).
public struct SpeedLimit: Sendable, Hashable, Codable {
  public var kilometersPerHour: Double

  public init(kilometersPerHour: Double) { self.kilometersPerHour = kilometersPerHour }

  /// A limit given in mph: 1 mph is exactly 1.609344 km/h.
  public static func milesPerHour(_ mph: Double) -> SpeedLimit {
    SpeedLimit(kilometersPerHour: mph * 1.609_344)
  }

  public var metersPerSecond: Double { kilometersPerHour / 3.6 }
}

public struct SpeedAlertRules: Sendable, Hashable, Codable {
  /// The phone must stay over the limit for at least this long, ms.
  public var minimumOverMilliseconds: Int64 = 15_000
  /// At most one alert per circle in this long, ms.
  public var cooldownMilliseconds: Int64 = 30 * 60_000
  /// A drive uploaded later than this after its newest fix goes to the feed only, ms.
  public var lateUploadMilliseconds: Int64 = 15 * 60_000
  public var agreed = AgreedSpeedRules()

  public init() {}
}

/// A speed-alert decision for one person and circle.
public struct SpeedAlertEvent: Sendable, Hashable, Codable {
  public enum Outcome: String, Sendable, Hashable, Codable {
    case announced, feedOnly, suppressed
  }
  public enum Reason: String, Sendable, Hashable, Codable {
    /// Over the limit for at least 15 s of the drive.
    case overLimitLongEnough
    /// Within 30 min of this circle's previous alert.
    case cooldown
    /// The drive was uploaded late.
    case lateUpload
  }
  public var person: UserID
  public var circle: UInt32
  public var outcome: Outcome
  public var reasons: [Reason]
  /// The stretch over the limit so far: first and last fix times, ms.
  public var startMilliseconds: Int64
  public var endMilliseconds: Int64
  /// Fastest agreed speed in it, m/s, and the limit, m/s.
  public var agreedSpeedMetersPerSecond: Double
  public var limitMetersPerSecond: Double
}

/// What the speed alert remembers per person.
public struct SpeedAlertState: Sendable, Hashable, Codable {
  struct Previous: Sendable, Hashable, Codable {
    var time: Int64
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var speed: Double?
  }
  struct Run: Sendable, Hashable, Codable {
    var start: Int64
    var end: Int64
    var fastest: Double
    var decided: Bool
  }
  var previous: [UInt32: Previous] = [:]
  /// Over-limit stretch per (person, circle), keyed person << 32 | circle.
  var runs: [UInt64: Run] = [:]
  /// Last alert time per circle.
  var lastAlert: [UInt32: Int64] = [:]

  public init() {}
}

/// SPEC §4 speed alert: fires when a person stays over a circle's limit for
/// at least 15 s of the drive, judged on agreed speeds, so one fast reading
/// never counts (its neighbours agree on less), two in a row at 1 Hz cover
/// only a second, and two fixes a minute apart, both over, cover a minute.
/// At most one alert per circle every 30 min; a drive uploaded more than
/// 15 min after its newest fix goes to the feed only.
///
/// Stream and batch are one code path (`process` on any batch); fixes not
/// newer than the person's previous fix are skipped (idempotent replay).
/// - Complexity: O(1) per fix and circle of the person.
public struct SpeedAlertEngine: Sendable {
  public let limits: [UInt32: SpeedLimit]
  public let circlesOfPerson: [UserID: [UInt32]]
  public let rules: SpeedAlertRules

  /// `limits`: circle → limit (a circle without one never alerts);
  /// `circlesOfPerson`: the circles each person is in.
  public init(limits: [UInt32: SpeedLimit], circlesOfPerson: [UserID: [UInt32]], rules: SpeedAlertRules = SpeedAlertRules()) {
    self.limits = limits
    self.circlesOfPerson = circlesOfPerson.mapValues { $0.sorted() }
    self.rules = rules
  }

  /// One person's fixes (time order), uploaded at `receivedAtMilliseconds`.
  public func process(
    _ fixes: FixColumns, receivedAtMilliseconds now: Int64, state: inout SpeedAlertState
  ) -> [SpeedAlertEvent] {
    guard !fixes.isEmpty else { return [] }
    let newest = fixes.timeMilliseconds.max()!
    let late = now - newest > rules.lateUploadMilliseconds
    var events: [SpeedAlertEvent] = []
    for i in 0..<fixes.count {
      let person = fixes.user[i]
      let time = fixes.timeMilliseconds[i]
      let current = SpeedAlertState.Previous(
        time: time, latitude: fixes.latitudeDegrees[i], longitude: fixes.longitudeDegrees[i],
        accuracy: fixes.horizontalAccuracyMeters[i], speed: fixes[i].speedMetersPerSecond)
      guard let previous = state.previous[person.rawValue] else {
        state.previous[person.rawValue] = current
        continue
      }
      guard time > previous.time else { continue }
      state.previous[person.rawValue] = current
      let agreed = AgreedSpeed.pair(
        timeA: previous.time, Coordinate(latitudeDegrees: previous.latitude, longitudeDegrees: previous.longitude),
        previous.accuracy, previous.speed, timeB: time,
        Coordinate(latitudeDegrees: current.latitude, longitudeDegrees: current.longitude), current.accuracy,
        current.speed, rules: rules.agreed)?.metersPerSecond
      for circle in circlesOfPerson[person] ?? [] {
        guard let limit = limits[circle]?.metersPerSecond else { continue }
        let key = UInt64(person.rawValue) << 32 | UInt64(circle)
        guard let speed = agreed, speed > limit else {
          state.runs[key] = nil
          continue
        }
        var run = state.runs[key] ?? .init(start: previous.time, end: time, fastest: speed, decided: false)
        run.end = time
        run.fastest = max(run.fastest, speed)
        if !run.decided && run.end - run.start >= rules.minimumOverMilliseconds {
          run.decided = true
          var reasons: [SpeedAlertEvent.Reason] = [.overLimitLongEnough]
          var outcome = SpeedAlertEvent.Outcome.announced
          if let last = state.lastAlert[circle], time - last < rules.cooldownMilliseconds {
            reasons.append(.cooldown)
            outcome = .suppressed
          } else if late {
            reasons.append(.lateUpload)
            outcome = .feedOnly
          }
          if outcome == .announced { state.lastAlert[circle] = time }
          events.append(
            SpeedAlertEvent(
              person: person, circle: circle, outcome: outcome, reasons: reasons, startMilliseconds: run.start,
              endMilliseconds: run.end, agreedSpeedMetersPerSecond: run.fastest, limitMetersPerSecond: limit))
        }
        state.runs[key] = run
      }
    }
    return events
  }
}
