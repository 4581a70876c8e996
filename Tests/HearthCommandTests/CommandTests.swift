import Foundation
import HearthLab
import HearthRuntime
import Testing
import _HearthTestSupport

@testable import HearthCommand

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Runs a command in process and collects what it printed.
final class Captured: @unchecked Sendable {
  private let lock = NSLock()
  private var outLines: [String] = []
  private var errLines: [String] = []
  var out: String { lock.withLock { outLines.joined(separator: "\n") } }
  var err: String { lock.withLock { errLines.joined(separator: "\n") } }
  var console: Console {
    Console(
      out: { line in self.lock.withLock { self.outLines.append(line) } },
      err: { line in self.lock.withLock { self.errLines.append(line) } })
  }
}

func run(_ words: [String]) -> (code: Int32, out: String, err: String) {
  let captured = Captured()
  let code = HearthCommand.main(words, console: captured.console)
  return (code, captured.out, captured.err)
}

@Suite("hearth argument parsing and dispatch")
struct CommandTests {
  @Test("options, values with =, flags, -- and positionals")
  func parsing() throws {
    let a = try Arguments(
      ["C1", "--seed", "7", "--out=x y", "--no-tablet", "--", "--literal"], options: ["seed", "out"],
      flags: ["no-tablet"])
    #expect(a.positionals == ["C1", "--literal"])
    #expect(a.options == ["seed": "7", "out": "x y"])
    #expect(a.flags == ["no-tablet"])
    #expect(try a.value("seed", default: UInt64(1)) == 7)
    #expect(try a.value("missing", default: 2.5) == 2.5)
    #expect(throws: CLIError.usage("unknown option --sed")) {
      try Arguments(["--sed", "1"], options: ["seed"], flags: [])
    }
    #expect(throws: CLIError.usage("--seed needs a value")) {
      try Arguments(["--seed"], options: ["seed"], flags: [])
    }
    #expect(throws: CLIError.usage("--seed given twice")) {
      try Arguments(["--seed", "1", "--seed=2"], options: ["seed"], flags: [])
    }
    #expect(throws: CLIError.usage("--no-tablet takes no value")) {
      try Arguments(["--no-tablet=1"], options: [], flags: ["no-tablet"])
    }
    let bad = try Arguments(["--seed", "x"], options: ["seed"], flags: [])
    #expect(throws: CLIError.usage("--seed: cannot read 'x' as UInt64")) {
      try bad.value("seed", default: UInt64(1))
    }
  }

  @Test("help at every level, version, and exit code 2 for usage errors")
  func dispatch() {
    #expect(run(["--version"]).out.hasPrefix("hearth "))
    let top = run(["--help"])
    #expect(top.code == 0 && top.out.contains("sim generate day") && top.out.contains("exit codes"))
    #expect(run([]).code == 0)
    let group = run(["sim"])
    #expect(group.code == 2 && group.err.contains("sim generate scenario"))
    #expect(run(["sim", "generate", "--help"]).code == 0)
    let help = run(["sim", "generate", "day", "--help"])
    #expect(help.code == 0 && help.out.contains("--phones"))
    let unknown = run(["frobnicate"])
    #expect(unknown.code == 2 && unknown.err.contains("unknown command"))
    let missing = run(["sim", "generate", "scenario", "C1"])
    #expect(missing.code == 2 && missing.err.contains("--out is required"))
    let badID = run(["sim", "generate", "scenario", "Z9", "--out", "/tmp/x"])
    #expect(badID.code == 2 && badID.err.contains("unknown scenario 'Z9'"))
    #expect(run(["sim", "generate", "mix", "--hours", "0", "--out", "/tmp/x"]).code == 2)
    let list = run(["sim", "list"])
    #expect(list.code == 0 && list.out.split(separator: "\n").count == 30)
    let csv = run(["sim", "list", "--format", "csv"]).out.split(separator: "\n")
    #expect(
      csv.count == 31 && csv[0] == "id,expected,deciding_gate,name,summary" && csv[1].hasPrefix("C1,report,"))
    let json = run(["sim", "list", "--format", "json"]).out.split(separator: "\n")
    #expect(json.count == 30 && json[0].contains("\"id\":\"C1\""))
    #expect(run(["sim", "list", "--format", "yaml"]).code == 2)
    // help as a word and -h, at every level.
    #expect(run(["help"]).out == top.out && run(["-h"]).out == top.out && run(["help"]).code == 0)
    let detectHelp = run(["impact", "detect", "--help"]).out
    #expect(
      run(["help", "impact", "detect"]).out == detectHelp
        && run(["impact", "detect", "-h"]).out == detectHelp)
    #expect(detectHelp.contains("--vehicle-gate") && detectHelp.contains("--config FILE"))
    #expect(run(["help", "sim"]).code == 0 && run(["version"]).out.hasPrefix("hearth "))
  }

  @Test("sim generate scenario writes the same bytes as the library, and sets come from the manifest")
  func generate() throws {
    let folder = TemporaryFolder()
    let result = run(["sim", "generate", "scenario", "C3", "--seed", "4", "--out", folder.path("c3")])
    #expect(result.code == 0, "\(result.err)")
    let label = try String(contentsOfFile: folder.path("c3/label.json"), encoding: .utf8)
    #expect(label.contains("\"id\" : \"C3\""))
    #expect(FileManager.default.fileExists(atPath: folder.path("c3/trace/accelerometer/value.npy")))
    let manifest = TestPaths.projectDatasets.appendingPathComponent("sim/manifest.json").path
    let missing = run(["sim", "generate", "set", "nope", "--manifest", manifest])
    #expect(missing.code == 2 && missing.err.contains("no set 'nope'"))
    let stream = run(["sim", "generate", "set", "mix-1000h", "--manifest", manifest])
    #expect(stream.code == 2 && stream.err.contains("streamed"))
    let unreadable = run(["sim", "generate", "set", "x", "--manifest", folder.path("none.json")])
    #expect(unreadable.code == 3)
  }

  @Test("sim evaluate prints its scores; a missing dataset folder is bad input")
  func evaluate() {
    let fences = run(["sim", "evaluate", "geofences", "--days", "2"])
    #expect(fences.code == 0 && fences.out.contains("arrivals"), "\(fences.err)")
    let mappings = TestPaths.projectDatasets.appendingPathComponent("mappings").path
    let speed = run([
      "sim", "evaluate", "speed", "--days", "2", "--datasets", TestPaths.sharedDatasets.path, "--mappings",
      mappings,
    ])
    #expect(speed.code == 0, "\(speed.err)")
    #expect(speed.out.contains("speed alert (50 km/h), 2 days") && speed.out.contains("sudden stop, 2 days"))
    let trips = run(["sim", "evaluate", "trips", "--days", "2"])
    #expect(trips.code == 0 && trips.out.contains("trips, 2 days: precision"), "\(trips.err)")
    let missing = run(["sim", "evaluate", "speed", "--days", "1", "--datasets", "/nonexistent"])
    #expect(missing.code == 3)
  }

  @Test("geo trips segments a recording and lists its stays; a path it cannot read is bad input")
  func geoTrips() {
    let drive = TestPaths.sharedDatasets.path + "/mems-nav-drives/processed_1hz/20230809_124742"
    let mapping = TestPaths.projectDatasets.appendingPathComponent("mappings/mems-nav-processed-1hz.json")
      .path
    let trips = run(["geo", "trips", drive, "--mapping", mapping])
    #expect(trips.code == 0, "\(trips.err)")
    let lines = trips.out.split(separator: "\n")
    #expect(lines.count == 2 && lines[1].contains(",true,valid,"), "\(trips.out)")
    #expect(
      lines[0]
        == "file,user,id,is_trip,reasons,ended_by,started_ms,finished_ms,points,path_m,max_agreed_speed_mps,"
        + "start_place,start_named_by,start_distance_m,start_place_name,end_place,end_named_by,end_place_name"
    )
    let json = run(["geo", "trips", drive, "--mapping", mapping, "--format", "json"])
    let trip = try? JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
    #expect(trip?["is_trip"] as? Bool == true && (trip?["path_m"] as? Double ?? 0) > 1000, "\(json.out)")
    let text = run(["geo", "trips", drive, "--mapping", mapping, "--format", "text"])
    #expect(text.out.contains("is_trip true") && text.out.contains("path_m "), "\(text.out)")
    let ais = run([
      "geo", "trips", TestPaths.sharedDatasets.path + "/tracktable-ais/NYHarbor_2020_12_08.traj", "--stops",
    ])
    #expect(ais.code == 0 && ais.out.split(separator: "\n").count > 50)
    #expect(run(["geo", "trips", "/nonexistent"]).code == 3)
    let both = run(["geo", "trips", "/nonexistent", drive, "--mapping", mapping])
    #expect(both.code == 3 && both.out.split(separator: "\n").count == 2 && both.err.contains("1 of 2 PATHs"))
    #expect(run(["geo", "trips", drive, drive, "--export-fixes", "/tmp/x.csv"]).code == 2)
  }

  @Test(
    "impact detect explains every verdict with units as text, JSON or CSV, quiet traces too; exit 1 when it reports, 3 on bad input, the other PATHs still run"
  )
  func impactDetect() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "scenario", "C1", "--seed", "2", "--out", folder.path("c1")]).code == 0)
    #expect(run(["sim", "generate", "scenario", "N7", "--seed", "2", "--out", folder.path("n7")]).code == 0)
    let crash = run(["impact", "detect", folder.path("c1/trace")])
    #expect(crash.code == 1, "\(crash.err)")
    #expect(
      crash.out.contains("possibleImpact at 39.9")
        && crash.out.contains("pressureRise held (9.48 hPa vs 2 hPa)"), "\(crash.out)")
    #expect(crash.out.contains("jolt held (17.02 g (166.9 m/s²) vs 4.00 g (39.2 m/s²))"), "\(crash.out)")
    #expect(
      crash.err.contains("vehicle gate recording: off until its activity stream says automotive; 1 switch"),
      "\(crash.err)")
    #expect(!crash.out.contains("vehicle gate off"), "on from the first sample: no note")
    let door = run(["impact", "detect", folder.path("n7/trace"), "--format", "csv"])
    #expect(door.code == 0, "\(door.err)")
    let rows = door.out.split(separator: "\n")
    #expect(rows.first.map(String.init) == VerdictRecords.csvHeader)
    #expect(
      rows.dropFirst().allSatisfy { $0.contains(",silent,") && $0.split(separator: ",").count >= 11 }
        && rows.count > 4)
    #expect(rows.contains { $0.contains(",spin,") && $0.contains(",rad/s,") })
    let lines = run(["impact", "detect", folder.path("c1/trace"), "--format", "json"]).out.split(
      separator: "\n")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(object["outcome"] as? String == "possibleImpact" && (object["joltG"] as? Double ?? 0) > 16)
    let conditions = try #require(object["conditions"] as? [[String: Any]])
    #expect(conditions.contains { $0["name"] as? String == "pressureRise" && $0["unit"] as? String == "hPa" })
    // A quiet recording still gets its line, in every format.
    let drive =
      TestPaths.sharedDatasets.path + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40"
    let quiet = run(["impact", "detect", drive])
    #expect(
      quiet.code == 0 && quiet.out.contains("no jolt ≥ 4.00 g (peak |a|") && quiet.out.contains(" h,"),
      "\(quiet.out)")
    let quietJSON = run(["impact", "detect", drive, "--format", "json"]).out
    #expect(quietJSON.contains("\"outcome\":\"noJolt\"") && quietJSON.contains("\"peakG\":"))
    #expect(run(["impact", "detect", drive, "--format", "csv"]).out.contains(",noJolt,"))
    // Thresholds from the flags, in g: a 20 g jolt threshold leaves the crash unreported.
    #expect(run(["impact", "detect", folder.path("c1/trace"), "--jolt-g", "20"]).code == 0)
    #expect(run(["impact", "detect", folder.path("c1/trace"), "--jolt-g", "x"]).code == 2)
    #expect(run(["impact", "detect", folder.path("c1/trace"), "--format", "xml"]).code == 2)
    #expect(run(["impact", "detect", folder.path("c1/trace"), "--vehicle-gate", "maybe"]).code == 2)
    #expect(run(["impact", "detect", folder.path("c1/trace"), "--vehicle-gate", "off"]).code == 0)
    #expect(run(["impact", "detect"]).code == 2)
    let missing = run(["impact", "detect", "/nonexistent"])
    #expect(missing.code == 3 && missing.err.contains("/nonexistent: bad input: no such file or folder"))
    // A bad PATH among good ones: reported, the others still printed, exit 3 at the end.
    let fixesOnly = TestPaths.sharedDatasets.path + "/mems-nav-drives/raw/2023-08-04_214758"
    let mixed = run([
      "impact", "detect", fixesOnly, folder.path("c1/trace"), "/nonexistent", folder.path("n7/trace"),
    ])
    #expect(mixed.code == 3)
    #expect(
      mixed.err.contains("no accelerometer") && mixed.err.contains("2 of 4 PATHs could not be used"),
      "\(mixed.err)")
    #expect(
      mixed.out.contains("c1/trace: possibleImpact") && mixed.out.contains("n7/trace: silent"), "\(mixed.out)"
    )
  }

  @Test(
    "data inspect lists streams with rates and silences, and every rejected row by reason with the first in full"
  )
  func dataInspect() throws {
    let comma = run([
      "data", "inspect",
      TestPaths.sharedDatasets.path + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40",
    ])
    #expect(comma.code == 0, "\(comma.err)")
    #expect(
      comma.out.contains("accelerometer (includesGravity) [m/s²]: 6256 samples over 60 s"), "\(comma.out)")
    #expect(
      comma.out.contains("canSpeed [m/s]")
        && comma.out.contains("IMU/gyro: 6256 rows read, 6256 kept, 0 rejected"))
    let folder = TemporaryFolder()
    let gpx = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
      <trkpt lat="48.1" lon="11.5"><time>2024-01-01T10:00:00Z</time></trkpt>
      <trkpt lat="95.0" lon="11.5"><time>2024-01-01T10:00:01Z</time></trkpt>
      <trkpt lat="48.1001" lon="11.5"><time>2024-01-01T10:00:02Z</time></trkpt>
      <trkpt lat="48.1002" lon="11.5"><time>2024-01-01T10:01:02Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    try gpx.write(toFile: folder.path("t.gpx"), atomically: true, encoding: .utf8)
    let bad = run(["data", "inspect", folder.path("t.gpx")])
    #expect(bad.code == 0)
    #expect(bad.out.contains("4 rows read, 3 kept, 1 rejected (outOfRange 1)"), "\(bad.out)")
    #expect(bad.out.contains("first rejection: t.gpx:4: outOfRange"), "\(bad.out)")
    #expect(bad.out.contains("1 silences over 5 intervals (longest 60 s)"), "\(bad.out)")
    #expect(run(["data", "inspect"]).code == 2)
    #expect(run(["data", "inspect", folder.path("missing.gpx")]).code == 3)
    // Regression 2026-12-02: every file skipped (or every row rejected) is
    // bad input, after the per-file report.
    folder.write("skipped/Gyroscope.csv", "time,z,y\n1,0,0\n")
    folder.write("skipped/Barometer.csv", "")
    let skipped = run(["data", "inspect", folder.path("skipped")])
    #expect(
      skipped.code == 3 && skipped.out.contains("skipped: ") && skipped.err.contains("nothing could be read"))
    folder.write("rejected/TotalAcceleration.csv", "time,seconds_elapsed,z,y,x\n0,,9.8,0,0\n")
    #expect(run(["data", "inspect", folder.path("rejected")]).code == 3)
    // An accelerometer that kept no row: bad input for the detector too.
    let noRow = run(["impact", "detect", folder.path("rejected")])
    #expect(noRow.code == 3 && noRow.err.contains("no accelerometer"), "\(noRow.err)")
  }

  @Test(
    "geo snap shows only grid centres, 750 m and 5-minute slots; data convert round-trips through GPX and a trace folder"
  )
  func snapAndConvert() throws {
    let folder = TemporaryFolder()
    let gpx = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
      <trkpt lat="48.1" lon="11.5"><time>2024-01-01T10:00:00Z</time></trkpt>
      <trkpt lat="48.1001" lon="11.5"><time>2024-01-01T10:04:59Z</time></trkpt>
      <trkpt lat="48.1002" lon="11.5"><time>2024-01-01T10:05:00Z</time></trkpt>
      <trkpt lat="48.2" lon="11.5"><time>2024-01-01T10:06:00Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    try gpx.write(toFile: folder.path("t.gpx"), atomically: true, encoding: .utf8)
    let snap = run(["geo", "snap", folder.path("t.gpx")])
    let rows = snap.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(snap.code == 0 && rows.count == 4)
    // First frame; same cell and slot; a new slot; a new cell.
    #expect(rows.map { $0[6] } == ["true", "false", "true", "true"])
    #expect(rows.allSatisfy { $0[5] == "750.0" } && rows[0][3] != "48.1")
    // Two PATHs, one missing: one header, the other still runs, exit 3; JSON Lines with units in the keys.
    let two = run(["geo", "snap", folder.path("t.gpx"), folder.path("missing.gpx"), "--format", "json"])
    #expect(two.code == 3 && two.err.contains("missing.gpx: bad input: no such file"), "\(two.err)")
    let objects = try two.out.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(
      objects.count == 4
        && objects.allSatisfy { ($0["accuracy_m"] as? Double) == 750 && $0["changed"] is Bool })
    let twice = run(["geo", "snap", folder.path("t.gpx"), folder.path("t.gpx")])
    #expect(twice.out.split(separator: "\n").count == 9 && twice.out.hasPrefix("file,time_ms,cell,"))
    #expect(
      run(["geo", "snap", folder.path("t.gpx"), "--changes-only"]).out.split(separator: "\n").count == 4)
    // A path with no usable fix fails as in `geo trips` (it exited 0 with nothing printed).
    let bad = gpx.replacingOccurrences(of: "lat=\"48.", with: "lat=\"98.")
    try bad.write(toFile: folder.path("bad.gpx"), atomically: true, encoding: .utf8)
    let none = run(["geo", "snap", folder.path("bad.gpx"), folder.path("t.gpx")])
    #expect(none.code == 3 && none.err.contains("bad.gpx: the trace has no fixes"), "\(none.err)")
    #expect(none.out.split(separator: "\n").count == 5)
    let drive = TestPaths.sharedDatasets.path + "/mems-nav-drives/raw/2023-08-04_214758"
    #expect(run(["data", "convert", drive, "--to", "gpx", "--out", folder.path("d.gpx")]).code == 0)
    #expect(
      run(["data", "inspect", folder.path("d.gpx")]).out.contains("fixes [degrees, m, m/s]: 8784 samples"))
    let several = run([
      "data", "inspect", folder.path("nothing-here"), folder.path("d.gpx"), folder.path("d.gpx"),
    ])
    #expect(several.code == 3 && several.err.contains("1 of 3 PATHs could not be used"), "\(several.err)")
    #expect(several.out.components(separatedBy: "8784 samples").count == 3, "\(several.out)")
    let drop = TestPaths.sharedDatasets.path + "/phone-drop-freefall/raw_data/fall_1"
    #expect(run(["data", "convert", drop, "--to", "folder", "--out", folder.path("f1")]).code == 0)
    #expect(
      run(["data", "inspect", folder.path("f1")]).out.contains(
        "accelerometer (includesGravity) [m/s²]: 1748 samples"))
    #expect(run(["data", "convert", drop, "--to", "kml", "--out", folder.path("x")]).code == 2)
    #expect(run(["data", "convert", drop, "--to", "gpx"]).code == 2)
    #expect(
      run(["data", "convert", folder.path("missing"), "--to", "gpx", "--out", folder.path("y.gpx")]).code == 3
    )
  }

  @Test(
    "sweep and evaluation sizes: one range for every door; beyond it (1e15 h, ∞, NaN, 0 seeds) a usage error")
  func sweepSizes() {
    #expect(ImpactSweep.hoursRange.contains(0) && ImpactSweep.hoursRange.contains(1_000_000))
    #expect(!ImpactSweep.hoursRange.contains(1_000_000.001) && !ImpactSweep.hoursRange.contains(-0.001))
    #expect(!ImpactSweep.hoursRange.contains(.nan) && !ImpactSweep.hoursRange.contains(.infinity))
    #expect(ImpactSweep.seedsRange == 1...1_000_000)
    for (option, value) in [
      ("--hours", "1e15"), ("--hours", "inf"), ("--hours", "nan"), ("--seeds", "0"), ("--seeds", "1000001"),
    ] {
      for command in [["impact", "sweep"], ["sim", "evaluate", "impact"]] {
        let result = run(command + [option, value])
        #expect(
          result.code == 2 && result.err.contains("--hours from 0 to 1000000"),
          "\(command) \(option) \(value)")
      }
    }
  }

  @Test(
    "impact sweep: one row per combination with recall and false alarms; CSV and JSON written; bad lists are usage errors"
  )
  func impactSweep() throws {
    let folder = TemporaryFolder()
    let result = run([
      "impact", "sweep", "--spin", "3.5,40", "--pressure", "2,40", "--seeds", "1", "--hours", "1", "--out",
      folder.path("s"),
    ])
    #expect(result.code == 0, "\(result.err)")
    let rows = result.out.split(separator: "\n")
    #expect(
      rows.count == 5
        && rows[0].hasPrefix(
          "combination,jolt_g,spin_rad_s,pressure_hpa,moving_m_s,free_fall_s,crash_runs,true_positives,misses,false_alarms,reports,recall"
        ))
    // The defaults find every crash (8 crash scenarios, one seed); nothing corroborates at 40.
    #expect(rows[1].hasPrefix("0,4.0,3.5,2.0,7.0,0.12,8,8,0,0,8,1.0,1.0,"), "\(rows[1])")
    #expect(rows[4].hasPrefix("3,4.0,40.0,40.0,7.0,0.12,8,0,8,0,0,0.0,"), "\(rows[4])")
    let json = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: folder.path("s/sweep.json"))))
    #expect(((json as? [String: Any])?["rows"] as? [Any])?.count == 4)
    #expect(FileManager.default.fileExists(atPath: folder.path("s/sweep.csv")))
    #expect(result.err.contains("logistic model"), "\(result.err)")
    let page = try ReportShape(path: folder.path("s/report.html"))
    #expect(page.wellFormed, "\(page.error ?? "")")
    // The trade-off chart and one panel per report or near miss: every chart has data.
    #expect(page.charts.count >= 2 && page.charts.allSatisfy { $0 > 0 }, "\(page.charts)")
    #expect(page.tables >= 3 && page.text.contains("C1") && page.text.contains("suggested"))
    #expect(run(["impact", "sweep", "--spin", "3,x"]).code == 2)
    #expect(run(["impact", "sweep", "--hours", "-1"]).code == 2)
    // A recorded drive swept as driving with no known crash, generated driving left out:
    // no report on it, so no false alarm, and the bound is the rule of three over its minute.
    let drive =
      TestPaths.sharedDatasets.path + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40"
    let recorded = run(["impact", "sweep", drive, "--seeds", "1", "--hours", "0"])
    #expect(recorded.code == 0, "\(recorded.err)")
    let row = recorded.out.split(separator: "\n")[1].split(separator: ",")
    // 3 per ~1 min, per 1 000 h
    #expect(row[9] == "0" && row[13] == "0.0" && (Double(row[14]) ?? 0) > 100_000, "\(row)")
    #expect(run(["impact", "sweep", folder.path("missing"), "--hours", "0"]).code == 3)
  }

  @Test(
    "the researcher's loop: sweep, pick a combination, detect with its configuration; tidy exports one row per record"
  )
  func sweepPickDetect() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "scenario", "C3", "--seed", "4", "--out", folder.path("c3")]).code == 0)
    let sweep = run([
      "impact", "sweep", "--spin", "3.5,40", "--pressure", "40", "--seeds", "1", "--hours", "0.5", "--pick",
      "1",
      "--out", folder.path("s"),
    ])
    #expect(sweep.code == 0, "\(sweep.err)")
    #expect(run(["impact", "sweep", "--spin", "3.5,40", "--pick", "2", "--out", folder.path("x")]).code == 2)
    #expect(run(["impact", "sweep", "--pick", "0"]).code == 2)
    // Combination 1 (spin 40 rad/s, pressure 40 hPa) corroborates nothing: C3 (a spin crash) goes silent.
    let picked = folder.path("s/picked-configuration.json")
    let config = try ImpactConfigurationFile.read(path: picked)
    #expect(config.spinRadiansPerSecond == 40 && config.pressureRiseHectopascals == 40)
    #expect(run(["impact", "detect", folder.path("c3/trace")]).code == 1)
    #expect(run(["impact", "detect", folder.path("c3/trace"), "--config", picked]).code == 0)
    // The flags override the file.
    #expect(
      run(["impact", "detect", folder.path("c3/trace"), "--config", picked, "--spin", "3.5"]).code == 1)
    #expect(
      run(["impact", "detect", folder.path("c3/trace"), "--config", folder.path("s/sweep.csv")]).code == 3)
    // configurations.json holds every combination in row order.
    let all =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: folder.path("s/configurations.json"))))
      as? [[String: Any]]
    #expect(all?.count == 2 && (all?[1]["combination"] as? Int) == 1)
    // Tidy tables: a header and one row per combination × trace, and per judged jolt.
    let result =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: folder.path("s/sweep.json")))) as? [String: Any]
    let sources = try #require(result?["sources"] as? [Any]).count
    let outcomes = try String(contentsOfFile: folder.path("s/outcomes.csv"), encoding: .utf8).split(
      separator: "\n")
    #expect(outcomes.count == 1 + 2 * sources && outcomes[0].hasPrefix("combination,jolt_g,"))
    let jolts = try String(contentsOfFile: folder.path("s/jolts.csv"), encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    let header = jolts[0].split(separator: ",").map(String.init)
    #expect(header.contains("jolt_g") && header.contains("spin_rad_s") && header.last == "is_crash")
    let body = jolts.dropFirst().filter { !$0.isEmpty }
    #expect(
      body.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == header.count })
    #expect(body.filter { $0.hasSuffix(",1") }.count == 8)  // one crash jolt per crash scenario
    // NaN never appears: empty cells in CSV, null in JSON.
    #expect(!body.contains { $0.contains("nan") })
    let text = try String(contentsOfFile: folder.path("s/sweep.json"), encoding: .utf8)
    #expect(!text.contains("\"nan\"") && text.contains("null"))
  }
}

/// What a test needs to know of an HTML report: whether it parses as XML,
/// and how many data marks each SVG chart holds.
final class ReportShape: NSObject, XMLParserDelegate {
  private(set) var charts: [Int] = []
  private(set) var tables = 0
  private(set) var text = ""
  private(set) var error: String?
  private(set) var wellFormed = false
  private var depthInSVG = 0

  init(path: String) throws {
    super.init()
    let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
    parser.delegate = self
    wellFormed = parser.parse()
    if !wellFormed { error = parser.parserError.map { "\($0) at line \(parser.lineNumber)" } }
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    if name == "svg" {
      charts.append(0)
      depthInSVG += 1
    } else if depthInSVG > 0, (attributes["class"] ?? "").split(separator: " ").contains("data") {
      charts[charts.count - 1] += 1
    }
    if name == "table" { tables += 1 }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?)
  {
    if name == "svg" { depthInSVG -= 1 }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
