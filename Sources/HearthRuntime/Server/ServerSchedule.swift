import HearthGeo

/// The server's schedule for a recorded history: which uploads it receives,
/// when, and when its timer moves the clock with nothing arriving. The one
/// schedule every door replays (`hearth geo replay` through
/// ``ServerReplay``; Python's `hearth.Ingest.replay` and
/// `hearth.distributed.replay` through the C ABI's `hearth_schedule`);
/// docs/decisions/0010-one-server-schedule.md says why it is this one.
///
/// **Uploads.** A phone uploads its own fixes: each phone's (user, device)
/// fixes, in the order the history gives them, are cut by
/// ``ServerUploads/bounds(timeMilliseconds:receivedAtMilliseconds:policy:)``
/// (with receipt times: wherever the receipt changes, at most
/// `maximumFixes`; without: at most `maximumFixes` spanning at most
/// `maximumSpanMilliseconds`, received `receiptDelayMilliseconds` after the
/// newest), never received earlier than that phone's previous upload. The
/// server takes every phone's uploads in order of receipt; uploads received
/// at the same millisecond in the order their first fix comes in the
/// history (the order they arrived). So an upload never mixes two people,
/// and the server clock never goes backwards.
///
/// **Ticks.** Between two receipts the timer moves the clock every
/// `tickMilliseconds` after the earlier one (a tick strictly before the
/// next receipt, and more than a tick before it), for at most
/// `idleTickingMilliseconds` after a receipt; after the last receipt it
/// ticks on the same way up to the end (the later of `untilMilliseconds`
/// and the last receipt plus `lingerMilliseconds`, when either is set) and
/// ends with an advance to that end. With no end the schedule stops at the
/// last receipt.
///
/// **The clock's window.** Every step's time is a server clock every door
/// takes (``FixValidation/serverClockProblem(_:)``, 1900–2200): a receipt
/// time or `untilMilliseconds` outside it refuses the schedule by name
/// (``refusal``); a derived receipt or a linger past it stops at the
/// window's end.
///
/// Every step is numbered once; a step is an upload (its fixes as positions
/// in the history) or a tick. Deterministic: same history and settings,
/// same steps. Complexity: O(n log n) in the fixes (the uploads sorted by
/// receipt) plus one step per tick.
public struct ServerSchedule: Sendable, Hashable {
  public struct Settings: Sendable, Hashable {
    /// How each phone's fixes are cut into uploads.
    public var uploads = ServerUploads.Policy(maximumFixes: 200)
    /// The server's timer, ms (≥ 1; below 1 counts as 1).
    public var tickMilliseconds: Int64 = 60_000
    /// How long after a receipt the timer keeps ticking when nothing
    /// arrives, ms (≥ 0; 0: no ticks at all); past it the clock jumps to the
    /// next receipt (or the end). Nothing the clock decides waits that long
    /// — the longest waits are the geofences' 15 min quiet window and 30 min
    /// news limit, the sudden stop's 5 min, the trips' 5 min idle gap — so
    /// the events are the same as ticking through, and a history with a gap
    /// of years costs at most this many ticks per gap, not one per minute.
    public var idleTickingMilliseconds: Int64 = 6 * 3_600_000
    /// Go on after the last receipt up to this time, ms since the epoch (nil: no).
    public var untilMilliseconds: Int64?
    /// Go on after the last receipt for this long, ms (0: no). With
    /// `untilMilliseconds` too, the later end wins.
    public var lingerMilliseconds: Int64 = 0
    public init() {}
  }

  /// One step of the server: an upload received at `timeMilliseconds`, or
  /// a tick of the timer to it.
  public struct Step: Sendable, Hashable {
    /// The receipt time or the time the clock moves to, ms since the epoch.
    public var timeMilliseconds: Int64
    /// The upload's fixes as positions in ``ServerSchedule/rows`` (empty for a tick).
    public var rows: Range<Int>
    /// True for an upload, false for a tick.
    public var isUpload: Bool

