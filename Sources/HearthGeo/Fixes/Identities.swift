/// The identities the server path keys its state by. Each is an integer
/// interned by whoever owns the string or UUID; a type of its own so a
/// circle can never be passed where a place or a person is meant. Integer
/// literals convert (`let home: PlaceID = 1`), and `Codable` writes the bare
/// number, so saved states and JSON output read as before.
public protocol HearthIdentity: RawRepresentable, Sendable, Hashable, Codable, Comparable,
  ExpressibleByIntegerLiteral, CustomStringConvertible
where RawValue == UInt32 {
  init(rawValue: UInt32)
}

extension HearthIdentity {
  public init(_ rawValue: UInt32) { self.init(rawValue: rawValue) }
  public init(integerLiteral value: UInt32) { self.init(rawValue: value) }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { String(rawValue) }

  public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

  /// The hash a `Dictionary` or `Set` buckets an identity by: the integer
  /// and the table's seed through splitmix64's finaliser (two multiplies,
  /// three shifts) instead of SipHash, which cost about 100 instructions
  /// per lookup and a lookup by identity happens several times per fix on
  /// the server path. Every output bit depends on every input bit, so
  /// dense, strided and sparse ids spread alike. Identities are integers
  /// the server interns, not keys an outsider picks, so SipHash's
  /// resistance to chosen collisions buys nothing here. Equal identities
  /// hash equal; no output may depend on the values (tables are seeded
  /// per process). O(1).
  public func _rawHashValue(seed: Int) -> Int { identityHash(UInt64(rawValue), seed: seed) }
}

/// splitmix64's finaliser of `value` xor a table's `seed`: the bucket hash
/// of identities and of ``IdentityPair``. O(1).
@inline(__always)
func identityHash(_ value: UInt64, seed: Int) -> Int {
  var z = (value ^ UInt64(bitPattern: Int64(seed))) &+ 0x9E37_79B9_7F4A_7C15
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return Int(truncatingIfNeeded: z ^ (z >> 31))
}

/// Two identities in one table key, the first in the high half (a person
/// and a device, a person and a circle), bucketed as an identity is (see
/// ``HearthIdentity/_rawHashValue(seed:)``), not through SipHash. Coded as
/// the bare integer, as saved states wrote it when tables were keyed by it.
struct IdentityPair: Sendable, Hashable, Comparable, Codable {
  var rawValue: UInt64

  init<A: HearthIdentity, B: HearthIdentity>(_ a: A, _ b: B) {
    rawValue = UInt64(a.rawValue) << 32 | UInt64(b.rawValue)
  }
  init(rawValue: UInt64) { self.rawValue = rawValue }

  init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(UInt64.self) }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  static func < (a: IdentityPair, b: IdentityPair) -> Bool { a.rawValue < b.rawValue }
  func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
  func _rawHashValue(seed: Int) -> Int { identityHash(rawValue, seed: seed) }
}

/// An account.
public struct UserID: HearthIdentity {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A phone.
public struct DeviceID: HearthIdentity {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A circle of people sharing places and limits.
public struct CircleID: HearthIdentity {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A place (`Geofence.id`), unique across an engine.
public struct PlaceID: HearthIdentity {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
}
