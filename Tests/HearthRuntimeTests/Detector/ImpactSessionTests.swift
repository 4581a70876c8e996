import Foundation
import HearthGeo
import HearthImpact
import HearthRuntime
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

/// One detector path for every door: a recording read from a path, built
/// from columns, or handed over in batches reaches the same verdicts and
/// the same figures through ``ImpactSession``.
@Suite("ImpactSession: one path from any recording to the verdicts and the figures beside them")
struct ImpactSessionTests {
  /// A catalogue crash with an activity stream that closes the gate for a while.
  func scenario(_ id: String, seed: UInt64) throws -> Trace {
    var trace = try #require(ScenarioCatalogue.scenario(id)).generate(seed: seed).trace
    trace.activities = [
      .init(seconds: 0, activity: .automotive), .init(seconds: 20, activity: .walking),
      .init(seconds: 30, activity: .automotive),
    ]
    return trace
  }

  /// The same trace as columns (what `hearth_trace_create` and the appends build).
  func columns(_ trace: Trace) throws -> ColumnTrace {
    var built = ColumnTrace(metadata: trace.metadata)
    let a = try #require(trace.accelerometer).samples
    built.append(.accelerometer, seconds: a.seconds, x: a.x, y: a.y, z: a.z)
    if let g = trace.gyroscope { built.append(.gyroscope, seconds: g.seconds, x: g.x, y: g.y, z: g.z) }
    if let b = trace.barometer {
      built.append(.barometer, seconds: b.seconds, x: b.hectopascals, y: [Double]?.none, z: [Double]?.none)
    }
    built.append(
      .activities, seconds: trace.activities.map(\.seconds),
      x: trace.activities.map { Double($0.activity.rawValue) }, y: [Double]?.none, z: [Double]?.none)
    built.append(fixes: trace.fixes)
    return built
  }

  @Test(
    "a path, the same recording built from columns, and the whole feed's batches agree",
    arguments: ["C1", "N9"])
  func everySourceAgrees(id: String) throws {
    let trace = try scenario(id, seed: 4)
    let folder = TemporaryFolder()
    try TraceFolder.write(trace, to: folder.path("t"))
    let (read, _) = try TraceImport.read(path: folder.path("t"))
    for policy in VehicleGatePolicy.allCases {
      var fromPath = ImpactSession()
      try fromPath.feed(TraceImport.stream(path: folder.path("t")), name: "t", gate: policy)
      fromPath.finish()
      var fromColumns = ImpactSession()
      try fromColumns.feed(try columns(trace).stream(), name: "columns", gate: policy)
      fromColumns.finish()
      var fromBatches = ImpactSession()
      let whole = try #require(ImpactFeed(trace: read, gate: policy))
      for batch in whole.batches() { fromBatches.feed(batch) }
      fromBatches.finish()
      #expect(fromPath.verdicts == fromBatches.verdicts, "\(id) \(policy)")
      #expect(fromColumns.verdicts == fromBatches.verdicts, "\(id) \(policy)")
      #expect(fromPath.statistics == whole.statistics && fromColumns.statistics == whole.statistics)
      #expect(fromBatches.statistics == whole.statistics)
      #expect(fromPath.gate == whole.gate && fromColumns.gate == whole.gate && fromBatches.gate == nil)
      #expect(fromColumns.records(file: "t").text == fromPath.records(file: "t").text)
    }
  }

