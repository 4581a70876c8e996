import Foundation
import HearthSim
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// review26 F5: one row dated far ahead became the newest time of its file,
/// so every later row was more than 60 s behind it and rejected: a recording
/// of an hour kept a second of it, and the detector said "no jolt". Now a
/// jump ahead is held until the rows after it say whether the file went on
/// from it (``ArrivalRule``), the same whether a file is sorted whole,
/// surveyed or streamed.
@Suite("A lone row far ahead is rejected; the rows after it are kept")
struct LoneJumpTests {
  struct Outcome: Equatable {
    var kept: [Double]
    var rejectedLines: [Int]
    var reordered: Int
    var earliestKey: Double?
  }

  /// `keys` as one file's rows (line = index + 2, value = index, so no row
  /// repeats another), read whole and streamed in blocks of 1, 3 and 64.
  /// Records an issue unless all agree.
  static func read(_ keys: [Double], limit: Double = RowOrderer.maximumReorderSeconds) -> Outcome {
    var block = RowBlock(columnCount: 1)
    for (i, t) in keys.enumerated() { block.append(key: t, line: i + 2, Double(i)) }
    var wholeReport = FileReport(file: "f")
    wholeReport.rowsRead = keys.count
    wholeReport.rowsKept = keys.count
    var whole = block
    whole.finish(
      rule: .sameKeyAndValues, keysPerSecond: limit / RowOrderer.maximumReorderSeconds, report: &wholeReport)
    wholeReport.settle()
    var survey = FileSurvey(lateLimit: limit)
    survey.add(keys)
    let outcome = Outcome(
      kept: whole.keys, rejectedLines: wholeReport.rejections.map(\.location.line).sorted(),
      reordered: wholeReport.reorderedRows, earliestKey: survey.earliestKey)
    #expect(outcome.earliestKey == whole.keys.min(), "keys \(keys)")
    for size in [1, 3, 64] {
      // The survey fed in blocks (its opening rows split across them) says the same.
      var split = FileSurvey(lateLimit: limit)
      var next = 0
      while next < keys.count {
        split.add(Array(keys[next..<min(next + size, keys.count)]))
        split.add([])
        next += size
      }
      #expect(
        split.earliestKey == survey.earliestKey && split.horizon == survey.horizon,
        "survey in blocks of \(size), keys \(keys)")
      var orderer = RowOrderer(
        columnCount: 1, horizon: survey.horizon, rule: .sameKeyAndValues,
        keysPerSecond: limit / RowOrderer.maximumReorderSeconds)
      var report = FileReport(file: "f")
      report.rowsRead = keys.count
      report.rowsKept = keys.count
      var rest = block
      var streamed = RowBlock(columnCount: 1)
      while !rest.isEmpty {
        streamed.append(contentsOf: orderer.push(rest.removeFirst(min(size, rest.count)), report: &report))
      }
      streamed.append(contentsOf: orderer.finish(report: &report))
      report.settle()
      #expect(
        streamed.keys == whole.keys && streamed.lines == whole.lines && report == wholeReport,
        "blocks of \(size), keys \(keys): streamed \(streamed.keys), whole \(whole.keys)")
    }
    #expect(wholeReport.reconciles)
    return outcome
  }

  static func seconds(_ range: Range<Int>) -> [Double] { range.map(Double.init) }

  @Test("one row years ahead in the middle of a file: that row alone is rejected, as a lone jump ahead")
  func loneRowAhead() {
    let keys = Self.seconds(0..<100) + [3e9] + Self.seconds(100..<200)
    let outcome = Self.read(keys)
    #expect(outcome.kept == Self.seconds(0..<200) && outcome.rejectedLines == [102] && outcome.reordered == 0)
    var block = RowBlock(columnCount: 1)
    for (i, t) in keys.enumerated() { block.append(key: t, line: i + 2, 0) }
    var report = FileReport(file: "f")
    report.rowsRead = keys.count
    report.rowsKept = keys.count
    block.finish(rule: .sameKey, report: &report)
    let rejection = report.rejections.first
    #expect(
      rejection?.reason == .outOfOrder
        && rejection?.detail == "a lone jump more than 60 s ahead of the rows before and after")
  }

  @Test("the second row or the third, years ahead or far back: that row rejected, the file kept")
  func strayNearTheStart() {
    for stray in [3e9, -3e9] {
      let second = Self.read([0, stray] + Self.seconds(1..<50))
      #expect(second.kept == Self.seconds(0..<50) && second.rejectedLines == [3], "second row at \(stray)")
    }
    // review28 F1: a row dated far back among the first rows is the stray, not the rows before it.
    let third = Self.read([1000, 1001, 0] + Self.seconds(1002..<1020))
    #expect(third.kept == Self.seconds(1000..<1020) && third.rejectedLines == [4])
  }

  @Test(
    "a first row more than 60 s ahead of every row of the 64 after it (of all, from 8 on) is rejected; one row near it keeps it"
  )
  func firstRowAhead() {
    let rest = Self.seconds(0..<100)
    // Before, the first row was kept whatever its time, and every row after one dated years
    // ahead was too late: the file kept one row.
    let yearsAhead = Self.read([3e9] + rest)
    #expect(yearsAhead.kept == rest && yearsAhead.rejectedLines == [2] && yearsAhead.earliestKey == 0)
    // 60.001 s ahead of the 64th row after it (at 63): rejected. Exactly 60 s: kept, the rows
    // within 60 s of it put before it, the ones further back too late as before.
    let past60 = Self.read([123.001] + rest)
    #expect(past60.kept == rest && past60.rejectedLines == [2])
    let at60 = Self.read([123] + rest)
    #expect(at60.kept == Self.seconds(63..<100) + [123] && at60.rejectedLines == Array(3..<66))
    // A good first fix, then a run of stale rows (cached fixes an hour old, placeholders dated
    // 1970: review31, review34), then the file goes on near the first fix: the run is too late,
    // the first fix stays. 63 stale rows and the 64th near it, or 8, or 2.
    let good = Self.seconds(3601..<3700)
    for run in [2, 8, 63] {
      let cached = Self.read([3600] + Array(repeating: 0, count: run) + good)
      #expect(cached.kept == [3600] + good && cached.rejectedLines == Array(3..<(3 + run)), "run of \(run)")
      let placeholders = Self.read([1.7e9] + (0..<run).map(Double.init) + (1..<50).map { 1.7e9 + Double($0) })
      #expect(placeholders.rejectedLines == Array(3..<(3 + run)) && placeholders.earliestKey == 1.7e9)
    }
    // 64 of them: the first row goes (the trade the 64-row look-ahead makes).
    let long = Self.read([3600] + Self.seconds(0..<64) + good)
    #expect(long.rejectedLines == [2] && long.earliestKey == 0)
    // A file of nine rows is judged by its eight; of eight rows, it keeps its first row.
    let nine = Self.read([3e9] + Self.seconds(0..<8))
    #expect(nine.kept == Self.seconds(0..<8) && nine.rejectedLines == [2])
    #expect(Self.read([3e9] + Self.seconds(0..<7)).kept == [3e9])
    #expect(Self.read([3e9]).kept == [3e9] && Self.read([]).kept.isEmpty)
    // A first row dated 1900 is behind the rows after it, not ahead: kept (review28 F1).
    let old = Self.read([-2.2e9] + rest)
    #expect(old.kept == [-2.2e9] + rest && old.rejectedLines.isEmpty)
    // Years ahead, then a row far back among the rows after it: the first row goes, and the
    // rule then judges the rest as a file of its own (its first row, 1900, kept, as above).
    let both = Self.read([3e9, -3e9] + rest)
    #expect(both.kept == [-3e9] + rest && both.rejectedLines == [2])
    // Under an infinite limit (a file kept in its own order) nothing is rejected.
    let unlimited = Self.read([3e9] + rest, limit: .infinity)
    #expect(unlimited.kept == rest + [3e9] && unlimited.rejectedLines.isEmpty)
  }

  @Test(
    "a row exactly 60 s ahead is an ordinary row; 60 s + 1 ms ahead is held, and dropped when two rows go back"
  )
  func jumpThreshold() {
    // Exactly 60 s ahead of 9: kept, so a row at 8.5 is then too late.
    let at60 = Self.read(Self.seconds(0..<10) + [69, 8.5])
    #expect(at60.kept == Self.seconds(0..<10) + [69] && at60.rejectedLines == [13])
    // 60.001 s ahead: held; 8.5 and 8.9 are more than 60 s behind it and go on from 9.
    let past60 = Self.read(Self.seconds(0..<10) + [69.001, 8.5, 8.9])
    #expect(past60.kept == (Self.seconds(0..<10) + [8.5, 8.9]).sorted() && past60.rejectedLines == [12])
    // One row going back alone overrules nothing: it is too late itself.
    let alone = Self.read(Self.seconds(0..<10) + [69.001, 8.5])
    #expect(alone.kept == Self.seconds(0..<10) + [69.001] && alone.rejectedLines == [13])
    // A row within 60 s of both goes on from the held row: nothing is dropped.
    let between = Self.read(Self.seconds(0..<10) + [69.001] + Self.seconds(10..<20))
    #expect(between.rejectedLines.isEmpty && between.reordered == 10)
  }

  @Test(
    "after a jump, two rows in a row more than 60 s behind it drop it; one alone, or one too late for the rows before, is only too late"
  )
  func dropThreshold() {
    // Kept up to 100; 200 is held.
    let base = Self.seconds(90..<101) + [200]
    // 140 is exactly 60 s behind it: it goes on from it, and it is kept.
    let near = Self.read(base + [140])
    #expect(
      near.kept == Self.seconds(90..<101) + [140, 200] && near.rejectedLines.isEmpty && near.reordered == 1)
    // 139.999 is more than 60 s behind, and so is the next row: 200 was a lone row.
    let dropped = Self.read(base + [139.999, 139.9995])
    #expect(dropped.kept == Self.seconds(90..<101) + [139.999, 139.9995] && dropped.rejectedLines == [13])
    // The next row goes on from 200 instead, or the file ends: 139.999 alone was the stray.
    let stray = Self.read(base + [139.999, 201])
    #expect(stray.kept == base + [201] && stray.rejectedLines == [14])
    #expect(Self.read(base + [139.999]).rejectedLines == [14])
    // review29 F3: a second row near the first but too late for the rows kept (39.5 < 100 − 60)
    // is too late itself and drops nothing; the end then rejects the first.
    let late = Self.read(base + [41, 39.5])
    #expect(late.kept == base && late.rejectedLines == [14, 15])
  }

  @Test(
    "two rows going on from a jump are where the file's clock went: what comes back is too late, as before")
  func twoRowsAhead() {
    let before = Self.seconds(0..<10)
    let after = Self.seconds(10..<20)
    let outcome = Self.read(before + [1000, 1001] + after)
    #expect(outcome.kept == before + [1000, 1001] && outcome.rejectedLines == Array(14..<24))
    // review29 F4, left open: two stray rows in a row, each a jump, are two rows.
    let twoStrays = Self.read(before + [1e8, 2e8] + after)
    #expect(twoStrays.kept == before + [1e8, 2e8] && twoStrays.rejectedLines == Array(14..<24))
  }

  @Test("review28 F3: one stale row after a real pause in logging costs itself, not the rows after the pause")
  func staleRowAfterAPause() {
    let before = Self.seconds(0..<30)
    let after = Self.seconds(100..<120)
    let outcome = Self.read(before + after.prefix(13) + [29.5] + after.dropFirst(13))
    #expect(outcome.kept == before + after && outcome.rejectedLines == [45])
  }

  @Test("review28 F3, review29 F2: two clocks interleaved keep the one most rows are on, as before")
  func interleavedClocks() {
    // Every 17th row, the first included, on a clock 1000 s behind the rest
    // (review28's file): the first row is kept, the jump after it held and
    // kept by the row after it, the rest of the slow clock too late.
    let behind: (Int) -> Bool = { $0 % 17 == 0 }
    let keys: [Double] = (0..<340).map { i in Double(i) * 0.005 + (behind(i) ? 0 : 1000) }
    let outcome = Self.read(keys)
    let ahead: [Double] = keys.filter { $0 >= 1000 }
    let strayLines: [Int] = keys.indices.filter(behind).dropFirst().map { $0 + 2 }
    #expect(outcome.kept == [0] + ahead)
    #expect(outcome.rejectedLines == strayLines)
  }

  @Test("a pause in logging, a step of the clock ahead and a jump on the last row lose nothing")
  func realJumpsKept() {
    let paused = Self.seconds(0..<30) + Self.seconds(600..<700)
    #expect(Self.read(paused).kept == paused)
    let stepped = Self.seconds(0..<30) + Self.seconds(3630..<3640) + Self.seconds(3640..<3700).reversed()
    let outcome = Self.read(stepped)
    #expect(outcome.kept == stepped.sorted() && outcome.rejectedLines.isEmpty)
    #expect(Self.read(Self.seconds(0..<30) + [9e9]).kept == Self.seconds(0..<30) + [9e9])
    // A second jump ahead of a held one keeps the first and holds itself.
    let twice = Self.read(Self.seconds(0..<5) + [100, 200] + Self.seconds(101..<110))
    #expect(twice.kept == Self.seconds(0..<5) + [100] + Self.seconds(101..<110) && twice.rejectedLines == [8])
  }

  @Test("fix milliseconds: the same rule at 1000 keys per second")
  func milliseconds() {
    let ms = (0..<50).map { 1_700_000_000_000 + Double($0) * 1000 }
    let outcome = Self.read(Array(ms[..<20]) + [4_000_000_000_000] + Array(ms[20...]), limit: 60_000)
    #expect(outcome.kept == ms && outcome.rejectedLines == [22])
  }

  @Test(
    "a Sensor Logger recording with one row dated years ahead, mid-file or first, keeps every other row, whole and streamed",
    arguments: [40, 0])
  func throughTheReader(strayIndex: Int) throws {
    var rows = (0..<5000).map { Double($0) * 0.02 }
    rows[strayIndex] = 2.3e9  // 2096
    let folder = ReorderHorizonTests.folder(seconds: rows)
    let (whole, wholeReport) = try TraceImport.read(path: folder.path)
    let stream = try TraceImport.stream(path: folder.path)
    var seconds: [Double] = []
    let streamedReport = try stream.forEachChunk(samples: 333) {
      seconds += $0.trace.accelerometer?.samples.seconds ?? []
    }
    let file = try #require(wholeReport.file(endingWith: "TotalAcceleration.csv"))
    #expect(
      file.rowsKept == 4999 && file.rejectedByReason == [.outOfOrder: 1]
        && file.rejections.first?.location.line == strayIndex + 2)
    #expect(seconds == whole.accelerometer?.samples.seconds && streamedReport == wholeReport)
    #expect(seconds.count == 4999 && seconds.last.map { abs($0 - 99.98) < 1e-9 } == true)
  }

  // MARK: - Against a plain model of the rule

  /// A file's keys, shrunk by dropping rows and rounding keys.
  struct Keys: Shrinkable, CustomStringConvertible {
    var keys: [Double]
    var shrinkCandidates: [Keys] {
      var out = keys.indices.map { i in Keys(keys: keys.enumerated().filter { $0.offset != i }.map(\.element))
      }
      let rounded = keys.map { $0.rounded() }
      if rounded != keys { out.append(Keys(keys: rounded)) }
      return out
    }
    var description: String { "\(keys)" }
  }

  /// The rule as ``ArrivalRule`` states it, written plainly over lists:
  /// the lines of the rows it rejects, in file order.
  static func model(_ keys: [Double], limit: Double) -> [Int] {
    var kept: [Double] = []
    var jump: Int?
    var rival: Int?
    var rejected: [Int] = []
    func newest() -> Double { kept.max() ?? -.infinity }
    // The first row, more than `limit` ahead of every row of the 64 after it (of all of them,
    // at least 8), goes first.
    var start = 0
    if keys.count >= 9 && keys[1..<min(keys.count, 65)].allSatisfy({ $0 < keys[0] - limit }) {
      rejected.append(0)
      start = 1
    }
    func judge(_ i: Int) {
      if !kept.isEmpty && keys[i] > newest() + limit {
        jump = i
      } else if keys[i] < newest() - limit {
        rejected.append(i)
      } else {
        kept.append(keys[i])
      }
    }
    for (i, t) in keys.enumerated().dropFirst(start) {
      guard let j = jump else {
        judge(i)
        continue
      }
      if let r = rival {
        if abs(t - keys[j]) <= limit {
          rejected.append(r)
          rival = nil
        } else if t < newest() - limit {
          rejected.append(i)
          continue
        } else if abs(t - keys[r]) <= limit {
          // Two rows in a row against the jump: it goes, the rival stays.
          rejected.append(j)
          kept.append(keys[r])
          (jump, rival) = (nil, nil)
          judge(i)
          continue
        } else {
          rejected.append(r)
          rival = nil
        }
      }
      if t >= keys[j] - limit {
        kept.append(keys[j])
        jump = nil
        judge(i)
      } else if t < newest() - limit {
        rejected.append(i)
      } else {
        rival = i
      }
    }
    if let r = rival { rejected.append(r) }
    return rejected.map { $0 + 2 }.sorted()
  }

  @Test(
    "random files of jumps ahead and behind near 60 s, lone and in runs, stale rows: the rule == its plain model"
  )
  func agreesWithTheModel() {
    let failure = PropertyCheck.run(
      "arrival rule == model", cases: PropertyCampaign.cases(default: 400),
      generator: { SeededGenerator(seed: $0) },
      generate: { random -> Keys in
        var keys: [Double] = []
        var t = 0.0
        let n = 1 + Int(random.nextUnit() * 120)
        let opening = random.nextUnit()
        if opening < 0.15 {  // a first row ahead of the file, or far behind it
          keys.append([61.0, 3e9, -61, -3e9][Int(random.nextUnit() * 4) % 4])
        } else if opening < 0.3 {  // a good first row, then a run of stale rows, 5 to 70 of them
          keys.append(0)
          let stale = [-61.0, -3600, -1.7e9][Int(random.nextUnit() * 3) % 3]
          for k in 0..<(5 + Int(random.nextUnit() * 66)) { keys.append(stale + Double(k) * 0.5) }
        }
        while keys.count < n {
          let u = random.nextUnit()
          if u < 0.08 {  // a jump ahead, sometimes back again
            let jump = [59.0, 60, 61, 300, 3e9][Int(random.nextUnit() * 5) % 5]
            let run = 1 + Int(random.nextUnit() * 20)
            for k in 0..<run { keys.append(t + jump + Double(k)) }
            if random.nextUnit() < 0.3 { t += jump + Double(run) }
          } else if u < 0.1 {  // a row far back
            keys.append(t - [61.0, 1e4, 3e9][Int(random.nextUnit() * 3) % 3])
          } else if u < 0.14 {  // a row behind
            keys.append(t - [30.0, 60, 61, 1e4][Int(random.nextUnit() * 4) % 4])
          } else {
            t += [0, 0.5, 1, 2][Int(random.nextUnit() * 4) % 4]
            keys.append(t)
          }
        }
        return Keys(keys: keys)
      },
      check: { c in
        let expected = Self.model(c.keys, limit: 60)
        let got = Self.read(c.keys).rejectedLines
        return got == expected ? nil : "rejected lines \(got), the model's \(expected)"
      })
    #expect(failure == nil, "\(failure ?? "")")
  }
}
