import Foundation
import Testing
import _HearthTestSupport

@testable import HearthCommand

@Suite("hearth geo replay")
struct ReplayCommandTests {
  @Test("a generated day replayed against its places: JSON Lines and GeoJSON with every kind of output")
  func generatedDay() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let replay = run([
      "geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson"), "--geojson",
      folder.path("r.geojson"),
    ])
    #expect(replay.code == 0, "\(replay.err)")
    var types: [String: Int] = [:]
    for line in replay.out.split(separator: "\n") {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
      types[object["type"] as? String ?? "?", default: 0] += 1
      #expect(object["timeMilliseconds"] is NSNumber && object["value"] is [String: Any])
    }
    // Seed 3: four trips between three places, over the limit twice.
    #expect(types["trip"] == 4, "\(types)")
    #expect((types["geofence"] ?? 0) >= 10 && (types["speedAlert"] ?? 0) >= 1 && types["suddenStop"] != nil)
    #expect(
      replay.err.contains("replayed 332 fixes") && replay.err.contains("11 duplicates"), "\(replay.err)")
    let geojson = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path("r.geojson"))))
        as? [String: Any])
    let kinds = (geojson["features"] as? [[String: Any]] ?? []).compactMap {
      ($0["properties"] as? [String: Any])?["kind"] as? String
    }
    #expect(kinds.filter { $0 == "place" }.count == 3 && kinds.contains("track") && kinds.contains("trip"))
    #expect(kinds.contains("arrival") && kinds.contains("departure") && kinds.contains("speedAlert"))
    // The same input gives the same output.
    let again = run(["geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson")])
    #expect(again.out == replay.out)
  }

  @Test("no limit, no alerts; a real drive with no places has no geofence events")
  func limitsAndRealDrive() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let off = run([
      "geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson"), "--limit-kmh",
      "0",
    ])
    #expect(off.code == 0 && !off.out.contains("\"speedAlert\""))
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let drive = TestPaths.sharedDatasets.path + "/mems-nav-drives/raw/2023-08-04_214758"
    let real = run(["geo", "replay", drive, "--places", folder.path("none.geojson")])
    #expect(
      real.code == 0 && !real.out.contains("\"geofence\"") && real.out.contains("\"trip\""), "\(real.err)")
  }

  @Test("bad places files and arguments give exit 3 and 2 with the feature and field named")
  func badInput() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let trace = folder.path("d/trace")
    try
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":100}},{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{}}]}"#
      .write(toFile: folder.path("bad.geojson"), atomically: true, encoding: .utf8)
    let bad = run(["geo", "replay", trace, "--places", folder.path("bad.geojson")])
    #expect(bad.code == 3 && bad.err.contains("bad.geojson:2 (radiusMeters)"), "\(bad.err)")
    #expect(run(["geo", "replay", trace, "--places", folder.path("missing.geojson")]).code == 3)
    #expect(run(["geo", "replay", trace]).code == 2)
    #expect(run(["geo", "replay", trace, "--places", folder.path("bad.geojson"), "--batch", "0"]).code == 2)
  }

  @Test("the built executable: version, exit codes and stderr")
  func executable() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("hearth")
    // `swift build --build-tests` builds every product next to the test bundle.
    let path =
      FileManager.default.fileExists(atPath: binary.path)
      ? binary.path
      : URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("hearth").path
    #expect(FileManager.default.isExecutableFile(atPath: path), "no hearth binary at \(path)")
    func launch(_ words: [String]) throws -> (Int32, String, String) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: path)
      process.arguments = words
      let out = Pipe()
      let err = Pipe()
      process.standardOutput = out
      process.standardError = err
      try process.run()
      let o = out.fileHandleForReading.readDataToEndOfFile()
      let e = err.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (
        process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self)
      )
    }
    let version = try launch(["--version"])
    #expect(version.0 == 0 && version.1.hasPrefix("hearth "))
    let usage = try launch(["geo", "replay"])
    #expect(usage.0 == 2 && usage.1.isEmpty && usage.2.contains("geo replay needs one PATH"))
    let drop = TestPaths.sharedDatasets.path + "/phone-drop-freefall/raw_data/fall_1"
    let detect = try launch(["impact", "detect", drop, "--format", "json"])
    #expect(detect.0 == 0, "\(detect.2)")
    let missing = try launch(["data", "inspect", "/nonexistent/x.gpx"])
    #expect(missing.0 == 3 && missing.2.contains("/nonexistent/x.gpx"))
  }
}
