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
    .library(name: "HearthImpact", targets: ["HearthImpact"]),
    .library(name: "HearthRuntime", targets: ["HearthRuntime"]),
    .library(name: "HearthSim", targets: ["HearthSim"]),
    .library(name: "HearthLab", targets: ["HearthLab"]),
    /// libhearth: the C ABI (include/hearth.h). Scripts/build-libhearth links
    /// it self-contained as libhearth.so (docs/guides/c-abi.md): the runtime,
    /// no simulator, no evaluation, no BLAS.
    .library(name: "HearthC", type: .dynamic, targets: ["HearthC"]),
    /// libhearth_lab: the whole ABI with the threshold sweep (its scenario
    /// catalogue, drive mixes and logistic model), linked as libhearth_lab.so
    /// beside libhearth.so.
    .library(name: "HearthCLab", type: .dynamic, targets: ["HearthCLab"]),
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
    .target(name: "HearthImpact", dependencies: ["_HearthShims"]),

    // MARK: I/O (the only layer that throws on data)

    .target(name: "HearthTrace", dependencies: ["HearthGeo"]),

    // MARK: Runtime (what a server or a tracker links)

    /// The engines put to work on real input, the same for every door: the
    /// one streaming feed from a recording (or columns) to the detector, the
    /// vehicle gate, the configuration file, verdict records and their
    /// text/JSON/CSV forms, the server schedule and its event lines. No
    /// simulator, no evaluation, no BLAS (docs/architecture.md).
    .target(name: "HearthRuntime", dependencies: ["HearthGeo", "HearthTrace", "HearthImpact"]),

    // MARK: Generators (pure and seeded; no I/O)

    /// Labelled synthetic traces: sensor drives with the scenario catalogue,
    /// days of fixes, drive mixes. Builds `Trace` values, never reads files.
    .target(name: "HearthSim", dependencies: ["HearthGeo", "HearthTrace"]),

    // MARK: Evaluation and tuning (reads datasets)

    /// The one bridge from recordings and generated traces to the engines,
    /// the evaluations, the threshold sweep and its report, calibration
    /// against real recordings, and the generated datasets on disk.
    .target(
      name: "HearthLab",
      dependencies: [
        "HearthGeo", "HearthTrace", "HearthImpact", "HearthRuntime", "HearthSim", "HearthLinearAlgebra",
      ]),

    // MARK: The C ABI (libhearth)

    /// include/hearth.h, the hand-written header, as a module: the Swift side
    /// writes the header's own structs and constants.
    .target(name: "CHearth", path: "include", publicHeadersPath: "."),
    /// The `@c` functions of hearth.h over the runtime; no policy of its own.
    .target(
      name: "HearthC", dependencies: ["CHearth", "HearthGeo", "HearthTrace", "HearthImpact", "HearthRuntime"]),
    /// The sweep's `@c` functions (hearth.h's sweep section) over HearthLab,
    /// on HearthC's handles: libhearth_lab.so is libhearth plus the sweep.
    .target(
      name: "HearthCLab",
      dependencies: ["CHearth", "HearthC", "HearthImpact", "HearthTrace", "HearthRuntime", "HearthLab"]),

    // MARK: Executables

    /// hearth: the command researchers and operators run on their files.
    .executableTarget(
      name: "HearthCommand",
      dependencies: ["HearthGeo", "HearthTrace", "HearthImpact", "HearthRuntime", "HearthSim", "HearthLab"]),

    /// Benchmark-only C: the heap allocation counter (replaces malloc in the
    /// executables that link it) and the region callgrind counts.
    .target(name: "_HearthBenchSupport"),

    /// hearth-bench. Reference/reference.c is the benchmark-only C reference,
    /// compiled at run time with the system compiler (see CReference.swift).
    .executableTarget(
      name: "Bench",
      dependencies: [
        "HearthGeo", "HearthTrace", "HearthImpact", "HearthRuntime", "HearthSim", "HearthLab",
        "HearthLinearAlgebra", "_HearthShims",
        "_HearthBenchSupport",
      ],
      exclude: ["Reference"]
    ),

    /// Fuzz targets for the readers (not API) and the dual-mode harness.
    .target(
      name: "_HearthFuzzing",
      dependencies: ["CHearth", "HearthC", "HearthGeo", "HearthImpact", "HearthTrace"]),
    .executableTarget(name: "HearthFuzz", dependencies: ["_HearthFuzzing"]),

    // MARK: Tests

    .target(
      name: "_HearthTestSupport", dependencies: ["HearthGeo", "HearthTrace"], path: "Tests/_HearthTestSupport"
    ),
    // HearthSim only for its seeded generator (random property-test inputs).
    .testTarget(name: "HearthGeoTests", dependencies: ["HearthGeo", "HearthSim", "_HearthTestSupport"]),
    .testTarget(name: "HearthLinearAlgebraTests", dependencies: ["HearthLinearAlgebra"]),
    .testTarget(
      name: "HearthTraceTests",
      dependencies: ["HearthTrace", "HearthSim", "_HearthFuzzing", "_HearthTestSupport"]),
    .testTarget(name: "HearthImpactTests", dependencies: ["HearthImpact"]),
    .testTarget(name: "HearthSimTests", dependencies: ["HearthSim", "_HearthTestSupport"]),
    // HearthSim for test input only (the scenario catalogue's drives).
    .testTarget(
      name: "HearthRuntimeTests", dependencies: ["HearthRuntime", "HearthSim", "_HearthTestSupport"]),
    .testTarget(name: "HearthLabTests", dependencies: ["HearthLab", "HearthRuntime", "_HearthTestSupport"]),
    .testTarget(
      name: "HearthCommandTests",
      dependencies: ["HearthCommand", "HearthLab", "HearthRuntime", "_HearthTestSupport"]),
    .testTarget(name: "BenchTests", dependencies: ["Bench", "_HearthTestSupport"]),
    // The C ABI called as a host calls it (libhearth's functions, linked in).
    .testTarget(name: "HearthCTests", dependencies: ["CHearth", "HearthC"]),
  ]
)
