import _HearthShims

// Vectorised forms of GreatCircle.distanceMeters. Each loop body is the
// scalar kernel, followed by the same near-antipode refinement the scalar
// function applies, so results are bit-identical to the scalar function and
// do not depend on how an array is split into batches.
//
// The loops run on raw pointers: the public entry points check the counts
// first, and Span's per-element bounds checks (or an overflow check on an
// index) would keep LLVM from vectorising them.

extension GreatCircle {
  /// Distances between corresponding points of two arrays, metres.
  ///
  /// `output[i]` = ``distanceMeters(latitude1Degrees:longitude1Degrees:latitude2Degrees:longitude2Degrees:)``
  /// of pair i; same domain, NaN rule and error bound.
  /// - Precondition: all five spans have the same count.
  /// - Complexity: O(n); per pair four polynomial sines, one square root and
  ///   one arcsine polynomial, no allocation.
  public static func distancesMeters(
    latitudes1Degrees: Span<Double>, longitudes1Degrees: Span<Double>,
    latitudes2Degrees: Span<Double>, longitudes2Degrees: Span<Double>,
    into output: inout MutableSpan<Double>
  ) {
    let n = output.count
    precondition(
      latitudes1Degrees.count == n && longitudes1Degrees.count == n
        && latitudes2Degrees.count == n && longitudes2Degrees.count == n,
      "distancesMeters: every span must have the output's count")
    guard n > 0 else { return }
    latitudes1Degrees.withUnsafeBufferPointer { lat1 in
      longitudes1Degrees.withUnsafeBufferPointer { lon1 in
        latitudes2Degrees.withUnsafeBufferPointer { lat2 in
          longitudes2Degrees.withUnsafeBufferPointer { lon2 in
            output.withUnsafeMutableBufferPointer { out in
              let (a, b, c, d, o) = (
                lat1.baseAddress!, lon1.baseAddress!, lat2.baseAddress!, lon2.baseAddress!,
                out.baseAddress!
              )
              forEachBlock(count: n) { start, count in
                let (a, b, c, d, o) = (a + start, b + start, c + start, d + start, o + start)
                for i in 0..<count {
                  o[i] = fastDistanceMeters(
                    latitude1Degrees: a[i], longitude1Degrees: b[i],
                    latitude2Degrees: c[i], longitude2Degrees: d[i])
                }
                refineNearAntipodes(o, count: count) { i in
                  HaversineKernel.distanceNearAntipodeMeters(
                    latitude1: a[i], longitude1: b[i], latitude2: c[i], longitude2: d[i])
                }
              }
            }
          }
        }
      }
    }
  }

  /// Distances from one point to many, metres.
  ///
  /// `output[i]` is the distance from `origin` to point i, bit-identical to
  /// ``distanceMeters(from:to:)``; same domain, NaN rule and error bound.
  /// - Precondition: the three spans have the same count.
  /// - Complexity: O(n); per point three polynomial sines, one square root and
  ///   one arcsine polynomial (the origin's cosine is computed once).
  public static func distancesMeters(
    from origin: Coordinate,
    toLatitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    into output: inout MutableSpan<Double>
  ) {
    let n = output.count
    precondition(
      latitudes.count == n && longitudes.count == n,
      "distancesMeters(from:): every span must have the output's count")
    guard n > 0 else { return }
    let lat0 = origin.latitudeDegrees
    let lon0 = origin.longitudeDegrees
    let cos0 = HaversineKernel.cosineOfLatitude(lat0)
    latitudes.withUnsafeBufferPointer { latitudeBuffer in
      longitudes.withUnsafeBufferPointer { longitudeBuffer in
        output.withUnsafeMutableBufferPointer { out in
          let (a, b, o) = (latitudeBuffer.baseAddress!, longitudeBuffer.baseAddress!, out.baseAddress!)
          forEachBlock(count: n) { start, count in
            let (a, b, o) = (a + start, b + start, o + start)
            for i in 0..<count {
              let lat = a[i]
              let h = HaversineKernel.haversine(
                latitude1: lat0, longitude1: lon0, cosine1: cos0,
                latitude2: lat, longitude2: b[i], cosine2: HaversineKernel.cosineOfLatitude(lat))
              o[i] = earthMeanRadiusMeters * HaversineKernel.centralAngle(haversine: h)
            }
            refineNearAntipodes(o, count: count) { i in
              HaversineKernel.distanceNearAntipodeMeters(
                latitude1: lat0, longitude1: lon0, latitude2: a[i], longitude2: b[i])
            }
          }
        }
      }
    }
  }

