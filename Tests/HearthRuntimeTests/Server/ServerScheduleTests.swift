import HearthGeo
import HearthRuntime
import HearthSim
import Testing
import _HearthTestSupport

/// The server's one schedule (decisions/0010): per-phone uploads in order of
/// receipt, the timer between, an end after the last receipt.
@Suite("ServerSchedule: one server schedule for every door")
struct ServerScheduleTests {
  static let t0: Int64 = 1_700_000_000_000

  static func fix(_ t: Int64, user: UInt32, device: UInt32? = nil, latitude: Double = 52.5) -> Fix {
    Fix(
      timeMilliseconds: t, latitudeDegrees: latitude, longitudeDegrees: 13.4, horizontalAccuracyMeters: 10,
      device: DeviceID(device ?? user), user: UserID(user))
  }

  static func columns(_ fixes: [Fix]) -> FixColumns {
    var c = FixColumns()
    for f in fixes { c.append(f) }
    return c
  }

  static func noTicks() -> ServerSchedule.Settings {
    var s = ServerSchedule.Settings()
    s.idleTickingMilliseconds = 0
    return s
  }

  @Test("each phone uploads its own fixes: two people's interleaved fixes are never one upload")
  func perPhone() {
    // Person 1 (two devices) and person 2 interleaved, as a log of many phones is.
    let history = Self.columns([
      Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + 1_000, user: 2),
      Self.fix(Self.t0 + 2_000, user: 1, device: 9),
      Self.fix(Self.t0 + 3_000, user: 1), Self.fix(Self.t0 + 4_000, user: 2),
    ])
    let schedule = ServerSchedule(history, settings: Self.noTicks())
    #expect(schedule.uploadCount == 3)
    let uploads = schedule.steps.filter(\.isUpload).map { Array(schedule.positions(of: $0)) }
    // Each phone received 1 s after its newest fix: (1,9) at t0+3 s, (1,1) at t0+4 s, (2,2) at t0+5 s.
    #expect(uploads == [[2], [0, 3], [1, 4]])
    #expect(schedule.steps.map(\.timeMilliseconds) == [Self.t0 + 3_000, Self.t0 + 4_000, Self.t0 + 5_000])
    #expect(schedule.rows.sorted() == Array(0..<5))
  }

  @Test("an upload spans at most 5 min: a fix at 5 min joins, at 5 min + 1 ms starts the next")
  func spanEdge() {
    for (gap, expected) in [(Int64(300_000), 1), (300_001, 2)] {
      let history = Self.columns([Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + gap, user: 1)])
      #expect(ServerSchedule(history, settings: Self.noTicks()).uploadCount == expected, "gap \(gap)")
    }
  }

  @Test(
    "an upload log: same-millisecond receipts in arrival order, a late upload never before its phone's last, duplicates kept"
  )
  func uploadLog() {
    let history = Self.columns([
      Self.fix(Self.t0, user: 2), Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + 60_000, user: 1),
      Self.fix(Self.t0 + 60_000, user: 1), Self.fix(Self.t0 - 600_000, user: 2),
    ])
    // Person 2's second upload is logged as received before their first: late, clamped.
    let receipts = [Self.t0 + 1_000, Self.t0 + 1_000, Self.t0 + 61_000, Self.t0 + 61_000, Self.t0 + 500]
    let schedule = ServerSchedule(history, receivedAtMilliseconds: receipts, settings: Self.noTicks())
    let uploads = schedule.steps.filter(\.isUpload)
    #expect(uploads.map { Array(schedule.positions(of: $0)) } == [[0], [1], [4], [2, 3]])
    #expect(
      uploads.map(\.timeMilliseconds) == [
        Self.t0 + 1_000, Self.t0 + 1_000, Self.t0 + 1_000, Self.t0 + 61_000,
      ])
  }

  @Test("the timer: every tick after a receipt, none within a tick of the next; stops after the idle span")
  func ticks() {
    var settings = ServerSchedule.Settings()
    settings.tickMilliseconds = 60_000
    func times(gap: Int64) -> [Int64] {
      let history = Self.columns([Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + gap, user: 2)])
      return ServerSchedule(history, settings: settings).steps.map { $0.timeMilliseconds - Self.t0 - 1_000 }
    }
    #expect(times(gap: 120_000) == [0, 60_000, 120_000])  // 2 ticks apart: one tick between
    // A tick that lands 1 ms before the receipt.
    #expect(times(gap: 120_001) == [0, 60_000, 120_000, 120_001])
    #expect(times(gap: 60_000) == [0, 60_000])
    settings.idleTickingMilliseconds = 180_000
    // Ticks only up to 3 min (the last a tick short of it).
    #expect(times(gap: 3_600_000) == [0, 60_000, 120_000, 3_600_000])
  }

  @Test("the end: until and linger, the later wins; none stops at the last receipt")
  func end() {
    let history = Self.columns([Self.fix(Self.t0, user: 1)])
    let last = Self.t0 + 1_000
    var settings = ServerSchedule.Settings()
    #expect(ServerSchedule(history, settings: settings).clockMilliseconds == last)
    settings.lingerMilliseconds = 600_000
    let lingered = ServerSchedule(history, settings: settings)
    #expect(lingered.clockMilliseconds == last + 600_000)
    #expect(lingered.steps.count == 11)  // the receipt, 9 ticks, the end
    settings.untilMilliseconds = last + 900_000
    #expect(ServerSchedule(history, settings: settings).clockMilliseconds == last + 900_000)
    settings.untilMilliseconds = last + 300_000
    #expect(ServerSchedule(history, settings: settings).clockMilliseconds == last + 600_000)
    settings.untilMilliseconds = last
    settings.lingerMilliseconds = 0
    #expect(ServerSchedule(history, settings: settings).steps.count == 1)
  }

  @Test("refusals: an upload with a latitude out of range is refused whole, the others and ticks are not")
  func refusals() {
    let history = Self.columns([
      Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + 1_000, user: 2, latitude: 95),
      Self.fix(Self.t0 + 2_000, user: 2),
    ])
    let schedule = ServerSchedule(history)
    let refused = schedule.refusals(of: history)
    #expect(zip(schedule.steps, refused).filter { $0.0.isUpload }.map(\.1) == [false, true])
    #expect(refused.filter { $0 }.count == 1)
  }

  @Test("an upload log's receipt is one upload however many fixes it holds, refused whole")
  func loggedUploadStaysWhole() {
    // 300 fixes received together, one latitude out of range in the last
    // hundred: the whole upload is refused (it was cut at 200, and the first
    // 200 were taken).
    let fixes = (0..<300).map {
      Self.fix(Self.t0 + Int64($0) * 1_000, user: 1, latitude: $0 == 250 ? 91 : 52.5)
    }
    let history = Self.columns(fixes)
    let receipts = [Int64](repeating: Self.t0 + 300_000, count: 300)
    let schedule = ServerSchedule(history, receivedAtMilliseconds: receipts, settings: Self.noTicks())
    #expect(schedule.uploadCount == 1)
    #expect(schedule.refusals(of: history).filter { $0 } == [true])
    // Without receipt times the history is still cut at 200.
    #expect(ServerSchedule(history, settings: Self.noTicks()).uploadCount == 2)
  }

  @Test("a timer that would tick more than the cap is refused with a reason, not allocated")
  func tooManyTicks() {
    // Two uploads (received 1 s after each fix) 40 000 001 ms apart, the
    // timer never idle: ⌊(40 000 001 − 1) / 8⌋ = 5 000 000 ticks between them.
    func schedule(gap: Int64, tick: Int64) -> ServerSchedule {
      var settings = ServerSchedule.Settings()
      settings.uploads = ServerUploads.Policy(maximumFixes: 1)
      settings.tickMilliseconds = tick
      settings.idleTickingMilliseconds = .max
      let history = Self.columns([Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + gap, user: 1)])
      return ServerSchedule(history, settings: settings)
    }
    let atCap = schedule(gap: 40_000_001, tick: 8)
    #expect(atCap.refusal == nil && atCap.steps.count == 2 + ServerSchedule.maximumTicks)
    let over = schedule(gap: 40_000_009, tick: 8)
    #expect(over.refusal?.contains("more than 5000000 times") == true)
    #expect(over.steps.isEmpty && over.rows.isEmpty)
    var settings = ServerSchedule.Settings()
    let history = Self.columns([Self.fix(Self.t0, user: 1)])
    // The header's extreme but valid settings: a 1 ms timer never idle, to 2199.
    settings.tickMilliseconds = 1
    settings.idleTickingMilliseconds = .max
    settings.untilMilliseconds = 7_258_118_399_999
    #expect(ServerSchedule(history, settings: settings).refusal != nil)
    settings.tickMilliseconds = 60_000  // the same to 2199 by minutes: 88 million ticks
    #expect(ServerSchedule(history, settings: settings).refusal != nil)
  }

  @Test(
    "every step is a server clock: receipts and the end outside 1900–2200 refused by name; lingers stop at 2200"
  )
  func theClocksWindow() {
    let window = FixValidation.plausibleMilliseconds
    let lastMillisecond = window.upperBound - 1
    let history = Self.columns([Self.fix(Self.t0, user: 1), Self.fix(Self.t0 + 1_000, user: 2)])
    // Receipts: both edges of the window taken, 1 ms past either refused,
    // naming the first such fix and how many there are.
    for (receipts, refused) in [
      ([window.lowerBound, lastMillisecond], false), ([window.lowerBound - 1, Self.t0], true),
      ([Self.t0, window.upperBound], true), ([Int64.max, .min], true),
    ] {
      let schedule = ServerSchedule(history, receivedAtMilliseconds: receipts, settings: Self.noTicks())
      #expect((schedule.refusal != nil) == refused, "\(receipts)")
      #expect(schedule.steps.isEmpty == refused && schedule.rows.isEmpty == refused, "\(receipts)")
    }
    let both = ServerSchedule(history, receivedAtMilliseconds: [Int64.max, .min], settings: Self.noTicks())
    #expect(
      both.refusal?.hasPrefix("the receipt of fix 0: 9223372036854775807 is not a time from 1900") == true)
    #expect(both.refusal?.hasSuffix("(2 receipts in all)") == true, "\(both.refusal ?? "")")
    // The end: the window's last millisecond taken, one past refused.
    var settings = Self.noTicks()
    settings.untilMilliseconds = lastMillisecond
    #expect(ServerSchedule(history, settings: settings).clockMilliseconds == lastMillisecond)
    settings.untilMilliseconds = window.upperBound
    #expect(ServerSchedule(history, settings: settings).refusal?.hasPrefix("the end (until): ") == true)
    settings.untilMilliseconds = window.lowerBound - 1
    #expect(ServerSchedule(history, settings: settings).refusal != nil)
    // A linger past the window stops at its last millisecond, ticks and all;
    // one that ends inside is kept exactly.
    let late = Self.columns([Self.fix(lastMillisecond - 150_000, user: 1)])
    settings = ServerSchedule.Settings()
    for (linger, end) in [
      (Int64(148_999), lastMillisecond - 1), (149_000, lastMillisecond), (3_600_000, lastMillisecond),
      (.max, lastMillisecond),
    ] {
      settings.lingerMilliseconds = linger
      let schedule = ServerSchedule(late, settings: settings)
      #expect(schedule.refusal == nil && schedule.clockMilliseconds == end, "linger \(linger)")
      #expect(schedule.steps.allSatisfy { window.contains($0.timeMilliseconds) }, "linger \(linger)")
    }
    // A derived receipt (newest fix + the delay) stays in the window too:
    // the fixes are refused when they arrive, the clock is not flung away.
    let outside = Self.columns([
      Self.fix(window.lowerBound - 86_400_000, user: 1), Self.fix(lastMillisecond - 400, user: 2),
      Self.fix(.max, user: 3),
    ])
    let derived = ServerSchedule(outside, settings: Self.noTicks())
    #expect(derived.refusal == nil)
    #expect(derived.steps.map(\.timeMilliseconds) == [window.lowerBound, lastMillisecond, lastMillisecond])
  }

  /// A random history of several people with several phones, shuffled,
  /// duplicated, with receipts or without.
  struct Case: Shrinkable, CustomStringConvertible {
    var fixes: [Fix]
    var receipts: [Int64]?
    var shrinkCandidates: [Case] {
      guard fixes.count > 1 else { return [] }
      let half = fixes.count / 2
      return [
        Case(fixes: Array(fixes[..<half]), receipts: receipts.map { Array($0[..<half]) }),
        Case(fixes: Array(fixes[half...]), receipts: receipts.map { Array($0[half...]) }),
      ]
    }
    var description: String {
      fixes.enumerated().map { i, f in
        "t=\(f.timeMilliseconds) user=\(f.user.rawValue) device=\(f.device.rawValue)"
          + (receipts.map { " received=\($0[i])" } ?? "")
      }.joined(separator: "\n")
    }
  }

  static func generate(_ random: inout SeededGenerator) -> Case {
    var fixes: [Fix] = []
    var receipts: [Int64] = []
    for _ in 0..<Int.random(in: 1...60, using: &random) {
      // Times on whole minutes (window edges) or anywhere.
      let t =
        Self.t0 + Int64.random(in: 0...40, using: &random) * (Bool.random(using: &random) ? 60_000 : 17_321)
      let user = UInt32.random(in: 1...3, using: &random)
      fixes.append(Self.fix(t, user: user, device: user * 10 + UInt32.random(in: 0...1, using: &random)))
      receipts.append(t + Int64.random(in: 0...3, using: &random) * 60_000)
    }
    if let k = fixes.indices.randomElement(using: &random) {  // a duplicated fix
      fixes.append(fixes[k])
      receipts.append(receipts[k] + 60_000)
    }
    return Case(fixes: fixes, receipts: Bool.random(using: &random) ? receipts : nil)
  }

  /// The schedule's promises, checked against the plain rules.
  static func check(_ c: Case) -> String? {
    var settings = ServerSchedule.Settings()
    settings.uploads.maximumFixes = 4
    settings.tickMilliseconds = 45_000
    settings.lingerMilliseconds = 3_600_000
    let history = columns(c.fixes)
    let schedule = ServerSchedule(history, receivedAtMilliseconds: c.receipts, settings: settings)
    if schedule.rows.sorted() != Array(0..<c.fixes.count) { return "not every fix exactly once" }
    var last = Int64.min
    var lastOfPhone: [[UInt32]: (time: Int64, row: Int)] = [:]
    for (k, step) in schedule.steps.enumerated() {
      if step.timeMilliseconds < last { return "step \(k) goes back in time" }
      if k > 0, !step.isUpload, step.timeMilliseconds - last > settings.tickMilliseconds {
        return "tick \(k) more than a tick after the step before"
      }
      last = step.timeMilliseconds
      guard step.isUpload else { continue }
      let rows = Array(schedule.positions(of: step))
      let phones = Set(rows.map { [c.fixes[$0].user.rawValue, c.fixes[$0].device.rawValue] })
      guard phones.count == 1, let phone = phones.first else { return "upload \(k) mixes phones" }
      if rows.count > 4 { return "upload \(k) over the batch size" }
      if rows != rows.sorted() { return "upload \(k) not in the phone's order" }
      if let before = lastOfPhone[phone], before.row > rows[0] { return "phone \(phone) out of order" }
      lastOfPhone[phone] = (step.timeMilliseconds, rows.last ?? 0)
      if let receipts = c.receipts {
        if rows.contains(where: { receipts[$0] != receipts[rows[0]] }) { return "upload \(k) mixes receipts" }
      } else if let first = rows.first, let newest = rows.map({ c.fixes[$0].timeMilliseconds }).max(),
        step.timeMilliseconds < newest + 1_000
          || rows.contains(where: { c.fixes[$0].timeMilliseconds - c.fixes[first].timeMilliseconds > 300_000 }
          )
      {
        return "upload \(k) received before its newest fix + 1 s, or spans over 5 min"
      }
    }
    let lastReceipt = schedule.steps.last(where: \.isUpload)?.timeMilliseconds
    if schedule.clockMilliseconds != lastReceipt.map({ $0 + 3_600_000 }) { return "does not end an hour on" }
    return nil
  }

  @Test(
    "random histories of several phones: every fix once, one phone per upload in its order, the clock never back"
  )
  func property() {
    let failure = PropertyCheck.run(
      "server schedule", cases: PropertyCampaign.cases(default: 200), generator: SeededGenerator.init(seed:),
      generate: Self.generate, check: Self.check)
    #expect(failure == nil, "\(failure ?? "")")
  }
}
