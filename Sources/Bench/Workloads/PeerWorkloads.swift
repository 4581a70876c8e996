import Foundation
import HearthGeo
import HearthImpact
import HearthLab
import HearthSim
import HearthTrace

/// Side by side with the Python libraries a researcher would reach for, on the
/// same generated inputs (written to files the peer script reads; loading them
/// is not timed): numpy, the haversine package, h3, scikit-learn's BallTree,
/// movingpandas and pandas rolling windows. trackintel is compared in
/// `Tracking/trips/*`, pandas.read_csv and numpy.load in `Trace/*`.
enum PeerWorkloads {
  static func all(_ context: BenchContext) -> [Benchmark] {
    let pairs = context.scaled(1_000_000)
    let points = context.scaled(200_000)
    let days = max(4, Int((20 * context.scale).rounded()))
    let hours = max(0.25, context.scale)
    return [
      haversine("Peers/haversine/numpy-city-\(TraceWorkloads.label(pairs))", pairs, peer: "numpy-haversine"),
      haversine("Peers/haversine/haversine-city-\(TraceWorkloads.label(pairs))", pairs, peer: "haversine"),
      grid("Peers/gridSnap/h3-city-\(TraceWorkloads.label(points))", points),
      screen("Peers/geofenceScreen/balltree-\(TraceWorkloads.label(points))x1000", points),
      speed("Peers/agreedSpeed/movingpandas-days-\(days)", days),
      rolling("Peers/rolling/pandas-mix-\(hours)h", hours),
    ]
  }

  static func file(_ context: BenchContext, _ name: String) throws -> String {
    try FileManager.default.createDirectory(atPath: context.dataCache, withIntermediateDirectories: true)
    return context.dataCache + "/peers-" + name
  }

  /// Points as an (n, 2) array of latitude, longitude degrees, for the peers.
  static func writePoints(_ p: Inputs.Points, to path: String) throws {
    try NPYArray.write(zip(p.latitudes, p.longitudes).flatMap { [$0, $1] }, shape: [p.count, 2], to: path)
  }

