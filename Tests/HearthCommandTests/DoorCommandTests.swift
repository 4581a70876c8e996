import Foundation
import Testing
import _HearthTestSupport

/// The built `hearth` given settings outside their domains and an output that
/// cannot be written (issue 29): each ends with one named line and its exit
/// status, never a trap. In a separate process, under the issue's limits
/// (1 GB, 60 s), so a trap fails one test instead of the test run.
@Suite("hearth: every door refuses what the files refuse, by name")
struct DoorCommandTests {
  static let limits = (seconds: 60, megabytes: 1024)

  /// A generated crash scenario's trace folder (it reports a possible impact).
  static let scenario: TemporaryFolder = {
    let folder = TemporaryFolder()
    _ = run(["sim", "generate", "scenario", "C1", "--out", folder.path])
    return folder
  }()

  static func hearth(_ words: [String], standardOutput: BuiltExecutable.Output = .captured) throws
    -> BuiltExecutable.Run
  {
    try BuiltExecutable.run(
      "hearth", words, timeLimitSeconds: limits.seconds, memoryLimitMegabytes: limits.megabytes,
      standardOutput: standardOutput)
  }

  @Test(
    "impact detect: a threshold flag outside its setting's domain is a usage error (exit 2) naming the flag, the setting and its range",
    arguments: [
      (["--jolt-g", "-4"], "--jolt-g -4: joltMetersPerSecondSquared: ", "(0, 627.6256] m/s²"),
      (["--jolt-g", "0"], "--jolt-g 0: joltMetersPerSecondSquared: ", "(0, 627.6256] m/s²"),
      (["--jolt-g", "1e308"], "--jolt-g 1e+308: joltMetersPerSecondSquared: ", "(0, 627.6256] m/s²"),
      (["--jolt-g", "64.001"], "--jolt-g 64.001: joltMetersPerSecondSquared: ", "(0, 627.6256] m/s²"),
      (["--spin", "-1"], "--spin -1: spinRadiansPerSecond: -1 rad/s", "[0, ∞) rad/s"),
      (["--pressure", "-1"], "--pressure -1: pressureRiseHectopascals: -1 hPa", "[0, ∞) hPa"),
      (["--moving", "-1"], "--moving -1: movingMedianMetersPerSecond: -1 m/s", "[0, ∞) m/s"),
      (["--free-fall", "-1"], "--free-fall -1: freeFallSeconds: -1 s", "[0, ∞) s"),
    ])
  func detectThresholdOutOfDomain(flag: [String], named: String, range: String) throws {
    let run = try Self.hearth(["impact", "detect", Self.scenario.path + "/trace"] + flag)
    #expect(run.status == 2, "exit \(run.status): \(run.err.prefix(400))")
    #expect(
      run.err.contains("usage error") && run.err.contains(named) && run.err.contains(range), "\(run.err)")
    #expect(run.err.split(separator: "\n").count == 1, "\(run.err)")
  }

  @Test("impact detect: the edges of the domains are taken (--jolt-g 64, --spin 0, --free-fall 0)")
  func detectThresholdOnTheEdge() throws {
    let run = try Self.hearth(
      [
        "impact", "detect", Self.scenario.path + "/trace", "--jolt-g", "64", "--spin", "0", "--free-fall",
        "0",
      ])
    #expect(run.status == 0, "exit \(run.status): \(run.err.prefix(400))")
  }

  @Test(
    "sim evaluate impact: a threshold flag outside its domain is a usage error (exit 2) before any scenario runs"
  )
  func evaluateThresholdOutOfDomain() throws {
    let run = try Self.hearth([
      "sim", "evaluate", "impact", "--seeds", "1", "--hours", "1", "--free-fall", "-1",
    ])
    #expect(run.status == 2, "exit \(run.status): \(run.err.prefix(400))")
    #expect(run.err.contains("--free-fall -1: freeFallSeconds: -1 s is outside [0, ∞) s"), "\(run.err)")
  }

  @Test("impact sweep: a list value outside its domain is a usage error (exit 2) before any trace runs")
  func sweepThresholdOutOfDomain() throws {
    for (flag, named) in [
      (["--jolt-g", "4,-4"], "--jolt-g -4: joltMetersPerSecondSquared: "),
      (["--spin", "3.5,-1"], "--spin -1: spinRadiansPerSecond: -1 rad/s is outside [0, ∞) rad/s"),
    ] {
      let run = try Self.hearth(["impact", "sweep", "--seeds", "1", "--hours", "0"] + flag)
      #expect(run.status == 2, "\(flag): exit \(run.status): \(run.err.prefix(400))")
      #expect(run.err.contains("usage error") && run.err.contains(named), "\(run.err)")
      #expect(run.out.isEmpty)
    }
  }
}

