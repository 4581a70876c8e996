import Foundation
import HearthGeo
import HearthImpact
import HearthLab
import HearthSim
import HearthTrace

/// The Python package over libhearth (python/, cffi in ABI mode) side by side
/// with the native Swift call and with numpy, in one run: the subject is the
/// Swift call, the reference the same work through Python
/// (Scripts/peers/abi.py; libhearth from Scripts/build-libhearth). A ratio
/// near 1 against `hearth` means the boundary costs nothing; the issue's
/// targets: the Python call within 1.2× of Swift at 10⁵ pairs (ratio ≥ 0.83),
/// and through Python still faster than numpy at 10³ (compare the `hearth`
/// and `numpy` rows' reference times).
enum PythonWorkloads {
  static func all(_ context: BenchContext) -> [Benchmark] {
    [1_000, 100_000].flatMap { n in
      ["hearth-haversine", "numpy-haversine"].map { haversine(n, peer: $0) }
    } + [0.25, 0].map { detector(minutes: max(1, 10 * context.scale), batchSeconds: $0) }
      + [1, 2].map { distributedSweep(hours: max(1, 4 * context.scale), workers: $0) }
  }

  /// The sweep's extraction pass and merge: Swift in one process (every task
  /// in turn on one thread, then the merge) against hearth.distributed.sweep
  /// on a LocalCluster of `workers` single-threaded workers
  /// (Scripts/peers/cluster_sweep.py bench; the cluster's start-up not timed),
  /// on the plan of `hours` of generated driving and one seed per catalogue
  /// scenario. A ratio near 1 at one worker is the scheduling's cost; at two,
  /// the cluster's gain on this machine's two cores.
  static func distributedSweep(hours: Double, workers: Int) -> Benchmark {
    let label = String(format: "%.0fh", hours)
    return Benchmark(
      name: "Python/distributed/sweep-\(label)-\(workers)-worker\(workers == 1 ? "" : "s")", itemCount: 1,
      itemUnit: "sweep",
      targets: .none,
      note:
        "ImpactSweep.extract per task + assemble (Swift, one thread) vs hearth.distributed.sweep on \(workers) Dask worker\(workers == 1 ? "" : "s") (\(label) of generated driving, jolt 3.5/4/5 g × spin 3/3.5 rad/s)",
      referenceName: "dask-\(workers)",
      prepare: { _ in
        var grid = ImpactSweep.Grid()
        grid.joltG = [3.5, 4, 5]
        grid.spinRadiansPerSecond = [3, 3.5]
        let tasks = ImpactSweep.tasks(seeds: 1...1, hours: hours)
        var rows = 0
        return PreparedBenchmark(
          itemCount: 1,
          subject: {
            let traces = tasks.map { ImpactSweep.extract($0, grid: grid) }
            rows = ImpactSweep.assemble(traces, grid: grid, seeds: 1...1).rows.count
          },
          reference: nil,
          externalReference: {
            try seconds("bench", String(hours), String(workers), script: "cluster_sweep.py")
          },
          verify: {
            rows == 6
              ? .passed("\(tasks.count) tasks, \(rows) combinations") : .failed("\(rows) combinations")
          })
      })
  }

  static func haversine(_ count: Int, peer: String) -> Benchmark {
    Benchmark(
      name: "Python/haversine/\(peer)-\(TraceWorkloads.label(count))", itemCount: count, itemUnit: "pair",
      targets: .none,
      note:
        "GreatCircle.distancesMeters (Swift) vs \(peer == "hearth-haversine" ? "hearth.haversine through Python and libhearth" : "numpy's haversine") on \(count) city pairs",
      referenceName: peer == "hearth-haversine" ? "python-hearth" : "numpy",
      prepare: { context in
        try PeerWorkloads.pairs(context, count, seeds: (31, 32), file: "abi-pairs-\(count).npy") {
          try seconds(peer, $0)
        }
      })
  }

  /// The detector over the accelerometer of generated driving: Swift's
  /// `ImpactDetector` against `hearth.Detector.feed`, in 250 ms batches as a
  /// phone delivers them (the per-call cost shows) or in one call per drive
  /// (`batchSeconds` 0: the throughput).
  static func detector(minutes: Double, batchSeconds: Double) -> Benchmark {
    let label = String(format: "%.0fmin", minutes)
    let cut = batchSeconds > 0 ? "batches-\(Int(batchSeconds * 1000))ms" : "one-call"
    return Benchmark(
      name: "Python/detector/hearth-drive-\(label)-\(cut)", itemCount: Int(minutes * 3_000),
      itemUnit: "sample",
      targets: .none,
      note:
        "ImpactDetector.process (Swift) vs hearth.Detector.feed through Python, \(batchSeconds > 0 ? "per \(Int(batchSeconds * 1000)) ms batch" : "the whole drive in one call") (accelerometer of \(label) of generated driving)",
      referenceName: "python-hearth",
      prepare: { context in
        var samples: [Double] = []
        var mix = DriveMix(seed: 7, options: .init(hours: minutes / 60, eventsPerHour: 6, crashesPerHour: 0))
        while let drive = mix.next() {
          var simulator = drive.simulator()
          while let batch = simulator.nextBatch() {
            let a = batch.impactBatch(originMilliseconds: 0).accelerometer
            for s in a { samples += [s.seconds, s.x, s.y, s.z] }
          }
        }
        let n = samples.count / 4
        let path = try PeerWorkloads.file(context, "abi-drive-\(label).npy")
        try NPYArray.write(samples, shape: [n, 4], to: path)
        // The same 250 ms cuts as the Python side (numpy.searchsorted on a 0.25 s grid).
        var batches: [ImpactBatch] = []
        var start = 0
        let origin = n > 0 ? samples[0] : 0
        var edge = batchSeconds > 0 ? origin + batchSeconds : .infinity
        while start < n {
          var end = start
          while end < n && samples[4 * end] < edge { end += 1 }
          batches.append(
            ImpactBatch(
              accelerometer: (start..<end).map {
                Sample3(samples[4 * $0], samples[4 * $0 + 1], samples[4 * $0 + 2], samples[4 * $0 + 3])
              },
              vehicleGate: true))
          start = end
          edge += batchSeconds
        }
        var verdicts = 0
        return PreparedBenchmark(
          itemCount: n,
          subject: {
            var detector = ImpactDetector()
            verdicts = 0
            for batch in batches { verdicts += detector.process(batch).count }
            verdicts += detector.finish().count
          },
          reference: nil, externalReference: { try seconds("hearth-detector", path, String(batchSeconds)) },
          verify: { .passed("\(n) samples, \(verdicts) verdicts") })
      })
  }

  static func seconds(_ operation: String, _ arguments: String..., script name: String = "abi.py") throws
    -> Double
  {
    let script = BenchContext.repositoryRoot + "/Scripts/peers/" + name
    let (status, output) = try Shell.run("python3", [script, operation] + arguments)
    // The last line that starts with a number: a Dask cluster may log after the result.
    let timed = output.split(separator: "\n").reversed().lazy.compactMap {
      $0.split(separator: " ").first.flatMap { Double($0) }
    }.first
    guard status == 0, let seconds = timed
    else { throw BenchError.io("\(operation) through Python failed: \(output.suffix(500))") }
    return seconds
  }
}