  static func haversine(_ name: String, _ count: Int, peer: String) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "pair", targets: .none,
      note: "GreatCircle.distancesMeters vs \(peer) on the same city pairs", referenceName: peer,
      prepare: { context in
        try pairs(context, count, seeds: (21, 22), file: "pairs-\(count).npy") { try Peers.seconds(peer, $0) }
      })
  }

  /// The haversine subject shared by the peer comparisons: two generated city
  /// sets, written interleaved as an (n, 4) `.npy` of latitude, longitude,
  /// latitude, longitude degrees for the peer to read, and
  /// `GreatCircle.distancesMeters` over the same pairs as the subject.
  /// `external` gets the file's path and returns the peer's seconds.
  static func pairs(
    _ context: BenchContext, _ count: Int, seeds: (UInt64, UInt64), file name: String,
    external: @escaping (String) throws -> Double
  ) throws -> PreparedBenchmark {
    let (a, b) = (Inputs.city(count: count, seed: seeds.0), Inputs.city(count: count, seed: seeds.1))
    let path = try file(context, name)
    var interleaved: [Double] = []
    interleaved.reserveCapacity(4 * count)
    for i in 0..<count {
      interleaved += [a.latitudes[i], a.longitudes[i], b.latitudes[i], b.longitudes[i]]
    }
    try NPYArray.write(interleaved, shape: [count, 4], to: path)
    var out: [Double] = []
    return PreparedBenchmark(
      itemCount: count,
      subject: {
        GreatCircle.distancesMeters(
          latitudes1Degrees: a.latitudes, longitudes1Degrees: a.longitudes,
          latitudes2Degrees: b.latitudes, longitudes2Degrees: b.longitudes, into: &out)
      },
      reference: nil, externalReference: { try external(path) },
      verify: { out.count == count ? .passed("\(count) distances") : .failed("\(out.count) distances") })
  }

  static func grid(_ name: String, _ count: Int) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "point", targets: .none,
      note: "LatitudeBandGrid.privacy snap (750 m cells) vs h3.latlng_to_cell at resolution 8 (Python loop)",
      referenceName: "h3",
      prepare: { context in
        let p = Inputs.city(count: count, seed: 23)
        let path = try file(context, "points-\(count).npy")
        try writePoints(p, to: path)
        var ids: [Int64] = []
        var lat: [Double] = []
        var lon: [Double] = []
        return PreparedBenchmark(
          itemCount: count,
          subject: {
            LatitudeBandGrid.privacy.snap(
              latitudesDegrees: p.latitudes, longitudesDegrees: p.longitudes, cellIDs: &ids,
              centreLatitudesDegrees: &lat, centreLongitudesDegrees: &lon)
          },
          reference: nil, externalReference: { try Peers.seconds("h3", path) },
          verify: {
            ids.allSatisfy { $0 >= 0 } ? .passed("\(count) cells") : .failed("a point without a cell")
          })
      })
  }

  static func screen(_ name: String, _ count: Int) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "fix", targets: .none,
      note: "GeofenceIndex bulk screening vs scikit-learn BallTree (haversine) + exact test, 1 000 places",
      referenceName: "BallTree",
      prepare: { context in
        let p = Inputs.city(count: count, seed: 24)
        let places = FenceWorkloads.places(1000, seed: 25)
        let pointsPath = try file(context, "screen-points-\(count).npy")
        let placesPath = try file(context, "screen-places-1000.npy")
        try writePoints(p, to: pointsPath)
        try NPYArray.write(
          places.flatMap { [$0.center.latitudeDegrees, $0.center.longitudeDegrees, $0.radiusMeters] },
          shape: [places.count, 3], to: placesPath)
        let index = GeofenceIndex(places: places)
        var result = [Int32](repeating: -2, count: count)
        return PreparedBenchmark(
          itemCount: count,
          subject: {
            p.latitudes.withUnsafeBufferPointer { lat in
              p.longitudes.withUnsafeBufferPointer { lon in
                result.withUnsafeMutableBufferPointer {
                  index.smallestContaining(latitudesDegrees: lat, longitudesDegrees: lon, into: $0)
                }
              }
            }
          },
          reference: nil, externalReference: { try Peers.seconds("balltree", pointsPath, placesPath) },
          verify: {
            let inside = result.count { $0 >= 0 }
            return inside > 0
              ? .passed("\(inside) of \(count) fixes inside a place") : .failed("no fix inside")
          })
      })
  }

  static func speed(_ name: String, _ days: Int) -> Benchmark {
    let batches = TrackingWorkloads.Batches(days: days)
    return Benchmark(
      name: name, itemCount: days * 400, itemUnit: "fix", targets: .none,
      note:
        "AgreedSpeedBatch (neighbour speeds) vs movingpandas TrajectoryCollection.add_speed on the same fixes",
      referenceName: "movingpandas",
      prepare: { context in
        let path = try file(context, "speed-days-\(days).csv")
        try FixTable.write(batches.batches.map(\.fixes), to: path)
        var measured = 0
        return PreparedBenchmark(
          itemCount: batches.fixCount,
          subject: {
            measured = 0
            for batch in batches.batches {
              measured += AgreedSpeedBatch(batch.fixes).neighbourMetersPerSecond.count { !$0.isNaN }
            }
          },
          reference: nil, externalReference: { try Peers.seconds("movingpandas", path) },
          verify: { measured > 0 ? .passed("\(measured) speeds") : .failed("no speed") })
      })
  }

  static func rolling(_ name: String, _ hours: Double) -> Benchmark {
    Benchmark(
      name: name, itemCount: Int(hours * 180_000), itemUnit: "sample", targets: .none,
      note:
        "ImpactDetector.replay (every feature and decision) vs three pandas rolling windows over |a| alone (1 s RMS, 9 s median, 1 s max)",
      referenceName: "pandas",
      prepare: { context in
        var mix = DriveMix(seed: 7, options: .init(hours: hours, eventsPerHour: 6, crashesPerHour: 2))
        var whole = ImpactBatch(vehicleGate: true)
        while let drive = mix.next() {
          var simulator = drive.simulator()
          let origin = drive.plan.startEpochMilliseconds
          while let batch = simulator.nextBatch()?.impactBatch(originMilliseconds: origin) {
            whole.accelerometer += batch.accelerometer
            whole.gyroscope += batch.gyroscope
            whole.barometer += batch.barometer
            whole.fixes += batch.fixes
          }
        }
        let magnitudes = whole.accelerometer.map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }
        let path = try file(context, "magnitude-\(hours)h.npy")
        try NPYArray.write(magnitudes, to: path)
        var verdicts = -1
        return PreparedBenchmark(
          itemCount: whole.accelerometer.count,
          subject: { verdicts = ImpactDetector.replay(whole).count },
          reference: nil, externalReference: { try Peers.seconds("pandas-rolling", path) },
          verify: { verdicts >= 0 ? .passed("\(verdicts) verdicts") : .failed("not run") })
      })
  }
}
