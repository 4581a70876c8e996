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

  private typealias Slots = (Reason?, Reason?, Reason?, Reason?, Reason?, Reason?, Reason?, Reason?)
  private var slots: Slots = (nil, nil, nil, nil, nil, nil, nil, nil)
  private var inlineCount: UInt8 = 0
  /// Every reason, once there are more than fit inline (then `slots` is unused).
  private var spilled: [Reason]? = nil

  /// An empty list.
  public init() {}

  /// The reasons of `reasons`, in order. O(n).
  public init<S: Sequence>(_ reasons: S) where S.Element == Reason {
    for reason in reasons { append(reason) }
  }

  /// Adds `reason` at the end. O(1) while the list fits inline; amortised
  /// O(1) after.
  public mutating func append(_ reason: Reason) {
    if spilled != nil {
      spilled?.append(reason)
      return
    }
    let k = Int(inlineCount)
    guard k < Self.inlineCapacity else {
      spilled = Array(self) + [reason]
      return
    }
    withUnsafeMutableBytes(of: &slots) { raw in
      raw.withMemoryRebound(to: Reason?.self) { $0[k] = reason }
    }
    inlineCount += 1
  }
}

extension ReasonList: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { spilled?.count ?? Int(inlineCount) }

  /// The reason at `position` (0 ≤ position < count). O(1).
  public subscript(position: Int) -> Reason {
    if let spilled { return spilled[position] }
    precondition(position >= 0 && position < Int(inlineCount), "ReasonList index out of range")
    let reason = withUnsafeBytes(of: slots) { raw in
      raw.withMemoryRebound(to: Reason?.self) { $0[position] }
    }
    // Slots below the count are always filled.
    guard let reason else { preconditionFailure("ReasonList slot below its count is empty") }
    return reason
  }
}

extension ReasonList: ExpressibleByArrayLiteral {
  public init(arrayLiteral reasons: Reason...) { self.init(reasons) }
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
