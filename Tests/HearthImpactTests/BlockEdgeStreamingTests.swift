import Foundation
import Testing

@testable import HearthImpact

/// Streaming == batch where the accelerometer's block path cuts: batches
/// whose edges fall exactly on a sample's time at and around multiples of the
/// block length, batches of one sample (of any stream, in merged time order),
/// empty batches between them; the verdicts and counters must equal one
/// batch of the whole scene.
@Suite("Impact detector: streaming == batch at the block path's edges")
struct BlockEdgeStreamingTests {
  /// The detector's block length, in accelerometer samples.
  static let block = ImpactDetector.accelerometerBlock

  /// Verdicts and counters after one batch of everything, then `finish`.
  static func whole(_ scene: Scene, _ configuration: ImpactConfiguration) -> ([ImpactVerdict], ImpactCounters)
  {
    var d = ImpactDetector(configuration: configuration)
    let verdicts = d.process(scene.batch) + d.finish()
    return (verdicts, d.counters)
  }

  /// The same after `batches`, then `finish`.
  static func streamed(_ batches: [ImpactBatch], _ configuration: ImpactConfiguration) -> (
    [ImpactVerdict], ImpactCounters
  ) {
    var d = ImpactDetector(configuration: configuration)
    var verdicts: [ImpactVerdict] = []
    for b in batches { verdicts += d.process(b) }
    verdicts += d.finish()
    return (verdicts, d.counters)
  }

  /// The scene cut at accelerometer sample times (a cut at time t puts the
  /// sample at t first in the next batch, with every other stream's samples
  /// at t): after counts of samples drawn from around the block length
  /// (0, 1, block − 1, block, block + 1, 2 · block, …), with empty batches now
  /// and then.
  static func cutOnSamples(_ scene: Scene, _ r: inout SplitMix64) -> [ImpactBatch] {
    let all = scene.batch
    let times = all.accelerometer.map(\.seconds)
    let steps = [
      0, 1, 1, 2, block - 1, block, block, block + 1, 2 * block - 1, 2 * block, 2 * block + 1, 3 * block,
    ]
    var out: [ImpactBatch] = []
    var from = -Double.infinity
    var i = 0
    while i < times.count {
      i += steps[r.pick(steps.count)]
      let to = i < times.count ? times[i] : .infinity
      if r.chance(0.1) { out.append(ImpactBatch(vehicleGate: true)) }
      out.append(all.window(from: from, to: to))
      from = to
    }
    if from < .infinity { out.append(all.window(from: from, to: .infinity)) }
    return out
  }

  /// Every sample of every stream in its own batch, in the order the
  /// detector merges them (time; ties: fixes, barometer, gyroscope, then
  /// accelerometer), with empty batches now and then.
  static func oneSampleEach(_ scene: Scene, _ r: inout SplitMix64) -> [ImpactBatch] {
    let all = scene.batch
    var items: [(seconds: Double, rank: Int, batch: ImpactBatch)] = []
    for s in all.fixes { items.append((s.seconds, 0, ImpactBatch(fixes: [s], vehicleGate: true))) }
    for s in all.barometer { items.append((s.seconds, 1, ImpactBatch(barometer: [s], vehicleGate: true))) }
    for s in all.gyroscope { items.append((s.seconds, 2, ImpactBatch(gyroscope: [s], vehicleGate: true))) }
    for s in all.accelerometer {
      items.append((s.seconds, 3, ImpactBatch(accelerometer: [s], vehicleGate: true)))
    }
    items.sort { ($0.seconds, $0.rank) < ($1.seconds, $1.rank) }
    var out: [ImpactBatch] = []
    for item in items {
      if r.chance(0.05) { out.append(ImpactBatch(vehicleGate: true)) }
      out.append(item.batch)
    }
    return out
  }

  static func compare(
    _ label: String, _ got: ([ImpactVerdict], ImpactCounters), _ want: ([ImpactVerdict], ImpactCounters)
  )
    -> String?
  {
    if got.0 != want.0 {
      let first = zip(want.0, got.0).first { $0 != $1 }.map { "\n  whole: \($0)\n  cut:   \($1)" } ?? ""
      return "\(label): \(got.0.count) verdicts cut, \(want.0.count) whole\(first)"
    }
    if got.1 != want.1 { return "\(label): counters \(got.1), whole \(want.1)" }
    return nil
  }

  @Test(
    "batches cut exactly on samples at and around block multiples, and empty batches, give the whole's verdicts"
  )
  func cutsOnBlockEdges() {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 0xED6E)
    var jolts = 0
    for i in 0..<DetectorPropertyTests.cases(200) {
      let scene = DetectorPropertyTests.scene(&r)
      var configuration = ImpactConfiguration()
      if r.chance(0.3) { configuration = DetectorPropertyTests.configuration(&r) }
      let want = Self.whole(scene, configuration)
      jolts += want.0.count
      let batches = Self.cutOnSamples(scene, &r)
      if let problem = Self.compare("block-edge cuts", Self.streamed(batches, configuration), want) {
        Issue.record("case \(i), seed \(DetectorPropertyTests.seed): \(problem)\n\(scene)")
        return
      }
    }
    #expect(jolts > 0)
  }

  @Test("one sample per batch, in merged order, with empty batches: the whole's verdicts and counters")
  func oneSamplePerBatch() {
    var r = SplitMix64(seed: DetectorPropertyTests.seed &+ 0x0001)
    var jolts = 0
    for i in 0..<DetectorPropertyTests.cases(200) / 4 {
      let scene = DetectorPropertyTests.scene(&r)
      let want = Self.whole(scene, ImpactConfiguration())
      jolts += want.0.count
      let batches = Self.oneSampleEach(scene, &r)
      if let problem = Self.compare("one sample each", Self.streamed(batches, ImpactConfiguration()), want) {
        Issue.record("case \(i), seed \(DetectorPropertyTests.seed): \(problem)\n\(scene)")
        return
      }
    }
    #expect(jolts > 0)
  }

  @Test(
    "a cut at a sample's time puts that sample, and the other streams' samples at its time, in the later batch"
  )
  func cutPlacement() {
    var r = SplitMix64(seed: 7)
    var scene = DetectorPropertyTests.scene(&r)
    scene.duration = 12
    let all = scene.batch
    let batches = Self.cutOnSamples(scene, &r)
    // Every sample once, none lost at an edge.
    #expect(batches.reduce(0) { $0 + $1.accelerometer.count } == all.accelerometer.count)
    #expect(batches.reduce(0) { $0 + $1.gyroscope.count } == all.gyroscope.count)
    #expect(batches.reduce(0) { $0 + $1.barometer.count } == all.barometer.count)
    #expect(batches.reduce(0) { $0 + $1.fixes.count } == all.fixes.count)
    // Some batches hold exactly a block's worth, or one more or fewer.
    let sizes = Set(batches.map(\.accelerometer.count))
    #expect(sizes.contains(Self.block) && sizes.contains(1) && sizes.contains(0))
  }
}
