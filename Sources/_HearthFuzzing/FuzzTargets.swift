// Fuzz targets for every HearthTrace reader. Not API: used by the hearth-fuzz
// executable (libFuzzer or corpus replay) and by the corpus-replay tests.
//
// Each target feeds arbitrary bytes to one reader and checks the invariants
// that must hold for any input: no trap, and every row read is either kept
// or rejected. A violated invariant stops the process (libFuzzer records it).

import Foundation
import HearthGeo
import HearthTrace

public enum FuzzTarget: String, CaseIterable, Sendable {
  case csv, sensorLogger, phyphox, gpx, npy, traj, mapping

  /// Runs the target on one input. Reader errors (TraceError) are expected
  /// outcomes for bad input; anything else is a failure.
  public func run(_ bytes: [UInt8]) {
    let scratch = FuzzScratch.shared
    switch self {
    case .csv:
      let path = scratch.write("input.csv", bytes)
      var kept = 0
      let report = try? CSVStream.read(
        path: path, options: ReadOptions(maximumLineBytes: 4096), batchRows: 7,
        select: { header, _ in
          header.indices.map {
            CSVColumnRequest(index: $0, kind: [.number, .integer, .text][$0 % 3])
          }
        },
        body: { batch in
          precondition(batch.numbers.allSatisfy { $0.count == batch.count }, "ragged batch")
          kept += batch.count
        })
      if let report {
        precondition(report.reconciles, "rows read \(report.rowsRead) ≠ kept + rejected")
        precondition(report.rowsKept == kept, "report and batches disagree")
      }
    case .sensorLogger:
      let folder = scratch.folder("sensor-logger")
      _ = scratch.write("sensor-logger/Location.csv", bytes)
      _ = scratch.write("sensor-logger/Gyroscope.csv", bytes)
      if let (trace, report) = try? SensorLoggerReader.read(folder: folder) {
        precondition(report.reconciles, "Sensor Logger report does not reconcile")
        check(trace)
      }
    case .phyphox:
      let path = scratch.write("phyphox/Raw Data.csv", bytes)
      if let (trace, report) = try? PhyphoxReader.read(path: path) {
        precondition(report.reconciles, "phyphox report does not reconcile")
        check(trace)
      }
    case .gpx:
      if let (trace, report) = try? GPX.read(bytes: bytes, name: "input.gpx") {
        precondition(report.reconciles, "GPX report does not reconcile")
        check(trace)
      }
    case .npy:
      let path = scratch.write("input.npy", bytes)
      if let array = try? NPYArray.read(path: path) {
        precondition(array.doubles.count == array.count, "element count")
        _ = array.int64s
        if array.matrixShape.columns > 0 { _ = array.column(0) }
      }
    case .traj:
      let path = scratch.write("input.traj", bytes)
      if let (trajectories, report) = try? TracktableReader.read(path: path) {
        precondition(report.reconciles, "tracktable report does not reconcile")
        for t in trajectories { precondition(isSorted(t.fixes.timeMilliseconds), "unsorted trajectory") }
      }
    case .mapping:
      let path = scratch.write("mapping/mapping.json", bytes)
      _ = scratch.write("mapping/a.csv", Array("t,x,y,z\n0,1,2,3\n1,4,5,6\n".utf8))
      if let mapping = try? ColumnMapping.load(path: path),
        let (trace, report) = try? mapping.read(folder: scratch.folder("mapping"))
      {
        precondition(report.reconciles, "mapping report does not reconcile")
        check(trace)
      }
    }
  }

  private func check(_ trace: Trace) {
    precondition(isSorted(trace.fixes.timeMilliseconds), "fixes not sorted")
    for stream in [trace.accelerometer?.samples, trace.gyroscope, trace.gravity].compactMap({ $0 }) {
      precondition(stream.x.count == stream.count && stream.z.count == stream.count, "ragged stream")
    }
  }

  private func isSorted<T: Comparable>(_ values: [T]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
  }
}

/// A per-process scratch folder the targets write their inputs to.
final class FuzzScratch: @unchecked Sendable {
  // Only touched from one thread at a time (libFuzzer and the tests run
  // targets sequentially within a process).
  static let shared = FuzzScratch()
  let root: String

  private init() {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-fuzz-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  func folder(_ name: String) -> String {
    let path = (root as NSString).appendingPathComponent(name)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  func write(_ name: String, _ bytes: [UInt8]) -> String {
    let path = (root as NSString).appendingPathComponent(name)
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return path
  }
}
