import Foundation
import HearthTrace
import _HearthShims

/// Command-line entry: parses arguments, runs benchmarks or merges results.
enum BenchCommand {
  static let usage = """
    usage: hearth-bench [run] [options]      run the benchmarks, print the table
           hearth-bench compare BASELINE CURRENT [--thresholds FILE] [--markdown FILE]
                                             the regression gate: exit 1 when a metric grew
                                             past its limit; BASELINE may be a saved name
           hearth-bench report NATIVE.json [PORTABLE.json]
                                             print one run, or two side by side
           hearth-bench list                 list benchmark names
           hearth-bench measure NAME --out FILE [--scale X] [--datasets DIR]
                                             run one benchmark's subject once inside the
                                             region callgrind counts (used by --metric instructions)
           hearth-bench stream-csv FILE      stream a CSV (every column as a number),
                                             print rows kept/rejected (memory check)
           hearth-bench touch-memory MIB     allocate MIB MiB, touch every page, free it
                                             (a known peak for checking the child-memory measurement)
           hearth-bench stream-recording inspect|detect FOLDER ROWS
                                             stream a recording once as `hearth data inspect` or
                                             `impact detect` do; exit 1 unless ROWS accelerometer
                                             rows came through (the streaming check's child)

    options:
      --filter TEXT         only benchmarks whose name contains TEXT (repeatable)
      --json PATH           also write the results as JSON
      --metric time|instructions
                            wall time over repetitions (default), or instructions
                            counted by valgrind's callgrind (exact, repeatable)
      --save-baseline NAME  also write the results to bench/baselines/NAME.json
      --export-action PATH  also write {name, unit, value} entries for CI benchmark actions
      --repetitions N       timed repetitions per benchmark (default 5)
      --scale X             workload size factor (default 1; CI smoke runs use less)
      --long                also the long benchmarks: Peers/ and Python/ (side by side with
                            Python libraries and the Python package; Python/ needs
                            Scripts/build-libhearth), Growth/ (cost curves), and the
                            streaming memory check on a 1.7 GB recording (12 M rows)
                            instead of 143 MB (1 M rows); about 12 min more per build
                            on a shared 2-core machine
      --datasets DIR        real datasets folder (default ../shared/datasets)
      --reference-source F  the C reference source (default: next to the sources)
      --cc COMPILER         C compiler for the reference (default: $CC or gcc)
      --build-label TEXT    how this binary was built, recorded in the results
    exit status: 0 ok, 1 a benchmark failed its result check or could not run
                 (recorded, the others still run) or the gate found a regression,
                 2 usage error or debug build
    """

  struct Options: Equatable {
    var filters: [String] = []
    var jsonPath: String?
    var repetitions = 5
    var scale = 1.0
    /// `--long`: the long benchmarks too (`longFamilies`, `BenchContext.long`).
    var long = false
    var datasets = "../shared/datasets"
    var referenceSource: String?
    var compiler = ProcessInfo.processInfo.environment["CC"] ?? "gcc"
    var buildLabel = ""
    var metric = "time"
    var saveBaseline: String?
    var exportAction: String?
    /// `measure` only: where the child writes its item count.
    var out: String?
    var thresholds = BenchContext.repositoryRoot + "/bench/thresholds.json"
    var markdown: String?
  }

  enum Command: Equatable {
    case run(Options)
    case list(Options)
    case report([String])
    case compare(baseline: String, current: String, Options)
    case measure(String, Options)
    case streamCSV(String)
    case touchMemory(Int)
    case streamRecording(mode: String, folder: String, rows: Int)
    case help
  }

