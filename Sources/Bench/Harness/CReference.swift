import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The benchmark's C reference loops (Reference/reference.c), compiled on the
/// fly for this machine and loaded with dlopen.
///
/// Built at run time rather than as a package target so that gcc, whose
/// -ffast-math vectorises sin, cos and asin through glibc's libmvec, builds
/// it: clang (the toolchain SwiftPM uses for C targets) leaves asin scalar and
/// measured 1.8× slower on the globe workload.
struct CReference {
  typealias PairsFunction =
    @convention(c) (
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?,
      UnsafePointer<Double>?, UnsafeMutablePointer<Double>?, Int64
    ) -> Void
  typealias OneToManyFunction =
    @convention(c) (
      Double, Double, UnsafePointer<Double>?, UnsafePointer<Double>?,
      UnsafeMutablePointer<Double>?, Int64
    ) -> Void
  typealias TrackFunction =
    @convention(c) (
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafeMutablePointer<Double>?,
      UnsafeMutablePointer<Double>?, Int64
    ) -> Void
  typealias GridFunction =
    @convention(c) (
      UnsafePointer<Double>?, UnsafePointer<Double>?, Int64, Double, Double, Double,
      UnsafePointer<Double>?, UnsafeMutablePointer<Int64>?, UnsafeMutablePointer<Double>?,
      UnsafeMutablePointer<Double>?
    ) -> Void

  typealias FenceFunction =
    @convention(c) (
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, Int64,
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, Int64,
      UnsafeMutablePointer<Int32>?
    ) -> Void

  typealias ImpactFunction =
    @convention(c) (
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, Int64,
      UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, Int64,
      UnsafePointer<Double>?, Int64, Double, Double, Double, Double,
      UnsafeMutablePointer<Double>?, Int64, UnsafeMutablePointer<Int64>?, UnsafeMutablePointer<Int64>?,
      UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?
    ) -> Int64

  let haversinePairs: PairsFunction
  let haversineOneToMany: OneToManyFunction
  let trackDistances: TrackFunction
  let gridSnap: GridFunction
  let geofenceAllPairs: FenceFunction
  let impactFeatures: ImpactFunction
  /// The compile command, for the results file.
  let command: String
  /// `cc --version`, first line.
  let compilerVersion: String

  /// The source file next to this one in the checkout.
  static var defaultSourcePath: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Reference/reference.c").path
  }

  /// Compiles `sourcePath` into a temporary shared library and loads it.
  static func build(sourcePath: String, compiler: String) throws -> CReference {
    guard FileManager.default.fileExists(atPath: sourcePath) else {
      throw BenchError.io("C reference source not found at \(sourcePath) (pass --reference-source)")
    }
    // One name per build: tests build the reference concurrently in one
    // process, and a per-process name let one build unlink another's object
    // before it was linked (a flaky "cannot find ….so.o").
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-bench-reference-\(getpid())-\(UUID().uuidString).so").path
    // Compile with -ffast-math but link without it: linking with it adds
    // gcc's crtfastmath, whose constructor turns on flush-to-zero and
    // denormals-are-zero for the whole process at dlopen, silently changing
    // how the Swift code under test (and every test after it) computes.
    let object = output + ".o"
    let arguments = ["-O3", "-march=native", "-ffast-math", "-fPIC", "-c", "-o", object, sourcePath]
    let (status, log) = try Shell.run(compiler, arguments)
    defer { unlink(object) }
    guard status == 0 else {
      throw BenchError.io("compiling the C reference failed (\(compiler)):\n\(log)")
    }
    let (linkStatus, linkLog) = try Shell.run(compiler, ["-shared", "-o", output, object, "-lm"])
    guard linkStatus == 0 else {
      throw BenchError.io("linking the C reference failed (\(compiler)):\n\(linkLog)")
    }
    defer { unlink(output) }
    guard let handle = dlopen(output, RTLD_NOW | RTLD_LOCAL) else {
      throw BenchError.io("dlopen \(output): \(String(cString: dlerror()))")
    }
    func symbol<T>(_ name: String, as type: T.Type) throws -> T {
      guard let pointer = dlsym(handle, name) else {
        throw BenchError.io("C reference lacks \(name)")
      }
      return unsafeBitCast(pointer, to: type)
    }
    let version =
      (try? Shell.run(compiler, ["--version"]).1)?
      .split(separator: "\n").first.map(String.init) ?? "unknown"
    return CReference(
      haversinePairs: try symbol("ref_haversine_pairs", as: PairsFunction.self),
      haversineOneToMany: try symbol("ref_haversine_one_to_many", as: OneToManyFunction.self),
      trackDistances: try symbol("ref_track_distances", as: TrackFunction.self),
      gridSnap: try symbol("ref_grid_snap", as: GridFunction.self),
      geofenceAllPairs: try symbol("ref_geofence_all_pairs", as: FenceFunction.self),
      impactFeatures: try symbol("ref_impact_features", as: ImpactFunction.self),
      command: ([compiler] + arguments.filter { $0 != object && $0 != "-o" } + ["&& link -shared -lm"])
        .joined(separator: " "),
      compilerVersion: version)
  }
}

/// Runs a program and collects its combined output.
enum Shell {
  static func run(_ program: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
