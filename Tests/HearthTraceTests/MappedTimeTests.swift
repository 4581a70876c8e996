import Foundation
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// The time formats of column-mapped files (issue 18, "real files without
/// friction"): relative nanoseconds, times of day, fixed-rate files, an
/// origin for a relative clock, local times only with a zone; a time column
/// that does not parse is bad input; streams that overlap no other in time
/// are reported.
@Suite("Mapped times: formats real loggers write")
struct MappedTimeTests {
  /// A folder with `accel.csv` holding `rows` under `header`, mapped with `time` (JSON).
  static func accelerometer(
    _ header: String, _ rows: [String], time: String, extraFiles: String = ""
  ) -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write("accel.csv", header + "\n" + rows.joined(separator: "\n") + "\n")
    folder.write(
      "mapping.json",
      """
      {"name": "test", "units": "SI", "files": [{"file": "accel.csv", "time": \(time),
        "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}}}\(extraFiles)]}
      """)
    return folder
  }

  static func read(_ folder: TemporaryFolder, options: ReadOptions = ReadOptions()) throws -> (
    Trace, ImportReport
  ) {
    try TraceImport.read(path: folder.path, mappingPath: folder.path("mapping.json"), options: options)
  }

  static func seconds(_ trace: Trace) -> [Double] { trace.accelerometer?.samples.seconds ?? [] }

  /// The reason of the `TraceError` `body` throws, or nil when it throws none.
  static func failure(_ body: () throws -> Void) -> TraceError? {
    do {
      try body()
      return nil
    } catch let error as TraceError {
      return error
    } catch {
      return nil
    }
  }

  // MARK: relative nanoseconds

  @Test("relative nanoseconds (Android uptime): exact to the nanosecond, up to Int64.max")
  func relativeNanoseconds() throws {
    let folder = Self.accelerometer(
      "t,ax,ay,az",
      [
        "123456789012345678,0,0,9.8", "123456789022345678,0,0,9.8", "9223372036854775807,0,0,9.8",
        "1.5,0,0,9.8",
      ],
      time: #"{"column": "t", "format": "relative-nanoseconds"}"#)
    let (trace, report) = try Self.read(folder)
    // Whole seconds and the rest apart: the nearest Double to the exact value.
    #expect(Self.seconds(trace) == [123_456_789.012345678, 123_456_789.022345678, 9_223_372_036.854775807])
    #expect(trace.metadata.timeOriginMilliseconds == nil, "a relative clock alone has no absolute time")
    let rejection = try #require(report.files[0].rejections.first)
    #expect(rejection.reason == .badTime && rejection.location.line == 5)
    #expect(
      rejection.location.columnName == "t" && rejection.detail.contains("expected relative-nanoseconds"))
  }

  @Test("regression 2026-12-04: relative nanoseconds down to Int64.min are read, never a trap")
  func relativeNanosecondsAtInt64Min() throws {
    let folder = Self.accelerometer(
      "t,ax,ay,az",
      ["-9223372036854775808,0,0,9.8", "-9223372036000000001,0,0,9.8", "-1,0,0,9.8", "0,0,0,9.8"],
      time: #"{"column": "t", "format": "relative-nanoseconds"}"#)
    let (trace, report) = try Self.read(folder)
    #expect(report.files[0].rowsRejected == 0)
    #expect(Self.seconds(trace) == [-9_223_372_036.854775808, -9_223_372_036.000000001, -1e-9, 0])
  }

  @Test("an origin places a relative clock on the wall clock; fixes on it are allowed")
  func origin() throws {
    let folder = TemporaryFolder()
    folder.write("gps.csv", "t_ns,lat,lon\n5000000000,48.1,2.0\n6000000000,48.2,2.0\n")
    folder.write(
      "mapping.json",
      """
      {"name": "t", "units": "SI", "files": [{"file": "gps.csv",
        "time": {"column": "t_ns", "format": "relative-nanoseconds", "origin": "2024-05-01T10:00:00+02:00"},
        "fixes": {"latitude": {"column": "lat"}, "longitude": {"column": "lon"}}}]}
      """)
    let (trace, _) = try Self.read(folder)
    // 08:00:00Z + 5 s and + 6 s.
    #expect(trace.fixes.timeMilliseconds == [1_714_550_405_000, 1_714_550_406_000])
    #expect(trace.metadata.timeOriginMilliseconds == 1_714_550_405_000)
    // Without the origin, fixes on a relative clock are refused, as before.
    folder.write(
      "mapping.json",
      """
      {"name": "t", "units": "SI", "files": [{"file": "gps.csv", "time": {"column": "t_ns", "format": "relative-nanoseconds"},
        "fixes": {"latitude": {"column": "lat"}, "longitude": {"column": "lon"}}}]}
      """)
    let refused = Self.failure { _ = try Self.read(folder) }
    #expect(refused?.description.contains("\"origin\"") == true)
  }

  @Test("an origin must be an ISO time with an offset, on a relative clock only")
  func originRules() throws {
    for (time, words) in [
      (#"{"column": "t", "format": "relative-seconds", "origin": "2024-05-01T10:00:00"}"#, "with an offset"),
      (#"{"column": "t", "format": "relative-seconds", "origin": "yesterday"}"#, "with an offset"),
      (#"{"column": "t", "format": "relative-seconds", "origin": "2201-01-01T00:00:00Z"}"#, "1900–2200"),
      (
        #"{"column": "t", "format": "epoch-seconds", "origin": "2024-05-01T10:00:00Z"}"#,
        "places a relative clock"
      ),
    ] {
      let folder = Self.accelerometer("t,ax,ay,az", ["1,0,0,9.8"], time: time)
      let error = Self.failure { _ = try Self.read(folder) }
      #expect(error?.description.contains(words) == true, "\(time): \(String(describing: error))")
    }
    let placed = Self.accelerometer(
      "t,ax,ay,az", ["1.5,0,0,9.8", "2.5,0,0,9.8"],
      time: #"{"column": "t", "format": "relative-seconds", "origin": "2199-12-31T23:59:58Z"}"#)
    let (trace, report) = try Self.read(placed)
    // 2199-12-31T23:59:59.5Z is kept; 2200-01-01T00:00:00.5Z is not a wall-clock time.
    #expect(Self.seconds(trace) == [0] && report.files[0].rejectedByReason == [.badTime: 1])
  }

  // MARK: local times

  @Test("a local time needs a zone: refused without one, naming file, line and column")
  func localTimeNeedsZone() throws {
    // The local row first: read at +02:00 it is 08:00:01Z, two hours before
    // the Z row (the other order would put it beyond the 60 s reorder horizon).
    let folder = Self.accelerometer(
      "when,ax,ay,az", ["2024-05-01T10:00:01,0,0,9.8", "2024-05-01T10:00:00Z,0,0,9.8"],
      time: #"{"column": "when", "format": "iso8601"}"#)
    let error = try #require(Self.failure { _ = try Self.read(folder) })
    guard case .unsupported(let location, let reason) = error else {
      Issue.record("expected unsupported, got \(error)")
      return
    }
    #expect(location.file == "accel.csv" && location.line == 2 && location.columnName == "when")
    #expect(reason.contains("--timezone"))
    // With a zone (ReadOptions, as --timezone gives it) the local row is read in it; the Z row keeps its own.
    let (trace, _) = try Self.read(folder, options: ReadOptions(timeZone: TimeZoneRule("+02:00")))
    #expect(trace.metadata.timeOriginMilliseconds == 1_714_550_401_000)  // 08:00:01Z
    #expect(Self.seconds(trace) == [0, 7199])
    // Every row with an offset: no zone needed.
    let zoned = Self.accelerometer(
      "when,ax,ay,az", ["2024-05-01T10:00:00+02:00,0,0,9.8"],
      time: #"{"column": "when", "format": "iso8601"}"#)
    #expect(try Self.read(zoned).0.metadata.timeOriginMilliseconds == 1_714_550_400_000)
  }

  @Test("the mapping's timezone wins over ReadOptions'; an unknown zone is refused")
  func mappingZoneWins() throws {
    let folder = Self.accelerometer(
      "when,ax,ay,az", ["2024-01-15 12:00:00,0,0,9.8"],
      time: #"{"column": "when", "format": "iso8601", "timezone": "America/New_York"}"#)
    let (trace, _) = try Self.read(folder, options: ReadOptions(timeZone: TimeZoneRule("+02:00")))
    #expect(trace.metadata.timeOriginMilliseconds == 1_705_338_000_000)  // 17:00Z: EST is −5 h
    let unknown = Self.accelerometer(
      "when,ax,ay,az", ["2024-01-15 12:00:00,0,0,9.8"],
      time: #"{"column": "when", "format": "iso8601", "timezone": "Mars/Olympus"}"#)
    #expect(Self.failure { _ = try Self.read(unknown) }?.description.contains("Mars/Olympus") == true)
    let misplaced = Self.accelerometer(
      "when,ax,ay,az", ["1,0,0,9.8"],
      time: #"{"column": "when", "format": "epoch-seconds", "timezone": "UTC"}"#)
    #expect(Self.failure { _ = try Self.read(misplaced) }?.description.contains("timezone") == true)
  }

  @Test("time of day: on the mapping's date, in its zone, crossing midnight once")
  func timeOfDay() throws {
    // 2024-03-30 in Berlin is CET (+01:00); the rows run past midnight.
    let folder = Self.accelerometer(
      "clock,ax,ay,az",
      [
        "23:59:58.5,0,0,9.8", "23:59:58.25,0,0,9.8", "23:59:00,0,0,9.8", "00:00:00.5,0,0,9.8",
        "11:59:58,0,0,9.8",
        "25:00:00,0,0,9.8", "10:00,0,0,9.8",
      ],
      time:
        #"{"column": "clock", "format": "time-of-day", "date": "2024-03-30", "timezone": "Europe/Berlin"}"#)
    let (trace, report) = try Self.read(folder)
    // 23:59:00 is before the first row but less than 12 h: the same day, and
    // the earliest row, so the origin (2024-03-30T22:59:00Z; 58.5 s back, inside
    // the 60 s reorder horizon). 00:00:00.5 crosses midnight. 11:59:58 is over
    // 12 h before the first row: the next day (2024-03-31, CEST after 02:00,
    // +02:00), 09:59:58Z, 11 h 0 min 58 s after the origin.
    #expect(trace.metadata.timeOriginMilliseconds == 1_711_839_540_000)
    let expected: [Double] = [0, 58.25, 58.5, 60.5, 39_658]
    #expect(Self.seconds(trace) == expected)
    #expect(report.files[0].rejectedByReason == [.badTime: 2], "25:00:00 and 10:00 are no times of day")
  }

  @Test("time of day needs a date that reads")
  func timeOfDayDate() throws {
    for time in [
      #"{"column": "clock", "format": "time-of-day", "timezone": "UTC"}"#,
      #"{"column": "clock", "format": "time-of-day", "date": "2024-02-30", "timezone": "UTC"}"#,
    ] {
      let folder = Self.accelerometer("clock,ax,ay,az", ["10:00:00,0,0,9.8"], time: time)
      #expect(Self.failure { _ = try Self.read(folder) }?.description.contains("\"date\"") == true)
    }
    let dated = Self.accelerometer(
      "clock,ax,ay,az", ["10:00:00,0,0,9.8"],
      time: #"{"column": "when", "format": "iso8601", "date": "2024-02-01"}"#)
    #expect(Self.failure { _ = try Self.read(dated) }?.description.contains("time-of-day") == true)
  }

  @Test("zones: fixed offsets both sides of ±18:00; DST gap refused, repeated hour the earlier instant")
  func zones() throws {
    #expect(TimeZoneRule("+18:00") != nil && TimeZoneRule("-0530") != nil && TimeZoneRule("+02") != nil)
    for bad in ["+18:01", "+19:00", "+02:60", "02:00", "+2", "+02:0", "", "Not/AZone"] {
      #expect(TimeZoneRule(bad) == nil, "\(bad)")
    }
    #expect(TimeZoneRule("+18:00")?.utcMilliseconds(local: 18 * 3_600_000) == 0)
    #expect(TimeZoneRule("-05:30")?.utcMilliseconds(local: 0) == 19_800_000)
    let berlin = try #require(TimeZoneRule("Europe/Berlin"))
    let march31 = Int64(ISOTime.days(date: "2024-03-31") ?? 0) * 86_400_000
    #expect(berlin.utcMilliseconds(local: march31 + 2 * 3_600_000 + 1_800_000) == nil, "02:30 never happened")
    #expect(berlin.utcMilliseconds(local: march31 + 1 * 3_600_000 + 3_599_999) == march31 + 3_599_999)
    #expect(berlin.utcMilliseconds(local: march31 + 3 * 3_600_000) == march31 + 3_600_000)
    let october27 = Int64(ISOTime.days(date: "2024-10-27") ?? 0) * 86_400_000
    // 02:30 happened twice: at 00:30Z (CEST) and 01:30Z (CET); the earlier is taken.
    #expect(berlin.utcMilliseconds(local: october27 + 9_000_000) == october27 + 1_800_000)
    #expect(berlin.utcMilliseconds(local: october27 + 3 * 3_600_000) == october27 + 2 * 3_600_000)
    // Far from today: the table covers 1900–2200.
    let july2150 = Int64(ISOTime.days(date: "2150-07-01") ?? 0) * 86_400_000
    #expect(berlin.utcMilliseconds(local: july2150) == july2150 - 7_200_000)
  }

  @Test("ISO 8601 pieces: offsets kept apart from local times; the old reading unchanged")
  func isoPieces() throws {
    #expect(ISOTime.parse("2024-05-01T10:00:00.5")! == (1_714_557_600_500, nil))
    #expect(ISOTime.parse("2024-05-01 10:00:00-01:30")! == (1_714_557_600_000, -90))
    #expect(ISOTime.milliseconds("2024-05-01T10:00:00-01:30") == 1_714_563_000_000)
    #expect(ISOTime.milliseconds("2024-05-01T10:00:00") == 1_714_557_600_000, "no zone: UTC, as GPX reads it")
    #expect(ISOTime.timeOfDay("23:59:60.999Z")! == (86_400_999, 0))
    for bad in ["24:00:00", "10:60:00", "10:00", "10:00:00.", "10:00:00+19:00", "T10:00:00"] {
      #expect(ISOTime.timeOfDay(Substring(bad)) == nil, "\(bad)")
    }
    #expect(ISOTime.days(date: "1970-01-02") == 1 && ISOTime.days(date: "2024-02-29") != nil)
    #expect(ISOTime.days(date: "2023-02-29") == nil && ISOTime.days(date: "2024-05-01T") == nil)
  }

  // MARK: fixed rate

  @Test("a fixed-rate file: row k after the header at k / rate; a blank line is a missed sample")
  func fixedRate() throws {
    let folder = Self.accelerometer(
      "ax,ay,az", ["0,0,9.8", "0,0,9.8", "", "0,0,9.8", "0,0", "0,0,9.8"], time: #"{"rate_hz": 50}"#)
    let (trace, report) = try Self.read(folder)
    #expect(Self.seconds(trace) == [0, 0.02, 0.06, 0.1])
    #expect(report.files[0].rejectedByReason == [.wrongFieldCount: 1])
    // The rate from ReadOptions (--rate) when the mapping gives none; the mapping's wins.
    let bare = Self.accelerometer("ax,ay,az", ["0,0,9.8", "0,0,9.8"], time: "{}")
    #expect(Self.seconds(try Self.read(bare, options: ReadOptions(rateHertz: 4)).0) == [0, 0.25])
    #expect(
      Self.seconds(try Self.read(folder, options: ReadOptions(rateHertz: 4)).0) == [0, 0.02, 0.06, 0.1])
    let refused = Self.failure { _ = try Self.read(bare) }
    #expect(
      refused?.description.contains("rate_hz") == true && refused?.description.contains("accel.csv") == true)
    // With an origin the rows are on the wall clock.
    let placed = Self.accelerometer(
      "ax,ay,az", ["0,0,9.8", "0,0,9.8"], time: #"{"rate_hz": 10, "origin": "2024-05-01T08:00:00Z"}"#)
    let (onWall, _) = try Self.read(placed)
    #expect(onWall.metadata.timeOriginMilliseconds == 1_714_550_400_000 && Self.seconds(onWall) == [0, 0.1])
  }

  @Test("a rate is above 0 and at most 1 MHz; a time has a column or a rate, not both")
  func rateRules() throws {
    for time in [
      #"{"rate_hz": 0}"#, #"{"rate_hz": -5}"#, #"{"rate_hz": 1000001}"#, #"{"rate_hz": 1e400}"#,
      #"{"column": "ax", "format": "relative-seconds", "rate_hz": 10}"#, #"{"format": "relative-seconds"}"#,
    ] {
      let folder = Self.accelerometer("ax,ay,az", ["0,0,9.8"], time: time)
      #expect(Self.failure { _ = try Self.read(folder) } != nil, "\(time)")
    }
    let fastest = Self.accelerometer("ax,ay,az", ["0,0,9.8", "0,0,9.8"], time: #"{"rate_hz": 1000000}"#)
    #expect(Self.seconds(try Self.read(fastest).0) == [0, 1e-6])
  }

  // MARK: bad time columns

  @Test("a time column that does not parse is bad input: file, line, column, what was expected")
  func timeColumnDoesNotParse() throws {
    let folder = Self.accelerometer(
      "time,ax,ay,az", ["2024-05-01 10:00:00,0,0,9.8", "2024-05-01 10:00:01,0,0,9.8"],
      time: #"{"column": "time", "format": "epoch-seconds"}"#)
    let error = try #require(Self.failure { _ = try Self.read(folder) })
    guard case .malformed(let location, let reason) = error else {
      Issue.record("expected malformed, got \(error)")
      return
    }
    #expect(
      location.file == "accel.csv" && location.line == 2 && location.column == 1
        && location.columnName == "time")
    #expect(reason.contains("2 rows") && reason.contains("expected epoch-seconds"))
    // Streamed: the same error before any chunk.
    #expect(
      Self.failure {
        _ = try TraceImport.stream(path: folder.path, mappingPath: folder.path("mapping.json")).readAll()
      } == error)
    // One row that reads: not a failure of the column, the other row is a counted rejection.
    let one = Self.accelerometer(
      "time,ax,ay,az", ["2024-05-01 10:00:00,0,0,9.8", "1714557600,0,0,9.8"],
      time: #"{"column": "time", "format": "epoch-seconds"}"#)
    let (trace, report) = try Self.read(one)
    #expect(Self.seconds(trace) == [0] && report.files[0].rejectedByReason == [.badTime: 1])
    #expect(report.files[0].rejections.first?.detail == "'2024-05-01 10:00:00': expected epoch-seconds")
  }

  @Test("in a folder import, a file whose times all fail is skipped with the reason, its rows counted")
  func folderImportTimeFailure() throws {
    let folder = TemporaryFolder()
    folder.write(
      "Accelerometer.csv",
      "time,seconds_elapsed,z,y,x\n1700000000000000000,x,1,2,3\n1700000000000000000,y,1,2,3\n")
    folder.write("Gyroscope.csv", "time,seconds_elapsed,z,y,x\n1700000000000000000,0,0.1,0.1,0.1\n")
    for (trace, report) in [
      try TraceImport.read(path: folder.path), try TraceImport.stream(path: folder.path).readAll(),
    ] {
      let accelerometer = try #require(report.file(endingWith: "Accelerometer.csv"))
      #expect(
        accelerometer.rowsRead == 2 && accelerometer.rejectedByReason == [.badTime: 2]
          && accelerometer.reconciles)
      #expect(accelerometer.skippedBecause?.contains("seconds_elapsed") == true)
      #expect(trace.accelerometer == nil && trace.gyroscope?.count == 1)
    }
  }

  // MARK: streams apart in time

  @Test("streams that overlap no other in time are reported; touching ones are not")
  func nonOverlapping() throws {
    func report(gravityStart: Double, barometer: Bool = false) throws -> ImportReport {
      let folder = TemporaryFolder()
      folder.write("accel.csv", "t,ax,ay,az\n0,0,0,1\n10,0,0,1\n")
      folder.write("gravity.csv", "t,gx,gy,gz\n\(gravityStart),0,0,9.8\n\(gravityStart + 10),0,0,9.8\n")
      folder.write("baro.csv", "t,p\n0,1000\n\(gravityStart + 5),1000\n")
      folder.write(
        "mapping.json",
        """
        {"name": "t", "units": "SI", "files": [
          {"file": "accel.csv", "time": {"column": "t", "format": "relative-seconds"},
           "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}, "content": "excludesGravity"}},
          {"file": "gravity.csv", "time": {"column": "t", "format": "relative-seconds"},
           "gravity": {"x": {"column": "gx"}, "y": {"column": "gy"}, "z": {"column": "gz"}}}
          \(barometer ? #", {"file": "baro.csv", "time": {"column": "t", "format": "relative-seconds"}, "barometer": {"pressure": {"column": "p"}}}"# : "")]}
        """)
      let whole = try TraceImport.read(path: folder.path, mappingPath: folder.path("mapping.json")).1
      let streamed = try TraceImport.stream(path: folder.path, mappingPath: folder.path("mapping.json"))
        .readAll().1
      #expect(whole == streamed, "streamed and whole reports differ")
      return whole
    }
    let apart = try report(gravityStart: 3600)
    #expect(apart.nonOverlappingStreams.map(\.stream) == ["accelerometer (excludesGravity)", "gravity"])
    #expect(apart.timeWarnings.count == 2 && apart.timeWarnings[1].hasPrefix("gravity 3600.000…3610.000 s"))
    #expect(try report(gravityStart: 10).nonOverlappingStreams.isEmpty, "sharing the instant 10 s")
    #expect(try report(gravityStart: 10.001).nonOverlappingStreams.count == 2)
    // A barometer spanning both overlaps each: no stream is apart from all others.
    #expect(try report(gravityStart: 3600, barometer: true).nonOverlappingStreams.isEmpty)
    let single = Self.accelerometer(
      "t,ax,ay,az", ["0,0,0,9.8"], time: #"{"column": "t", "format": "relative-seconds"}"#)
    #expect(try Self.read(single).1.nonOverlappingStreams.isEmpty)
  }

  // MARK: streamed == whole

  @Test("the new formats stream like they read, for any chunk size", arguments: [1, 7, 4096])
  func streamedEqualsWhole(samples: Int) throws {
    let folder = TemporaryFolder()
    var clock = "clock,ax,ay,az\n"
    var uptime = "t_ns,gx,gy,gz\n"
    var fixed = "p\n"
    for i in 0..<120 {
      let k = (i * 37) % 120  // shuffled
      let ms = 86_340_000 + k * 1000  // 23:59:00 + k s, across midnight
      let hms = String(
        format: "%02d:%02d:%02d.%03d", (ms / 3_600_000) % 24, (ms / 60_000) % 60, (ms / 1000) % 60, ms % 1000)
      clock += "\(hms),0.1,0.2,\(9.7 + Double(i % 3) * 0.1)\n"
      uptime += "\(90_000_000_000_000 + Int64(k) * 500_000_000),0,0,9.8\n"
      fixed += i % 17 == 5 ? "\n" : "\(1000 + Double(i % 4) * 0.25)\n"
    }
    folder.write("clock.csv", clock)
    folder.write("uptime.csv", uptime)
    folder.write("fixed.csv", fixed)
    folder.write(
      "mapping.json",
      """
      {"name": "t", "units": "SI", "files": [
        {"file": "clock.csv", "time": {"column": "clock", "format": "time-of-day", "date": "2024-06-30"},
         "accelerometer": {"x": {"column": "ax"}, "y": {"column": "ay"}, "z": {"column": "az"}}},
        {"file": "uptime.csv", "time": {"column": "t_ns", "format": "relative-nanoseconds", "origin": "2024-06-29T20:59:00Z"},
         "gravity": {"x": {"column": "gx"}, "y": {"column": "gy"}, "z": {"column": "gz"}}},
        {"file": "fixed.csv", "time": {"rate_hz": 2, "origin": "2024-06-30T21:59:30Z"}, "barometer": {"pressure": {"column": "p"}}}]}
      """)
    let options = ReadOptions(timeZone: TimeZoneRule("Europe/Paris"))
    let whole = try TraceImport.read(
      path: folder.path, mappingPath: folder.path("mapping.json"), options: options)
    let stream = try TraceImport.stream(
      path: folder.path, mappingPath: folder.path("mapping.json"), options: options)
    var trace = Trace(metadata: stream.metadata)
    let report = try stream.forEachChunk(samples: samples) { trace.append($0.trace) }
    #expect(whole.0.matches(trace) && whole.1 == report)
    // 23:59:00 CEST on 2024-06-30 is 21:59:00Z; the clock file runs 120 s across midnight.
    #expect(whole.0.metadata.timeOriginMilliseconds == 1_719_784_740_000)
    #expect(
      whole.0.accelerometer?.samples.seconds.first == 0 && whole.0.accelerometer?.samples.seconds.last == 119)
    #expect(whole.1.files.allSatisfy(\.reconciles) && whole.1.nonOverlappingStreams.isEmpty)
  }
}
