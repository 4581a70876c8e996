import Foundation
import HearthImpact
import HearthTrace

/// The detector's configuration as a JSON file: what `impact detect`,
/// `impact sweep` and `sim evaluate impact` read with `--config`, what the
/// sweep writes for every combination, and what the library reads and writes.
///
/// The file is one JSON object whose keys are `ImpactConfiguration`'s
/// properties (units in their names). A file may give any subset: missing
/// keys keep their defaults, so `{"spinRadiansPerSecond": 3}` is a whole
/// configuration. An unknown key (a typo) or a value that is not a finite
/// number (or an integer where one is wanted) is an error naming the key,
/// never silently ignored.
public enum ImpactConfigurationFile {
  /// The configuration in `path` over the defaults.
  /// - Throws: `TraceError.io` when the file cannot be read (with the
  ///   system's reason; a FIFO, a device, over ``maximumFileBytes``),
  ///   `TraceError.malformed` naming the key and why when it is not a
  ///   configuration.
  public static func read(path: String) throws -> ImpactConfiguration {
    try decode(Data(RegularFile.read(path, limit: maximumFileBytes)), name: path)
  }

  /// The largest configuration file read, bytes (a whole configuration is
  /// under 2 KB).
  public static let maximumFileBytes = 1 << 20

  /// The configuration in `data` (named `name` in errors) over `base`.
  /// - Throws: `TraceError.malformed` as for ``read(path:)``.
  public static func decode(
    _ data: Data, name: String, over base: ImpactConfiguration = ImpactConfiguration()
  ) throws -> ImpactConfiguration {
    func bad(_ reason: String) -> TraceError {
      .malformed(SourceLocation(file: name, line: 0), reason: reason)
    }
    if let problem = JSONKeys.problem(in: Array(data)) {
      throw bad("not a JSON object of detector settings: \(problem)")
    }
    let given: [String: Setting]
    do { given = try JSONDecoder().decode([String: Setting].self, from: data) } catch {
      throw bad("not a JSON object of detector settings, each a number")
    }
    var merged: [String: Setting]
    do { merged = try JSONDecoder().decode([String: Setting].self, from: JSONEncoder().encode(base)) } catch {
      throw bad("cannot represent the base configuration")
    }
    for key in given.keys.sorted() {
      guard merged[key] != nil else {
        throw bad(JSONKeys.unknown(key, known: Array(merged.keys), what: "setting"))
      }
      guard case .number(let value) = given[key], value.isFinite else {
        throw bad("'\(key)' must be a finite number")
      }
      merged[key] = .number(value)
    }
    func decoded(_ settings: [String: Setting]) -> ImpactConfiguration? {
      (try? JSONEncoder().encode(settings)).flatMap {
        try? JSONDecoder().decode(ImpactConfiguration.self, from: $0)
      }
    }
    if let configuration = decoded(merged) { return configuration }
    // A value outside its domain: the configuration's own decoder names it.
    if let json = try? JSONEncoder().encode(merged) {
      do {
        _ = try JSONDecoder().decode(ImpactConfiguration.self, from: json)
      } catch DecodingError.dataCorrupted(let context)
        where context.debugDescription.hasPrefix("invalid impact configuration")
      {
        throw bad(context.debugDescription)
      } catch {}
    }
    // Foundation's decoder does not say which key failed: find it by trying
    // each given setting alone over the base.
    let defaults = try JSONDecoder().decode([String: Setting].self, from: JSONEncoder().encode(base))
    for key in given.keys.sorted() {
      var one = defaults
      one[key] = merged[key]
      if decoded(one) == nil { throw bad("'\(key)' must be a whole number") }
    }
    throw bad("not a detector configuration")
  }

  /// A value of the file: a number, or anything else (refused).
  enum Setting: Codable, Equatable {
    case number(Double)
    case other

    init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let bool = try? container.decode(Bool.self) {
        _ = bool
        self = .other
      } else if let value = try? container.decode(Double.self) {
        self = .number(value)
      } else {
        self = .other
      }
    }

    func encode(to encoder: Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .number(let value): try container.encode(value)
      case .other: try container.encodeNil()
      }
    }
  }

  /// Every setting of `configuration`, keys sorted, one per line.
  /// - Throws: `TraceError.io` when it cannot be encoded (never for a real configuration).
  public static func encode(_ configuration: ImpactConfiguration) throws -> Data {
    var data = try JSONOutput.encode(configuration, pretty: true)
    data.append(0x0A)
    return data
  }
}

