import Foundation
import HearthGeo
import HearthSim
import HearthTrace

/// Speed and tracking rules (SPEC §4–§6) on generated days cut into batches
/// of 200 fixes: each stage alone and the three together, as the server and
/// the phone would run them on one upload at a time.
enum TrackingWorkloads {
  /// Issue target: ≤ 50 ns per fix for agreed speed + speed alert + sudden
  /// stop + thinning together, single core.
  static let pipelineCeiling = 50.0
  static let batchSize = 200

  static func all(_ context: BenchContext) -> [Benchmark] {
    let days = max(4, Int((250 * context.scale).rounded()))
    let batches = Batches(days: days)
    return [
      stage("Tracking/agreedSpeed/days-\(days)", batches, note: "AgreedSpeedBatch on every batch") { b in
        var agreed = 0
        for batch in b.batches {
          agreed += AgreedSpeedBatch(batch.fixes).neighbourMetersPerSecond.count { !$0.isNaN }
        }
        return agreed
      },
      stage(
        "Tracking/speedAlert/days-\(days)", batches, note: "SpeedAlertEngine.process, 50 km/h in every circle"
      ) { b in
        var state = SpeedAlertState()
        var events = 0
        for batch in b.batches {
          events += b.alerts.process(batch.fixes, receivedAtMilliseconds: batch.received, state: &state).count
        }
        return events
      },
      stage(
        "Tracking/suddenStop/days-\(days)", batches, note: "SuddenStopEngine.process with each user's places"
      ) { b in
        var state = SuddenStopState()
        var events = 0
        for batch in b.batches { events += b.stops.process(batch.fixes, state: &state).count }
        return events
      },
      stage("Tracking/thinning/days-\(days)", batches, note: "Thinner.offer per device (the phone's gate)") {
        b in
        var kept = 0
        var thinner = Thinner()
        var device = UInt32.max
        for batch in b.batches {
          if batch.user != device { (thinner, device) = (Thinner(), batch.user) }
          kept += thinner.offer(batch.fixes).count { $0.kept }
        }
        return kept
      },
      stage(
        "Tracking/pipeline/days-\(days)", batches,
        note: "agreed speed once per batch, shared by the speed alert and the sudden stop, + thinning",
        ceiling: pipelineCeiling
      ) { b in
        var alertState = SpeedAlertState()
        var stopState = SuddenStopState()
        var thinner = Thinner()
        var device = UInt32.max
        var outputs = 0
        for batch in b.batches {
          let agreed = AgreedSpeedBatch(batch.fixes)
          outputs +=
            b.alerts.process(agreed, receivedAtMilliseconds: batch.received, state: &alertState).count
          outputs += b.stops.process(agreed, state: &stopState).count
          if batch.user != device { (thinner, device) = (Thinner(), batch.user) }
          outputs += thinner.offer(batch.fixes).count { $0.kept }
        }
        return outputs
      },
      trips("Tracking/trips/days-\(days)", batches),
    ]
  }

  /// Issue target: full segmentation with aggregates ≤ 40 ns per fix, and at
  /// least 500× trackintel (ratio ≤ 0.002) on the same fixes.
  static let tripCeiling = 40.0

