import HearthGeo
import Testing

@testable import HearthSim

/// The labels of generated days, checked against the truth and the fixes
/// with the library's own great-circle distance (not the generator's plane).
@Suite("Location days")
struct DayTests {
  static let seeds = UInt64(1)...12

  /// Fixes of one device in time order, arrival duplicates removed.
  func deviceFixes(_ day: LocationDay, _ device: UInt32) -> [Fix] {
    var seen = Set<Int64>()
    return day.fixesInArrivalOrder.fixes
      .filter { $0.device.rawValue == device && seen.insert($0.timeMilliseconds).inserted }
      .sorted { $0.timeMilliseconds < $1.timeMilliseconds }
  }

  func second(_ day: LocationDay, _ ms: Int64) -> Int {
    Int((ms - day.options.startEpochMilliseconds) / 1000)
  }

  @Test("the same seed gives the same day bit for bit; another seed does not")
  func determinism() {
    let a = DayGenerator.generate(seed: 3)
    let b = DayGenerator.generate(seed: 3)
    let c = DayGenerator.generate(seed: 4)
    #expect(a.uploads == b.uploads)
    #expect(a.labels == b.labels)
    #expect(a.truth == b.truth)
    #expect(a.places == b.places)
    #expect(a.fixesInArrivalOrder != c.fixesInArrivalOrder)
  }

