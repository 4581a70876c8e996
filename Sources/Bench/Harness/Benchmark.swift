import Foundation

/// A benchmark described as data (STYLE §15): a stable name, a workload size,
/// a throughput unit, the ratio targets it is held to, and how to prepare it.
struct Benchmark {
  /// `Area/operation/workload`, stable across commits (results are compared by name).
  var name: String
  /// Items one run of the subject processes, as declared (for listings). The
  /// prepared benchmark reports the actual count, which a real dataset decides.
  var itemCount: Int
  /// What one item is ("pair", "step", "point").
  var itemUnit: String
  /// Largest acceptable subject/reference time ratio, per build kind.
  var targets: RatioTargets
  /// A sentence printed under the table (what is compared with what).
  var note: String
  /// What the reference is ("C", "pandas", "numpy").
  var referenceName = "C"
  /// An absolute ceiling in ns per item (issue targets such as "≤ 10 ns per fix").
  var maxNanosecondsPerItem: Double? = nil
  /// At most this many timed repetitions, whatever `--repetitions` asks
  /// (a long check whose time is context, not a target).
  var maxRepetitions: Int? = nil
  /// Builds the inputs and returns the runnable subject and reference. Called
  /// just before the benchmark runs, so only one workload is in memory at once.
  var prepare: (BenchContext) throws -> PreparedBenchmark
}

/// Ratio targets (subject time / reference time) for the two build kinds.
struct RatioTargets: Codable, Equatable {
  /// Built for the machine (`-target-cpu native`).
  var native: Double?
  /// Built with the toolchain's default flags.
  var portable: Double?

  static let none = RatioTargets(native: nil, portable: nil)
}

/// A benchmark ready to run.
struct PreparedBenchmark {
  /// Items one run of the subject processes (times are divided by this).
  var itemCount: Int
  /// The Swift code under test, processing `itemCount` items.
  var subject: () -> Void
  /// The same loop in C (compiled for this machine with -ffast-math), on the
  /// same inputs, or nil when there is none.
  var reference: (() -> Void)?

  /// A reference timed outside this process (a Python peer): runs it once and
  /// returns the seconds it measured itself. Used when `reference` is nil.
  var externalReference: (() throws -> Double)? = nil
  /// Checks the outputs of the last subject and reference runs. Called after
  /// one untimed run of each, before anything is timed.
  var verify: () -> Verification
  /// Bytes one run of the subject reads, for MB/s (nil when not meaningful).
  var bytesPerRun: Int? = nil
  /// Further figures the workload measured itself while timed (per-batch
  /// latency percentiles, allocations), read once after the timed runs;
  /// the name carries the unit (`batchP99Microseconds`).
  var metrics: (() -> [String: Double])? = nil
  /// Further peers beside the reference (pyarrow beside pandas), each timed
  /// in every repetition with the subject and the reference; each one's
  /// ratio is reported under the reference's, without a target.
  var peers: [PeerReference] = []
}

/// A peer timed outside this process, like `externalReference`: runs once
/// and returns the seconds it measured itself.
struct PeerReference {
  /// What the peer is ("pyarrow (1 thread)").
  var name: String
  var seconds: () throws -> Double
}

/// The outcome of a result check.
enum Verification: Equatable {
  case passed(String)
  case failed(String)
}

/// What every workload can use while preparing.
struct BenchContext {
  /// The C reference library, if it could be built.
  var reference: CReference?
  /// Scale factor for workload sizes (1 = the documented sizes; smaller for smoke runs).
  var scale: Double
  /// `--long`: the long checks at their full size (the streaming memory
  /// check on 12 M rows instead of 1 M). Off by default, so `Scripts/bench`
  /// stays under half an hour on a shared 2-core machine.
  var long = false
  /// Where the shared real datasets are (../shared/datasets by default).
  var datasetsDirectory: String
  /// Where generated workload files are cached between runs.
  var dataCache: String = BenchContext.repositoryRoot + "/.build/bench-data"
  /// The hearth-bench executable the streaming check's children run
  /// (`stream-recording`): this one, unless a test runs the workloads.
  var executable: String = BenchContext.currentExecutable

  /// The running executable's path (/proc/self/exe, else argv[0]).
  static let currentExecutable: String =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

  /// The checkout this binary was built from (for Scripts/ and the caches).
  static let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // Harness, Bench, Sources, root
    return url.path
  }()

  /// `count` scaled, never below `minimum`.
  func scaled(_ count: Int, minimum: Int = 1_000) -> Int {
    max(minimum, Int((Double(count) * scale).rounded()))
  }
}
