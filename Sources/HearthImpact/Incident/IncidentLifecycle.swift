/// SPEC §10: what happens after a possible-impact verdict, as a pure state
/// machine. The app calls `check(now:…)` whenever it runs (no timers) and
/// does what it returns; the state is a plain `Codable` value so it survives
/// a process kill. Times are milliseconds since the epoch; every sum of
/// times saturates (no clock or decoded state can make it trap).
///
/// Every wait runs on the incident's own clock (``IncidentState/clockMilliseconds``),
/// which moves forwards by the app clock's forward moves between checks: a
/// wall clock set back (by the user, a time zone mistake, a network time
/// correction) adds nothing and cannot stretch a wait, and the times the
/// actions name are on the app's clock as it reads now. A clock set
/// forwards cannot be told from time passing (the app suspended): it counts.
public struct IncidentRules: Sendable, Hashable, Codable {
  /// The person is asked and has this long to answer, ms.
  public var askMilliseconds: Int64 = 30_000
  /// Raised automatically only while the incident is younger than this, ms.
  public var automaticMilliseconds: Int64 = 5 * 60_000
  /// Dropped this long after the verdict, whatever its state, ms.
  public var dropMilliseconds: Int64 = 3_600_000
  /// Sending retries after 15 s, 30 s, 1 min, then every 2 min.
  public var retryDelaysMilliseconds: [Int64] = [15_000, 30_000, 60_000]
  public var retryEveryMilliseconds: Int64 = 120_000

  public init() {}

  /// Every duration must be ≥ 0 (a decoded negative one is a `DecodingError`).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    askMilliseconds = try c.decode(Int64.self, forKey: .askMilliseconds)
    automaticMilliseconds = try c.decode(Int64.self, forKey: .automaticMilliseconds)
    dropMilliseconds = try c.decode(Int64.self, forKey: .dropMilliseconds)
    retryDelaysMilliseconds = try c.decode([Int64].self, forKey: .retryDelaysMilliseconds)
    retryEveryMilliseconds = try c.decode(Int64.self, forKey: .retryEveryMilliseconds)
    let all =
      [askMilliseconds, automaticMilliseconds, dropMilliseconds, retryEveryMilliseconds]
      + retryDelaysMilliseconds
    guard all.allSatisfy({ $0 >= 0 }) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "incident rules: a negative duration"))
    }
  }
}

extension IncidentRules {
  /// The wait after attempt `n` (1-based): the ladder, then every 2 min.
  func delay(after n: Int) -> Int64 {
    n >= 1 && n - 1 < retryDelaysMilliseconds.count ? retryDelaysMilliseconds[n - 1] : retryEveryMilliseconds
  }
}

/// a + b, saturating at the ends of Int64.
func saturating(_ a: Int64, plus b: Int64) -> Int64 {
  let (sum, overflow) = a.addingReportingOverflow(b)
  return overflow ? (b > 0 ? .max : .min) : sum
}

/// a − b, saturating at the ends of Int64.
func saturating(_ a: Int64, minus b: Int64) -> Int64 {
  let (difference, overflow) = a.subtractingReportingOverflow(b)
  return overflow ? (b < 0 ? .max : .min) : difference
}

/// What the person or the network said, or nothing (the clock moved).
public enum IncidentInput: Sendable, Hashable, Codable {
  case nothing
  /// "I'm okay".
  case dismissed
  /// "Alert now".
  case alertNow
  /// The result of a send attempt.
  case sendResult(SendResult)
  /// Another upload got through (so the network is back: retry at once).
  case uploadSucceeded
  /// An account signed in (its id).
  case signedIn(account: String)

  public enum SendResult: Sendable, Hashable, Codable {
    case delivered
    case networkFailure
    /// An HTTP status; 5xx and 429 are retried, 401 only while tokens are held.
    case http(status: Int, tokensHeld: Bool)
    /// An HTML page where JSON was expected (a captive portal or firewall).
    case firewallPage
  }
}

/// What the app should do now.
public enum IncidentAction: Sendable, Hashable, Codable {
  case none
  /// Show the question; `untilMilliseconds` is when silence raises the alert.
  case ask(untilMilliseconds: Int64)
  /// Send the alert now.
  case send
  /// Nothing to do before this time (call `check` again then).
  case waitUntil(Int64)
  /// It is over: `reason` says how.
  case finished(IncidentEnd)
}

public enum IncidentEnd: String, Sendable, Hashable, Codable {
  case dismissed, delivered, refused, droppedAfterAnHour, otherAccount
}

