import Foundation
import HearthSim

/// Generator speed against the clock: the "reference" is the real time the
/// generated data covers, so the ratio is the fraction of real time one core
/// needs (issue target: ≥ 1 000× real time, ratio ≤ 0.001).
enum SimWorkloads {
  static let realTimeTargets = RatioTargets(native: 0.001, portable: 0.001)

  static func all(_ context: BenchContext) -> [Benchmark] {
    let hours = max(0.05, context.scale)
    return [
      Benchmark(
        name: "Sim/driveGenerate/mix-\(hours == 1 ? "1h" : String(hours) + "h")",
        itemCount: Int(hours * 180_000),
        itemUnit: "step", targets: realTimeTargets,
        note:
          "DriveMix + DriveSimulator streaming every 250 ms batch (50 Hz accelerometer) vs the driving time generated",
        referenceName: "real time",
        prepare: { _ in
          var steps = 0
          var simulated = 0.0
          var events = 0
          return PreparedBenchmark(
            itemCount: Int(hours * 180_000),
            subject: {
              steps = 0
              events = 0
              simulated = 0
              var mix = DriveMix(seed: 1, options: .init(hours: hours, eventsPerHour: 6))
              while let drive = mix.next() {
                var simulator = drive.simulator()
                while let batch = simulator.nextBatch() { steps += batch.accelerometer.count }
                simulated += drive.plan.durationSeconds
                events += drive.events.count
              }
            },
            reference: nil,
            externalReference: { simulated },
            verify: {
              let expected = Int((hours * 180_000).rounded())
              return abs(steps - expected) <= expected / 500 && events > 0
                ? .passed("\(steps) accelerometer samples, \(events) injected events")
                : .failed("\(steps) samples for \(expected) expected")
            })
        }),
      Benchmark(
        name: "Sim/dayGenerate/day", itemCount: 86_400, itemUnit: "second", targets: realTimeTargets,
        note: "DayGenerator.generate (truth at 1 Hz, phone sampling, uploads) vs the 24 h it covers",
        referenceName: "real time",
        prepare: { _ in
          var trips = 0
          return PreparedBenchmark(
            itemCount: 86_400,
            subject: { trips = DayGenerator.generate(seed: 1).labels.trips.count },
            reference: nil,
            externalReference: { 86_400 },
            verify: { trips >= 3 ? .passed("\(trips) trips") : .failed("only \(trips) trips") })
        }),
    ]
  }
}
