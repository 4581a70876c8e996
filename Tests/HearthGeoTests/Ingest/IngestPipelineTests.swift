import Foundation
import Testing

import struct HearthSim.SeededGenerator

@testable import HearthGeo

/// The ingest path wires the engines in the server's order; these tests pin
/// the wiring (what reaches the engines), not the engines' own rules.
@Suite struct IngestPipelineTests {
  static let home = FenceWorld.home
  static let t0 = FenceWorld.t0
  let pipeline = IngestPipeline(
    places: [Geofence(id: 1, circle: 7, center: IngestPipelineTests.home, radiusMeters: 100)],
    circlesOfPerson: [UserID(1): [7]], speedLimits: [7: SpeedLimit(kilometersPerHour: 50)])

  /// A drive away from home at `speed` m/s, one fix every 10 s, then parked far away.
  static func drive(speed: Double, seconds: Int = 600, device: UInt32 = 1) -> [Fix] {
    stride(from: 0, through: seconds, by: 10).map { s in
      var f = FenceWorld.fix(
        s < 60 ? 0 : min(Double(s - 60) * speed, 4_000), Double(s),
        speed: s < 60 || Double(s - 60) * speed >= 4_000 ? 0 : speed)
      f.device = DeviceID(device)
      return f
    }
  }

  /// Uploads of `size` fixes, each received a second after its newest fix.
  static func uploads(_ fixes: [Fix], size: Int) -> [ServerUploads.Upload] {
    ServerUploads.cut(
      FixColumns(fixes), policy: ServerUploads.Policy(maximumFixes: size, maximumSpanMilliseconds: .max))
  }

  func feed(_ fixes: [Fix], size: Int, state: inout IngestState) -> [IngestOutput] {
    Self.uploads(fixes, size: size).map {
      pipeline.ingest($0.fixes, receivedAtMilliseconds: $0.receivedAtMilliseconds, state: &state)
    }
  }

  @Test func aDriveAwayFromHomeGivesADepartureAnAlertAndATrip() {
    var state = IngestState()
    var outputs = feed(Self.drive(speed: 20), size: 200, state: &state)
    outputs.append(pipeline.advance(to: Self.t0 + 3 * 3_600_000, state: &state))
    let departures = outputs.flatMap(\.geofenceEvents).filter {
      $0.kind == .departure && $0.outcome == .announced
    }
    #expect(departures.count == 1)
    #expect(outputs.flatMap(\.speedAlerts).contains { $0.outcome == .announced })
    #expect(outputs.flatMap(\.trips.segments).filter(\.isTrip).count == 1)
    #expect(outputs.map(\.inserted).reduce(0, +) == Self.drive(speed: 20).count)
    #expect(!outputs.flatMap(\.sharedFrames).isEmpty)
  }

  @Test("the geofences, the sudden-stop check and the trips share one index of the places (issue 29.6)")
  func theEnginesShareOneIndex() {
    #expect(pipeline.geofences.index === pipeline.suddenStops.index)
    #expect(pipeline.trips.places === pipeline.geofences.index)
    #expect(pipeline.geofences.index.exclusion == SuddenStopRules().exclusionDisc)
    let none = IngestPipeline(places: [], circlesOfPerson: [:])
    #expect(none.trips.places == nil)
  }

  @Test("a repeated place id keeps its first place in every engine of the pipeline")
  func aRepeatedPlaceIdKeepsItsFirstPlaceEverywhere() {
    let far = GreatCircle.destination(from: Self.home, initialBearingDegrees: 0, distanceMeters: 5_000)
    let repeated = IngestPipeline(
      places: [
        Geofence(id: 1, circle: 7, center: Self.home, radiusMeters: 100),
        Geofence(id: 1, circle: 7, center: far, radiusMeters: 100),
      ], circlesOfPerson: [UserID(1): [7]])
    for engine in [repeated.geofences.index, repeated.suddenStops.index, repeated.trips.places] {
      #expect(engine?.places.map(\.center) == [Self.home])
    }
  }

  @Test func slowerThanTheLimitGivesNoAlert() {
    var state = IngestState()
    let outputs = feed(Self.drive(speed: 12), size: 200, state: &state)
    #expect(outputs.flatMap(\.speedAlerts).allSatisfy { $0.outcome != .announced })
  }

  @Test func aSchemaErrorRefusesTheWholeBatchAndChangesNothing() {
    var state = IngestState()
    var fixes = Self.drive(speed: 20)
    fixes[3].latitudeDegrees = 91
    let outputs = feed(fixes, size: fixes.count, state: &state)
    #expect(outputs[0].schemaError?.index == 3)
    #expect(outputs[0].inserted == 0 && state.dedupe.count == 0 && state.people.isEmpty)
  }

