import Testing

@testable import Bench

@Suite("hearth-bench statistics")
struct StatisticsTests {
  @Test("median and quantiles follow numpy's default (linear) interpolation")
  func quantiles() {
    #expect(Statistics.median([3, 1, 2]) == 2)
    #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
    #expect(Statistics.quantile([1, 2, 3, 4, 5], 0.25) == 2)
    #expect(Statistics.quantile([10, 20], 0.99) == 19.9)
    #expect(Statistics.median([]).isNaN)
  }

  @Test("relative spread is (max − min) / median")
  func spread() {
    #expect(Statistics.relativeSpread([9, 10, 11]) == 0.2)
    #expect(Statistics.relativeSpread([5]) == 0)
  }
}
