// swift-tools-version: 6.2
//
// Hearth geo & sensor analytics.
//
// Dependency rule (see docs/architecture.md): targets depend only on targets
// listed above them in this file.
//   C shims and system libraries → pure maths → I/O → executables.
// Nothing outside the Swift toolchain and Debian's C libraries is used.

import PackageDescription

let package = Package(
  name: "Hearth",
  products: [
    .library(name: "HearthGeo", targets: ["HearthGeo"]),
    .library(name: "HearthLinearAlgebra", targets: ["HearthLinearAlgebra"]),
    .library(name: "HearthTrace", targets: ["HearthTrace"]),
    .library(name: "HearthSim", targets: ["HearthSim"]),
    .library(name: "HearthImpact", targets: ["HearthImpact"]),
    .executable(name: "hearth", targets: ["HearthCommand"]),
    .executable(name: "hearth-bench", targets: ["Bench"]),
    .executable(name: "hearth-fuzz", targets: ["HearthFuzz"]),
  ],
  targets: [
    // MARK: C bindings (not API)

    /// Header-only helpers for what Swift cannot say: a square root without
    /// errno, an unchecked float-to-integer conversion.
    .target(name: "_HearthShims"),
    .systemLibrary(
      name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
    .systemLibrary(
      name: "CLAPACKE", pkgConfig: "lapacke", providers: [.apt(["liblapacke-dev"])]),

    // MARK: Pure maths (public API, no I/O)

    .target(name: "HearthLinearAlgebra", dependencies: ["CBLAS", "CLAPACKE"]),
    .target(name: "HearthGeo", dependencies: ["_HearthShims"]),
    .target(name: "HearthImpact"),

    // MARK: I/O (the only layer that throws on data)

    .target(name: "HearthTrace", dependencies: ["HearthGeo"]),
    .target(
      name: "HearthSim", dependencies: ["HearthGeo", "HearthTrace", "HearthImpact", "HearthLinearAlgebra"]),

    // MARK: Executables

    /// hearth: the command researchers and operators run on their files.
    .executableTarget(
      name: "HearthCommand", dependencies: ["HearthGeo", "HearthTrace", "HearthSim", "HearthImpact"]),

    /// Benchmark-only C: the heap allocation counter (replaces malloc in the
    /// executables that link it) and the region callgrind counts.
    .target(name: "_HearthBenchSupport"),

    /// hearth-bench. Reference/reference.c is the benchmark-only C reference,
    /// compiled at run time with the system compiler (see CReference.swift).
    .executableTarget(
      name: "Bench",
      dependencies: [
        "HearthGeo", "HearthTrace", "HearthSim", "HearthImpact", "HearthLinearAlgebra", "_HearthShims",
        "_HearthBenchSupport",
      ],
      exclude: ["Reference"]
    ),

    /// Fuzz targets for the readers (not API) and the dual-mode harness.
    .target(name: "_HearthFuzzing", dependencies: ["HearthTrace"]),
    .executableTarget(name: "HearthFuzz", dependencies: ["_HearthFuzzing"]),

    // MARK: Tests

    .target(name: "_HearthTestSupport", dependencies: ["HearthGeo"], path: "Tests/_HearthTestSupport"),
    .testTarget(name: "HearthGeoTests", dependencies: ["HearthGeo", "_HearthTestSupport"]),
    .testTarget(name: "HearthLinearAlgebraTests", dependencies: ["HearthLinearAlgebra"]),
    .testTarget(
      name: "HearthTraceTests", dependencies: ["HearthTrace", "_HearthFuzzing", "_HearthTestSupport"]),
    .testTarget(name: "HearthSimTests", dependencies: ["HearthSim", "_HearthTestSupport"]),
    .testTarget(
      name: "HearthImpactTests", dependencies: ["HearthImpact", "HearthSim", "_HearthTestSupport"]),
    .testTarget(
      name: "HearthCommandTests", dependencies: ["HearthCommand", "HearthSim", "_HearthTestSupport"]),
    .testTarget(name: "BenchTests", dependencies: ["Bench", "_HearthTestSupport"]),
  ]
)
