import Foundation
import _HearthBenchSupport

/// Instruction counts under valgrind's callgrind: exact and repeatable on a
/// shared, noisy machine where wall time is not (hardware counters are not
/// available here). Each benchmark runs in a child process,
/// `valgrind --tool=callgrind --collect-atstart=no
/// --toggle-collect=hearth_measured_region hearth-bench measure NAME …`, so
/// only the subject's run inside the C region is counted — not preparing
/// inputs, not the warm-up run, not valgrind's start-up.
enum InstructionCounter {
  struct ChildResult: Codable {
    var items: Int
    var unit: String
  }

  /// Runs `body` inside the counted region.
  static func region(_ body: () -> Void) {
    withoutActuallyEscaping(body) { escapable in
      var closure = escapable
      withUnsafeMutablePointer(to: &closure) { pointer in
        hearth_measured_region(
          { context in context!.assumingMemoryBound(to: (() -> Void).self).pointee() },
          UnsafeMutableRawPointer(pointer))
      }
    }
  }

  /// The instructions callgrind counted: its `totals:` line (the collected
  /// events; the first is Ir), or `summary:` in older formats.
  static func totals(_ callgrindOutput: String) -> UInt64? {
    for prefix in ["totals:", "summary:"] {
      if let line = callgrindOutput.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }),
        let first = line.dropFirst(prefix.count).split(separator: " ").first, let value = UInt64(first)
      {
        return value
      }
    }
    return nil
  }

  /// Measures one benchmark in a child under callgrind.
  static func result(_ benchmark: Benchmark, options: BenchCommand.Options) throws -> BenchmarkResult {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-\(getpid())")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let callgrindFile = folder + "/callgrind.out"
    let childFile = folder + "/child.json"
    let executable = BenchContext.currentExecutable
    // Dictionary and Set iteration orders are seeded per process unless this
    // is set; with it, the same binary on the same input repeats exactly.
    setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
    setenv("OPENBLAS_NUM_THREADS", "1", 1)
    let (status, output) = try Shell.run(
      "valgrind",
      [
        "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=hearth_measured_region",
        "--callgrind-out-file=\(callgrindFile)", executable, "measure", benchmark.name, "--out", childFile,
        "--scale", String(options.scale), "--datasets", options.datasets,
      ])
    guard status == 0, let text = try? String(contentsOfFile: callgrindFile, encoding: .utf8),
      let instructions = totals(text), let data = FileManager.default.contents(atPath: childFile),
      let child = try? JSONDecoder().decode(ChildResult.self, from: data), child.items > 0
    else {
      throw BenchError.io(
        "\(benchmark.name): callgrind run failed (status \(status)); is valgrind installed?\n\(output.suffix(2_000))"
      )
    }
    return BenchmarkResult(
      name: benchmark.name, unit: "instructions/\(child.unit)",
      value: Double(instructions) / Double(child.items),
      referenceValue: nil, ratio: nil, targetRatio: nil, spread: 0, itemCount: child.items, repetitions: 1,
      check: "callgrind: \(instructions) instructions in the measured run")
  }
}
