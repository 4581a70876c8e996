import Foundation
import Testing
import _HearthFuzzing
import _HearthTestSupport

/// CI's half of the dual-mode fuzz harness: every corpus and regression
/// input of every reader, replayed through the same target libFuzzer runs
/// (Tests/Fuzz/README.md). A failure stops the process, naming the invariant.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
  static let root = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fuzz")

  /// Serialized: the targets share one scratch folder (``FuzzScratch``),
  /// which is not safe to use from two threads; the test runner runs the
  /// cases of a parameterized test in parallel otherwise (a data race on the
  /// scratch's folder set crashed a CI run, 2026-12-07).
  @Test("every corpus and regression input passes its target", .serialized, arguments: FuzzTarget.allCases)
  func replay(target: FuzzTarget) throws {
    var inputs = 0
    for kind in ["Corpus", "Regressions"] {
      let folder = Self.root.appendingPathComponent("\(kind)/\(target.rawValue)")
      for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        target.run(Array(data))
        inputs += 1
      }
    }
    #expect(inputs > 0, "\(target.rawValue) has no corpus")
  }
}
