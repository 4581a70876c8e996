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

/// One drawn variant of a scenario: the drive to simulate and what its label
/// records about it.
public struct ScenarioVariant: Sendable {
  /// The drive, its events and the phone's placement.
  public var plan: DrivePlan
  /// When the jolts happen, seconds since the trace's start.
  public var joltSeconds: [Double]
  /// The crash pulses the plan contains (empty for everyday scenarios).
  public var crashPulses: [ScenarioLabel.CrashPulse]
  /// The parameters this variant drew, by name (units in the names).
  public var parameters: [String: Double]

  public init(
    plan: DrivePlan, joltSeconds: [Double], crashPulses: [ScenarioLabel.CrashPulse] = [],
    parameters: [String: Double] = [:]
  ) {
    self.plan = plan
    self.joltSeconds = joltSeconds
    self.crashPulses = crashPulses
    self.parameters = parameters
  }
}

/// A named, parameterised scenario with its expected verdict.
public struct Scenario: Sendable {
  public var id: String
  public var name: String
  public var summary: String
  public var expected: ExpectedVerdict
  public var decidingGate: String
  /// Builds one variant. The draws (pulse length, pressure step, spin,
  /// orientation) come from the seed through `draws`.
  let build: @Sendable (inout Gaussian) -> ScenarioVariant

  /// A scenario whose variants `build` draws from the seeded `Gaussian`.
  init(
    id: String, name: String, summary: String, expected: ExpectedVerdict, decidingGate: String,
    build: @escaping @Sendable (inout Gaussian) -> ScenarioVariant
  ) {
    self.id = id
    self.name = name
    self.summary = summary
    self.expected = expected
    self.decidingGate = decidingGate
    self.build = build
  }

  /// Generates the variant for `seed`: byte-identical for the same seed.
  public func generate(seed: UInt64) -> SimulatedScenario {
    var draws = Gaussian(seed: seed ^ 0x5CE2_A210)
    let variant = build(&draws)
    let (trace, batches) = DriveSimulator.record(plan: variant.plan, seed: seed)
    return SimulatedScenario(
      plan: variant.plan, trace: trace, batches: batches,
      label: ScenarioLabel(
        id: id, name: name, expected: expected, decidingGate: decidingGate, joltSeconds: variant.joltSeconds,
        crashPulses: variant.crashPulses, parameters: variant.parameters),
      seed: seed)
  }
}
