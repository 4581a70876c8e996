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

  /// Reads a `.traj` file. A line that is not a trajectory, or a point with a
  /// bad coordinate or time, is rejected with its line; the rest is kept.
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (
    [Trajectory], FileReport
  ) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TraceError.io(path: path, reason: "cannot read the file")
    }
    let name = (path as NSString).lastPathComponent
    var report = FileReport(file: name)
    var trajectories: [Trajectory] = []
    let text = String(decoding: data, as: UTF8.self)
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
      guard !trimmed.isEmpty else { continue }
      let lineNumber = index + 1
      let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
      /// Rejects the line as `rows` rows (the point records it holds).
      func reject(_ reason: RowRejection.Reason, _ detail: String, rows: Int = 1) throws {
        let rejection = RowRejection(
          location: SourceLocation(file: name, line: lineNumber), reason: reason, detail: detail)
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.rowsRead += rows
        report.reject(rejection, count: rows)
      }
      guard fields.first == "*T*", let marker = fields.firstIndex(of: "*P*"), fields.count > marker + 5,
        let pointCount = Int(fields[3]), let dimension = Int(fields[marker + 2]),
        let hasID = Int(fields[marker + 3]), let hasTime = Int(fields[marker + 4]),
        let properties = Int(fields[marker + 5]), dimension == 2, hasTime == 1
      else {
        try reject(.wrongFieldCount, "not a 2-D timed tracktable trajectory line")
        continue
      }
      let stride = hasID + hasTime + dimension + properties
      let body = fields[(marker + 6)...]
      guard body.count == stride * pointCount else {
        // Count the records the line really holds, never the count it claims
        // (a corrupt count of 10^12 must not cost 10^12 steps).
        try reject(
          .wrongFieldCount, "expected \(pointCount) points of \(stride) fields, found \(body.count) fields",
          rows: max(1, body.count / max(stride, 1)))
        continue
      }
      var fixes = FixColumns()
      fixes.reserveCapacity(pointCount)
      var lines: [Int] = []
      let objectID = hasID == 1 && pointCount > 0 ? String(body[body.startIndex]) : String(fields[1])
      let device = DeviceID(UInt32(truncatingIfNeeded: UInt64(objectID) ?? UInt64(stableHash(objectID))))
      var k = body.startIndex
      for _ in 0..<pointCount {
        report.rowsRead += 1
        let timeField = body[k + hasID]
        let lon = Double(body[k + hasID + 1])
        let lat = Double(body[k + hasID + 2])
        k += stride
        guard let time = ISOTime.milliseconds(timeField) else {
          let rejection = RowRejection(
            location: SourceLocation(file: name, line: lineNumber), reason: .badTime,
            detail: String(timeField))
          if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
          report.reject(rejection)
          continue
        }
        guard let lat, let lon, abs(lat) <= 90, abs(lon) <= 180 else {
          let rejection = RowRejection(
            location: SourceLocation(file: name, line: lineNumber), reason: .outOfRange,
            detail: "\(body[k - stride + hasID + 1]), \(body[k - stride + hasID + 2])")
          if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
          report.reject(rejection)
          continue
        }
        fixes.append(
          Fix(
            timeMilliseconds: time, latitudeDegrees: lat, longitudeDegrees: lon,
            horizontalAccuracyMeters: .nan, device: device))
        lines.append(lineNumber)
        report.rowsKept += 1
      }
      trajectories.append(
        Trajectory(objectID: objectID, fixes: StreamAssembly.finish(fixes, lines: lines, report: &report)))
    }
    return (trajectories, report)
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