/// One incident, from the verdict to its end.
public struct IncidentState: Sendable, Hashable, Codable {
  public enum Phase: Sendable, Hashable, Codable {
    /// Asking the person.
    case asking
    /// Too late to raise automatically (over 5 min): waiting for the person.
    case waitingForPerson
    /// Sending: attempts so far, and the earliest time for the next one (an
    /// attempt without a result by then is retried).
    case sending(attempts: Int, nextMilliseconds: Int64)
    case finished(IncidentEnd)
  }
  public let verdictMilliseconds: Int64
  public let account: String
  public private(set) var phase: Phase = .asking
  /// Why it is sending: the person asked, or silence raised it.
  public private(set) var raisedBy: String?
  /// The incident's own clock at the latest check, ms: the verdict time
  /// plus every forward move of the app's clock from one check to the next
  /// (from the verdict to the first). Every wait is measured on it.
  public private(set) var clockMilliseconds: Int64
  /// The app's clock at the latest check (the verdict time before the first), ms.
  public private(set) var lastCheckMilliseconds: Int64
  /// A send was ordered in this process and its result has not come back:
  /// a successful upload then orders no second one (it waits for the
  /// result or the retry time, after which the attempt counts as failed).
  /// Not saved, compared or hashed: a process that was killed lost its
  /// request with it, so after a restore an upload retries at once (SPEC §10).
  public private(set) var awaitingResult = false

  /// Equal when every saved value is (``awaitingResult`` is the process's own);
  /// the accounts byte for byte, as ``check(now:_:rules:)`` tells them apart
  /// (the hash of the text is coarser, which `Hashable` allows).
  public static func == (a: IncidentState, b: IncidentState) -> Bool {
    a.verdictMilliseconds == b.verdictMilliseconds && a.account.utf8.elementsEqual(b.account.utf8)
      && a.phase == b.phase
      && a.raisedBy == b.raisedBy && a.clockMilliseconds == b.clockMilliseconds
      && a.lastCheckMilliseconds == b.lastCheckMilliseconds
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(verdictMilliseconds)
    hasher.combine(account)
    hasher.combine(phase)
    hasher.combine(raisedBy)
    hasher.combine(clockMilliseconds)
    hasher.combine(lastCheckMilliseconds)
  }

  public init(verdictMilliseconds: Int64, account: String) {
    self.verdictMilliseconds = verdictMilliseconds
    self.account = account
    clockMilliseconds = verdictMilliseconds
    lastCheckMilliseconds = verdictMilliseconds
  }

  /// The saved-state format this library writes (`formatVersion` in the
  /// encoding). A state saved without one (by a library from before
  /// versions were written) is read as this version: trackers in the field
  /// hold such states, and refusing them would lose an incident in flight
  /// across an upgrade. Any other version is refused by name.
  public static let formatVersion = 1

  /// Times a saved state may hold, ms since the epoch: 1900-01-01 ..<
  /// 2200-01-01 (the span the ingest path accepts fix times in).
  public static let timeWindowMilliseconds: Range<Int64> = -2_208_988_800_000..<7_258_118_400_000

  /// Why `milliseconds` cannot be a verdict time or the app's clock at a
  /// check, or nil: outside ``timeWindowMilliseconds`` it is not a clock (an
  /// incident made or checked with one would save, and its saved state be
  /// refused, losing the incident at the next process kill). The doors
  /// refuse such a time before it reaches the state. O(1).
  public static func clockProblem(_ milliseconds: Int64) -> String? {
    timeWindowMilliseconds.contains(milliseconds)
      ? nil : "\(milliseconds) ms is outside 1900–2200: not a clock"
  }

  /// The values ``check(now:_:rules:)`` writes into `raisedBy`.
  static let raisers: Set<String> = ["person", "silence"]

  enum CodingKeys: String, CodingKey {
    case formatVersion, verdictMilliseconds, account, phase, raisedBy, clockMilliseconds,
      lastCheckMilliseconds
  }

