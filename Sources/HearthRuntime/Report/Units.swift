import Foundation
import HearthImpact
import HearthTrace

/// The unit of every value the detector measures, as people and notebooks
/// read it: what the text, CSV and JSON outputs print beside each number.
public enum ImpactUnits {
  /// The unit of a condition's measured value and threshold.
  public static func unit(_ name: ImpactCondition.Name) -> String {
    switch name {
    case .jolt, .movingBeforeVibration, .movingAtJoltVibration: "m/s²"
    case .movingBeforeGPS, .movingAtJoltGPS, .stayedStoppedGPS: "m/s"
    case .restWithin, .freeFallVeto: "s"
    case .stoppedVibrationRatio: "fraction"
    case .spin: "rad/s"
    case .pressureRise: "hPa"
    }
  }

  /// A CSV column name for a condition's measured value, unit included:
  /// `spin_rad_s`, `pressure_rise_hpa`, `moving_before_gps_m_s`, …
  public static func column(_ name: ImpactCondition.Name) -> String {
    var snake = ""
    for ch in name.rawValue {
      if ch.isUppercase, !snake.isEmpty, !(snake.last?.isUppercase ?? false) { snake.append("_") }
      snake.append(ch)
    }
    snake = snake.lowercased()
    let suffix: String? =
      switch unit(name) {
      case "m/s²": "m_s2"
      case "m/s": "m_s"
      case "rad/s": "rad_s"
      case "hPa": "hpa"
      case "s": "s"
      default: nil  // a fraction: the name says "ratio" already
      }
    return suffix.map { snake + "_" + $0 } ?? snake
  }

  /// `value` with its unit for a person ("17.02 g", "3.51 rad/s"); a jolt is
  /// shown in g (and m/s²); "n/a" when nothing was measured.
  public static func text(_ value: Double, _ name: ImpactCondition.Name) -> String {
    guard value.isFinite else { return "n/a" }
    if name == .jolt {
      return String(format: "%.2f g (%.1f m/s²)", value / ImpactConfiguration.standardGravity, value)
    }
    return String(format: "%.3g", value) + " " + unit(name)
  }
}

extension ImpactUnits {
  /// The thresholds a sweep varies, as `c` sets them, by condition.
  static func sweptThreshold(_ name: ImpactCondition.Name, _ c: ImpactConfiguration) -> Double? {
    switch name {
    case .jolt: c.joltMetersPerSecondSquared
    case .spin: c.spinRadiansPerSecond
    case .pressureRise: c.pressureRiseHectopascals
    case .movingBeforeGPS: c.movingMedianMetersPerSecond
    case .freeFallVeto: c.freeFallSeconds
    default: nil
    }
  }

  /// A verdict in one line with units: outcome, times, then every condition
  /// as "name held|failed (measured vs threshold)". With `c`, the verdict is
  /// shown judged under `c` (a sweep's combination): its outcome, the
  /// thresholds `c` sets and which conditions hold under them.
  public static func describe(_ v: ImpactVerdict, under c: ImpactConfiguration? = nil) -> String {
    let outcome = c.map { v.outcome(under: $0) } ?? v.outcome
    let conditions = v.conditions.map { condition in
      var threshold = condition.threshold
      var held = condition.held
      // A swept threshold holds (for the veto: applies) when the measured
      // value reaches it; the stop conditions keep their outcome.
      if let c, let swept = sweptThreshold(condition.name, c) {
        threshold = swept
        held = condition.measured >= swept
      }
      return
        "\(condition.name.rawValue) \(held ? "held" : "failed") (\(text(condition.measured, condition.name)) vs \(text(threshold, condition.name)))"
        + (condition.note.isEmpty ? "" : " " + condition.note)
    }
    // A suppressed jolt is not judged: nothing was read of the car's motion.
    // GPS may read "moving" and leave the stop to the vibration.
    let moving = v.usedGPS ? "GPS" : "vibration"
    let stopped = v.measurement.map { $0.stopSource == .gps ? "GPS" : "vibration" } ?? moving
    let source =
      outcome == .suppressed
      ? "not judged"
      : moving == stopped
        ? "moving and stopped from \(moving)" : "moving from \(moving), stopped from \(stopped)"
    return
      "\(outcome.rawValue) at \(String(format: "%.2f", v.joltSeconds)) s, decided at \(String(format: "%.2f", v.decidedSeconds)) s, \(source): "
      + conditions.joined(separator: "; ")
  }
}

/// JSON as the outputs write it: keys sorted, numbers shortest-round-trip,
/// NaN and ±∞ as `null` (JSON has no NaN; pandas and `json.loads` read
/// `null` as missing).
public enum JSONOutput {
  private static let nonFinite = "\u{1}hearth-non-finite\u{1}"

  /// The encoded value, pretty-printed or one line.
  /// - Throws: `TraceError.io` when the value cannot be encoded.
  public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
    try Writer(pretty: pretty).encode(value)
  }

  /// One encoder for many values (the lines of one output): the encoder
  /// and its placeholder's bytes are made once, not per value.
  public struct Writer {
    private let encoder = JSONEncoder()
    /// The placeholder as the encoder writes it, quotes and escapes included.
    private let marker: [UInt8]

    /// - Throws: `TraceError.io` if the placeholder cannot be encoded (never in practice).
    public init(pretty: Bool = false) throws {
      encoder.outputFormatting =
        pretty
        ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
      encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: JSONOutput.nonFinite, negativeInfinity: JSONOutput.nonFinite,
        nan: JSONOutput.nonFinite)
      do { marker = Array(try encoder.encode(JSONOutput.nonFinite)) } catch {
        throw TraceError.io(path: "-", reason: "cannot encode JSON: \(error)")
      }
    }

    /// `value` as JSON, the placeholder of every non-finite number made
    /// `null` (no text a person wrote holds it: it is control characters).
    /// O(size of the text).
    /// - Throws: `TraceError.io` when the value cannot be encoded.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
      let data: Data
      do { data = try encoder.encode(value) } catch {
        throw TraceError.io(path: "-", reason: "cannot encode JSON: \(error)")
      }
      return Self.replacing(marker, withNullIn: data)
    }

    /// `data` with every occurrence of `marker` replaced by `null`; `data`
    /// itself when there is none. Each pass moves on by at least one byte.
    static func replacing(_ marker: [UInt8], withNullIn data: Data) -> Data {
      guard let first = marker.first else { return data }
      let bytes = [UInt8](data)
      var out: [UInt8] = []
      var copied = 0
      var i = 0
      while i + marker.count <= bytes.count {
        if bytes[i] == first && bytes[i..<i + marker.count].elementsEqual(marker) {
          out += bytes[copied..<i]
          out += Array("null".utf8)
          i += marker.count
          copied = i
        } else {
          i += 1
        }
      }
      guard copied > 0 else { return data }
      out += bytes[copied...]
      return Data(out)
    }
  }
}
