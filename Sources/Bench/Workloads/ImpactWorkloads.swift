import Foundation
import HearthImpact
import HearthLab
import HearthSim

/// The streaming impact detector (SPEC §9) on an hour of generated mixed
/// driving in the phone's 250 ms batches, against a C single pass of the same
/// per-sample features over the same samples.
enum ImpactWorkloads {
  /// Issue target: ≥ 1 000 hours of trace per second per core; an hour is
  /// about 234 000 samples (50 + 10 + 5 Hz), so ≤ 4 ns per sample.
  static let ceiling = 1e9 / 1_000 / 234_000

  static func all(_ context: BenchContext) -> [Benchmark] {
    let hours = max(0.25, context.scale)  // a quarter hour holds jolts to judge
    let label = hours == 1 ? "1h" : String(hours) + "h"
    return [
      Benchmark(
        name: "Impact/detector/mix-\(label)", itemCount: Int(hours * 234_000), itemUnit: "sample",
        targets: .none,
        note:
          "ImpactDetector.process over every 250 ms batch of \(label) of DriveMix (road and cabin events, 2 crashes/h) vs a C pass of the per-sample features",
        maxNanosecondsPerItem: ceiling,
        prepare: { context in
          var batches: [ImpactBatch] = []
          var mix = DriveMix(seed: 5, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 2))
          while let drive = mix.next() {
            var simulator = drive.simulator()
            while let batch = simulator.nextBatch() {
              batches.append(batch.impactBatch(originMilliseconds: drive.plan.startEpochMilliseconds))
            }
          }
          let all = Flat(batches)
          var verdicts = 0
          var jolts: Int64 = 0
          var bins = [Double](repeating: 0, count: Int(hours * 3_600) + 16)
          let c = context.reference
          let configuration = ImpactConfiguration()
          var seconds: [Double] = []  // each run's wall time (one thread), for the hours-per-second figure
          seconds.reserveCapacity(64)
          let clock = ContinuousClock()
          return PreparedBenchmark(
            itemCount: all.samples,
            subject: {
              let start = clock.now
              var detector = ImpactDetector()
              verdicts = 0
              for batch in batches { verdicts += detector.process(batch).count }
              verdicts += detector.finish().count
              let elapsed = start.duration(to: clock.now)
              if seconds.count < seconds.capacity {
                seconds.append(
                  Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
              }
            },
            reference: c.map { c in
              {
                var binCount: Int64 = 0
                var falls: Int64 = 0
                var spin = 0.0
                var pressure = 0.0
                jolts = c.impactFeatures(
                  all.t, all.x, all.y, all.z, Int64(all.t.count), all.gx, all.gy, all.gz, Int64(all.gx.count),
                  all.hpa, Int64(all.hpa.count), configuration.gravityTimeConstantSeconds,
                  configuration.vibrationTimeConstantSeconds, configuration.joltMetersPerSecondSquared,
                  configuration.freeFallMetersPerSecondSquared, &bins, Int64(bins.count), &binCount, &falls,
                  &spin,
                  &pressure)
              }
            },
            verify: {
              verdicts > 0
                ? .passed(
                  "\(verdicts) jolts judged over \(all.samples) samples (the C pass counted \(jolts) jolt samples)"
                )
                : .failed("no jolt judged in \(label) of driving with two crashes an hour")
            },
            metrics: {
              // Hours of trace judged per second of one core (median run; the first run is a warm-up).
              let runs = Array(seconds.dropFirst()).sorted()
              guard !runs.isEmpty else { return [:] }
              return ["traceHoursPerSecondPerCore": hours / Statistics.quantile(runs, 0.5)]
            })
        })
    ]
  }

  /// Every stream of the batches in one array each (the C pass's input;
  /// drives follow one another, each on its own clock).
  private struct Flat {
    var t: [Double] = [], x: [Double] = [], y: [Double] = [], z: [Double] = []
    var gx: [Double] = [], gy: [Double] = [], gz: [Double] = [], hpa: [Double] = []
    var samples: Int { t.count + gx.count + hpa.count }

    init(_ batches: [ImpactBatch]) {
      var offset = 0.0
      var last = -Double.infinity
      for b in batches {
        for s in b.accelerometer {
          // A new drive starts its clock again: keep time increasing.
          if s.seconds + offset <= last { offset = last - s.seconds + 1 }
          last = s.seconds + offset
          t.append(last)
          x.append(s.x)
          y.append(s.y)
          z.append(s.z)
        }
        for s in b.gyroscope {
          gx.append(s.x)
          gy.append(s.y)
          gz.append(s.z)
        }
        for s in b.barometer { hpa.append(s.value) }
      }
    }
  }
}
