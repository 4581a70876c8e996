/// SPEC §6 live trail: which fixes go into the drawn line, and which gaps
/// are drawn dashed.
///
/// Choices: a fix is left out when its accuracy is more than 3× the median
/// of the last five fixes before it (drawn or not) and worse than 50 m
/// ("far looser than the last few"), or when it is under 5 m from the last
/// drawn fix. A silence of more than 2 min between two drawn fixes is
/// dashed. The last few are every fix, not only the drawn ones: measured
/// over drawn fixes alone, a phone that went from 5 m to 65 m fixes was
/// never drawn again (the 65 m fixes never became "the last few").
public struct LiveTrailRules: Sendable, Hashable, Codable {
  public var looserFactor = 3.0
  public var looserFloorMeters = 50.0
  public var recentCount = 5
  public var minimumStepMeters = 5.0
  public var dashedGapMilliseconds: Int64 = 120_000

  public init() {}
}

public struct LiveTrail: Sendable, Hashable, Codable {
  public enum Omission: String, Sendable, Hashable, Codable {
    case farLooserThanRecent, stepUnderFiveMeters
  }
  /// One drawn point: the fix index and whether the segment into it is dashed.
  public struct Point: Sendable, Hashable, Codable {
    public var index: Int
    public var dashedFromPrevious: Bool
  }

  /// A fix left out of the line, and why.
  public struct Omitted: Sendable, Hashable, Codable {
    public var index: Int
    public var reason: Omission
  }

  public var points: [Point] = []
  public var omitted: [Omitted] = []

  /// The trail of `fixes` (time order).
  /// - Complexity: O(n · w) for w = min(n, `rules.recentCount`): the last
  ///   w finite accuracies are kept in arrival order and in sorted order,
  ///   each fix inserted into the sorted list (binary search) and the one
  ///   leaving taken out; O(n) for the default five, with no allocation
  ///   per fix.
  public init(_ fixes: FixColumns, rules: LiveTrailRules = LiveTrailRules()) {
    var recent: [Double] = []  // arrival order
    var ascending: [Double] = []  // the same values, sorted
    /// The first position in `ascending` whose value is not below `value`.
    func position(_ value: Double) -> Int {
      var (low, high) = (0, ascending.count)
      while low < high {
        let mid = (low + high) / 2
        if ascending[mid] < value { low = mid + 1 } else { high = mid }
      }
      return low
    }
    var last: Int?
    for i in 0..<fixes.count {
      let accuracy = fixes.horizontalAccuracyMeters[i]
      let median = ascending.isEmpty ? nil : ascending[ascending.count / 2]
      if accuracy.isFinite {
        recent.append(accuracy)
        ascending.insert(accuracy, at: position(accuracy))
        if recent.count > rules.recentCount {
          // (Finite values: the one leaving is found exactly.)
          ascending.remove(at: position(recent.removeFirst()))
        }
      }
      if let median, accuracy > rules.looserFactor * median && accuracy > rules.looserFloorMeters {
        omitted.append(Omitted(index: i, reason: .farLooserThanRecent))
        continue
      }
      if let l = last {
        let step = GreatCircle.Separation(fixes[l].coordinate, fixes[i].coordinate)
        if step.isBelow(rules.minimumStepMeters) {
          omitted.append(Omitted(index: i, reason: .stepUnderFiveMeters))
          continue
        }
      }
      let dashed =
        last.map {
          fixes.timeMilliseconds[i].isLater(
            than: fixes.timeMilliseconds[$0], byMoreThan: rules.dashedGapMilliseconds)
        }
        ?? false
      points.append(Point(index: i, dashedFromPrevious: dashed))
      last = i
    }
  }
}