  /// Parses the arguments (without the program name).
  static func parse(_ arguments: [String]) throws -> Command {
    var rest = arguments[...]
    var verb = "run"
    if let first = rest.first, !first.hasPrefix("-") {
      verb = first
      rest = rest.dropFirst()
    }
    if verb == "stream-csv" {
      guard rest.count == 1 else { throw BenchError.usage("stream-csv takes one file") }
      return .streamCSV(rest.first!)
    }
    if verb == "touch-memory" {
      guard rest.count == 1, let mebibytes = rest.first.flatMap({ Int($0) }), mebibytes >= 0 else {
        throw BenchError.usage("touch-memory takes a whole number of MiB")
      }
      return .touchMemory(mebibytes)
    }
    if verb == "stream-recording" {
      let words = Array(rest)
      guard words.count == 3, ["inspect", "detect"].contains(words[0]), let rows = Int(words[2]), rows >= 0
      else {
        throw BenchError.usage("stream-recording takes inspect|detect, a folder and the rows expected")
      }
      return .streamRecording(mode: words[0], folder: words[1], rows: rows)
    }
    if verb == "report" {
      guard (1...2).contains(rest.count) else { throw BenchError.usage("report takes one or two JSON files") }
      return .report(Array(rest))
    }
    guard ["run", "list", "compare", "measure"].contains(verb) else {
      throw BenchError.usage("unknown command '\(verb)'")
    }
    var positionals: [String] = []
    while verb == "compare" || verb == "measure", let first = rest.first, !first.hasPrefix("-") {
      positionals.append(first)
      rest = rest.dropFirst()
    }
    var options = Options()
    while let flag = rest.popFirst() {
      if flag == "--help" || flag == "-h" { return .help }
      if flag == "--long" {
        options.long = true
        continue
      }
      guard let value = rest.popFirst() else { throw BenchError.usage("\(flag) needs a value") }
      switch flag {
      case "--filter": options.filters.append(value)
      case "--json": options.jsonPath = value
      case "--repetitions":
        guard let n = Int(value), n >= 1 else { throw BenchError.usage("--repetitions needs an integer ≥ 1") }
        options.repetitions = n
      case "--scale":
        guard let x = Double(value), x > 0, x <= 1 else {
          throw BenchError.usage("--scale needs a number in (0, 1]")
        }
        options.scale = x
      case "--datasets": options.datasets = value
      case "--reference-source": options.referenceSource = value
      case "--cc": options.compiler = value
      case "--build-label": options.buildLabel = value
      case "--metric":
        guard value == "time" || value == "instructions" else {
          throw BenchError.usage("--metric is time or instructions")
        }
        options.metric = value
      case "--save-baseline":
        guard !value.contains("/"), !value.isEmpty else {
          throw BenchError.usage("--save-baseline takes a name")
        }
        options.saveBaseline = value
      case "--export-action": options.exportAction = value
      case "--out": options.out = value
      case "--thresholds": options.thresholds = value
      case "--markdown": options.markdown = value
      default: throw BenchError.usage("unknown option \(flag)")
      }
    }
    switch verb {
    case "list": return .list(options)
    case "compare":
      guard positionals.count == 2 else { throw BenchError.usage("compare takes BASELINE and CURRENT") }
      return .compare(baseline: positionals[0], current: positionals[1], options)
    case "measure":
      guard positionals.count == 1, options.out != nil else {
        throw BenchError.usage("measure takes one benchmark NAME and --out FILE")
      }
      return .measure(positionals[0], options)
    default: return .run(options)
    }
  }

  static func main(_ arguments: [String]) -> Int32 {
    let command: Command
    do {
      command = try parse(arguments)
    } catch {
      printError("hearth-bench: \(error)\n\(usage)")
      return 2
    }
    do {
      switch command {
      case .help:
        print(usage)
        return 0
      case .report(let paths):
        let runs = try paths.map { try Report.decode(Data(contentsOf: URL(fileURLWithPath: $0))) }
        print(runs.count == 2 ? Report.comparison(native: runs[0], portable: runs[1]) : Report.table(runs[0]))
        return 0
      case .streamCSV(let path):
        var rows = 0
        let report = try CSVStream.read(
          path: path,
          select: { header, _ in header.indices.map { CSVColumnRequest(index: $0, kind: .number) } },
          body: { rows += $0.count })
        print(
          "rows read \(report.rowsRead), kept \(report.rowsKept), rejected \(report.rowsRejected) (batches \(rows))"
        )
        return 0
      case .streamRecording(let mode, let folder, let rows):
        let counted = try TraceWorkloads.streamOnce(mode: mode, folder: folder)
        guard counted == rows else {
          printError("hearth-bench: \(mode): \(counted) of \(rows) accelerometer rows")
          return 1
        }
        return 0
      case .touchMemory(let mebibytes):
        print("touched \(ChildMemory.touch(mebibytes: mebibytes)) pages")
        return 0
      case .compare(let baseline, let current, let options):
        return try compare(baseline: baseline, current: current, options)
      case .measure(let name, let options):
        return try measure(name, options)
      case .list(let options):
        let context = BenchContext(
          reference: nil, scale: options.scale, long: options.long, datasetsDirectory: options.datasets)
        for benchmark in selected(options, context) { print(benchmark.name) }
        return 0
      case .run(let options):
        return try run(options)
      }
    } catch let error as BenchError {
      printError("hearth-bench: \(error)")
      if case .checkFailed = error { return 1 }
      return 2
    } catch {
      printError("hearth-bench: \(error)")
      return 2
    }
  }

