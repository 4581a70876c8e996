import Foundation

/// Thread CPU time of every timed run of a subject and of its C reference:
/// on a shared machine a run that waits for a core loses wall time, not CPU
/// time, so the CPU-time ratio stays readable when the wall-clock one does
/// not (the side-by-side wall ratio is still the benchmark's value).
final class CPUTimes {
  private var subject: [Double] = []
  private var reference: [Double] = []

  init() {
    subject.reserveCapacity(64)
    reference.reserveCapacity(64)
  }

  /// Runs `body`, recording its CPU time as a subject run.
  func timeSubject(_ body: () -> Void) {
    let start = ImpactWorkloads.threadCPUSeconds()
    body()
    if subject.count < subject.capacity { subject.append(ImpactWorkloads.threadCPUSeconds() - start) }
  }

  /// Runs `body`, recording its CPU time as a reference run.
  func timeReference(_ body: () -> Void) {
    let start = ImpactWorkloads.threadCPUSeconds()
    body()
    if reference.count < reference.capacity { reference.append(ImpactWorkloads.threadCPUSeconds() - start) }
  }

  /// `cpuNanosecondsPer<Unit>` and `referenceCPUNanosecondsPer<Unit>` (medians
  /// per item, the first run of each, untimed by the harness, left out) and
  /// their `cpuRatio`.
  func figures(items: Int, unit: String) -> [String: Double] {
    let runs = Array(subject.dropFirst()).sorted()
    guard !runs.isEmpty, items > 0 else { return [:] }
    let median = Statistics.quantile(runs, 0.5)
    var figures = ["cpuNanosecondsPer\(unit)": median * 1e9 / Double(items)]
    let referenceRuns = Array(reference.dropFirst()).sorted()
    if !referenceRuns.isEmpty {
      let referenceMedian = Statistics.quantile(referenceRuns, 0.5)
      figures["referenceCPUNanosecondsPer\(unit)"] = referenceMedian * 1e9 / Double(items)
      figures["cpuRatio"] = median / referenceMedian
    }
    return figures
  }
}