  /// Step lengths and cumulative path length along a track, metres.
  ///
  /// For points 0…n−1 in order: `steps[0] = 0` and `steps[i]` is the distance
  /// from point i−1 to point i (bit-identical to ``distanceMeters(from:to:)``);
  /// `cumulative[i]` is the sum of `steps[1...i]`.
  ///
  /// - NaN: a NaN or out-of-domain point makes its two steps NaN, and every
  ///   cumulative value from there on NaN (the path length is unknown).
  /// - Error: steps as ``distanceMeters(from:to:)``; the running sum is
  ///   compensated (Neumaier), so its rounding error stays within about two
  ///   units in the last place of the total, whatever the number of steps.
  /// - Precondition: the four spans have the same count.
  /// - Complexity: O(n); per step three polynomial sines (each point's cosine
  ///   is computed once and shared by its two steps), one square root, one
  ///   arcsine polynomial; no heap allocation (a 1 KiB scratch buffer on the stack).
  public static func trackDistancesMeters(
    latitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    steps: inout MutableSpan<Double>, cumulative: inout MutableSpan<Double>
  ) {
    precondition(cumulative.count == steps.count, "trackDistancesMeters: every span must have the same count")
    stepsMeters(latitudesDegrees: latitudes, longitudesDegrees: longitudes, steps: &steps)
    runningSum(steps, into: &cumulative)
  }

  /// The steps of ``trackDistancesMeters(latitudesDegrees:longitudesDegrees:steps:cumulative:)-(Span<Double>,_,_,_)``
  /// alone (`steps[0] = 0`), bit for bit the same; for callers that need no
  /// running path (the agreed speeds of a batch).
  /// - Complexity: O(n); no heap allocation.
  static func stepsMeters(
    latitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    steps: inout MutableSpan<Double>
  ) {
    stepsMeters(latitudesDegrees: latitudes, longitudesDegrees: longitudes, steps: &steps, fromFirst: nil)
  }

  /// ``stepsMeters(latitudesDegrees:longitudesDegrees:steps:)`` and, in the
  /// same pass, `fromFirst[i]`: the distance from point 0 to point i, bit for
  /// bit ``distancesMeters(from:toLatitudesDegrees:longitudesDegrees:into:)``
  /// from point 0 (each point's cosine computed once for both; a trip's
  /// summary needs both).
  /// - Precondition: the four spans have the same count.
  /// - Complexity: O(n); no heap allocation.
  static func stepsAndDistancesFromFirstMeters(
    latitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    steps: inout MutableSpan<Double>, fromFirst: inout MutableSpan<Double>
  ) {
    precondition(
      fromFirst.count == latitudes.count,
      "stepsAndDistancesFromFirstMeters: every span must have the same count")
    fromFirst.withUnsafeMutableBufferPointer { far in
      stepsMeters(
        latitudesDegrees: latitudes, longitudesDegrees: longitudes, steps: &steps, fromFirst: far.baseAddress)
    }
  }

