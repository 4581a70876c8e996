import Foundation
import HearthSim
import HearthTrace

/// The self-contained HTML report of `hearth impact sweep`: inline CSS and
/// SVG, no scripts, no outside resources, XHTML-compatible (well-formed XML,
/// so a test can parse it). Deterministic: no dates, no random ids.
public enum SweepReport {
  public static func html(_ r: ImpactSweep.Result, title: String) -> String {
    var page: [String] = [
      "<!DOCTYPE html>",
      "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">",
      "<head><meta charset=\"utf-8\"/><title>\(XMLText.escaped(title))</title>",
      "<style>\(style)</style></head>",
      "<body>",
      "<h1>\(XMLText.escaped(title))</h1>",
      "<p>\(r.rows.count) threshold combinations judged over \(r.traces) traces (\(r.scenarios.count) catalogue scenarios × \(r.scenarios.first?.runs ?? 0) seeds, \(f(drivingHours(r, .drive), "%.1f")) h of generated driving with no crash, and \(recordings(r).count) recordings with \(f(drivingHours(r, .recording), "%.2f")) h of data): \(r.jolts) jolts at or above the loosest jolt threshold. Each trace went through the detector once; every combination was judged from the measured values. The highlighted combination (#\(r.featured)) is the one nearest the hand-set settings. Crash positives are all synthetic.</p>",
    ]
    page.append(section("Recall against false alarms", tradeOffChart(r)))
    page.append(section("Counts and sources", countsSection(r)))
    page.append(section("Every combination", combinationTable(r)))
    page.append(section("Per-scenario verdicts", scenarioTable(r)))
    page.append(section("Which combination loses which scenario", matrix(r)))
    page.append(section("What a logistic model suggests", modelSection(r)))
    page.append(section("Signals around each verdict and near miss", panels(r)))
    page += ["</body>", "</html>", ""]
    return page.joined(separator: "\n")
  }

  static let style = """
    body{font:14px/1.4 system-ui,sans-serif;margin:24px;max-width:1100px;color:#222}
    h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
    table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 7px;text-align:right}
    th{background:#f3f3f3}td.l,th.l{text-align:left}tr.featured td{background:#fff3c4}
    td.ok{background:#dff3df}td.bad{background:#f8d7d7}td.part{background:#fdf0cf}
    svg{background:#fff;margin:4px}.frame{fill:none;stroke:#999}.tick,.axis{font-size:11px;fill:#444}
    .combo{fill:#4a78b5;opacity:.75}.featured{fill:#e08a00;stroke:#000}.bound{stroke:#4a78b5;opacity:.4}
    .accel{fill:none;stroke:#c0392b;stroke-width:1.3}.spin{fill:none;stroke:#2e7d32;stroke-width:1.1}
    .pressure{fill:none;stroke:#7b3fa0;stroke-width:1.1}.k-pressure{color:#7b3fa0}
    .speed{fill:#1f5fa8}.jolt{stroke:#000;stroke-dasharray:3 3}.threshold{stroke:#c0392b;stroke-dasharray:2 4}
    .threshold-spin{stroke:#2e7d32;stroke-dasharray:2 4}.threshold-pressure{stroke:#7b3fa0;stroke-dasharray:2 4}
    table.matrix td,table.matrix th{padding:1px 4px;font-size:11px}th.featured{background:#fff3c4}
    .panels{display:flex;flex-wrap:wrap}.panel{width:350px;margin:6px;font-size:12px}.panel p{margin:2px 0}
    .legend span{margin-right:14px}.k-accel{color:#c0392b}.k-spin{color:#2e7d32}.k-speed{color:#1f5fa8}
    """

  static func drivingHours(_ r: ImpactSweep.Result, _ kind: ImpactSweep.SourceKind) -> Double {
    r.sources.filter { $0.kind == kind }.map(\.hours).reduce(0, +)
  }

  static func recordings(_ r: ImpactSweep.Result) -> [Int] {
    r.sources.indices.filter { r.sources[$0].kind == .recording }
  }

