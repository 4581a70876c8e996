/// Everything the geofence engine remembers between batches: a plain value
/// a server keeps in a row and a phone in storage (`Codable`; people are
/// encoded in ascending id order, so with `JSONEncoder`'s `.sortedKeys` the
/// bytes are stable). Decoding checks what the engine relies on (one entry
/// per person, records in ascending place order without repeats) and throws
/// `DecodingError.dataCorrupted` otherwise: a corrupted saved state is an
/// error, never a trap.
public struct GeofenceState: Sendable, Hashable, Codable {
  var people: [UserID: PersonGeofenceState] = [:]
  /// People with a pending departure or fast arrival and their earliest
  /// pending mark, ms (what a clock advance visits; derived from `people`,
  /// not coded).
  var waiting = DeadlineTable()
  /// Pending departures and arrivals dropped because their place was
  /// removed or left the person's circles (each one also reported as an
  /// event with reason `placeRemoved`).
  public internal(set) var droppedForRemovedPlaces = 0
  /// Lists `GeofenceEngine.process` reuses from batch to batch, so that an
  /// upload of a fix or two does not allocate them again. Not state: never
  /// saved, compared or hashed, and empty between calls (a restored state
  /// starts without them).
  var scratch = Scratch()

  public init() {}

  /// Handed to the engine's steps beside their context (not inside it: a
  /// step that fills one of these lists while it changes the context would
  /// otherwise move the list out of the context and back, per fix).
  struct Scratch: Sendable {
    /// A list whose storage has room for more than this many entries (a
    /// fix among about that many places) is dropped after its batch, not kept.
    static let largestKept = 4_096
    /// The places a fix is tested against.
    var candidates: [Int] = []
    /// Arrivals a fix confirmed, announced together.
    var crossings: [GeofenceEngine.Crossing] = []
    /// Departures that began waiting on a fix.
    var started: [Int] = []
    /// Decisions falling due at one deadline of a clock.
    var deadlineCrossings: [GeofenceEngine.Crossing] = []
    /// Departures due at one moment.
    var dueDepartures: [GeofenceEngine.Crossing] = []

    /// Empties every list at the end of a call, dropping one whose room
    /// grew past `largestKept`. O(entries).
    mutating func endCall() {
      func clear<T>(_ list: inout [T]) {
        if list.capacity > Self.largestKept { list = [] } else { list.empty() }
      }
      clear(&candidates)
      clear(&crossings)
      clear(&started)
      clear(&deadlineCrossings)
      clear(&dueDepartures)
    }
  }

  public static func == (a: GeofenceState, b: GeofenceState) -> Bool {
    a.people == b.people && a.waiting == b.waiting && a.droppedForRemovedPlaces == b.droppedForRemovedPlaces
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(people)
    hasher.combine(waiting)
    hasher.combine(droppedForRemovedPlaces)
  }

  /// Places `person` is inside (settled or settling), ascending ids.
  public func placesInside(_ person: UserID) -> [PlaceID] {
    people[person]?.records.filter(\.inside).map(\.place) ?? []
  }

  enum CodingKeys: String, CodingKey { case people, droppedForRemovedPlaces }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let list = try container.decode([PersonGeofenceState].self, forKey: .people)
    droppedForRemovedPlaces = try SavedCount.checked(
      container.decodeIfPresent(Int.self, forKey: .droppedForRemovedPlaces) ?? 0, .droppedForRemovedPlaces,
      in: container)
    for person in list {
      guard people.updateValue(person, forKey: person.person) == nil else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: [CodingKeys.people], debugDescription: "person \(person.person) appears twice"))
      }
      guard zip(person.records, person.records.dropFirst()).allSatisfy({ $0.place < $1.place }) else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: [CodingKeys.people],
            debugDescription: "person \(person.person): place records not in ascending order"))
      }
    }
    var marks: [UserID: Int64] = [:]
    for person in list { marks[person.person] = person.earliestPendingMilliseconds }
    waiting = DeadlineTable(marks)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(people.values.sorted { $0.person < $1.person }, forKey: .people)
    try container.encode(droppedForRemovedPlaces, forKey: .droppedForRemovedPlaces)
  }
}

