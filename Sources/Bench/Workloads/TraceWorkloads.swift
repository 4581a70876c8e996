import Foundation
import HearthGeo
import HearthLab
import HearthRuntime
import HearthSim
import HearthTrace

#if canImport(Glibc)
  import Glibc
#endif

/// Trace parsing and loading, side by side with pandas, pyarrow and numpy on
/// the same files (Scripts/peers/peers.py, pinned versions).
enum TraceWorkloads {
  /// Issue target: CSV parsing at least 2× pandas.read_csv (ratio ≤ 0.5).
  static let csvTargets = RatioTargets(native: 0.5, portable: 0.5)
  /// .npy loading at memory speed: no slower than numpy.load.
  static let npyTargets = RatioTargets(native: 1.0, portable: 1.0)

  static func all(_ context: BenchContext) -> [Benchmark] {
    let locationRows = context.scaled(2_000_000)
    let accelerometerRows = context.scaled(4_000_000)
    let npyCount = context.scaled(20_000_000)
    return [
      csv(
        "Trace/csvParse/location-\(label(locationRows))", rows: locationRows,
        file: "location-\(locationRows).csv",
        generate: writeLocationCSV),
      csv(
        "Trace/csvParse/accelerometer-\(label(accelerometerRows))", rows: accelerometerRows,
        file: "accelerometer-\(accelerometerRows).csv", generate: writeAccelerometerCSV),
      npy("Trace/npyLoad/f8-\(label(npyCount))", count: npyCount),
      streamRecording(context),
    ]
  }

  static func label(_ n: Int) -> String { n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : "\(n)" }

  // MARK: CSV

  private static func csv(
    _ name: String, rows: Int, file: String, generate: @escaping (String, Int) throws -> Void
  ) -> Benchmark {
    Benchmark(
      name: name, itemCount: rows, itemUnit: "row", targets: csvTargets,
      note:
        "CSVStream.read of every column (time as Int64, the rest as Double) vs pandas.read_csv(engine=\"c\"); beside it pyarrow.csv.read_csv on one thread with the same column types",
      referenceName: "pandas",
      prepare: { context in
        let path = try cachedFile(context, file) { try generate($0, rows) }
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        var parsedRows = 0
        var checksum = 0.0
        return PreparedBenchmark(
          itemCount: rows,
          subject: {
            parsedRows = 0
            checksum = 0
            _ = try? CSVStream.read(
              path: path,
              select: { header, _ in
                header.indices.map { CSVColumnRequest(index: $0, kind: $0 == 0 ? .integer : .number) }
              },
              body: { batch in
                parsedRows += batch.count
                checksum += batch.numbers.last?.last ?? 0
              })
          },
          reference: nil,
          externalReference: { try Peers.seconds("pandas-csv", path, expectedCount: rows) },
          verify: {
            parsedRows == rows && checksum.isFinite
              ? .passed("\(parsedRows) rows, none rejected") : .failed("parsed \(parsedRows) of \(rows) rows")
          },
          bytesPerRun: bytes,
          peers: [
            PeerReference(name: "pyarrow-1-thread") {
              try Peers.seconds("pyarrow-csv", path, expectedCount: rows)
            }
          ])
      })
  }

  /// Writes `rows` Sensor Logger Location.csv rows (Android layout, values
  /// printed as their shortest round-trip decimals, 15–17 digits like the app).
  static func writeLocationCSV(_ path: String, _ rows: Int) throws {
    var generator = SeededGenerator(seed: 41)
    var writer = try ChunkedWriter(path: path)
    writer.append(
      "time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n"
    )
    var latitude = 40.1046933
    var longitude = -75.2952132
    for i in 0..<rows {
      latitude += generator.nextDouble(in: -1e-4, 1e-4)
      longitude += generator.nextDouble(in: -1e-4, 1e-4)
      writer.append(
        "\(1_691_185_677_581_023_000 + Int64(i) * 1_000_000_000),\(Double(i) * 1.000000001 - 0.99497705078125),"
          + "\(generator.nextDouble(in: 0, 20)),\(generator.nextDouble(in: 0, 2)),\(generator.nextDouble(in: 1, 10)),"
          + "\(generator.nextDouble(in: 2, 30)),\(generator.nextDouble(in: 0, 35)),\(generator.nextDouble(in: 0, 360)),"
          + "\(generator.nextDouble(in: -10, 400)),\(longitude),\(latitude)\n")
    }
    try writer.finish()
  }

  /// Writes `rows` Sensor Logger Accelerometer.csv rows (100 Hz, z, y, x).
  static func writeAccelerometerCSV(_ path: String, _ rows: Int) throws {
    var generator = SeededGenerator(seed: 42)
    var writer = try ChunkedWriter(path: path)
    writer.append("time,seconds_elapsed,z,y,x\n")
    for i in 0..<rows {
      writer.append(
        "\(1_691_185_677_581_023_000 + Int64(i) * 10_000_000),\(Double(i) * 0.01 - 0.5),"
          + "\(generator.nextDouble(in: -2, 2)),\(generator.nextDouble(in: -2, 2)),\(generator.nextDouble(in: -2, 2))\n"
      )
    }
    try writer.finish()
  }

