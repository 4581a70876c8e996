import Foundation

/// Result comparisons used by the workloads' checks.
enum Checks {
  /// Largest |a − b| / max(|b|, floor) over elements where both are finite,
  /// and the number of elements where exactly one is NaN.
  static func maximumRelativeDifference(
    _ a: [Double], _ b: [Double], floor: Double = 1
  ) -> (maximum: Double, nanMismatches: Int) {
    precondition(a.count == b.count)
    var maximum = 0.0
    var mismatches = 0
    for i in a.indices {
      if a[i].isNaN != b[i].isNaN {
        mismatches += 1
      } else if !a[i].isNaN {
        maximum = max(maximum, abs(a[i] - b[i]) / max(abs(b[i]), floor))
      }
    }
    return (maximum, mismatches)
  }

  /// Passes when every element agrees within `tolerance` relative.
  static func agree(
    _ name: String, _ subject: [Double], _ reference: [Double], tolerance: Double
  ) -> Verification {
    let (maximum, mismatches) = maximumRelativeDifference(subject, reference)
    let summary = "\(name): max relative difference \(format(maximum)) vs C over \(subject.count)"
    if mismatches > 0 { return .failed("\(summary); \(mismatches) NaN mismatches") }
    return maximum <= tolerance
      ? .passed(summary) : .failed("\(summary) exceeds \(format(tolerance))")
  }

  static func format(_ value: Double) -> String {
    value == 0 ? "0" : String(format: "%.1e", value)
  }
}
