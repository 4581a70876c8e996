import Foundation
import HearthImpact
import HearthSim
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthRuntime

/// The 250 ms cutter (``ImpactFeed/Batches``): it ends on any times, hands
/// every sample out once, and the detector reaches the verdicts of one batch.
@Suite("The feed's 250 ms cut ends, covers every sample once and keeps the verdicts")
struct ImpactFeedCutTests {
  /// Every batch of `feed`, or a failure when a call returned an empty batch
  /// or the calls outnumbered the samples (a cut that does not advance).
  static func cut(_ feed: ImpactFeed) -> (batches: [ImpactBatch], failure: String?) {
    let total = feed.accelerometer.count + feed.gyroscope.count + feed.barometer.count + feed.fixes.count
    var batches: [ImpactBatch] = []
    var it = feed.batches()
    while let batch = it.next() {
      let n = batch.accelerometer.count + batch.gyroscope.count + batch.barometer.count + batch.fixes.count
      if n == 0 { return (batches, "call \(batches.count + 1) returned an empty batch") }
      batches.append(batch)
      if batches.count > total { return (batches, "more than \(total) batches for \(total) samples") }
    }
    return (batches, nil)
  }

  /// Times as a reader gives them: `seconds` written with `digits` decimals and parsed.
  static func stamped(_ seconds: Double, digits: Int) -> Double {
    Double(String(format: "%.\(digits)f", seconds)) ?? .nan
  }

  @Test("regression 2026-12-04: a millisecond stamp k × 250 ms after the first sample opens window k")
  func millisecondEdges() throws {
    // 50 Hz from 0.005 s in whole milliseconds: the sample at 1.005 s is
    // 4 × 0.25 s after the first, and (1.005 − 0.005) / 0.25 rounds below 4.
    var stream = VectorStream()
    for i in 0..<3_000 { stream.append(seconds: Double(5 + 20 * i) / 1000, x: 0, y: 0, z: 9.81) }
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.accelerometer = AccelerationStream(samples: stream, content: .includesGravity)
    let feed = try #require(ImpactFeed(trace: trace, gate: .on))
    let (batches, failure) = Self.cut(feed)
    #expect(failure == nil, "\(failure ?? "")")
    // 60 s in windows of 12 or 13 samples; the edge sample opens its window.
    #expect(batches.count == 240)
    #expect(batches.flatMap { $0.accelerometer.map(\.seconds) } == stream.seconds)
    let opening = try #require(batches.firstIndex { $0.accelerometer.contains { $0.seconds == 1.005 } })
    #expect(batches[opening].accelerometer.first?.seconds == 1.005 && opening == 4)
  }

