import Foundation
import HearthSim
import Testing
import _HearthTestSupport

@testable import HearthTrace

/// The streaming orderer against the plain one: a file's rows in time order
/// with repeats rejected must come out the same whether the whole file is
/// sorted at once or streamed through a buffer no deeper than its horizon,
/// however the rows are cut into blocks.
///
/// Seeded; `HEARTH_SEED` picks another seed for a longer hunt.
@Suite("Rows in time order: streamed through the horizon == sorted whole")
struct RowOrdererTests {
  static let seed = ProcessInfo.processInfo.environment["HEARTH_SEED"].flatMap(UInt64.init) ?? 16

  /// A file of `n` rows: mostly in order, some late by up to `lateness` s,
  /// some repeated exactly, some sharing a time with different values.
  func rows(_ n: Int, lateness: Double, generator: inout SeededGenerator) -> RowBlock {
    var block = RowBlock(columnCount: 2)
    var t = 0.0
    for i in 0..<n {
      t += [0, 0.01, 0.01, 0.02][Int(generator.nextUnit() * 4) % 4]
      var key = t
      if generator.nextUnit() < 0.1 { key -= generator.nextDouble(in: 0, lateness) }
      let value = generator.nextUnit() < 0.5 ? 1.0 : Double(i % 3)
      let previous = block.count - 1
      let repeats = generator.nextUnit() < 0.1 && previous >= 0
      block.keys.append(repeats ? block.keys[previous] : key)
      block.lines.append(UInt32(i + 2))
      block.columns[0].append(repeats ? block.columns[0][previous] : value)
      block.columns[1].append(repeats ? block.columns[1][previous] : (value == 1 ? .nan : 0))
    }
    return block
  }

  func split(_ block: RowBlock, sizes: inout SeededGenerator) -> [RowBlock] {
    var rest = block
    var parts: [RowBlock] = []
    while !rest.isEmpty {
      let n = min(rest.count, 1 + Int(sizes.nextUnit() * 40))
      parts.append(rest.removeFirst(n))
    }
    return parts
  }

  func describe(_ b: RowBlock) -> String {
    (0..<b.count).map { "(\(b.keys[$0]), \(b.columns[0][$0]), line \(b.lines[$0]))" }.joined(separator: " ")
  }

  @Test("random files, random cuts, both duplicate rules: identical rows, reports and counts")
  func agreesWithSortingWhole() {
    var generator = SeededGenerator(seed: Self.seed)
    for trial in 0..<300 {
      let n = 1 + Int(generator.nextUnit() * 120)
      let lateness = [0.0, 0.005, 0.05, 1, 100][trial % 5]  // 100 s: some rows too late
      let file = rows(n, lateness: lateness, generator: &generator)
      for rule in [DuplicateRule.sameKey, .sameKeyAndValues] {
        var whole = file
        var wholeReport = FileReport(file: "f")
        wholeReport.rowsKept = n
        whole.finish(rule: rule, report: &wholeReport)
        var survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds)
        survey.add(file.keys)
        var orderer = RowOrderer(columnCount: 2, horizon: survey.horizon, rule: rule)
        var streamed = RowBlock(columnCount: 2)
        var streamReport = FileReport(file: "f")
        streamReport.rowsKept = n
        for part in split(file, sizes: &generator) {
          streamed.append(contentsOf: orderer.push(part, report: &streamReport))
        }
        streamed.append(contentsOf: orderer.finish(report: &streamReport))
        wholeReport.settle()
        streamReport.settle()
        let same =
          streamed.keys == whole.keys && streamed.lines == whole.lines
          && zip(streamed.columns[1], whole.columns[1]).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
          && streamed.columns[0] == whole.columns[0]
        // The survey's earliest key is the earliest row kept (what sets a file's origin).
        #expect(survey.earliestKey == whole.keys.first, "seed \(Self.seed) trial \(trial)")
        #expect(
          same && streamReport == wholeReport,
          "seed \(Self.seed) trial \(trial) \(rule): file \(describe(file))\nwhole \(describe(whole))\nstreamed \(describe(streamed))"
        )
        if !same { return }
      }
    }
  }

  @Test("a file in time order passes straight through; an out-of-order one waits no deeper than its horizon")
  func horizon() {
    var inOrder = RowBlock(columnCount: 1)
    for i in 0..<1000 { inOrder.append(key: Double(i) * 0.01, line: i + 2, 0) }
    var survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds)
    survey.add(inOrder.keys)
    #expect(survey.horizon == 0 && survey.earliestKey == 0 && survey.rows == 1000)
    var orderer = RowOrderer(columnCount: 1, horizon: 0, rule: .sameKeyAndValues)
    var report = FileReport(file: "f")
    #expect(orderer.push(inOrder, report: &report).count == 1000, "nothing held back")
    // One row 0.5 s late: the horizon is 0.5 s and only rows inside it wait.
    var late = inOrder
    late.keys[600] -= 0.5
    survey = FileSurvey(lateLimit: RowOrderer.maximumReorderSeconds)
    survey.add(late.keys)
    #expect(abs(survey.horizon - 0.49) < 1e-9, "\(survey.horizon)")
    orderer = RowOrderer(columnCount: 1, horizon: survey.horizon, rule: .sameKeyAndValues)
    let out = orderer.push(late, report: &report)
    #expect(out.count >= 1000 - 52 && out.count < 1000, "\(out.count) of 1000 out before the end")
  }
}