  @Test(
    "every labelled trip has ≥ 250 m of path and displacement and lasts ≥ 2 min, in the truth and in the fixes"
  )
  func trips() {
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed)
      #expect(day.labels.trips.count >= 3, "seed \(seed)")
      let fixes = deviceFixes(day, 1).filter { $0.horizontalAccuracyMeters <= 100 }
      let outlierTimes = Set(day.labels.outliers.map(\.timeMilliseconds))
      for trip in day.labels.trips {
        let first = day.truth.coordinate(at: second(day, trip.startMilliseconds))
        let last = day.truth.coordinate(at: second(day, trip.endMilliseconds))
        let displacement = GreatCircle.distanceMeters(from: first, to: last)
        #expect(displacement >= 250 && abs(displacement - trip.displacementMeters) < 0.01 * displacement + 1)
        #expect(trip.pathMeters >= trip.displacementMeters - 1e-6)
        #expect(trip.endMilliseconds - trip.startMilliseconds >= 120_000)
        // The phone saw it too: its sharp fixes in the trip span ≥ 150 m.
        let inside = fixes.filter {
          $0.timeMilliseconds >= trip.startMilliseconds && $0.timeMilliseconds <= trip.endMilliseconds
            && !outlierTimes.contains($0.timeMilliseconds)
        }
        let spread = inside.map { GreatCircle.distanceMeters(from: first, to: $0.coordinate) }.max() ?? 0
        #expect(spread >= 150, "seed \(seed) trip at \(trip.startMilliseconds): \(spread) m")
      }
    }
  }

  @Test("stops are ≥ 5 min without moving; visits lie inside their place")
  func stopsAndVisits() {
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed)
      for stop in day.labels.stops {
        let range = second(day, stop.startMilliseconds)...second(day, stop.endMilliseconds)
        #expect(range.count >= 300)
        #expect(range.allSatisfy { day.truth.speedMetersPerSecond[$0] == 0 })
      }
      for visit in day.labels.visits {
        let place = day.places[visit.place]
        for s in stride(
          from: second(day, visit.arriveMilliseconds), through: second(day, visit.leaveMilliseconds), by: 60)
        {
          #expect(
            GreatCircle.distanceMeters(from: place.center, to: day.truth.coordinate(at: s))
              <= place.radiusMeters)
        }
      }
      // Places are spread out: a trip between any two counts.
      for (i, a) in day.places.enumerated() {
        for b in day.places[(i + 1)...] {
          #expect(GreatCircle.distanceMeters(from: a.center, to: b.center) >= 395)
        }
      }
    }
  }

  @Test("over-limit stretches are over the limit, and long ones show in the fixes")
  func overLimit() {
    var options = DayOptions()
    options.speedingProbabilityPerStreet = 0.6
    var checked = 0
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed, options: options)
      let fixes = deviceFixes(day, 1).filter { $0.horizontalAccuracyMeters <= 100 }
      for stretch in day.labels.overLimit {
        let range = second(day, stretch.startMilliseconds)...second(day, stretch.endMilliseconds)
        #expect(range.allSatisfy { day.truth.speedMetersPerSecond[$0] > stretch.limitMetersPerSecond })
        #expect(
          day.truth.speedMetersPerSecond[range.lowerBound - 1] <= stretch.limitMetersPerSecond
            || day.truth.limitMetersPerSecond[range.lowerBound - 1] != stretch.limitMetersPerSecond)
        guard range.count >= 60 else { continue }
        let speeds = fixes.filter {
          $0.timeMilliseconds >= stretch.startMilliseconds + 5000
            && $0.timeMilliseconds <= stretch.endMilliseconds - 5000
        }.compactMap(\.speedMetersPerSecond)
        if speeds.count >= 3 {
          checked += 1
          #expect(speeds.filter { $0 > stretch.limitMetersPerSecond }.count * 10 >= speeds.count * 8)
        }
      }
    }
    #expect(checked >= 5)
  }

  @Test("sudden stops brake from ≥ 35 km/h at ≥ 4.5 m/s² and stay put ≥ 5 min, outside every place")
  func suddenStops() {
    var options = DayOptions()
    options.suddenStopProbabilityPerDrive = 1
    var found = 0
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed, options: options)
      for stop in day.labels.suddenStops {
        found += 1
        let s = second(day, stop.stopMilliseconds)
        #expect(stop.speedBeforeMetersPerSecond >= 35 / 3.6)
        #expect(stop.decelerationMetersPerSecondSquared >= 4.5)
        #expect(day.truth.speedMetersPerSecond[s] == 0)
        #expect((s..<(s + 300)).allSatisfy { day.truth.speedMetersPerSecond[$0] == 0 })
        #expect(
          day.truth.speedMetersPerSecond[s - Int(stop.speedBeforeMetersPerSecond / 4.5) - 1] >= 35 / 3.6)
        #expect(
          day.places.allSatisfy {
            GreatCircle.distanceMeters(from: $0.center, to: stop.coordinate) > $0.radiusMeters
          })
        // A stop of this length is a trip boundary.
        #expect(
          day.labels.stops.contains {
            $0.startMilliseconds <= stop.stopMilliseconds && $0.endMilliseconds > stop.stopMilliseconds
          })
      }
    }
    #expect(found >= Self.seeds.count)
    let calm = (1...5).flatMap { DayGenerator.generate(seed: $0).labels.suddenStops }
    #expect(calm.count <= 3)
  }

  @Test("cadence: a fix every 10–30 s while moving, 30 s after parking, every 15 min while parked")
  func cadence() {
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed)
      let times = deviceFixes(day, 1).map { second(day, $0.timeMilliseconds) }
      let tunnels = day.labels.gaps.filter { $0.device == 1 }.map {
        second(day, $0.startMilliseconds)..<(second(day, $0.endMilliseconds) + 30)
      }
      var k = 0
      var moving = 0
      for s in 0..<day.truth.count {
        while k + 1 < times.count && times[k + 1] <= s { k += 1 }
        guard times[k] <= s, !tunnels.contains(where: { $0.contains(s) }) else { continue }
        let since = s - times[k]
        switch day.truth.mode[s] {
        case .driving where day.truth.speedMetersPerSecond[s] >= 5:
          moving += 1
          #expect(since <= 30, "seed \(seed) second \(s)")
        case .walking where s >= 10 && day.truth.mode[s - 10] == .walking:
          #expect(since <= 31, "seed \(seed) second \(s)")
        case .parked:
          #expect(since <= 901, "seed \(seed) second \(s)")
        default: break
        }
      }
      #expect(moving > 600)
    }
  }

  @Test("noise: indoor fixes are looser than moving ones; network estimates and labelled outliers appear")
  func noise() {
    var indoor: [Double] = []
    var moving: [Double] = []
    var network = 0
    for seed in Self.seeds {
      let day = DayGenerator.generate(seed: seed)
      for fix in deviceFixes(day, 1) {
        if fix.horizontalAccuracyMeters >= 100 {
          network += 1
          #expect(fix.speedMetersPerSecond == nil && fix.horizontalAccuracyMeters <= 3100)
        } else if fix.activity == .still && fix.horizontalAccuracyMeters >= 15 {
          indoor.append(fix.horizontalAccuracyMeters)
        } else if fix.activity == .automotive {
          moving.append(fix.horizontalAccuracyMeters)
        }
      }
      for outlier in day.labels.outliers where outlier.device == 1 {
        let fix = deviceFixes(day, 1).first { $0.timeMilliseconds == outlier.timeMilliseconds }!
        let truth = day.truth.coordinate(at: second(day, outlier.timeMilliseconds))
        #expect(GreatCircle.distanceMeters(from: truth, to: fix.coordinate) > 900)
        #expect(fix.horizontalAccuracyMeters <= 12)
      }
    }
    #expect(network > 10)
    let indoorMean: Double = indoor.reduce(0, +) / Double(indoor.count)
    let movingMean: Double = moving.reduce(0, +) / Double(moving.count)
    #expect(indoorMean > 2 * movingMean)
  }

  @Test("uploads: late and repeated batches, a second phone and a home tablet")
  func uploads() {
    var options = DayOptions()
    options.lateUploadProbability = 0.3
    options.repeatedUploadProbability = 0.3
    options.carriedPhones = 2
    let day = DayGenerator.generate(seed: 11, options: options)
    let all = day.fixesInArrivalOrder
    #expect(Set(all.device.map(\.rawValue)) == [1, 2, 9])
    let phone = all.fixes.filter { $0.device.rawValue == 1 }
    let outOfOrder = zip(phone, phone.dropFirst()).filter { $1.timeMilliseconds < $0.timeMilliseconds }.count
    #expect(outOfOrder >= 5)
    let repeats = day.uploads.filter(\.isRepeat)
    #expect(!repeats.isEmpty)
    for upload in repeats {
      #expect(
        day.uploads.contains {
          !$0.isRepeat && $0.fixes == upload.fixes && $0.receivedMilliseconds < upload.receivedMilliseconds
        })
    }
    #expect(
      zip(day.uploads, day.uploads.dropFirst()).allSatisfy {
        $0.receivedMilliseconds <= $1.receivedMilliseconds
      })
    // Every upload reaches the server after its newest fix was taken.
    #expect(day.uploads.allSatisfy { $0.receivedMilliseconds >= $0.fixes.timeMilliseconds.max()! })
    // Live watching: 1 Hz stretches exist when asked for.
    options.liveProbabilityPerDrive = 1
    let live = DayGenerator.generate(seed: 11, options: options)
    let times = deviceFixes(live, 1).map(\.timeMilliseconds)
    #expect(zip(times, times.dropFirst()).filter { $1 - $0 < 1500 }.count >= 100)
  }
}