@Suite(
  "hearth impact sweep: a plan is refused from its estimated size before anything is allocated (issue 29.7)")
struct SweepSizeCommandTests {
  /// Twenty values in each list (0.25 … 5): 20⁵ = 3.2 × 10⁶ combinations over one seed.
  static let twentyOfEach: [String] = {
    let values = (1...20).map { String(Double($0) / 4) }.joined(separator: ",")
    let lists = ["--jolt-g", "--spin", "--pressure", "--moving", "--free-fall"].flatMap { [$0, values] }
    return ["--seeds", "1", "--hours", "0"] + lists
  }()

  @Test(
    "seeds and hours past the ranges, and at the ranges' far ends (over the memory budget): exit 2 with one line, under 1 GB and 60 s",
    arguments: [
      (["--seeds", "1e9"], "--seeds: cannot read '1e9'"),
      (["--seeds", "1000000000"], "--seeds must be from 1 to 1000000"),
      (["--hours", "1e12"], "--hours from 0 to 1000000"),
      (["--seeds", "1000000", "--hours", "0"], "the sweep is too large: 3e+07 traces × 1 combinations"),
      (["--seeds", "1", "--hours", "1000000"], "the sweep is too large: 3.4e+06 traces × 1 combinations"),
      (SweepSizeCommandTests.twentyOfEach, "30 traces × 3.2e+06 combinations"),
    ] as [([String], String)])
  func sweepTooLarge(flags: [String], named: String) throws {
    let run = try DoorCommandTests.hearth(["impact", "sweep"] + flags)
    #expect(run.status == 2, "exit \(run.status): \(run.err.prefix(400))")
    #expect(run.err.contains("usage error") && run.err.contains(named), "\(run.err.prefix(400))")
    #expect(run.err.split(separator: "\n").count == 1, "\(run.err.prefix(400))")
    #expect(run.out.isEmpty)
  }

  @Test("a plan just within the budget is not refused by it (the estimate is not a range check)")
  func sweepWithinBudgetRuns() throws {
    // Thirty scenario runs: a longer time limit than the refusals' (a loaded machine).
    let run = try BuiltExecutable.run(
      "hearth",
      [
        "impact", "sweep", "--seeds", "1", "--hours", "0", "--jolt-g", "3,4,5,6,7,8,9,10,11,12", "--spin",
        "1,2,3,4,5,6,7,8,9,10",
      ], timeLimitSeconds: 600, memoryLimitMegabytes: DoorCommandTests.limits.megabytes)
    #expect(run.status == 0, "exit \(run.status): \(run.err.prefix(400))")
    #expect(run.out.split(separator: "\n").count == 101, "\(run.out.prefix(400))")
  }
}

@Suite("hearth: a result that cannot be written ends the run with one line and exit 74")
struct OutputFailureCommandTests {
  @Test(
    "standard output on /dev/full or a closed pipe (SIGPIPE ignored): exit 74 and one line on stderr, never a trap",
    arguments: [["sim", "list"], ["--help"], ["impact", "detect", "SCENARIO", "--format", "json"]])
  func outputCannotBeWritten(words: [String]) throws {
    let words = words.map { $0 == "SCENARIO" ? DoorCommandTests.scenario.path + "/trace" : $0 }
    for output in [BuiltExecutable.Output.file("/dev/full"), .closedPipe] {
      let run = try DoorCommandTests.hearth(words, standardOutput: output)
      #expect(run.status == 74, "\(words) to \(output): exit \(run.status): \(run.err.prefix(400))")
      let lines = run.err.split(separator: "\n")
      #expect(lines.last?.hasPrefix("hearth: cannot write the output: ") == true, "\(run.err.prefix(400))")
      #expect(!run.err.contains("Fatal error") && !run.err.contains("0x"), "\(run.err.prefix(400))")
    }
  }

