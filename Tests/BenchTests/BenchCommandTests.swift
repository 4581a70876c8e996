import Foundation
import Testing
import _HearthTestSupport

@testable import Bench

@Suite("hearth-bench command line")
struct BenchCommandTests {
  @Test("options parse; bad input is a usage error")
  func parsing() throws {
    let command = try BenchCommand.parse([
      "run", "--filter", "grid", "--filter", "haversine", "--json", "out.json", "--repetitions", "3",
      "--scale", "0.5", "--build-label", "native",
    ])
    var expected = BenchCommand.Options()
    expected.filters = ["grid", "haversine"]
    expected.jsonPath = "out.json"
    expected.repetitions = 3
    expected.scale = 0.5
    expected.buildLabel = "native"
    #expect(command == .run(expected))
    #expect(try BenchCommand.parse([]) == .run(BenchCommand.Options()))
    #expect(try BenchCommand.parse(["report", "a.json", "b.json"]) == .report(["a.json", "b.json"]))
    #expect(try BenchCommand.parse(["list", "--help"]) == .help)
    #expect(try BenchCommand.parse(["touch-memory", "100"]) == .touchMemory(100))
    var long = BenchCommand.Options()
    long.long = true
    long.filters = ["stream"]
    #expect(try BenchCommand.parse(["--long", "--filter", "stream"]) == .run(long))
    #expect(try BenchCommand.parse(["list", "--filter", "stream", "--long"]) == .list(long))
    #expect(
      try BenchCommand.parse(["stream-recording", "detect", "/tmp/x", "120"])
        == .streamRecording(mode: "detect", folder: "/tmp/x", rows: 120))
    for bad in [
      ["--repetitions", "0"], ["--scale", "2"], ["--bogus", "1"], ["--json"], ["frobnicate"], ["report"],
      ["touch-memory"], ["touch-memory", "-1"], ["touch-memory", "1.5"],
      ["stream-recording", "inspect", "/tmp/x"], ["stream-recording", "convert", "/tmp/x", "1"],
      ["stream-recording", "inspect", "/tmp/x", "-1"],
    ] {
      #expect(throws: BenchError.self, "\(bad)") { try BenchCommand.parse(bad) }
    }
    #expect(BenchCommand.main(["--bogus", "x"]) == 2)
  }

  @Test(
    "without --long: no Peers/, Python/ or Growth/ benchmark and the streaming check on 1 M rows; with it, all and 12 M (issue 27)"
  )
  func longRun() {
    func names(_ long: Bool, filters: [String] = []) -> [String] {
      var options = BenchCommand.Options()
      options.long = long
      options.filters = filters
      let context = BenchContext(reference: nil, scale: 1, long: long, datasetsDirectory: "")
      return BenchCommand.selected(options, context).map(\.name)
    }
    let short = names(false)
    let long = names(true)
    let context = BenchContext(reference: nil, scale: 1, long: true, datasetsDirectory: "")
    #expect(long == BenchCommand.all(context).map(\.name))
    for family in ["Peers/", "Python/", "Growth/"] {
      #expect(!short.contains { $0.hasPrefix(family) } && long.contains { $0.hasPrefix(family) }, "\(family)")
    }
    #expect(short.contains("Geo/haversine/city-10M") && short.contains("Ingest/pipeline/days-250"))
    #expect(
      short.filter { !$0.hasPrefix("Trace/streamRecording/") }
        == long.filter {
          !BenchCommand.longFamilies.contains(where: $0.hasPrefix) && !$0.hasPrefix("Trace/streamRecording/")
        })
    #expect(short.contains("Trace/streamRecording/sensor-logger-1M-rows"))
    #expect(long.contains("Trace/streamRecording/sensor-logger-12M-rows"))
    #expect(names(false, filters: ["Growth/"]).isEmpty && !names(true, filters: ["Growth/"]).isEmpty)
  }

  @Test("benchmark names are stable Area/operation/workload and unique")
  func names() {
    let context = BenchContext(reference: nil, scale: 1, datasetsDirectory: "")
    let names = GeoWorkloads.all(context).map(\.name)
    #expect(Set(names).count == names.count)
    for name in names { #expect(name.split(separator: "/").count == 3, "\(name)") }
    #expect(names.contains("Geo/haversine/globe-10M"))
  }

  @Test("results JSON round-trips and the table shows ratio and target")
  func report() throws {
    let result = BenchmarkResult(
      name: "Geo/haversine/city-10M", unit: "ns/pair", value: 7.2, referenceValue: 16.1, ratio: 0.45,
      targetRatio: 0.7, spread: 0.02, itemCount: 10_000_000, repetitions: 5, check: "ok")
    let run = BenchmarkRun(
      date: "2026-11-29T00:00:00Z", commit: "abc1234",
      machine: MachineInfo(cpu: "test", cores: 2, memoryGiB: 24, os: "linux"),
      build: BuildInfo(
        kind: "native", label: "x", cpuFeatures: ["avx2"], cReference: "gcc", cCompiler: "gcc 12"),
      results: [result])
    #expect(try Report.decode(Report.encode(run)) == run)
    let table = Report.table(run)
    #expect(table.contains("0.45") && table.contains("≤0.70 ok"))
    var slow = run
    slow.results[0].ratio = 0.9
    #expect(Report.comparison(native: slow, portable: run).contains("MISSED"))
    #expect(result.meetsTarget == true)
  }
}