  /// Every benchmark, whatever `--long` says.
  static func all(_ context: BenchContext) -> [Benchmark] {
    GeoWorkloads.all(context) + FenceWorkloads.all(context) + TraceWorkloads.all(context)
      + TrackingWorkloads.all(context) + IngestWorkloads.all(context) + ImpactWorkloads.all(context)
      + SimWorkloads.all(context) + PeerWorkloads.all(context) + PythonWorkloads.all(context)
      + GrowthWorkloads.all(context)
      + BindingPeerWorkloads.all(context)
  }

  /// The families that run only with `--long`: side-by-side timings against
  /// Python libraries, the Python package and the Node and JVM bindings
  /// (context, no target; they need `Scripts/build-libhearth` and
  /// `Scripts/build-bindings`) and the cost-growth curves.
  /// On this shared 2-core machine they took 9.5 min of a portable run, the
  /// rest of it 5–6 min (issue 27, docs/benchmarks.md "Running").
  static let longFamilies = ["Peers/", "Python/", "Bindings/", "Growth/"]

  /// The benchmarks `run` and `list` take: without `--long`, none of
  /// `longFamilies`; then those whose name contains a `--filter` text.
  static func selected(_ options: Options, _ context: BenchContext) -> [Benchmark] {
    let candidates = all(context).filter { benchmark in
      options.long || !longFamilies.contains { benchmark.name.hasPrefix($0) }
    }
    guard !options.filters.isEmpty else { return candidates }
    return candidates.filter { benchmark in options.filters.contains { benchmark.name.contains($0) } }
  }

  static func run(_ options: Options) throws -> Int32 {
    #if DEBUG
      printError("hearth-bench: refusing to time a debug build; build with -c release")
      return 2
    #else
      setenv("OPENBLAS_NUM_THREADS", "1", 1)
      let features = cpuFeatures()
      let isNative = features.contains("avx2")
      var referenceNote = ""
      var compilerVersion = ""
      var reference: CReference?
      do {
        let built = try CReference.build(
          sourcePath: options.referenceSource ?? CReference.defaultSourcePath,
          compiler: options.compiler)
        reference = built
        referenceNote = built.command
        compilerVersion = built.compilerVersion
      } catch {
        referenceNote = "none: \(error)"
        printError("hearth-bench: warning: no C reference, ratios omitted: \(error)")
      }
      let context = BenchContext(
        reference: reference, scale: options.scale, long: options.long, datasetsDirectory: options.datasets)
      let runner = Runner(repetitions: options.repetitions, isNativeBuild: isNative) { printError($0) }
      let benchmarks = selected(options, context)
      var everything = options
      everything.long = true
      let leftOut = selected(everything, context).count - benchmarks.count
      if leftOut > 0 {
        printError(
          "hearth-bench: \(leftOut) benchmarks of \(longFamilies.joined(separator: ", ")) left out; --long runs them (and streams \(TraceWorkloads.streamRows(long: true) / 1_000_000) M rows instead of \(TraceWorkloads.streamRows(long: false) / 1_000_000) M)"
        )
      }
      let results = runEach(benchmarks) { benchmark in
        options.metric == "instructions"
          ? try InstructionCounter.result(benchmark, options: options)
          : try runner.run(benchmark, context: context)
      }
      let run = BenchmarkRun(
        date: ISO8601DateFormatter().string(from: Date()),
        commit: commitDescription(),
        machine: .current(),
        build: BuildInfo(
          kind: isNative ? "native" : "portable", label: options.buildLabel, cpuFeatures: features,
          cReference: referenceNote, cCompiler: compilerVersion),
        results: results)
      return try finish(run, options)
    #endif
  }

  /// Runs each benchmark in turn with `measure`. A failed result check, or
  /// an error while preparing or measuring one benchmark, becomes that
  /// benchmark's result (`failed`, nothing timed) and the rest still run.
  static func runEach(_ benchmarks: [Benchmark], measure: (Benchmark) throws -> BenchmarkResult)
    -> [BenchmarkResult]
  {
    benchmarks.map { benchmark in
      printError("running \(benchmark.name) …")
      do {
        return try measure(benchmark)
      } catch {
        let why =
          if case BenchError.checkFailed(_, let message) = error {
            "result check failed: \(message)"
          } else {
            "could not run: \(error)"
          }
        printError("hearth-bench: \(benchmark.name): \(why)")
        return BenchmarkResult(
          name: benchmark.name, unit: "ns/\(benchmark.itemUnit)", value: 0, spread: 0,
          itemCount: benchmark.itemCount, repetitions: 0, check: why, failed: true)
      }
    }
  }

