import Foundation

/// One benchmark's measured result.
struct BenchmarkResult: Codable, Equatable {
  var name: String
  /// Unit of `value`, e.g. "ns/pair".
  var unit: String
  /// Median time per item of the Swift subject.
  var value: Double
  /// Median time per item of the C reference, when there is one.
  var referenceValue: Double?
  /// Median over repetitions of (subject time / reference time), timed back to back.
  var ratio: Double?
  /// The target for this build kind, if any.
  var targetRatio: Double?
  /// What the reference is ("C", "pandas", "numpy").
  var referenceName: String? = nil
  /// Subject throughput in MB/s (10⁶ bytes), when the workload reads bytes.
  var megabytesPerSecond: Double? = nil
  /// (max − min) / median of the subject's times.
  var spread: Double
  var itemCount: Int
  var repetitions: Int
  /// What the result check said.
  var check: String

  /// A ceiling on `value` itself (ns per item), whatever the build.
  var targetValue: Double? = nil
  /// Further figures (name with unit → value), compared like `value`.
  var metrics: [String: Double]? = nil
  /// True when the result check failed or the benchmark could not run:
  /// `check` says why, nothing was timed (`value` 0, no repetitions).
  /// Absent when it passed.
  var failed: Bool? = nil
  /// Further peers beside the reference, each timed in the same
  /// repetitions (absent when the workload has none).
  var peers: [PeerResult]? = nil

  /// True when there is a target and the result meets every one of them.
  var meetsTarget: Bool? {
    var met: [Bool] = []
    if let targetRatio, let ratio { met.append(ratio <= targetRatio) }
    if let targetValue { met.append(value <= targetValue) }
    return met.isEmpty ? nil : !met.contains(false)
  }
}

/// A further peer's figures in one result.
struct PeerResult: Codable, Equatable {
  var name: String
  /// Median time per item of the peer, in the result's unit.
  var value: Double
  /// Median over repetitions of (subject time / this peer's time).
  var ratio: Double
}

/// Runs benchmarks: verify once, then time subject and reference alternately.
struct Runner {
  var repetitions: Int
  var isNativeBuild: Bool
  var log: (String) -> Void

  /// Runs one benchmark. Throws when preparing fails; a failed check is a
  /// thrown error too (a wrong result is never timed).
  func run(_ benchmark: Benchmark, context: BenchContext) throws -> BenchmarkResult {
    let prepared = try benchmark.prepare(context)
    let external = prepared.reference == nil ? prepared.externalReference : nil
    prepared.subject()
    prepared.reference?()
    let check = prepared.verify()
    guard case .passed(let detail) = check else {
      if case .failed(let message) = check {
        throw BenchError.checkFailed(benchmark.name, message)
      }
      fatalError("unreachable")
    }
    let hasReference = prepared.reference != nil || external != nil
    var subjectSeconds: [Double] = []
    var referenceSeconds: [Double] = []
    var ratios: [Double] = []
    var peerSeconds = Array(repeating: [Double](), count: prepared.peers.count)
    var peerRatios = peerSeconds
    let repetitions = min(repetitions, benchmark.maxRepetitions ?? repetitions)
    for repetition in 0..<repetitions {
      // Alternate the order so neither side always runs on a warmer machine.
      var s = 0.0
      var r = 0.0
      func runReference() throws {
        if let reference = prepared.reference {
          r = Self.time(reference)
        } else if let external {
          r = try external()
        }
      }
      var p = Array(repeating: 0.0, count: prepared.peers.count)
      func runPeers() throws {
        for k in prepared.peers.indices { p[k] = try prepared.peers[k].seconds() }
      }
      if repetition % 2 == 0 {
        s = Self.time(prepared.subject)
        try runReference()
        try runPeers()
      } else {
        try runPeers()
        try runReference()
        s = Self.time(prepared.subject)
      }
      for k in p.indices {
        peerSeconds[k].append(p[k])
        peerRatios[k].append(s / p[k])
      }
      subjectSeconds.append(s)
      if hasReference {
        referenceSeconds.append(r)
        ratios.append(s / r)
      }
    }
    let perItem = 1e9 / Double(prepared.itemCount)
    let target = isNativeBuild ? benchmark.targets.native : benchmark.targets.portable
    let median = Statistics.median(subjectSeconds)
    return BenchmarkResult(
      name: benchmark.name,
      unit: "ns/\(benchmark.itemUnit)",
      value: median * perItem,
      referenceValue: referenceSeconds.isEmpty ? nil : Statistics.median(referenceSeconds) * perItem,
      ratio: ratios.isEmpty ? nil : Statistics.median(ratios),
      targetRatio: hasReference ? target : nil,
      referenceName: hasReference ? benchmark.referenceName : nil,
      megabytesPerSecond: prepared.bytesPerRun.map { Double($0) / median / 1e6 },
      spread: Statistics.relativeSpread(subjectSeconds),
      itemCount: prepared.itemCount,
      repetitions: repetitions,
      check: detail,
      targetValue: benchmark.maxNanosecondsPerItem,
      metrics: prepared.metrics?(),
      peers: prepared.peers.isEmpty
        ? nil
        : prepared.peers.indices.map {
          PeerResult(
            name: prepared.peers[$0].name, value: Statistics.median(peerSeconds[$0]) * perItem,
            ratio: Statistics.median(peerRatios[$0]))
        })
  }

  /// Wall time of one call, seconds (monotonic clock).
  static func time(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let elapsed = clock.measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
  }
}

/// Errors that stop the benchmark program.
enum BenchError: Error, CustomStringConvertible {
  case checkFailed(String, String)
  case usage(String)
  case io(String)

  var description: String {
    switch self {
    case .checkFailed(let name, let message): "\(name): result check failed: \(message)"
    case .usage(let message): message
    case .io(let message): message
    }
  }
}
