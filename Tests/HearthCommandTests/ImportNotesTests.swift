import Foundation
import Testing
import _HearthTestSupport

@testable import HearthCommand

/// Every command that prints results from a recording tells stderr what it
/// rejected or skipped (regressions from the review of issue 16's readers).
@Suite("import notes on stderr")
struct ImportNotesTests {
  /// A Sensor Logger folder: 60 s at 100 Hz, an 8 g jolt at 30 s, and fixes;
  /// with `blankJolt`, the jolt's ten rows have no `seconds_elapsed`.
  static func sensorLogger(in folder: TemporaryFolder, _ name: String, blankJolt: Bool) throws -> String {
    let path = folder.path(name)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let t0: Int64 = 1_700_000_000_000
    try "version,device name,recording epoch time,platform\n3,Pixel,\(t0),android\n"
      .write(toFile: path + "/Metadata.csv", atomically: true, encoding: .utf8)
    var rows = ["time,seconds_elapsed,z,y,x"]
    for i in 0..<6000 {
      let s = Double(i) / 100
      let jolt = s >= 30 && s < 30.1
      let seconds = blankJolt && jolt ? "" : String(format: "%.2f", s)
      rows.append("\(t0 * 1_000_000 + Int64(i) * 10_000_000),\(seconds),9.81,0,\(jolt ? 8 * 9.81 : 0)")
    }
    try (rows.joined(separator: "\n") + "\n").write(
      toFile: path + "/TotalAcceleration.csv", atomically: true, encoding: .utf8)
    var fixes = ["time,seconds_elapsed,latitude,longitude,horizontalAccuracy,speed,bearing,altitude"]
    for i in 0..<60 {
      let latitude = i < 30 ? 51.5 + Double(i) * 0.0001 : 51.503 + Double(i) * 1e-7
      fixes.append("\((t0 + Int64(i) * 1000) * 1_000_000),\(i),\(latitude),-0.1,5,\(i < 30 ? 15.0 : 0),90,10")
    }
    try (fixes.joined(separator: "\n") + "\n").write(
      toFile: path + "/Location.csv", atomically: true, encoding: .utf8)
    return path
  }