    public init(timeMilliseconds: Int64, rows: Range<Int>, isUpload: Bool) {
      self.timeMilliseconds = timeMilliseconds
      self.rows = rows
      self.isUpload = isUpload
    }
  }

  /// Every step in the server's order.
  public private(set) var steps: [Step] = []
  /// Positions of the history's fixes, upload after upload (`rows[step.rows]`
  /// are one upload's fixes in the order the phone sent them).
  public private(set) var rows: [Int] = []
  public private(set) var uploadCount = 0
  /// Why the schedule has no steps: a receipt time or the end is not a
  /// server clock (the first such receipt is named, with how many there
  /// are; an end outside the window is refused even for a history with no
  /// fixes), or the timer would tick more than ``maximumTicks`` times (nil:
  /// it is whole). Every door refuses the history or settings with this
  /// reason.
  public private(set) var refusal: String?

  /// The most timer ticks one schedule holds. Each tick is a step kept in
  /// memory and a clock advance of the pipeline; a tick of 1 ms with the
  /// timer never idle (both allowed one by one) would otherwise ask for
  /// billions of steps and end in an allocation failure. 5 million ticks are
  /// 8 years of minutes: a 1 s tick ticks 21 600 times per 6 h gap.
  public static let maximumTicks = 5_000_000

  /// The schedule of a history given by its fixes' times, users and devices
  /// (in the order the history has them) and, for an upload log, each fix's
  /// receipt time.
  /// - Precondition: the columns, and `receivedAtMilliseconds` when given,
  ///   have one entry per fix.
  public init(
    timeMilliseconds times: [Int64], user: [UserID], device: [DeviceID],
    receivedAtMilliseconds: [Int64]? = nil,
    settings: Settings = Settings()
  ) {
    precondition(user.count == times.count && device.count == times.count, "one user and device per fix")
    precondition(receivedAtMilliseconds.map { $0.count == times.count } ?? true, "one receipt time per fix")
    // The server's clock reads a date in the window every door takes
    // (FixValidation.serverClockProblem): a receipt or an end outside it is
    // a clock in the wrong unit, refused by name before anything is made.
    if let receipts = receivedAtMilliseconds, let first = receipts.firstIndex(where: Self.offTheClock) {
      let count = receipts.lazy.filter(Self.offTheClock).count
      refusal =
        "the receipt of fix \(first): \(FixValidation.serverClockProblem(receipts[first]) ?? "")"
        + (count > 1 ? " (\(count) receipts in all)" : "")
      return
    }
    if let until = settings.untilMilliseconds, let why = FixValidation.serverClockProblem(until) {
      refusal = "the end (until): \(why)"
      return
    }
    // Each phone's fixes in the history's order, phones in order of first appearance.
    var phoneOf: [Phone: Int] = [:]
    var phones: [[Int]] = []
    for i in times.indices {
      let key = Phone(user: user[i], device: device[i])
      if let p = phoneOf[key] {
        phones[p].append(i)
      } else {
        phoneOf[key] = phones.count
        phones.append([i])
      }
    }
    var uploads: [(received: Int64, first: Int, rows: [Int])] = []
    for positions in phones {
      let receipts = receivedAtMilliseconds.map { r in positions.map { r[$0] } }
      for cut in ServerUploads.bounds(
        timeMilliseconds: positions.map { times[$0] }, receivedAtMilliseconds: receipts,
        policy: settings.uploads)
      {
        let own = Array(positions[cut.rows])
        uploads.append((cut.receivedAtMilliseconds, own[0], own))
      }
    }
    uploads.sort { ($0.received, $0.first) < ($1.received, $1.first) }
    uploadCount = uploads.count
    rows.reserveCapacity(times.count)

    let tick = max(settings.tickMilliseconds, 1)
    var clock: Int64?
    var tickCount = 0
    func ticks(upTo end: Int64) {
      guard var t = clock, refusal == nil else { return }
      let (limit, overflow) = t.addingReportingOverflow(max(settings.idleTickingMilliseconds, 0))
      let stop = overflow ? end : min(end, limit)
      // The loop below adds ⌊(stop − t − 1) / tick⌋ ticks (none when
      // stop ≤ t): counted first, in unsigned arithmetic (the span may
      // exceed Int64), so too many are refused before any is made.
      let span = stop > t ? UInt64(bitPattern: stop &- t) - 1 : 0
      let coming = span / UInt64(tick)
      guard coming <= UInt64(Self.maximumTicks - tickCount) else {
        refusal =
          "the server's timer would tick more than \(Self.maximumTicks) times (every \(tick) ms for up to "
          + "\(settings.idleTickingMilliseconds) ms after each receipt, to the end): "
          + "take a longer tick or a shorter idle ticking"
        return
      }
      tickCount += Int(coming)
      // Each pass moves t up by tick ≥ 1 and stops more than a tick short
      // of `stop`: the loop ends.
      while t < stop, stop.subtractingReportingOverflow(t).partialValue > tick {
        t += tick
        steps.append(Step(timeMilliseconds: t, rows: rows.count..<rows.count, isUpload: false))
      }
    }
    for upload in uploads {
      ticks(upTo: upload.received)
      steps.append(
        Step(
          timeMilliseconds: upload.received, rows: rows.count..<rows.count + upload.rows.count, isUpload: true
        ))
      rows += upload.rows
      clock = upload.received
    }
    guard let last = clock, refusal == nil else {
      clearIfRefused()
      return
    }
    // A linger is a span: past the window it stops at the window's last ms.
    let lastOnTheClock = FixValidation.plausibleMilliseconds.upperBound - 1
    let lingered =
      settings.lingerMilliseconds > 0 ? last.addingReportingOverflow(settings.lingerMilliseconds) : nil
    let lingerEnd = lingered.map { $0.overflow ? lastOnTheClock : min($0.partialValue, lastOnTheClock) }
    let ends = [settings.untilMilliseconds, lingerEnd].compactMap { $0 }
    if let end = ends.max(), end > last {
      ticks(upTo: end)
      steps.append(Step(timeMilliseconds: end, rows: rows.count..<rows.count, isUpload: false))
    }
    clearIfRefused()
  }

