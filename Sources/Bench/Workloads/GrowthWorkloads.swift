import Foundation
import HearthGeo
import HearthImpact
import HearthLab
import HearthSim
import _HearthBenchSupport

#if canImport(Glibc)
  import Glibc
#endif

/// How cost grows (issue 21): each family runs one engine on the same kind of
/// input at growing sizes (people, places, hours, threshold combinations), so
/// docs/benchmarks.md can draw a curve per family. None of these are in the
/// CI gate's filters; `--scale` shrinks every size.
enum GrowthWorkloads {
  static func all(_ context: BenchContext) -> [Benchmark] {
    // Floored at a hundredth of the full size, so the names stay distinct at any scale.
    let people = [1_000, 10_000, 100_000, 1_000_000].map {
      max($0 / 100, Int((Double($0) * context.scale).rounded()))
    }
    let ingestFixes = context.scaled(200_000, minimum: 2_000)
    let fenceFixes = context.scaled(200_000, minimum: 2_000)
    let perCircle = [10, 1_000, max(10_000, Int((100_000 * context.scale).rounded()))]
    let total = max(10_000, Int((1_000_000 * context.scale).rounded()))
    let shortHours = max(0.25, context.scale)
    let longHours = max(1, 100 * context.scale)
    let sweepHours = max(0.25, context.scale)
    return people.map { ingest(people: $0, timedFixes: ingestFixes) }
      + perCircle.map { geofences(name: "places-\($0)", perCircle: $0, foreign: 0, fixes: fenceFixes) }
      + [
        geofences(name: "places-total-\(total)", perCircle: 1_000, foreign: total - 1_000, fixes: fenceFixes)
      ]
      + [detector(hours: shortHours), detector(hours: longHours)]
      + [1, 6, 36, 216].map { sweep(combinations: $0, hours: sweepHours) }
  }

  // MARK: Memory readings

  /// Bytes the allocator has handed out and not yet taken back (glibc's
  /// mallinfo2: small blocks plus mmapped ones, every arena), or nil in a
  /// sanitizer build, where the counting allocator stands aside.
  static func heapBytesInUse() -> Double? {
    hearth_allocation_counting() == 1 ? Double(hearth_heap_bytes_in_use()) : nil
  }