/// One person's memory.
struct PersonGeofenceState: Sendable, Hashable, Codable {
  var person: UserID
  /// One record per place evaluated recently, ascending place id.
  var records = PlaceRecords()
  /// Path along sharp fixes so far (metres) and the last fix counted.
  var odometerMeters = 0.0
  var lastSharp: FixPoint?
  /// The previous fix used (accuracy ≤ 250 m), for the neighbour speed of the next.
  var lastFix: TrackPoint?
  /// The newest fix seen (any place), for the state's eviction.
  var newestMilliseconds = Int64.min
  /// The last confirmed departure, which the next arrival answers.
  var lastDeparture: DepartureMark?

  init(person: UserID) { self.person = person }

  /// The record for `place`, inserted in order if missing, with
  /// `watermark` as its last evaluation (ms; what the caller sets next).
  mutating func recordIndex(_ place: PlaceID, watermark: Int64) -> Int {
    var low = 0
    var high = records.count
    while low < high {
      let mid = (low + high) / 2
      if records[mid].place < place { low = mid + 1 } else { high = mid }
    }
    if low < records.count && records[low].place == place { return low }
    records.insertIdle(place, watermark: watermark, at: low)
    return low
  }

  var hasPending: Bool { records.waitingCount > 0 }

  /// The earliest start on the server's clock of a pending fast arrival or
  /// departure, ms (nil: nothing waits). Free of the rules, so a decoded
  /// state can index it; ``nextDeadline(_:on:)`` on the server's clock is
  /// at least this plus the shorter wait.
  var earliestPendingMilliseconds: Int64? {
    guard hasPending else { return nil }
    var earliest: Int64?
    for r in records.inUse {
      let record = records[r]
      if let a = record.pendingArrival?.serverStart { earliest = min(earliest ?? a, a) }
      if let d = record.pendingDeparture?.serverStart { earliest = min(earliest ?? d, d) }
    }
    return earliest
  }

  /// Whether a fast arrival is waiting anywhere (it holds back departures).
  var arrivalWaiting: Bool { records.arrivalsWaiting > 0 }

  /// The earliest moment on `clock` a waiting decision falls due: a fast
  /// arrival's minute, or (when no arrival waits) a departure's minute;
  /// nil when nothing waits, or when nothing waiting can end on `clock`
  /// (another device's: a fast arrival it did not start still holds the
  /// departures back).
  func nextDeadline(_ rules: GeofenceRules, on clock: SettlingClock) -> Int64? {
    guard hasPending else { return nil }
    var arrival: Int64?
    var departure: Int64?
    for r in records.inUse {
      let record = records[r]
      if let a = record.pendingArrival?.start(on: clock) {
        let due = a.saturatingAdd(rules.fastArrivalWaitMilliseconds)
        arrival = min(arrival ?? due, due)
      }
      if let d = record.pendingDeparture?.start(on: clock) {
        let due = d.saturatingAdd(rules.departureSettleMilliseconds)
        departure = min(departure ?? due, due)
      }
    }
    // A waiting fast arrival holds departures back (one that another
    // device's clock cannot end as well).
    return arrivalWaiting ? arrival : departure
  }
}