  /// A refused schedule keeps no steps (none was made past the refusal, and
  /// a part of a schedule would replay a different history's clock).
  private mutating func clearIfRefused() {
    guard refusal != nil else { return }
    steps = []
    rows = []
  }

  /// The schedule of `fixes` (their times, users and devices).
  public init(_ fixes: FixColumns, receivedAtMilliseconds: [Int64]? = nil, settings: Settings = Settings()) {
    self.init(
      timeMilliseconds: fixes.timeMilliseconds, user: fixes.user, device: fixes.device,
      receivedAtMilliseconds: receivedAtMilliseconds, settings: settings)
  }

  /// The history's positions of `step`'s fixes.
  public func positions(of step: Step) -> ArraySlice<Int> { rows[step.rows] }

  /// Per step, whether the ingest path refuses it whole: an upload of
  /// `fixes` (the history this schedule was made from) with a schema error
  /// under `rules` (SPEC §1; such an upload moves no clock). False for every
  /// tick. A door that replays people apart leaves such an upload out of
  /// everybody else's clock. O(fixes).
  public func refusals(of fixes: FixColumns, rules: ValidationRules = ValidationRules()) -> [Bool] {
    steps.map { step in
      guard step.isUpload else { return false }
      if case .failure = FixValidation.validate(
        fixes.selecting(positions(of: step)), nowMilliseconds: step.timeMilliseconds, rules: rules)
      {
        return true
      }
      return false
    }
  }

  /// The server's clock at the end (the last step's time), nil with no uploads.
  public var clockMilliseconds: Int64? { steps.last?.timeMilliseconds }

  private static func offTheClock(_ milliseconds: Int64) -> Bool {
    FixValidation.serverClockProblem(milliseconds) != nil
  }

  private struct Phone: Hashable {
    var user: UserID
    var device: DeviceID
  }
}