  /// The process's peak resident set so far, bytes (getrusage; Linux reports KiB).
  static func peakResidentBytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) * 1024
  }

  static func elapsedSeconds(_ start: ContinuousClock.Instant) -> Double {
    let d = start.duration(to: ContinuousClock.now)
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }

  // MARK: Ingest against the number of people

  /// Start of the synthetic fleet's clock: 2026-01-05 08:00 UTC, ms.
  static let fleetStartMilliseconds: Int64 = 1_767_600_000_000
  static let metersPerDegree = GreatCircle.earthMeanRadiusMeters * .pi / 180

  /// A cheap synthetic fleet: families of four in one circle each, spread
  /// over a 1 000 km × 1 000 km box of western Europe; each family a home
  /// (100 m), each second person a work or school place (150 m) within 3 km.
  /// Every person carries one phone and stays a while, then moves on, around
  /// the home (a mean-reverting random walk at walking to cycling speeds),
  /// so they cross their places' edges now and then. The server receives uploads of 1–4
  /// fixes from people drawn at random, at an average of one fix per person
  /// per 30 s (so the clock runs faster the larger the fleet), gathered into
  /// 200-fix batches; 2 % of uploads are retried (the same fixes again), 2 %
  /// arrive 2–20 min late (buffered offline).
  struct Fleet {
    static let familySize = 4
    static let batchSize = 200
    let people: Int
    var homeLatitude: [Double] = []
    var homeLongitude: [Double] = []
    var northMeters: [Float] = []
    var eastMeters: [Float] = []
    var lastTime: [Int64] = []
    var places: [Geofence] = []
    var circlesOfPerson: [UserID: [CircleID]] = [:]
    var generator = SeededGenerator(seed: 2_021)
    /// The server clock: the receipt time of the next batch, ms.
    var now: Int64 = GrowthWorkloads.fleetStartMilliseconds
    /// A retried upload waits here until the next batch (its fixes again).
    var retry = FixColumns()
    var retriedFixes = 0
    var lateUploads = 0

    init(people: Int) {
      self.people = people
      homeLatitude.reserveCapacity(people)
      homeLongitude.reserveCapacity(people)
      var family = SeededGenerator(seed: 2_022)
      var home = Coordinate(latitudeDegrees: 0, longitudeDegrees: 0)
      for p in 0..<people {
        let circle = CircleID(UInt32(p / Self.familySize + 1))
        if p % Self.familySize == 0 {
          home = Coordinate(
            latitudeDegrees: family.nextDouble(in: 43, 52), longitudeDegrees: family.nextDouble(in: -1, 12))
          places.append(
            Geofence(id: PlaceID(UInt32(places.count)), circle: circle, center: home, radiusMeters: 100))
        }
        if p % 2 == 1 {
          let cosLatitude = cos(home.latitudeDegrees * .pi / 180)
          let work = Coordinate(
            latitudeDegrees: home.latitudeDegrees + family.nextDouble(in: -3_000, 3_000)
              / GrowthWorkloads.metersPerDegree,
            longitudeDegrees: home.longitudeDegrees + family.nextDouble(in: -3_000, 3_000)
              / (GrowthWorkloads.metersPerDegree * cosLatitude))
          places.append(
            Geofence(id: PlaceID(UInt32(places.count)), circle: circle, center: work, radiusMeters: 150))
        }
        homeLatitude.append(home.latitudeDegrees)
        homeLongitude.append(home.longitudeDegrees)
        circlesOfPerson[UserID(UInt32(p + 1))] = [circle]
      }
      northMeters = Array(repeating: 0, count: people)
      eastMeters = Array(repeating: 0, count: people)
      lastTime = Array(repeating: GrowthWorkloads.fleetStartMilliseconds - 3_600_000, count: people)
    }

    var speedLimits: [CircleID: SpeedLimit] {
      Dictionary(
        uniqueKeysWithValues: (1...UInt32((people + Self.familySize - 1) / Self.familySize)).map {
          (CircleID($0), SpeedLimit(kilometersPerHour: 50))
        })
    }

    /// Person `p`'s next fix at `time` (ms). Mostly they stay where they
    /// are (GPS noise of ±8 m around the spot: stays of about 6 min on
    /// average, so trips end by dwelling); one fix in 12 they have moved
    /// on, up to 2.5 m/s along each axis since the last fix, pulled back
    /// towards home.
    mutating func step(_ p: Int, at time: Int64) -> Fix {
      let seconds = Float(min(120, max(1, Double(time - lastTime[p]) / 1000)))
      if generator.next() % 12 == 0 {
        northMeters[p] = 0.97 * northMeters[p] + seconds * Float(generator.nextDouble(in: -2.5, 2.5))
        eastMeters[p] = 0.97 * eastMeters[p] + seconds * Float(generator.nextDouble(in: -2.5, 2.5))
      }
      lastTime[p] = max(lastTime[p], time)
      let north = Double(northMeters[p]) + generator.nextDouble(in: -8, 8)
      let east = Double(eastMeters[p]) + generator.nextDouble(in: -8, 8)
      let latitude = homeLatitude[p] + north / GrowthWorkloads.metersPerDegree
      let longitude =
        homeLongitude[p] + east / (GrowthWorkloads.metersPerDegree * cos(homeLatitude[p] * .pi / 180))
      let id = UInt32(p + 1)
      return Fix(
        timeMilliseconds: time, latitudeDegrees: latitude, longitudeDegrees: longitude,
        horizontalAccuracyMeters: generator.nextDouble(in: 4, 30), activity: .walking,
        device: DeviceID(id), user: UserID(id))
    }

    /// The next warm-up pick (every person in turn), when warming up.
    var warmCursor: Int?

    /// The next 200-fix server batch and its receipt time (ms).
    mutating func nextBatch() -> (received: Int64, fixes: FixColumns) {
      var batch = FixColumns()
      batch.reserveCapacity(Self.batchSize)
      // Last batch's retried upload comes first, as a whole.
      batch.append(contentsOf: retry)
      retriedFixes += retry.count
      retry.removeAll()
      while batch.count < Self.batchSize {
        let drawn = Int(generator.next() % UInt64(people))
        let p = warmCursor.map { $0 % people } ?? drawn
        if let cursor = warmCursor { warmCursor = cursor + 1 }
        let count = min(Int(generator.next() % 4) + 1, Self.batchSize - batch.count)
        let kind = generator.next() % 50
        // Late: buffered for 2–20 min, so dated well before the receipt.
        let late = kind == 0
        if late { lateUploads += 1 }
        let newest = now - (late ? Int64(generator.nextDouble(in: 120_000, 1_200_000)) : 2_000)
        var upload = FixColumns()
        for k in 0..<count {
          // A phone's fixes 10 s apart; never before its last one (a late
          // upload may still be older than what the person sent since).
          var time = newest - Int64(count - 1 - k) * 10_000 - Int64(generator.next() % 1_000)
          if !late { time = max(time, lastTime[p] + 1_000) }
          upload.append(step(p, at: time))
        }
        batch.append(contentsOf: upload)
        if kind == 1 { retry.append(contentsOf: upload) }  // to be sent again
      }
      let received = now
      // One fix per person per 30 s on average.
      now += max(1, Int64((30_000 * Double(Self.batchSize) / Double(people)).rounded()))
      return (received, batch)
    }
  }

  /// A window of the fleet's batches, prepared before a timed run.
  struct Window {
    var batches: [(received: Int64, fixes: FixColumns)] = []
    var fixes = 0
    var retried = 0
  }

  static func ingest(people: Int, timedFixes: Int) -> Benchmark {
    // Every run continues the same fleet's stream from where the last one
    // stopped (the state cannot be reset without copying it all inside the
    // timed region); the windows are made in `prepare`, so runs time ingest only.
    let windows = 8
    let warmFixesPerPerson = 3
    let encodeLimit = 100_000
    return Benchmark(
      name: "Growth/ingest/people-\(people)", itemCount: timedFixes, itemUnit: "fix", targets: .none,
      note:
        "IngestPipeline.ingest per fix on \(Fleet.batchSize)-fix batches of a synthetic fleet of \(people) people (families of 4, a home and every second person a work place; random walks around home; 2 % of uploads retried, 2 % late), after every person sent about \(warmFixesPerPerson) fixes in turn (untimed); state bytes from glibc's mallinfo2 before and after the warm-up\(people > encodeLimit ? "; the saved state is not encoded above \(encodeLimit) people (too slow)" : "")",
      maxNanosecondsPerItem: IngestWorkloads.ceiling,
      prepare: { _ in
        var fleet = Fleet(people: people)
        let heapBeforePipeline = heapBytesInUse()
        let pipeline = IngestPipeline(
          places: fleet.places, circlesOfPerson: fleet.circlesOfPerson, speedLimits: fleet.speedLimits)
        let heapBeforeState = heapBytesInUse()
        var state = IngestState()
        // Warm-up: each person their first fixes, untimed (batches made one
        // at a time and dropped, so the heap growth is the state's).
        var warmFixes = 0
        let warmStart = ContinuousClock.now
        fleet.warmCursor = 0
        while warmFixes < people * warmFixesPerPerson {
          let batch = fleet.nextBatch()
          warmFixes += batch.fixes.count
          _ = pipeline.ingest(batch.fixes, receivedAtMilliseconds: batch.received, state: &state)
        }
        fleet.warmCursor = nil
        let warmSeconds = elapsedSeconds(warmStart)
        let heapAfterState = heapBytesInUse()
        let seenPeople = state.people.count
        var savedBytes: Double = .nan
        if people <= encodeLimit, let data = try? JSONEncoder().encode(state) {
          savedBytes = Double(data.count)
        }
        var prepared: [Window] = []
        func makeWindow() -> Window {
          var window = Window()
          let retriedBefore = fleet.retriedFixes
          while window.fixes < timedFixes {
            let batch = fleet.nextBatch()
            window.fixes += batch.fixes.count
            window.batches.append(batch)
          }
          window.retried = fleet.retriedFixes - retriedBefore
          return window
        }
        for _ in 0..<windows { prepared.append(makeWindow()) }
        let itemCount = prepared[0].fixes
        var runs = 0
        var last = IngestOutput()
        var lastWindow = Window()
        var produced = 0
        var geofenceEvents = 0
        var lastReceived: Int64?
        return PreparedBenchmark(
          itemCount: itemCount,
          subject: {
            // Past the prepared windows (more repetitions than usual) the
            // next window is made here, inside the timed run.
            let window = runs < prepared.count ? prepared[runs] : makeWindow()
            if runs < prepared.count { prepared[runs] = Window() }  // free it
            runs += 1
            var total = IngestOutput()
            produced = 0
            geofenceEvents = 0
            for batch in window.batches {
              let output = pipeline.ingest(batch.fixes, receivedAtMilliseconds: batch.received, state: &state)
              total.inserted += output.inserted
              total.duplicates += output.duplicates
              total.rejections += output.rejections
              produced += output.producedCount
              geofenceEvents += output.geofenceEvents.count
            }
            last = total
            lastReceived = window.batches.last?.received
            lastWindow = Window(batches: [], fixes: window.fixes, retried: window.retried)
          },
          reference: nil,
          verify: {
            let accounted = last.inserted + last.duplicates + last.rejections.count
            guard accounted == lastWindow.fixes else {
              return .failed("\(accounted) fixes accounted for of \(lastWindow.fixes)")
            }
            guard seenPeople == people else {
              return .failed("warm-up reached \(seenPeople) of \(people) people")
            }
            // Every retried fix is a duplicate; a late fix may rarely hit a stored time too.
            guard last.duplicates >= lastWindow.retried,
              last.duplicates <= lastWindow.retried + lastWindow.fixes / 100
            else {
              return .failed("\(last.duplicates) duplicates, \(lastWindow.retried) fixes retried")
            }
            guard geofenceEvents > 0, produced > 0 else {
              return .failed("no geofence event (\(produced) outputs) for \(lastWindow.fixes) fixes")
            }
            return .passed(
              "\(people) people warm (\(warmFixes) fixes in \(String(format: "%.1f", warmSeconds)) s); a window: \(last.inserted) stored, \(last.duplicates) duplicates (\(lastWindow.retried) retried), \(last.rejections.count) rejected, \(geofenceEvents) geofence decisions, \(produced) outputs"
            )
          },
          metrics: {
            var m: [String: Double] = ["warmFixesPerPerson": Double(warmFixes) / Double(people)]
            if let b = heapBeforeState, let a = heapAfterState {
              m["stateBytesPerPerson"] = (a - b) / Double(people)
            }
            if let b = heapBeforePipeline, let a = heapBeforeState {
              m["configurationBytesPerPerson"] = (a - b) / Double(people)
            }
            if let now = heapBytesInUse(), let b = heapBeforeState {
              // The state after the timed runs too: the dedupe index keeps every stored fix.
              m["stateBytesPerPersonAfterRuns"] = (now - b) / Double(people)
            }
            if !savedBytes.isNaN { m["savedStateBytesPerPerson"] = savedBytes / Double(people) }
            // A clock tick with nothing new, per engine: what a batch pays
            // besides its fixes (an engine that scans everybody shows here).
            let tick = (lastReceived ?? fleetStartMilliseconds) + 1
            func idle(_ body: () -> Void) -> Double { Runner.time(body) * 1e6 }
            m["idleTickGeofencesMicroseconds"] = idle {
              _ = pipeline.geofences.advance(to: tick, state: &state.geofences)
            }
            m["idleTickSuddenStopsMicroseconds"] = idle {
              _ = pipeline.suddenStops.advance(to: tick, state: &state.suddenStops)
            }
            m["idleTickTripsMicroseconds"] = idle {
              _ = pipeline.trips.advance(to: tick, state: &state.trips)
            }
            m["peakResidentMegabytes"] = peakResidentBytes() / 1e6
            return m
          })
      })
  }

  // MARK: Geofences against the number of places

  /// 1 000 people of one circle wandering around homes in the city box, the
  /// same fixes at every size; the circle holds `perCircle` places uniform
  /// in the box (radius 50–300 m), and `foreign` more places of other
  /// circles (1 000 per circle) are spread over a 700 km × 900 km box of
  /// France that contains it, so the index holds them all but the people see
  /// only their own.
  static func geofences(name: String, perCircle: Int, foreign: Int, fixes count: Int) -> Benchmark {
    Benchmark(
      name: "Growth/geofences/\(name)", itemCount: count, itemUnit: "fix", targets: .none,
      note:
        "GeofenceEngine.process per fix, 200-fix batches of 1 000 walkers in central Paris, \(perCircle) places in their circle (uniform in a 22 km box, 50–300 m)"
        + (foreign > 0 ? " and \(foreign) places of 999 other circles over France" : ""),
      maxNanosecondsPerItem: FenceWorkloads.engineCeiling,
      prepare: { _ in
        let circle = CircleID(1)
        var places = FenceWorkloads.places(perCircle, seed: 61).map {
          Geofence(id: $0.id, circle: circle, center: $0.center, radiusMeters: $0.radiusMeters)
        }
        var g = SeededGenerator(seed: 62)
        for k in 0..<foreign {
          places.append(
            Geofence(
              id: PlaceID(UInt32(perCircle + k)), circle: CircleID(UInt32(2 + k / 1_000)),
              center: Coordinate(
                latitudeDegrees: g.nextDouble(in: 43, 51), longitudeDegrees: g.nextDouble(in: -2, 8)),
              radiusMeters: g.nextDouble(in: 50, 300)))
        }
        let walkers = 1_000
        let homes = Inputs.city(count: walkers, seed: 63)
        var circles: [UserID: [CircleID]] = [:]
        for p in 0..<walkers { circles[UserID(UInt32(p + 1))] = [circle] }
        // The walk: one fix per walker per 30 s, 200 walkers a batch.
        var walk = SeededGenerator(seed: 64)
        var north = [Double](repeating: 0, count: walkers)
        var east = [Double](repeating: 0, count: walkers)
        var batches: [(Int64, FixColumns)] = []
        var batch = FixColumns()
        var time = fleetStartMilliseconds
        for i in 0..<count {
          let p = i % walkers
          north[p] = 0.97 * north[p] + 30 * walk.nextDouble(in: -2.5, 2.5)
          east[p] = 0.97 * east[p] + 30 * walk.nextDouble(in: -2.5, 2.5)
          let latitude = homes.latitudes[p] + north[p] / metersPerDegree
          batch.append(
            Fix(
              timeMilliseconds: time + Int64(i % 200) * 150, latitudeDegrees: latitude,
              longitudeDegrees: homes.longitudes[p] + east[p] / (metersPerDegree * cos(latitude * .pi / 180)),
              horizontalAccuracyMeters: walk.nextDouble(in: 4, 30), activity: .walking,
              device: DeviceID(UInt32(p + 1)), user: UserID(UInt32(p + 1))))
          if batch.count == 200 || i == count - 1 {
            batches.append((time + 32_000, batch))
            batch = FixColumns()
            if p == walkers - 1 || i % 200 == 199 { time += 6_000 }
          }
        }
        let engine = GeofenceEngine(places: places, circlesOfPerson: circles)
        // What verify holds the engine to: fixes inside a place of the circle.
        let own = GeofenceIndex(places: Array(places.prefix(perCircle)))
        // (fix, place) pairs with the fix inside: each can start at most one arrival.
        var inside = 0
        for (_, fixes) in batches {
          for i in 0..<fixes.count { own.forEachContaining(fixes[i].coordinate) { _ in inside += 1 } }
        }
        var events = 0
        var arrivals = 0
        return PreparedBenchmark(
          itemCount: count,
          subject: {
            var state = GeofenceState()
            events = 0
            arrivals = 0
            for (received, fixes) in batches {
              let made = engine.process(fixes, receivedAtMilliseconds: received, state: &state)
              events += made.count
              for e in made where e.kind == .arrival { arrivals += 1 }
            }
          },
          reference: nil,
          verify: {
            // Nobody arrives without a fix inside; with fixes inside, somebody does.
            guard (inside == 0) == (arrivals == 0), arrivals <= inside else {
              return .failed(
                "\(arrivals) arrivals but \(inside) (fix, place) pairs inside a place of the circle")
            }
            if perCircle >= 1_000 && events == 0 { return .failed("no decision over \(perCircle) places") }
            return .passed(
              "\(events) decisions (\(arrivals) arrivals) for \(count) fixes, \(inside) (fix, place) pairs inside one of the circle's \(perCircle) places, \(places.count) places indexed"
            )
          },
          metrics: { ["decisionsPerThousandFixes": Double(events) * 1000 / Double(count)] })
      })
  }

  // MARK: The detector against hours of driving

  /// `hours` of `DriveMix` (seed 5, 2 crashes/h) on one clock (every drive
  /// after the last), in 250 ms batches, through one detector.
  static func detector(hours: Double) -> Benchmark {
    let label = hours == hours.rounded() ? String(Int(hours)) : String(hours)
    return Benchmark(
      name: "Growth/detector/hours-\(label)", itemCount: Int(hours * 234_000), itemUnit: "sample",
      targets: .none,
      note:
        "ImpactDetector.process per sample over \(label) h of DriveMix (seed 5, 6 events and 2 crashes an hour) on one clock, 250 ms batches held in memory; heap growth over a run (mallinfo2) shows the detector's memory",
      maxNanosecondsPerItem: ImpactWorkloads.ceiling,
      prepare: { _ in
        let batches = ImpactWorkloads.mixBatches(hours: hours)
        let samples = batches.reduce(0) {
          $0 + $1.accelerometer.count + $1.gyroscope.count + $1.barometer.count
        }
        var verdicts = 0
        var reported = 0
        var skipped = 0
        var heapGrowth: Double = .nan
        var detectorBytes: Double = .nan
        var peakGrowth = 0.0
        var seconds: [Double] = []
        return PreparedBenchmark(
          itemCount: samples,
          subject: {
            let start = ContinuousClock.now
            let heapBefore = heapBytesInUse()
            let peakBefore = peakResidentBytes()
            var detector = ImpactDetector()
            let heapStarted = heapBytesInUse()
            verdicts = 0
            reported = 0
            for batch in batches {
              for v in detector.process(batch) {
                verdicts += 1
                if v.outcome == .possibleImpact { reported += 1 }
              }
            }
            // Still holding the detector: what it grew to after every batch.
            if let b = heapBefore, let s = heapStarted, let a = heapBytesInUse() {
              detectorBytes = a - b
              heapGrowth = a - s
            }
            peakGrowth = peakResidentBytes() - peakBefore
            for v in detector.finish() {
              verdicts += 1
              if v.outcome == .possibleImpact { reported += 1 }
            }
            skipped = detector.counters.skippedSamples
            seconds.append(elapsedSeconds(start))
          },
          reference: nil,
          verify: {
            // Two crashes an hour: at least one report per full hour.
            guard reported >= Int(hours), verdicts >= reported else {
              return .failed("\(reported) reports, \(verdicts) verdicts over \(label) h with 2 crashes/h")
            }
            guard skipped * 1_000 <= samples else {
              return .failed("\(skipped) of \(samples) samples skipped")
            }
            return .passed(
              "\(verdicts) jolts judged, \(reported) reported, \(skipped) samples skipped, over \(samples) samples in \(batches.count) batches"
            )
          },
          metrics: {
            // Timed runs only (the first, untimed run is dropped).
            let timed = Array(seconds.dropFirst())
            return [
              "detectorHeapBytes": detectorBytes, "heapGrowthDuringRunBytes": heapGrowth,
              "peakResidentGrowthDuringRunBytes": peakGrowth,
              "traceHoursPerSecond": timed.isEmpty ? .nan : hours / Statistics.median(timed),
            ].filter { !$0.value.isNaN }
          })
      })
  }

  // MARK: The sweep against the number of combinations

  /// 6 values per swept threshold; the first k axes swept for 6^k combinations.
  static func sweepGrid(combinations: Int) -> ImpactSweep.Grid {
    var grid = ImpactSweep.Grid()
    var left = combinations
    if left >= 6 {
      grid.joltG = [3, 3.5, 4, 4.5, 5, 6]
      left /= 6
    }
    if left >= 6 {
      grid.spinRadiansPerSecond = [2.5, 3, 3.5, 4, 4.5, 5]
      left /= 6
    }
    if left >= 6 {
      grid.pressureHectopascals = [1, 1.5, 2, 2.5, 3, 3.5]
      left /= 6
    }
    return grid
  }

  /// `ImpactSweep.extract` of every task then `assemble`, as `hearth impact
  /// sweep` runs them (the scenario catalogue once and `hours` of driving).
  static func sweep(combinations: Int, hours: Double) -> Benchmark {
    Benchmark(
      name: "Growth/sweep/combinations-\(combinations)", itemCount: 1, itemUnit: "sweep", targets: .none,
      note:
        "ImpactSweep.extract over the catalogue (seed 1) and \(String(format: "%g", hours)) h of DriveMix, then assemble for \(combinations) threshold combination\(combinations == 1 ? "" : "s") (jolt × spin × pressure, 6 values each; assemble judges combinations on every core)",
      prepare: { _ in
        let grid = sweepGrid(combinations: combinations)
        let tasks = ImpactSweep.tasks(seeds: 1...1, hours: hours)
        var result: ImpactSweep.Result?
        var seconds: [Double] = []
        var assembleSeconds: [Double] = []
        return PreparedBenchmark(
          itemCount: 1,
          subject: {
            let start = ContinuousClock.now
            let traces = tasks.map { ImpactSweep.extract($0, grid: grid) }
            let assembling = ContinuousClock.now
            result = ImpactSweep.assemble(traces, grid: grid, seeds: 1...1)
            assembleSeconds.append(elapsedSeconds(assembling))
            seconds.append(elapsedSeconds(start))
          },
          reference: nil,
          verify: {
            guard let result, result.rows.count == combinations, result.reportCounts.count == combinations,
              result.traces == tasks.count
            else { return .failed("\(result?.rows.count ?? 0) rows for \(combinations) combinations") }
            // One pass serves all: the hand-set row of this grid reports
            // what a sweep of the hand-set thresholds alone reports.
            let reports = result.rows.map(\.reports)
            let alone = ImpactSweep.assemble(
              tasks.map { ImpactSweep.extract($0, grid: ImpactSweep.Grid()) }, grid: ImpactSweep.Grid(),
              seeds: 1...1)
            guard let most = reports.max(), most > 0, reports[result.featured] == alone.rows[0].reports,
              result.rows[result.featured].truePositives == alone.rows[0].truePositives
            else {
              return .failed(
                "the hand-set row reports \(reports[result.featured]) (\(result.rows[result.featured].truePositives) true), alone \(alone.rows[0].reports) (\(alone.rows[0].truePositives) true)"
              )
            }
            return .passed(
              "\(result.traces) traces (\(String(format: "%.2f", result.hours)) h of driving), \(result.jolts) jolts, \(combinations) rows, reports per row \(reports.min() ?? 0)–\(most)"
            )
          },
          metrics: {
            // Timed runs only (the first, untimed run is dropped).
            let timed = Array(seconds.dropFirst())
            let assemble = Array(assembleSeconds.dropFirst())
            guard !timed.isEmpty, let hours = result?.hours else { return [:] }
            let median = Statistics.median(timed)
            return [
              "traceHoursPerSecond": hours / median,
              "assembleMilliseconds": Statistics.median(assemble) * 1000,
            ]
          })
      })
  }
}
