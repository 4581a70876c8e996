import Foundation
import HearthImpact
import HearthTrace
import Testing
import _HearthTestSupport

@testable import HearthRuntime

/// Issue 16, second review: gravity-free samples after the gravity stream
/// ends are finished as soon as the stream says gravity is complete, not
/// held to the end of the recording; a short gravity stream is warned of.
@Suite("ImpactStream: a gravity stream that ends early")
struct ImpactStreamGravityTests {
  /// 200 s of gravity-free acceleration at 50 Hz, gravity from 0 to `gravitySeconds` at 10 Hz.
  static func folder(gravitySeconds: Double) -> TemporaryFolder {
    let folder = TemporaryFolder()
    var acceleration = "time,seconds_elapsed,z,y,x\n"
    for i in 0..<10_000 { acceleration += "0,\(Double(i) * 0.02),0.05,0.01,0\n" }
    var gravity = "time,seconds_elapsed,z,y,x\n"
    for i in 0...Int(gravitySeconds * 10) { gravity += "0,\(Double(i) * 0.1),9.80665,0,0\n" }
    folder.write("Accelerometer.csv", acceleration)
    folder.write("Gravity.csv", gravity)
    return folder
  }

  @Test(
    "regression 2026-12-02: ImpactStream held every accelerometer sample after the gravity stream ended",
    arguments: [7, 500])
  func samplesAfterGravityAreFinished(samples: Int) throws {
    let folder = Self.folder(gravitySeconds: 0)
    var feed = ImpactStream(gate: .off)
    var early = 0
    var batches: [ImpactBatch] = []
    _ = try TraceImport.stream(path: folder.path).forEachChunk(samples: samples) { chunk in
      let out = feed.add(chunk)
      if chunk.completeBeforeSeconds < .infinity { early += out.count }
      batches += out
    }
    batches += feed.finish()
    #expect(early >= batches.count * 9 / 10, "\(early) of \(batches.count) batches before the last chunk")
    let (trace, _) = try TraceImport.read(path: folder.path)
    #expect(batches == Array(try #require(ImpactFeed(trace: trace, gate: .off)).batches()))
    #expect(feed.gravityWarning?.contains("gravity covers 0.0 s") == true)
  }

  @Test("a gravity stream short by 10 s or less says nothing; by more, a warning")
  func shortfallWarning() throws {
    func warning(_ gravitySeconds: Double) throws -> String? {
      let folder = Self.folder(gravitySeconds: gravitySeconds)
      var feed = ImpactStream(gate: .off)
      _ = try TraceImport.stream(path: folder.path).forEachChunk(samples: 1000) { _ = feed.add($0) }
      _ = feed.finish()
      return feed.gravityWarning
    }
    // The accelerometer ends at 199.98 s.
    #expect(try warning(190) == nil && warning(199.9) == nil)
    #expect(try warning(189.9) != nil)
  }

  /// 60 min at 50 Hz of `accelerometer` (gravity-free or total) and, when
  /// asked, a gravity stream and a gyroscope at the same rate.
  static func hour(accelerometer: String, gravity: Bool, gyroscope: Bool) -> TemporaryFolder {
    let folder = TemporaryFolder()
    func rows(_ z: Double) -> String {
      var text = "time,seconds_elapsed,z,y,x\n"
      for i in 0..<180_000 { text += "0,\(Double(i) * 0.02),\(z),0.01,0\n" }
      return text
    }
    folder.write(accelerometer, rows(accelerometer == "Accelerometer.csv" ? 0.05 : 9.85))
    if gravity { folder.write("Gravity.csv", rows(9.80665)) }
    if gyroscope { folder.write("Gyroscope.csv", rows(0.001)) }
    return folder
  }

  /// The most samples the stream held between two chunks of `samples` rows.
  static func mostHeld(_ folder: TemporaryFolder, samples: Int) throws -> (Int, [ImpactBatch]) {
    var feed = ImpactStream(gate: .off)
    var most = 0
    var batches: [ImpactBatch] = []
    _ = try TraceImport.stream(path: folder.path).forEachChunk(samples: samples) { chunk in
      batches += feed.add(chunk)
      most = max(most, feed.heldSampleCount)
    }
    batches += feed.finish()
    return (most, batches)
  }

  /// Found by review17: a recording whose accelerometer includes gravity
  /// kept every row of its gravity stream (79 MB at 100 min), and one with
  /// a gravity-free accelerometer and no gravity kept its other streams to
  /// the end (only to have no feed).
  @Test("an hour streamed in chunks of 1 000 rows holds a few chunks' samples, whatever streams it has")
  func memoryDoesNotGrowWithTheRecording() throws {
    let total = Self.hour(accelerometer: "TotalAcceleration.csv", gravity: true, gyroscope: true)
    let (held, batches) = try Self.mostHeld(total, samples: 1_000)
    #expect(held <= 10_000, "held \(held) samples")
    let (trace, _) = try TraceImport.read(path: total.path)
    #expect(batches == Array(try #require(ImpactFeed(trace: trace, gate: .off)).batches()))
    let noGravity = Self.hour(accelerometer: "Accelerometer.csv", gravity: false, gyroscope: true)
    let (heldWithout, none) = try Self.mostHeld(noGravity, samples: 1_000)
    #expect(heldWithout == 0 && none.isEmpty, "held \(heldWithout) samples")
  }
}
