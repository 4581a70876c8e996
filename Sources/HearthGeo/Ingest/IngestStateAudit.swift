/// The checks a saved ``IngestState`` passes before a pipeline computes with
/// it: every value an engine will do arithmetic on is one the engines can
/// produce, so a state edited by hand, truncated or corrupted is refused
/// with the path of the bad value instead of trapping at the next batch.
///
/// The rules follow the project's units-in-names convention, over every
/// value the state encodes:
/// - a time (every `Int64` the state keeps but a grid cell's id) lies
///   within ``timeWindowMilliseconds``
///   (1900-01-01 to 2200-01-01, where every difference of two times is
///   exact and far from Int64's range); the "never" marks of the watermarks
///   (`watermark`, `watermarkMilliseconds`, `newestMilliseconds`) may also
///   be exactly Int64.min, as a fresh state writes them;
/// - no number is infinite, a latitude lies in [-90°, 90°] and a longitude in
///   [-180°, 180°] (NaN, the engines' "not measured", is allowed);
/// - a count (every `Int` the state keeps: counters, capacities) lies in
///   0…2⁵³, so adding to it never overflows;
/// - every place a person's geofence records name is one of the pipeline's
///   places.
///
/// - Complexity: O(size of the state).
extension IngestState {
  /// The saved-state format this library writes and reads (``IngestState``
  /// encodes it as `formatVersion`). A state of another version, or with
  /// none (saved before versions were written), is refused by name.
  public static let formatVersion = 2

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

  /// The nearest named key of `path` (array indices skipped).
  static func name(_ path: [any CodingKey]) -> String {
    path.last { $0.intValue == nil }?.stringValue ?? ""
  }

  /// Counts (every `Int` a state keeps): 0 to 2⁵³, so adding to one never overflows.
  static func check(count value: Int, _ path: [any CodingKey], _ found: Found) {
    if value < 0 || value > 1 << 53 { found.add(path, "count \(value) is outside 0…2⁵³") }
  }

  static func check(_ value: Int64, _ path: [any CodingKey], _ found: Found) {
    let key = name(path)
    guard !nonTimeKeys.contains(key) else { return }
    if value == .min && sentinelKeys.contains(key) { return }
    if !IngestState.timeWindowMilliseconds.contains(value) {
      found.add(path, "time \(value) ms is outside 1900–2200")
    }
  }

  static func check(_ value: Double, _ path: [any CodingKey], _ found: Found) {
    let key = name(path).lowercased()
    if value.isInfinite { found.add(path, "\(value) is not a finite number") }
    if key.contains("latitude"), abs(value) > 90 { found.add(path, "latitude \(value)° is outside ±90°") }
    if key.contains("longitude"), abs(value) > 180 { found.add(path, "longitude \(value)° is outside ±180°") }
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
