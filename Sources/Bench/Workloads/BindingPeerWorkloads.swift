import Foundation
import HearthTrace

#if canImport(Glibc)
  import Glibc
#endif

/// The Node and JVM bindings (bindings/node, bindings/jvm) against the same
/// call in C, in one run: the subject is `hearth_distances_m` of libhearth
/// called directly (dlopen, a C function pointer: what a C program does), the
/// reference the same call through the binding (Scripts/peers/bindings.js and
/// BindingsBench.java, median of repeated runs after a warm-up; both built by
/// Scripts/build-bindings). Two sizes: 10⁶ pairs in one call (the issue's goal:
/// within 1.2× of C, ratio ≥ 0.83) and 10⁵ calls of one pair each (the per-call
/// overhead: the reference's ns per call minus the subject's). Each side's sum
/// of distances must be the C call's, bit for bit.
enum BindingPeerWorkloads {
  typealias Distances =
    @convention(c) (
      Int64, UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?,
      UnsafeMutablePointer<Double>?
    ) -> Int32

  static func all(_ context: BenchContext) -> [Benchmark] {
    let pairs = context.scaled(1_000_000)
    let calls = context.scaled(100_000)
    return ["node", "java"].flatMap { binding in
      [distances(binding, pairs: pairs), call(binding, calls: calls)]
    }
  }

  /// libhearth.so, built for the bindings, and its `hearth_distances_m`.
  static func library() throws -> Distances {
    let (status, output) = try Shell.run(
      BenchContext.repositoryRoot + "/Scripts/build-bindings", ["all"])
    guard status == 0 else { throw BenchError.io("Scripts/build-bindings failed: \(output.suffix(500))") }
    let path = BenchContext.repositoryRoot + "/.build/libhearth/libhearth.so"
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "hearth_distances_m")
    else {
      throw BenchError.io("cannot load hearth_distances_m from \(path)")
    }
    return unsafeBitCast(symbol, to: Distances.self)
  }

  /// The pairs as four columns, and the file the binding reads (written interleaved, as the Python rows do).
  static func columns(_ context: BenchContext, _ count: Int) throws -> (columns: [[Double]], path: String) {
    let (a, b) = (Inputs.city(count: count, seed: 41), Inputs.city(count: count, seed: 42))
    let path = try PeerWorkloads.file(context, "binding-pairs-\(count).npy")
    var interleaved: [Double] = []
    interleaved.reserveCapacity(4 * count)
    for i in 0..<count {
      interleaved += [a.latitudes[i], a.longitudes[i], b.latitudes[i], b.longitudes[i]]
    }
    try NPYArray.write(interleaved, shape: [count, 4], to: path)
    return ([a.latitudes, a.longitudes, b.latitudes, b.longitudes], path)
  }

  /// Runs a binding's script: its seconds, after checking its sum against `expected`.
  static func seconds(_ binding: String, _ arguments: [String], expected: Double) throws -> Double {
    let root = BenchContext.repositoryRoot
    let (status, output) =
      binding == "node"
      ? try Shell.run("node", [root + "/Scripts/peers/bindings.js"] + arguments)
      : try Shell.run(
        "java",
        [
          "-cp", root + "/bindings/jvm/build/hearth.jar",
          "-Djava.library.path=" + root + "/bindings/jvm/build/lib",
          root + "/Scripts/peers/BindingsBench.java",
        ] + arguments)
    let fields = output.split(separator: "\n").last?.split(separator: " ") ?? []
    guard status == 0, fields.count == 4, let seconds = Double(fields[0]), let sum = Double(fields[3]) else {
      throw BenchError.io("\(binding) binding failed: \(output.suffix(500))")
    }
    guard sum == expected else {
      throw BenchError.io("\(binding) binding: sum of distances \(sum), the C call's \(expected)")
    }
    return seconds
  }

  static func distances(_ binding: String, pairs count: Int) -> Benchmark {
    Benchmark(
      name: "Bindings/distances/\(binding)-\(TraceWorkloads.label(count))", itemCount: count,
      itemUnit: "pair",
      targets: .none,
      note:
        "hearth_distances_m called from C vs the same call through the \(binding == "node" ? "Node package (Float64Arrays in place)" : "Java API (double[] pinned in place)") on \(count) city pairs; goal ratio ≥ 0.83 (binding within 1.2× of C)",
      referenceName: binding,
      prepare: { context in
        let function = try library()
        let (c, path) = try columns(context, count)
        var out = [Double](repeating: 0, count: count)
        var status: Int32 = -1
        let run = {
          status = c[0].withUnsafeBufferPointer { a in
            c[1].withUnsafeBufferPointer { b in
              c[2].withUnsafeBufferPointer { d in
                c[3].withUnsafeBufferPointer { e in
                  out.withUnsafeMutableBufferPointer {
                    function(
                      Int64(count), a.baseAddress, b.baseAddress, d.baseAddress, e.baseAddress, $0.baseAddress
                    )
                  }
                }
              }
            }
          }
        }
        run()
        let expected = out.reduce(0, +)
        return PreparedBenchmark(
          itemCount: count, subject: run, reference: nil,
          externalReference: { try seconds(binding, ["distances", path], expected: expected) },
          verify: { status == 0 ? .passed("\(count) distances") : .failed("status \(status)") })
      })
  }

  static func call(_ binding: String, calls: Int) -> Benchmark {
    Benchmark(
      name: "Bindings/call/\(binding)-1-pair", itemCount: calls, itemUnit: "call",
      targets: .none,
      note:
        "\(calls) calls of hearth_distances_m on one pair from C vs through the \(binding == "node" ? "Node package" : "Java API"): the reference's ns/call minus the subject's is the binding's per-call overhead",
      referenceName: binding,
      prepare: { context in
        let function = try library()
        let (c, path) = try columns(context, 1_000)
        let one = c.map { [$0[0]] }
        var out = [0.0]
        var failures = 0
        let run = {
          failures = 0
          one[0].withUnsafeBufferPointer { a in
            one[1].withUnsafeBufferPointer { b in
              one[2].withUnsafeBufferPointer { d in
                one[3].withUnsafeBufferPointer { e in
                  out.withUnsafeMutableBufferPointer { o in
                    for _ in 0..<calls
                    where function(
                      1, a.baseAddress, b.baseAddress, d.baseAddress, e.baseAddress, o.baseAddress) != 0
                    {
                      failures += 1
                    }
                  }
                }
              }
            }
          }
        }
        run()
        let expected = out[0] * Double(calls)
        return PreparedBenchmark(
          itemCount: calls, subject: run, reference: nil,
          externalReference: { try seconds(binding, ["call", path, String(calls)], expected: expected) },
          verify: { failures == 0 ? .passed("\(calls) calls") : .failed("\(failures) calls failed") })
      })
  }
}
