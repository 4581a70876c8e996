import CHearth
import HearthC
import Testing

@Suite("hearth_detector_feed_received: the receipt time reaches the detector")
struct DetectorReceiptTests {
  /// Feeds 1 s of a still phone's accelerometer at 50 Hz with one sample
  /// stamped 5 000 s ahead, received at `received`, then the next second
  /// (received a second later); returns the status of the first call and the
  /// skipped samples after both, and the first call's error.
  static func feed(received: Double) -> (status: Int32, skipped: Int64, error: String) {
    var detector: OpaquePointer?
    guard hearth_detector_create(nil, &detector) == HEARTH_OK else { return (-1, -1, "") }
    defer { release(detector) }
    func second(_ start: Double, glitch: Bool) -> [Double] {
      (0..<50).map { start + Double($0) * 0.02 } + (glitch ? [5_000] : [])
    }
    var (status, error) = (HEARTH_OK, "")
    for (k, glitch) in [(0, true), (1, false)] {
      let t = second(Double(k), glitch: glitch)
      let (x, y) = ([Double](repeating: 0, count: t.count), [Double](repeating: 0, count: t.count))
      let z = [Double](repeating: 9.81, count: t.count)
      let s = t.withUnsafeBufferPointer { tp in
        x.withUnsafeBufferPointer { xp in
          y.withUnsafeBufferPointer { yp in
            z.withUnsafeBufferPointer { zp in
              var batch = hearth_sensor_batch()
              batch.accelerometer_count = Int64(t.count)
              batch.accelerometer_t_s = tp.baseAddress
              batch.accelerometer_x_mps2 = xp.baseAddress
              batch.accelerometer_y_mps2 = yp.baseAddress
              batch.accelerometer_z_mps2 = zp.baseAddress
              batch.vehicle_gate = 1
              return hearth_detector_feed_received(detector, &batch, nil, received + Double(k))
            }
          }
        }
      }
      if k == 0 { (status, error) = (s, lastError(detector)) }
    }
    var (skipped, gateOff) = (Int64(0), Int64(0))
    _ = hearth_detector_counters(detector, &skipped, &gateOff)
    return (status, skipped, error)
  }

  @Test("a sample stamped after the receipt is skipped as a bad time; without a receipt it is taken")
  func futureSampleRefused() {
    let guarded = Self.feed(received: 1.0)
    #expect(guarded.status == HEARTH_OK && guarded.skipped == 1, "\(guarded)")
    // NaN: not known. The glitch is taken, and every later sample is old.
    let unguarded = Self.feed(received: .nan)
    #expect(unguarded.status == HEARTH_OK && unguarded.skipped == 50, "\(unguarded)")
    // A receipt exactly at the last real sample keeps it.
    #expect(Self.feed(received: 0.98).skipped == 1)
    #expect(Self.feed(received: 0.979).skipped == 3)  // 0.98 s, the glitch, 1.98 s
  }

  @Test(
    "a receipt time beyond the samples' bound (±1e10 s), infinite or not, is refused by name; a NULL batch too"
  )
  func infiniteRefused() {
    // At the bound: taken (the second batch is received 1 s later; −1e10 s
    // makes every sample one after the receipt).
    #expect(Self.feed(received: 1e10 - 1).skipped == 50)
    #expect(Self.feed(received: -1e10).skipped == 101)
    for bad in [Double.infinity, -.infinity, (1e10).nextUp, -(1e10).nextUp, 1.7e18] {
      let r = Self.feed(received: bad)
      #expect(r.status == HEARTH_ERROR_ARGUMENT, "\(bad)")
      #expect(r.error.contains("received_s"), "\(r.error)")
    }
    var detector: OpaquePointer?
    #expect(hearth_detector_create(nil, &detector) == HEARTH_OK)
    #expect(hearth_detector_feed_received(detector, nil, nil, 1) == HEARTH_ERROR_ARGUMENT)
    release(detector)
  }

  @Test("an accuracy column judges the speeds as raw readings; NULL takes them as given")
  func accuracyColumnOrNull() {
    // One fix whose accuracy is no reading (∞): with the column it is skipped
    // and counted, as hearth_detector_feed_with_accuracy does; NULL never looks.
    for withColumn in [true, false] {
      var detector: OpaquePointer?
      #expect(hearth_detector_create(nil, &detector) == HEARTH_OK)
      var (t, v, accuracy) = ([1.0], [0.0], [Double.infinity])
      var batch = hearth_sensor_batch()
      batch.fix_count = 1
      let status = t.withUnsafeMutableBufferPointer { tp in
        v.withUnsafeMutableBufferPointer { vp in
          accuracy.withUnsafeMutableBufferPointer { ap in
            batch.fix_t_s = UnsafePointer(tp.baseAddress)
            batch.fix_speed_mps = UnsafePointer(vp.baseAddress)
            return hearth_detector_feed_received(
              detector, &batch, withColumn ? UnsafePointer(ap.baseAddress) : nil, 2)
          }
        }
      }
      #expect(status == HEARTH_OK)
      #expect(hearth_detector_finish(detector) == HEARTH_OK)
      var (skipped, gateOff) = (Int64(0), Int64(0))
      #expect(hearth_detector_counters(detector, &skipped, &gateOff) == HEARTH_OK)
      #expect(skipped == (withColumn ? 1 : 0), "column \(withColumn)")
      release(detector)
    }
  }
}
