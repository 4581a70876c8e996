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
