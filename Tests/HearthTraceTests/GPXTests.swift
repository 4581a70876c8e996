import Foundation
import HearthGeo
import Testing
import _HearthTestSupport

import struct HearthSim.SeededGenerator

@testable import HearthTrace

@Suite("GPX 1.1 tracks")
struct GPXTests {
  static func sampleFixes(_ n: Int, seed: UInt64) -> FixColumns {
    var generator = SeededGenerator(seed: seed)
    var fixes = FixColumns()
    for i in 0..<n {
      fixes.append(
        Fix(
          timeMilliseconds: 1_700_000_000_000 + Int64(i) * 1_234,
          latitudeDegrees: generator.nextDouble(in: -90, 90),
          longitudeDegrees: generator.nextDouble(in: -180, 180),
          horizontalAccuracyMeters: i % 5 == 0 ? .nan : generator.nextDouble(in: 1, 500),
          speedMetersPerSecond: i % 3 == 0 ? nil : generator.nextDouble(in: 0.1, 40),
          headingDegrees: i % 4 == 0 ? nil : generator.nextDouble(in: 0, 360),
          altitudeMeters: i % 2 == 0 ? nil : generator.nextDouble(in: -100, 4000)))
    }
    return fixes
  }

  @Test("write → read round-trips time, position, elevation, accuracy, speed and course exactly")
  func roundTrip() throws {
    let fixes = Self.sampleFixes(500, seed: 1)
    let folder = TemporaryFolder()
    try GPX.write(fixes: fixes, to: folder.path("t.gpx"), trackName: "a <b> & \"c\"")
    let (trace, report) = try GPX.read(path: folder.path("t.gpx"))
    #expect(report.reconciles && report.rowsKept == 500)
    #expect(trace.fixes.timeMilliseconds == fixes.timeMilliseconds)
    #expect(trace.fixes.latitudeDegrees == fixes.latitudeDegrees)
    #expect(trace.fixes.longitudeDegrees == fixes.longitudeDegrees)
    for k in 0..<500 {
      #expect(trace.fixes[k] == fixes[k], "fix \(k)")
    }
  }

