import Foundation
import Testing
import _HearthTestSupport

import HearthSim
@testable import HearthLab

/// The committed samples are regenerated here and compared byte for byte:
/// the same seed gives the same files on this machine as on the one that
/// committed them.
@Suite("Generated datasets")
struct DatasetTests {
  static let folder = TestPaths.projectDatasets.appendingPathComponent("sim")

  func files(under root: String) -> [String: Data] {
    var out: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      let full = root + "/" + relative
      if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
        out[relative] = FileManager.default.contents(atPath: full)
      }
    }
    return out
  }

  @Test("committed sets regenerate byte for byte, with the size the manifest states")
  func committed() throws {
    let sets = try SimDatasets.manifest(at: Self.folder.appendingPathComponent("manifest.json").path)
    #expect(Set(sets.map(\.name)).count == sets.count)
    let committed = sets.filter { $0.storage == .committed }
    #expect(committed.count >= 2)
    for set in committed {
      let stored = files(under: Self.folder.appendingPathComponent(set.name).path)
      let scratch = TemporaryFolder()
      try SimDatasets.materialize(set, into: scratch.path(set.name))
      let fresh = files(under: scratch.path(set.name))
      #expect(stored.keys.sorted() == fresh.keys.sorted(), "\(set.name)")
      for (name, data) in stored { #expect(fresh[name] == data, "\(set.name)/\(name) differs") }
      #expect(stored.values.reduce(0) { $0 + $1.count } == set.sizeBytes, "\(set.name)")
    }
    // Streamed sets are never written; cached ones name their size.
    #expect(sets.allSatisfy { $0.storage == .stream ? $0.sizeBytes == 0 : $0.sizeBytes > 0 })
  }

  @Test("generating on several threads at once gives the same output as one at a time")
  func threads() {
    let jobs = ScenarioCatalogue.all.prefix(8).map { ($0, UInt64(3)) }
    let serial = jobs.map { $0.0.generate(seed: $0.1).batches }
    let results = ResultBox(count: jobs.count)
    DispatchQueue.concurrentPerform(iterations: jobs.count) { i in
      results.set(i, jobs[i].0.generate(seed: jobs[i].1).batches)
    }
    #expect(results.values == serial)
    let days = (1...4).map { DayGenerator.generate(seed: UInt64($0)).uploads }
    let dayBox = DayBox(count: 4)
    DispatchQueue.concurrentPerform(iterations: 4) {
      dayBox.set($0, DayGenerator.generate(seed: UInt64($0 + 1)).uploads)
    }
    #expect(dayBox.values == days)
  }
}

/// Lock-protected slots for results computed on several threads.
final class Slots<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [T?]
  init(count: Int) { storage = Array(repeating: nil, count: count) }
  func set(_ i: Int, _ value: T) { lock.withLock { storage[i] = value } }
  var values: [T] { lock.withLock { storage.map { $0! } } }
}
typealias ResultBox = Slots<[SensorBatch]>
typealias DayBox = Slots<[Upload]>
