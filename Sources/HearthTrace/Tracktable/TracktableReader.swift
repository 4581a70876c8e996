import Foundation
import HearthGeo

/// Reads tracktable's `.traj` text format (one trajectory per line), as in
/// ../shared/datasets/tracktable-ais.
///
/// A line is comma-separated: `*T*`, uuid, domain, point count, trajectory
/// property count, the trajectory's properties, then `*P*`, domain,
/// dimension (2), has-object-id, has-timestamp, point property count, and per
/// point: object id, timestamp (`YYYY-MM-DD hh:mm:ss`, UTC), longitude,
/// latitude, properties. Each trajectory's object id (an AIS MMSI) becomes a
/// device id; ships report no accuracy or speed here (NaN / unmeasured).
public enum TracktableReader {
  /// One trajectory: its fixes (sorted by time) and object id.
  public struct Trajectory: Sendable, Hashable {
    public var objectID: String
    public var fixes: FixColumns
  }

  /// Largest point property count accepted on a line.
  static let maximumProperties = 10_000

  /// Reads a `.traj` file, line by line (memory: one chunk, one line of at
  /// most `options.maximumLineBytes`, and the fixes). CRLF line ends read
  /// like LF ones. A line that is not a trajectory (counts negative, too
  /// large or not matching the fields present), or a point with a bad
  /// coordinate (not a decimal, out of range) or time (unparsable, outside
  /// 1900–2200), is rejected with its line; the rest is kept.
  /// - Throws: `TraceError.io` when the file cannot be read or is not a
  ///   regular file; in strict mode the first rejection.
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (
    [Trajectory], FileReport
  ) {
    let name = (path as NSString).lastPathComponent
    var lines = try LineReader(path: path, displayName: name, maximumLineBytes: options.maximumLineBytes)
    defer { lines.close() }
    var report = FileReport(file: name)
    var trajectories: [Trajectory] = []
    var devices = DeviceTable()
    while let next = try lines.next() {
      switch next {
      case .tooLong(let number):
        try report.reject(
          .lineTooLong, "longer than \(options.maximumLineBytes) bytes", line: number, strict: options.strict)
      case .text(let bytes, let number):
        guard !bytes.isEmpty else { continue }
        let text = String(decoding: bytes, as: UTF8.self)
        if let trajectory = try trajectory(
          text, line: number, name: name, devices: &devices, report: &report, strict: options.strict)
        {
          trajectories.append(trajectory)
        }
      }
    }
    report.settle()
    return (trajectories, report)
  }

  /// The device of each object id in a file, and the fix times each device
  /// already has: two ships never share a device, a fix repeated on a
  /// later line is a duplicate there too.
  struct DeviceTable {
    private var owners: [UInt32: String] = [:]
    private var times: [UInt32: Set<Int64>] = [:]

    /// The device of `objectID`: the id itself when it is a whole number
    /// that fits a device id (an AIS MMSI), else its stable hash; nil when
    /// that device already belongs to another object id (its owner given).
    mutating func device(of objectID: Substring) -> (device: UInt32, takenBy: String?) {
      let device = UInt32(objectID) ?? stableHash(String(objectID))
      if let owner = owners[device] { return (device, owner == objectID ? nil : owner) }
      owners[device] = String(objectID)
      return (device, nil)
    }

    /// Records a kept fix's time; false when the device already has a fix then.
    mutating func keep(_ device: UInt32, milliseconds: Int64) -> Bool {
      times[device, default: []].insert(milliseconds).inserted
    }
  }