  /// A saved state: its format version (absent: version 1, see
  /// ``formatVersion``; any other is refused), then its values, each one
  /// checked to be one the lifecycle could have written (``problems``).
  /// - Throws: `DecodingError.dataCorrupted` whose coding path names the
  ///   refused field (`formatVersion`, `verdictMilliseconds`, `phase`,
  ///   `raisedBy`) and whose description says why.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let version: Int?
    do { version = try c.decodeIfPresent(Int.self, forKey: .formatVersion) } catch {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: c.codingPath + [CodingKeys.formatVersion],
          debugDescription:
            "formatVersion is not a whole number; this library reads saved incidents of format version \(Self.formatVersion)"
        ))
    }
    if let version, version != Self.formatVersion {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: c.codingPath + [CodingKeys.formatVersion],
          debugDescription:
            "a saved incident of formatVersion \(version); this library reads version \(Self.formatVersion) (or a state saved without a version)"
        ))
    }
    verdictMilliseconds = try c.decode(Int64.self, forKey: .verdictMilliseconds)
    account = try c.decode(String.self, forKey: .account)
    phase = try c.decode(Phase.self, forKey: .phase)
    raisedBy = try c.decodeIfPresent(String.self, forKey: .raisedBy)
    // A state saved before the incident kept its own clock: as if last
    // checked at the verdict, which gives exactly the answers it gave then
    // while the app's clock does not step back.
    clockMilliseconds = try c.decodeIfPresent(Int64.self, forKey: .clockMilliseconds) ?? verdictMilliseconds
    lastCheckMilliseconds =
      try c.decodeIfPresent(Int64.self, forKey: .lastCheckMilliseconds) ?? verdictMilliseconds
    if let (key, why) = problems.first {
      throw DecodingError.dataCorrupted(
        .init(codingPath: c.codingPath + [key], debugDescription: "incident state: \(why)"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(Self.formatVersion, forKey: .formatVersion)
    try c.encode(verdictMilliseconds, forKey: .verdictMilliseconds)
    try c.encode(account, forKey: .account)
    try c.encode(phase, forKey: .phase)
    try c.encodeIfPresent(raisedBy, forKey: .raisedBy)
    try c.encode(clockMilliseconds, forKey: .clockMilliseconds)
    try c.encode(lastCheckMilliseconds, forKey: .lastCheckMilliseconds)
  }

  /// What is wrong with this state's values, by field, each with why: a
  /// value ``check(now:_:rules:)`` could never have written. Empty for
  /// every state it writes from a verdict and clocks inside
  /// ``timeWindowMilliseconds``, whatever the rules (a retry time past the
  /// window is kept at its last millisecond). A verdict or clock outside
  /// the window is not a clock: an incident made from one saves, but its
  /// saved state is refused.
  /// - `verdictMilliseconds`, `clockMilliseconds`, `lastCheckMilliseconds`
  ///   and a sending phase's `nextMilliseconds` lie in
  ///   ``timeWindowMilliseconds``;
  /// - the incident's clock is not before the verdict;
  /// - a sending phase has made 1 to 2⁵³ attempts (0 would index the retry
  ///   ladder at −1);
  /// - `raisedBy` is absent, `person` or `silence`.
  /// O(1).
  var problems: [(CodingKeys, String)] {
    var out: [(CodingKeys, String)] = []
    func time(_ value: Int64, _ name: String) -> String? {
      Self.timeWindowMilliseconds.contains(value) ? nil : "\(name) \(value) ms is outside 1900–2200"
    }
    if let why = time(verdictMilliseconds, "verdictMilliseconds") { out.append((.verdictMilliseconds, why)) }
    if let why = time(clockMilliseconds, "clockMilliseconds") { out.append((.clockMilliseconds, why)) }
    if let why = time(lastCheckMilliseconds, "lastCheckMilliseconds") {
      out.append((.lastCheckMilliseconds, why))
    }
    if clockMilliseconds < verdictMilliseconds {
      out.append((.clockMilliseconds, "clockMilliseconds \(clockMilliseconds) ms is before the verdict"))
    }
    if case .sending(let attempts, let next) = phase {
      if attempts < 1 || attempts > 1 << 53 {
        out.append((.phase, "sending with \(attempts) attempts (1…2⁵³ can arise)"))
      }
      if let why = time(next, "sending.nextMilliseconds") { out.append((.phase, why)) }
    }
    if let raisedBy, !Self.raisers.contains(raisedBy) {
      out.append((.raisedBy, "raisedBy '\(raisedBy.prefix(40))' is neither person nor silence"))
    }
    return out
  }

  public var isFinished: Bool { if case .finished = phase { true } else { false } }

  /// Moves the incident with the clock and the input; returns what to do.
  /// Pure: the same state, time and input always give the same result.
  /// `now`: the app's clock, ms since the epoch; the incident's own clock
  /// moves on by however far `now` moved forwards since the last check
  /// (nothing when it went back). The times in the action are on the app's
  /// clock as `now` reads it. O(1).
  public mutating func check(
    now: Int64, _ input: IncidentInput = .nothing, rules: IncidentRules = IncidentRules()
  ) -> IncidentAction {
    if case .finished(let end) = phase { return .finished(end) }
    // Kept inside the saved-state window (a clock set back a century and
    // then forwards again would otherwise carry it past 2200); never back.
    let advanced = saturating(clockMilliseconds, plus: max(0, saturating(now, minus: lastCheckMilliseconds)))
    let t = max(clockMilliseconds, min(advanced, Self.timeWindowMilliseconds.upperBound - 1))
    clockMilliseconds = t
    lastCheckMilliseconds = now
    /// A time on the incident's clock, on the app's.
    func onAppClock(_ time: Int64) -> Int64 { saturating(now, plus: saturating(time, minus: t)) }
    let age = saturating(t, minus: verdictMilliseconds)
    // A 2xx status is the server taking the alert, however the app reports
    // it; one that comes after the hour is a delivery too (the hour drops an
    // alert still waiting for a signal, not one that got through).
    if case .sending = phase, Self.isDelivery(input) { return finish(.delivered) }
    if age >= rules.dropMilliseconds { return finish(.droppedAfterAnHour) }
    // Accounts are told apart by their bytes: Swift's `==` takes canonically
    // equivalent text ("é" as one code point or as e + accent) as equal.
    if case .signedIn(let other) = input, !other.utf8.elementsEqual(account.utf8) {
      return finish(.otherAccount)
    }
    switch phase {
    case .asking, .waitingForPerson:
      switch input {
      case .dismissed: return finish(.dismissed)
      case .alertNow: return startSending(t, by: "person", rules)
      default: break
      }
      if case .asking = phase {
        let deadline = saturating(verdictMilliseconds, plus: rules.askMilliseconds)
        if t < deadline { return .ask(untilMilliseconds: onAppClock(deadline)) }
        // Silence: raise, but only while the incident is young enough.
        if age < rules.automaticMilliseconds { return startSending(t, by: "silence", rules) }
        phase = .waitingForPerson
      }
      return .waitUntil(onAppClock(saturating(verdictMilliseconds, plus: rules.dropMilliseconds)))
    case .sending(let attempts, let next):
      switch input {
      case .sendResult(let failure):
        guard Self.retryable(failure) else { return finish(.refused) }
        let next = Self.retryTime(t, after: attempts, rules)
        phase = .sending(attempts: attempts, nextMilliseconds: next)
        awaitingResult = false
        return .waitUntil(onAppClock(next))
      case .uploadSucceeded where !awaitingResult || t >= next:
        // The network is back: retry at once, unless an attempt is still
        // on its way (then its result, or its retry time, decides).
        return attempt(t, attempts == .max ? attempts : attempts + 1, rules)
      case .dismissed:
        // Already raised: "I'm okay" cannot unsend; it ends the retries.
        return finish(.dismissed)
      default:
        if t >= next { return attempt(t, attempts == .max ? attempts : attempts + 1, rules) }
        return .waitUntil(onAppClock(next))
      }
    case .finished(let end):
      return .finished(end)
    }
  }

  /// Whether `input` says the server took the alert (a 2xx status).
  static func isDelivery(_ input: IncidentInput) -> Bool {
    switch input {
    case .sendResult(.delivered), .sendResult(.http(200...299, _)): true
    default: false
    }
  }

  /// 5xx, 429, network failures, a firewall's page and 401 with tokens held
  /// are worth retrying; anything else is a refusal (a 2xx never gets here:
  /// it is a delivery).
  static func retryable(_ result: IncidentInput.SendResult) -> Bool {
    switch result {
    case .delivered: false
    case .networkFailure, .firewallPage: true
    case .http(let status, let tokensHeld):
      (500...599).contains(status) || status == 429 || (status == 401 && tokensHeld)
    }
  }

  private mutating func startSending(_ now: Int64, by who: String, _ rules: IncidentRules) -> IncidentAction {
    raisedBy = who
    return attempt(now, 1, rules)
  }

  /// Attempt number `n` at `now` (the incident's clock): an attempt with no
  /// result by its retry time counts as failed (a check in between waits
  /// instead of sending twice).
  private mutating func attempt(_ now: Int64, _ n: Int, _ rules: IncidentRules) -> IncidentAction {
    phase = .sending(attempts: n, nextMilliseconds: Self.retryTime(now, after: n, rules))
    awaitingResult = true
    return .send
  }

  /// The retry time after attempt `n` made or failed at `now` (the
  /// incident's clock): `now` plus the rules' delay, kept inside
  /// ``timeWindowMilliseconds`` as the clock is. A delay reaching past 2200
  /// (allowed: any duration ≥ 0 is) would otherwise be saved as a state the
  /// restore refuses, losing the incident at the next process kill; the
  /// clock stops at the window's last millisecond, so it could never reach
  /// that time anyway (there, a retry is due at every check). A clock
  /// outside the window (a verdict that is not a clock) is left as it was.
  /// Never before `now`. O(1).
  static func retryTime(_ now: Int64, after n: Int, _ rules: IncidentRules) -> Int64 {
    let next = saturating(now, plus: rules.delay(after: n))
    return timeWindowMilliseconds.contains(now) ? min(next, timeWindowMilliseconds.upperBound - 1) : next
  }

  private mutating func finish(_ end: IncidentEnd) -> IncidentAction {
    phase = .finished(end)
    return .finished(end)
  }
}