  /// The steps, and the distances from point 0 into `fromFirst` when given
  /// (its count is the points'). Inlined into its two callers, so the steps
  /// alone carry no trace of the second output.
  @inline(__always)
  private static func stepsMeters(
    latitudesDegrees latitudes: Span<Double>, longitudesDegrees longitudes: Span<Double>,
    steps: inout MutableSpan<Double>, fromFirst: UnsafeMutablePointer<Double>?
  ) {
    let n = latitudes.count
    precondition(
      longitudes.count == n && steps.count == n, "trackDistancesMeters: every span must have the same count")
    guard n > 0 else { return }
    // 128 cosines fill 1 KiB, the most `withUnsafeTemporaryAllocation`
    // keeps on the stack (beyond it, one heap allocation per call). The
    // block only bounds the scratch: every step is computed alike whatever
    // block it falls in.
    let block = 127
    latitudes.withUnsafeBufferPointer { latitudeBuffer in
      longitudes.withUnsafeBufferPointer { longitudeBuffer in
        steps.withUnsafeMutableBufferPointer { stepBuffer in
          withUnsafeTemporaryAllocation(of: Double.self, capacity: block + 1) { cosineBuffer in
            let latitude = latitudeBuffer.baseAddress!
            let longitude = longitudeBuffer.baseAddress!
            let step = stepBuffer.baseAddress!
            let cosine = cosineBuffer.baseAddress!
            step[0] = 0
            // Point 0's own terms, as `distancesMeters(from:)` computes them.
            let (lat0, lon0) = (latitude[0], longitude[0])
            let cos0 = HaversineKernel.cosineOfLatitude(lat0)
            if let far = fromFirst {
              let h = HaversineKernel.haversine(
                latitude1: lat0, longitude1: lon0, cosine1: cos0, latitude2: lat0, longitude2: lon0,
                cosine2: cos0)
              far[0] = earthMeanRadiusMeters * HaversineKernel.centralAngle(haversine: h)
              refineNearAntipodes(far, count: 1) { _ in
                HaversineKernel.distanceNearAntipodeMeters(
                  latitude1: lat0, longitude1: lon0, latitude2: lat0, longitude2: lon0)
              }
            }
            var start = 0  // first point of the block
            while start < n - 1 {
              let count = min(block, n - 1 - start)  // steps in this block
              let a = latitude + start
              let b = longitude + start
              for j in 0..<(count &+ 1) {
                cosine[j] = HaversineKernel.cosineOfLatitude(a[j])
              }
              let out = step + start + 1
              for j in 0..<count {
                let h = HaversineKernel.haversine(
                  latitude1: a[j], longitude1: b[j], cosine1: cosine[j],
                  latitude2: a[j &+ 1], longitude2: b[j &+ 1], cosine2: cosine[j &+ 1])
                out[j] = earthMeanRadiusMeters * HaversineKernel.centralAngle(haversine: h)
              }
              refineNearAntipodes(out, count: count) { j in
                HaversineKernel.distanceNearAntipodeMeters(
                  latitude1: a[j], longitude1: b[j], latitude2: a[j &+ 1], longitude2: b[j &+ 1])
              }
              if let far = fromFirst {
                // Points start + 1 … start + count, from point 0.
                let o = far + start + 1
                for j in 0..<count {
                  let h = HaversineKernel.haversine(
                    latitude1: lat0, longitude1: lon0, cosine1: cos0,
                    latitude2: a[j &+ 1], longitude2: b[j &+ 1], cosine2: cosine[j &+ 1])
                  o[j] = earthMeanRadiusMeters * HaversineKernel.centralAngle(haversine: h)
                }
                refineNearAntipodes(o, count: count) { j in
                  HaversineKernel.distanceNearAntipodeMeters(
                    latitude1: lat0, longitude1: lon0, latitude2: a[j &+ 1], longitude2: b[j &+ 1])
                }
              }
              start += count
            }
          }
        }
      }
    }
  }

  /// Compensated prefix sum of non-negative values (``CompensatedSum``):
  /// `output[i]` is `values[0] + … + values[i]`, within about 2 ulp of the
  /// exact prefix sum however long the track. NaN propagates.
  @inline(__always)
  static func runningSum(_ values: borrowing MutableSpan<Double>, into output: inout MutableSpan<Double>) {
    var sum = CompensatedSum()
    for i in 0..<values.count {
      sum.add(values[i])
      output[i] = sum.value
    }
  }
}

/// A running sum carried with its rounding error (Neumaier's variant of
/// Kahan summation): within about 2 ulp of the exact sum of non-negative
/// values however many. The one definition of a track's path length: the
/// cumulative distances and a trip's path add their steps through it, so
/// the two agree bit for bit. NaN propagates. O(1) per value.
struct CompensatedSum {
  private var sum = 0.0
  private var compensation = 0.0

  @inline(__always)
  mutating func add(_ x: Double) {
    let t = sum + x
    compensation += sum >= x ? (sum - t) + x : (x - t) + sum
    sum = t
  }

  /// The sum of the values added so far, in their unit (metres for a path).
  @inline(__always)
  var value: Double { sum + compensation }
}

extension GreatCircle {

