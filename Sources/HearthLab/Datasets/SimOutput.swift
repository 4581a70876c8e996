import Foundation
import HearthGeo
import HearthSim
import HearthTrace

/// Writes generated data as trace folders (decision 0004) with their labels
/// as JSON beside them. Output is byte-identical for the same seed: JSON keys
/// are sorted and numbers printed shortest-round-trip.
public enum SimOutput {
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return encoder
  }

  static func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
    do {
      var data = try encoder().encode(value)
      data.append(0x0A)
      try data.write(to: URL(fileURLWithPath: path))
    } catch {
      throw TraceError.io(path: path, reason: "cannot write JSON: \(error)")
    }
  }

  /// A scenario: `folder/trace/` (the streams), `folder/label.json`,
  /// `folder/plan.json`. Returns the files written.
  @discardableResult
  public static func write(_ scenario: SimulatedScenario, to folder: String) throws -> [String] {
    try TraceFolder.write(scenario.trace, to: folder + "/trace")
    try writeJSON(scenario.label, to: folder + "/label.json")
    try writeJSON(scenario.plan, to: folder + "/plan.json")
    return ["trace/", "label.json", "plan.json"]
  }

  /// What the server received, upload by upload (the fixes are in the trace
  /// folder in the same order).
  struct UploadRecord: Codable {
    var receivedMilliseconds: Int64
    var device: UInt32
    var fixCount: Int
    var isRepeat: Bool
  }

  struct DayManifest: Codable {
    var seed: UInt64
    var options: DayOptions
    var places: [Place]
    var uploads: [UploadRecord]
  }

  /// A day: `folder/trace/` (every uploaded fix in arrival order),
  /// `folder/day.json` (seed, options, places, upload boundaries),
  /// `folder/places.geojson` (the places, for `hearth geo replay`) and
  /// `folder/labels.json`.
  @discardableResult
  public static func write(_ day: LocationDay, to folder: String) throws -> [String] {
    var trace = Trace(
      metadata: TraceMetadata(device: "HearthSim day", platform: .unknown, format: "hearth-sim-day"))
    trace.fixes = day.fixesInArrivalOrder
    try TraceFolder.write(trace, to: folder + "/trace")
    let uploads = day.uploads.map {
      UploadRecord(
        receivedMilliseconds: $0.receivedMilliseconds, device: $0.device.rawValue, fixCount: $0.fixes.count,
        isRepeat: $0.isRepeat)
    }
    try writeJSON(
      DayManifest(seed: day.seed, options: day.options, places: day.places, uploads: uploads),
      to: folder + "/day.json")
    try GeoJSON.write(
      day.places.map {
        GeoJSON.place(id: String($0.id), name: $0.name, centre: $0.center, radiusMeters: $0.radiusMeters)
      }, to: folder + "/places.geojson")
    try writeJSON(day.labels, to: folder + "/labels.json")
    return ["trace/", "day.json", "places.geojson", "labels.json"]
  }
}
