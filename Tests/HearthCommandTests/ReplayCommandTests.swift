import Foundation
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthCommand

@Suite("hearth geo replay")
struct ReplayCommandTests {
  @Test("a generated day replayed against its places: JSON Lines and GeoJSON with every kind of output")
  func generatedDay() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let replay = run([
      "geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson"), "--geojson",
      folder.path("r.geojson"),
    ])
    #expect(replay.code == 0, "\(replay.err)")
    var types: [String: Int] = [:]
    for line in replay.out.split(separator: "\n") {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
      types[object["type"] as? String ?? "?", default: 0] += 1
      #expect(object["timeMilliseconds"] is NSNumber && object["value"] is [String: Any])
    }
    // Seed 3: four trips between three places, over the limit twice.
    #expect(types["trip"] == 4, "\(types)")
    #expect((types["geofence"] ?? 0) >= 10 && (types["speedAlert"] ?? 0) >= 1 && types["suddenStop"] != nil)
    #expect(
      replay.err.contains("replayed 332 fixes") && replay.err.contains("11 duplicates"), "\(replay.err)")
    let geojson = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path("r.geojson"))))
        as? [String: Any])
    let kinds = (geojson["features"] as? [[String: Any]] ?? []).compactMap {
      ($0["properties"] as? [String: Any])?["kind"] as? String
    }
    #expect(kinds.filter { $0 == "place" }.count == 3 && kinds.contains("track") && kinds.contains("trip"))
    #expect(kinds.contains("arrival") && kinds.contains("departure") && kinds.contains("speedAlert"))
    // The same input gives the same output.
    let again = run(["geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson")])
    #expect(again.out == replay.out)
  }

  @Test("no limit, no alerts; a real drive with no places has no geofence events")
  func limitsAndRealDrive() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let off = run([
      "geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson"), "--limit-kmh",
      "0",
    ])
    #expect(off.code == 0 && !off.out.contains("\"speedAlert\""))
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let drive = TestPaths.sharedDatasets.path + "/mems-nav-drives/raw/2023-08-04_214758"
    let real = run(["geo", "replay", drive, "--places", folder.path("none.geojson")])
    #expect(
      real.code == 0 && !real.out.contains("\"geofence\"") && real.out.contains("\"trip\""), "\(real.err)")
  }

  @Test(
    "--only announced prints what reaches a phone, --only trip,stay the feed; geofence events name their place"
  )
  func onlyAndPlaceNames() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let base = ["geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson")]
    let all = run(base)
    let announced = run(base + ["--only", "announced"])
    let feed = run(base + ["--only", "trip,stay"])
    #expect(announced.code == 0 && feed.code == 0, "\(announced.err)")
    func objects(_ text: String) throws -> [[String: Any]] {
      try text.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
    }
    let names = Set(
      try objects(all.out).filter { $0["type"] as? String == "geofence" }.compactMap {
        $0["placeName"] as? String
      })
    let placeNames = Set(try PlacesFile.read(path: folder.path("d/places.geojson")).compactMap(\.name))
    #expect(!names.isEmpty && names.isSubset(of: placeNames), "\(names) of \(placeNames)")
    let kept = try objects(announced.out)
    #expect(!kept.isEmpty && kept.count < all.out.split(separator: "\n").count)
    for object in kept {
      let outcome = (object["value"] as? [String: Any])?["outcome"] as? String
      #expect(outcome == "announced" || outcome == "raised", "\(object)")
    }
    let feedTypes = Set(try objects(feed.out).compactMap { $0["type"] as? String })
    #expect(feedTypes.isSubset(of: ["trip", "stay"]) && feedTypes.contains("trip"))
    let bad = run(base + ["--only", "arrivals"])
    #expect(bad.code == 2 && bad.err.contains("--only"), "\(bad.err)")
  }

  @Test("bad places files and arguments give exit 3 and 2 with the feature and field named")
  func badInput() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let trace = folder.path("d/trace")
    try
      #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{"radiusMeters":100}},{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{}}]}"#
      .write(toFile: folder.path("bad.geojson"), atomically: true, encoding: .utf8)
    let bad = run(["geo", "replay", trace, "--places", folder.path("bad.geojson")])
    #expect(bad.code == 3 && bad.err.contains("bad.geojson (radiusMeters): feature 2"), "\(bad.err)")
    #expect(run(["geo", "replay", trace, "--places", folder.path("missing.geojson")]).code == 3)
    #expect(run(["geo", "replay", trace]).code == 2)
    #expect(run(["geo", "replay", trace, "--places", folder.path("bad.geojson"), "--batch", "0"]).code == 2)
    // Each flag outside its domain is named with the value given (review26 F10); its edges are taken.
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let log = folder.write("log.csv", Self.crashLog())
    let refused: [([String], String)] = [
      (["--batch", "0"], "--batch must be ≥ 1 fix, not 0"),
      (["--tick", "0"], "--tick must be between 1 and 86400 s, not 0"),
      (["--tick", "86401"], "--tick must be between 1 and 86400 s, not 86401"),
      (["--limit-kmh", "-1"], "--limit-kmh must be a finite speed ≥ 0 km/h (0: no limit), not -1.0"),
      (["--limit-kmh", "1e309"], "--limit-kmh must be a finite speed ≥ 0 km/h (0: no limit), not inf"),
    ]
    for (flags, why) in refused {
      let result = run(["geo", "replay", log, "--places", folder.path("none.geojson")] + flags)
      #expect(result.code == 2 && result.err.contains(why), "\(flags): \(result.err)")
    }
    for flags in [["--batch", "1"], ["--tick", "1"], ["--tick", "86400"], ["--limit-kmh", "0"]] {
      let result = run(["geo", "replay", log, "--places", folder.path("none.geojson")] + flags)
      #expect(result.code == 0, "\(flags): \(result.err)")
    }
  }

  /// An upload log: a drive at 20 m/s, a stop, then nothing (one upload a
  /// minute, each received 1 s after its newest fix). Times from t0.
  static func crashLog(extraRows: [String] = []) -> String {
    let t0: Int64 = 1_700_000_000_000
    var rows = ["user,device,time_ms,latitude,longitude,accuracy_m,speed_mps,activity,source,received_ms"]
    for k in 0...12 {
      let time = t0 + Int64(k) * 10_000
      rows.append(
        "1,1,\(time),48.137,\(11.575 + Double(k) * 0.00268),8,20,automotive,ordinary,\(t0 + 121_000)")
    }
    rows.append("1,1,\(t0 + 130_000),48.137,\(11.575 + 12 * 0.00268 + 0.0002),8,0,still,,\(t0 + 131_000)")
    return (rows + extraRows).joined(separator: "\n") + "\n"
  }

  @Test("an upload log replays as logged; the clock ticks between uploads and goes on to --until")
  func uploadLogWithReceiptTimes() throws {
    let folder = TemporaryFolder()
    let log = folder.write("log.csv", Self.crashLog())
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let stop: Int64 = 1_700_000_130_000
    // The input ends a second after the stop: pending only.
    let short = run(["geo", "replay", log, "--places", folder.path("none.geojson")])
    #expect(short.code == 0, "\(short.err)")
    #expect(short.out.contains(#""outcome":"pending""#) && !short.out.contains(#""outcome":"raised""#))
    #expect(short.err.contains("replayed 14 fixes in 2 uploads to \(stop + 1_000) ms"), "\(short.err)")
    // --until four minutes later: still pending; five minutes: raised by the timer, on time.
    let early = run([
      "geo", "replay", log, "--places", folder.path("none.geojson"), "--until", "\(stop + 299_999)",
    ])
    #expect(!early.out.contains(#""outcome":"raised""#))
    let late = run([
      "geo", "replay", log, "--places", folder.path("none.geojson"), "--until", "\(stop + 3_600_000)",
    ])
    let raised = try #require(
      late.out.split(separator: "\n").first { $0.contains(#""outcome":"raised""#) }, "\(late.out)")
    #expect(raised.contains(#""timeMilliseconds":\#(stop + 300_000)"#), "\(raised)")
    #expect(run(["geo", "replay", log, "--places", folder.path("none.geojson"), "--tick", "0"]).code == 2)
  }

  @Test("every refusal is printed with its upload, index, field and reason; unreadable rows with their line")
  func refusalsArePrintedWithUploadIndexFieldAndReason() throws {
    let folder = TemporaryFolder()
    let t: Int64 = 1_700_000_200_000
    let log = folder.write(
      "log.csv",
      Self.crashLog(extraRows: [
        // A fix from the future (10 min ahead of its upload), then a good one: upload 3.
        "1,1,\(t + 600_000),48.137,11.6,8,0,still,,\(t)", "1,1,\(t - 1_000),48.137,11.6,8,0,still,,\(t)",
        // Infinite speeds: no reading, rejected by the server's validation (as the C ABI's).
        "1,1,\(t - 500),48.137,11.6,8,inf,,,\(t)", "1,1,\(t - 400),48.137,11.6,8,-inf,,,\(t)",
        // A latitude out of range refuses upload 4 whole.
        "1,1,\(t + 5_000),91,11.6,8,0,,,\(t + 10_000)",
        // Unreadable rows: a user that is no id, an activity that is none.
        "x,1,\(t),48.1,11.6,8,0,,,\(t + 20_000)", "1,1,\(t),48.1,11.6,8,0,dancing,,\(t + 20_000)",
      ]))
    try #"{"type":"FeatureCollection","features":[]}"#.write(
      toFile: folder.path("none.geojson"), atomically: true, encoding: .utf8)
    let replay = run(["geo", "replay", log, "--places", folder.path("none.geojson")])
    #expect(replay.code == 0, "\(replay.err)")
    #expect(
      replay.err.contains("upload 3 (received \(t) ms): fix 0: time: inFuture; fix rejected"), "\(replay.err)"
    )
    #expect(
      replay.err.contains("upload 4 (received \(t + 10_000) ms): fix 0: latitude 91.0 is outside its range"),
      "\(replay.err)")
    #expect(
      replay.err.contains("log.csv:22 (activity): 'dancing' is not an activity; row skipped"), "\(replay.err)"
    )
    // A hostile activity cell is echoed with its control characters as codes (review26 F11).
    let hostile = folder.write(
      "esc.csv", Self.crashLog(extraRows: ["1,1,\(t),48.1,11.6,8,0,\u{1B}]0;pwned\u{7},,\(t + 20_000)"]))
    let escaped = run(["geo", "replay", hostile, "--places", folder.path("none.geojson")])
    #expect(escaped.err.contains(#"(activity): '\u{1B}]0;pwned\u{7}' is not an activity"#), "\(escaped.err)")
    #expect(!escaped.err.contains("\u{1B}") && !escaped.out.contains("\u{1B}"))
    #expect(replay.err.contains("log.csv:21"), "\(replay.err)")
    #expect(replay.err.contains("1 uploads refused (schema)") && replay.err.contains("rejected inFuture 1"))
    #expect(
      replay.err.contains("upload 3 (received \(t) ms): fix 3: speed: speedOutOfRange; fix rejected"),
      "\(replay.err)")
    #expect(replay.err.contains("speedOutOfRange 2"), "\(replay.err)")
  }

  /// review26 F9: an empty device cell rejected its row, though the help
  /// says the device defaults to the user.
  @Test("an empty device cell is the user's device; one that is no id skips its row, named")
  func emptyDeviceCell() throws {
    let folder = TemporaryFolder()
    let t: Int64 = 1_700_000_200_000
    let log = folder.write(
      "log.csv",
      "user,time_ms,latitude,longitude,received_ms,device\n"
        + "1,\(t),48.1,11.6,\(t + 1_000),\n1,\(t + 1_000),48.1,11.6,\(t + 2_000),2\n"
        + "1,\(t + 2_000),48.1,11.6,\(t + 3_000),1.5\n1,\(t + 3_000),48.1,11.6,\(t + 4_000),4294967296\n")
    let places = folder.write("none.geojson", #"{"type":"FeatureCollection","features":[]}"#)
    let replay = run(["geo", "replay", log, "--places", places])
    #expect(replay.code == 0 && replay.err.contains("replayed 2 fixes"), "\(replay.err)")
    #expect(replay.err.contains("log.csv:4 (device): not a device id"), "\(replay.err)")
    #expect(replay.err.contains("log.csv:5 (device): not a device id"), "\(replay.err)")
    #expect(!replay.err.contains("log.csv:2"), "\(replay.err)")
  }

  /// review26 F9 and F10: number errors named a column index only, came
  /// after every other problem, a rejected fix named no row, "no fixes"
  /// named no file, and an --until before the last receipt was ignored
  /// without a word.
  @Test(
    "unreadable rows in line order by column name; a rejected fix by its row; counts past the list; --until before the end said"
  )
  func problemsNameTheirRows() throws {
    let folder = TemporaryFolder()
    let t: Int64 = 1_700_000_200_000
    let header = "user,time_ms,latitude,longitude,received_ms,accuracy_m\n"
    let log = folder.write(
      "log.csv",
      header
        + [
          "1,\(t),48.1,11.6,\(t + 1_000),5",  // line 2: kept
          "1,\(t + 1_000).5,48.1,11.6,\(t + 2_000),5",  // line 3: time_ms not a whole number
          "1,\(t + 2_000),48.1,11.6,\(t + 3_000),5",  // line 4: kept
          "x,\(t + 3_000),48.1,11.6,\(t + 4_000),5",  // line 5: user not a number
          "4294967296,\(t + 4_000),48.1,11.6,\(t + 5_000),5",  // line 6: user past UInt32
          "1,\(t + 5_000),48.1,11.6,\(t + 6_000),-1",  // line 7: accuracy rejected by the server
        ].joined(separator: "\n") + "\n")
    let places = folder.write("none.geojson", #"{"type":"FeatureCollection","features":[]}"#)
    let replay = run(["geo", "replay", log, "--places", places])
    #expect(replay.code == 0, "\(replay.err)")
    let lines = replay.err.split(separator: "\n").map(String.init)
    let skipped = lines.filter { $0.hasSuffix("row skipped") }
    #expect(
      skipped == [
        "\(log):3:2 (time_ms): notANumber: \(t + 1_000).5; row skipped",
        "\(log):5:1 (user): notANumber: x; row skipped",
        "\(log):6 (user): not a user id (a whole number from 0 to 4294967295); row skipped",
      ], "\(replay.err)")
    #expect(
      lines.contains {
        $0.hasPrefix("\(log):7 (accuracy_m): upload ")
          && $0.hasSuffix("horizontalAccuracy: accuracyMissing; fix rejected")
      },
      "\(replay.err)")
    #expect(replay.err.contains("; 3 rows of the history unreadable") && !replay.err.contains("note:"))
    // --until before the last receipt: said, and the replay ends at the receipt.
    let until = run(["geo", "replay", log, "--places", places, "--until", "\(t + 5_999)"])
    #expect(
      until.code == 0
        && until.err.contains("note: --until \(t + 5_999) ms is before the last receipt (\(t + 6_000) ms)"),
      "\(until.err)")
    #expect(
      !run(["geo", "replay", log, "--places", places, "--until", "\(t + 6_000)"]).err.contains("note:"))
    // More unreadable rows than are listed: the rest counted; none readable: the file named.
    let bad = folder.write(
      "bad.csv",
      header
        + Array(repeating: "x,\(t),48.1,11.6,\(t),5", count: FileReport.detailLimit + 7).joined(
          separator: "\n"))
    let none = run(["geo", "replay", bad, "--places", places])
    #expect(none.code == 3, "\(none.err)")
    #expect(
      none.err.split(separator: "\n").filter { $0.hasSuffix("row skipped") }.count == FileReport.detailLimit)
    #expect(none.err.contains("… and 7 more unreadable rows, not listed"), "\(none.err.suffix(400))")
    #expect(
      none.err.contains(
        "bad input: \(bad): the history has no fixes (its \(FileReport.detailLimit + 7) rows could not be read: see above)"
      ),
      "\(none.err.suffix(400))")
  }

  /// review26 F3: a GPX or tracktable trace has no accuracy, every fix was
  /// rejected and the replay exited 0 with nothing on stdout.
  @Test(
    "a history whose every fix is rejected exits 3 saying nothing was replayed (and why, for missing accuracy); one fix kept, 0"
  )
  func everyFixRejected() throws {
    let folder = TemporaryFolder()
    let points = (0..<5).map { k in
      "<trkpt lat=\"48.13\(k)\" lon=\"11.6\"><time>2023-08-01T12:00:0\(k)Z</time></trkpt>"
    }
    let gpx = folder.write(
      "t.gpx", "<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\(points.joined())</trkseg></trk></gpx>")
    let places = folder.write("none.geojson", #"{"type":"FeatureCollection","features":[]}"#)
    let none = run(["geo", "replay", gpx, "--places", places])
    #expect(none.code == 3, "\(none.err)")
    #expect(
      none.err.contains(
        "t.gpx: every one of its 5 fixes was rejected or in an upload refused, nothing replayed (none carries an accuracy"
      ),
      "\(none.err)")
    // Every fix rejected for another reason: the same exit, no accuracy hint.
    let t: Int64 = 1_700_000_200_000
    let header = "user,time_ms,latitude,longitude,received_ms,speed_mps\n"
    let future = folder.write("future.csv", header + "1,\(t + 600_000),48.1,11.6,\(t),1\n")
    let late = run(["geo", "replay", future, "--places", places])
    let last = late.err.split(separator: "\n").last.map(String.init)
    #expect(
      late.code == 3
        && last
          == "hearth geo replay: bad input: \(future): every one of its 1 fixes was rejected or in an upload refused, nothing replayed",
      "\(late.err)")
    // Every upload refused whole (a latitude of 95), or one refused and the other's fix rejected (review27 R5).
    let refused = folder.write("refused.csv", header + "1,\(t - 1_000),95,11.6,\(t),1\n")
    let mixed = folder.write(
      "mixed.csv", header + "1,\(t - 1_000),95,11.6,\(t),1\n1,\(t + 900_000),48.1,11.6,\(t + 60_000),1\n")
    for history in [refused, mixed] {
      let result = run(["geo", "replay", history, "--places", places])
      #expect(result.code == 3 && result.err.contains("nothing replayed"), "\(result.err)")
    }
    // One of two kept: a replay.
    let one = folder.write(
      "one.csv", header + "1,\(t + 600_000),48.1,11.6,\(t),1\n1,\(t - 1_000),48.1,11.6,\(t),1\n")
    let kept = run(["geo", "replay", one, "--places", places])
    #expect(kept.code == 0 && kept.err.contains("rejected inFuture 1"), "\(kept.err)")
  }

  @Test("the built executable: version, exit codes and stderr")
  func executable() throws {
    func launch(_ words: [String]) throws -> (Int32, String, String) {
      let run = try BuiltExecutable.run("hearth", words)
      return (run.status, run.out, run.err)
    }
    let version = try launch(["--version"])
    #expect(version.0 == 0 && version.1.hasPrefix("hearth "))
    let usage = try launch(["geo", "replay"])
    #expect(usage.0 == 2 && usage.1.isEmpty && usage.2.contains("geo replay needs one PATH"))
    let drop = TestPaths.sharedDatasets.path + "/phone-drop-freefall/raw_data/fall_1"
    let detect = try launch(["impact", "detect", drop, "--format", "json"])
    #expect(detect.0 == 0, "\(detect.2)")
    let missing = try launch(["data", "inspect", "/nonexistent/x.gpx"])
    #expect(missing.0 == 3 && missing.2.contains("/nonexistent/x.gpx"))
  }
  @Test("--description gives places, circles and limits as the C ABI takes them; with --places it is refused")
  func description() throws {
    let folder = TemporaryFolder()
    #expect(run(["sim", "generate", "day", "--seed", "3", "--out", folder.path("d")]).code == 0)
    let places = run(["geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson")])
    // The generated day's person (user 1) in every circle of the places (all 0), limit 50 km/h: the same lines.
    let same =
      #"{"places_file": "\#(folder.path("d/places.geojson"))", "circles_of_person": {"1": [0]}, "speed_limits_kmh": {"0": 50}}"#
    try same.write(toFile: folder.path("same.json"), atomically: true, encoding: .utf8)
    let described = run(["geo", "replay", folder.path("d/trace"), "--description", folder.path("same.json")])
    #expect(described.code == 0 && described.out == places.out && !places.out.isEmpty, "\(described.err)")
    #expect(!described.err.contains("note:"), "\(described.err)")
    // A typo in the person's id: the same lines (user 1 sees every place)
    // without the alerts, and a note on each (review26 F8).
    let typo =
      #"{"places_file": "\#(folder.path("d/places.geojson"))", "circles_of_person": {"11": [0]}, "speed_limits_kmh": {"0": 50}}"#
    try typo.write(toFile: folder.path("typo.json"), atomically: true, encoding: .utf8)
    let noted = run(["geo", "replay", folder.path("d/trace"), "--description", folder.path("typo.json")])
    #expect(noted.code == 0 && !noted.out.contains(#""speedAlert""#), "\(noted.err)")
    #expect(noted.err.contains("note: user 1 not in circles_of_person"), "\(noted.err)")
    #expect(!noted.err.contains("note: speed_limits_kmh"), "\(noted.err)")
    // No speed limit in the description: no alerts, the rest as before.
    let unlimited =
      #"{"places_file": "\#(folder.path("d/places.geojson"))", "circles_of_person": {"1": [0]}}"#
    try unlimited.write(toFile: folder.path("unlimited.json"), atomically: true, encoding: .utf8)
    let noAlerts = run([
      "geo", "replay", folder.path("d/trace"), "--description", folder.path("unlimited.json"),
    ])
    #expect(
      noAlerts.code == 0 && !noAlerts.out.contains(#""speedAlert""#) && places.out.contains(#""speedAlert""#))
    let both = run([
      "geo", "replay", folder.path("d/trace"), "--places", folder.path("d/places.geojson"), "--description",
      folder.path("same.json"),
    ])
    #expect(both.code == 2 && both.err.contains("--description"))
  }
}
