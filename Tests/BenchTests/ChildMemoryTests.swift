import Foundation
import Testing

@testable import Bench

/// The streaming benchmark's memory check reads its children's peak resident
/// set (issue 27): the figure must be the child's own, whatever the process
/// that started it has touched.
@Suite("a child process's peak memory")
struct ChildMemoryTests {
  /// The hearth-bench executable `swift build --build-tests` put next to the test bundle.
  static func benchExecutable() throws -> String {
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [folder, folder.deletingLastPathComponent()].map {
      $0.appendingPathComponent("hearth-bench").path
    }
    return try #require(
      candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "\(candidates)")
  }

  /// A child touching `mebibytes` MiB: its exit status and its peak in MiB.
  static func peak(touching mebibytes: Int) throws -> (Int32, Double) {
    let measured = try ChildMemory.run(
      try benchExecutable(), ["touch-memory", "\(mebibytes)"],
      environment: ProcessInfo.processInfo.environment)
    return (measured.status, Double(measured.peakKibibytes) / 1024)
  }

  @Test("a child touching 100 MiB reads 100 MiB above its idle peak (±10 %), the parent holding 0 or 400 MiB")
  func knownAmount() throws {
    let known = 100
    for held in [0, 400] {
      // The parent (this process) touches `held` MiB and keeps it until the children are measured.
      let bytes = held << 20
      let hold = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 4096)
      defer { hold.deallocate() }
      for offset in stride(from: 0, to: bytes, by: 4096) {
        hold.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
      }
      let (idleStatus, idle) = try Self.peak(touching: 0)
      let (status, loaded) = try Self.peak(touching: known)
      #expect(idleStatus == 0 && status == 0)
      #expect(loaded >= Double(known), "parent holds \(held) MiB: read \(loaded) MiB")
      #expect(
        abs(loaded - idle - Double(known)) <= 0.1 * Double(known),
        "parent holds \(held) MiB: idle child \(idle) MiB, child touching \(known) MiB read \(loaded) MiB")
      let touched = stride(from: 0, to: bytes, by: 4096).reduce(0) {
        $0 + Int(hold.load(fromByteOffset: $1, as: UInt8.self))
      }
      #expect(touched == bytes / 4096, "the parent's pages stayed touched")
    }
  }

  @Test(
    "the streaming benchmark's figures are its children's own peaks, the parent holding 400 MiB (default and --long)",
    arguments: [false, true])
  func streamingChildren(long: Bool) throws {
    let bytes = 400 << 20
    let hold = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
    defer { hold.deallocate() }
    for offset in stride(from: 0, to: bytes, by: 4096) {
      hold.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
    }
    var context = BenchContext(reference: nil, scale: 0.001, long: long, datasetsDirectory: "")
    context.executable = try Self.benchExecutable()
    let benchmark = try #require(
      TraceWorkloads.all(context).first { $0.name.hasPrefix("Trace/streamRecording/") })
    #expect(benchmark.itemCount == (long ? 12_000 : 1_000))
    let result = try Runner(repetitions: 3, isNativeBuild: false) { _ in }.run(benchmark, context: context)
    #expect(result.repetitions == 1, "timed once: the memory is the check")
    for key in ["peakRSSMegabytesInspect", "peakRSSMegabytesDetect"] {
      let peak = try #require(result.metrics?[key], "\(key)")
      // A Swift process's own pages (≈ 20–40 MiB here), far below the parent's 400 MiB.
      #expect(peak > 8 && peak < 128, "\(key) \(peak) MiB")
    }
  }

  /// Seen once: the two cases above, run in parallel, shared one export
  /// folder (named by the process id), and one deleted it under the other.
  @Test("two streaming checks prepared in one process keep their own exports")
  func separateExports() throws {
    var context = BenchContext(reference: nil, scale: 0.001, datasetsDirectory: "")
    context.executable = try Self.benchExecutable()
    let benchmark = try #require(
      TraceWorkloads.all(context).first { $0.name.hasPrefix("Trace/streamRecording/") })
    let first = try benchmark.prepare(context)
    let second = try benchmark.prepare(context)
    func passes(_ prepared: PreparedBenchmark) -> Bool {
      prepared.subject()
      let verdict = prepared.verify()
      _ = prepared.metrics?()  // removes the export
      if case .passed = verdict { return true }
      Issue.record("\(verdict)")
      return false
    }
    let firstPassed = passes(first)
    let secondPassed = passes(second)
    #expect(firstPassed && secondPassed)
  }
}
