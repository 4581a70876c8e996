import Foundation
import HearthGeo
import HearthSim

/// Geofences (SPEC §3): screening fixes against places through the index,
/// side by side with a C all-pairs loop, and the whole engine with settling
/// on generated days.
enum FenceWorkloads {
  /// Issue targets: ≤ 10 ns per fix whatever the number of places; the
  /// engine at ≥ 5 M fixes/s per core (≤ 200 ns per fix).
  static let screenCeiling = 10.0
  static let engineCeiling = 200.0

  static func all(_ context: BenchContext) -> [Benchmark] {
    let fixes = context.scaled(1_000_000)
    let label = context.scale == 1 ? "1M" : "\(fixes)"
    let days = max(4, Int((200 * context.scale).rounded()))
    return [10, 100, 1000].map { screen("Geo/geofenceScreen/\(label)x\($0)", fixes: fixes, places: $0) }
      + [engine("Geo/geofenceEngine/days-\(days)", days: days)]
  }

  /// Places uniform in the city box, radius 50–300 m, smallest first (so the
  /// all-pairs loop can stop at its first hit).
  static func places(_ count: Int, seed: UInt64) -> [Geofence] {
    var g = SeededGenerator(seed: seed)
    let places = (0..<count).map { i in
      Geofence(
        id: PlaceID(UInt32(i)),
        center: Coordinate(
          latitudeDegrees: g.nextDouble(in: 48.76, 48.96), longitudeDegrees: g.nextDouble(in: 2.20, 2.50)),
        radiusMeters: g.nextDouble(in: 50, 300))
    }
    return places.sorted { $0.radiusMeters < $1.radiusMeters }.enumerated().map {
      Geofence(
        id: PlaceID(UInt32($0.offset)), center: $0.element.center, radiusMeters: $0.element.radiusMeters)
    }
  }

  private final class ScreenBuffers {
    let points: Inputs.Points
    let index: GeofenceIndex
    var subject: [Int32]
    var reference: [Int32]
    // Unit vectors for the all-pairs loop.
    var fx: [Double] = [], fy: [Double] = [], fz: [Double] = []
    var px: [Double] = [], py: [Double] = [], pz: [Double] = [], cosRadius: [Double] = []

    init(_ points: Inputs.Points, _ places: [Geofence]) {
      self.points = points
      index = GeofenceIndex(places: places)
      subject = Array(repeating: -2, count: points.count)
      reference = Array(repeating: -2, count: points.count)
      func unit(_ lat: Double, _ lon: Double) -> (Double, Double, Double) {
        let (a, b) = (lat * .pi / 180, lon * .pi / 180)
        return (cos(a) * cos(b), cos(a) * sin(b), sin(a))
      }
      for i in 0..<points.count {
        let u = unit(points.latitudes[i], points.longitudes[i])
        fx.append(u.0)
        fy.append(u.1)
        fz.append(u.2)
      }
      for place in places {
        let u = unit(place.center.latitudeDegrees, place.center.longitudeDegrees)
        px.append(u.0)
        py.append(u.1)
        pz.append(u.2)
        cosRadius.append(cos(place.radiusMeters / GreatCircle.earthMeanRadiusMeters))
      }
    }

    func runSubject() {
      points.latitudes.withUnsafeBufferPointer { lat in
        points.longitudes.withUnsafeBufferPointer { lon in
          subject.withUnsafeMutableBufferPointer {
            index.smallestContaining(latitudesDegrees: lat, longitudesDegrees: lon, into: $0)
          }
        }
      }
    }

    func runReference(_ c: CReference) {
      c.geofenceAllPairs(fx, fy, fz, Int64(fx.count), px, py, pz, cosRadius, Int64(px.count), &reference)
    }
  }

  private static func screen(_ name: String, fixes: Int, places count: Int) -> Benchmark {
    Benchmark(
      name: name, itemCount: fixes, itemUnit: "fix", targets: .none,
      note:
        "GeofenceIndex.smallestContaining (grid + hash, exact edges) vs a C all-pairs dot-product loop over the places",
      maxNanosecondsPerItem: screenCeiling,
      prepare: { context in
        let buffers = ScreenBuffers(Inputs.city(count: fixes, seed: 41), places(count, seed: 42))
        let c = context.reference
        let cpu = CPUTimes()
        return PreparedBenchmark(
          itemCount: fixes, subject: { cpu.timeSubject(buffers.runSubject) },
          reference: c.map { c in { cpu.timeReference { buffers.runReference(c) } } },
          verify: {
            guard c != nil else { return .passed("no C reference") }
            let differing = zip(buffers.subject, buffers.reference).filter { $0 != $1 }.count
            let inside = buffers.subject.filter { $0 >= 0 }.count
            // The dot product resolves about 0.1 m at these radii: only fixes
            // on an edge may differ.
            return differing * 10_000 <= fixes
              ? .passed("\(inside) of \(fixes) fixes inside a place; \(differing) differ on an edge")
              : .failed("\(differing) fixes differ from the all-pairs loop")
          },
          metrics: { cpu.figures(items: fixes, unit: "Fix") })
      })
  }

  /// Generated days, each user with their own circle of places; uploads in
  /// arrival order through one engine.
  private static func engine(_ name: String, days: Int) -> Benchmark {
    Benchmark(
      name: name, itemCount: days * 400, itemUnit: "fix", targets: .none,
      note:
        "GeofenceEngine.process over every upload of \(days) generated days (one user and circle each), settling included",
      maxNanosecondsPerItem: engineCeiling,
      prepare: { _ in
        let generated = Inputs.days(days)
        var uploads: [(FixColumns, Int64)] = []
        var fixCount = 0
        for day in generated.days {
          for upload in day.uploads {
            uploads.append((upload.fixes, upload.receivedMilliseconds))
            fixCount += upload.fixes.count
          }
        }
        // Interleave the users' uploads by arrival time, as a server sees them.
        uploads.sort { $0.1 < $1.1 }
        let engine = GeofenceEngine(places: generated.places, circlesOfPerson: generated.circlesOfPerson)
        var events = 0
        return PreparedBenchmark(
          itemCount: fixCount,
          subject: {
            var state = GeofenceState()
            events = 0
            for (fixes, received) in uploads {
              events += engine.process(fixes, receivedAtMilliseconds: received, state: &state).count
            }
          },
          reference: nil,
          verify: {
            events >= days * 6
              ? .passed("\(events) decisions for \(fixCount) fixes, \(generated.places.count) places")
              : .failed("only \(events) decisions")
          })
      })
  }
}
