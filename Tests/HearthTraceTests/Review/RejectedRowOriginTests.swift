import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// review26 F6: a row rejected as out of order still set a mapped file's
/// time origin (a last row dated 1900 made the origin 1900-01-01, written
/// into trace.json, and every stream's span read from it).
@Suite("A mapped file's time origin comes from rows that are kept")
struct RejectedRowOriginTests {
  static let mapping = """
    {"name": "m", "files": [{"file": "d.csv", "time": {"column": "t", "format": "epoch-milliseconds"},
      "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"}}}]}
    """

  func read(_ rows: [String]) throws -> (Trace, ImportReport) {
    let folder = TemporaryFolder()
    folder.write("d.csv", (["t,lat,lon"] + rows).joined(separator: "\n") + "\n")
    folder.write("mapping.json", Self.mapping)
    return try TraceImport.read(path: folder.path, mappingPath: folder.path("mapping.json"))
  }

  @Test(
    "a last row 60 s + 1 ms behind is rejected and sets no origin; one 60 s behind is kept and does")
  func lateRowSetsNoOrigin() throws {
    let start: Int64 = 1_690_891_200_000
    let rows = (0..<30).map { "\(start + Int64($0) * 1_000),40.0,-75.0" }
    let newest = start + 29_000  // a row 60 s behind it is before the first
    for (behind, kept) in [(Int64(60_001), false), (60_000, true), (newest - -2_208_988_800_000, false)] {
      let (trace, report) = try read(rows + ["\(newest - behind),40.0,-75.0"])
      let rejected = report.files.map(\.rowsRejected).max() ?? 0
      #expect(rejected == (kept ? 0 : 1), "\(behind) ms behind: \(rejected) rejected")
      #expect(trace.fixes.count == (kept ? 31 : 30))
      #expect(
        trace.metadata.timeOriginMilliseconds == (kept ? newest - behind : start),
        "\(behind) ms behind: origin \(String(describing: trace.metadata.timeOriginMilliseconds))")
    }
  }
}