  /// review26 F4: a file or folder a flag names that cannot be written said
  /// "bad input" and exited 3, and `geo trips` counted it as its PATH's failure.
  @Test(
    "an output file or folder that cannot be written (a full disk, a missing folder, a folder, a file where a folder goes): exit 74 naming it and why"
  )
  func outputFilesCannotBeWritten() {
    let folder = TemporaryFolder()
    let points = (0..<5).map { k in
      "<trkpt lat=\"48.85\(k)\" lon=\"2.35\"><time>2023-08-01T12:00:0\(k)Z</time></trkpt>"
    }
    let gpx = folder.write(
      "t.gpx",
      "<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\(points.joined())</trkseg></trk></gpx>")
    let log = folder.write(
      "log.csv", "user,time_ms,latitude,longitude,received_ms\n1,1700000000000,40.0,-75.0,1700000001000\n")
    let places = folder.write(
      "places.geojson",
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-75,40]},"properties":{"radiusMeters":100}}]}"#
    )
    let cases: [([String], String)] = [
      (
        ["data", "convert", gpx, "--to", "gpx", "--out", "/dev/full"],
        "/dev/full: no space left on the device"
      ),
      (
        ["data", "convert", gpx, "--to", "gpx", "--out", folder.path("missing/x.gpx")],
        "no such file or folder"
      ),
      (["data", "convert", gpx, "--to", "gpx", "--out", folder.path], "the system refused the write"),
      (["data", "convert", gpx, "--to", "folder", "--out", log], "\(log): exists and is not a folder"),
      (["data", "convert", gpx, "--to", "folder", "--out", folder.path], "holds no trace"),
      (["geo", "trips", gpx, "--export-fixes", "/dev/full"], "/dev/full: cannot write: no space left"),
      (["geo", "replay", log, "--places", places, "--geojson", "/dev/full"], "/dev/full: no space left"),
    ]
    for (words, why) in cases {
      let result = run(words)
      #expect(result.code == 74, "\(words): exit \(result.code): \(result.err)")
      let last = result.err.split(separator: "\n").last.map(String.init) ?? ""
      #expect(
        last.hasPrefix("hearth \(words[0]) \(words[1]): cannot write the output: ") && last.contains(why),
        "\(words): \(result.err)")
      #expect(
        !result.err.contains("bad input") && !result.err.contains("NSCocoaErrorDomain"), "\(result.err)")
    }
    // Nothing was written into the folder that holds no trace.
    #expect(!FileManager.default.fileExists(atPath: folder.path("trace.json")))
    #expect(run(["data", "convert", gpx, "--to", "gpx", "--out", folder.path("ok.gpx")]).code == 0)
  }

  @Test("the exit status of a failed write is in the help's table of exit codes")
  func exitCodeIsDocumented() {
    #expect(run(["--help"]).out.contains("74 the output could not be written"))
  }
}

@Suite("hearth data: a folder of which only Metadata.csv was read is bad input (issue 29.12)")
struct SideFileCommandTests {
  @Test("data inspect and data convert exit 3 when only a side file of the folder could be read")
  func onlyMetadataIsBadInput() {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording time,platform\n1.0,phone,2024-05-01_10-00-00,ios\n")
    folder.write("Accelerometer.csv", "")
    let inspect = run(["data", "inspect", folder.path])
    #expect(inspect.code == 3 && inspect.err.contains("no stream has a sample"), "\(inspect)")
    let convert = run(["data", "convert", folder.path, "--to", "gpx", "--out", folder.path("out.gpx")])
    #expect(convert.code == 3 && convert.err.contains("no stream has a sample"), "\(convert)")
  }
}
