import Foundation

/// The Python peers (Scripts/peers/peers.py, versions pinned in
/// requirements.txt and installed by pip on first use), run outside this
/// process: each call runs one operation once and returns the seconds the
/// script measured itself (loading inputs and a warm-up run excluded).
enum Peers {
  static let script = BenchContext.repositoryRoot + "/Scripts/peers/peers.py"

  /// - Parameter expectedCount: when given, the count the peer printed must
  ///   equal it (rows read, say), else the run fails.
  static func seconds(_ operation: String, _ paths: String..., expectedCount: Int? = nil) throws -> Double {
    let (status, output) = try Shell.run("python3", [script, operation] + paths)
    let fields = output.split(separator: "\n").last?.split(separator: " ") ?? []
    guard status == 0, let seconds = fields.first.flatMap({ Double($0) }) else {
      throw BenchError.io("\(operation) peer failed: \(output.suffix(500))")
    }
    if let expectedCount, fields.count < 2 || Int(fields[1]) != expectedCount {
      throw BenchError.io(
        "\(operation) peer counted \(fields.dropFirst().first ?? "nothing"), not \(expectedCount)")
    }
    return seconds
  }
}
