import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Two columns of one name, and two ships of one device (issue 29.11): each
/// is refused by name, never resolved silently to the first.
@Suite("Duplicate column names and tracktable object ids are refused by name")
struct DuplicateColumnTests {
  @Test(
    "a mapped column whose name two header columns carry is refused naming both; an unused duplicate is harmless"
  )
  func mappedColumnNamedTwice() throws {
    let mapping = """
      {"name": "m", "files": [{"file": "gps.csv", "time": {"column": "t", "format": "iso8601"},
        "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"},
                  "speed": {"column": "v", "unit": "m/s"}}}]}
      """
    let twice = TemporaryFolder()
    twice.write("gps.csv", "t,lat,lon,v,v\n2024-05-01T10:00:00Z,48,2,3,30\n")
    twice.write("mapping.json", mapping)
    let why = thrownText {
      _ = try TraceImport.read(path: twice.path, mappingPath: twice.path("mapping.json"))
    }
    #expect(why.contains("gps.csv") && why.contains("columns 4 and 5 are both named 'v'"), "\(why)")

    let unused = TemporaryFolder()
    unused.write("gps.csv", "t,lat,lon,v,note,note\n2024-05-01T10:00:00Z,48,2,3,a,b\n")
    unused.write("mapping.json", mapping)
    let (trace, _) = try TraceImport.read(path: unused.path, mappingPath: unused.path("mapping.json"))
    #expect(trace.fixes.count == 1)
  }

  @Test("a name matched ignoring case is ambiguous when two columns match it so (Speed, SPEED for speed)")
  func caseInsensitiveTwice() throws {
    #expect(throws: Never.self) { try CSVTable.index(of: ["speed"], in: ["Speed", "speed"], file: "f.csv") }
    #expect(try CSVTable.index(of: ["speed"], in: ["Speed", "speed"], file: "f.csv") == 1)
    let why = thrownText {
      _ = try CSVTable.index(of: ["speed"], in: ["t", "Speed", "SPEED"], file: "f.csv")
    }
    #expect(why.contains("columns 2 and 3 are both named 'speed'"), "\(why)")
  }

  @Test("a Sensor Logger file with an axis column twice is skipped naming both columns; the others are read")
  func sensorLoggerColumnTwice() throws {
    let folder = TemporaryFolder()
    folder.write(
      "TotalAcceleration.csv",
      "time,seconds_elapsed,z,y,x,x\n1700000000000000000,0,9.8,0,0,1\n1700000000020000000,0.02,9.8,0,0,1\n")
    folder.write("Gyroscope.csv", "time,seconds_elapsed,z,y,x\n1700000000000000000,0,0,0,0\n")
    let (trace, report) = try TraceImport.read(path: folder.path)
    let skipped = report.files.first { $0.file.hasSuffix("TotalAcceleration.csv") }?.skippedBecause ?? ""
    #expect(skipped.contains("columns 5 and 6 are both named 'x'"), "\(report.files)")
    #expect(trace.accelerometer == nil && trace.gyroscope?.count == 1)
  }

  @Test("a phyphox CSV with one quantity in two columns is refused naming both")
  func phyphoxQuantityTwice() {
    let folder = TemporaryFolder()
    folder.write(
      "Accelerometer.csv",
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Acceleration x (g)\"\n0,0,0,9.8,0\n"
    )
    var why = ""
    do {
      why =
        try TraceImport.read(path: folder.path("Accelerometer.csv")).1.files.first?.skippedBecause ?? "read"
    } catch {
      why = "\(error)"
    }
    #expect(why.contains("columns 2 and 5 are both 'Acceleration x'"), "\(why)")
  }

  // MARK: tracktable

  static func line(_ id: String, _ points: [(String, String, Double)]) -> String {
    "*T*,\(id),terrestrial,\(points.count),0,*P*,terrestrial,2,1,1,0,"
      + points.map { "\($0.0),\($0.1),-74.0,\($0.2)" }.joined(separator: ",")
  }

