import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// Smaller findings of issue 29.12: a UTF-16 file is named as such by every
/// reader; a bad time's rejection keeps the expected format whole; a folder
/// of which only a side file was read is nothing read.
@Suite("UTF-16 files, time format hints and side files alone")
struct EncodingAndHintTests {
  /// `text` as UTF-16 (with a byte-order mark when `mark`, little-endian).
  static func utf16(_ text: String, mark: Bool = true, bigEndian: Bool = false) -> [UInt8] {
    var out: [UInt8] = mark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
    for unit in text.utf16 {
      let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
      out += bigEndian ? [high, low] : [low, high]
    }
    return out
  }

  @Test(
    "the encoding check: byte-order marks and BOM-less ASCII in UTF-16 are named; UTF-8 (with its BOM) and binary zeros are not"
  )
  func encodingCheck() {
    #expect(TextEncoding.problem(Self.utf16("t,x\n"))?.hasPrefix("UTF-16 text (little-endian") == true)
    #expect(
      TextEncoding.problem(Self.utf16("t,x\n", bigEndian: true))?.hasPrefix("UTF-16 text (big-endian") == true
    )
    #expect(TextEncoding.problem(Self.utf16("t,x\n", mark: false))?.contains("no byte-order mark") == true)
    #expect(
      TextEncoding.problem(Self.utf16("t,x\n", mark: false, bigEndian: true))?.contains("big-endian") == true)
    #expect(TextEncoding.problem([0xFF, 0xFE, 0, 0, 0x74, 0, 0, 0])?.hasPrefix("UTF-32") == true)
    #expect(TextEncoding.problem(Array("t,x\n1,2\n".utf8)) == nil)
    #expect(TextEncoding.problem([0xEF, 0xBB, 0xBF] + Array("t,x\n".utf8)) == nil)
    #expect(TextEncoding.problem([0, 0, 0, 0, 0, 0]) == nil)
    #expect(TextEncoding.problem([0x74, 0]) == nil)  // too short to tell
  }

  @Test(
    "a UTF-16 file is named as UTF-16 by the Sensor Logger, mapped CSV, GPX, .traj and phyphox readers (not a missing column, bad XML, broken lines or an unknown format)"
  )
  func utf16IsNamedByEveryReader() throws {
    let folder = TemporaryFolder()
    folder.write(
      "sl/Accelerometer.csv", Self.utf16("time,seconds_elapsed,z,y,x\n1700000000000000000,0,9.8,0,0\n"))
    folder.write("sl/Gyroscope.csv", "time,seconds_elapsed,z,y,x\n1700000000000000000,0,0,0,0\n")
    let (_, report) = try TraceImport.read(path: folder.path("sl"))
    let skipped = report.file(endingWith: "Accelerometer.csv")?.skippedBecause ?? ""
    #expect(skipped.contains("UTF-16 text") && skipped.contains("save it as UTF-8"), "\(report.files)")

    folder.write("mp/gps.csv", Self.utf16("t,lat,lon\n2024-05-01T10:00:00Z,48,2\n", mark: false))
    folder.write(
      "mp/m.json",
      #"{"name": "m", "files": [{"file": "gps.csv", "time": {"column": "t", "format": "iso8601"}, "fixes": {"latitude": {"column": "lat", "unit": "deg"}, "longitude": {"column": "lon", "unit": "deg"}}}]}"#
    )
    let mapped = thrownText {
      _ = try TraceImport.read(path: folder.path("mp"), mappingPath: folder.path("mp/m.json"))
    }
    #expect(mapped.contains("gps.csv:1: unsupported: UTF-16 text"), "\(mapped)")

    folder.write(
      "a.gpx",
      Self.utf16(
        #"<?xml version="1.0"?><gpx version="1.1"><trk><trkseg><trkpt lat="48" lon="2"><time>2024-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>"#
      ))
    let gpx = thrownText { _ = try TraceImport.read(path: folder.path("a.gpx")) }
    #expect(gpx.contains("UTF-16 text"), "\(gpx)")

    folder.write(
      "a.traj",
      Self.utf16("*T*,id,terrestrial,1,0,*P*,terrestrial,2,1,1,0,367001,2020-06-30 00:00:00,-74.0,40.6\n"))
    let traj = thrownText { _ = try TraceImport.read(path: folder.path("a.traj")) }
    #expect(traj.contains("UTF-16 text"), "\(traj)")

    folder.write("ph.csv", Self.utf16("\"Time (s)\",\"Acceleration x (m/s^2)\"\n0,0\n"))
    let phyphox = thrownText { _ = try TraceImport.read(path: folder.path("ph.csv")) }
    #expect(phyphox.contains("ph.csv:1: unsupported: UTF-16 text"), "\(phyphox)")
  }

  @Test(
    "a time in another shape (hh:mm:ss:ffff) is rejected with the expected format whole, the value shortened instead"
  )
  func timeHintIsWhole() throws {
    let folder = TemporaryFolder()
    folder.write(
      "a.csv", "t,ax,ay,az\n10:00:00:1234,0,0,9.8\n2024-05-01 10:00:00:1234567890123456789,0,0,9.8\n")
    for (time, expected) in [
      (
        #"{"column": "t", "format": "time-of-day", "date": "2024-05-01", "timezone": "UTC"}"#,
        "'10:00:00:1234': expected time-of-day hh:mm:ss[.fff] in UTC"
      ),
      (
        #"{"column": "t", "format": "iso8601", "timezone": "America/Argentina/Buenos_Aires"}"#,
        "expected iso8601 in America/Argentina/Buenos_Aires"
      ),
    ] {
      folder.write(
        "m.json",
        #"{"name": "m", "files": [{"file": "a.csv", "time": \#(time), "accelerometer": {"x": {"column": "ax", "unit": "m/s^2"}, "y": {"column": "ay", "unit": "m/s^2"}, "z": {"column": "az", "unit": "m/s^2"}}}]}"#
      )
      let why = thrownText { _ = try TraceImport.read(path: folder.path, mappingPath: folder.path("m.json")) }
      #expect(why.contains(expected) && why.hasSuffix(expected + ")"), "\(why)")
    }
  }

  @Test(
    "a folder of which only a side file was read (Sensor Logger's Metadata.csv) is nothing read; one sample is something"
  )
  func sideFileAloneIsNothing() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Metadata.csv", "version,device name,recording time,platform\n1.0,phone,2024-05-01_10-00-00,ios\n")
    folder.write("Accelerometer.csv", "")
    folder.write("Gyroscope.csv", "time,seconds_elapsed,z,y,x\nbad\n")
    let (_, report) = try TraceImport.read(path: folder.path)
    #expect(!report.nothingKept && report.streamSpans.isEmpty)
    let why = thrownText { try report.requireSomethingKept(path: folder.path) }
    #expect(why.contains("nothing could be read (no stream has a sample)"), "\(why)")
    #expect(why.contains("Metadata.csv: 1 rows read, 1 kept"), "\(why)")

    folder.write("Gyroscope.csv", "time,seconds_elapsed,z,y,x\n1700000000000000000,0,0,0,0\n")
    try TraceImport.read(path: folder.path).1.requireSomethingKept(path: folder.path)
  }
}