  /// Runs `body(start, count)` over consecutive blocks of at most 1024 items:
  /// small enough that a block's outputs are still in L1/L2 when
  /// ``refineNearAntipodes(_:count:recompute:)`` scans them.
  @inline(__always)
  static func forEachBlock(count n: Int, _ body: (_ start: Int, _ count: Int) -> Void) {
    var start = 0
    while start < n {
      let count = min(1024, n &- start)
      body(start, count)
      start &+= count
    }
  }

  /// Recomputes, with the well-conditioned near-antipode formula, every
  /// distance in `distances[0..<count]` at or beyond
  /// `HaversineKernel.antipodalRefinementMeters` — the same rule the scalar
  /// function applies, so batch and scalar agree bit for bit. The scan is a
  /// separate loop (an add reduction LLVM vectorises); folding the test into
  /// the distance loop stopped that loop vectorising.
  @inline(__always)
  static func refineNearAntipodes(
    _ distances: UnsafeMutablePointer<Double>, count: Int, recompute: (Int) -> Double
  ) {
    // Non-negative doubles order like their bit patterns, so an integer max
    // finds the largest distance without a floating-point reduction (NaN,
    // whose pattern is larger still, only costs the second loop).
    var largest: UInt64 = 0
    for i in 0..<count { largest = max(largest, distances[i].bitPattern) }
    guard largest >= HaversineKernel.antipodalRefinementMeters.bitPattern else { return }
    for i in 0..<count where distances[i] >= HaversineKernel.antipodalRefinementMeters {
      distances[i] = recompute(i)
    }
  }
}

// MARK: Array conveniences

extension GreatCircle {
  /// ``distancesMeters(latitudes1Degrees:longitudes1Degrees:latitudes2Degrees:longitudes2Degrees:into:)-(Span<Double>,_,_,_,_)``
  /// on arrays; `output` is resized to the input count if needed (its storage
  /// is reused when the count already matches, so steady-state calls do not
  /// allocate).
  public static func distancesMeters(
    latitudes1Degrees: [Double], longitudes1Degrees: [Double],
    latitudes2Degrees: [Double], longitudes2Degrees: [Double],
    into output: inout [Double]
  ) {
    resize(&output, to: latitudes1Degrees.count)
    var span = output.mutableSpan
    distancesMeters(
      latitudes1Degrees: latitudes1Degrees.span, longitudes1Degrees: longitudes1Degrees.span,
      latitudes2Degrees: latitudes2Degrees.span, longitudes2Degrees: longitudes2Degrees.span,
      into: &span)
  }

  /// ``distancesMeters(from:toLatitudesDegrees:longitudesDegrees:into:)-(_,Span<Double>,_,_)``
  /// on arrays; `output` is resized to the input count if needed.
  public static func distancesMeters(
    from origin: Coordinate, toLatitudesDegrees latitudes: [Double], longitudesDegrees longitudes: [Double],
    into output: inout [Double]
  ) {
    resize(&output, to: latitudes.count)
    var span = output.mutableSpan
    distancesMeters(
      from: origin, toLatitudesDegrees: latitudes.span, longitudesDegrees: longitudes.span, into: &span)
  }

  /// ``trackDistancesMeters(latitudesDegrees:longitudesDegrees:steps:cumulative:)-(Span<Double>,_,_,_)``
  /// on arrays; `steps` and `cumulative` are resized to the input count if needed.
  public static func trackDistancesMeters(
    latitudesDegrees latitudes: [Double], longitudesDegrees longitudes: [Double],
    steps: inout [Double], cumulative: inout [Double]
  ) {
    resize(&steps, to: latitudes.count)
    resize(&cumulative, to: latitudes.count)
    var stepSpan = steps.mutableSpan
    var cumulativeSpan = cumulative.mutableSpan
    trackDistancesMeters(
      latitudesDegrees: latitudes.span, longitudesDegrees: longitudes.span,
      steps: &stepSpan, cumulative: &cumulativeSpan)
  }
}

/// Makes `array` hold `count` elements, reusing its storage when it already does.
@inline(__always)
func resize<T: ExpressibleByIntegerLiteral>(_ array: inout [T], to count: Int) {
  if array.count != count { array = [T](repeating: 0, count: count) }
}