  /// Found by a review: the gate was read at each window's start, so a
  /// classifier that said automotive 80 ms before a crash in the same
  /// 250 ms left the crash unjudged (and a walking verdict 80 ms before it
  /// left it judged).
  @Test(
    "a gate switch inside a window cuts it: each part has the gate at its first sample, every sample once")
  func gateSwitchCutsTheWindow() throws {
    var stream = VectorStream()
    for i in 0..<50 { stream.append(seconds: Double(i) * 0.02, x: 0, y: 0, z: 9.81) }
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.accelerometer = AccelerationStream(samples: stream, content: .includesGravity)
    // Automotive at 0.34 s (inside the window [0.25, 0.5)), walking at 0.58 s, automotive at 0.60 s.
    trace.activities = [
      ActivitySample(seconds: 0.34, activity: .automotive), ActivitySample(seconds: 0.58, activity: .walking),
      ActivitySample(seconds: 0.60, activity: .automotive),
    ]
    let feed = try #require(ImpactFeed(trace: trace, gate: .recording))
    let (batches, failure) = Self.cut(feed)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(batches.flatMap { $0.accelerometer.map(\.seconds) } == stream.seconds)
    for batch in batches {
      for sample in batch.accelerometer {
        #expect(batch.vehicleGate == feed.gate.isOn(at: sample.seconds), "sample at \(sample.seconds) s")
      }
    }
    // [0, 0.25), [0.25, 0.34), [0.34, 0.5), [0.5, 0.58), [0.58, 0.60), [0.60, 0.75), [0.75, 1).
    #expect(
      batches.map(\.accelerometer.count) == [13, 4, 8, 4, 1, 8, 12], "\(batches.map(\.accelerometer.count))")
  }

  @Test("the grid: ms, µs and ns stamps on an edge open their window; the index is monotone and saturates")
  func grid() {
    for (origin, digits) in [
      (0.005, 3), (1.234, 3), (12_345.678_901, 6), (86_400.123_456_789, 9), (1.7e9 + 0.5, 3),
    ] {
      let grid = BatchGrid(originSeconds: origin, batchSeconds: 0.25)
      for k in [1, 4, 32, 1_000, 14_400] {
        let t = Self.stamped(origin + Double(k) * 0.25, digits: digits)
        #expect(grid.window(ofNanoseconds: grid.nanoseconds(t)) == Int64(k), "origin \(origin), k \(k)")
        let before = Self.stamped(origin + Double(k) * 0.25 - pow(10, -Double(digits)), digits: digits)
        #expect(
          grid.window(ofNanoseconds: grid.nanoseconds(before)) == Int64(k - 1), "origin \(origin), k \(k)")
      }
    }
    let grid = BatchGrid(originSeconds: 0, batchSeconds: 0.25)
    #expect(grid.nanoseconds(.nan) == .min && grid.nanoseconds(-.infinity) == .min)
    #expect(
      grid.nanoseconds(.infinity) == .max && grid.nanoseconds(1e300) == .max
        && grid.nanoseconds(-3e15) == .min)
    #expect(grid.window(ofNanoseconds: -1) == -1 && grid.window(ofNanoseconds: -250_000_000) == -1)
    #expect(grid.window(ofNanoseconds: -250_000_001) == -2)
    // Every offset lies in its window: start ≤ ns ≤ last, at the extremes too.
    var random = SeededGenerator(seed: PropertyCampaign.baseSeed)
    let extremes: [Int64] = [
      .min, .min + 1, -250_000_000, -1, 0, 1, 249_999_999, 250_000_000, .max - 1, .max,
    ]
    for ns in extremes + (0..<10_000).map({ _ in Int64(bitPattern: random.next()) }) {
      for g in [
        grid, BatchGrid(originSeconds: 0, batchSeconds: 1e-9), BatchGrid(originSeconds: 0, batchSeconds: 7),
      ] {
        let k = g.window(ofNanoseconds: ns)
        #expect(g.lastNanosecond(ofWindow: k) >= ns, "\(ns)")
        let (start, overflow) = k.multipliedReportingOverflow(by: g.batchNanoseconds)
        #expect(overflow || start <= ns, "\(ns)")
        #expect(k == .max || g.window(ofNanoseconds: g.lastNanosecond(ofWindow: k)) == k, "\(ns)")
      }
    }
  }

  /// A recording re-stamped as a logger would, then disturbed.
  struct Case: Shrinkable, CustomStringConvertible {
    enum Edit: Hashable, CustomStringConvertible {
      /// Sample `index` of the accelerometer repeated.
      case duplicate(Int)
      /// Accelerometer samples `index` and `index + 1` swapped.
      case swap(Int)
      /// A gyroscope sample at this time.
      case extreme(Double)
      var description: String {
        switch self {
        case .duplicate(let i): "duplicate a[\(i)]"
        case .swap(let i): "swap a[\(i)], a[\(i + 1)]"
        case .extreme(let t): "gyroscope sample at \(t) s"
        }
      }
    }
    var scenario: String
    /// Added to every time, s.
    var offsetSeconds: Double
    /// Decimals the times are written with (3: ms, 6: µs, 9: ns; nil: not rounded).
    var digits: Int?
    /// Every accelerometer sample moved onto the nearest 250 ms edge from the first.
    var onEdges: Bool
    var edits: [Edit]

    var description: String {
      "\(scenario), offset \(offsetSeconds) s, \(digits.map { "\($0) decimals" } ?? "exact"), "
        + "\(onEdges ? "samples on 250 ms edges, " : "")edits: \(edits)"
    }

    var shrinkCandidates: [Case] {
      var out: [Case] = []
      for i in edits.indices {
        var c = self
        c.edits.remove(at: i)
        out.append(c)
      }
      if onEdges { out.append(with { $0.onEdges = false }) }
      if digits != nil { out.append(with { $0.digits = nil }) }
      if offsetSeconds != 0 { out.append(with { $0.offsetSeconds = 0 }) }
      return out
    }

    func with(_ change: (inout Case) -> Void) -> Case {
      var c = self
      change(&c)
      return c
    }

    static func generate(_ random: inout SeededGenerator) -> Case {
      let offsets: [Double] = [0, 0.005, 1.234, -3_600.5, 12_345.678_9, 1.7e9 + 0.123, 9e9]
      var edits: [Edit] = []
      for _ in 0..<Int(random.next() % 6) {
        let i = Int(random.next() % 2_000)
        switch random.next() % 3 {
        case 0: edits.append(.duplicate(i))
        case 1: edits.append(.swap(i))
        default:
          let extremes: [Double] = [-3e15, 3e15, -1e300, 1e300, .nan, .infinity, -.infinity, 9.3e9, -9.3e9]
          edits.append(.extreme(extremes[Int(random.next() % UInt64(extremes.count))]))
        }
      }
      return Case(
        scenario: ["C1", "C3", "N9"][Int(random.next() % 3)],
        offsetSeconds: offsets[Int(random.next() % UInt64(offsets.count))],
        digits: [3, 6, 9, nil][Int(random.next() % 4)], onEdges: random.next() % 4 == 0, edits: edits)
    }

    static let traces: [String: Trace] = Dictionary(
      uniqueKeysWithValues: ["C1", "C3", "N9"].map { id in
        (
          id,
          ScenarioCatalogue.scenario(id).map { $0.generate(seed: 5).trace }
            ?? Trace(metadata: .init(format: ""))
        )
      })

    var trace: Trace {
      var trace = Self.traces[scenario] ?? Trace(metadata: TraceMetadata(format: "test"))
      func stamp(_ t: Double) -> Double {
        let moved = t + offsetSeconds
        return digits.map { ImpactFeedCutTests.stamped(moved, digits: $0) } ?? moved
      }
      if var a = trace.accelerometer?.samples {
        let first = a.seconds.first ?? 0
        a.seconds = a.seconds.map { t in
          stamp(onEdges ? first + (((t - first) / 0.25).rounded() * 0.25) : t)
        }
        for edit in edits {
          switch edit {
          case .duplicate(let i) where i < a.count:
            a.seconds.insert(a.seconds[i], at: i)
            a.x.insert(a.x[i], at: i)
            a.y.insert(a.y[i], at: i)
            a.z.insert(a.z[i], at: i)
          case .swap(let i) where i + 1 < a.count:
            a.seconds.swapAt(i, i + 1)
            a.x.swapAt(i, i + 1)
            a.y.swapAt(i, i + 1)
            a.z.swapAt(i, i + 1)
          default: break
          }
        }
        trace.accelerometer = AccelerationStream(samples: a, content: .includesGravity)
      }
      if var g = trace.gyroscope {
        g.seconds = g.seconds.map(stamp)
        for case .extreme(let t) in edits { g.append(seconds: t, x: 0, y: 0, z: 9) }
        trace.gyroscope = g
      }
      if var b = trace.barometer {
        b.seconds = b.seconds.map(stamp)
        trace.barometer = b
      }
      return trace
    }
  }

  @Test(
    "property: any stamping, edges, repeats, disorder and extreme times: the cut ends, covers, keeps verdicts"
  )
  func property() {
    let failure = PropertyCheck.run(
      "250 ms cut", cases: PropertyCampaign.cases(default: 60), generator: SeededGenerator.init(seed:),
      generate: { Case.generate(&$0) },
      check: { c in
        let trace = c.trace
        guard let feed = ImpactFeed(trace: trace, gate: .on) else { return "no feed" }
        let (batches, failure) = Self.cut(feed)
        if let failure { return failure }
        // Each sample once: the streams' times, as multisets (bit patterns, NaN included).
        func bits(_ t: [Double]) -> [UInt64] { t.map(\.bitPattern).sorted() }
        let given = trace.accelerometer?.samples.seconds ?? []
        if bits(batches.flatMap { $0.accelerometer.map(\.seconds) }) != bits(given) {
          return "the accelerometer's samples are not each handed out once"
        }
        // The other streams from `historyBeforeAccelerometerSeconds` before
        // the first accelerometer sample on (NaN times too).
        let kept = feed.originSeconds - ImpactFeed.historyBeforeAccelerometerSeconds
        let gyroscope = (trace.gyroscope?.samples3 ?? []).filter { !($0.seconds < kept) }
        if bits(batches.flatMap { $0.gyroscope.map(\.seconds) }) != bits(gyroscope.map(\.seconds)) {
          return "the gyroscope's samples are not each handed out once"
        }
        // One window per batch.
        let grid = BatchGrid(originSeconds: feed.originSeconds, batchSeconds: 0.25)
        for (n, batch) in batches.enumerated() {
          let times =
            batch.accelerometer.map(\.seconds) + batch.gyroscope.map(\.seconds)
            + batch.barometer.map(\.seconds) + batch.fixes.map(\.seconds)
          let windows = Set(times.map { grid.window(ofNanoseconds: grid.nanoseconds($0)) })
          if windows.count != 1 { return "batch \(n) spans windows \(windows.sorted())" }
        }
        // The verdicts of one batch holding everything, in the order given.
        var detector = ImpactDetector()
        let windowed = batches.flatMap { detector.process($0) } + detector.finish()
        let all = ImpactBatch(
          accelerometer: trace.accelerometer?.samples.samples3 ?? [],
          gyroscope: gyroscope,
          barometer: zip(trace.barometer?.seconds ?? [], trace.barometer?.hectopascals ?? []).map {
            Sample1($0, $1)
          }.filter { !($0.seconds < kept) },
          fixes: feed.fixes, vehicleGate: true)
        var whole = ImpactDetector()
        let once = whole.process(all) + whole.finish()
        if detector.counters != whole.counters {
          return "counters differ: \(detector.counters) vs \(whole.counters)"
        }
        // The verdicts are those of every sample, history included.
        var every = ImpactDetector()
        var unfiltered = all
        unfiltered.gyroscope = trace.gyroscope?.samples3 ?? []
        unfiltered.barometer = zip(trace.barometer?.seconds ?? [], trace.barometer?.hectopascals ?? []).map {
          Sample1($0, $1)
        }
        unfiltered.fixes = trace.fixes.speedSamples(
          originMilliseconds: trace.metadata.timeOriginMilliseconds ?? 0)
        let withHistory = every.process(unfiltered) + every.finish()
        if windowed != once || windowed != withHistory {
          return
            "verdicts differ: \(windowed.count) windowed vs \(once.count) in one batch, \(withHistory.count) with every sample"
        }
        return nil
      })
    #expect(failure == nil, "\(failure ?? "")")
  }

  @Test("a hand-built trace out of time order is fed in time order (stably, NaN first)")
  func timeOrder() {
    #expect(TimeOrder.permutation([1, 2, 2, 3]) == nil)
    #expect(TimeOrder.permutation([2, 1, 2, .nan, 1]) == [3, 1, 4, 0, 2])
    #expect(TimeOrder.permutation([.nan, 0, 1]) == nil)
    #expect(TimeOrder.permutation([]) == nil)
  }

  @Test("a configuration with a huge time bound: the vibration stop's window loop still ends")
  func vibrationStopAtHugeTimes() {
    var configuration = ImpactConfiguration()
    configuration.maximumAbsoluteTimeSeconds = 1e300
    var detector = ImpactDetector(configuration: configuration)
    // A jolt at 1e20 s with no GPS: the vibration stop reads windows from there.
    let t0 = 1e20
    let samples = (0..<2_000).map { i in
      Sample3(t0 + Double(i) * 65_536, 0, 0, i == 1_000 ? 200 : 9.81)
    }
    let verdicts =
      detector.process(ImpactBatch(accelerometer: samples, vehicleGate: true)) + detector.finish()
    #expect(verdicts.first?.joltSeconds == t0 + 1_000 * 65_536)
    #expect(verdicts.first?.conditions.contains { $0.name == .stoppedVibrationRatio } == true)
  }
}