/// The thresholds a person sets on the command line, in SPEC §9's units (g
/// for the jolt, rad/s, hPa, m/s, s); each one given replaces the
/// configuration's value. The same five settings a sweep grid lists.
public struct ImpactThresholds: Sendable, Hashable {
  /// One of the five thresholds, in its door unit.
  public enum Setting: String, Sendable, Hashable, CaseIterable {
    case joltG, spinRadiansPerSecond, pressureRiseHectopascals, movingMetersPerSecond, freeFallSeconds

    /// The configuration's value of this setting, in the setting's unit (g for the jolt).
    public func value(in c: ImpactConfiguration) -> Double {
      switch self {
      case .joltG: c.joltMetersPerSecondSquared / ImpactConfiguration.standardGravity
      case .spinRadiansPerSecond: c.spinRadiansPerSecond
      case .pressureRiseHectopascals: c.pressureRiseHectopascals
      case .movingMetersPerSecond: c.movingMedianMetersPerSecond
      case .freeFallSeconds: c.freeFallSeconds
      }
    }

    /// Sets `value` (in the setting's unit) in `c`. O(1).
    public func set(_ value: Double, in c: inout ImpactConfiguration) {
      switch self {
      case .joltG: c.joltMetersPerSecondSquared = value * ImpactConfiguration.standardGravity
      case .spinRadiansPerSecond: c.spinRadiansPerSecond = value
      case .pressureRiseHectopascals: c.pressureRiseHectopascals = value
      case .movingMetersPerSecond: c.movingMedianMetersPerSecond = value
      case .freeFallSeconds: c.freeFallSeconds = value
      }
    }

    /// What `value` for this setting over `base` breaks, each line prefixed
    /// with the door's `name` for it and the value as given
    /// ("--jolt-g -4: joltMetersPerSecondSquared: … is outside (0, …] m/s²"):
    /// the lines of ``ImpactConfiguration/problems`` the value adds. O(1).
    public func problems(_ value: Double, over base: ImpactConfiguration, name: String) -> [String] {
      var c = base
      set(value, in: &c)
      let before = Set(base.problems)
      return c.problems.filter { !before.contains($0) }.map {
        "\(name) \(ImpactConfiguration.settingText(value)): \($0)"
      }
    }
  }

  public var joltG: Double?
  public var spinRadiansPerSecond: Double?
  public var pressureRiseHectopascals: Double?
  public var movingMetersPerSecond: Double?
  public var freeFallSeconds: Double?

  public init(
    joltG: Double? = nil, spinRadiansPerSecond: Double? = nil, pressureRiseHectopascals: Double? = nil,
    movingMetersPerSecond: Double? = nil, freeFallSeconds: Double? = nil
  ) {
    self.joltG = joltG
    self.spinRadiansPerSecond = spinRadiansPerSecond
    self.pressureRiseHectopascals = pressureRiseHectopascals
    self.movingMetersPerSecond = movingMetersPerSecond
    self.freeFallSeconds = freeFallSeconds
  }

  /// The value given for `setting`, nil when none.
  public subscript(setting: Setting) -> Double? {
    switch setting {
    case .joltG: joltG
    case .spinRadiansPerSecond: spinRadiansPerSecond
    case .pressureRiseHectopascals: pressureRiseHectopascals
    case .movingMetersPerSecond: movingMetersPerSecond
    case .freeFallSeconds: freeFallSeconds
    }
  }

  /// `configuration` with the given thresholds set. O(1).
  public func applied(to configuration: ImpactConfiguration) -> ImpactConfiguration {
    var c = configuration
    for setting in Setting.allCases { if let value = self[setting] { setting.set(value, in: &c) } }
    return c
  }

  /// What the given thresholds break over `base` (empty: ``applied(to:)``
  /// gives a configuration the detector takes when `base` is one), each
  /// line named by `name` (the door's own name for the setting: a flag, a
  /// key) and the value given. O(1).
  public func problems(over base: ImpactConfiguration, name: (Setting) -> String) -> [String] {
    var out: [String] = []
    for setting in Setting.allCases {
      if let value = self[setting] { out += setting.problems(value, over: base, name: name(setting)) }
    }
    let applied = applied(to: base)
    // A rule between two of them (none today) shows on the whole.
    if out.isEmpty && !applied.problems.isEmpty { out = applied.problems }
    return out
  }
}
