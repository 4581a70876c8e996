import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthCommand

/// `--mapping`, `--timezone`, `--rate` parsed one way by every command that
/// reads recordings; a bad time column is exit 3; streams apart in time are
/// warned about; no sentinel time reaches the output (issue 18).
@Suite("Reading flags, bad time columns and sentinels in the command")
struct ReadingFlagsTests {
  /// A mapped folder: `accel.csv` (a still phone at 50 Hz on `time`) and its mapping.
  static func mapped(_ header: String = "t", _ times: [String], time: String) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write(
      "accel.csv", "\(header),ax,ay,az\n" + times.map { "\($0),0.1,0.2,9.8\n" }.joined())
    folder.write(
      "mapping.json",
      """
      {"name": "flags", "units": "SI", "files": [{"file": "accel.csv", "time": \(time),
        "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}}}]}
      """)
    return folder
  }

  static let localTimes = mapped(
    "when", ["2024-05-01 10:00:00", "2024-05-01 10:00:00.02", "2024-05-01 10:00:00.04"],
    time: #"{"column": "when", "format": "iso8601"}"#)

  @Test("--timezone and --rate reach the reader; without them such files are bad input")
  func flagsReachTheReader() throws {
    let folder = Self.localTimes
    let mapping = folder.path("mapping.json")
    let refused = run(["data", "inspect", folder.path, "--mapping", mapping])
    #expect(
      refused.code == 3 && refused.err.contains("accel.csv:2:1 (when)") && refused.err.contains("--timezone"))
    let zoned = run(["data", "inspect", folder.path, "--mapping", mapping, "--timezone", "Europe/Berlin"])
    #expect(zoned.code == 0, "\(zoned.err)")
    #expect(zoned.out.contains("time origin 2024-05-01T08:00:00.000Z (1714550400000 ms since the epoch)"))
    let offset = run(["data", "inspect", folder.path, "--mapping", mapping, "--timezone=-03:00"])
    #expect(offset.out.contains("time origin 2024-05-01T13:00:00.000Z"))

    let fixed = Self.mapped("n", ["1", "2", "3"], time: "{}")
    let noRate = run(["data", "inspect", fixed.path, "--mapping", fixed.path("mapping.json")])
    #expect(noRate.code == 3 && noRate.err.contains("--rate"))
    let rated = run(["data", "inspect", fixed.path, "--mapping", fixed.path("mapping.json"), "--rate", "50"])
    #expect(
      rated.code == 0 && rated.out.contains("3 samples over 0.04 s") && rated.out.contains("50 Hz"),
      "\(rated.out)")
  }

  @Test("bad zones and rates are usage errors (exit 2), and so are they without --mapping")
  func usageErrors() throws {
    let folder = Self.localTimes
    let mapping = folder.path("mapping.json")
    for (flags, words) in [
      (["--timezone", "Mars/Olympus"], "--timezone: 'Mars/Olympus'"),
      (["--timezone", "+19:00"], "--timezone"),
      (["--rate", "0"], "--rate: '0'"), (["--rate", "-50"], "--rate"), (["--rate", "nan"], "--rate"),
      (["--rate", "inf"], "--rate"), (["--rate", "fast"], "--rate"), (["--rate", "1000001"], "--rate"),
    ] {
      let result = run(["data", "inspect", folder.path, "--mapping", mapping] + flags)
      #expect(result.code == 2 && result.err.contains(words), "\(flags): \(result.err)")
    }
    let fixed = Self.mapped("n", ["1", "2"], time: "{}")
    let fastest = run([
      "data", "inspect", fixed.path, "--mapping", fixed.path("mapping.json"), "--rate", "1000000",
    ])
    #expect(fastest.code == 0, "\(fastest.err)")
    let bare = run(["data", "inspect", folder.path, "--timezone", "UTC"])
    #expect(bare.code == 2 && bare.err.contains("--timezone applies to CSV files read with --mapping"))
  }

  @Test("every command that reads recordings takes the flags and documents them")
  func everyReadingCommand() throws {
    let folder = Self.localTimes
    let flags = ["--mapping", folder.path("mapping.json"), "--timezone", "Europe/Berlin", "--rate", "50"]
    let out = TemporaryFolder()
    let commands: [[String]] = [
      ["data", "inspect", folder.path],
      ["data", "convert", folder.path, "--to", "folder", "--out", out.path("t")],
      ["impact", "detect", folder.path], ["impact", "sweep", folder.path, "--seeds", "1", "--hours", "0"],
      ["geo", "trips", folder.path], ["geo", "snap", folder.path],
      ["geo", "replay", folder.path, "--places", out.path("none.geojson")],
    ]
    for words in commands {
      let help = run(Array(words.prefix(2)) + ["--help"])
      #expect(
        help.out.contains("--timezone ZONE") && help.out.contains("--rate HZ"), "\(words[0]) \(words[1]) help"
      )
      let result = run(words + flags)
      // Each reads the file through the flags: never a usage error; the geo
      // commands find no fixes in an accelerometer file (bad input), the rest work.
      #expect(result.code != 2, "\(words): \(result.err)")
      #expect(!result.err.contains("local time with no zone"), "\(words): the zone did not reach the reader")
    }
  }

  @Test(
    "a time column that does not parse: exit 3 naming file, column and the format expected, in every reader command"
  )
  func badTimeColumn() throws {
    let folder = Self.mapped(
      "time", ["2024-05-01 10:00:00", "2024-05-01 10:00:01"],
      time: #"{"column": "time", "format": "epoch-seconds"}"#)
    let mapping = folder.path("mapping.json")
    for words in [["data", "inspect"], ["impact", "detect"], ["data", "convert"]] {
      var command = words + [folder.path, "--mapping", mapping]
      if words[1] == "convert" { command += ["--to", "folder", "--out", TemporaryFolder().path("t")] }
      let result = run(command)
      #expect(result.code == 3, "\(words): \(result.code) \(result.out)")
      #expect(
        result.err.contains("accel.csv:2:1 (time)") && result.err.contains("expected epoch-seconds"),
        "\(words): \(result.err)")
      #expect(!result.out.contains("no jolt"), "never a quiet file")
    }
  }

  @Test("the built executable: a bad time column exits 3 with file, column and format on stderr")
  func badTimeColumnProcess() throws {
    let folder = Self.mapped(
      "time", ["10:00:00", "10:00:01"], time: #"{"column": "time", "format": "epoch-milliseconds"}"#)
    for words in [["data", "inspect"], ["impact", "detect"]] {
      let run = try BuiltExecutable.run(
        "hearth", words + [folder.path, "--mapping", folder.path("mapping.json")])
      let (o, e) = (run.out, run.err)
      #expect(run.status == 3, "\(words): \(o) \(e)")
      #expect(
        e.contains("accel.csv:2:1 (time)") && e.contains("'10:00:00': expected epoch-milliseconds"), "\(e)")
    }
  }

  @Test("streams apart in time: a warning each, counted, in data inspect and impact detect")
  func streamsApart() throws {
    let folder = TemporaryFolder()
    var accel = "t,ax,ay,az\n"
    var gravity = "t,gx,gy,gz\n"
    for i in 0..<100 {
      accel += "\(1_714_550_400 + Double(i) * 0.02),0.1,0.1,0.1\n"
      gravity += "\(1_714_554_000 + Double(i) * 0.02),0,0,9.8\n"
    }
    folder.write("accel.csv", accel)
    folder.write("gravity.csv", gravity)
    folder.write(
      "mapping.json",
      """
      {"name": "apart", "units": "SI", "files": [
        {"file": "accel.csv", "time": {"column": "t", "format": "epoch-seconds"},
         "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}, "content": "excludesGravity"}},
        {"file": "gravity.csv", "time": {"column": "t", "format": "epoch-seconds"},
         "gravity": {"x": {"column": "gx"}, "y": {"column": "gy"}, "z": {"column": "gz"}}}]}
      """)
    let inspect = run(["data", "inspect", folder.path, "--mapping", folder.path("mapping.json")])
    #expect(inspect.code == 0)
    #expect(
      inspect.out.contains("warning: gravity 3600.000…3601.980 s overlaps no other stream in time"),
      "\(inspect.out)")
    #expect(inspect.out.contains("2 time warnings"))
    let detect = run(["impact", "detect", folder.path, "--mapping", folder.path("mapping.json")])
    #expect(
      detect.err.contains("warning: accelerometer (excludesGravity) 0.000…1.980 s overlaps no other stream"))
    #expect(detect.err.contains("2 time warnings"), "\(detect.err)")
    // Overlapping streams: no warning.
    folder.write("gravity.csv", gravity.replacingOccurrences(of: "17145540", with: "17145504"))
    let together = run(["data", "inspect", folder.path, "--mapping", folder.path("mapping.json")])
    #expect(together.code == 0 && !together.out.contains("warning"), "\(together.out)")
  }

  @Test(
    "a wall clock that steps against the monotonic one: a warning on stderr of data inspect, impact detect and data convert, counted"
  )
  func wallClockStep() throws {
    let folder = TemporaryFolder()
    let origin: Int64 = 1_700_000_000_000
    var trace = Trace(metadata: TraceMetadata(timeOriginMilliseconds: origin, format: "test"))
    var acceleration = VectorStream()
    for i in 0..<1000 { acceleration.append(seconds: Double(i) / 50, x: 0.1, y: 0.2, z: 9.8) }
    trace.accelerometer = AccelerationStream(samples: acceleration, content: .includesGravity)
    for k in 0..<20 {
      trace.fixes.append(
        Fix(
          timeMilliseconds: origin + Int64(k) * 1000 + 500, latitudeDegrees: 48, longitudeDegrees: 2,
          horizontalAccuracyMeters: 5, speedMetersPerSecond: 10))
    }
    try SensorLoggerExport.write(
      trace, to: folder.path("stepped"),
      wallClock: WallClock(startMilliseconds: origin, steps: [.init(atSeconds: 9.2, bySeconds: -3)]))
    let line = "warning: Location.csv: the wall clock stepped −3.000 s at 9.500 s (line 11)"
    let inspect = run(["data", "inspect", folder.path("stepped")])
    #expect(inspect.code == 0, "\(inspect.err)")
    #expect(inspect.err.contains(folder.path("stepped") + ": " + line), "\(inspect.err)")
    #expect(inspect.out.contains(line) && inspect.out.contains("2 time warnings"), "\(inspect.out)")
    let detect = run(["impact", "detect", folder.path("stepped")])
    #expect(detect.err.contains(folder.path("stepped") + ": " + line), "\(detect.err)")
    #expect(
      detect.err.contains("TotalAcceleration.csv: the wall clock stepped −3.000 s at 9.200 s (line 462)"),
      "\(detect.err)")
    #expect(detect.err.contains("2 time warnings"), "\(detect.err)")
    let convert = run([
      "data", "convert", folder.path("stepped"), "--to", "gpx", "--out", folder.path("o.gpx"),
    ])
    #expect(convert.code == 0 && convert.err.contains(line), "\(convert.err)")
    // The same recording without the step: no warning anywhere.
    try SensorLoggerExport.write(trace, to: folder.path("plain"))
    let plain = run(["data", "inspect", folder.path("plain")])
    #expect(!plain.out.contains("warning") && !plain.err.contains("warning"), "\(plain.out) \(plain.err)")
    let plainDetect = run(["impact", "detect", folder.path("plain")])
    #expect(!plainDetect.err.contains("warning"), "\(plainDetect.err)")
  }

  /// Regression: `time origin -9223372036854775808` (issue 18). Every door
  /// that sets a time origin, given Int64.min/max or a non-finite origin,
  /// says "no absolute time"; no output of data inspect's header line or of
  /// impact detect's records holds a sentinel, NaN or infinity.
  @Test("regression: time origin -9223372036854775808 never printed")
  func sentinelTimeOriginNeverPrinted() throws {
    var folders: [TemporaryFolder] = []
    let sensorLogger = TemporaryFolder()
    sensorLogger.write(
      "Metadata.csv",
      "version,device name,recording epoch time,platform\n3,Pixel,-9223372036854775808,android\n")
    sensorLogger.write(
      "Location.csv",
      "time,seconds_elapsed,latitude,longitude,horizontalAccuracy,speed,bearing,altitude\n-9223372036854775808,0,48,2,5,1,0,30\n9223372036854775807,1,48,2,5,1,0,30\n"
    )
    sensorLogger.write(
      "TotalAcceleration.csv", "time,seconds_elapsed,z,y,x\n-9223372036854775808,0,9.8,0,0\n1,0.02,9.8,0,0\n")
    folders.append(sensorLogger)
    for origin in ["-9223372036854775808", "9223372036854775807", "1e300", "-1e300"] {
      let traceFolder = TemporaryFolder()
      var trace = Trace(metadata: TraceMetadata(format: "test"))
      var samples = VectorStream()
      samples.append(seconds: [0, 0.02], x: [0, 0], y: [0, 0], z: [9.8, 9.8])
      trace.accelerometer = AccelerationStream(samples: samples, content: .includesGravity)
      try TraceFolder.write(trace, to: traceFolder.path("t"))
      let manifest = try String(contentsOfFile: traceFolder.path("t/trace.json"), encoding: .utf8)
      _ = traceFolder.write(
        "t/trace.json",
        manifest.replacingOccurrences(
          of: "{", with: "{\"timeOriginMilliseconds\": \(origin), ", options: .anchored))
      folders.append(traceFolder)
    }
    let phyphox = TemporaryFolder()
    phyphox.write(
      "Accelerometer.csv",
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n0,0,0,9.8\n0.02,0,0,9.8\n"
    )
    phyphox.write(
      "meta/time.csv", "\"event\",\"experiment time\",\"system time\"\n\"START\",0,-9223372036854775808\n")
    folders.append(phyphox)
    let clock = Self.mapped(
      "t", ["0", "0.02"], time: #"{"column": "t", "format": "relative-seconds"}"#)
    clock.write("clock.csv", "utc_ms,boot_s\n-9223372036854775808,0\n9223372036854775807,1\n")
    clock.write(
      "mapping.json",
      """
      {"name": "clock", "units": "SI", "files": [{"file": "accel.csv", "time": {"column": "t", "format": "relative-seconds"},
        "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}}}],
       "clock": {"file": "clock.csv", "epoch": {"column": "utc_ms", "format": "epoch-milliseconds"},
                 "relative": {"column": "boot_s", "format": "relative-seconds"}}}
      """)
    folders.append(clock)
    for folder in folders {
      var path = folder.path
      if FileManager.default.fileExists(atPath: folder.path("t")) { path = folder.path("t") }
      let mapping =
        FileManager.default.fileExists(atPath: folder.path("clock.csv"))
        ? ["--mapping", folder.path("mapping.json")] : []
      let inspect = run(["data", "inspect", path] + mapping)
      let header = inspect.out.split(separator: "\n").first.map(String.init) ?? ""
      #expect(header.hasSuffix("no absolute time"), "\(path): \(header) \(inspect.err)")
      for format in ["text", "json", "csv"] {
        let detect = run(["impact", "detect", path, "--format", format] + mapping)
        #expect(detect.code == 0, "\(path) \(format): \(detect.err)")
        for sentinel in ["9223372036854775808", "9223372036854775807", "nan", "inf"] {
          #expect(!detect.out.lowercased().contains(sentinel), "\(path) \(format): \(detect.out)")
        }
      }
    }
  }
}