  /// One line's trajectory, or nil when the line is rejected (as `reject` records).
  private static func trajectory(
    _ text: String, line: Int, name: String, devices: inout DeviceTable, report: inout FileReport,
    strict: Bool
  ) throws -> Trajectory? {
    func reject(_ reason: RowRejection.Reason, _ detail: String, _ line: Int, _ rows: Int) throws {
      try report.reject(reason, detail, line: line, rows: rows, strict: strict)
    }
    let fields = text.split(separator: ",", omittingEmptySubsequences: false)
    func count(_ k: Int) -> Int? { k < fields.count ? Int(fields[k]).flatMap { $0 >= 0 ? $0 : nil } : nil }
    guard fields.first == "*T*", let marker = fields.firstIndex(of: "*P*"), fields.count > marker + 5,
      let pointCount = count(3), let dimension = count(marker + 2), let hasID = count(marker + 3),
      let hasTime = count(marker + 4), let properties = count(marker + 5), dimension == 2, hasTime == 1,
      hasID <= 1,
      properties <= maximumProperties
    else {
      try reject(.wrongFieldCount, "not a 2-D timed tracktable trajectory line", line, 1)
      return nil
    }
    let stride = hasID + hasTime + dimension + properties
    let body = fields[(marker + 6)...]
    let (expected, overflow) = stride.multipliedReportingOverflow(by: pointCount)
    guard !overflow, body.count == expected else {
      // Count the records the line really holds, never the count it claims
      // (a corrupt count of 10^12 must not cost 10^12 steps).
      try reject(
        .wrongFieldCount,
        "expected \(pointCount) points of \(stride) fields, found \(body.count) fields", line,
        max(1, body.count / stride))
      return nil
    }
    var block = RowBlock(columnCount: FixLayout.columnCount)
    block.reserveCapacity(pointCount)
    let objectID = hasID == 1 && pointCount > 0 ? body[body.startIndex] : fields[1]
    let (deviceID, takenBy) = devices.device(of: objectID)
    if let takenBy {
      // Interning never merges two ships: the later id loses its line.
      try reject(
        .outOfRange,
        "'\(Excerpt.of(takenBy, bytes: 16))' has device \(deviceID); '\(Excerpt.of(String(objectID), bytes: 16))' is another ship",
        line, max(1, pointCount))
      return nil
    }
    let device = Double(deviceID)
    var k = body.startIndex
    for _ in 0..<pointCount {
      let idField = body[k]
      let timeField = body[k + hasID]
      let lonField = body[k + hasID + 1]
      let latField = body[k + hasID + 2]
      k += stride
      guard hasID == 0 || idField == objectID else {
        try reject(
          .outOfRange,
          "a point of '\(Excerpt.of(String(idField), bytes: 16))' in the trajectory of '\(Excerpt.of(String(objectID), bytes: 16))'",
          line, 1)
        continue
      }
      guard let time = ISOTime.milliseconds(timeField), ReadingBounds.fixMilliseconds.contains(time) else {
        try reject(.badTime, Excerpt.of(String(timeField), bytes: 60), line, 1)
        continue
      }
      guard let lon = decimal(lonField), let lat = decimal(latField), abs(lat) <= 90, abs(lon) <= 180 else {
        try reject(.outOfRange, Excerpt.of("\(lonField), \(latField)", bytes: 60), line, 1)
        continue
      }
      report.rowsRead += 1
      report.rowsKept += 1
      block.keys.append(Double(time))
      block.lines.append(RowBlock.line(line))
      FixLayout.append(
        FixFields(milliseconds: time, latitude: lat, longitude: lon), speedMetersPerSecond: .nan, to: &block,
        at: 0)
      block.columns[FixLayout.device][block.count - 1] = device
    }
    // The repeated-fix rule of every fix file (keys in ms), then a fix at a
    // time an earlier line of this ship already gave.
    block.finish(rule: .sameKeyOrSameFix, keysPerSecond: 1000, report: &report)
    var fixes = FixColumns()
    fixes.reserveCapacity(block.count)
    for i in 0..<block.count {
      let fix = FixLayout.fix(block, i, at: 0)
      guard devices.keep(deviceID, milliseconds: fix.timeMilliseconds) else {
        report.rejectDuplicate(line: block.lines[i])
        continue
      }
      fixes.append(fix)
    }
    return Trajectory(objectID: Excerpt.of(String(objectID), bytes: 80), fixes: fixes)
  }

  /// A decimal number (no hex, no nan or inf), or nil.
  static func decimal(_ text: Substring) -> Double? {
    var copy = String(text)
    let parsed = copy.withUTF8 { NumberParser.parseDouble($0, decimalComma: false) }
    guard case .value(let v) = parsed, v.isFinite else { return nil }
    return v
  }
}

extension FileReport {
  /// Rejects `rows` rows (the point records a line holds) of `line`, or
  /// throws the rejection in strict mode.
  mutating func reject(
    _ reason: RowRejection.Reason, _ detail: String, line: Int, rows: Int = 1, strict: Bool
  ) throws {
    let rejection = RowRejection(
      location: SourceLocation(file: file, line: line), reason: reason, detail: detail)
    if strict { throw TraceError.rejectedInStrictMode(rejection) }
    rowsRead += rows
    reject(rejection, count: rows)
  }
}

/// FNV-1a, 32 bits: a hash that is the same in every process (Swift's
/// `hashValue` is seeded per run), for interning string ids.
func stableHash(_ text: String) -> UInt32 {
  var hash: UInt32 = 0x811C_9DC5
  for byte in text.utf8 {
    hash ^= UInt32(byte)
    hash = hash &* 0x0100_0193
  }
  return hash
}