  @Test(
    "each verdict's record lists its unmet conditions from the library's rule; met reads one way for every condition"
  )
  func unmetAndMet() throws {
    var outcomes: Set<String> = []
    for id in ["C1", "C9", "C4b", "N3", "N9"] {
      var session = ImpactSession()
      try session.feed(try columns(try scenario(id, seed: 3)).stream(), name: id, gate: .on)
      session.finish()
      let records = session.records(file: id).records
      outcomes.formUnion(records.map(\.outcome))
      for (v, r) in zip(session.verdicts, records) {
        let unmet = v.unmetConditions(under: session.configuration).map(\.rawValue)
        #expect(r.unmet == unmet, "\(id)")
        #expect((r.outcome == "possibleImpact") == (r.unmet == [] && r.outcome != "suppressed"), "\(id)")
        for c in r.conditions {
          #expect(c.met == (c.name == "jolt" ? c.held : !unmet.contains(c.name)), "\(id) \(c.name)")
          // A free fall that was seen (held) stands against a report only when nothing else corroborated.
          if c.name == "freeFallVeto" && !c.held { #expect(c.met) }
        }
        #expect(r.recordingEnded == nil, "\(id): the whole recording was there")
      }
    }
    #expect(outcomes.isSuperset(of: ["possibleImpact", "silent"]), "\(outcomes)")
  }

  @Test(
    "a recording cut 2 s after the jolt says it ended before the windows were complete; whole, it does not")
  func recordingEnded() throws {
    let trace = try scenario("C1", seed: 3)
    var whole = ImpactSession()
    try whole.feed(try columns(trace).stream(), name: "whole", gate: .on)
    whole.finish()
    let jolt = try #require(whole.verdicts.first).joltSeconds
    let a = try #require(trace.accelerometer).samples
    let keep = a.seconds.indices.filter { a.seconds[$0] < jolt + 2 }
    var columns = ColumnTrace(metadata: trace.metadata)
    columns.append(
      .accelerometer, seconds: keep.map { a.seconds[$0] }, x: keep.map { a.x[$0] }, y: keep.map { a.y[$0] },
      z: keep.map { a.z[$0] })
    var session = ImpactSession()
    try session.feed(columns.stream(), name: "cut", gate: .on)
    #expect(session.dataEndSeconds == nil)
    session.finish()
    let end = try #require(session.dataEndSeconds)
    #expect(end < jolt + 2 && end >= jolt)
    let record = try #require(session.records(file: "cut").records.first)
    let note = try #require(record.recordingEnded)
    #expect(note.hasPrefix("the recording ended at \(String(format: "%.2f", end)) s"), "\(note)")
    #expect(try #require(session.verdicts.first).decidedSeconds > end)
    #expect(whole.records(file: "whole").records.allSatisfy { $0.recordingEnded == nil })
  }

  @Test("a quiet recording whose gate closed says so, whichever way it was fed whole; batches say nothing")
  func gateNote() throws {
    var built = ColumnTrace(metadata: TraceMetadata(format: "columns"))
    let t = (0..<3000).map { Double($0) * 0.02 }
    built.append(
      .accelerometer, seconds: t, x: t.map { _ in 0.1 }, y: t.map { _ in 0 }, z: t.map { _ in 9.81 })
    built.append(.activities, seconds: [0.5, 40], x: [5, 2], y: [Double]?.none, z: [Double]?.none)
    var session = ImpactSession()
    try session.feed(built.stream(), name: "quiet", gate: .recording)
    session.finish()
    let line = session.records(file: "quiet").text.joined()
    #expect(session.verdicts.isEmpty)
    #expect(
      line.contains(
        "; vehicle gate off until 0.5 s and from 40.0 s (recording: off until its activity stream says automotive; 2 switches)"
      ))
    var forced = ImpactSession()
    try forced.feed(built.stream(), name: "quiet", gate: .on)
    #expect(!forced.records(file: "quiet").text.joined().contains("vehicle gate"))
    var batches = ImpactSession()
    let (trace, _) = built.read()
    for batch in try #require(ImpactFeed(trace: trace, gate: .recording)).batches() { batches.feed(batch) }
    #expect(!batches.records(file: "quiet").text.joined().contains("vehicle gate"))
    #expect(batches.statistics == session.statistics)
  }

  @Test("the replay the command prints is a finished session")
  func replayIsASession() throws {
    let folder = TemporaryFolder()
    try TraceFolder.write(try scenario("C1", seed: 2), to: folder.path("t"))
    let replay = try ImpactReplay.run(TraceImport.stream(path: folder.path("t")), path: "t", gate: .recording)
    var session = ImpactSession()
    try session.feed(TraceImport.stream(path: folder.path("t")), name: "t", gate: .recording)
    session.finish()
    #expect(replay.session.isFinished && replay.verdicts == session.verdicts)
    #expect(replay.hoursWithData == session.statistics.hoursWithData && replay.gate == session.gate)
    let records = VerdictRecords(file: "t", replay: replay, configuration: ImpactConfiguration())
    #expect(try records.jsonLines() == (try session.records(file: "t").jsonLines()))
  }