  @Test("other producers: GPX 1.0 speed, Garmin extensions, namespaces, CDATA, entities, comments")
  func producers() throws {
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- exported -->
      <gpx version="1.1" creator="x &amp; y" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
      <trk><name><![CDATA[Drive <1>]]></name><trkseg>
      <trkpt lat="48.1" lon="11.5"><ele>520.5</ele><time>2024-05-01T10:00:00Z</time><speed>12.5</speed></trkpt>
      <trkpt lat='48.2' lon='11.6'><time>2024-05-01T12:00:01.250+02:00</time>
        <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>3</gpxtpx:speed><gpxtpx:course>270</gpxtpx:course></gpxtpx:TrackPointExtension></extensions></trkpt>
      </trkseg></trk></gpx>
      """
    let (trace, report) = try GPX.read(bytes: Array(text.utf8), name: "x.gpx")
    #expect(report.rowsKept == 2)
    #expect(trace.fixes[0].timeMilliseconds == 1_714_557_600_000 && trace.fixes[0].altitudeMeters == 520.5)
    #expect(trace.fixes[0].speedMetersPerSecond == 12.5)
    #expect(trace.fixes[1].timeMilliseconds == 1_714_557_601_250)
    #expect(trace.fixes[1].speedMetersPerSecond == 3 && trace.fixes[1].headingDegrees == 270)
  }

  @Test("bad points are rejected with their line; broken XML keeps the points before it")
  func badInput() throws {
    let text = """
      <gpx version="1.1">
      <trk><trkseg>
      <trkpt lat="48.1" lon="11.5"><time>2024-05-01T10:00:00Z</time></trkpt>
      <trkpt lat="98.1" lon="11.5"><time>2024-05-01T10:00:01Z</time></trkpt>
      <trkpt lat="48.1" lon="11.5"><time>yesterday</time></trkpt>
      <trkpt lat="48.1" lon="11.5"><time>2024-05-01T10:00:03Z</time></trkpt>
      <trkpt lat="48.1" lon="11.5"><time>2024-05-01T10:00:04Z</time></trkseg>
      """
    let (trace, report) = try GPX.read(bytes: Array(text.utf8), name: "bad.gpx")
    #expect(trace.fixes.count == 2)
    let file = report.files[0]
    #expect(file.rejectedByReason == [.outOfRange: 1, .badTime: 1, .malformedMarkup: 1])
    #expect(file.reconciles)
    #expect(file.rejections[0].location.line == 4 && file.rejections[1].location.line == 5)
    #expect(throws: TraceError.self) { try GPX.read(bytes: Array("<kml></kml>".utf8), name: "k") }
    #expect(throws: TraceError.self) {
      try GPX.read(bytes: Array(text.utf8), name: "bad.gpx", options: ReadOptions(strict: true))
    }
  }

  @Test(
    "review28 F4: points out of order by up to 60 s are sorted, as in every reader; 60.001 s behind is rejected"
  )
  func reorderHorizonInSeconds() throws {
    func track(_ seconds: [Double]) throws -> (FixColumns, FileReport) {
      let points = seconds.map { s in
        let ms = Int((s * 1000).rounded())  // from 2024-05-01T10:00:00Z
        let time = String(format: "2024-05-01T10:%02d:%02d.%03dZ", ms / 60_000, ms / 1000 % 60, ms % 1000)
        return #"<trkpt lat="48.1" lon="11.5"><time>\#(time)</time></trkpt>"#
      }
      let text =
        "<gpx version=\"1.1\"><trk><trkseg>\n" + points.joined(separator: "\n") + "\n</trkseg></trk></gpx>"
      let (trace, report) = try GPX.read(bytes: Array(text.utf8), name: "t.gpx")
      return (trace.fixes, report.files[0])
    }
    // Two neighbours swapped (1 s), and a point 60 s behind the newest before it: all kept, in order.
    let (sorted, kept) = try track([0, 1, 3, 2, 4, 64, 4.5, 65])
    #expect(kept.rejectedByReason.isEmpty && kept.reorderedRows == 2)
    #expect(
      sorted.timeMilliseconds.map { $0 - 1_714_557_600_000 } == [
        0, 1000, 2000, 3000, 4000, 4500, 64_000, 65_000,
      ])
    // 60.001 s behind: rejected as out of order, named in seconds.
    let (_, late) = try track([0, 64, 3.999, 65])
    #expect(late.rejectedByReason == [.outOfOrder: 1] && late.rejections.first?.location.line == 4)
  }

  @Test("a malformed entity spoils its own point (rejected, counted), not the points after it")
  func malformedEntityInAPoint() throws {
    func point(_ k: Int, name: String = "ok") -> String {
      #"<trkpt lat="48.1" lon="11.5"><name>\#(name)</name><time>2024-05-01T10:00:0\#(k)Z</time></trkpt>"#
    }
    let text = """
      <gpx version="1.1"><trk><name>Shop &amp; more</name><trkseg>
      \(point(0))
      \(point(1, name: "AT&T"))
      \(point(2, name: "&unknown;"))
      \(point(3, name: "fish &amp; chips"))
      <trkpt lat="48.1&" lon="11.5"><time>2024-05-01T10:00:04Z</time></trkpt>
      \(point(5))
      </trkseg></trk></gpx>
      """
    let (trace, report) = try GPX.read(bytes: Array(text.utf8), name: "amp.gpx")
    #expect(trace.fixes.timeMilliseconds.map { $0 % 10_000 / 1_000 } == [0, 3, 5])
    let file = report.files[0]
    #expect(file.rowsRead == 6 && file.rejectedByReason == [.malformedMarkup: 3] && file.reconciles)
    #expect(file.rejections.map(\.location.line) == [3, 4, 6])
    #expect(file.rejections[0].detail.contains("unterminated entity"))
    #expect(file.rejections[1].detail.contains("unknown entity &unknown;"))
    // Outside a point, a stray & in text the reader ignores spoils nothing.
    let outside = text.replacingOccurrences(of: "Shop &amp; more", with: "Shop & more")
    #expect(try GPX.read(bytes: Array(outside.utf8), name: "amp.gpx").0.fixes.count == 3)
  }

  @Test("ISO 8601 times: offsets, fractions, leap years, before 1970; text form round-trips")
  func isoTime() {
    #expect(ISOTime.milliseconds("1970-01-01T00:00:00Z") == 0)
    #expect(ISOTime.milliseconds("2023-08-04 17:47:58-04:00") == 1_691_185_678_000)
    #expect(ISOTime.milliseconds("2024-02-29T23:59:59.9999Z") == 1_709_251_199_999)
    #expect(ISOTime.milliseconds("1969-12-31T23:59:59.5Z") == -500)
    for bad in ["2023-02-29T00:00:00Z", "2023-13-01T00:00:00Z", "2023-01-01", "2023-01-01T25:00:00Z", "x"] {
      #expect(ISOTime.milliseconds(Substring(bad)) == nil, "\(bad)")
    }
    var generator = SeededGenerator(seed: 2)
    for _ in 0..<10_000 {
      let ms = Int64(generator.nextDouble(in: -2e12, 4e12))
      #expect(ISOTime.milliseconds(Substring(ISOTime.string(milliseconds: ms))) == ms)
    }
    // Both ends of Int64 are written (review17: Int64.min trapped, through a
    // replayed upload log's GeoJSON): the milliseconds are the floor's remainder.
    #expect(ISOTime.string(milliseconds: .min).hasSuffix(":04.192Z"))
    #expect(ISOTime.string(milliseconds: .min + 1).hasSuffix(":04.193Z"))
    #expect(ISOTime.string(milliseconds: .max).hasSuffix(":55.807Z"))
    #expect(ISOTime.string(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    // Years before 0 take their sign before the padded digits (review18: "00-1-12-31…").
    #expect(ISOTime.string(milliseconds: -62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
    #expect(ISOTime.string(milliseconds: -62_167_219_200_001) == "-0001-12-31T23:59:59.999Z")
    #expect(ISOTime.string(milliseconds: .min).hasPrefix("-292275055-"))
  }
}

@Suite("GeoJSON writing")
struct GeoJSONTests {
  @Test("a FeatureCollection of a track, a place and an event is valid JSON in RFC 7946 order")
  func document() throws {
    let fixes = GPXTests.sampleFixes(3, seed: 3)
    let features = [
      GeoJSON.track(fixes, properties: [("name", .string("drive \"1\""))]),
      GeoJSON.place(
        id: "home", name: "Home", centre: Coordinate(latitudeDegrees: 40, longitudeDegrees: -75),
        radiusMeters: 120),
      GeoJSON.event(
        kind: "arrival", at: Coordinate(latitudeDegrees: 40, longitudeDegrees: -75), timeMilliseconds: 0,
        properties: [("speed", .number(.nan))]),
    ]
    let text = GeoJSON.document(features)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["type"] as? String == "FeatureCollection")
    let list = try #require(object["features"] as? [[String: Any]])
    #expect(list.count == 3)
    let line = try #require((list[0]["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
    // Longitude first. (Foundation's JSON parser on Linux is not correctly
    // rounded, so compare to 1e-12°; our text itself round-trips exactly.)
    #expect(
      abs(line[0][0] - fixes.longitudeDegrees[0]) < 1e-12
        && abs(line[0][1] - fixes.latitudeDegrees[0]) < 1e-12)
    #expect((list[1]["properties"] as? [String: Any])?["radiusMeters"] as? Double == 120)
    #expect((list[2]["properties"] as? [String: Any])?["speed"] is NSNull, "NaN becomes null")
    #expect((list[0]["properties"] as? [String: Any])?["name"] as? String == "drive \"1\"")
  }
}