struct FixPoint: Sendable, Hashable, Codable {
  var latitudeDegrees: Double
  var longitudeDegrees: Double
  var milliseconds: Int64
  var coordinate: Coordinate {
    Coordinate(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
  }
}

/// The two clocks a waiting decision's minute is counted on (SPEC §3
/// settling; review 2 F2). The minute ends on whichever runs out first.
enum SettlingClock {
  /// One device's own fix times: a later fix of the device that started
  /// the wait, at least a minute after the one that started it (and not
  /// back inside), ends it. Another device of the person keeps its own
  /// clock, which may run minutes apart (SPEC §1 accepts fixes up to 5 min
  /// ahead): its fixes can bring the person back inside or take them
  /// further out, but their times end no wait the device did not start;
  /// the server's minute still does.
  case phone(DeviceID)
  /// The server's clock (batch receipts and the timer, `advance`): a minute
  /// after the server received the batch holding the fix that started the
  /// wait, with no word back inside, ends it.
  case server
}

/// A waiting decision: when it started on either clock.
protocol SettlingMark {
  /// The fix that started it, ms on the clock of the device that sent it.
  var milliseconds: Int64 { get }
  /// The receipt of that fix's batch, ms on the server's clock (nil: a
  /// state saved before receipts were kept; the fix's time stands in, as
  /// it did then).
  var receivedMilliseconds: Int64? { get }
  /// The device that sent that fix (nil: a state saved before devices
  /// were kept; any device's clock ends it, as it did then).
  var device: DeviceID? { get }
}

extension SettlingMark {
  /// When the wait started on `clock`, ms; nil on the clock of a device
  /// that did not start it (that clock cannot end it).
  func start(on clock: SettlingClock) -> Int64? {
    switch clock {
    case .phone(let other): device == nil || device == other ? milliseconds : nil
    case .server: serverStart
    }
  }

  /// When the wait started on the server's clock, ms.
  var serverStart: Int64 { receivedMilliseconds ?? milliseconds }
}

struct DepartureMark: Sendable, Hashable, Codable, SettlingMark {
  var place: PlaceID
  /// The device that sent the fix that started the departure (coded only
  /// when known). Declared here, beside the place and the flags, to sit in
  /// their padding: the mark, and the place record holding it, keep the
  /// size they had without it (larger, every record moved by `memcpy`:
  /// +3.3 % instructions on Geo/geofenceEngine).
  var device: DeviceID?
  /// Started by a late upload: whatever it decides goes to the feed only.
  var late = false
  /// A second fix clear of the place came while a fast arrival elsewhere
  /// held the departure back: it is confirmed once that arrival is decided.
  var clearSeen = false
  var milliseconds: Int64
  var odometerMeters: Double
  /// When the server received the fix that started the departure, ms
  /// (coded only when known; a state saved without it reads as before).
  var receivedMilliseconds: Int64?
}

/// One person's place records, ascending place id, with the positions of
/// those in use (inside, or a decision waiting) and counts of the waiting
/// decisions kept beside them, so that the per-fix and per-batch scans
/// visit the few records in use, not the hundreds of idle ones a person
/// walking among many places leaves behind (issue 33, Growth/geofences).
/// Coded as the plain array of records (the saved format is unchanged);
/// the rest is derived.
struct PlaceRecords: Sendable, Hashable, Codable, RandomAccessCollection, MutableCollection {
  private(set) var all: [PlaceRecord] = []
  /// Positions of the records not idle, ascending.
  private(set) var inUse: [Int] = []
  /// Records with a fast arrival waiting, with a departure waiting, and
  /// with any decision waiting.
  private(set) var arrivalsWaiting = 0
  private(set) var departuresWaiting = 0
  private(set) var waitingCount = 0
  /// At most the smallest ``evictionKey(_:)`` of an idle record (exact
  /// after ``refreshEvictionBound()``; `Int64.max`: no idle record), so the
  /// week-old eviction scans only when something may be that old.
  private(set) var idleEvictionBound = Int64.max

  /// An idle record may be forgotten once this is older than a week: its
  /// last evaluation or its last departure, whichever is later, ms.
  static func evictionKey(_ record: PlaceRecord) -> Int64 {
    Swift.max(record.watermarkMilliseconds, record.lastDepartureMilliseconds ?? .min)
  }

  init() {}

  init(_ records: [PlaceRecord]) {
    all = records
    for (r, record) in records.enumerated() {
      if !record.isIdle { inUse.append(r) }
      count(record, +1)
    }
    refreshEvictionBound()
  }

  /// Makes ``idleEvictionBound`` exact. O(records).
  mutating func refreshEvictionBound() {
    idleEvictionBound = all.lazy.filter(\.isIdle).map(Self.evictionKey).min() ?? .max
  }

