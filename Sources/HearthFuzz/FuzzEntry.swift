// hearth-fuzz: one binary, two modes (h3's dual-mode harness).
//
// Replay (default build): `hearth-fuzz <target> <file or folder>...` runs the
// target on every input and exits 0 when all pass.
// libFuzzer (built by Scripts/fuzz with -sanitize=fuzzer and
// -DHEARTH_LIBFUZZER): `hearth-fuzz <target> [libFuzzer flags] corpus/`
// hands the target to libFuzzer's driver.

import Foundation
import _HearthFuzzing

#if HEARTH_LIBFUZZER
  /// libFuzzer's entry for programs with their own main (compiler-rt FuzzerDriver).
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  /// The target chosen on the command line (set once, before the driver starts).
  nonisolated(unsafe) var selectedTarget = FuzzTarget.csv

  /// libFuzzer's own main() (linked in by -sanitize=fuzzer, not used: ours
  /// runs the driver) still needs this callback to exist.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
  }
#endif

@main
struct FuzzMain {
  /// Where the target's name travels to the processes libFuzzer's fork and
  /// merge modes start (they get our argv without it).
  static let targetVariable = "HEARTH_FUZZ_TARGET"

  static func main() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let target: FuzzTarget
    if let name = arguments.first, let named = FuzzTarget(rawValue: name) {
      target = named
      arguments.removeFirst()
    } else if let name = ProcessInfo.processInfo.environment[targetVariable],
      let named = FuzzTarget(rawValue: name)
    {
      target = named
    } else {
      print(
        "usage: hearth-fuzz <\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))> <inputs or libFuzzer flags>..."
      )
      exit(2)
    }
    #if HEARTH_LIBFUZZER
      selectedTarget = target
      setenv(targetVariable, target.rawValue, 1)
      // libFuzzer sees argv without the target name.
      var argv: [UnsafeMutablePointer<CChar>?] = [strdup(CommandLine.arguments[0])]
      argv += arguments.map { strdup($0) }
      argv.append(nil)
      var argc = Int32(argv.count - 1)
      let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return runFuzzerDriver(&argc, &pointer) { data, size in
          selectedTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
          return 0
        }
      }
      exit(status)
    #else
      var count = 0
      for path in arguments {
        for file in files(at: path) {
          guard let data = FileManager.default.contents(atPath: file) else { continue }
          target.run(Array(data))
          count += 1
        }
      }
      print("hearth-fuzz: \(target.rawValue): \(count) inputs replayed, no failure")
    #endif
  }

  static func files(at path: String) -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
    guard isDirectory.boolValue else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.sorted().map { (path as NSString).appendingPathComponent($0) }
  }
}
