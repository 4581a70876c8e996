import Foundation
import HearthGeo
import HearthTrace

/// The geodesy and grid workloads of the foundation issue.
enum GeoWorkloads {
  /// Targets from the issue: haversine and track ≤ 0.7× the C reference when
  /// built for the machine, ≤ 3× with default flags; grid snap ≤ 1.0×.
  static let distanceTargets = RatioTargets(native: 0.7, portable: 3)
  static let gridTargets = RatioTargets(native: 1.0, portable: 3)

  static func all(_ context: BenchContext) -> [Benchmark] {
    let tenMillion = context.scaled(10_000_000)
    let label = context.scale == 1 ? "10M" : "\(tenMillion)"
    let aisDirectory = (context.datasetsDirectory as NSString).appendingPathComponent("tracktable-ais")
    return [
      pairs("Geo/haversine/city-\(label)", count: tenMillion, seed: 11, city: true),
      pairs("Geo/haversine/globe-\(label)", count: tenMillion, seed: 12, city: false),
      libmPairs("Geo/haversine-libm/globe-\(label)", count: tenMillion, seed: 12),
      oneToMany("Geo/oneToMany/globe-\(label)", count: tenMillion, seed: 13),
      track("Geo/trackDistances/track-\(label)", count: tenMillion) { Inputs.track(count: $0, seed: 14) },
      track("Geo/trackDistances/ais-458k", count: nil) { _ in try aisPoints(aisDirectory) },
      grid("Geo/gridSnap750/globe-\(label)", count: tenMillion) { Inputs.globe(count: $0, seed: 15) },
      grid("Geo/gridSnap750/city-\(label)", count: tenMillion) { Inputs.city(count: $0, seed: 16) },
      grid("Geo/gridSnap750/ais-458k", count: nil) { _ in try aisPoints(aisDirectory) },
    ]
  }

