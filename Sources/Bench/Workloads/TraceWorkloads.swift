import Foundation
import HearthGeo
import HearthSim
import HearthTrace

/// Trace parsing and loading, side by side with pandas and numpy on the same
/// files (Scripts/peers/peers.py, pinned versions).
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
        "CSVStream.read of every column (time as Int64, the rest as Double) vs pandas.read_csv(engine=\"c\")",
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
          externalReference: { try Peers.seconds("pandas-csv", path) },
          verify: {
            parsedRows == rows && checksum.isFinite
              ? .passed("\(parsedRows) rows, none rejected") : .failed("parsed \(parsedRows) of \(rows) rows")
          },
          bytesPerRun: bytes)
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
