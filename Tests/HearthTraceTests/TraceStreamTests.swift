import Foundation
import HearthGeo
import HearthSim
import Testing
import _HearthFuzzing
import _HearthTestSupport

@testable import HearthTrace

/// A recording streamed in chunks is the recording read whole: the same
/// streams sample for sample and the same report, for any chunk size, on
/// every format that streams, with out-of-order rows, repeats and bad rows.
@Suite("Streaming a recording in time order == reading it whole")
struct TraceStreamTests {
  static let seed = ProcessInfo.processInfo.environment["HEARTH_SEED"].flatMap(UInt64.init) ?? 22

  /// A Sensor Logger export with every stream, some rows late, repeated or
  /// bad, and a wall clock that steps once (2–10 s either way, at 20–80 %
  /// of the recording: every stream stays on `seconds_elapsed`).
  static func sensorLoggerExport(seed: UInt64, seconds: Int = 20) -> TemporaryFolder {
    var generator = SeededGenerator(seed: seed)
    var clockDraws = SeededGenerator(seed: seed ^ 0xC10C)
    let size = (clockDraws.nextDouble(in: 2, 10) * 1000).rounded() / 1000
    let wall = WallClock(
      startMilliseconds: 1_700_000_000_000,
      steps: [
        .init(
          atSeconds: clockDraws.nextDouble(in: 0.2, 0.8) * Double(seconds),
          bySeconds: clockDraws.nextUnit() < 0.5 ? -size : size)
      ])
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv",
      "version,device name,recording epoch time,platform,standardisation\n3,Pixel,1700000000000,android,false\n"
    )
    func rows(_ header: String, rate: Int, _ values: (inout SeededGenerator) -> String) -> String {
      var lines: [String] = []
      for i in 0..<(seconds * rate) {
        let t = Double(i) / Double(rate) + generator.nextDouble(in: 0, 0.001)
        let ns = 1_700_000_000_000_000_000 + Int64(t * 1e9) + wall.stepMilliseconds(atSeconds: t) * 1_000_000
        lines.append("\(ns),\(t),\(values(&generator))")
        let u = generator.nextUnit()
        if u < 0.02 { lines.append(lines[lines.count - 1]) }  // an exact repeat
        if u > 0.98 && lines.count > 5 { lines.swapAt(lines.count - 1, lines.count - 4) }  // late rows
        if u > 0.97 && u <= 0.98 { lines.append("\(ns),,1,2,3") }  // a blank time
        if u > 0.96 && u <= 0.97 { lines.append("\(ns),\(t),nan,inf,x") }  // bad values
      }
      return header + "\n" + lines.joined(separator: "\n") + "\n"
    }
    folder.write(
      "TotalAcceleration.csv",
      rows("time,seconds_elapsed,z,y,x", rate: 50) { g in
        "\(9.8 + g.nextDouble(in: -0.2, 0.2)),\(g.nextDouble(in: -1, 1)),\(g.nextDouble(in: -1, 1))"
      })
    folder.write(
      "Gyroscope.csv",
      rows("time,seconds_elapsed,z,y,x", rate: 10) { g in
        "\(g.nextDouble(in: -1, 1)),\(g.nextUnit() < 0.05 ? -100 : 0.1),\(g.nextDouble(in: -1, 1))"
      })
    folder.write(
      "Barometer.csv",
      rows("time,seconds_elapsed,relativeAltitude,pressure", rate: 5) { g in
        "\(g.nextDouble(in: -1, 1)),\(1000 + g.nextDouble(in: -1, 1))"
      })
    var location = "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n"
    for i in 0..<seconds {
      let ns =
        1_700_000_000_000_000_000 + Int64(i) * 1_000_000_000
        + wall.stepMilliseconds(atSeconds: Double(i)) * 1_000_000
      let fix = "\(generator.nextDouble(in: 3, 20)),\(generator.nextDouble(in: 0, 30)),90,10,2.\(i),48.0"
      location += "\(ns),\(i),\(fix)\n"
      if i % 7 == 3 { location += "\(ns + 10_000_000),\(Double(i) + 0.01),\(fix)\n" }  // the same fix again
    }
    folder.write("Location.csv", location)
    folder.write(
      "Activity.csv",
      "time,seconds_elapsed,activity\n1700000000000000000,0,stationary\n1700000005000000000,5,automotive\n1700000002000000000,2,walking\n"
    )
    return folder
  }

  /// Reads `path` whole and streamed in chunks of `samples`; checks the
  /// chunks' time order and returns both.
  func bothWays(_ path: String, mapping: String? = nil, samples: Int) throws -> (
    (Trace, ImportReport), (Trace, ImportReport)
  ) {
    let whole = try TraceImport.read(path: path, mappingPath: mapping)
    let stream = try TraceImport.stream(path: path, mappingPath: mapping)
    var trace = Trace(metadata: stream.metadata)
    var complete = -Double.infinity
    let report = try stream.forEachChunk(samples: samples) { chunk in
      let t = chunk.trace
      let times =
        (t.accelerometer?.samples.seconds ?? []) + (t.gyroscope?.seconds ?? []) + (t.barometer?.seconds ?? [])
        + (t.gravity?.seconds ?? [])
      #expect(times.allSatisfy { $0 >= complete }, "a chunk reached back before the previous chunk's end")
      #expect(chunk.completeBeforeSeconds >= complete)
      complete = chunk.completeBeforeSeconds
      trace.append(t)
    }
    #expect(complete == .infinity)
    return (whole, (trace, report))
  }

  /// Equal sample for sample, NaN equal to NaN.
  func expectSame(_ a: (Trace, ImportReport), _ b: (Trace, ImportReport), _ label: String) {
    #expect(a.0.matches(b.0), "\(label): streams differ (\(summary(a.0)) vs \(summary(b.0)))")
    #expect(a.1 == b.1, "\(label): reports differ")
  }

  func summary(_ t: Trace) -> String {
    "fixes \(t.fixes.count), accelerometer \(t.accelerometer?.samples.count ?? -1), gyroscope \(t.gyroscope?.count ?? -1), barometer \(t.barometer?.count ?? -1), activities \(t.activities.count)"
  }

  @Test("a Sensor Logger export, chunks of 1, 7, 333 and 65 536 samples", arguments: [1, 7, 333, 65_536])
  func sensorLogger(samples: Int) throws {
    let folder = Self.sensorLoggerExport(seed: Self.seed)
    let (whole, streamed) = try bothWays(folder.path, samples: samples)
    expectSame(whole, streamed, "chunks of \(samples)")
    // The export's flaws are all accounted for, the same way.
    let acceleration = try #require(whole.1.file(endingWith: "TotalAcceleration.csv"))
    #expect(
      acceleration.rejectedByReason[.badTime] ?? 0 > 0 && acceleration.rejectedByReason[.duplicate] ?? 0 > 0)
    #expect(acceleration.reorderedRows > 0 && acceleration.reconciles)
    #expect(
      whole.1.file(endingWith: "Gyroscope.csv")?.rejectedByReason[.outOfRange] ?? 0 > 0, "the −100 marker")
    #expect(whole.1.file(endingWith: "Location.csv")?.rejectedByReason[.duplicate] == 3, "fixes logged twice")
    // The wall clock's step, in every file with rows on both sides of it (a
    // late row across it adds a step back and forth: an odd count).
    #expect((whole.1.file(endingWith: "TotalAcceleration.csv")?.clockStepCount ?? 0) % 2 == 1)
    #expect(whole.1.file(endingWith: "Location.csv")?.clockStepCount == 1)
  }

  @Test("random exports (seeded): streamed == whole for random chunk sizes")
  func randomExports() throws {
    var generator = SeededGenerator(seed: Self.seed &+ 1)
    for trial in 0..<6 {
      let seed = UInt64(generator.nextUnit() * 1e9)
      let folder = Self.sensorLoggerExport(seed: seed, seconds: 3 + trial)
      let samples = 1 + Int(generator.nextUnit() * 200)
      let (whole, streamed) = try bothWays(folder.path, samples: samples)
      expectSame(whole, streamed, "export seed \(seed), chunks of \(samples)")
    }
  }

  @Test(
    "phyphox, a column mapping and a trace folder with shuffled columns stream like they read",
    arguments: [1, 50, 4096])
  func otherFormats(samples: Int) throws {
    let phyphox = TemporaryFolder()
    var rows =
      "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n"
    for i in 0..<300 { rows += "\(Double((i * 37) % 300) * 0.005),0.1,0.2,\(9.7 + Double(i % 5) * 0.05)\n" }
    phyphox.write("Accelerometer.csv", rows)
    phyphox.write(
      "Pressure.csv", "\"Time (s)\",\"Pressure (hPa)\"\n0,1000\n0.5,1000.5\n0.25,999\n0.5,1000.5\n")
    phyphox.write(
      "meta/time.csv", "\"event\",\"experiment time\",\"system time\"\n\"START\",0,1700000000.5\n")
    expectSame(
      try bothWays(phyphox.path, samples: samples).0, try bothWays(phyphox.path, samples: samples).1,
      "phyphox")

    let mapped = TemporaryFolder()
    var imu = "t,ax,ay,az,lat,lon\n"
    for i in 0..<200 { imu += "\(1_700_000_000 + Double((i * 13) % 200) * 0.01),0,0,9.8,48.\(i % 10),2.0\n" }
    mapped.write("imu.csv", imu)
    mapped.write(
      "mapping.json",
      """
      {"name": "mixed", "units": "SI", "files": [{"file": "imu.csv", "time": {"column": "t", "format": "epoch-seconds"},
        "accelerometer": {"x": {"column": "ax", "unit": "m/s^2"}, "y": {"column": "ay"}, "z": {"column": "az"}},
        "fixes": {"latitude": {"column": "lat"}, "longitude": {"column": "lon"}}}]}
      """)
    let (mappedWhole, mappedStreamed) = try bothWays(
      mapped.path, mapping: mapped.path("mapping.json"), samples: samples)
    expectSame(mappedWhole, mappedStreamed, "mapping")
    #expect(mappedWhole.0.fixes.count == 200 && mappedWhole.1.files[0].reorderedRows > 0)

    let folder = TemporaryFolder()
    var trace = Trace(metadata: TraceMetadata(timeOriginMilliseconds: 1_700_000_000_000, format: "test"))
    var gyro = VectorStream()
    for i in 0..<500 { gyro.append(seconds: Double(i) * 0.1, x: 0.1, y: 0, z: Double(i % 7)) }
    trace.gyroscope = gyro
    try TraceFolder.write(trace, to: folder.path("trace"))
    // Shuffle the times and give two samples one time: the folder must be put back in order.
    var times = gyro.seconds
    times.swapAt(10, 400)
    times.swapAt(11, 12)
    times[300] = times[299]
    try NPYArray.write(times, to: folder.path("trace/gyroscope/t.npy"))
    let (folderWhole, folderStreamed) = try bothWays(folder.path("trace"), samples: samples)
    expectSame(folderWhole, folderStreamed, "trace folder")
    var latest = -Double.infinity
    let late = times.filter { t in
      defer { latest = max(latest, t) }
      return t < latest
    }.count
    #expect(folderWhole.1.file(endingWith: "gyroscope")?.reorderedRows == late && late > 2)
    #expect(folderWhole.0.gyroscope?.seconds == times.sorted())
  }

  @Test(
    "regression 2026-12-02 (the fuzz seed of mappedFiles): a mapping with a clock and every kind of stream streams like it reads"
  )
  func mappingWithClock() throws {
    let folder = TemporaryFolder()
    let seed = try Data(
      contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Tests/Fuzz/Corpus/mappedFiles/seed"))
    for (name, part) in zip(FuzzTarget.mappedFiles.files, FuzzTarget.split(Array(seed))) {
      folder.write(name, part)
    }
    folder.write("mapping.json", FuzzTarget.mixedMapping)
    for samples in [1, 64] {
      let (whole, streamed) = try bothWays(
        folder.path, mapping: folder.path("mapping.json"), samples: samples)
      expectSame(whole, streamed, "chunks of \(samples)")
    }
  }

  @Test("memory: a file in time order is never buffered beyond a batch")
  func boundedBuffer() throws {
    let folder = TemporaryFolder()
    var text = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<200_000 { text += "0,\(Double(i) * 0.01),9.8,0,0\n" }
    folder.write("TotalAcceleration.csv", text)
    let stream = try TraceImport.stream(path: folder.path)
    var largest = 0
    var total = 0
    let report = try stream.forEachChunk(samples: 4096) { chunk in
      let n = chunk.trace.accelerometer?.samples.count ?? 0
      largest = max(largest, n)
      total += n
    }
    #expect(total == 200_000 && report.rowsKept == 200_000)
    #expect(largest <= 4096, "a chunk holds at most the asked-for samples when times differ")
  }
}