  @Test("a recording with no accelerometer sample is bad input, named, and feeds the detector nothing")
  func noAccelerometer() throws {
    var built = ColumnTrace(metadata: TraceMetadata(format: "columns"))
    built.append(.gyroscope, seconds: [0, 0.1, 0.2], x: [0, 0, 0], y: [0, 0, 0], z: [0, 0, 1])
    var session = ImpactSession()
    #expect {
      try session.feed(built.stream(), name: "mine", gate: .on)
    } throws: { error in "\(error)".contains("mine") && "\(error)".contains("no accelerometer with gravity") }
    #expect(session.statistics == RecordingStatistics() && session.verdicts.isEmpty && session.gate == nil)
  }
}

@Suite("RecordingStatistics: hours with data, peak |a|, streams too slow")
struct RecordingStatisticsTests {
  func accelerometer(_ times: [Double], z: Double = 9.80665) -> RecordingStatistics {
    var s = RecordingStatistics()
    for t in times { s.addAccelerometer(seconds: t, x: 0, y: 0, z: z) }
    return s
  }

  @Test("a step of 1 s is recorded time; a step of 1.001 s is a pause")
  func pause() {
    #expect(accelerometer([0, 1]).hoursWithData * 3600 == 1)
    #expect(accelerometer([0, 1.001]).hoursWithData == 0)
    // Steps that do not move forward add nothing.
    #expect(accelerometer([0, 0.5, 0.5, 0.25, 0.75]).hoursWithData * 3600 == 1)
  }

  @Test("the peak is the largest total |a| in g, gravity included")
  func peak() {
    var s = RecordingStatistics()
    s.addAccelerometer(seconds: 0, x: 3, y: 4, z: 0)
    s.addAccelerometer(seconds: 0.01, x: 0, y: 0, z: 2)
    #expect(s.peakAccelerationG == 5 / ImpactConfiguration.standardGravity)
    #expect(RecordingStatistics().peakAccelerationG == 0)
  }

  @Test("a stream warns below its minimum median rate, not at it")
  func rates() {
    func warnings(_ stream: RecordingStatistics.Stream, step: Double) -> [String] {
      var s = RecordingStatistics()
      for i in 0..<10 { s.add(stream, seconds: Double(i) * step) }
      return s.rateWarnings
    }
    // 2 Hz and 5 Hz exactly (0.5 and 0.2 s steps) are enough; just slower is not.
    #expect(warnings(.barometer, step: 0.5).isEmpty)
    #expect(warnings(.barometer, step: 0.500_001).count == 1)
    #expect(warnings(.gyroscope, step: 0.2).isEmpty)
    #expect(
      warnings(.gyroscope, step: 0.200_001).first?.contains("gyroscope runs at 4.99998 Hz (under 5 Hz)")
        == true)
    #expect(accelerometer((0..<10).map { Double($0) / 20 }).rateWarnings.isEmpty)
    #expect(accelerometer((0..<10).map { Double($0) * 0.050_001 }).rateWarnings.count == 1)
    // Fewer than 3 samples: no rate to judge.
    #expect(warnings(.barometer, step: 10).count == 1)
    var two = RecordingStatistics()
    two.add(.barometer, seconds: 0)
    two.add(.barometer, seconds: 10)
    #expect(two.rateWarnings.isEmpty && two.medianRateHz(.barometer) == nil)
  }

  @Test("counted batch by batch or sample by sample, the same figures")
  func batchesOrSamples() {
    var bySample = RecordingStatistics()
    var batch = ImpactBatch(vehicleGate: true)
    for i in 0..<50 {
      let t = Double(i) * 0.02
      bySample.addAccelerometer(seconds: t, x: 1, y: Double(i), z: 9.8)
      bySample.add(.gyroscope, seconds: t)
      batch.accelerometer.append(Sample3(t, 1, Double(i), 9.8))
      batch.gyroscope.append(Sample3(t, 0, 0, 0))
    }
    var byBatch = RecordingStatistics()
    byBatch.add(batch)
    #expect(byBatch == bySample)
  }
}