  private static func trips(_ name: String, _ batches: Batches) -> Benchmark {
    Benchmark(
      name: name, itemCount: batches.days * 400, itemUnit: "fix",
      targets: RatioTargets(native: 0.002, portable: 0.002),
      note:
        "TripSegmenter (segments, stays, aggregates) over the 200-fix batches vs trackintel generate_staypoints (sliding, 100 m, 5 min) on the same fixes",
      referenceName: "trackintel", maxNanosecondsPerItem: tripCeiling,
      prepare: { context in
        let fixes = batches.fixCount
        let path = context.dataCache + "/trips-days-\(batches.days).csv"
        try FileManager.default.createDirectory(atPath: context.dataCache, withIntermediateDirectories: true)
        try FixTable.write(batches.batches.map(\.fixes), to: path)
        var segments = 0
        var trips = 0
        return PreparedBenchmark(
          itemCount: fixes,
          subject: {
            let segmenter = TripSegmenter()
            var state = TripSegmenterState()
            var closed = TripOutput()
            for batch in batches.batches {
              closed += segmenter.process(batch.fixes, now: batch.received, state: &state)
            }
            closed += segmenter.advance(to: .max / 2, state: &state)
            segments = closed.segments.count
            trips = closed.segments.count { $0.isTrip }
          },
          reference: nil,
          externalReference: {
            let script = BenchContext.repositoryRoot + "/Scripts/peers/compare_stops.py"
            let (status, output) = try Shell.run("python3", [script, "--time", path])
            let last = output.split(separator: "\n").last ?? ""
            guard status == 0, let seconds = last.split(separator: " ").first.flatMap({ Double($0) }) else {
              throw BenchError.io("trackintel peer failed: \(output.suffix(500))")
            }
            return seconds
          },
          verify: {
            trips >= batches.days * 2
              ? .passed("\(trips) trips in \(segments) segments")
              : .failed("only \(trips) trips for \(batches.days) days")
          })
      })
  }

  /// Generated days (one user each), every phone fix in time order, cut into
  /// batches of `batchSize`. Built once and shared by the stages.
  final class Batches: @unchecked Sendable {
    struct Batch {
      var user: UInt32
      var received: Int64
      var fixes: FixColumns
    }

    let days: Int
    private var built: (batches: [Batch], alerts: SpeedAlertEngine, stops: SuddenStopEngine, fixes: Int)?
    private let lock = NSLock()

    init(days: Int) { self.days = days }

    var batches: [Batch] { build().batches }
    var alerts: SpeedAlertEngine { build().alerts }
    var stops: SuddenStopEngine { build().stops }
    var fixCount: Int { build().fixes }

    private func build() -> (batches: [Batch], alerts: SpeedAlertEngine, stops: SuddenStopEngine, fixes: Int)
    {
      lock.lock()
      defer { lock.unlock() }
      if let built { return built }
      let generated = Inputs.days(days)
      var batches: [Batch] = []
      var count = 0
      for day in generated.days {
        let all = day.fixesInArrivalOrder
        let order = (0..<all.count).sorted { all.timeMilliseconds[$0] < all.timeMilliseconds[$1] }
        let sorted = all.selecting(order)
        count += sorted.count
        for start in stride(from: 0, to: sorted.count, by: batchSize) {
          let fixes = sorted.selecting(start..<min(start + batchSize, sorted.count))
          batches.append(
            Batch(user: day.options.user, received: fixes.timeMilliseconds.last! + 1_000, fixes: fixes))
        }
      }
      let limits = Dictionary(
        uniqueKeysWithValues: (1...UInt32(days)).map { (CircleID($0), SpeedLimit(kilometersPerHour: 50)) })
      let circles = generated.circlesOfPerson
      let places = generated.places
      let result = (
        batches, SpeedAlertEngine(limits: limits, circlesOfPerson: circles),
        SuddenStopEngine(places: places, circlesOfPerson: circles), count
      )
      built = result
      return result
    }
  }

  private static func stage(
    _ name: String, _ batches: Batches, note: String, ceiling: Double? = nil, run: @escaping (Batches) -> Int
  ) -> Benchmark {
    Benchmark(
      name: name, itemCount: batches.days * 400, itemUnit: "fix", targets: .none,
      note: note + " (\(batchSize)-fix batches of generated days)",
      maxNanosecondsPerItem: ceiling,
      prepare: { _ in
        let fixes = batches.fixCount
        var result = -1
        return PreparedBenchmark(
          itemCount: fixes, subject: { result = run(batches) }, reference: nil,
          verify: {
            result > 0
              ? .passed("\(result) outputs over \(fixes) fixes in \(batches.batches.count) batches")
              : .failed("no output over \(fixes) fixes")
          })
      })
  }
}