  @Test(
    "impact detect names the rows it rejected: blank times where the jolt was are badTime on stderr, not a silent 'no jolt'"
  )
  func impactDetectSaysWhatItRejected() throws {
    let folder = TemporaryFolder()
    let clean = run(["impact", "detect", try Self.sensorLogger(in: folder, "clean", blankJolt: false)])
    #expect(clean.code != 3 && !clean.err.contains("rejected ("), "\(clean.err)")
    let blank = run(["impact", "detect", try Self.sensorLogger(in: folder, "blank", blankJolt: true)])
    #expect(
      blank.err.contains("TotalAcceleration.csv: 6000 rows read, 5990 kept, 10 rejected (badTime 10)"),
      "\(blank.err)")
    #expect(blank.err.contains("first rejection: "), "\(blank.err)")
  }

  @Test("geo snap and geo trips say what the reader rejected; data convert names the file and reason")
  func geoCommandsSayWhatTheyRejected() throws {
    let folder = TemporaryFolder()
    let gpx = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
      <trkpt lat="48.1" lon="11.5"><time>2024-01-01T10:00:00Z</time></trkpt>
      <trkpt lat="91.5" lon="11.5"><time>2024-01-01T10:01:00Z</time></trkpt>
      <trkpt lat="48.1002" lon="11.5"><time>2024-01-01T10:05:00Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    try gpx.write(toFile: folder.path("t.gpx"), atomically: true, encoding: .utf8)
    let snap = run(["geo", "snap", folder.path("t.gpx")])
    #expect(snap.code == 0 && snap.out.split(separator: "\n").count == 3, "\(snap.out)")
    #expect(snap.err.contains("1 rejected (outOfRange 1)"), "\(snap.err)")
    let trips = run(["geo", "trips", folder.path("t.gpx")])
    #expect(trips.err.contains("1 rejected (outOfRange 1)"), "\(trips.err)")
    let convert = run(["data", "convert", folder.path("t.gpx"), "--to", "gpx", "--out", folder.path("o.gpx")])
    #expect(convert.code == 0 && convert.err.contains("first rejection: "), "\(convert.err)")
  }

  @Test(
    "a places file that is a FIFO is refused at once, not waited on; an empty accuracy in an upload log is the default 10 m"
  )
  func placesFIFOAndLogDefaults() throws {
    let folder = TemporaryFolder()
    let fifo = folder.path("places.geojson")
    #expect(mkfifo(fifo, 0o600) == 0)
    let log = folder.path("log.csv")
    try """
    user,time_ms,latitude,longitude,accuracy_m,received_ms
    1,1700000000000,48.1,11.5,,1700000001000
    1,1700000060000,48.1,11.5,8,-9000000000000
    """.write(toFile: log, atomically: true, encoding: .utf8)
    let refused = run(["geo", "replay", log, "--places", fifo])
    #expect(refused.code == 3 && refused.err.contains("not a regular file"), "\(refused.err)")
    // A description or detector configuration that is a FIFO or a device
    // says so (review26 F10: "cannot read", no reason).
    let description = run(["geo", "replay", log, "--description", fifo])
    #expect(
      description.code == 3 && description.err.contains("not a regular file (a FIFO)"), "\(description.err)")
    let configuration = run(["impact", "detect", log, "--config", "/dev/zero"])
    #expect(
      configuration.code == 3
        && configuration.err.contains("/dev/zero: not a regular file (a character device)"),
      "\(configuration.err)")
    let missing = run(["impact", "detect", log, "--config", folder.path("none.json")])
    #expect(missing.code == 3 && missing.err.contains("No such file"), "\(missing.err)")
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let replay = run(["geo", "replay", log, "--places", folder.path("none.geojson")])
    #expect(replay.code == 0 && !replay.err.contains("accuracyMissing"), "\(replay.err)")
    #expect(
      replay.err.contains("log.csv:3 (received_ms): -9000000000000 is not a time from 1900 to 2200"),
      "\(replay.err)")
    #expect(replay.err.contains("replayed 1 fixes in 1 uploads"), "\(replay.err)")
    let until = run([
      "geo", "replay", log, "--places", folder.path("none.geojson"), "--until", "9999999999999999",
    ])
    #expect(until.code == 2 && until.err.contains("--until"), "\(until.err)")
  }

  @Test(
    "a quiet result says the vehicle gate was off when the recording's activity turned it off; with the gate on it does not"
  )
  func quietLineNamesTheGate() throws {
    let folder = TemporaryFolder()
    let path = try Self.sensorLogger(in: folder, "walk", blankJolt: false)
    try "time,seconds_elapsed,activity,confidence\n1700000000000000000,0,walking,high\n"
      .write(toFile: path + "/Activity.csv", atomically: true, encoding: .utf8)
    let off = run(["impact", "detect", path])
    #expect(off.code == 0 && off.out.contains("vehicle gate off throughout"), "\(off.out)")
    #expect(off.out.contains("jolts while it is off are not judged"))
    let csv = run(["impact", "detect", path, "--format", "csv"])
    #expect(csv.out.contains("noJolt") && csv.out.contains("vehicle gate off"), "\(csv.out)")
    let forced = run(["impact", "detect", path, "--vehicle-gate", "on"])
    #expect(!forced.out.contains("vehicle gate off"), "\(forced.out)")
  }

  @Test("impact detect warns when a separate gravity stream stops long before the accelerometer")
  func gravityShortfallIsSaid() throws {
    let folder = TemporaryFolder()
    let path = folder.path("short")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let t0: Int64 = 1_700_000_000_000
    try "version,device name,recording epoch time,platform\n3,Pixel,\(t0),android\n"
      .write(toFile: path + "/Metadata.csv", atomically: true, encoding: .utf8)
    var rows = ["time,seconds_elapsed,z,y,x"]
    for i in 0..<6000 {
      rows.append(
        "\(t0 * 1_000_000 + Int64(i) * 10_000_000),\(String(format: "%.2f", Double(i) / 100)),0,0,0")
    }
    try (rows.joined(separator: "\n") + "\n").write(
      toFile: path + "/Accelerometer.csv", atomically: true, encoding: .utf8)
    var gravity = ["time,seconds_elapsed,z,y,x"]
    for i in 0..<100 {
      gravity.append(
        "\(t0 * 1_000_000 + Int64(i) * 10_000_000),\(String(format: "%.2f", Double(i) / 100)),9.81,0,0")
    }
    try (gravity.joined(separator: "\n") + "\n").write(
      toFile: path + "/Gravity.csv", atomically: true, encoding: .utf8)
    let short = run(["impact", "detect", path])
    #expect(short.code != 3 && short.err.contains("warning: "), "\(short.err)")
    #expect(short.err.contains("gravity"), "\(short.err)")
  }
}
