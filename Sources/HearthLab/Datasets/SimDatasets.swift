import Foundation
import HearthSim
import HearthTrace

/// The project's generated datasets, as listed in datasets/sim/manifest.json:
/// what each set is (kind, seed, parameters), where it lives (committed in
/// the repository, generated on demand into a cache, or streamed and never
/// stored), and the command that makes it.
public struct SimSet: Sendable, Hashable, Codable {
  public enum Kind: String, Sendable, Hashable, Codable {
    /// One scenario variant (`scenario`, `seed`).
    case scenario
    /// One location day (`seed`).
    case day
    /// Every catalogue scenario over seeds 1…`seeds`.
    case catalogue
    /// A drive mix of `hours` (streamed by its consumers).
    case mix
  }

  public enum Storage: String, Sendable, Hashable, Codable {
    case committed, cache, stream
  }

  public var name: String
  public var kind: Kind
  public var storage: Storage
  public var seed: UInt64
  public var scenario: String?
  public var seeds: Int?
  public var hours: Double?
  public var eventsPerHour: Double?
  /// What the labels hold, in words.
  public var labels: String
  /// Bytes on disk once generated (0 for streamed sets).
  public var sizeBytes: Int
  /// The command that generates it.
  public var command: String
}

public enum SimDatasets {
  /// Reads the manifest.
  /// - Throws: `TraceError.io` / `.malformed` when it cannot be read.
  public static func manifest(at path: String) throws -> [SimSet] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TraceError.io(path: path, reason: "cannot read the manifest")
    }
    do {
      return try JSONDecoder().decode([SimSet].self, from: data)
    } catch {
      throw TraceError.malformed(SourceLocation(file: path, line: 0), reason: "not a set manifest: \(error)")
    }
  }

  /// Generates `set` under `folder` and returns the files written (relative).
  /// A mix writes one trace folder per drive and `events.jsonl`; prefer
  /// streaming it with `DriveMix` for long mixes.
  /// - Throws: `TraceError` on a write failure or an unknown scenario.
  @discardableResult
  public static func materialize(_ set: SimSet, into folder: String) throws -> [String] {
    switch set.kind {
    case .scenario:
      guard let id = set.scenario, let scenario = ScenarioCatalogue.scenario(id) else {
        throw TraceError.malformed(
          SourceLocation(file: set.name, line: 0), reason: "unknown scenario \(set.scenario ?? "-")")
      }
      return try SimOutput.write(scenario.generate(seed: set.seed), to: folder)
    case .day:
      return try SimOutput.write(DayGenerator.generate(seed: set.seed), to: folder)
    case .catalogue:
      var files: [String] = []
      for scenario in ScenarioCatalogue.all {
        for seed in 1...UInt64(max(1, set.seeds ?? 1)) {
          let sub = "\(scenario.id)/seed-\(seed)"
          files += try SimOutput.write(scenario.generate(seed: seed), to: folder + "/" + sub).map {
            sub + "/" + $0
          }
        }
      }
      return files
    case .mix:
      var mix = DriveMix(
        seed: set.seed, options: .init(hours: set.hours ?? 1, eventsPerHour: set.eventsPerHour ?? 6))
      return try SimOutput.writeMix(&mix, to: folder)
    }
  }
}

extension SimOutput {
  /// A mix: `folder/drive-NNNNN/trace/` per drive and `folder/events.jsonl`
  /// (one injected event per line, times since the mix began).
  public static func writeMix(_ mix: inout DriveMix, to folder: String) throws -> [String] {
    var files: [String] = []
    var lines = ""
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    while let drive = mix.next() {
      let name = "drive-" + String(drive.index + 100_000).dropFirst()
      let (trace, _) = DriveSimulator.record(plan: drive.plan, seed: drive.seed)
      try TraceFolder.write(trace, to: folder + "/" + name + "/trace")
      files.append(name + "/trace/")
      for event in drive.events {
        lines += String(decoding: try encoder.encode(event), as: UTF8.self) + "\n"
      }
    }
    do {
      try Data(lines.utf8).write(to: URL(fileURLWithPath: folder + "/events.jsonl"))
    } catch {
      throw TraceError.io(path: folder + "/events.jsonl", reason: error.localizedDescription)
    }
    return files + ["events.jsonl"]
  }
}