/// Issue 27: one benchmark's failed check stopped the whole run with no JSON.
@Suite("a failed benchmark does not stop the run")
struct FailedBenchmarkTests {
  static func benchmark(_ name: String, _ verification: Verification, prepareFails: Bool = false) -> Benchmark
  {
    Benchmark(
      name: name, itemCount: 10, itemUnit: "item", targets: .none, note: "",
      prepare: { _ in
        if prepareFails { throw BenchError.io("cannot read the input") }
        return PreparedBenchmark(itemCount: 10, subject: {}, reference: nil, verify: { verification })
      })
  }

  static func run(_ results: [BenchmarkResult]) -> BenchmarkRun {
    BenchmarkRun(
      date: "2026-12-03T00:00:00Z", commit: "abc1234",
      machine: MachineInfo(cpu: "test", cores: 2, memoryGiB: 24, os: "linux"),
      build: BuildInfo(kind: "portable", label: "", cpuFeatures: [], cReference: "", cCompiler: ""),
      results: results)
  }

  @Test("a failed check and a failed preparation are recorded; the rest run; the JSON is written; exit 1")
  func failuresAreRecorded() throws {
    let benchmarks = [
      Self.benchmark("Test/wrong/answer", .failed("off by one")),
      Self.benchmark("Test/right/answer", .passed("all 10 agree")),
      Self.benchmark("Test/missing/input", .passed("unused"), prepareFails: true),
      Self.benchmark("Test/right/again", .passed("all 10 agree")),
    ]
    let context = BenchContext(reference: nil, scale: 1, datasetsDirectory: "")
    let runner = Runner(repetitions: 2, isNativeBuild: false) { _ in }
    let results = BenchCommand.runEach(benchmarks) { try runner.run($0, context: context) }
    #expect(results.map(\.name) == benchmarks.map(\.name))
    #expect(results.map { $0.failed ?? false } == [true, false, true, false])
    #expect(results[0].check == "result check failed: off by one")
    #expect(results[0].repetitions == 0 && results[0].value == 0)
    #expect(results[2].check == "could not run: cannot read the input")
    #expect(results[1].repetitions == 2 && results[1].check == "all 10 agree")

    let run = Self.run(results)
    let table = Report.table(run)
    #expect(
      table.contains("FAILED") && table.contains("Test/wrong/answer: result check failed: off by one"),
      "\(table)")
    #expect(
      Report.comparison(native: run, portable: run).contains(
        "Test/missing/input: could not run: cannot read the input"))

    let folder = TemporaryFolder()
    var options = BenchCommand.Options()
    options.jsonPath = folder.path + "/out/run.json"
    let baseline = "test-failed-run-\(UUID().uuidString)"
    options.saveBaseline = baseline
    defer { try? FileManager.default.removeItem(atPath: BenchCommand.baselinePath(baseline)) }
    #expect(try BenchCommand.finish(run, options) == 1)
    let written = try Report.decode(Data(contentsOf: URL(fileURLWithPath: options.jsonPath!)))
    #expect(written == run)
    #expect(
      !FileManager.default.fileExists(atPath: BenchCommand.baselinePath(baseline)),
      "a run with a failed check is not saved as a baseline")

    let passing = Self.run([results[1], results[3]])
    options.saveBaseline = nil
    #expect(try BenchCommand.finish(passing, options) == 0)

    // A bare file name (no folder to make) is written where the command runs.
    options.jsonPath = "hearth-bench-test-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: options.jsonPath ?? "") }
    #expect(try BenchCommand.finish(passing, options) == 0)
    #expect(try Report.decode(Data(contentsOf: URL(fileURLWithPath: options.jsonPath ?? ""))) == passing)
  }
}

/// Every workload, run at a tiny scale against the C reference: the result
/// checks that guard the timings must pass (they compare Swift and C output).
@Suite("hearth-bench workloads agree with the C reference")
struct WorkloadCheckTests {
  @Test("all workload checks pass at small scale")
  func checks() throws {
    let reference = try CReference.build(sourcePath: CReference.defaultSourcePath, compiler: "gcc")
    let context = BenchContext(
      reference: reference, scale: 0.001, datasetsDirectory: TestPaths.sharedDatasets.path)
    let runner = Runner(repetitions: 1, isNativeBuild: false) { _ in }
    for benchmark in GeoWorkloads.all(context) {
      let result = try runner.run(benchmark, context: context)
      #expect(result.value > 0, "\(benchmark.name)")
      #expect(result.ratio != nil, "\(benchmark.name) has no C reference")
      #expect(!result.check.isEmpty)
    }
  }

