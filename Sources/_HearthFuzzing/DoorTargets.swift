// Fuzz targets that go through the C ABI's own entry points (HearthC's `@c`
// functions, called as a host calls them: pointers to columns, a count, an
// output), for the entry points that take data and that no reader target
// reaches: the ingest batch from columns and the clock tick, a saved ingest
// state and a saved incident restored through the handle, the privacy
// projection, the detector fed batch by batch, and recordings built from
// columns. The table from entry point to target is in docs/fuzzing.md.
//
// Every input is read as a stream of 8-byte words (``FuzzWords``): a word is
// a Double, an Int64 or a small code, whichever the column needs, so every
// bit pattern (NaN payloads, ±∞, Int64.min) reaches every column. Any
// status is a valid outcome; a trap, a status outside the header's list, or
// an output that breaks the entry point's documented promise stops the
// process.

import CHearth
import Foundation
import HearthC

/// An input read as 8-byte words, round and round (an empty input gives zeros).
struct FuzzWords {
  private let words: [UInt64]
  private var next = 0

  init(_ bytes: [UInt8]) {
    words = stride(from: 0, to: bytes.count, by: 8).map { start in
      bytes[start..<min(start + 8, bytes.count)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
  }

  /// How many whole words the input has.
  var count: Int { words.count }

  mutating func word() -> UInt64 {
    guard !words.isEmpty else { return 0 }
    defer { next += 1 }
    return words[next % words.count]
  }

  mutating func double() -> Double { Double(bitPattern: word()) }
  mutating func int64() -> Int64 { Int64(bitPattern: word()) }
  /// A small count, 0 ..< `limit`.
  mutating func small(_ limit: Int) -> Int { Int(word() % UInt64(limit)) }
  /// A double near a realistic value half the time (so inputs get past the
  /// first check), any bit pattern the other half.
  mutating func value(near typical: Double, spread: Double) -> Double {
    let w = word()
    return w & 1 == 0 ? Double(bitPattern: w) : typical + spread * (Double(w >> 11 & 0xFFFF) / 32768 - 1)
  }
}

/// Columns copied into memory of their own, so a C struct can point at them
/// for as long as the caller keeps them (`deallocate()` when done).
struct FuzzColumns {
  let pointers: [UnsafePointer<Double>?]
  private let owned: [UnsafeMutableBufferPointer<Double>]

  init(_ columns: [[Double]]) {
    owned = columns.map { column in
      let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(column.count, 1))
      _ = buffer.initialize(from: column)
      return buffer
    }
    pointers = owned.map { UnsafePointer($0.baseAddress) }
  }

  func deallocate() {
    for buffer in owned { buffer.deallocate() }
  }
}

/// The statuses hearth.h lists.
private let knownStatuses: Set<Int32> = [
  HEARTH_OK, HEARTH_ERROR_ARGUMENT, HEARTH_ERROR_BAD_INPUT, HEARTH_ERROR_SCHEMA, HEARTH_ERROR_STATE,
  HEARTH_ERROR_CAPACITY,
]

private func checked(_ status: Int32, _ call: String) -> Int32 {
  precondition(knownStatuses.contains(status), "\(call) returned \(status), not a status of hearth.h")
  return status
}

/// The fix columns a `hearth_fixes` points into (kept alive by the caller).
struct FuzzFixColumns {
  var time: [Int64] = []
  var latitude: [Double] = []
  var longitude: [Double] = []
  var accuracy: [Double] = []
  var speed: [Double] = []
  var heading: [Double] = []
  var activity: [UInt8] = []
  var source: [UInt8] = []
  var device: [UInt32] = []
  var user: [UInt32] = []