  /// The featured combination's counts, and every source of driving with its hours.
  static func countsSection(_ r: ImpactSweep.Result) -> String {
    let row = r.rows[r.featured]
    let drives = r.sources.indices.filter { r.sources[$0].kind == .drive }
    var out = [
      "<table><tr><th class=\"l\">under combination #\(r.featured) (\(XMLText.escaped(thresholds(row))))</th><th>count</th></tr>",
      "<tr><td class=\"l\">crash scenario runs</td><td>\(row.crashRuns)</td></tr>",
      "<tr><td class=\"l\">true positives (one report, at the crash)</td><td>\(row.truePositives)</td></tr>",
      "<tr><td class=\"l\">misses</td><td>\(row.misses)</td></tr>",
      "<tr><td class=\"l\">false alarms (generated driving and recordings)</td><td>\(row.falseAlarms)</td></tr>",
      "<tr><td class=\"l\">silent scenarios that reported</td><td>\(row.silentScenariosReported)</td></tr>",
      "<tr><td class=\"l\">reports in all</td><td>\(row.reports)</td></tr>",
      "</table>",
      "<table><tr><th class=\"l\">source of driving</th><th>traces</th><th>hours with data</th><th>jolts judged</th><th>reports under #\(r.featured)</th></tr>",
    ]
    func jolts(_ indices: [Int]) -> Int {
      let set = Set(indices)
      return r.joltTable.filter { set.contains($0.source) }.count
    }
    func reports(_ indices: [Int]) -> Int { indices.map { r.reportCounts[r.featured][$0] }.reduce(0, +) }
    out.append(
      "<tr><td class=\"l\">generated driving (no crash)</td><td>\(drives.count)</td><td>\(f(drivingHours(r, .drive), "%.2f"))</td><td>\(jolts(drives))</td><td>\(reports(drives))</td></tr>"
    )
    for i in recordings(r) {
      out.append(
        "<tr><td class=\"l\">\(XMLText.escaped(r.sources[i].name))</td><td>1</td><td>\(f(r.sources[i].hours, "%.3f"))</td><td>\(jolts([i]))</td><td>\(reports([i]))</td></tr>"
      )
    }
    return (out + ["</table>"]).joined(separator: "\n")
  }

  /// Scenario × combination: runs as expected, one cell each (green all,
  /// amber some, red none), false alarms in the last row.
  static func matrix(_ r: ImpactSweep.Result) -> String {
    var out = [
      "<p>One column per combination (number as in the tables; hover a cell for its thresholds), one row per scenario: how many runs went as expected. The last row counts false alarms in driving.</p>",
      "<div style=\"overflow-x:auto\"><table class=\"matrix\"><tr><th class=\"l\">scenario</th>"
        + r.rows.indices.map { "<th\($0 == r.featured ? " class=\"featured\"" : "")>\($0)</th>" }.joined() + "</tr>",
    ]
    for s in r.scenarios {
      var cells = "<tr><td class=\"l\">\(XMLText.escaped(s.id))</td>"
      for (i, row) in r.rows.enumerated() {
        let matched = row.matchedByScenario[s.id] ?? 0
        let mark = matched == s.runs ? "ok" : matched == 0 ? "bad" : "part"
        cells +=
          "<td class=\"\(mark)\" title=\"\(XMLText.escaped("\(s.id) under #\(i) (\(thresholds(row))): \(matched) of \(s.runs) as expected"))\">\(matched)</td>"
      }
      out.append(cells + "</tr>")
    }
    out.append(
      "<tr><td class=\"l\">false alarms</td>"
        + r.rows.map { "<td class=\"\($0.falseAlarms == 0 ? "ok" : "bad")\">\($0.falseAlarms)</td>" }.joined()
        + "</tr>")
    return (out + ["</table></div>"]).joined(separator: "\n")
  }

  static func section(_ heading: String, _ content: String) -> String {
    "<h2>\(XMLText.escaped(heading))</h2>\n\(content)"
  }

  static func f(_ v: Double, _ format: String = "%.3g") -> String {
    v.isFinite ? String(format: format, v) : "–"
  }

  static func thresholds(_ row: ImpactSweep.Row) -> String {
    "jolt \(f(row.joltG)) g, spin \(f(row.spinRadiansPerSecond)) rad/s, pressure \(f(row.pressureHectopascals)) hPa, moving \(f(row.movingMetersPerSecond)) m/s, free fall \(f(row.freeFallSeconds)) s"
  }

