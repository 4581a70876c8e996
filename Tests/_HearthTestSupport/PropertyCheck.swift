// Seeded property checks: generate many random cases, find one that breaks
// a property, shrink it, and print it small enough to read.

import Foundation

/// The knobs of a property campaign, from the environment:
/// - `HEARTH_PROPERTY_SEED`: the base seed (default: fixed, so CI repeats);
///   `random` draws a fresh one (printed with any failure).
/// - `HEARTH_PROPERTY_CASES`: cases per property (default: each property's
///   own CI count).
public enum PropertyCampaign {
  public static var baseSeed: UInt64 {
    let text = ProcessInfo.processInfo.environment["HEARTH_PROPERTY_SEED"] ?? ""
    if text == "random" { return UInt64.random(in: 1...UInt64.max) }
    return UInt64(text) ?? 0x4845_4152_5448  // "HEARTH"
  }

  public static func cases(default count: Int) -> Int {
    ProcessInfo.processInfo.environment["HEARTH_PROPERTY_CASES"].flatMap(Int.init) ?? count
  }
}

/// A case that can be made smaller: each candidate is a strictly simpler case.
public protocol Shrinkable {
  var shrinkCandidates: [Self] { get }
}

public enum PropertyCheck {
  /// Runs `check` on `cases` generated cases (seed `seed` + case number);
  /// returns nil when all pass, else a report of the smallest failing case
  /// found by greedy shrinking: what failed, the seed to reproduce it, and
  /// the case's own description.
  /// `generator` makes the case's random source from its seed (a seeded,
  /// portable generator, so a seed names the same case on every machine).
  public static func run<Case: Shrinkable & CustomStringConvertible, Random: RandomNumberGenerator>(
    _ name: String, cases: Int, seed: UInt64 = PropertyCampaign.baseSeed, generator: (UInt64) -> Random,
    generate: (inout Random) -> Case, check: (Case) -> String?
  ) -> String? {
    for k in 0..<cases {
      var random = generator(seed &+ UInt64(k) &* 0x9E37_79B9)
      let generated = generate(&random)
      guard var failure = check(generated) else { continue }
      var smallest = generated
      var budget = 2_000
      var improved = true
      while improved && budget > 0 {
        improved = false
        for candidate in smallest.shrinkCandidates {
          budget -= 1
          if let message = check(candidate) {
            smallest = candidate
            failure = message
            improved = true
            break
          }
          if budget <= 0 { break }
        }
      }
      return """
        property "\(name)" failed on case \(k) of seed \(seed) (HEARTH_PROPERTY_SEED=\(seed)):
        \(failure)
        smallest case:
        \(smallest)
        """
    }
    return nil
  }
}
