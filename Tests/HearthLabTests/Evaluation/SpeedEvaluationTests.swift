import Foundation
import HearthGeo
import HearthTrace
import Testing
import _HearthTestSupport

import HearthSim
@testable import HearthLab

@Suite("Speed rules on real speeds, generated days and real drives")
struct SpeedEvaluationTests {
  static let shared = TestPaths.sharedDatasets.path

  @Test("agreed speed from 1 s fixes stays within 1.2 m/s of a car's CAN speed and a phone's own speeds")
  func realSpeeds() throws {
    let comma = try SpeedEvaluation.comma2k19(
      segment: Self.shared + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40")
    #expect(
      comma[0].pairs > 50 && comma[0].p90AbsoluteError < 1 && comma[0].maxAbsoluteError < 1.5, "\(comma[0])")
    let mems = try SpeedEvaluation.memsNav(
      processedFolder: Self.shared + "/mems-nav-drives/processed_1hz",
      mappingPath: TestPaths.projectDatasets.path + "/mappings/mems-nav-processed-1hz.json")
    #expect(mems[0].pairs > 20_000 && mems[0].p90AbsoluteError < 0.5, "\(mems[0])")
    // Fixes 30 s apart agree on the slower end: biased low, never wildly high.
    #expect(mems[1].meanError < 0 && mems[1].medianAbsoluteError < 2, "\(mems[1])")
  }

  @Test("generated days: speed alerts match true episodes over the limit; sudden stops match their labels")
  func generatedDays() {
    let alerts = SpeedEvaluation.speedAlerts(seeds: 1...40)
    #expect(alerts.precision >= 0.98, "\(alerts)")
    #expect(Double(alerts.stretchesDecided[2]) >= 0.9 * Double(alerts.stretches[2]), "\(alerts)")
    var options = DayOptions()
    options.suddenStopProbabilityPerDrive = 0.5
    let stops = SpeedEvaluation.suddenStops(seeds: 1...40, options: options)
    #expect(stops.labelled > 30)
    #expect(stops.precision >= 0.9 && stops.recall >= 0.7, "\(stops)")
  }

  @Test("real drives where nothing happened raise no sudden stop")
  func realDrives() throws {
    var drives: [(name: String, fixes: FixColumns)] = []
    let raw = try SensorLoggerReader.read(folder: Self.shared + "/mems-nav-drives/raw/2023-08-04_214758").0
    drives.append(("mems-nav raw", raw.fixes))
    var withNetwork = raw.fixes
    withNetwork.append(contentsOf: raw.providerFixes["network"] ?? FixColumns())
    drives.append(("mems-nav raw + network", withNetwork))
    let processed = Self.shared + "/mems-nav-drives/processed_1hz"
    for drive in try FileManager.default.contentsOfDirectory(atPath: processed).filter({
      !$0.hasSuffix(".md")
    }).sorted() {
      let trace = try TraceImport.read(
        path: processed + "/" + drive,
        mappingPath: TestPaths.projectDatasets.path + "/mappings/mems-nav-processed-1hz.json"
      ).0
      drives.append((drive, trace.fixes))
      drives.append(
        (drive + " every 10 s", SpeedEvaluation.subsample(trace.fixes, everyMilliseconds: 10_000)))
    }
    let comma = try TraceFolder.readComma2k19Segment(
      Self.shared + "/comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40"
    ).0
    drives.append(("comma2k19", comma.fixes))
    for (name, raised) in SpeedEvaluation.realSuddenStops(drives) {
      #expect(raised.isEmpty, "\(name): \(raised)")
    }
  }
}
