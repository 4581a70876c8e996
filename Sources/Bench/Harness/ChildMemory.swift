import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Peak resident memory of a child process, its own pages only (issue 27).
///
/// `wait4` and `getrusage` cannot give it on Linux: at `execve` the kernel
/// folds the high-water mark of the address space being left into the
/// process's `ru_maxrss`, and a child started by `posix_spawn` (glibc:
/// `clone(CLONE_VM | CLONE_VFORK)`) leaves its parent's address space there;
/// a child forked from it, or a shell that `exec`s, carries the same mark on.
/// Nor can the parent read `VmHWM` after `waitid(WNOWAIT)`: a zombie has
/// released its address space and /proc no longer shows one. So the child
/// reports itself: started with `reportVariable` naming a file, hearth-bench
/// writes its `VmHWM` there as it exits — the high-water mark of the address
/// space `execve` gave it, which holds no page of the parent's.
enum ChildMemory {
  /// What one child run gave: its exit status and its peak resident set.
  struct Measured: Equatable {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    /// The child's own peak resident set since its `execve`, KiB.
    var peakKibibytes: Int
  }

  /// The environment variable naming the file a hearth-bench child writes
  /// its peak to (KiB, one decimal line) as it exits.
  static let reportVariable = "HEARTH_BENCH_PEAK_REPORT"

  /// Runs hearth-bench `executable` with `arguments` (argv[1...]) and
  /// `environment`, waits for it, and returns its exit status and the peak
  /// resident set it reported. Throws when it could not start or reported
  /// nothing (it crashed, or it is not hearth-bench).
  static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws
    -> Measured
  {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hearth-bench-peak-\(getpid())-\(UUID().uuidString).txt"
    ).path
    defer { try? FileManager.default.removeItem(atPath: report) }
    var environment = environment
    environment[reportVariable] = report
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, nil, nil, argv, envp)
    guard spawned == 0 else {
      throw BenchError.io("posix_spawn \(executable): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    guard let text = try? String(contentsOfFile: report, encoding: .utf8),
      let kibibytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      throw BenchError.io(
        "\(executable) \(arguments.first ?? ""): no peak memory reported (exit status \(exited))")
    }
    return Measured(status: exited, peakKibibytes: kibibytes)
  }

  /// This process's peak resident set since its `execve`, KiB: `VmHWM` in
  /// /proc/self/status. Nil where /proc does not show it.
  static func ownPeakKibibytes() -> Int? {
    guard let data = FileManager.default.contents(atPath: "/proc/self/status") else { return nil }
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
      return line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
        .flatMap { Int($0) }
    }
    return nil
  }

  /// When this process was started with `reportVariable` set, makes it
  /// write its own peak there as it exits (`exit`, or returning from main).
  static func reportAtExitIfAsked() {
    guard getenv(reportVariable) != nil else { return }
    atexit {
      guard let path = getenv(ChildMemory.reportVariable).map({ String(cString: $0) }),
        let kibibytes = ChildMemory.ownPeakKibibytes()
      else { return }
      try? "\(kibibytes)\n".write(toFile: path, atomically: false, encoding: .utf8)
    }
  }

  /// `hearth-bench touch-memory MIB`: allocates `mebibytes` MiB, writes one
  /// byte in every 4 KiB page, frees it, and returns the sum of the bytes
  /// read back (so the writes cannot be optimised away). A known amount for
  /// checking the measurement above.
  static func touch(mebibytes: Int) -> Int {
    let bytes = mebibytes << 20
    guard bytes > 0 else { return 0 }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
    defer { buffer.deallocate() }
    for offset in stride(from: 0, to: bytes, by: 4096) {
      buffer.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
    }
    var sum = 0
    for offset in stride(from: 0, to: bytes, by: 4096) {
      sum += Int(buffer.load(fromByteOffset: offset, as: UInt8.self))
    }
    return sum
  }
}
