/// A fixed-capacity ring of timed values, oldest overwritten first. No
/// allocation after `init`.
struct Ring: Sendable, Hashable {
  private var times: [Double]
  private var values: [Double]
  private var head = 0  // next slot to write
  private(set) var count = 0

  init(capacity: Int) {
    times = Array(repeating: 0, count: capacity)
    values = Array(repeating: 0, count: capacity)
  }

  var capacity: Int { times.count }

  mutating func append(_ time: Double, _ value: Double) {
    times[head] = time
    values[head] = value
    head = head + 1 == capacity ? 0 : head + 1
    count = min(count + 1, capacity)
  }

  /// Calls `body` for each entry, oldest first. O(count).
  func visit(_ body: (Double, Double) -> Void) {
    var i = (head - count + capacity) % capacity
    for _ in 0..<count {
      body(times[i], values[i])
      i = i + 1 == capacity ? 0 : i + 1
    }
  }

  /// Values with from ≤ time ≤ to, oldest first.
  func values(from: Double, to: Double) -> [Double] {
    var out: [Double] = []
    visit { t, v in if t >= from && t <= to { out.append(v) } }
    return out
  }

  /// The largest value with from ≤ time ≤ to (nil: none).
  func maximum(from: Double, to: Double) -> Double? {
    var best: Double?
    visit { t, v in if t >= from && t <= to && v > (best ?? -.infinity) { best = v } }
    return best
  }
}

/// Median of a non-empty list (the mean of the middle two for an even count); NaN when empty.
func median(_ values: [Double]) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  let m = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
}
