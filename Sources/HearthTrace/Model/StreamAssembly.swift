import HearthGeo

/// Finishing touches every reader applies to what it read: sort by time
/// (stable), drop exact duplicates, and account for both in the file report.
enum StreamAssembly {
  /// Sorts `seconds` and the parallel `columns` by time, stably. Returns the
  /// permutation applied and how many rows were out of order in the file.
  static func sortOrder(_ times: [Double]) -> (order: [Int], reordered: Int) {
    var reordered = 0
    var latest = -Double.infinity
    for t in times {
      if t < latest { reordered += 1 } else { latest = t }
    }
    guard reordered > 0 else { return (Array(times.indices), 0) }
    let order = times.indices.sorted { a, b in
      times[a] < times[b] || (times[a] == times[b] && a < b)
    }
    return (order, reordered)
  }

  /// A vector stream sorted by time with exact duplicates (same time and
  /// values) removed; `lines` are the rows' source lines, for the report.
  static func finish(
    _ stream: VectorStream, lines: [Int], report: inout FileReport
  ) -> VectorStream {
    let (order, reordered) = sortOrder(stream.seconds)
    report.reorderedRows += reordered
    var result = VectorStream()
    result.seconds.reserveCapacity(stream.count)
    result.x.reserveCapacity(stream.count)
    result.y.reserveCapacity(stream.count)
    result.z.reserveCapacity(stream.count)
    for k in order {
      let t = stream.seconds[k]
      if let last = result.seconds.last, last == t,
        result.x.last! == stream.x[k] || (result.x.last!.isNaN && stream.x[k].isNaN),
        result.y.last! == stream.y[k] || (result.y.last!.isNaN && stream.y[k].isNaN),
        result.z.last! == stream.z[k] || (result.z.last!.isNaN && stream.z[k].isNaN)
      {
        report.rowsKept -= 1
        report.reject(
          RowRejection(
            location: SourceLocation(file: report.file, line: lines[k]), reason: .duplicate,
            detail: "same time and values as an earlier row"))
        continue
      }
      result.append(seconds: t, x: stream.x[k], y: stream.y[k], z: stream.z[k])
    }
    return result
  }

  /// A pressure stream sorted by time with exact duplicates removed.
  static func finish(_ stream: PressureStream, lines: [Int], report: inout FileReport) -> PressureStream {
    let asVector = VectorStream(
      seconds: stream.seconds, x: stream.hectopascals, y: stream.relativeAltitudeMeters,
      z: Array(repeating: 0, count: stream.count))
    let done = finish(asVector, lines: lines, report: &report)
    return PressureStream(seconds: done.seconds, hectopascals: done.x, relativeAltitudeMeters: done.y)
  }

  /// Fixes sorted by time; a second fix with the same time (one device, one
  /// file) is a duplicate and is rejected.
  static func finish(_ fixes: FixColumns, lines: [Int], report: inout FileReport) -> FixColumns {
    let times = fixes.timeMilliseconds.map(Double.init)
    let (order, reordered) = sortOrder(times)
    report.reorderedRows += reordered
    var result = FixColumns()
    result.reserveCapacity(fixes.count)
    for k in order {
      if let last = result.timeMilliseconds.last, last == fixes.timeMilliseconds[k] {
        report.rowsKept -= 1
        report.reject(
          RowRejection(
            location: SourceLocation(file: report.file, line: lines[k]), reason: .duplicate,
            detail: "a fix at the same time came earlier"))
        continue
      }
      result.append(from: fixes, at: k)
    }
    return result
  }
}

/// The rejection reason for a position, or nil when it is usable.
func positionProblem(latitude: Double, longitude: Double) -> RowRejection.Reason? {
  if latitude.isNaN || longitude.isNaN { return .missingValue }
  return abs(latitude) <= 90 && abs(longitude) <= 180 ? nil : .outOfRange
}

extension StreamAssembly {
  /// Runs ``GravityCheck`` over `stream` (in its row order) and states the
  /// outcome in the report's units. A stream that fails is rejected whole:
  /// every row counted as a `unitProblem` and the file marked skipped, unless
  /// `options.acceptImplausibleGravity`. Returns whether to keep the stream.
  /// - Throws: `rejectedInStrictMode` for a failing stream in strict mode.
  static func passesGravityCheck(
    _ stream: VectorStream, kind: GravityCheck.Kind, report: inout FileReport, options: ReadOptions
  ) throws -> Bool {
    var check = GravityCheck(kind: kind)
    for i in 0..<stream.count {
      check.add(seconds: stream.seconds[i], x: stream.x[i], y: stream.y[i], z: stream.z[i])
    }
    let verdict = check.verdict()
    let words = GravityCheck.describe(verdict, kind: kind)
    report.units = [report.units, words].compactMap { $0 }.joined(separator: "; ")
    guard case .implausible = verdict, !options.acceptImplausibleGravity else { return true }
    let rejection = RowRejection(
      location: SourceLocation(file: report.file, line: 0), reason: .unitProblem,
      detail: "every row: \(words)")
    if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
    report.rowsKept -= stream.count
    report.reject(rejection, count: stream.count)
    report.skippedBecause = words + " (ReadOptions.acceptImplausibleGravity keeps it)"
    return false
  }
}
