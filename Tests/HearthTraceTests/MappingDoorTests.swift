import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// A column mapping is read strictly (issue 29.9, 29.11): an unknown key is
/// an error naming it and the nearest known key; a quantity with no unit is
/// an error unless the mapping says its quantities are in SI; the fixes of a
/// file that also maps sensors follow the repeated-fix rule.
@Suite("Column mappings: unknown keys, missing units and mixed files refused or read right")
struct MappingDoorTests {
  /// A folder with `gps.csv` (36 in the speed column) and `mapping.json`.
  static func folder(mapping: String) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write("gps.csv", "t,lat,lon,v\n2024-05-01T10:00:00Z,48,2,36\n2024-05-01T10:00:01Z,48.0001,2,36\n")
    folder.write("mapping.json", mapping)
    return folder
  }

  static func read(_ folder: TemporaryFolder) throws -> (Trace, ImportReport) {
    try TraceImport.read(path: folder.path, mappingPath: folder.path("mapping.json"))
  }

  static func reason(_ folder: TemporaryFolder) -> String { thrownText { _ = try read(folder) } }

  static func gps(speed: String, top: String = "") -> String {
    """
    {"name": "m", \(top)"files": [{"file": "gps.csv", "time": {"column": "t", "format": "iso8601"},
      "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"},
                "speed": \(speed)}}]}
    """
  }

  @Test(
    "an unknown key anywhere in a mapping is an error naming it, where it is, and the nearest known key",
    arguments: [
      (gps(speed: #"{"column": "v", "unti": "km/h"}"#), "files[0].fixes.speed: unknown key 'unti'", "'unit'"),
      (
        gps(speed: #"{"column": "v", "unit": "km/h"}"#, top: #""unit": "SI", "#), "unknown key 'unit'",
        "'units'"
      ),
      (
        gps(speed: #"{"column": "v", "unit": "km/h"}"#).replacingOccurrences(
          of: "\"format\"", with: "\"formt\""),
        "files[0].time: unknown key 'formt'", "'format'"
      ),
      (
        gps(speed: #"{"column": "v", "unit": "km/h"}"#).replacingOccurrences(
          of: "\"fixes\"", with: "\"fix\""),
        "files[0]: unknown key 'fix'", "'fixes'"
      ),
    ])
  func unknownKeyIsNamedWithTheNearest(mapping: String, named: String, nearest: String) {
    let why = Self.reason(Self.folder(mapping: mapping))
    #expect(why.contains(named) && why.contains("nearest known: \(nearest)"), "\(why)")
  }

  @Test("the nearest known key: fewest edits ignoring case, then the longest shared start, then sorted order")
  func nearestKey() {
    #expect(JSONKeys.nearest(to: "unti", among: ["column", "unit"]) == "unit")
    #expect(JSONKeys.nearest(to: "fix", among: ["file", "fixes", "time"]) == "fixes")
    #expect(JSONKeys.nearest(to: "FORMAT", among: ["format", "date"]) == "format")
    #expect(JSONKeys.nearest(to: "zz", among: ["ab", "ac"]) == "ab")
    #expect(JSONKeys.nearest(to: "x", among: []) == nil)
    #expect(JSONKeys.editDistance(Array("kitten"), Array("sitting")) == 3)
    // A hostile key is compared by its first 80 characters only, and shown shortened.
    let long = String(repeating: "u", count: 1_000_000)
    #expect(JSONKeys.unknown(long, known: ["unit"]).count < 300)
  }

  @Test("a speed mapped with its unit is converted: 36 km/h is 10 m/s")
  func unitGivenIsConverted() throws {
    let (trace, _) = try Self.read(Self.folder(mapping: Self.gps(speed: #"{"column": "v", "unit": "km/h"}"#)))
    #expect(trace.fixes.speedMetersPerSecond.map { $0 ?? .nan } == [10, 10])
  }

  @Test(
    "a quantity with no unit is refused naming the file, column and field; \"units\": \"SI\" reads it in SI")
  func missingUnitNeedsSI() throws {
    let why = Self.reason(Self.folder(mapping: Self.gps(speed: #"{"column": "v"}"#)))
    #expect(why.contains("gps.csv:1 (v)") && why.contains("fixes.speed has no \"unit\""), "\(why)")
    #expect(why.contains(#""units": "SI""#), "\(why)")
    let si = Self.folder(mapping: Self.gps(speed: #"{"column": "v"}"#, top: #""units": "SI", "#))
    #expect(try Self.read(si).0.fixes.speedMetersPerSecond.map { $0 ?? .nan } == [36, 36])
    let other = Self.reason(
      Self.folder(mapping: Self.gps(speed: #"{"column": "v"}"#, top: #""units": "metric", "#)))
    #expect(other.contains("units: 'metric': the only value is \"SI\""), "\(other)")
  }

  @Test("a scalar with no unit is read as written (a scalar has no quantity to convert)")
  func scalarWithoutUnit() throws {
    let folder = TemporaryFolder()
    folder.write("a.csv", "t,n\n0,3\n1,4\n")
    folder.write(
      "mapping.json",
      #"{"name": "m", "files": [{"file": "a.csv", "time": {"column": "t", "format": "relative-seconds"}, "scalars": {"count": {"column": "n"}}}]}"#
    )
    #expect(try Self.read(folder).0.scalars["count"]?.values == [3, 4])
  }

  @Test("the shipped mappings read strictly: no unknown key, every quantity with its unit")
  func shippedMappingsAreValid() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("datasets/mappings")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.hasSuffix(".json")
    }
    #expect(names.count == 2)
    for name in names {
      let mapping = try ColumnMapping.load(path: folder.appendingPathComponent(name).path)
      #expect(mapping.units == nil)
      try mapping.checkUnits()
    }
  }

  @Test(
    "a file mapping sensors and fixes keeps each fix once: 100 sensor rows repeating 20 fixes give 20 fixes")
  func mixedFileFixesFollowTheRepeatedFixRule() throws {
    let folder = TemporaryFolder()
    var rows = "t,ax,ay,az,lat,lon,fix_ms\n"
    for i in 0..<100 {
      // 10 Hz sensor rows carrying the last of 2 Hz fixes: each fix written 5 times.
      let fix = i / 5
      rows +=
        "\(1_714_557_600 + Double(i) / 10),0,0,\(9.8 + Double(i % 3) * 0.01),\(48 + Double(fix) * 1e-4),2,\(fix)\n"
    }
    folder.write("imu.csv", rows)
    folder.write(
      "mapping.json",
      """
      {"name": "m", "files": [{"file": "imu.csv", "time": {"column": "t", "format": "epoch-seconds"},
        "accelerometer": {"x": {"column": "ax", "unit": "m/s^2"}, "y": {"column": "ay", "unit": "m/s^2"},
                          "z": {"column": "az", "unit": "m/s^2"}},
        "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"}}}]}
      """)
    let (trace, report) = try Self.read(folder)
    #expect(trace.accelerometer?.samples.count == 100)
    #expect(trace.fixes.count == 20, "\(trace.fixes.count) fixes")
    #expect(report.files.contains { $0.rejectedByReason[.duplicate] == 80 }, "\(report.files)")
    // Streamed alike.
    let stream = try TraceImport.stream(path: folder.path, mappingPath: folder.path("mapping.json"))
    var fixes = 0
    let streamed = try stream.forEachChunk(samples: 7) { fixes += $0.trace.fixes.count }
    #expect(fixes == 20 && streamed == report)
  }
}
