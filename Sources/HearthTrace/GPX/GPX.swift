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

  /// Reads the tracks of the GPX file at `path` into fixes (sorted by time).
  ///
  /// A point without a valid position or time is rejected with its line; a
  /// structural XML error stops the reading there: the points before it are
  /// kept and the rest of the file is reported as one rejection (strict mode
  /// throws instead).
  /// - Throws: `TraceError.io`; `.malformed` when the file is not GPX at all.
  public static func read(path: String, options: ReadOptions = ReadOptions()) throws -> (Trace, ImportReport)
  {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw TraceError.io(path: path, reason: "cannot read the file")
    }
    let name = (path as NSString).lastPathComponent
    return try read(bytes: Array(data), name: name, options: options)
  }

  /// Reads GPX from memory; `name` is used in the report.
  public static func read(bytes: [UInt8], name: String, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    var tokenizer = XMLTokenizer(bytes: bytes)
    var report = FileReport(file: name)
    var fixes = FixColumns()
    var lines: [Int] = []
    var sawGPX = false
    var point: [String: String]? = nil  // fields of the open trkpt
    var pointLine = 0
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
      guard let lat = fields["lat"].flatMap(Double.init), let lon = fields["lon"].flatMap(Double.init),
        abs(lat) <= 90, abs(lon) <= 180
      else {
        try rejectPoint(
          RowRejection(
            location: location, reason: .outOfRange,
            detail: "lat \(fields["lat"] ?? "none"), lon \(fields["lon"] ?? "none")"))
        return
      }
      guard let timeText = fields["time"], let time = ISOTime.milliseconds(Substring(timeText)) else {
        try rejectPoint(
          RowRejection(location: location, reason: .badTime, detail: fields["time"] ?? "no <time>"))
        return
      }
      let accuracy = fields["accuracy"].flatMap(Double.init) ?? .nan
      fixes.append(
        Fix(
          timeMilliseconds: time, latitudeDegrees: lat, longitudeDegrees: lon,
          horizontalAccuracyMeters: accuracy >= 0 ? accuracy : .nan,
          speedMetersPerSecond: fields["speed"].flatMap(Double.init).flatMap {
            SpeedReading.speedMetersPerSecond(raw: $0, horizontalAccuracyMeters: accuracy)
          },
          headingDegrees: fields["course"].flatMap(Double.init),
          altitudeMeters: fields["ele"].flatMap(Double.init)))
      lines.append(pointLine)
      report.rowsKept += 1
    }
    func rejectPoint(_ rejection: RowRejection) throws {
      if options.strict { throw TraceError.rejectedInStrictMode(rejection) }
      report.reject(rejection)
    }
    do {
      while let token = try tokenizer.next() {
        switch token {
        case .start(let qualified, let attributes, let selfClosing):
          let element = local(qualified)
          if element == "gpx" { sawGPX = true }
          if element == "trkpt" || element == "rtept" {
            try finishPoint()
            point = ["lat": attributes["lat"] ?? "", "lon": attributes["lon"] ?? ""]
            pointLine = tokenizer.line
            if selfClosing { try finishPoint() }
          }
          if !selfClosing { path.append(element) }
          text = ""
        case .text(let value):
          text += value
        case .end(let qualified):
          let element = local(qualified)
          guard path.last == element else {
            throw XMLTokenizer.Failure(
              line: tokenizer.line, reason: "</\(qualified)> does not close <\(path.last ?? "")>")
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
      if !path.isEmpty {
        throw XMLTokenizer.Failure(
          line: tokenizer.line, reason: "<\(path.last!)> not closed at the end of the file")
      }
    } catch let failure as XMLTokenizer.Failure {
      guard sawGPX else {
        throw TraceError.malformed(
          SourceLocation(file: name, line: failure.line), reason: "not GPX: \(failure.reason)")
      }
      // Keep what came before; the broken remainder counts as one rejected row.
      point = nil
      report.rowsRead += 1
      try rejectPoint(
        RowRejection(
          location: SourceLocation(file: name, line: failure.line), reason: .malformedMarkup,
          detail: failure.reason))
    }
    guard sawGPX else {
      throw TraceError.malformed(SourceLocation(file: name, line: 1), reason: "no <gpx> element")
    }
    var trace = Trace(metadata: TraceMetadata(sourceFiles: [name], format: "gpx"))
    trace.fixes = StreamAssembly.finish(fixes, lines: lines, report: &report)
    trace.metadata.timeOriginMilliseconds = trace.fixes.timeMilliseconds.first
    var importReport = ImportReport()
    importReport.files = [report]
    return (trace, importReport)
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
      throw TraceError.io(path: path, reason: error.localizedDescription)
    }
  }
}