  // MARK: NPY

  private static func npy(_ name: String, count: Int) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "value", targets: npyTargets,
      note: "NPYArray.read into memory vs numpy.load (both read the whole array; the check sums it untimed)",
      referenceName: "numpy",
      prepare: { context in
        let path = try cachedFile(context, "f8-\(count).npy") { path in
          var generator = SeededGenerator(seed: 43)
          try NPYArray.write((0..<count).map { _ in generator.nextUnit() }, to: path)
        }
        let bytes = count * 8
        var loaded: NPYArray?
        return PreparedBenchmark(
          itemCount: count,
          subject: {
            loaded = nil  // free the previous copy first, as numpy's loop does
            loaded = try? NPYArray.read(path: path, mapThresholdBytes: .max)
          },
          reference: nil,
          externalReference: { try Peers.seconds("numpy-load", path) },
          verify: {
            let sum = loaded?.withDoubles { $0.reduce(0, +) } ?? 0
            return sum > 0.4 * Double(count) && sum < 0.6 * Double(count)
              ? .passed("sum of \(count) uniform values ≈ n/2") : .failed("sum \(sum)")
          },
          bytesPerRun: bytes)
      })
  }

  // MARK: Streaming a recording in bounded memory

  /// Peak RSS goal of issue 16 for `data inspect` and `impact detect` of a 1 GB recording.
  static let rssGoalMegabytes = 64.0

  /// Accelerometer rows of the streamed export at scale 1: 1 M (143 MB of
  /// CSV, past the goal's 100 MB floor) by default, 12 M (1.7 GB) with
  /// `--long`.
  static func streamRows(long: Bool) -> Int { long ? 12_000_000 : 1_000_000 }

  /// Streams a generated Sensor Logger export (`streamRows`) the way `hearth
  /// data inspect` and `hearth impact detect` do, each in a child process
  /// (`hearth-bench stream-recording`) that reports its own peak resident
  /// memory (`ChildMemory`). The export is written at run time to a
  /// temporary folder and deleted once measured (or once the check failed).
  /// One timed repetition: the memory is the check, the time is context.
  private static func streamRecording(_ context: BenchContext) -> Benchmark {
    let rows = context.scaled(streamRows(long: context.long))
    let name = "Trace/streamRecording/sensor-logger-\(label(rows))-rows"
    return Benchmark(
      name: name, itemCount: rows, itemUnit: "row", targets: .none,
      note:
        "TraceImport.stream of a generated Sensor Logger export (100 Hz accelerometer, 50 Hz gyroscope, 5 Hz barometer, 1 Hz fixes) through TraceSummary and ImpactReplay, each in a child process; peakRSS metrics in MiB, each child's own (goal < 64 MiB once the export passes 100 MB)",
      referenceName: "none", maxRepetitions: 1,
      prepare: { context in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
          "hearth-bench-stream-\(getpid())-\(UUID().uuidString)"
        ).path
        let bytes: Int
        do { bytes = try writeSensorLoggerExport(folder, rows: rows) } catch {
          try? FileManager.default.removeItem(atPath: folder)
          throw error
        }
        var peaks: [String: Double] = [:]
        var failure: String?
        func measure(_ mode: String) {
          do {
            let child = try ChildMemory.run(
              context.executable, ["stream-recording", mode, folder, "\(rows)"],
              environment: ProcessInfo.processInfo.environment)
            if child.status != 0 { failure = "the \(mode) child exited with \(child.status)" }
            peaks[mode] = max(peaks[mode] ?? 0, Double(child.peakKibibytes) / 1024)
          } catch {
            failure = "\(error)"
          }
        }
        return PreparedBenchmark(
          itemCount: rows,
          subject: {
            measure("inspect")
            measure("detect")
          },
          reference: nil,
          verify: {
            var verdict = Verification.failed(failure ?? "")
            if failure == nil {
              let inspect = peaks["inspect"] ?? .infinity
              let detect = peaks["detect"] ?? .infinity
              let summary = String(
                format: "%.0f MB of CSV: data inspect peak RSS %.1f MiB, impact detect %.1f MiB",
                Double(bytes) / 1e6, inspect, detect)
              verdict =
                max(inspect, detect) < rssGoalMegabytes || bytes < 100_000_000
                ? .passed(summary) : .failed(summary + " (goal < \(Int(rssGoalMegabytes)) MiB)")
            }
            // Nothing more runs after a failed check: the export goes now.
            if case .failed = verdict { try? FileManager.default.removeItem(atPath: folder) }
            return verdict
          },
          bytesPerRun: 2 * bytes,
          metrics: {
            try? FileManager.default.removeItem(atPath: folder)
            return [
              "peakRSSMegabytesInspect": peaks["inspect"] ?? .nan,
              "peakRSSMegabytesDetect": peaks["detect"] ?? .nan,
              "recordingMegabytes": Double(bytes) / 1e6,
            ]
          })
      })
  }

  /// The child's side (`hearth-bench stream-recording MODE FOLDER ROWS`):
  /// streams the export in `folder` once, through `TraceSummary` (`inspect`,
  /// as `hearth data inspect`) or `ImpactReplay` (`detect`, as `hearth impact
  /// detect`), and returns the accelerometer rows it counted.
  static func streamOnce(mode: String, folder: String) throws -> Int {
    let stream = try TraceImport.stream(path: folder)
    if mode == "inspect" {
      var summary = TraceSummary(metadata: stream.metadata)
      _ = try stream.forEachChunk { summary.add($0) }
      return summary.streams.first { $0.name.hasPrefix("accelerometer") }?.count ?? 0
    }
    let replay = try ImpactReplay.run(stream, path: folder, gate: .on)
    return replay.report.file(endingWith: "TotalAcceleration.csv")?.rowsKept ?? 0
  }

  /// A Sensor Logger export of `rows` accelerometer rows at 100 Hz, half as
  /// many gyroscope rows, 5 Hz barometer and 1 Hz fixes. Returns its bytes.
  static func writeSensorLoggerExport(_ folder: String, rows: Int) throws -> Int {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try
      "version,device name,recording epoch time,platform,standardisation\n3,HearthBench,1700000000000,android,false\n"
      .write(toFile: folder + "/Metadata.csv", atomically: true, encoding: .utf8)
    var generator = SeededGenerator(seed: 44)
    func write(
      _ file: String, header: String, rows n: Int, every step: Int,
      _ values: (inout SeededGenerator) -> String
    )
      throws
    {
      var writer = try ChunkedWriter(path: folder + "/" + file)
      writer.append(header + "\n")
      for i in 0..<n {
        let ns = 1_700_000_000_000_000_000 + Int64(i) * Int64(step)
        writer.append("\(ns),\(Double(i) * Double(step) * 1e-9),\(values(&generator))\n")
      }
      try writer.finish()
    }
    try write("TotalAcceleration.csv", header: "time,seconds_elapsed,z,y,x", rows: rows, every: 10_000_000) {
      g in
      "\(9.81 + g.nextDouble(in: -0.3, 0.3)),\(g.nextDouble(in: -0.5, 0.5)),\(g.nextDouble(in: -0.5, 0.5))"
    }
    try write("Gyroscope.csv", header: "time,seconds_elapsed,z,y,x", rows: rows / 2, every: 20_000_000) { g in
      "\(g.nextDouble(in: -0.2, 0.2)),\(g.nextDouble(in: -0.2, 0.2)),\(g.nextDouble(in: -0.2, 0.2))"
    }
    try write(
      "Barometer.csv", header: "time,seconds_elapsed,relativeAltitude,pressure", rows: rows / 20,
      every: 200_000_000
    ) {
      g in "\(g.nextDouble(in: -1, 1)),\(1000 + g.nextDouble(in: -0.5, 0.5))"
    }
    try write(
      "Location.csv",
      header: "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude",
      rows: rows / 100, every: 1_000_000_000
    ) { g in
      "\(g.nextDouble(in: 3, 10)),\(g.nextDouble(in: 10, 30)),90,100,\(-75 + g.nextDouble(in: 0, 0.1)),40.1"
    }
    return try FileManager.default.contentsOfDirectory(atPath: folder).reduce(0) {
      $0 + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int) ?? 0)
    }
  }

  // MARK: Files

  /// The generated file `name` in the cache, made by `generate` when absent.
  static func cachedFile(_ context: BenchContext, _ name: String, generate: (String) throws -> Void) throws
    -> String
  {
    try FileManager.default.createDirectory(atPath: context.dataCache, withIntermediateDirectories: true)
    let path = context.dataCache + "/" + name
    if !FileManager.default.fileExists(atPath: path) {
      let partial = path + ".partial"
      try generate(partial)
      try FileManager.default.moveItem(atPath: partial, toPath: path)
    }
    return path
  }
}

/// Appends text to a file through a 4 MiB buffer.
struct ChunkedWriter {
  let handle: FileHandle
  var buffer: [UInt8] = []

  init(path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let handle = FileHandle(forWritingAtPath: path)
    else {
      throw BenchError.io("cannot create \(path)")
    }
    self.handle = handle
    buffer.reserveCapacity(4 << 20)
  }

  mutating func append(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= 4 << 20 { flush() }
  }

  mutating func flush() {
    handle.write(Data(buffer))
    buffer.removeAll(keepingCapacity: true)
  }

  mutating func finish() throws {
    flush()
    try handle.close()
  }
}
