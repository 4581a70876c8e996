import Foundation
import HearthImpact
import HearthTrace

/// What `impact detect` prints for one recording, in each of its formats:
/// every verdict with every condition's measured value, threshold and unit,
/// and for a recording with no jolt one record saying so with its peak, so
/// quiet files are visible too.
public struct VerdictRecords: Sendable {
  /// The recording's name as the user gave it.
  public var file: String
  public var verdicts: [ImpactVerdict]
  /// The configuration the verdicts were reached under.
  public var configuration: ImpactConfiguration
  /// Hours of accelerometer data replayed, and the largest total |a| seen, g.
  public var hours: Double
  public var peakG: Double
  /// Set when the vehicle gate was off for part of the recording: a quiet
  /// result then says so, because jolts while it was off were not judged.
  public var gateNote: String?
  /// Where the data ended when the session was finished, s (``ImpactSession/dataEndSeconds``).
  public var dataEndSeconds: Double?

  /// The records of the verdicts a session reached so far, with its hours,
  /// peak and, when it was fed a recording whose gate was off for part of
  /// it, the note saying so (the same for every door).
  public init(file: String, session: ImpactSession) {
    self.init(
      file: file, verdicts: session.verdicts, configuration: session.configuration,
      hours: session.statistics.hoursWithData, peakG: session.statistics.peakAccelerationG)
    if let gate = session.gate {
      gateNote = Self.gateNote(gate, firstSampleSeconds: session.firstSampleSeconds ?? 0)
    }
    dataEndSeconds = session.dataEndSeconds
  }

  /// Said of a verdict decided after the data ended (`decidedSeconds` past
  /// ``dataEndSeconds``): the recording stopped before a window it reads was
  /// complete, so it was decided with the data there were. nil otherwise.
  public func endNote(_ v: ImpactVerdict) -> String? {
    guard let end = dataEndSeconds, v.decidedSeconds > end else { return nil }
    return "the recording ended at \(String(format: "%.2f", end)) s, before the windows to "
      + "\(String(format: "%.2f", v.decidedSeconds)) s were complete: decided with the data there were"
  }

  /// When the gate was off over the recording, in words (nil when it was on
  /// throughout): off until the first in-vehicle reading when that comes
  /// after the first sample, or throughout when none comes, and from each
  /// switch off.
  static func gateNote(_ gate: VehicleGateTimeline, firstSampleSeconds: Double) -> String? {
    let f = { (t: Double) in String(format: "%.1f s", t) }
    var spans: [String] = []
    if !gate.initiallyOn {
      if let on = gate.switches.first(where: \.isOn) {
        if on.seconds > firstSampleSeconds { spans.append("until \(f(on.seconds))") }
      } else {
        spans.append("throughout")
      }
    }
    let offs = gate.switches.filter { !$0.isOn }.map { f($0.seconds) }
    if !offs.isEmpty { spans.append("from " + offs.joined(separator: ", ")) }
    guard !spans.isEmpty else { return nil }
    return "vehicle gate off " + spans.joined(separator: " and ")
      + " (\(gate.source)): jolts while it is off are not judged"
  }

  /// The records of a recording streamed through the detector (``ImpactReplay``).
  /// `configuration` is the one the replay ran under.
  public init(file: String, replay: ImpactReplay, configuration: ImpactConfiguration) {
    self.init(file: file, session: replay.session)
  }

  /// Records from verdicts and what was measured beside them: `hours`
  /// with data and the peak total |a| (g) of the accelerometer samples.
  public init(
    file: String, verdicts: [ImpactVerdict], configuration: ImpactConfiguration, hours: Double, peakG: Double
  ) {
    self.file = file
    self.verdicts = verdicts
    self.configuration = configuration
    self.hours = hours
    self.peakG = peakG
  }

  var joltThresholdG: Double {
    configuration.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity
  }

  /// One line per verdict: outcome, times, then each condition as
  /// "name held|failed (measured unit vs threshold unit)".
  public var text: [String] {
    guard !verdicts.isEmpty else {
      return [
        "\(file): processed \(String(format: "%.2f", hours)) h, no jolt ≥ \(String(format: "%.2f", joltThresholdG)) g (peak |a| \(String(format: "%.2f", peakG)) g, gravity included)"
          + (gateNote.map { "; " + $0 } ?? "")
      ]
    }
    return verdicts.map { "\(file): " + ImpactUnits.describe($0) }
  }

  /// Where "moving" and "stopped" were read: "gps" or "vibration"; nil for
  /// a suppressed jolt, which is not judged (nothing was read of the car's motion).
  static func movingFrom(_ v: ImpactVerdict) -> String? {
    v.outcome == .suppressed ? nil : v.usedGPS ? "gps" : "vibration"
  }

