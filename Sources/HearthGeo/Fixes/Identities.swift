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
  public func _rawHashValue(seed: Int) -> Int {
    var z = (UInt64(rawValue) ^ UInt64(bitPattern: Int64(seed))) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(truncatingIfNeeded: z ^ (z >> 31))
  }
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