  @Test func implausibleFixesAreRejectedOneByOneAndTheRestGoesOn() {
    var state = IngestState()
    var fixes = Self.drive(speed: 20)
    fixes[5].horizontalAccuracyMeters = .nan
    let outputs = feed(fixes, size: fixes.count, state: &state)
    #expect(outputs[0].rejections.map(\.index) == [5])
    #expect(outputs[0].inserted == fixes.count - 1)
  }

  @Test(
    "dedupe keeps about 8 days of a device's keys; a fix older than what it forgot is rejected as too old, counted, the rest goes on"
  )
  func dedupeForgetsWhatValidationWouldRefuse() {
    var state = IngestState()
    let minute: Int64 = 60_000
    let week = pipeline.validation.maximumAgeMilliseconds
    // Thirty days of a phone at home, one fix a minute, uploaded every 10 min.
    var uploaded: [Fix] = []
    for upload in 0..<(30 * 144) {
      let fixes = (0..<10).map { k -> Fix in
        var f = FenceWorld.fix(0, Double(upload * 600 + k * 60))
        f.activity = .still
        return f
      }
      uploaded += fixes
      let out = pipeline.ingest(
        FixColumns(fixes), receivedAtMilliseconds: fixes[9].timeMilliseconds + 1_000, state: &state)
      #expect(out.inserted == 10 && out.rejections.isEmpty)
    }
    let newest = uploaded[uploaded.count - 1].timeMilliseconds
    let now = newest + 1_000
    #expect(
      state.dedupe.count <= Int((week + pipeline.validation.maximumFutureMilliseconds + 86_400_000) / minute)
        + 1)
    #expect(state.dedupe.count >= Int(week / minute))
    // On the same clock, a re-sent week-old fix is a duplicate or too old
    // exactly as validation says, whatever was forgotten.
    let weekOld = uploaded.filter { $0.timeMilliseconds >= now - week }.prefix(1)
    let tooOld = uploaded.filter { $0.timeMilliseconds < now - week }.suffix(1)
    let resent = pipeline.ingest(
      FixColumns(Array(tooOld + weekOld)), receivedAtMilliseconds: now, state: &state)
    #expect(resent.rejections == [Rejection(index: 0, reason: .tooOld)] && resent.duplicates == 1)
    // The server's clock steps back two days: validation alone would take a
    // fix 8 days old, but dedupe forgot its key, so it is rejected as too
    // old (never taken for new); a forgotten-free old fix is a duplicate.
    let stepped = now - 2 * 86_400_000
    let forgotten = uploaded.first { $0.timeMilliseconds >= stepped - week }
    let remembered = uploaded.first {
      $0.timeMilliseconds >= newest - week - pipeline.validation.maximumFutureMilliseconds
    }
    guard let forgotten, let remembered, forgotten.timeMilliseconds < remembered.timeMilliseconds else {
      Issue.record("the history does not reach back far enough")
      return
    }
    var fresh = FenceWorld.fix(0, Double((newest - FenceWorld.t0) / 1000 + 60))
    fresh.activity = .still
    let back = pipeline.ingest(
      FixColumns([fresh, forgotten, remembered]), receivedAtMilliseconds: stepped, state: &state)
    #expect(
      back.rejections == [Rejection(index: 0, reason: .inFuture), Rejection(index: 1, reason: .tooOld)])
    #expect(back.duplicates == 1 && back.inserted == 0)
    #expect(back.inserted + back.duplicates + back.rejections.count == 3)
  }

  @Test func aRetriedUploadIsIdempotent() {
    var state = IngestState()
    let fixes = Self.drive(speed: 20)
    _ = feed(fixes, size: 25, state: &state)
    let again = feed(fixes, size: 25, state: &state)
    #expect(again.map(\.duplicates).reduce(0, +) == fixes.count)
    #expect(again.allSatisfy { $0.inserted == 0 && $0.producedCount == 0 })
  }

  @Test func aStillSecondDeviceIsOverruledWhileTheHolderIsFreshButNotOnceItIsStale() {
    var state = IngestState()
    _ = feed(Self.drive(speed: 20), size: 200, state: &state)
    // The phone's last fix is at t0 + 600 s, 4 km away; a home tablet says
    // `still` at home 14 min later (fresh), then 16 min later (stale).
    func tablet(_ seconds: Double) -> Fix {
      var f = FenceWorld.fix(0, seconds)
      f.device = DeviceID(2)
      f.activity = .still
      return f
    }
    let fresh = pipeline.ingest(
      FixColumns([tablet(600 + 14 * 60)]), receivedAtMilliseconds: Self.t0 + 1_500_000, state: &state)
    #expect(fresh.overruled == 1 && fresh.presenceAdvanced == 0 && fresh.geofenceEvents.isEmpty)
    let stale = pipeline.ingest(
      FixColumns([tablet(600 + 16 * 60)]), receivedAtMilliseconds: Self.t0 + 1_600_000, state: &state)
    #expect(stale.overruled == 0 && stale.presenceAdvanced == 1)
    #expect(stale.geofenceEvents.contains { $0.kind == .arrival })
  }

  @Test func theSameInputGivesTheSameOutput() {
    var a = IngestState()
    var b = IngestState()
    let fixes = Self.drive(speed: 20) + Self.drive(speed: 20, device: 3)
    let x = feed(fixes, size: 40, state: &a)
    let y = feed(fixes, size: 40, state: &b)
    #expect(x.map(\.geofenceEvents) == y.map(\.geofenceEvents))
    #expect(x.map(\.speedAlerts) == y.map(\.speedAlerts))
    #expect(x.map(\.trips) == y.map(\.trips))
  }

  @Test func aServerBatchInterleavingPhonesGivesEachPersonWhatTheyGetAlone() {
    // Two circles: the speed-alert cooldown is per circle (SPEC §4), so a
    // shared circle would rightly let only one of them alert.
    let both = IngestPipeline(
      places: [
        Geofence(id: 1, circle: 7, center: Self.home, radiusMeters: 100),
        Geofence(id: 2, circle: 8, center: Self.home, radiusMeters: 100),
      ],
      circlesOfPerson: [UserID(1): [7], UserID(2): [8]],
      speedLimits: [7: SpeedLimit(kilometersPerHour: 50), 8: SpeedLimit(kilometersPerHour: 50)])
    func person(_ user: UInt32, _ fixes: [Fix]) -> [Fix] {
      fixes.map {
        var f = $0
        f.user = UserID(user)
        f.device = DeviceID(user)
        return f
      }
    }
    let one = person(1, Self.drive(speed: 20))
    let two = person(2, Self.drive(speed: 25))
    // Alternate the two phones' fixes, in uploads of 20 (as a server receives them).
    var mixed: [Fix] = []
    for (a, b) in zip(one, two) { mixed += [b, a] }
    func run(_ fixes: [Fix]) -> IngestOutput {
      var state = IngestState()
      var all = IngestOutput()
      for upload in Self.uploads(fixes, size: 20) {
        let o = both.ingest(
          upload.fixes, receivedAtMilliseconds: upload.receivedAtMilliseconds, state: &state)
        all.geofenceEvents += o.geofenceEvents
        all.speedAlerts += o.speedAlerts
        all.suddenStops += o.suddenStops
        all.trips += o.trips
      }
      let end = both.advance(to: Self.t0 + 3 * 3_600_000, state: &state)
      all.geofenceEvents += end.geofenceEvents
      all.trips += end.trips
      return all
    }
    let together = run(mixed)
    for (user, alone) in [(UInt32(1), run(one)), (2, run(two))] {
      #expect(together.speedAlerts.filter { $0.person.rawValue == user } == alone.speedAlerts)
      #expect(together.suddenStops.filter { $0.person.rawValue == user } == alone.suddenStops)
      #expect(
        together.trips.segments.filter { $0.person.rawValue == user }.map(\.summary)
          == alone.trips.segments.map(\.summary))
      #expect(
        together.geofenceEvents.filter { $0.person.rawValue == user }.map {
          "\($0.kind) \($0.outcome) \($0.eventMilliseconds)"
        }
          == alone.geofenceEvents.map { "\($0.kind) \($0.outcome) \($0.eventMilliseconds)" })
    }
    #expect(together.speedAlerts.contains { $0.person.rawValue == 2 && $0.outcome == .announced })
  }

  @Test func stateSavedAndRestoredMidStreamGivesTheSameOutput() throws {
    let fixes =
      Self.drive(speed: 20)
      + Self.drive(speed: 25, device: 3).map {
        var f = $0
        f.timeMilliseconds += 3_600_000
        return f
      }
    var straight = IngestState()
    let whole = feed(fixes, size: 30, state: &straight)
    var first = IngestState()
    let before = feed(Array(fixes[..<60]), size: 30, state: &first)
    var restored = try JSONDecoder().decode(IngestState.self, from: JSONEncoder().encode(first))
    // The lists the pipeline reuses between batches are not state: `first`
    // holds them, the restored state does not, and the two are equal.
    #expect(restored == first && restored.hashValue == first.hashValue)
    #expect(!first.scratch.keys.isEmpty && restored.scratch.keys.isEmpty)
    // A huge batch's lists are not kept after it.
    var huge = IngestState()
    let many = (0..<(IngestState.Scratch.largestKept + 1)).map { k in
      var f = FenceWorld.fix(0, Double(k))
      f.user = UserID(UInt32(k % 2 + 1))
      return f
    }
    _ = pipeline.ingest(FixColumns(many), receivedAtMilliseconds: many.last!.timeMilliseconds, state: &huge)
    #expect(huge.scratch.keys.capacity == 0 && huge.scratch.fixes.isEmpty)
    let after = feed(Array(fixes[60...]), size: 30, state: &restored)
    #expect((before + after).map(\.geofenceEvents) == whole.map(\.geofenceEvents))
    #expect((before + after).map(\.speedAlerts) == whole.map(\.speedAlerts))
    #expect((before + after).map(\.trips) == whole.map(\.trips))
    #expect(restored == straight)
  }

  @Test("a saved state writes its tables by bare ids in ascending order: equal states, the same bytes")
  func savedTablesAreKeyedByIntegers() throws {
    // People in no order, each with two phones, every engine holding them.
    let people: [UInt32] = [7, 3, 12, 1, 30, 5, 21, 2]
    var fixes: [Fix] = []
    for (k, person) in people.enumerated() {
      for device in [person, person + 100] {
        fixes += Self.drive(speed: 20 + Double(k), device: device).map {
          var f = $0
          f.user = UserID(person)
          return f
        }
      }
    }
    fixes.sort { ($0.timeMilliseconds, $0.user, $0.device) < ($1.timeMilliseconds, $1.user, $1.device) }
    var state = IngestState()
    _ = feed(fixes, size: 40, state: &state)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(state)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    // A table keyed by ids is a list of key, value, key, value…: its keys
    // as numbers, in the order written (nil: not such a list).
    func keys(_ part: String?, _ name: String) -> [UInt64]? {
      let owner = part.map { object[$0] as? [String: Any] } ?? object
      guard let list = owner?[name] as? [Any] else { return nil }
      let numbers = stride(from: 0, to: list.count, by: 2).compactMap { (list[$0] as? NSNumber)?.uint64Value }
      return numbers.count * 2 == list.count ? numbers : nil
    }
    let ids = people.sorted().map(UInt64.init)
    let phones = people.flatMap { [UInt64($0) << 32 | UInt64($0), UInt64($0) << 32 | UInt64($0 + 100)] }
      .sorted()
    #expect(keys("dedupe", "devices") == phones)
    #expect(keys(nil, "people") == ids)
    #expect(keys("trips", "people") == ids)
    #expect(keys("suddenStops", "people") == ids)
    #expect(keys("speedAlerts", "previous") == ids)
    for (part, name) in [("speedAlerts", "runs"), ("speedAlerts", "lastAlert"), ("trips", "waiting")] {
      let written = try #require(keys(part, name), "\(part).\(name)")
      #expect(written == written.sorted(), "\(part).\(name)")
    }
    // Each restore is a new table with its own hash seed; every one is
    // written as the same bytes.
    for _ in 0..<5 {
      let restored = try JSONDecoder().decode(IngestState.self, from: data)
      #expect(restored == state)
      #expect(try encoder.encode(restored) == data)
    }
  }

  @Test(
    "one way of cutting a history into uploads: receipt times group as logged, or as a batcher gathers them")
  func cuttingAHistoryIntoUploads() {
    let fixes = FixColumns((0..<7).map { FenceWorld.fix(0, Double($0) * 100) })
    // Without receipt times: at most 3 fixes spanning at most 250 s, received 1 s after the newest.
    let plain = ServerUploads.cut(
      fixes, policy: ServerUploads.Policy(maximumFixes: 3, maximumSpanMilliseconds: 250_000))
    #expect(plain.map(\.fixes.count) == [3, 3, 1])
    #expect(plain.map { $0.receivedAtMilliseconds - Self.t0 } == [201_000, 501_000, 601_000])
    let span = ServerUploads.cut(
      fixes, policy: ServerUploads.Policy(maximumFixes: 10, maximumSpanMilliseconds: 199_999))
    #expect(span.map(\.fixes.count) == [2, 2, 2, 1])
    // With receipt times (a late upload first, then one from the future, then a retry):
    // each receipt time is an upload, and the clock never goes back.
    let receipts: [Int64] = [5, 5, 9, 9, 9, 7, 20].map { Self.t0 + $0 * 100_000 }
    let logged = ServerUploads.cut(fixes, receivedAtMilliseconds: receipts)
    #expect(logged.map(\.fixes.count) == [2, 3, 1, 1])
    #expect(logged.map { ($0.receivedAtMilliseconds - Self.t0) / 100_000 } == [5, 9, 9, 20])
    // Fixes logged with one receipt stay one upload past `maximumFixes`: an
    // upload is refused or taken whole (it was cut, so a schema error in its
    // last part refused only that part).
    let whole = ServerUploads.cut(
      fixes, receivedAtMilliseconds: receipts, policy: ServerUploads.Policy(maximumFixes: 2))
    #expect(whole.map(\.fixes.count) == [2, 3, 1, 1])
    // A batcher gathers across receipt times until full, received at the newest.
    let gathered = ServerUploads.cut(
      fixes, receivedAtMilliseconds: receipts,
      policy: ServerUploads.Policy(maximumFixes: 4, gatherAcrossReceipts: true))
    #expect(gathered.map(\.fixes.count) == [4, 3])
    #expect(gathered.map { ($0.receivedAtMilliseconds - Self.t0) / 100_000 } == [9, 20])
    #expect(ServerUploads.cut(FixColumns()).isEmpty)
  }
}