  public static let csvHeader =
    "file,jolt_time_s,decided_time_s,outcome,moving_from,jolt_g,condition,held,measured,threshold,unit,note"

  /// One row per condition of every verdict (a recording with no jolt: one
  /// row, outcome `noJolt`, condition `jolt`, measured = the peak total |a|).
  /// Empty cells where nothing was measured.
  public var csv: [String] {
    func cell(_ v: Double) -> String { v.isFinite ? "\(v)" : "" }
    let name = CSVField.quoted(file)
    guard !verdicts.isEmpty else {
      let peak = peakG * ImpactConfiguration.standardGravity
      return [
        "\(name),,,noJolt,,\(cell(peakG)),jolt,false,\(cell(peak)),\(cell(configuration.joltMetersPerSecondSquared)),m/s²,\(CSVField.quoted("peak total |a| (gravity included)" + (gateNote.map { "; " + $0 } ?? "")))"
      ]
    }
    return verdicts.flatMap { v in
      let joltG = (v.measured(.jolt) ?? .nan) / ImpactConfiguration.standardGravity
      return v.conditions.map { c in
        [
          name, cell(v.joltSeconds), cell(v.decidedSeconds), v.outcome.rawValue,
          Self.movingFrom(v) ?? "",
          cell(joltG), c.name.rawValue, String(c.held), cell(c.measured), cell(c.threshold),
          ImpactUnits.unit(c.name), CSVField.quoted(c.note),
        ].joined(separator: ",")
      }
    }
  }

  /// One JSON object per verdict (or one `noJolt` object), NaN as null.
  public struct Record: Sendable, Hashable, Codable {
    public struct Condition: Sendable, Hashable, Codable {
      public var name: String
      public var held: Bool
      /// Reads the same way for every condition: true when this condition
      /// does not stand in the way of a report (the jolt held; any other
      /// condition is not among the verdict's `unmet`), so `held` of
      /// `freeFallVeto` (a fall was seen, against a report) is `met` false
      /// only when nothing else corroborated.
      public var met: Bool
      public var measured: Double
      public var threshold: Double
      public var unit: String
      public var note: String
    }
    public var file: String
    /// `possibleImpact`, `silent`, `suppressed` or `noJolt`.
    public var outcome: String
    public var joltTimeSeconds: Double?
    public var decidedTimeSeconds: Double?
    /// "gps" or "vibration" (absent for `noJolt` and `suppressed`: not judged).
    public var movingFrom: String?
    public var joltG: Double?
    public var joltThresholdG: Double
    /// Hours of data and the peak total |a| (for `noJolt`).
    public var hours: Double?
    public var peakG: Double?
    /// When the vehicle gate was off for part of the recording (see ``VerdictRecords/gateNote``).
    public var vehicleGate: String?
    /// The conditions after the jolt that fail (``ImpactVerdict/unmetConditions(under:)``,
    /// SPEC §9 order; empty for a report or a suppressed verdict; absent for `noJolt`).
    public var unmet: [String]?
    /// Set when the recording ended before every window the verdict reads
    /// was complete (``VerdictRecords/endNote(_:)``).
    public var recordingEnded: String?
    public var conditions: [Condition]
  }

  public var records: [Record] {
    guard !verdicts.isEmpty else {
      return [
        Record(
          file: file, outcome: "noJolt", joltThresholdG: joltThresholdG, hours: hours, peakG: peakG,
          vehicleGate: gateNote, conditions: [])
      ]
    }
    return verdicts.map { v in
      let unmet = v.unmetConditions(under: configuration)
      return Record(
        file: file, outcome: v.outcome.rawValue, joltTimeSeconds: v.joltSeconds,
        decidedTimeSeconds: v.decidedSeconds,
        movingFrom: Self.movingFrom(v),
        joltG: v.measured(.jolt).map { $0 / ImpactConfiguration.standardGravity },
        joltThresholdG: joltThresholdG, unmet: unmet.map(\.rawValue), recordingEnded: endNote(v),
        conditions: v.conditions.map {
          Record.Condition(
            name: $0.name.rawValue, held: $0.held, met: $0.name == .jolt ? $0.held : !unmet.contains($0.name),
            measured: $0.measured, threshold: $0.threshold, unit: ImpactUnits.unit($0.name), note: $0.note)
        })
    }
  }

  /// The records as JSON Lines.
  /// - Throws: `TraceError.io` when a record cannot be encoded (never in practice).
  public func jsonLines() throws -> [String] {
    try records.map { String(decoding: try JSONOutput.encode($0), as: UTF8.self) }
  }
}
