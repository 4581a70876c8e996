/// Order statistics for timing samples.
enum Statistics {
  /// The median (mean of the middle two for an even count). NaN when empty.
  static func median(_ values: [Double]) -> Double {
    quantile(values, 0.5)
  }

  /// Linear-interpolated quantile q in [0, 1] (type 7, as numpy's default).
  /// NaN when empty.
  static func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let position = q * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    let fraction = position - Double(lower)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
  }

  /// Relative spread: (max − min) / median. 0 for one sample.
  static func relativeSpread(_ values: [Double]) -> Double {
    guard let low = values.min(), let high = values.max() else { return .nan }
    let middle = median(values)
    return middle > 0 ? (high - low) / middle : 0
  }
}
