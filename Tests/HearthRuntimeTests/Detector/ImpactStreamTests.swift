import Foundation
import HearthGeo
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

/// The streamed bridge gives the detector exactly what the whole-trace
/// bridge gives it: the same batches, gate, verdicts and figures, for any
/// chunk size.
@Suite("A recording streamed to the detector == the whole recording")
struct ImpactStreamTests {
  /// Batches of `path` streamed in chunks of `samples`, and the finished feed.
  func streamed(_ path: String, gate: VehicleGatePolicy, samples: Int) throws -> ([ImpactBatch], ImpactStream)
  {
    var feed = ImpactStream(gate: gate)
    var batches: [ImpactBatch] = []
    _ = try TraceImport.stream(path: path).forEachChunk(samples: samples) { batches += feed.add($0) }
    batches += feed.finish()
    return (batches, feed)
  }

  func expectSame(_ path: String, gate: VehicleGatePolicy, label: String) throws {
    let (trace, _) = try TraceImport.read(path: path)
    let whole = try #require(ImpactFeed(trace: trace, gate: gate), "\(label)")
    let batches = Array(whole.batches())
    for samples in [1, 17, 1000, 65_536] {
      let (streamed, feed) = try streamed(path, gate: gate, samples: samples)
      #expect(
        streamed == batches, "\(label), chunks of \(samples): \(streamed.count) vs \(batches.count) batches")
      // The figures beside the verdicts: counted from the batches (what a
      // session counts) and from the whole feed, the same.
      var counted = RecordingStatistics()
      for batch in streamed { counted.add(batch) }
      #expect(feed.gate == whole.gate && counted == whole.statistics)
      #expect(counted.rateWarnings == whole.statistics.rateWarnings)
      #expect(feed.hasAccelerometer)
    }
  }

  @Test(
    "catalogue scenarios written as trace folders (gravity included, gate from the recording)",
    arguments: ["C1", "N7", "N9"])
  func scenarios(id: String) throws {
    let folder = TemporaryFolder()
    var trace = try #require(ScenarioCatalogue.scenario(id)).generate(seed: 4).trace
    trace.activities = [
      .init(seconds: 0, activity: .automotive), .init(seconds: 20, activity: .walking),
      .init(seconds: 30, activity: .automotive),
    ]
    try TraceFolder.write(trace, to: folder.path("t"))
    for gate in VehicleGatePolicy.allCases {
      try expectSame(folder.path("t"), gate: gate, label: "\(id) \(gate)")
    }
    // The replay reaches the verdicts the whole feed reaches.
    let replay = try ImpactReplay.run(TraceImport.stream(path: folder.path("t")), path: "t", gate: .on)
    let (whole, _) = try TraceImport.read(path: folder.path("t"))
    #expect(replay.verdicts == ImpactFeed(trace: whole, gate: .on)?.verdicts())
  }

  /// Found by a review (specrev-impact F3): a trace folder keeps its fixes
  /// in file order (a history of uploads), and the streamed bridge handed
  /// them on unsorted, so the batch cutter stalled behind the first fix and
  /// the earlier ones reached the detector late, "not newer". Catalogue C4b
  /// was silent whole and a possible impact streamed.
  @Test(
    "a trace folder whose fixes are out of time order: streamed == whole, batches and verdicts",
    arguments: [("C1", UInt64(7)), ("C4b", 1), ("C4b", 7)])
  func fixesOutOfOrder(id: String, seed: UInt64) throws {
    let folder = TemporaryFolder()
    var trace = try #require(ScenarioCatalogue.scenario(id)).generate(seed: seed).trace
    let n = trace.fixes.count
    trace.fixes = trace.fixes.selecting(Array(n / 2..<n) + Array(0..<n / 2))
    try TraceFolder.write(trace, to: folder.path("t"))
    try expectSame(folder.path("t"), gate: .on, label: "\(id) seed \(seed)")
    let replay = try ImpactReplay.run(TraceImport.stream(path: folder.path("t")), path: "t", gate: .on)
    let (whole, _) = try TraceImport.read(path: folder.path("t"))
    #expect(replay.verdicts == ImpactFeed(trace: whole, gate: .on)?.verdicts())
    #expect(replay.session.detector.counters.fixes.notNewer == 0)
  }

  @Test(
    "gravity-free acceleration plus a slower gravity stream: gravity added by time across chunk boundaries")
  func gravityByTimeAcrossChunks() throws {
    let folder = TemporaryFolder()
    var acceleration = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<1000 { acceleration += "0,\(Double(i) * 0.02),\(i == 600 ? 50 : 0.05),0.01,0\n" }
    var gravity = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<190 {
      gravity += "0,\(Double(i) * 0.1 + 0.05),\(9.80665 - Double(i) * 0.0001),0,\(Double(i) * 0.001)\n"
    }
    folder.write("Accelerometer.csv", acceleration)
    folder.write("Gravity.csv", gravity)  // ends at 18.95 s, before the accelerometer (19.98 s)
    folder.write(
      "Gyroscope.csv",
      "time,seconds_elapsed,z,y,x\n"
        + (0..<200).map { "0,\(Double($0) * 0.1),0,0,\($0 == 121 ? 5 : 0)" }.joined(separator: "\n"))
    try expectSame(folder.path, gate: .on, label: "linear + gravity")
  }

  @Test("regression 2026-12-02: a NaN sample time before the jolt no longer silences the detector")
  func nanTimeBeforeJolt() throws {
    let folder = TemporaryFolder()
    let trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 2).trace
    try TraceFolder.write(trace, to: folder.path("t"))
    let clean = try ImpactReplay.run(TraceImport.stream(path: folder.path("t")), path: "t", gate: .on)
    let jolt = try #require(clean.verdicts.first { $0.outcome == .possibleImpact }).joltSeconds
    var times = try #require(trace.accelerometer).samples.seconds
    let before = try #require(times.lastIndex { $0 < jolt - 1 })
    times[before] = .nan
    try NPYArray.write(times, to: folder.path("t/accelerometer/t.npy"))
    let hurt = try ImpactReplay.run(TraceImport.stream(path: folder.path("t")), path: "t", gate: .on)
    #expect(hurt.verdicts.map(\.outcome) == clean.verdicts.map(\.outcome))
    #expect(hurt.verdicts.contains { $0.outcome == .possibleImpact })
    #expect(hurt.report.file(endingWith: "accelerometer")?.rejectedByReason == [.badTime: 1])
  }

  @Test("regression 2026-12-02: an accelerometer that kept no row is bad input, never \"no jolt\"")
  func noAccelerometerRow() throws {
    let folder = TemporaryFolder()
    folder.write("TotalAcceleration.csv", "time,seconds_elapsed,z,y,x\n0,,9.8,0,0\n0,NaN,9.8,0,0\n")
    #expect {
      try ImpactReplay.run(TraceImport.stream(path: folder.path), path: folder.path, gate: .on)
    } throws: { error in "\(error)".contains("no accelerometer") && "\(error)".contains("2 rows read, 0 kept")
    }
    // Gravity-free acceleration with no gravity at all: the same.
    let linear = TemporaryFolder()
    linear.write("Accelerometer.csv", "time,seconds_elapsed,z,y,x\n0,0,0.1,0,0\n0,0.02,0.1,0,0\n")
    #expect(throws: TraceError.self) {
      try ImpactReplay.run(TraceImport.stream(path: linear.path), path: linear.path, gate: .on)
    }
  }

  @Test(
    "regression 2026-12-04: whole-millisecond stamps on 250 ms edges: streamed in any chunks == the whole feed",
    arguments: [5, 1234, 999])
  func millisecondEdges(firstMs: Int) throws {
    let folder = TemporaryFolder()
    var trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 3).trace
    // Every stream re-stamped in whole milliseconds from firstMs, as a logger writes them.
    let stamp = { (t: Double) in (Double(firstMs) + (t * 1000).rounded()) / 1000 }
    var a = try #require(trace.accelerometer)
    a.samples.seconds = a.samples.seconds.map(stamp)
    trace.accelerometer = a
    var g = try #require(trace.gyroscope)
    g.seconds = g.seconds.map(stamp)
    trace.gyroscope = g
    var b = try #require(trace.barometer)
    b.seconds = b.seconds.map(stamp)
    trace.barometer = b
    try TraceFolder.write(trace, to: folder.path("t"))
    try expectSame(folder.path("t"), gate: .on, label: "first sample at \(firstMs) ms")
  }

  @Test(
    "an activity stream that starts late: the streamed gate is off from the first window, as the whole feed's"
  )
  func lateActivityStream() throws {
    let folder = TemporaryFolder()
    var trace = try #require(ScenarioCatalogue.scenario("C1")).generate(seed: 4).trace
    trace.activities = [.init(seconds: 15, activity: .unknown), .init(seconds: 35, activity: .automotive)]
    try TraceFolder.write(trace, to: folder.path("t"))
    try expectSame(folder.path("t"), gate: .recording, label: "activities from 15 s")
    let (whole, _) = try TraceImport.read(path: folder.path("t"))
    let feed = try #require(ImpactFeed(trace: whole, gate: .recording))
    #expect(!feed.gate.isOn(at: 0) && feed.gate.isOn(at: 35))
  }
}
