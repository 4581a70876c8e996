/// The checks a saved ``IngestState`` passes before a pipeline computes with
/// it: every value an engine will do arithmetic on is one the engines can
/// produce, so a state edited by hand, truncated or corrupted is refused
/// with the path of the bad value instead of trapping at the next batch.
///
/// The rules follow the project's units-in-names convention, over every
/// value the state encodes (each rule names the keys it takes):
/// - a time (every `Int64` the state keeps but a grid cell's id and a
///   duration) lies within ``timeWindowMilliseconds``
///   (1900-01-01 to 2200-01-01, where every difference of two times is
///   exact and far from Int64's range); the "never" marks of the watermarks
///   (`watermark`, `watermarkMilliseconds`, `newestMilliseconds`) may also
///   be exactly Int64.min, as a fresh state writes them;
/// - a duration (a key naming one: `staleAfterMilliseconds`,
///   `durationMilliseconds`) lies in 0 … the window's span;
/// - no number the engines compute with is infinite, a latitude lies in
///   [-90°, 90°] and a longitude in [-180°, 180°] (NaN, the engines' "not
///   measured", is allowed);
/// - an accuracy (`horizontalAccuracyMeters`, a track point's `accuracy`)
///   is ≥ 0 or NaN (unknown): validation lets no other accuracy in;
/// - any other length in metres (`odometerMeters`, `distanceMeters`: a key
///   ending in `Meters`, altitude aside) is ≥ 0 and a number: a sum of
///   distances between valid positions;
/// - a speed (a key with `speed` or `MetersPerSecond` in it, and the agreed
///   speeds `fastest`, `cruising`, `lastAgreed`) is ≥ 0 or NaN (not
///   measured): the doors read a negative platform speed as unmeasured
///   (``SpeedReading``; a Swift caller hands ``Fix`` speeds in that form,
///   nil when unmeasured), and an agreed speed is the smaller of such
///   speeds or a ground speed;
/// - a count (every `Int` the state keeps: counters, capacities) lies in
///   0…2⁵³, so adding to it never overflows;
/// - a person's count of closed trip segments is below 2³² − 1 (the next
///   segment's id takes the number after it);
/// - every place a person's geofence records name is one of the pipeline's
///   places.
///
/// A fix's heading, altitude and battery level are carried through the
/// trips as they came (no engine computes with them): no rule applies to
/// them here. Validation rejects an out-of-range one at ingest since ABI
/// 1.5, but a state saved before may hold one (an infinite heading), and
/// it restores.
///
/// - Complexity: O(size of the state).
extension IngestState {
  /// The saved-state format this library writes (``IngestState`` encodes
  /// it as `formatVersion`): 3 since the speed alert's last alert keeps its
  /// receipt and phone (`SpeedAlertState.LastAlert`), so that a library
  /// that reads only version 2 refuses it by name.
  public static let formatVersion = 3
  /// The versions this library reads: 2 (a last alert saved as its time
  /// alone reads that time as its receipt too) and 3. Another version, or
  /// none (saved before versions were written), is refused by name.
  public static let readableFormatVersions: ClosedRange<Int> = 2...3

  /// Times a saved state may hold, ms since the epoch: 1900-01-01 ..< 2200-01-01.
  public static let timeWindowMilliseconds: Range<Int64> = -2_208_988_800_000..<7_258_118_400_000

  /// What is wrong with this state for `pipeline`, one line per bad value
  /// ("path: why"); empty when the pipeline may compute with it.
  public func problems(under pipeline: IngestPipeline) -> [String] {
    let audit = Audit()
    do { try encode(to: audit.encoder) } catch { return ["the state cannot be encoded: \(error)"] }
    var out = audit.found.problems
    let lookup = pipeline.geofences.lookup
    for (person, records) in geofences.people.sorted(by: { $0.key < $1.key }) {
      for record in records.records where lookup.position(record.place) == nil {
        out.append(
          "geofences.people[\(person.rawValue)]: place \(record.place.rawValue) is not one of the pipeline's places"
        )
      }
    }
    return out
  }
}

extension TripNaming.Memory {
  /// What is wrong with this memory's saved values, one line per bad value
  /// ("path: why", paths from the memory's own keys); empty when naming may
  /// use it. The events it keeps pass the rules of
  /// ``IngestState/problems(under:)`` (times in the window, journey
  /// distances ≥ 0 m, durations ≥ 0 ms, counts in 0…2⁵³).
  /// - Complexity: O(size of the memory).
  public func problems() -> [String] {
    let audit = Audit()
    do { try encode(to: audit.encoder) } catch { return ["the memory cannot be encoded: \(error)"] }
    return audit.found.problems
  }
}

/// Walks an encoding, checking each leaf by its key (see ``IngestState/problems(under:)``).
private struct Audit {
  final class Found {
    var problems: [String] = []
    /// Enough to name the state's trouble; the rest is not listed.
    static let limit = 20
    func add(_ path: [any CodingKey], _ why: String) {
      guard problems.count < Self.limit else { return }
      let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      problems.append("\(text.hasPrefix(".") ? String(text.dropFirst()) : text): \(why)")
    }
  }
  let found = Found()
  var encoder: Walker { Walker(found: found, codingPath: []) }

  static let sentinelKeys: Set<String> = ["watermark", "watermarkMilliseconds", "newestMilliseconds"]
  /// The `Int64`s a state keeps that are not times (grid cell ids).
  static let nonTimeKeys: Set<String> = ["cell"]
  /// Values of a fix carried through as they came (no engine computes with
  /// them; validation limits them at ingest since ABI 1.5, but a state saved
  /// before may hold any): no rule.
  static let carriedKeys: Set<String> = ["headingDegrees", "altitudeMeters", "batteryLevel"]
  /// Agreed speeds (m/s) whose keys do not say so.
  static let speedKeys: Set<String> = ["fastest", "cruising", "lastAgreed"]
  /// The longest duration a state may keep: the time window's span, ms.
  static let longestDuration =
    IngestState.timeWindowMilliseconds.upperBound
    - IngestState.timeWindowMilliseconds.lowerBound

