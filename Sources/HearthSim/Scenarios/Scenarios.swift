import HearthGeo
import HearthTrace

/// What the detector should say about a scenario (impact-physics.md §5.2).
public enum ExpectedVerdict: String, Sendable, Hashable, Codable {
  /// Exactly one possible-impact verdict, 6–10 s after the jolt.
  case report
  /// No verdict.
  case silent
  /// Two qualifying crashes within the 60 s suppression window: one verdict.
  case reportOnce
}

/// The ground truth of a generated scenario.
public struct ScenarioLabel: Sendable, Hashable, Codable {
  public var id: String
  public var name: String
  public var expected: ExpectedVerdict
  /// The design criterion that decides the case (moving-before, jolt, stop,
  /// spin, pressure, free-fall veto, suppression, gate…).
  public var decidingGate: String
  /// Jolt times, seconds since the trace's start.
  public var joltSeconds: [Double]
  /// Crash pulses present: (start, end) seconds, and their peak, m/s².
  public var crashPulses: [CrashPulse]
  /// The parameters this variant drew.
  public var parameters: [String: Double]

  public struct CrashPulse: Sendable, Hashable, Codable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var peakAcceleration: Double
  }
}

/// A generated scenario: the plan, the recording (trace and batches) and its label.
public struct SimulatedScenario: Sendable {
  public var plan: DrivePlan
  public var trace: Trace
  public var batches: [SensorBatch]
  public var label: ScenarioLabel
  public var seed: UInt64
}

/// A named, parameterised scenario with its expected verdict.
public struct Scenario: Sendable {
  public var id: String
  public var name: String
  public var summary: String
  public var expected: ExpectedVerdict
  public var decidingGate: String
  /// Builds the plan for one variant. The draws (pulse length, pressure
  /// step, spin, orientation) come from the seed.
  let build: @Sendable (inout Gaussian) -> (DrivePlan, [Double], [ScenarioLabel.CrashPulse], [String: Double])

  /// Generates the variant for `seed`: byte-identical for the same seed.
  public func generate(seed: UInt64) -> SimulatedScenario {
    var draws = Gaussian(seed: seed ^ 0x5CE2_A210)
    let (plan, jolts, pulses, parameters) = build(&draws)
    let (trace, batches) = DriveSimulator.record(plan: plan, seed: seed)
    return SimulatedScenario(
      plan: plan, trace: trace, batches: batches,
      label: ScenarioLabel(
        id: id, name: name, expected: expected, decidingGate: decidingGate, joltSeconds: jolts,
        crashPulses: pulses, parameters: parameters),
      seed: seed)
  }
}