  static func tradeOffChart(_ r: ImpactSweep.Result) -> String {
    let xs = r.rows.map(\.falseAlarmsUpperBoundPer1000Hours).filter(\.isFinite)
    var plot = SVGPlot(
      x: 0...max(1, (xs.max() ?? 1) * 1.05), y: 0...1.02,
      xLabel: "false alarms per 1 000 h (bar: 95 % upper bound)",
      yLabel: "recall (crash scenario runs)")
    for (i, row) in r.rows.enumerated() where i != r.featured {
      plot.line(
        [row.falseAlarmsPer1000Hours, row.falseAlarmsUpperBoundPer1000Hours], [row.recall, row.recall],
        className: "bound")
      plot.point(
        row.falseAlarmsPer1000Hours, row.recall, className: "combo",
        title: thresholds(row)
          + " → recall \(f(row.recall)), \(f(row.falseAlarmsPer1000Hours)) false alarms/1000 h")
    }
    let featured = r.rows[r.featured]
    plot.line(
      [featured.falseAlarmsPer1000Hours, featured.falseAlarmsUpperBoundPer1000Hours],
      [featured.recall, featured.recall], className: "bound")
    plot.point(
      featured.falseAlarmsPer1000Hours, featured.recall, className: "featured", radius: 6,
      title: "featured: " + thresholds(featured))
    return plot.svg
      + "<p>Each dot is one combination (hover for its thresholds); the bar runs to the 95 % upper bound on its false-alarm rate (the rule of three when none was seen). Orange: the combination nearest the defaults.</p>"
  }

