import Foundation

/// The Python peers (Scripts/peers/peers.py, versions pinned in
/// requirements.txt and installed by pip on first use), run outside this
/// process: each call runs one operation once and returns the seconds the
/// script measured itself (loading inputs and a warm-up run excluded).
enum Peers {
  static let script = BenchContext.repositoryRoot + "/Scripts/peers/peers.py"

  static func seconds(_ operation: String, _ paths: String...) throws -> Double {
    let (status, output) = try Shell.run("python3", [script, operation] + paths)
    guard status == 0,
      let seconds = output.split(separator: "\n").last?.split(separator: " ").first.flatMap({ Double($0) })
    else {
      throw BenchError.io("\(operation) peer failed: \(output.suffix(500))")
    }
    return seconds
  }
}