  @Test("the cost-growth families run and pass their checks at small scale (issue 21)")
  func growthChecks() throws {
    let context = BenchContext(reference: nil, scale: 0.001, datasetsDirectory: TestPaths.sharedDatasets.path)
    let runner = Runner(repetitions: 1, isNativeBuild: false) { _ in }
    let benchmarks = GrowthWorkloads.all(context)
    #expect(Set(benchmarks.map(\.name)).count == benchmarks.count, "names stay distinct at small scale")
    for benchmark in benchmarks {
      // A failed check throws (see failingCheck).
      let result = try runner.run(benchmark, context: context)
      #expect(result.value > 0 && !result.check.isEmpty, "\(benchmark.name)")
    }
  }

  @Test("loading the -ffast-math reference leaves subnormals alone (no flush-to-zero for the process)")
  func noFlushToZero() throws {
    _ = try CReference.build(sourcePath: CReference.defaultSourcePath, compiler: "gcc")
    #expect(quarter(Double.leastNormalMagnitude) > 0)
    #expect(quarter(Double.leastNormalMagnitude) * 4 == Double.leastNormalMagnitude)
  }

  /// x / 4 at run time (not folded by the compiler).
  @inline(never) func quarter(_ x: Double) -> Double { x / 4 }

  @Test("a wrong result fails the check and is never timed")
  func failingCheck() {
    let benchmark = Benchmark(
      name: "Test/wrong/answer", itemCount: 1, itemUnit: "item", targets: .none, note: "",
      prepare: { _ in
        PreparedBenchmark(itemCount: 1, subject: {}, reference: nil, verify: { .failed("off by one") })
      })
    let context = BenchContext(reference: nil, scale: 1, datasetsDirectory: "")
    #expect(throws: BenchError.self) {
      try Runner(repetitions: 3, isNativeBuild: true) { _ in }.run(benchmark, context: context)
    }
  }
}

/// Issue 33: a workload with several peers (pandas and pyarrow for the CSV
/// parse) reports each one's ratio from the same repetitions.
@Suite("further peers beside the reference")
struct FurtherPeerTests {
  @Test(
    "each peer is timed in every repetition; its median time and ratio are recorded and shown under the row")
  func peersSideBySide() throws {
    var calls: [String] = []
    let benchmark = Benchmark(
      name: "Test/peers/two", itemCount: 1_000, itemUnit: "row",
      targets: RatioTargets(native: 0.5, portable: 0.5),
      note: "", referenceName: "slow",
      prepare: { _ in
        PreparedBenchmark(
          itemCount: 1_000,
          subject: {
            calls.append("subject")
            usleep(1_000)
          }, reference: nil,
          externalReference: {
            calls.append("slow")
            return 1
          },
          verify: { .passed("ok") },
          peers: [
            PeerReference(name: "fast") {
              calls.append("fast")
              return 1e-6
            }
          ])
      })
    let context = BenchContext(reference: nil, scale: 1, datasetsDirectory: "")
    let result = try Runner(repetitions: 3, isNativeBuild: true) { _ in }.run(benchmark, context: context)
    #expect(calls.filter { $0 == "fast" }.count == 3 && calls.filter { $0 == "slow" }.count == 3)
    let peer = try #require(result.peers?.first)
    #expect(result.peers?.count == 1 && peer.name == "fast")
    #expect(abs(peer.value - 1) < 1e-9, "1 µs over 1 000 rows is 1 ns per row")
    // The subject sleeps 1 ms: far faster than the slow reference's 1 s, far slower than 1 µs.
    #expect(try #require(result.ratio) < 0.5)
    #expect(peer.ratio > 500)

    let run = FailedBenchmarkTests.run([result])
    #expect(try Report.decode(Report.encode(run)) == run)
    let lines = Report.table(run).split(separator: "\n")
    let row = try #require(lines.firstIndex { $0.hasPrefix("Test/peers/two") })
    #expect(lines[row].contains("slow 1000000"))
    #expect(lines[row + 1].contains("vs fast") && lines[row + 1].contains("fast 1.00"), "\(lines)")
    let comparison = Report.comparison(native: run, portable: run).split(separator: "\n")
    let compared = try #require(comparison.firstIndex { $0.hasPrefix("Test/peers/two") })
    #expect(comparison[compared + 1].contains("vs fast") && comparison[compared + 1].contains("fast 1.00"))
  }
}
