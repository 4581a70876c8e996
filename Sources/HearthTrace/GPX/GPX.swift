import Foundation
import HearthGeo

/// GPX 1.1 tracks (https://www.topografix.com/GPX/1/1/), read and written.
///
/// Read: every `trkpt` (and `rtept`) with its `lat`/`lon`, `ele`, `time`, and
/// speed, course and accuracy where a producer put them: GPX 1.0's `<speed>`
/// and `<course>`, or any extension element whose local name is `speed`,
/// `course`, `accuracy` or `hacc` (Garmin's `gpxtpx:speed`, OsmAnd's,
/// ours). Speeds are m/s, courses degrees, accuracies metres, as those
/// schemas define them. Written: GPX 1.1 with our accuracy, speed and course
/// in `<extensions>` under the namespace `urn:hearth:gpx:1`, times in UTC to
/// the millisecond, coordinates with enough digits to read back exactly.
public enum GPX {
  public static let hearthNamespace = "urn:hearth:gpx:1"

  /// Deepest element nesting accepted.
  public static let maximumDepth = 256
  /// Longest text of a point's field (`ele`, `time`, …) kept, bytes.
  static let maximumFieldBytes = 256

  /// Reads the tracks of the GPX file at `path` into fixes (sorted by time),
  /// streaming: memory is one chunk, the longest token (at most
  /// `options.maximumLineBytes`) and the fixes.
  ///
  /// A point is rejected with its line when its position is missing or out
  /// of range, its time missing, unparsable or outside 1900–2200, or a field
  /// (`ele`, `speed`, `course`, `accuracy`) not a decimal number (hex floats
  /// included) or outside ``ReadingBounds``. A structural XML error stops the
  /// reading there: the points before it are kept and the rest of the file
  /// is reported as one rejection (strict mode throws instead).
  /// - Throws: `TraceError.io`; `.malformed` when the file is not GPX at all.
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport)
  {
    let name = (path as NSString).lastPathComponent
    let source = try ChunkSource(path: path, displayName: name, maximumLineBytes: options.maximumLineBytes)
    return try read(source, name: name, options: options)
  }

  /// Reads GPX from memory; `name` is used in the report.
  public static func read(bytes: [UInt8], name: String, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    try read(ChunkSource(bytes: bytes, displayName: name), name: name, options: options)
  }

  static func read(_ source: ChunkSource, name: String, options: ReadOptions) throws -> (Trace, ImportReport)
  {
    var tokenizer: XMLTokenizer
    do {
      tokenizer = try XMLTokenizer(source: source, maximumTokenBytes: options.maximumLineBytes)
    } catch {
      var failed = source
      failed.close()
      throw error
    }
    defer { tokenizer.close() }
    var report = FileReport(file: name)
    var block = RowBlock(columnCount: FixLayout.columnCount)
    var sawGPX = false
    var point: [String: String]? = nil  // fields of the open trkpt
    var pointLine = 0
    var pointProblem: String?  // a malformed entity inside the open point
    var path: [String] = []
    var text = ""
    func local(_ qualified: String) -> String {
      qualified.split(separator: ":").last.map(String.init) ?? qualified
    }
    func finishPoint() throws {
      guard let fields = point else { return }
      point = nil
      report.rowsRead += 1
      let location = SourceLocation(file: name, line: pointLine)
      if let problem = pointProblem {
        pointProblem = nil
        let rejection = RowRejection(location: location, reason: .malformedMarkup, detail: problem)
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.reject(rejection)
        return
      }
      switch Self.fix(fields) {
      case .success(let (fix, speed)):
        block.keys.append(Double(fix.milliseconds))
        block.lines.append(RowBlock.line(pointLine))
        FixLayout.append(fix, speedMetersPerSecond: speed, to: &block, at: 0)
        report.rowsKept += 1
      case .failure(let problem):
        let rejection = RowRejection(
          location: location, reason: problem.reason, detail: "\(problem.field): \(problem.detail)")
        if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
        report.reject(rejection)
      }
    }
    do {
      while let token = try tokenizer.next() {
        // A malformed entity spoils the point it is in (rejected, counted;
        // reading goes on); outside a point, only text this reader ignores.
        let entityProblem = tokenizer.takeEntityProblem()
        switch token {
        case .start(let qualified, let attributes, let selfClosing):
          let element = local(qualified)
          if element == "gpx" { sawGPX = true }
          if element == "trkpt" || element == "rtept" {
            try finishPoint()
            point = ["lat": attributes["lat"] ?? "", "lon": attributes["lon"] ?? ""]
            pointLine = tokenizer.line
            pointProblem = entityProblem
            if selfClosing { try finishPoint() }
          } else if point != nil, let problem = entityProblem {
            pointProblem = pointProblem ?? problem
          }
          if !selfClosing {
            guard path.count < maximumDepth else {
              throw XMLTokenizer.Failure(
                line: tokenizer.line, reason: "elements nested deeper than \(maximumDepth)")
            }
            path.append(element)
          }
          text = ""
        case .text(let value):
          if point != nil, let problem = entityProblem { pointProblem = pointProblem ?? problem }
          // Only a point's fields are kept, and only so long.
          if point != nil && text.utf8.count < maximumFieldBytes { text += value }
        case .end(let qualified):
          let element = local(qualified)
          guard path.last == element else {
            throw XMLTokenizer.Failure(
              line: tokenizer.line,
              reason:
                "</\(Excerpt.of(qualified, bytes: 40))> does not close <\(Excerpt.of(path.last ?? "", bytes: 40))>"
            )
          }
          path.removeLast()
          if point != nil {
            switch element {
            case "ele", "time", "speed", "course", "accuracy":
              point![element] = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "hacc":
              point!["accuracy"] = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "trkpt", "rtept": try finishPoint()
            default: break
            }
          }
          text = ""
        }
      }
      if let open = path.last {
        throw XMLTokenizer.Failure(
          line: tokenizer.line, reason: "<\(Excerpt.of(open, bytes: 40))> not closed at the end of the file")
      }
    } catch let failure as XMLTokenizer.Failure {
      guard sawGPX else {
        throw TraceError.malformed(
          SourceLocation(file: name, line: failure.line), reason: "not GPX: \(failure.reason)")
      }
      // Keep what came before; the broken remainder counts as one rejected row.
      point = nil
      report.rowsRead += 1
      let rejection = RowRejection(
        location: SourceLocation(file: name, line: failure.line), reason: .malformedMarkup,
        detail: failure.reason)
      if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
      report.reject(rejection)
    }
    guard sawGPX else {
      throw TraceError.malformed(SourceLocation(file: name, line: 1), reason: "no <gpx> element")
    }
    block.finish(rule: .sameKey, keysPerSecond: 1000, report: &report)
    report.settle()
    var trace = Trace(metadata: TraceMetadata(sourceFiles: [name], format: "gpx"))
    trace.fixes.reserveCapacity(block.count)
    for i in 0..<block.count { trace.fixes.append(FixLayout.fix(block, i, at: 0)) }
    trace.metadata.timeOriginMilliseconds = trace.fixes.timeMilliseconds.first
    var importReport = ImportReport()
    importReport.files = [report]
    return (trace, importReport)
  }

  /// Why a point cannot be kept.
  struct PointProblem: Error {
    var reason: RowRejection.Reason
    var field: String
    var detail: String
  }

  /// A point's fields as a fix and its speed (NaN when unmeasured), or why not.
  static func fix(_ fields: [String: String]) -> Result<(FixFields, Double), PointProblem> {
    func decimal(_ key: String) -> Result<Double, PointProblem> {
      guard let text = fields[key], !text.isEmpty else { return .success(.nan) }
      let parsed = Array(text.utf8).withUnsafeBufferPointer {
        NumberParser.parseDouble($0, decimalComma: false)
      }
      guard case .value(let v) = parsed, !v.isNaN else {
        return .failure(PointProblem(reason: .notANumber, field: key, detail: Excerpt.of(text, bytes: 60)))
      }
      return .success(v)
    }
    do {
      let lat = try decimal("lat").get()
      let lon = try decimal("lon").get()
      guard !lat.isNaN, !lon.isNaN else {
        return .failure(PointProblem(reason: .missingValue, field: "lat, lon", detail: "no position"))
      }
      guard abs(lat) <= 90, abs(lon) <= 180 else {
        return .failure(
          PointProblem(reason: .outOfRange, field: "lat, lon", detail: "lat \(lat), lon \(lon)"))
      }
      guard let timeText = fields["time"], let ms = ISOTime.milliseconds(Substring(timeText)),
        ReadingBounds.fixMilliseconds.contains(ms)
      else {
        return .failure(
          PointProblem(
            reason: .badTime, field: "time",
            detail: fields["time"].map { Excerpt.of($0, bytes: 60) } ?? "no <time>"))
      }
      let fix = FixFields(
        milliseconds: ms, latitude: lat, longitude: lon, accuracy: try decimal("accuracy").get(),
        speed: try decimal("speed").get(), heading: try decimal("course").get(),
        altitude: try decimal("ele").get())
      if let (reason, field, value) = fix.problem() {
        // Named by the GPX element the value came from.
        let element =
          switch field {
          case .position: "lat, lon"
          case .accuracy: "accuracy"
          case .speed: "speed"
          case .heading: "course"
          case .altitude: "ele"
          }
        return .failure(PointProblem(reason: reason, field: element, detail: value))
      }
      let speed =
        SpeedReading.speedMetersPerSecond(raw: fix.speed, horizontalAccuracyMeters: fix.measuredAccuracy)
        ?? .nan
      return .success((fix, speed))
    } catch {
      return .failure(error)
    }
  }

  /// GPX 1.1 text for `fixes` as one track segment. O(n).
  public static func document(fixes: FixColumns, trackName: String = "Hearth track") -> String {
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="Hearth" xmlns="http://www.topografix.com/GPX/1/1" xmlns:hearth="\(hearthNamespace)">
      <trk><name>\(XMLText.escaped(trackName))</name><trkseg>

      """
    out.reserveCapacity(fixes.count * 200)
    for i in 0..<fixes.count {
      out += "<trkpt lat=\"\(fixes.latitudeDegrees[i])\" lon=\"\(fixes.longitudeDegrees[i])\">"
      if !fixes.altitudeMeters[i].isNaN { out += "<ele>\(fixes.altitudeMeters[i])</ele>" }
      out += "<time>\(ISOTime.string(milliseconds: fixes.timeMilliseconds[i]))</time>"
      var extensions = ""
      if !fixes.horizontalAccuracyMeters[i].isNaN {
        extensions += "<hearth:accuracy>\(fixes.horizontalAccuracyMeters[i])</hearth:accuracy>"
      }
      if !fixes.speedMetersPerSecond[i].isNaN {
        extensions += "<hearth:speed>\(fixes.speedMetersPerSecond[i])</hearth:speed>"
      }
      if !fixes.headingDegrees[i].isNaN {
        extensions += "<hearth:course>\(fixes.headingDegrees[i])</hearth:course>"
      }
      if !extensions.isEmpty { out += "<extensions>\(extensions)</extensions>" }
      out += "</trkpt>\n"
    }
    out += "</trkseg></trk>\n</gpx>\n"
    return out
  }

  /// Writes ``document(fixes:trackName:)`` to `path`.
  public static func write(fixes: FixColumns, to path: String, trackName: String = "Hearth track") throws {
    do {
      try Data(document(fixes: fixes, trackName: trackName).utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw TraceError.io(path: path, reason: FolderListing.reason(error))
    }
  }
}