  /// Prints the table and writes the files `options` asks for; a run with a
  /// failed benchmark is written to --json but not saved as a baseline.
  /// Returns the exit status: 1 when a benchmark failed, else 0.
  static func finish(_ run: BenchmarkRun, _ options: Options) throws -> Int32 {
    print(Report.table(run))
    let failed = run.results.filter { $0.failed == true }.map(\.name)
    var paths = options.jsonPath.map { [$0] } ?? []
    if let name = options.saveBaseline {
      if failed.isEmpty {
        paths.append(baselinePath(name))
      } else {
        printError("hearth-bench: not saved as baseline \(name): a benchmark failed")
      }
    }
    for path in paths {
      // (A bare file name has no folder to make: "" is no path.)
      let folder = (path as NSString).deletingLastPathComponent
      if !folder.isEmpty {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      }
      try Report.encode(run).write(to: URL(fileURLWithPath: path))
      printError("wrote \(path)")
    }
    if let path = options.exportAction {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(Gate.actionEntries(run)).write(to: URL(fileURLWithPath: path))
      printError("wrote \(path)")
    }
    guard failed.isEmpty else {
      printError(
        "hearth-bench: \(failed.count) of \(run.results.count) failed: \(failed.joined(separator: ", "))")
      return 1
    }
    return 0
  }

  /// A saved baseline's file (bench/baselines/NAME.json in the checkout).
  static func baselinePath(_ name: String) -> String {
    BenchContext.repositoryRoot + "/bench/baselines/\(name).json"
  }

  static func compare(baseline: String, current: String, _ options: Options) throws -> Int32 {
    func load(_ pathOrName: String) throws -> BenchmarkRun {
      let path = FileManager.default.fileExists(atPath: pathOrName) ? pathOrName : baselinePath(pathOrName)
      guard let data = FileManager.default.contents(atPath: path) else {
        throw BenchError.io("cannot read \(pathOrName) (nor \(path))")
      }
      do { return try Report.decode(data) } catch {
        throw BenchError.io("\(path): not a hearth-bench result: \(error)")
      }
    }
    let thresholds: Gate.Thresholds
    do {
      guard let data = FileManager.default.contents(atPath: options.thresholds) else {
        throw BenchError.io("cannot read \(options.thresholds)")
      }
      thresholds = try JSONDecoder().decode(Gate.Thresholds.self, from: data)
    } catch let error as BenchError { throw error } catch {
      throw BenchError.io("\(options.thresholds): \(error)")
    }
    let (old, new) = (try load(baseline), try load(current))
    let rows = Gate.compare(baseline: old, current: new, thresholds: thresholds)
    let summary = Gate.markdown(rows, baseline: old, current: new)
    print(summary, terminator: "")
    if let path = options.markdown { try summary.write(toFile: path, atomically: true, encoding: .utf8) }
    return rows.contains { $0.status == .regression || $0.status == .failed } ? 1 : 0
  }

  /// The child side of `--metric instructions`: prepare, one untimed run
  /// and the check, then one run inside the counted region.
  static func measure(_ name: String, _ options: Options) throws -> Int32 {
    let context = BenchContext(
      reference: nil, scale: options.scale, long: options.long, datasetsDirectory: options.datasets)
    guard let benchmark = all(context).first(where: { $0.name == name }) else {
      throw BenchError.usage("no benchmark named \(name)")
    }
    let prepared = try benchmark.prepare(context)
    prepared.subject()
    if case .failed(let message) = prepared.verify() { throw BenchError.checkFailed(name, message) }
    InstructionCounter.region(prepared.subject)
    let line = InstructionCounter.ChildResult(items: prepared.itemCount, unit: benchmark.itemUnit)
    guard let out = options.out else {
      throw BenchError.usage("measure takes one benchmark NAME and --out FILE")
    }
    try JSONEncoder().encode(line).write(to: URL(fileURLWithPath: out))
    return 0
  }

  /// The instruction-set extensions this binary's C side was compiled for.
  static func cpuFeatures() -> [String] {
    let bits = hearth_compiled_cpu_features()
    let names: [(Int32, String)] = [(1, "sse4.1"), (2, "avx"), (4, "avx2"), (8, "fma"), (16, "avx512f")]
    let present = names.filter { bits & $0.0 != 0 }.map(\.1)
    return present.isEmpty ? ["sse2"] : present
  }

  static func commitDescription() -> String {
    guard let (status, hash) = try? Shell.run("git", ["rev-parse", "--short", "HEAD"]), status == 0 else {
      return "unknown"
    }
    let dirty =
      (try? Shell.run("git", ["status", "--porcelain", "--untracked-files=no"]))
      .map { !$0.1.isEmpty } ?? false
    return hash.trimmingCharacters(in: .whitespacesAndNewlines) + (dirty ? "+dirty" : "")
  }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
