import HearthGeo
import Testing

@Suite("Identities: hashed as integers, spread over a table's buckets")
struct IdentitiesTests {
  @Test("equal identities hash equal under every seed; the seed changes the hash")
  func equalHashEqual() {
    for seed in [0, 1, -1, Int.max, Int.min, 0x1234_5678] {
      for raw: UInt32 in [0, 1, 2, 4_096, .max] {
        #expect(UserID(raw)._rawHashValue(seed: seed) == UserID(raw)._rawHashValue(seed: seed))
        #expect(PlaceID(raw)._rawHashValue(seed: seed) == PlaceID(raw)._rawHashValue(seed: seed))
      }
    }
    #expect(UserID(7)._rawHashValue(seed: 1) != UserID(7)._rawHashValue(seed: 2))
    #expect(Set([UserID(1), UserID(1), UserID(2)]).count == 2)
    #expect([CircleID(3): "a", CircleID(4): "b"][CircleID(4)] == "b")
  }

  /// The fullest of 4 096 buckets (the low 12 bits, as a table of that
  /// size uses) when 4 096 ids are hashed. Random hashes fill the fullest
  /// to about 7; a hash that kept the ids' structure puts every id of a
  /// stride in one bucket.
  func fullestBucket(_ ids: [UInt32], seed: Int) -> Int {
    var buckets = [Int](repeating: 0, count: 4_096)
    for id in ids { buckets[UserID(id)._rawHashValue(seed: seed) & 4_095] += 1 }
    return buckets.max() ?? 0
  }

  @Test("dense, strided and high-bit ids spread like random ones over the buckets")
  func spread() {
    let dense = (0..<4_096).map { UInt32($0) }
    let strided = (0..<4_096).map { UInt32($0) &* 4_096 }
    let highBits = (0..<4_096).map { UInt32($0) << 20 }
    for seed in [0, 42, -7] {
      #expect(fullestBucket(dense, seed: seed) <= 12)
      #expect(fullestBucket(strided, seed: seed) <= 12)
      #expect(fullestBucket(highBits, seed: seed) <= 12)
    }
  }
}
