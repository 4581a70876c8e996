/// A small, fast, seeded random number generator (SplitMix64, Steele, Lea and
/// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014).
///
/// The same seed gives the same sequence on every platform and build, which is
/// what property tests, the simulator and the benchmark workloads need. Not
/// for anything secret.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable, Codable {
  public private(set) var state: UInt64

  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits. O(1).
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform Double in [0, 1) with 53 random bits; exact and portable
  /// (unlike `Double.random(in:using:)`, whose algorithm is not promised).
  public mutating func nextUnit() -> Double {
    Double(next() >> 11) * 0x1p-53
  }

  /// A uniform Double in [lower, upper), portable. O(1).
  public mutating func nextDouble(in lower: Double, _ upper: Double) -> Double {
    lower + (upper - lower) * nextUnit()
  }

  /// An independent generator derived from this one (for splitting work
  /// across threads deterministically).
  public mutating func split() -> SeededGenerator {
    SeededGenerator(seed: next())
  }
}
