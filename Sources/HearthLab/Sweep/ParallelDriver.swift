import Foundation

/// Runs independent jobs on every core and returns their results in job
/// order, so the outcome never depends on how many cores there are or in
/// which order the jobs finish.
enum ParallelDriver {
  /// `body(i)` for every i in 0..<count, in parallel; result i at index i.
  /// `finished()` is called once per job as it completes (from any thread).
  /// - Complexity: `count` calls of `body`, spread over the cores.
  static func map<T: Sendable>(
    count: Int, finished: @Sendable () -> Void = {}, _ body: @Sendable (Int) -> T
  ) -> [T] {
    let slots = Slots<T>(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { i in
      slots.set(i, body(i))
      finished()
    }
    return slots.values
  }

  /// Results written from `concurrentPerform`, one slot per index.
  private final class Slots<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [T?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }
    /// Every slot; each was set exactly once by `map` before this is read.
    var values: [T] { lock.withLock { slots.compactMap { $0 } } }
  }
}

/// Counts finished jobs and reports them (thread-safe).
final class ProgressCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var done = 0
  private let total: Int
  private let report: (@Sendable (Int, Int) -> Void)?
  init(total: Int, report: (@Sendable (Int, Int) -> Void)?) {
    self.total = total
    self.report = report
  }
  func step() {
    guard let report else { return }
    let now = lock.withLock {
      done += 1
      return done
    }
    report(now, total)
  }
}