/// The pipeline groups a batch by person and offers each person's fixes to
/// presence in time order (one table lookup per person); presence, the
/// viewers' frames and the counts must be what they are fix by fix in that
/// order, whatever the order of the upload.
@Suite struct IngestPresenceOrderTests {
  @Test(
    "presence counts and shared frames equal a fix-by-fix model in time order per person, on shuffled mixed batches"
  )
  func presenceInTimeOrderPerPerson() {
    var random = SeededGenerator(seed: 5)
    let pipeline = IngestPipeline(places: [], circlesOfPerson: [:])
    var seen = (frames: 0, overruled: 0, notNewer: 0)
    for _ in 0..<40 {
      var state = IngestState()
      var model: [UserID: IngestState.Person] = [:]
      var now = FenceWorld.t0
      for _ in 0..<8 {
        var fixes: [Fix] = []
        for _ in 0..<Int.random(in: 1...60, using: &random) {
          // Few people and devices, times close together (ties), positions
          // across several 750 m cells, `still` fixes from a second device.
          var fix = FenceWorld.fix(
            Double.random(in: 0...4_000, using: &random),
            Double(now - FenceWorld.t0) / 1000 - Double.random(in: 0...900, using: &random).rounded(),
            bearing: Double.random(in: 0..<360, using: &random))
          fix.user = UserID(UInt32.random(in: 1...4, using: &random))
          fix.device = DeviceID(UInt32.random(in: 1...2, using: &random))
          fix.activity = Bool.random(using: &random) ? .still : .walking
          fixes.append(fix)
        }
        fixes.shuffle(using: &random)
        let batch = FixColumns(fixes)
        var modelDedupe = state.dedupe
        let inserted = modelDedupe.insert(batch).insertedIndices
        var frames: [ApproximateFix] = []
        var advanced = 0
        var overruled = 0
        var notNewer = 0
        let offered = inserted.map { batch[$0] }.sorted {
          (
            $0.user, $0.timeMilliseconds, Presence.sameTimeRank(activity: $0.activity, device: $0.device)
          ) < ($1.user, $1.timeMilliseconds, Presence.sameTimeRank(activity: $1.activity, device: $1.device))
        }
        for fix in offered {
          let (decision, frame) = model[fix.user, default: IngestState.Person()].advance(
            with: fix, receivedAtMilliseconds: now, pipeline.projection)
          switch decision {
          case .advanced:
            advanced += 1
            if let frame { frames.append(frame) }
          case .kept(.stillWhileHolderFresh): overruled += 1
          case .kept(.notNewer): notNewer += 1
          }
        }
        let output = pipeline.ingest(batch, receivedAtMilliseconds: now, state: &state)
        #expect(output.sharedFrames == frames)
        #expect(
          output.presenceAdvanced == advanced && output.overruled == overruled && output.notNewer == notNewer)
        #expect(output.inserted == advanced + overruled + notNewer)
        seen.notNewer += notNewer
        #expect(state.people == model)
        seen.frames += frames.count
        seen.overruled += overruled
        now += Int64.random(in: 1_000...400_000, using: &random)
      }
    }
    // The cases reach every branch of presence.
    #expect(seen.frames > 100 && seen.overruled > 10 && seen.notNewer > 10, "\(seen)")
  }
}
