/// The reasons an event carries, in the order the engine gave them.
///
/// An event has one to six reasons, and the ingest path makes thousands of
/// events a second; an `Array` per event was a heap allocation each (about
/// a quarter of the ingest path's allocations). Up to ``inlineCapacity``
/// reasons are kept inline in the value; a longer list, which no engine
/// makes today, moves to an array, so nothing is ever dropped.
///
/// It reads like an array: a random-access collection, built from an array
/// literal, equal to another list with the same reasons in the same order
/// (`event.reasons == [.entered]`), and encoded as a plain array, so saved
/// states and JSON lines are the bytes an array gave.
public struct ReasonList<Reason: Hashable & Sendable & Codable>: Sendable {
  /// How many reasons are kept without an allocation.
  public static var inlineCapacity: Int { 8 }

  // The reasons as their one-byte values (a reason type is a fieldless
  // enum: ``init()`` checks it), so the list's layout does not depend on
  // the reason type and copying or destroying one is a few plain moves.
  private var inline: UInt64 = 0
  private var inlineCount: UInt8 = 0
  /// Every reason, once there are more than fit inline (then `inline` is unused).
  private var spilled: [UInt8]? = nil

  /// An empty list. `Reason` must be a fieldless enum (one byte), as every
  /// event's reason type is; anything else is a programming error.
  public init() {
    precondition(MemoryLayout<Reason>.size == 1, "ReasonList holds one-byte reason enums")
  }

  /// The reasons of `reasons`, in order. O(n).
  public init<S: Sequence>(_ reasons: S) where S.Element == Reason {
    self.init()
    for reason in reasons { append(reason) }
  }

  /// Adds `reason` at the end. O(1) while the list fits inline; amortised
  /// O(1) after.
  public mutating func append(_ reason: Reason) {
    // One byte and trivial (see `init()`), so its bits are the value.
    let byte = withUnsafeBytes(of: reason) { $0[0] }
    if spilled != nil {
      spilled?.append(byte)
      return
    }
    let k = Int(inlineCount)
    guard k < Self.inlineCapacity else {
      // Reason k sits k bytes up the integer (by shifts, so on any byte order).
      spilled = (0..<k).map { UInt8(truncatingIfNeeded: inline >> (8 * $0)) } + [byte]
      return
    }
    inline |= UInt64(byte) << (8 * k)
    inlineCount += 1
  }
}

extension ReasonList: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { spilled?.count ?? Int(inlineCount) }

  /// The reason at `position` (0 ≤ position < count). O(1).
  public subscript(position: Int) -> Reason {
    let byte: UInt8
    if let spilled {
      byte = spilled[position]
    } else {
      precondition(position >= 0 && position < Int(inlineCount), "ReasonList index out of range")
      byte = UInt8(truncatingIfNeeded: inline >> (8 * position))
    }
    // Every byte below the count was stored from a reason of this type.
    return withUnsafeBytes(of: byte) { $0.load(as: Reason.self) }
  }
}

extension ReasonList: ExpressibleByArrayLiteral {
  // Inlined so that the literal's array (a heap allocation per event
  // otherwise) is promoted to the stack or folded away.
  @inline(__always)
  public init(arrayLiteral reasons: Reason...) {
    self.init()
    for reason in reasons { append(reason) }
  }
}

extension ReasonList: Hashable {
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for reason in self { hasher.combine(reason) }
  }
}

extension ReasonList: Codable {
  /// Decodes a plain array of reasons.
  public init(from decoder: any Decoder) throws {
    self.init(try [Reason](from: decoder))
  }

  /// Encodes a plain array of reasons (the bytes an `Array` gives).
  public func encode(to encoder: any Encoder) throws {
    try Array(self).encode(to: encoder)
  }
}

extension ReasonList: CustomStringConvertible {
  /// As an array of the same reasons prints.
  public var description: String { Array(self).description }
}