  init(from decoder: any Decoder) throws {
    self.init(try [PlaceRecord](from: decoder))
  }

  func encode(to encoder: any Encoder) throws { try all.encode(to: encoder) }

  static func == (a: PlaceRecords, b: PlaceRecords) -> Bool { a.all == b.all }
  func hash(into hasher: inout Hasher) { hasher.combine(all) }

  var startIndex: Int { 0 }
  var endIndex: Int { all.count }

  subscript(position: Int) -> PlaceRecord {
    get { all[position] }
    set {
      let old = all[position]
      all[position] = newValue
      if newValue.isIdle { idleEvictionBound = Swift.min(idleEvictionBound, Self.evictionKey(newValue)) }
      guard
        old.isIdle != newValue.isIdle || old.pendingArrival != nil || newValue.pendingArrival != nil
          || old.pendingDeparture != nil || newValue.pendingDeparture != nil
      else { return }
      count(old, -1)
      count(newValue, +1)
      if old.isIdle != newValue.isIdle {
        let k = slot(of: position)
        if newValue.isIdle { inUse.remove(at: k) } else { inUse.insert(position, at: k) }
      }
    }
  }

  /// Inserts an idle record for `place` evaluated last at `watermark` (ms)
  /// at `position` (the caller keeps the ids ascending).
  mutating func insertIdle(_ place: PlaceID, watermark: Int64, at position: Int) {
    var record = PlaceRecord(place: place)
    record.watermarkMilliseconds = watermark
    all.insert(record, at: position)
    idleEvictionBound = Swift.min(idleEvictionBound, Self.evictionKey(record))
    for k in slot(of: position)..<inUse.count { inUse[k] += 1 }
  }

  /// Removes the records `shouldRemove` picks; O(records).
  mutating func removeAll(where shouldRemove: (PlaceRecord) throws -> Bool) rethrows {
    let before = all.count
    try all.removeAll(where: shouldRemove)
    if all.count != before { self = PlaceRecords(all) }
  }

  /// The first index in `inUse` at or after `position`.
  private func slot(of position: Int) -> Int {
    var low = 0
    var high = inUse.count
    while low < high {
      let mid = (low + high) / 2
      if inUse[mid] < position { low = mid + 1 } else { high = mid }
    }
    return low
  }

  private mutating func count(_ record: PlaceRecord, _ sign: Int) {
    if record.pendingArrival != nil { arrivalsWaiting += sign }
    if record.pendingDeparture != nil { departuresWaiting += sign }
    if record.pendingArrival != nil || record.pendingDeparture != nil { waitingCount += sign }
  }
}

/// What the engine knows about one person and one place.
struct PlaceRecord: Sendable, Hashable, Codable {
  var place: PlaceID
  /// Inside (settled, or arrived and settling).
  var inside = false
  /// Fixes not newer than this are skipped for this place (idempotent replay).
  var watermarkMilliseconds = Int64.min
  /// A departure waiting for confirmation: when they left and the odometer then.
  var pendingDeparture: DepartureMark?
  /// A fast arrival waiting to slow down or to stay a minute.
  var pendingArrival: PendingArrival?
  /// When they last left (confirmed), for the quick-return rule.
  var lastDepartureMilliseconds: Int64?
  /// Feed only until then (after a quick return).
  var quietUntilMilliseconds: Int64?

  var isIdle: Bool { !inside && pendingDeparture == nil && pendingArrival == nil }
}

struct PendingArrival: Sendable, Hashable, Codable, SettlingMark {
  var milliseconds: Int64
  /// The device that sent the fix that started the wait (coded only when
  /// known); before `late`, in the padding (see ``DepartureMark/device``).
  var device: DeviceID?
  /// Started by a late upload: whatever it decides goes to the feed only.
  var late = false
  /// When the server received the fix that started the wait, ms (coded
  /// only when known; a state saved without it reads as before).
  var receivedMilliseconds: Int64?
}