  /// Every position of the tracktable AIS files, trajectory after trajectory.
  static func aisPoints(_ directory: String) throws -> Inputs.Points {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      $0.hasSuffix(".traj")
    }.sorted()
    guard !files.isEmpty else { throw BenchError.io("no .traj files in \(directory)") }
    var points = Inputs.Points(latitudes: [], longitudes: [])
    for file in files {
      let (trajectories, _) = try TracktableReader.read(
        path: (directory as NSString).appendingPathComponent(file))
      for trajectory in trajectories {
        points.latitudes += trajectory.fixes.latitudeDegrees
        points.longitudes += trajectory.fixes.longitudeDegrees
      }
    }
    return points
  }

  // MARK: Pairs

  private final class PairBuffers {
    let first: Inputs.Points
    let second: Inputs.Points
    var subjectOutput: [Double]
    var referenceOutput: [Double]
    init(_ first: Inputs.Points, _ second: Inputs.Points) {
      self.first = first
      self.second = second
      subjectOutput = Array(repeating: 0, count: first.count)
      referenceOutput = Array(repeating: 0, count: first.count)
    }
    func runReference(_ reference: CReference) {
      referenceOutput.withUnsafeMutableBufferPointer { out in
        reference.haversinePairs(
          first.latitudes, first.longitudes, second.latitudes, second.longitudes,
          out.baseAddress, Int64(out.count))
      }
    }
  }

  private static func pairs(_ name: String, count: Int, seed: UInt64, city: Bool) -> Benchmark {
    pairBenchmark(
      name, count: count, seed: seed, city: city, targets: distanceTargets,
      note: "GreatCircle.distancesMeters vs C sin/cos/asin loop"
    ) { buffers in
      GreatCircle.distancesMeters(
        latitudes1Degrees: buffers.first.latitudes, longitudes1Degrees: buffers.first.longitudes,
        latitudes2Degrees: buffers.second.latitudes, longitudes2Degrees: buffers.second.longitudes,
        into: &buffers.subjectOutput)
    }
  }

  /// The same pairs through Foundation's scalar sin/cos/asin: what a plain
  /// Swift loop costs (no target; shows why the kernels use polynomials).
  private static func libmPairs(_ name: String, count: Int, seed: UInt64) -> Benchmark {
    pairBenchmark(
      name, count: count, seed: seed, city: false, targets: .none,
      note: "plain Swift loop over Foundation sin/cos/asin vs the same C loop"
    ) { buffers in
      let k = Double.pi / 180
      let (a, b) = (buffers.first, buffers.second)
      buffers.subjectOutput.withUnsafeMutableBufferPointer { out in
        for i in 0..<out.count {
          let s1 = sin(0.5 * (b.latitudes[i] - a.latitudes[i]) * k)
          let s2 = sin(0.5 * (b.longitudes[i] - a.longitudes[i]) * k)
          let h = s1 * s1 + cos(a.latitudes[i] * k) * cos(b.latitudes[i] * k) * s2 * s2
          out[i] = 2 * GreatCircle.earthMeanRadiusMeters * asin(h.squareRoot())
        }
      }
    }
  }

  /// A pairs workload: `subject` fills `buffers.subjectOutput`; the C
  /// reference is the textbook loop; results must agree to 1e-9.
  private static func pairBenchmark(
    _ name: String, count: Int, seed: UInt64, city: Bool, targets: RatioTargets, note: String,
    subject: @escaping (PairBuffers) -> Void
  ) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "pair", targets: targets, note: note,
      prepare: { context in
        let make = city ? Inputs.city : Inputs.globe
        let buffers = PairBuffers(make(count, seed), make(count, seed &+ 100))
        return PreparedBenchmark(
          itemCount: count,
          subject: { subject(buffers) },
          reference: context.reference.map { reference in { buffers.runReference(reference) } },
          verify: {
            guard context.reference != nil else { return .passed("no C reference") }
            return Checks.agree(
              "distances", buffers.subjectOutput, buffers.referenceOutput, tolerance: 1e-9)
          })
      })
  }

  private static func oneToMany(_ name: String, count: Int, seed: UInt64) -> Benchmark {
    Benchmark(
      name: name, itemCount: count, itemUnit: "point", targets: distanceTargets,
      note: "GreatCircle.distancesMeters(from:) vs C loop with the origin's cosine hoisted",
      prepare: { context in
        let points = Inputs.globe(count: count, seed: seed)
        let origin = Coordinate(latitudeDegrees: 51.4779, longitudeDegrees: -0.0015)
        var subjectOutput = [Double](repeating: 0, count: count)
        var referenceOutput = [Double](repeating: 0, count: count)
        return PreparedBenchmark(
          itemCount: count,
          subject: {
            GreatCircle.distancesMeters(
              from: origin, toLatitudesDegrees: points.latitudes, longitudesDegrees: points.longitudes,
              into: &subjectOutput)
          },
          reference: context.reference.map { reference in
            {
              referenceOutput.withUnsafeMutableBufferPointer { out in
                reference.haversineOneToMany(
                  origin.latitudeDegrees, origin.longitudeDegrees, points.latitudes,
                  points.longitudes, out.baseAddress, Int64(count))
              }
            }
          },
          verify: {
            guard context.reference != nil else { return .passed("no C reference") }
            return Checks.agree("distances", subjectOutput, referenceOutput, tolerance: 1e-9)
          })
      })
  }

  // MARK: Track

  private static func track(
    _ name: String, count: Int?, make: @escaping (Int) throws -> Inputs.Points
  ) -> Benchmark {
    Benchmark(
      name: name, itemCount: count ?? 457_559, itemUnit: "step", targets: distanceTargets,
      note: "GreatCircle.trackDistancesMeters (steps + compensated path) vs C (steps + plain sum)",
      prepare: { context in
        let points = try make(count ?? 0)
        let n = points.count
        var steps = [Double](repeating: 0, count: n)
        var path = [Double](repeating: 0, count: n)
        var referenceSteps = [Double](repeating: 0, count: n)
        var referencePath = [Double](repeating: 0, count: n)
        let cpu = CPUTimes()
        return PreparedBenchmark(
          itemCount: n,
          subject: {
            cpu.timeSubject {
              GreatCircle.trackDistancesMeters(
                latitudesDegrees: points.latitudes, longitudesDegrees: points.longitudes,
                steps: &steps, cumulative: &path)
            }
          },
          reference: context.reference.map { reference in
            {
              cpu.timeReference {
                referenceSteps.withUnsafeMutableBufferPointer { s in
                  referencePath.withUnsafeMutableBufferPointer { p in
                    reference.trackDistances(
                      points.latitudes, points.longitudes, s.baseAddress, p.baseAddress, Int64(n))
                  }
                }
              }
            }
          },
          verify: {
            guard context.reference != nil else { return .passed("no C reference") }
            let stepCheck = Checks.agree("steps", steps, referenceSteps, tolerance: 1e-9)
            guard case .passed(let stepDetail) = stepCheck else { return stepCheck }
            let pathCheck = Checks.agree("path", path, referencePath, tolerance: 1e-9)
            guard case .passed(let pathDetail) = pathCheck else { return pathCheck }
            return .passed("\(stepDetail); \(pathDetail)")
          },
          metrics: { cpu.figures(items: n, unit: "Step") })
      })
  }

  // MARK: Grid

  private static func grid(
    _ name: String, count: Int?, make: @escaping (Int) throws -> Inputs.Points
  ) -> Benchmark {
    Benchmark(
      name: name, itemCount: count ?? 457_559, itemUnit: "point", targets: gridTargets,
      note: "LatitudeBandGrid.privacy.snap (cell id + centre) vs the same loop in C on the same tables",
      prepare: { context in
        let points = try make(count ?? 0)
        let n = points.count
        let grid = LatitudeBandGrid.privacy
        var ids = [Int64](repeating: 0, count: n)
        var centreLatitudes = [Double](repeating: 0, count: n)
        var centreLongitudes = [Double](repeating: 0, count: n)
        var referenceIDs = [Int64](repeating: 0, count: n)
        var referenceLatitudes = [Double](repeating: 0, count: n)
        var referenceLongitudes = [Double](repeating: 0, count: n)
        let tables = grid.tables
        return PreparedBenchmark(
          itemCount: n,
          subject: {
            grid.snap(
              latitudesDegrees: points.latitudes, longitudesDegrees: points.longitudes,
              cellIDs: &ids, centreLatitudesDegrees: &centreLatitudes,
              centreLongitudesDegrees: &centreLongitudes)
          },
          reference: context.reference.map { reference in
            {
              referenceIDs.withUnsafeMutableBufferPointer { i in
                referenceLatitudes.withUnsafeMutableBufferPointer { la in
                  referenceLongitudes.withUnsafeMutableBufferPointer { lo in
                    reference.gridSnap(
                      points.latitudes, points.longitudes, Int64(n), tables.rowsPerDegree,
                      tables.lastRow, tables.rowHeightDegrees, tables.bands, i.baseAddress,
                      la.baseAddress, lo.baseAddress)
                  }
                }
              }
            }
          },
          verify: {
            guard context.reference != nil else { return .passed("no C reference") }
            let differing = zip(ids, referenceIDs).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
            guard differing == 0 else {
              return .failed("\(differing) of \(n) cell ids differ from the C reference")
            }
            let latitudeCheck = Checks.agree(
              "centres", centreLatitudes, referenceLatitudes, tolerance: 1e-12)
            guard case .passed = latitudeCheck else { return latitudeCheck }
            let longitudeCheck = Checks.agree(
              "centres", centreLongitudes, referenceLongitudes, tolerance: 1e-12)
            guard case .passed(let detail) = longitudeCheck else { return longitudeCheck }
            return .passed("all \(n) cell ids identical to C; \(detail)")
          })
      })
  }
}
