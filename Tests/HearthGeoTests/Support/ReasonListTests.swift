import Foundation
import Testing

@testable import HearthGeo

/// An event's reasons read, compare, hash and encode exactly as the array
/// they replaced, whether they fit inline or not.
@Suite("Reason lists: an array's behaviour without its allocation")
struct ReasonListTests {
  /// Every geofence reason in declaration order, then in reverse: 34
  /// reasons, so lists of every length 0…34 cross the inline capacity.
  static let reasons: [GeofenceReason] = {
    let all: [GeofenceReason] = [
      .entered, .leftWaitingForConfirmation, .secondFixClear, .minuteWithoutReturn, .backInside,
      .fastArrivalWaiting, .fastArrivalSlowed, .fastArrivalMinutePassed, .drovePast, .smallerPlaceAnnounced,
      .returnedSoon, .placeQuiet, .staleNews, .lateBatch, .supersededByArrival, .arrivedElsewhere,
      .placeRemoved,
    ]
    return all + all.reversed()
  }()

  @Test(
    "every length up to and past the inline capacity: the same elements, order, count and bytes as an array")
  func sameAsArray() throws {
    let encoder = JSONEncoder()
    for length in 0...Self.reasons.count {
      let array = Array(Self.reasons.prefix(length))
      var appended = ReasonList<GeofenceReason>()
      for reason in array { appended.append(reason) }
      let built = ReasonList(array)
      #expect(Array(appended) == array, "length \(length)")
      #expect(appended == built && appended.count == length)
      #expect(appended.indices == array.indices)
      for k in array.indices { #expect(appended[k] == array[k]) }
      #expect(try encoder.encode(appended) == encoder.encode(array), "length \(length)")
      #expect(
        try JSONDecoder().decode(ReasonList<GeofenceReason>.self, from: encoder.encode(array)) == appended)
      #expect(appended.description == array.description)
      #expect(appended.hashValue == built.hashValue)
    }
  }

  @Test("equal only with the same reasons in the same order; a literal compares as an array does")
  func equality() {
    let list: ReasonList<GeofenceReason> = [.entered, .staleNews]
    #expect(list == [.entered, .staleNews])
    #expect(list != [.staleNews, .entered])
    #expect(list != [.entered])
    #expect(list != [.entered, .staleNews, .lateBatch])
    #expect(ReasonList<GeofenceReason>() == [])
    // Past the inline capacity against one short of it, and one longer.
    let long = ReasonList(Self.reasons.prefix(9))
    #expect(long != ReasonList(Self.reasons.prefix(8)))
    #expect(long != ReasonList(Self.reasons.prefix(10)))
    #expect(long == ReasonList(Self.reasons.prefix(9)))
    #expect(Set([long, ReasonList(Self.reasons.prefix(9)), list]).count == 2)
  }

  @Test("an event's reasons in a saved geofence event decode from the array form")
  func eventRoundTrip() throws {
    let event = GeofenceEvent(
      kind: .arrival, outcome: .feedOnly, reasons: [.entered, .smallerPlaceAnnounced, .staleNews],
      place: PlaceID(7), circle: CircleID(2), person: UserID(3), eventMilliseconds: 1_000,
      decidedMilliseconds: 2_000, journey: nil)
    let data = try JSONEncoder().encode(event)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#""reasons":["entered","smallerPlaceAnnounced","staleNews"]"#))
    #expect(try JSONDecoder().decode(GeofenceEvent.self, from: data) == event)
  }
}
