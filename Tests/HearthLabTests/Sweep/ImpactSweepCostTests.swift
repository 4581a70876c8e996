import HearthImpact
import HearthRuntime
import HearthSim
import Testing

@testable import HearthLab

/// The estimate every door holds a sweep plan to before it lists a task
/// (issue 29.7): sizes only, no trap for any size, the budget on both sides.
@Suite(
  "Sweep cost: a plan is estimated from its sizes and refused over the budget before anything is allocated")
struct ImpactSweepCostTests {
  /// A grid with `counts[i]` values for setting i (values within every domain).
  static func grid(_ counts: [Int]) -> ImpactSweep.Grid {
    var grid = ImpactSweep.Grid()
    for (setting, count) in zip(ImpactThresholds.Setting.allCases, counts) {
      grid[setting] = (0..<count).map { setting.value(in: grid.base) + Double($0) * 0.01 }
    }
    return grid
  }

  @Test(
    "the combination count is the length of the listed combinations, for every grid of 1 to 3 values per setting"
  )
  func combinationCountMatchesTheList() {
    for code in 0..<243 {
      let counts = (0..<5).map { code / [1, 3, 9, 27, 81][$0] % 3 + 1 }
      let grid = Self.grid(counts)
      #expect(grid.combinationCount == Double(grid.combinations.count), "\(counts)")
    }
  }

  @Test("the default plan (5 seeds, 100 h, one combination) is within the budget")
  func defaultPlanIsWithin() {
    let cost = ImpactSweep.cost(grid: ImpactSweep.Grid(), seeds: 5, hours: 100)
    #expect(cost.bytes < ImpactSweep.memoryBudgetBytes / 10, "\(cost)")
    #expect(cost.combinations == 1)
    #expect(cost.traces == Double(ScenarioCatalogue.all.count * 5) + (100 * 3600 / 1_050).rounded(.up))
    #expect(ImpactSweep.budgetProblem(grid: ImpactSweep.Grid(), seeds: 5, hours: 100) == nil)
  }

  @Test(
    "a plan costing exactly the budget is taken; one byte under the cost, it is refused with the estimate")
  func bothSidesOfTheBudget() throws {
    let grid = Self.grid([2, 3, 1, 2, 1])
    let cost = ImpactSweep.cost(grid: grid, seeds: 7, hours: 12.5, recordings: 3)
    #expect(
      ImpactSweep.budgetProblem(grid: grid, seeds: 7, hours: 12.5, recordings: 3, budgetBytes: cost.bytes)
        == nil)
    let refused = try #require(
      ImpactSweep.budgetProblem(grid: grid, seeds: 7, hours: 12.5, recordings: 3, budgetBytes: cost.bytes - 1)
    )
    #expect(refused.hasPrefix("the sweep is too large: "), "\(refused)")
    #expect(refused.contains("\(Int(cost.traces)) traces × 12 combinations"), "\(refused)")
    #expect(refused.contains("over the budget of"), "\(refused)")
  }

  @Test("the seeds and hours the named budget takes, and the next ones it refuses")
  func edgesOfTheNamedBudget() {
    let grid = ImpactSweep.Grid()
    func within(seeds: UInt64, hours: Double) -> Bool {
      ImpactSweep.budgetProblem(grid: grid, seeds: seeds, hours: hours) == nil
    }
    // The largest seed count taken with no driving: one more is refused.
    let seeds = (1...ImpactSweep.seedsRange.upperBound).partitionPoint { !within(seeds: $0, hours: 0) } - 1
    #expect(seeds >= 100, "the budget must take a long sweep, took \(seeds) seeds")
    #expect(within(seeds: seeds, hours: 0) && !within(seeds: seeds + 1, hours: 0))
    // Whole hours of driving with 5 seeds, likewise.
    let hours = (0...1_000_000).partitionPoint { !within(seeds: 5, hours: Double($0)) } - 1
    #expect(hours >= 10_000, "the budget must take 10⁴ h, took \(hours)")
    #expect(within(seeds: 5, hours: Double(hours)) && !within(seeds: 5, hours: Double(hours + 1)))
  }

  @Test(
    "the ranges' far ends, grids of 3.2 × 10⁶ combinations and impossible sizes are refused without a trap",
    arguments: [
      (1_000_000, 0, [1, 1, 1, 1, 1]),
      (1, 1_000_000, [1, 1, 1, 1, 1]),
      (UInt64.max, .infinity, [1, 1, 1, 1, 1]),
      (5, .nan, [1, 1, 1, 1, 1]),
      (5, 100, [20, 20, 20, 20, 20]),
    ] as [(UInt64, Double, [Int])])
  func farEndsAreRefused(seeds: UInt64, hours: Double, counts: [Int]) {
    let problem = ImpactSweep.budgetProblem(grid: Self.grid(counts), seeds: seeds, hours: hours)
    #expect(problem?.hasPrefix("the sweep is too large: ") == true, "\(problem ?? "taken")")
  }
}

extension Collection {
  /// The first index whose element satisfies `isAbove`, given that every
  /// element after one that does also does. O(log n).
  fileprivate func partitionPoint(_ isAbove: (Element) -> Bool) -> Element where Element: BinaryInteger {
    var low = startIndex
    var count = self.count
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if isAbove(self[middle]) {
        count = half
      } else {
        low = index(after: middle)
        count -= half + 1
      }
    }
    return low == endIndex ? (self[index(endIndex, offsetBy: -1)] + 1) : self[low]
  }
}