  static func combinationTable(_ r: ImpactSweep.Result) -> String {
    let conditions = Set(r.rows.flatMap(\.rejectedBy.keys)).sorted()
    var out = [
      "<div style=\"overflow-x:auto\"><table><tr><th>#</th><th>jolt g</th><th>spin rad/s</th><th>pressure hPa</th><th>moving m/s</th><th>free fall s</th><th>true pos.</th><th>misses</th><th>false alarms</th><th>recall</th><th>precision</th><th>false alarms /1000 h</th><th>95 % bound</th><th>silent reported</th><th>median latency s</th>"
        + conditions.map { "<th>rejected: \(XMLText.escaped($0))</th>" }.joined() + "</tr>"
    ]
    for (i, row) in r.rows.enumerated() {
      let cells = [
        Double(i), row.joltG, row.spinRadiansPerSecond, row.pressureHectopascals, row.movingMetersPerSecond,
        row.freeFallSeconds, Double(row.truePositives), Double(row.misses), Double(row.falseAlarms), row.recall, row.precision, row.falseAlarmsPer1000Hours,
        row.falseAlarmsUpperBoundPer1000Hours, Double(row.silentScenariosReported), row.medianLatencySeconds,
      ].map { "<td>\(f($0))</td>" }
      out.append(
        "<tr\(i == r.featured ? " class=\"featured\"" : "")>" + cells.joined()
          + conditions.map { "<td>\(row.rejectedBy[$0] ?? 0)</td>" }.joined() + "</tr>")
    }
    return (out + ["</table></div>"]).joined(separator: "\n")
  }

  static func scenarioTable(_ r: ImpactSweep.Result) -> String {
    var out = [
      "<table><tr><th class=\"l\">scenario</th><th class=\"l\">name</th><th class=\"l\">expected</th><th>runs</th><th>as expected (featured)</th><th>fewest over the grid</th><th>most over the grid</th></tr>"
    ]
    for s in r.scenarios {
      let counts = r.rows.map { $0.matchedByScenario[s.id] ?? 0 }
      let featured = r.rows[r.featured].matchedByScenario[s.id] ?? 0
      let mark = featured == s.runs ? "ok" : featured == 0 ? "bad" : "part"
      out.append(
        "<tr><td class=\"l\">\(XMLText.escaped(s.id))</td><td class=\"l\">\(XMLText.escaped(s.name))</td><td class=\"l\">\(s.expected.rawValue)</td><td>\(s.runs)</td><td class=\"\(mark)\">\(featured)</td><td>\(counts.min() ?? 0)</td><td>\(counts.max() ?? 0)</td></tr>"
      )
    }
    return (out + ["</table>"]).joined(separator: "\n")
  }

  static func modelSection(_ r: ImpactSweep.Result) -> String {
    guard let m = r.model else {
      return "<p>No model: the sweep saw no crash jolts, or nothing else.</p>"
    }
    var out = [
      "<p>Logistic regression of “this jolt is the scenario's crash” over \(m.jolts) jolts (\(m.crashJolts) crashes), fitted by IRLS with LAPACKE's least squares, ridge λ = \(f(m.ridge)) on standardised features, \(m.iterations) steps\(m.converged ? "" : " (not converged)"); \(f(m.trainingAccuracy * 100, "%.1f")) % of the jolts fall on the right side of 50 %. A suggested threshold is where the model says 50 % with every other feature at the crashes' median: how far that one feature could go for an otherwise typical crash (≥: more of it points to a crash; ≤: less of it does, which for a threshold means the data do not back it). The detector needs every condition at once, which a linear model cannot say exactly; read the suggestions as a direction, not a setting. Crash positives are all synthetic.</p>",
      "<table><tr><th class=\"l\">feature</th><th class=\"l\">unit</th><th>coefficient</th><th>hand-set</th><th>suggested</th></tr>",
    ]
    for feature in m.features {
      out.append(
        "<tr><td class=\"l\">\(XMLText.escaped(feature.name))</td><td class=\"l\">\(XMLText.escaped(feature.unit))</td><td>\(f(feature.coefficient))</td><td>\(feature.handSet.map { f($0) } ?? "–")</td><td>\(feature.suggested.map { (feature.coefficient > 0 ? "≥ " : "≤ ") + f($0) } ?? "–")</td></tr>"
      )
    }
    return (out + ["</table>"]).joined(separator: "\n")
  }

  static func panels(_ r: ImpactSweep.Result) -> String {
    guard !r.panels.isEmpty else {
      return "<p>No report and no near miss under the featured combination.</p>"
    }
    var out = [
      "<p class=\"legend\"><span class=\"k-accel\">— peak |a| per 0.1 s, g</span><span class=\"k-spin\">— peak |ω|, rad/s</span><span class=\"k-pressure\">— pressure change since the excerpt began, hPa</span><span class=\"k-speed\">● GPS speed, m/s ÷ 5</span> Dashed: the jolt; dotted: the thresholds of the panel's combination (jolt in g, spin in rad/s, pressure rise in hPa, in the lines' colours). A near miss failed one group of conditions only.\(r.panelsOmitted > 0 ? " \(r.panelsOmitted) more not shown." : "")</p>",
      "<div class=\"panels\">",
    ]
    for p in r.panels {
      let featured = r.rows[p.combination]
      let s = p.signals
      // The barometer reads every 0.2 s, the bins are 0.1 s: hold each
      // reading across empty bins (up to 1 s) so the line does not break.
      let baseline = s.pressureHectopascals.first(where: \.isFinite).map(Double.init)
      var held: Double = .nan
      var age = 0
      let pressureChange = s.pressureHectopascals.map { v -> Double in
        if v.isFinite, let baseline {
          held = Double(v) - baseline
          age = 0
        } else {
          age += 1
          if age > 10 { held = .nan }
        }
        return held
      }
      let times = s.accelerationG.indices.map {
        s.startSeconds + Double($0) * SignalExcerpt.binSeconds - p.joltSeconds
      }
      let peak =
        ([s.accelerationG, s.spinRadiansPerSecond].flatMap { $0 }.map(Double.init) + pressureChange)
        .filter(\.isFinite).max() ?? 1
      let top = max(featured.joltG, featured.spinRadiansPerSecond, featured.pressureHectopascals) * 1.2
      var plot = SVGPlot(
        x: -SignalExcerpt.beforeSeconds...SignalExcerpt.afterSeconds,
        y: min(0, pressureChange.filter(\.isFinite).min() ?? 0)...max(top, peak * 1.05),
        xLabel: "s from the jolt", yLabel: "g · rad/s · hPa")
      plot.width = 350
      plot.height = 200
      plot.left = 40
      plot.line(times, s.accelerationG.map(Double.init), className: "accel", title: "acceleration, g")
      plot.line(
        times, s.spinRadiansPerSecond.map(Double.init), className: "spin", title: "angular rate, rad/s")
      plot.line(times, pressureChange, className: "pressure", title: "pressure change, hPa")
      for (t, v) in zip(times, s.speedMetersPerSecond) where v.isFinite {
        plot.point(t, Double(v) / 5, className: "speed", radius: 2, title: "\(f(Double(v))) m/s")
      }
      plot.verticalRule(at: 0, className: "jolt")
      plot.horizontalRule(at: featured.joltG, className: "threshold")
      plot.horizontalRule(at: featured.spinRadiansPerSecond, className: "threshold-spin")
      plot.horizontalRule(at: featured.pressureHectopascals, className: "threshold-pressure")
      let verdict = p.kind == .report ? "reported" : "near miss (unmet: \(p.unmet.joined(separator: ", ")))"
      let expectation = p.expectedReport ? "a crash" : "not a crash"
      out.append(
        "<div class=\"panel\"><p><b>\(XMLText.escaped(p.source))</b> at \(f(p.joltSeconds, "%.1f")) s: \(XMLText.escaped(verdict)); it was \(expectation).</p>\(plot.svg)<p>Thresholds of #\(p.combination): \(XMLText.escaped(thresholds(featured))).</p><p>\(XMLText.escaped(p.explanation))</p></div>"
      )
    }
    return (out + ["</div>"]).joined(separator: "\n")
  }
}