  static func read(_ lines: [String]) throws -> ([TracktableReader.Trajectory], FileReport) {
    let folder = TemporaryFolder()
    folder.write("x.traj", lines.joined(separator: "\n") + "\n")
    return try TracktableReader.read(path: folder.path("x.traj"))
  }

  @Test("object ids 1 and 2³² + 1 are two devices, not one: ids beyond UInt32 are interned apart")
  func objectIDsDoNotWrap() throws {
    let (trajectories, report) = try Self.read([
      Self.line("a", [("1", "2020-06-30 00:00:00", 40.6), ("1", "2020-06-30 00:01:00", 40.61)]),
      Self.line(
        "b", [("4294967297", "2020-06-30 00:00:00", 40.7), ("4294967297", "2020-06-30 00:01:00", 40.71)]),
      Self.line("c", [("4294967295", "2020-06-30 00:00:00", 40.8)]),
    ])
    #expect(report.rejectedByReason.isEmpty, "\(report)")
    let devices = trajectories.map { Set($0.fixes.device.map(\.rawValue)) }
    #expect(devices.count == 3 && devices.allSatisfy { $0.count == 1 })
    #expect(devices[0] == [1] && devices[2] == [4_294_967_295] && devices[1] != [1])
    #expect(trajectories.map(\.objectID) == ["1", "4294967297", "4294967295"])
  }

  @Test("an object id whose device another id already holds is rejected naming both; the first keeps it")
  func deviceClashIsRejected() throws {
    let hashed = stableHash("SHIP-A")
    let (trajectories, report) = try Self.read([
      Self.line("a", [("SHIP-A", "2020-06-30 00:00:00", 40.6)]),
      Self.line(
        "b", [("\(hashed)", "2020-06-30 00:00:00", 40.7), ("\(hashed)", "2020-06-30 00:01:00", 40.71)]),
    ])
    #expect(trajectories.count == 1 && trajectories[0].objectID == "SHIP-A")
    #expect(report.rejectedByReason == [.outOfRange: 2] && report.reconciles, "\(report)")
    #expect(
      report.rejections.first?.detail.hasPrefix("'SHIP-A' has device \(hashed); '\(hashed)' is another ship")
        == true, "\(report.rejections)")
  }

  @Test(
    "a point whose object id differs from its trajectory's is rejected, not given to the trajectory's ship")
  func pointOfAnotherShip() throws {
    let (trajectories, report) = try Self.read([
      Self.line("a", [("367001", "2020-06-30 00:00:00", 40.6), ("367002", "2020-06-30 00:01:00", 40.61)])
    ])
    #expect(trajectories.first?.fixes.count == 1 && report.rejectedByReason == [.outOfRange: 1], "\(report)")
  }

  @Test(
    "repeated fixes follow the documented rule: the same fix again under 1 s is one fix, 1 s later a fix of its own"
  )
  func repeatedFixRule() throws {
    let (trajectories, report) = try Self.read([
      Self.line(
        "a",
        [
          ("367001", "2020-06-30 00:00:00", 40.6), ("367001", "2020-06-30 00:00:00.999", 40.6),
          ("367001", "2020-06-30 00:00:01.999", 40.6), ("367001", "2020-06-30 00:00:01.999", 40.7),
        ])
    ])
    #expect(trajectories.first?.fixes.timeMilliseconds.map { $0 % 10_000 } == [0, 1_999])
    #expect(report.rejectedByReason == [.duplicate: 2] && report.reconciles, "\(report)")
  }

  @Test("a ship's fix written again on a later line of the file is a duplicate there too")
  func repeatedAcrossLines() throws {
    let points = [("367001", "2020-06-30 00:00:00", 40.6), ("367001", "2020-06-30 00:01:00", 40.61)]
    let (trajectories, report) = try Self.read([Self.line("a", points), Self.line("a", points)])
    #expect(trajectories.map(\.fixes.count).reduce(0, +) == 2, "\(trajectories.map(\.fixes.count))")
    #expect(report.rejectedByReason == [.duplicate: 2] && report.reconciles, "\(report)")
  }
}