  /// `rows` fixes from `w`, around a start time and a place so that some
  /// batches reach the engines (times on 30 s steps; a word's bits otherwise).
  init(_ w: inout FuzzWords, rows: Int, aroundMilliseconds start: Int64) {
    for i in 0..<rows {
      let t = w.word()
      time.append(t & 3 == 0 ? Int64(bitPattern: t) : start &+ Int64(i) &* 30_000 &+ Int64(t >> 40 & 0xFFFF))
      latitude.append(w.value(near: 48.137, spread: 0.05))
      longitude.append(w.value(near: 11.575, spread: 0.05))
      accuracy.append(w.value(near: 20, spread: 20))
      speed.append(w.value(near: 15, spread: 15))
      heading.append(w.value(near: 180, spread: 180))
      let codes = w.word()
      activity.append(UInt8(truncatingIfNeeded: codes % 7))
      source.append(UInt8(truncatingIfNeeded: codes >> 8 % 4))
      device.append(UInt32(truncatingIfNeeded: codes >> 16 % 3))
      user.append(UInt32(truncatingIfNeeded: codes >> 24 % 3))
    }
  }

  /// `body` with a `hearth_fixes` over the columns.
  func withFixes<R>(_ body: (UnsafePointer<hearth_fixes>) -> R) -> R {
    time.withUnsafeBufferPointer { t in
      latitude.withUnsafeBufferPointer { lat in
        longitude.withUnsafeBufferPointer { lon in
          accuracy.withUnsafeBufferPointer { acc in
            speed.withUnsafeBufferPointer { v in
              heading.withUnsafeBufferPointer { h in
                activity.withUnsafeBufferPointer { a in
                  source.withUnsafeBufferPointer { s in
                    device.withUnsafeBufferPointer { d in
                      user.withUnsafeBufferPointer { u in
                        var fixes = hearth_fixes(
                          count: Int64(time.count), time_ms: t.baseAddress, latitude_deg: lat.baseAddress,
                          longitude_deg: lon.baseAddress, horizontal_accuracy_m: acc.baseAddress,
                          speed_mps: v.baseAddress, heading_deg: h.baseAddress, altitude_m: nil,
                          activity: a.baseAddress, source: s.baseAddress, battery_level: nil, charging: nil,
                          device: d.baseAddress, user: u.baseAddress)
                        return withUnsafePointer(to: &fixes) { body($0) }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

enum DoorTargets {
  /// The pipeline description every ingest target starts from: one place
  /// in a circle with a speed limit, two people in it.
  static let ingestDescription = """
    {"places": [{"id": 1, "circle": 7, "name": "Home", "latitude_deg": 48.137, "longitude_deg": 11.575, "radius_m": 150}],
     "circles_of_person": {"1": [7], "2": [7]}, "speed_limits_kmh": {"7": 50}}
    """

  static let start: Int64 = 1_700_000_000_000

  static func ingest() -> OpaquePointer? {
    var handle: OpaquePointer?
    let status = hearth_ingest_create(ingestDescription, &handle)
    precondition(status == HEARTH_OK, "the fuzz pipeline's description is refused")
    return handle
  }

  /// Reads every output of the last batch or tick and checks they agree.
  static func readOutputs(_ ingest: OpaquePointer?) {
    var (events, inserted, duplicates) = (Int64(0), Int64(0), Int64(0))
    precondition(hearth_ingest_count(ingest, &events, &inserted, &duplicates) == HEARTH_OK)
    precondition(events >= 0 && inserted >= 0 && duplicates >= 0, "negative counts")
    var (notNewer, overruled) = (Int64(0), Int64(0))
    precondition(hearth_ingest_kept(ingest, &notNewer, &overruled) == HEARTH_OK)
    precondition(notNewer >= 0 && overruled >= 0 && notNewer + overruled <= inserted, "kept ≠ inserted")
    var out = [hearth_event](repeating: hearth_event(), count: Int(events))
    precondition(hearth_ingest_events(ingest, events, &out) == HEARTH_OK, "events do not fit their count")
    let trips = out.filter { $0.kind == HEARTH_EVENT_TRIP }.count
    var names = [hearth_trip_names](repeating: hearth_trip_names(), count: trips)
    precondition(hearth_ingest_trip_names(ingest, Int64(trips), &names) == HEARTH_OK, "trip names ≠ trips")
    var json: OpaquePointer?
    _ = checked(hearth_ingest_events_json(ingest, &json), "hearth_ingest_events_json")
    hearth_release(UnsafeMutableRawPointer(json))
  }

  /// `hearth_ingest_batch` and `hearth_ingest_tick`: batches of fuzzed fix
  /// columns received at fuzzed times, each followed by a tick; a batch
  /// refused (schema) changes no state: the saved state is the same bytes.
  static func ingestBatch(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    let ingest = ingest()
    defer { hearth_release(UnsafeMutableRawPointer(ingest)) }
    for batch in 0..<(1 + w.small(4)) {
      let columns = FuzzFixColumns(&w, rows: w.small(24), aroundMilliseconds: start + Int64(batch) * 600_000)
      let received = w.word() & 1 == 0 ? w.int64() : start + Int64(batch + 1) * 600_000
      let before = saved(ingest)
      let status = checked(
        columns.withFixes { hearth_ingest_batch(ingest, $0, received) }, "hearth_ingest_batch")
      if status == HEARTH_ERROR_SCHEMA {
        precondition(saved(ingest) == before, "a refused batch changed the state")
      }
      readOutputs(ingest)
      _ = checked(
        hearth_ingest_tick(ingest, w.word() & 1 == 0 ? w.int64() : received + 120_000), "hearth_ingest_tick")
      readOutputs(ingest)
    }
  }

  /// The saved state's bytes.
  static func saved(_ ingest: OpaquePointer?) -> [UInt8] {
    var bytes: OpaquePointer?
    precondition(hearth_ingest_save(ingest, &bytes) == HEARTH_OK, "save failed")
    defer { hearth_release(UnsafeMutableRawPointer(bytes)) }
    let size = Int(hearth_bytes_size(bytes))
    guard size > 0, let data = hearth_bytes_data(bytes) else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
  }

  /// `hearth_ingest_restore`: the input as saved bytes. A refused state
  /// changes nothing; a restored one takes a batch and a tick without a
  /// trap, and saving it again gives bytes that restore to the same state.
  static func ingestRestore(_ bytes: [UInt8]) {
    let ingest = ingest()
    defer { hearth_release(UnsafeMutableRawPointer(ingest)) }
    let empty = saved(ingest)
    let status = checked(hearth_ingest_restore(ingest, bytes, Int64(bytes.count)), "hearth_ingest_restore")
    guard status == HEARTH_OK else {
      precondition(saved(ingest) == empty, "a refused state changed the pipeline")
      return
    }
    let again = saved(ingest)
    precondition(checked(hearth_ingest_restore(ingest, again, Int64(again.count)), "restore") == HEARTH_OK)
    precondition(saved(ingest) == again, "save ∘ restore is not the identity")
    var w = FuzzWords(bytes)
    let columns = FuzzFixColumns(&w, rows: 12, aroundMilliseconds: start)
    _ = checked(columns.withFixes { hearth_ingest_batch(ingest, $0, start + 600_000) }, "hearth_ingest_batch")
    readOutputs(ingest)
    _ = checked(hearth_ingest_tick(ingest, start + 7_200_000), "hearth_ingest_tick")
    readOutputs(ingest)
  }

  /// `hearth_grid_create`, `hearth_grid_snap` and `hearth_privacy_project`:
  /// fuzzed cell size, accuracy floor, slot and fixes. When the projection
  /// is taken, every accuracy sent is at least the floor asked for (and
  /// 750 m on the privacy grid, whatever was asked; never NaN), and every
  /// slot start is within one slot of its time.
  static func privacyProject(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    var grid: OpaquePointer?
    let size = w.word() & 1 == 0 ? 750 : w.value(near: 750, spread: 750)
    guard checked(hearth_grid_create(size, &grid), "hearth_grid_create") == HEARTH_OK else {
      hearth_release(UnsafeMutableRawPointer(grid))
      return
    }
    defer { hearth_release(UnsafeMutableRawPointer(grid)) }
    let floor = w.value(near: 750, spread: 1_000)
    let slot = w.word() & 1 == 0 ? w.int64() : Int64(w.small(600_000)) + 1
    let n = w.small(32)
    let fixes = FuzzFixColumns(&w, rows: n, aroundMilliseconds: start)
    var ids = [Int64](repeating: 0, count: n)
    var (centreLat, centreLon, accuracy) = (
      [Double](repeating: 0, count: n), [Double](repeating: 0, count: n), [Double](repeating: 0, count: n)
    )
    var slots = [Int64](repeating: 0, count: n)
    let status = checked(
      hearth_privacy_project(
        grid, floor, slot, Int64(n), fixes.time, fixes.latitude, fixes.longitude, fixes.accuracy, &ids,
        &centreLat,
        &centreLon, &accuracy, &slots), "hearth_privacy_project")
    var snapped = [Int64](repeating: 0, count: n)
    var (snapLat, snapLon) = ([Double](repeating: 0, count: n), [Double](repeating: 0, count: n))
    _ = checked(
      hearth_grid_snap(grid, Int64(n), fixes.latitude, fixes.longitude, &snapped, &snapLat, &snapLon),
      "hearth_grid_snap")
    guard status == HEARTH_OK else { return }
    precondition(floor.isFinite && slot > 0, "a bad floor or slot was taken")
    precondition(snapped == ids, "the projection's cells are not the grid's")
    for i in 0..<n {
      precondition(accuracy[i] >= floor && !accuracy[i].isNaN, "accuracy under the floor asked for")
      precondition(size != 750 || accuracy[i] >= 750, "accuracy under the privacy grid's 750 m")
      let (gap, overflow) = fixes.time[i].subtractingReportingOverflow(slots[i])
      precondition(overflow || gap.magnitude < slot.magnitude, "slot start more than a slot from its time")
    }
  }

  /// `hearth_detector_create` and `hearth_detector_feed` or
  /// `hearth_detector_feed_with_accuracy` (no accuracy column, or one around
  /// the 30 m line), then, for half the inputs, one batch more through
  /// `hearth_detector_feed_received` (a receipt time near the clock or any bit
  /// pattern; one beyond ±10¹⁰ s must be refused): batches of fuzzed columns (times around a running
  /// clock, sometimes any bit pattern), then `finish`; the verdicts and
  /// conditions fit their counts and every verdict's conditions are within
  /// the list.
  static func detectorFeed(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    var detector: OpaquePointer?
    guard checked(hearth_detector_create(nil, &detector), "hearth_detector_create") == HEARTH_OK else {
      return
    }
    defer { hearth_release(UnsafeMutableRawPointer(detector)) }
    var clock = 0.0
    let batches = 1 + w.small(8)
    // The receipt's batch comes after the ones an input always fed, so their
    // words read as they did before it existed.
    for k in 0...batches {
      let withReceipt = k == batches
      if withReceipt && w.word() & 1 == 0 { break }
      feedBatch(detector, &w, clock: &clock, withReceipt: withReceipt)
    }
    _ = checked(hearth_detector_finish(detector), "hearth_detector_finish")
    _ = verdictsChecked(detector)
  }

  /// `hearth_detector_feed_trace` on a session already fed: 0–2 fuzzed
  /// batches (as `detectorFeed`), a fuzzed recording (as `traceColumns`) fed
  /// once or twice, 0–2 batches more, then `finish`. The verdicts and
  /// conditions fit their counts, and the recording alone fed to two fresh
  /// detectors gives the same verdicts and conditions, bit for bit.
  static func detectorTrace(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    guard let trace = fuzzTrace(&w) else { return }
    defer { hearth_release(UnsafeMutableRawPointer(trace)) }
    // 3 is no gate: refused by name.
    let gate = Int32(truncatingIfNeeded: w.word() % 4)
    func fresh() -> OpaquePointer? {
      var detector: OpaquePointer?
      precondition(hearth_detector_create(nil, &detector) == HEARTH_OK, "a default detector was refused")
      return detector
    }
    let detector = fresh()
    defer { hearth_release(UnsafeMutableRawPointer(detector)) }
    var clock = 0.0
    func batches() {
      for _ in 0..<w.small(3) {
        let withReceipt = w.word() & 1 == 0
        feedBatch(detector, &w, clock: &clock, withReceipt: withReceipt)
      }
    }
    batches()
    for _ in 0...(w.small(2)) {
      let status = checked(hearth_detector_feed_trace(detector, trace, gate), "hearth_detector_feed_trace")
      precondition(gate != 3 || status == HEARTH_ERROR_ARGUMENT, "an unknown gate was taken")
    }
    batches()
    _ = checked(hearth_detector_finish(detector), "hearth_detector_finish")
    _ = verdictsChecked(detector)
    let alone = (fresh(), fresh())
    defer {
      hearth_release(UnsafeMutableRawPointer(alone.0))
      hearth_release(UnsafeMutableRawPointer(alone.1))
    }
    let first = hearth_detector_feed_trace(alone.0, trace, gate)
    precondition(
      hearth_detector_feed_trace(alone.1, trace, gate) == first, "one recording fed twice: statuses differ")
    precondition(hearth_detector_finish(alone.0) == HEARTH_OK && hearth_detector_finish(alone.1) == HEARTH_OK)
    let (a, b) = (verdictsChecked(alone.0), verdictsChecked(alone.1))
    precondition(a == b, "one recording fed to two fresh detectors: verdicts differ")
  }

  /// One batch of fuzzed columns (times around `clock`, sometimes any bit
  /// pattern) through `hearth_detector_feed` or `_feed_with_accuracy` (no
  /// accuracy column, or one around the 30 m line), or with `withReceipt`
  /// through `hearth_detector_feed_received` (a receipt time near the clock
  /// or any bit pattern; one beyond ±10¹⁰ s must be refused). Advances
  /// `clock` by 1.28 s.
  private static func feedBatch(
    _ detector: OpaquePointer?, _ w: inout FuzzWords, clock: inout Double, withReceipt: Bool
  ) {
    let now = clock
    func column(_ count: Int, near typical: Double, spread: Double) -> [Double] {
      (0..<count).map { _ in w.value(near: typical, spread: spread) }
    }
    func times(_ count: Int, _ rate: Double) -> [Double] {
      (0..<count).map { i in
        let word = w.word()
        return word & 7 == 0 ? Double(bitPattern: word) : now + Double(i) / rate
      }
    }
    let (na, ng, nb, nf) = (w.small(64), w.small(16), w.small(4), w.small(3))
    // The batch's columns, held in memory that outlives the call.
    let columns = FuzzColumns([
      times(na, 50), column(na, near: 0, spread: 200), column(na, near: 0, spread: 200),
      column(na, near: 9.8, spread: 200), times(ng, 10), column(ng, near: 0, spread: 40),
      column(ng, near: 0, spread: 40), column(ng, near: 0, spread: 40), times(nb, 5),
      column(nb, near: 1013, spread: 20), times(nf, 1), column(nf, near: 15, spread: 20),
    ])
    defer { columns.deallocate() }
    // The gate, and from the same word's high bits which feed: as given,
    // with accuracy unknown (NULL), or with an accuracy column read last
    // (so the words before it read as they did before that feed existed).
    let gateWord = w.word()
    let feed = (gateWord >> 32) % 3
    let accuracy = FuzzColumns(feed == 2 ? [column(nf, near: 30, spread: 60)] : [])
    defer { accuracy.deallocate() }
    let c = columns.pointers
    var batch = hearth_sensor_batch(
      accelerometer_count: Int64(na), accelerometer_t_s: c[0], accelerometer_x_mps2: c[1],
      accelerometer_y_mps2: c[2], accelerometer_z_mps2: c[3], gyroscope_count: Int64(ng),
      gyroscope_t_s: c[4],
      gyroscope_x_radps: c[5], gyroscope_y_radps: c[6], gyroscope_z_radps: c[7], barometer_count: Int64(nb),
      barometer_t_s: c[8], barometer_hpa: c[9], fix_count: Int64(nf), fix_t_s: c[10], fix_speed_mps: c[11],
      vehicle_gate: Int32(truncatingIfNeeded: gateWord % 3))
    if withReceipt {
      // As given (NULL), raw of unknown accuracy (a column of NaN) or the column.
      let received = w.value(near: clock + 1.3, spread: 4)
      let unknown = FuzzColumns(feed == 1 ? [[Double](repeating: .nan, count: nf)] : [])
      defer { unknown.deallocate() }
      let column =
        feed == 2 ? accuracy.pointers.first ?? nil : feed == 1 ? unknown.pointers.first ?? nil : nil
      let status = checked(
        hearth_detector_feed_received(detector, &batch, column, received), "hearth_detector_feed_received")
      precondition(
        received.isNaN || abs(received) <= 1e10 || status == HEARTH_ERROR_ARGUMENT,
        "a receipt time beyond the samples' bound was taken")
    } else if feed == 0 {
      _ = checked(hearth_detector_feed(detector, &batch), "hearth_detector_feed")
    } else {
      _ = checked(
        hearth_detector_feed_with_accuracy(detector, &batch, accuracy.pointers.first ?? nil),
        "hearth_detector_feed_with_accuracy")
    }
    clock += 1.28
  }

  /// The detector's verdicts and conditions, checked: they fit their
  /// counts, every verdict's conditions lie within the list, and the
  /// counters are not negative. Returns their bytes.
  private static func verdictsChecked(_ detector: OpaquePointer?) -> [UInt8] {
    var (verdicts, conditions) = (Int64(0), Int64(0))
    precondition(hearth_detector_count(detector, &verdicts, &conditions) == HEARTH_OK)
    var v = [hearth_verdict](repeating: hearth_verdict(), count: Int(verdicts))
    var c = [hearth_condition](repeating: hearth_condition(), count: Int(conditions))
    precondition(
      hearth_detector_verdicts(detector, verdicts, &v) == HEARTH_OK, "verdicts do not fit their count")
    precondition(hearth_detector_conditions(detector, conditions, &c) == HEARTH_OK, "conditions do not fit")
    for verdict in v {
      precondition(
        verdict.first_condition >= 0 && verdict.condition_count >= 0
          && verdict.first_condition + verdict.condition_count <= conditions,
        "a verdict's conditions are out of the list")
    }
    var (skipped, gateOff) = (Int64(0), Int64(0))
    precondition(
      hearth_detector_counters(detector, &skipped, &gateOff) == HEARTH_OK && skipped >= 0 && gateOff >= 0)
    return v.withUnsafeBytes { Array($0) } + c.withUnsafeBytes { Array($0) }
      + [skipped, gateOff].withUnsafeBytes { Array($0) }
  }

  /// `hearth_incident_restore` (then `check` and `save`): the input as saved
  /// bytes. A restored incident moves with fuzzed inputs without a trap,
  /// and its saved bytes restore to an incident that saves the same bytes.
  static func incidentRestore(_ bytes: [UInt8]) {
    var incident: OpaquePointer?
    let status = checked(
      hearth_incident_restore(bytes, Int64(bytes.count), &incident), "hearth_incident_restore")
    defer { hearth_release(UnsafeMutableRawPointer(incident)) }
    guard status == HEARTH_OK else { return }
    func save(_ handle: OpaquePointer?) -> [UInt8] {
      var out: OpaquePointer?
      precondition(hearth_incident_save(handle, &out) == HEARTH_OK, "save failed")
      defer { hearth_release(UnsafeMutableRawPointer(out)) }
      guard let data = hearth_bytes_data(out) else { return [] }
      return Array(UnsafeBufferPointer(start: data, count: Int(hearth_bytes_size(out))))
    }
    let first = save(incident)
    var again: OpaquePointer?
    precondition(
      hearth_incident_restore(first, Int64(first.count), &again) == HEARTH_OK, "saved bytes refused")
    precondition(save(again) == first, "save ∘ restore is not the identity")
    hearth_release(UnsafeMutableRawPointer(again))
    var w = FuzzWords(bytes)
    var action = hearth_incident_action()
    for _ in 0..<4 {
      _ = checked(
        hearth_incident_check(
          incident, w.int64(), Int32(truncatingIfNeeded: w.word() % 10),
          Int32(truncatingIfNeeded: w.word() % 600),
          Int32(truncatingIfNeeded: w.word() % 4), w.word() & 1 == 0 ? "a" : "b", &action),
        "hearth_incident_check")
    }
    _ = save(incident)
  }

  /// `hearth_trace_create`, `hearth_trace_append`, `hearth_trace_append_fixes`
  /// and `hearth_trace_info`: fuzzed columns appended stream by stream; the
  /// report reconciles every row appended (kept + rejected = read).
  static func traceColumns(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    guard let trace = fuzzTrace(&w) else { return }
    defer { hearth_release(UnsafeMutableRawPointer(trace)) }
    var info: OpaquePointer?
    guard checked(hearth_trace_info(trace, &info), "hearth_trace_info") == HEARTH_OK else { return }
    defer { hearth_release(UnsafeMutableRawPointer(info)) }
    guard let data = hearth_bytes_data(info),
      let object = try? JSONSerialization.jsonObject(
        with: Data(bytes: data, count: Int(hearth_bytes_size(info)))) as? [String: Any],
      let files = object["files"] as? [[String: Any]]
    else { preconditionFailure("hearth_trace_info is not a JSON object with files") }
    for file in files {
      guard let read = file["rowsRead"] as? Int, let kept = file["rowsKept"] as? Int else { continue }
      let rejected = (file["rejectedByReason"] as? [String: Int])?.values.reduce(0, +) ?? 0
      precondition(
        read == kept + rejected, "\(file["file"] ?? "?"): \(read) read ≠ \(kept) kept + \(rejected) rejected")
    }
  }

  /// A recording created with a fuzzed time origin (or a usual one) and
  /// 1–6 appends of fuzzed columns to fuzzed streams (a code past the last
  /// stream for fixes); nil when creating it was refused.
  private static func fuzzTrace(_ w: inout FuzzWords) -> OpaquePointer? {
    var trace: OpaquePointer?
    let origin = w.word() & 1 == 0 ? w.int64() : start
    guard
      checked(hearth_trace_create("{\"timeOriginMs\": \(origin)}", &trace), "hearth_trace_create")
        == HEARTH_OK
    else {
      hearth_release(UnsafeMutableRawPointer(trace))
      return nil
    }
    for _ in 0..<(1 + w.small(6)) {
      let stream = Int32(truncatingIfNeeded: w.word() % 6)
      if stream == 5 {
        let fixes = FuzzFixColumns(&w, rows: w.small(16), aroundMilliseconds: origin)
        _ = checked(fixes.withFixes { hearth_trace_append_fixes(trace, $0) }, "hearth_trace_append_fixes")
        continue
      }
      let n = w.small(32)
      let t = (0..<n).map { i in w.word() & 3 == 0 ? w.double() : Double(i) / 50 }
      let x = (0..<n).map { _ in w.value(near: 0, spread: 20) }
      let y = (0..<n).map { _ in w.value(near: 0, spread: 20) }
      let z = (0..<n).map { _ in w.value(near: 9.8, spread: 20) }
      _ = checked(hearth_trace_append(trace, stream, Int64(n), t, x, y, z), "hearth_trace_append")
    }
    return trace
  }

  /// `hearth_distances_m`, `hearth_distances_from_m` and
  /// `hearth_track_distances_m`: fuzzed coordinates. Every distance is NaN
  /// or within [0, half the Earth's circumference]; the running path never
  /// decreases (beyond rounding) and, once NaN, stays NaN.
  static func distances(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    let n = w.small(48)
    let lat = (0..<n).map { _ in w.value(near: 0, spread: 100) }
    let lon = (0..<n).map { _ in w.value(near: 0, spread: 200) }
    let lat2 = (0..<n).map { _ in w.value(near: 0, spread: 100) }
    let lon2 = (0..<n).map { _ in w.value(near: 0, spread: 200) }
    let halfway = Double.pi * 6_371_008.8 * (1 + 1e-9)
    var out = [Double](repeating: 0, count: n)
    var steps = [Double](repeating: 0, count: n)
    var path = [Double](repeating: 0, count: n)
    if checked(hearth_distances_m(Int64(n), lat, lon, lat2, lon2, &out), "hearth_distances_m") == HEARTH_OK {
      precondition(out.allSatisfy { $0.isNaN || (0...halfway).contains($0) }, "a distance out of [0, πR]")
    }
    let (oLat, oLon) = (w.value(near: 0, spread: 100), w.value(near: 0, spread: 200))
    if checked(hearth_distances_from_m(oLat, oLon, Int64(n), lat, lon, &out), "hearth_distances_from_m")
      == HEARTH_OK
    {
      precondition(out.allSatisfy { $0.isNaN || (0...halfway).contains($0) }, "a distance out of [0, πR]")
    }
    guard
      checked(hearth_track_distances_m(Int64(n), lat, lon, &steps, &path), "hearth_track_distances_m")
        == HEARTH_OK
    else { return }
    for i in path.indices.dropFirst() where !path[i].isNaN {
      // Compensated summation may take back half an ulp after a zero step.
      precondition(
        !path[i - 1].isNaN && path[i] >= path[i - 1] * (1 - 1e-12),
        "the running path decreased or came back from NaN")
    }
  }

  /// `hearth_validate`, `hearth_dedupe_create` and `hearth_dedupe_insert`:
  /// fuzzed batches against fuzzed clocks and limits. A refused batch
  /// (schema) leaves the verdicts untouched and names a fix within it; a
  /// batch inserted twice finds no new key the second time.
  static func validateDedupe(_ bytes: [UInt8]) {
    var w = FuzzWords(bytes)
    var dedupe: OpaquePointer?
    guard checked(hearth_dedupe_create(&dedupe), "hearth_dedupe_create") == HEARTH_OK else { return }
    defer { hearth_release(UnsafeMutableRawPointer(dedupe)) }
    for _ in 0..<(1 + w.small(4)) {
      let fixes = FuzzFixColumns(&w, rows: w.small(24), aroundMilliseconds: start)
      let n = fixes.time.count
      let untouched: Int32 = -7
      var verdicts = [Int32](repeating: untouched, count: n)
      var schema = hearth_schema_error()
      let now = w.word() & 1 == 0 ? w.int64() : start + 600_000
      let (future, age) = (w.word() & 1 == 0 ? w.int64() : 60_000, w.word() & 1 == 0 ? w.int64() : 86_400_000)
      let status = checked(
        fixes.withFixes { hearth_validate($0, now, future, age, &verdicts, &schema) }, "hearth_validate")
      if status == HEARTH_ERROR_SCHEMA {
        precondition(verdicts.allSatisfy { $0 == untouched }, "a refused batch wrote verdicts")
        precondition((0..<Int64(n)).contains(schema.index), "the schema error names no fix of the batch")
      }
      var outcomes = [Int32](repeating: untouched, count: n)
      guard
        checked(fixes.withFixes { hearth_dedupe_insert(dedupe, $0, &outcomes) }, "hearth_dedupe_insert")
          == HEARTH_OK
      else { continue }
      var again = [Int32](repeating: untouched, count: n)
      var (before, after) = (Int64(0), Int64(0))
      precondition(hearth_dedupe_count(dedupe, &before) == HEARTH_OK)
      precondition(
        fixes.withFixes { hearth_dedupe_insert(dedupe, $0, &again) } == HEARTH_OK, "a retry was refused")
      precondition(
        hearth_dedupe_count(dedupe, &after) == HEARTH_OK && after == before, "a retried batch stored new keys"
      )
      precondition(!again.contains(HEARTH_DEDUPE_INSERTED), "a retried fix was inserted again")
    }
  }
}
