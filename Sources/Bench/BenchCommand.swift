import Foundation
import HearthTrace
import _HearthShims

/// Command-line entry: parses arguments, runs benchmarks or merges results.
enum BenchCommand {
  static let usage = """
    usage: hearth-bench [run] [options]      run the benchmarks, print the table
           hearth-bench report NATIVE.json [PORTABLE.json]
                                             print one run, or two side by side
           hearth-bench list                 list benchmark names
           hearth-bench stream-csv FILE      stream a CSV (every column as a number),
                                             print rows kept/rejected (memory check)

    options:
      --filter TEXT         only benchmarks whose name contains TEXT (repeatable)
      --json PATH           also write the results as JSON
      --repetitions N       timed repetitions per benchmark (default 5)
      --scale X             workload size factor (default 1; CI smoke runs use less)
      --datasets DIR        real datasets folder (default ../shared/datasets)
      --reference-source F  the C reference source (default: next to the sources)
      --cc COMPILER         C compiler for the reference (default: $CC or gcc)
      --build-label TEXT    how this binary was built, recorded in the results
    exit status: 0 ok, 1 a result check failed, 2 usage error or debug build
    """

  struct Options: Equatable {
    var filters: [String] = []
    var jsonPath: String?
    var repetitions = 5
    var scale = 1.0
    var datasets = "../shared/datasets"
    var referenceSource: String?
    var compiler = ProcessInfo.processInfo.environment["CC"] ?? "gcc"
    var buildLabel = ""
  }

  enum Command: Equatable {
    case run(Options)
    case list(Options)
    case report([String])
    case streamCSV(String)
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
    if verb == "report" {
      guard (1...2).contains(rest.count) else { throw BenchError.usage("report takes one or two JSON files") }
      return .report(Array(rest))
    }
    guard verb == "run" || verb == "list" else { throw BenchError.usage("unknown command '\(verb)'") }
    var options = Options()
    while let flag = rest.popFirst() {
      if flag == "--help" || flag == "-h" { return .help }
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
      default: throw BenchError.usage("unknown option \(flag)")
      }
    }
    return verb == "list" ? .list(options) : .run(options)
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
      case .list(let options):
        let context = BenchContext(reference: nil, scale: options.scale, datasetsDirectory: options.datasets)
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

  static func selected(_ options: Options, _ context: BenchContext) -> [Benchmark] {
    let all =
      GeoWorkloads.all(context) + FenceWorkloads.all(context) + TraceWorkloads.all(context)
      + TrackingWorkloads.all(context) + ImpactWorkloads.all(context) + SimWorkloads.all(context)
    guard !options.filters.isEmpty else { return all }
    return all.filter { benchmark in options.filters.contains { benchmark.name.contains($0) } }
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
        reference: reference, scale: options.scale, datasetsDirectory: options.datasets)
      let runner = Runner(repetitions: options.repetitions, isNativeBuild: isNative) { printError($0) }
      var results: [BenchmarkResult] = []
      for benchmark in selected(options, context) {
        printError("running \(benchmark.name) …")
        results.append(try runner.run(benchmark, context: context))
      }
      let run = BenchmarkRun(
        date: ISO8601DateFormatter().string(from: Date()),
        commit: commitDescription(),
        machine: .current(),
        build: BuildInfo(
          kind: isNative ? "native" : "portable", label: options.buildLabel, cpuFeatures: features,
          cReference: referenceNote, cCompiler: compilerVersion),
        results: results)
      print(Report.table(run))
      if let path = options.jsonPath {
        try Report.encode(run).write(to: URL(fileURLWithPath: path))
        printError("wrote \(path)")
      }
      return 0
    #endif
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
