import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// A rejected fix names the field that made it bad and that field's value,
/// not the position (or the latitude column) whatever went wrong.
@Suite("Fix rejections name the offending field and value")
struct RejectionNamingTests {
  /// A trace folder of four good fixes.
  static func folder() throws -> TemporaryFolder {
    let folder = TemporaryFolder()
    var trace = Trace(metadata: TraceMetadata(format: "test"))
    trace.fixes = FixColumns(
      (0..<4).map {
        Fix(
          timeMilliseconds: 1_700_000_000_000 + Int64($0) * 1000, latitudeDegrees: 48, longitudeDegrees: 2,
          horizontalAccuracyMeters: 5, headingDegrees: 90)
      })
    try TraceFolder.write(trace, to: folder.path("t"))
    return folder
  }

  @Test(
    "trace folder: a bad accuracy and a bad heading are named with their own values; the edge values are kept"
  )
  func traceFolder() throws {
    let folder = try Self.folder()
    // 100 km is the largest accuracy kept, 360° the largest heading.
    try NPYArray.write([5.0, 2_000_000, 100_000, 5], to: folder.path("t/fixes/accuracy_m.npy"))
    try NPYArray.write([90.0, 90, 360, 400.5], to: folder.path("t/fixes/heading_deg.npy"))
    let (back, report) = try TraceFolder.read(folder.path("t"))
    #expect(back.fixes.count == 2)
    let rejections = try #require(report.file(endingWith: "fixes")?.rejections)
    #expect(rejections.count == 2)
    let accuracy = try #require(rejections.first)
    #expect(accuracy.location.columnName == "accuracy" && accuracy.reason == .outOfRange)
    #expect(accuracy.detail == "accuracy 2000000.0 m", "\(accuracy)")
    let heading = try #require(rejections.last)
    #expect(heading.location.columnName == "heading" && heading.detail == "heading 400.5°", "\(heading)")
    #expect(!"\(rejections)".contains("lat 48"))
  }

  @Test("trace folder: a negative heading is not measured (NaN), as the other readers and the C ABI read it")
  func traceFolderNegativeHeading() throws {
    let folder = try Self.folder()
    try NPYArray.write([90.0, -1, 0, -.infinity], to: folder.path("t/fixes/heading_deg.npy"))
    let (back, report) = try TraceFolder.read(folder.path("t"))
    #expect(back.fixes.count == 3 && report.file(endingWith: "fixes")?.rejections.count == 1)
    #expect(back.fixes.headingDegrees[1].isNaN && back.fixes.headingDegrees[2] == 0)
  }

  @Test("trace folder: a bad position still shows the position")
  func traceFolderPosition() throws {
    let folder = try Self.folder()
    try NPYArray.write([48.0, 91, 48, 48], to: folder.path("t/fixes/latitude_deg.npy"))
    let (_, report) = try TraceFolder.read(folder.path("t"))
    let rejection = try #require(report.file(endingWith: "fixes")?.rejections.first)
    #expect(rejection.location.columnName == "position" && rejection.detail == "lat 91.0, lon 2.0")
  }

  @Test("Sensor Logger: a speed, accuracy, bearing or altitude out of range is labelled with its own column")
  func sensorLogger() throws {
    let cases: [(column: String, value: String, detail: String)] = [
      ("speed", "600.5", "speed 600.5 m/s"), ("horizontalAccuracy", "100001", "accuracy 100001.0 m"),
      ("bearing", "361", "heading 361.0°"), ("altitude", "200000", "altitude 200000.0 m"),
    ]
    for (column, value, detail) in cases {
      let folder = TemporaryFolder()
      var text = "time,seconds_elapsed,latitude,longitude,horizontalAccuracy,speed,bearing,altitude\n"
      // The edge values are kept: 600 m/s, 100 km, 360°, 100 km up.
      text += "1700000000000000000,0,48.0,2.0,100000,600,360,100000\n"
      let bad = ["horizontalAccuracy": "5", "speed": "12", "bearing": "90", "altitude": "10"].merging(
        [column: value]
      ) { $1 }
      text +=
        "1700000001000000000,1,48.001,2.0,\(bad["horizontalAccuracy"]!),\(bad["speed"]!),\(bad["bearing"]!),\(bad["altitude"]!)\n"
      folder.write("Location.csv", text)
      let (trace, report) = try SensorLoggerReader.read(folder: folder.path)
      #expect(trace.fixes.count == 1, "\(column)")
      let rejection = try #require(report.file(endingWith: "Location.csv")?.rejections.first, "\(column)")
      #expect(rejection.location.columnName == column, "\(rejection)")
      #expect(rejection.detail == detail, "\(rejection)")
      #expect(!"\(rejection)".contains("(latitude)"), "\(rejection)")
    }
  }

  @Test("GPX: a course out of range is rejected with its value")
  func gpx() throws {
    let folder = TemporaryFolder()
    folder.write(
      "a.gpx",
      """
      <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
      <trkpt lat="48" lon="2"><time>2023-11-14T22:13:20Z</time><course>360</course></trkpt>
      <trkpt lat="48" lon="2"><time>2023-11-14T22:13:21Z</time><course>720</course></trkpt>
      </trkseg></trk></gpx>
      """)
    let (trace, report) = try GPX.read(path: folder.path("a.gpx"))
    #expect(trace.fixes.count == 1)
    let rejection = try #require(report.files.first?.rejections.first)
    #expect(rejection.detail == "course: heading 720.0°", "\(rejection)")
  }
}