  /// What a `Double` key measures, by its name (the units-in-names convention).
  enum Quantity: Equatable {
    case latitude, longitude, accuracy, length, speed, other
  }

  static func quantity(_ key: String) -> Quantity {
    let lower = key.lowercased()
    if lower.contains("latitude") { return .latitude }
    if lower.contains("longitude") { return .longitude }
    if lower.contains("accuracy") { return .accuracy }
    if speedKeys.contains(key) || lower.contains("speed") || lower.contains("meterspersecond") {
      return .speed
    }
    if lower.hasSuffix("meters") { return .length }
    return .other
  }

  /// A duration, by its key: a wait after something, or a length of time.
  static func isDuration(_ key: String) -> Bool {
    let lower = key.lowercased()
    return lower.contains("after") || lower.contains("duration")
  }

  /// The nearest named key of `path` (array indices skipped).
  static func name(_ path: [any CodingKey]) -> String {
    path.last { $0.intValue == nil }?.stringValue ?? ""
  }

  /// Counts (every `Int` a state keeps): 0 to 2⁵³, so adding to one never overflows.
  static func check(count value: Int, _ path: [any CodingKey], _ found: Found) {
    if !SavedCount.range.contains(value) { found.add(path, "count \(value) is outside 0…2⁵³") }
  }

  static func check(_ value: Int64, _ path: [any CodingKey], _ found: Found) {
    let key = name(path)
    guard !nonTimeKeys.contains(key) else { return }
    if isDuration(key) {
      if value < 0 || value > longestDuration {
        found.add(path, "duration \(value) ms is outside 0…\(longestDuration) (300 years)")
      }
      return
    }
    if value == .min && sentinelKeys.contains(key) { return }
    if !IngestState.timeWindowMilliseconds.contains(value) {
      found.add(path, "time \(value) ms is outside 1900–2200")
    }
  }

  static func check(_ value: Double, _ path: [any CodingKey], _ found: Found) {
    let key = name(path)
    guard !carriedKeys.contains(key) else { return }
    if value.isInfinite {
      found.add(path, "\(value) is not a finite number")
      return
    }
    switch quantity(key) {
    case .latitude: if abs(value) > 90 { found.add(path, "latitude \(value)° is outside ±90°") }
    case .longitude: if abs(value) > 180 { found.add(path, "longitude \(value)° is outside ±180°") }
    case .accuracy:
      if value < 0 {
        found.add(path, "accuracy \(value) m is negative (an accuracy is ≥ 0 m, or NaN: unknown)")
      }
    case .length:
      if !(value >= 0) { found.add(path, "length \(value) m is not a number ≥ 0 (a distance travelled)") }
    case .speed:
      if value < 0 {
        found.add(path, "speed \(value) m/s is negative (a speed is ≥ 0 m/s, or NaN: not measured)")
      }
    case .other: break
    }
  }

  struct Walker: Encoder {
    let found: Found
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      KeyedEncodingContainer(Keyed<Key>(found: found, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(found: found, codingPath: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer {
      Single(found: found, codingPath: codingPath)
    }
  }

  struct Index: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
  }

  /// One leaf or nested value at `path`.
  static func visit<T: Encodable>(_ value: T, _ path: [any CodingKey], _ found: Found) throws {
    switch value {
    case let v as Double: check(v, path, found)
    case let v as Float: check(Double(v), path, found)
    case let v as Int64: check(v, path, found)
    case let v as Int: check(count: v, path, found)
    case let v as UInt32 where name(path) == "segmentsClosed":
      if let problem = SavedCount.closedSegmentsProblem(v) { found.add(path, problem) }
    // The other leaves (ids, codes, flags, text) need no check, and a
    // primitive encodes itself as itself: never walked into.
    case is Bool, is String, is Int8, is Int16, is Int32, is UInt, is UInt8, is UInt16, is UInt32, is UInt64:
      break
    default: try value.encode(to: Walker(found: found, codingPath: path))
    }
  }

  struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let found: Found
    var codingPath: [any CodingKey]
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      try Audit.visit(value, codingPath + [key], found)
    }
    mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: Key)
      -> KeyedEncodingContainer<N>
    {
      KeyedEncodingContainer(Keyed<N>(found: found, codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      Unkeyed(found: found, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder { Walker(found: found, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
      Walker(found: found, codingPath: codingPath + [key])
    }
  }

  struct Unkeyed: UnkeyedEncodingContainer {
    let found: Found
    var codingPath: [any CodingKey]
    var count = 0
    init(found: Found, codingPath: [any CodingKey]) {
      self.found = found
      self.codingPath = codingPath
    }
    private mutating func next() -> [any CodingKey] {
      defer { count += 1 }
      return codingPath + [Index(count)]
    }
    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { try Audit.visit(value, next(), found) }
    mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type) -> KeyedEncodingContainer<N> {
      KeyedEncodingContainer(Keyed<N>(found: found, codingPath: next()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      Unkeyed(found: found, codingPath: next())
    }
    mutating func superEncoder() -> any Encoder { Walker(found: found, codingPath: next()) }
  }

  struct Single: SingleValueEncodingContainer {
    let found: Found
    var codingPath: [any CodingKey]
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws { try Audit.visit(value, codingPath, found) }
  }
}
