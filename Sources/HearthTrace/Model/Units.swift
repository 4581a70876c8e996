import Foundation

/// The physical quantities a trace column can hold, and the units accepted
/// for each on import (converted to the SI unit the trace stores).
public enum Quantity: String, Sendable, Hashable, Codable, CaseIterable {
  /// Stored in m/s².
  case acceleration
  /// Stored in rad/s.
  case angularRate
  /// Stored in hPa.
  case pressure
  /// Stored in m/s.
  case speed
  /// Stored in metres.
  case length
  /// Stored in degrees.
  case angle
  /// Stored in seconds.
  case duration

  /// Standard gravity, m/s² (ISO 80000-3), for units of g.
  public static let standardGravity = 9.806_65

  /// The unit values are stored in.
  public var storedUnit: String {
    switch self {
    case .acceleration: "m/s^2"
    case .angularRate: "rad/s"
    case .pressure: "hPa"
    case .speed: "m/s"
    case .length: "m"
    case .angle: "deg"
    case .duration: "s"
    }
  }

  /// The factor that converts a value in `unit` to ``storedUnit``, or nil
  /// when the unit is not one this quantity accepts. Spelling is lenient
  /// about case, `^`, `²`, `°` and spaces ("m/s^2", "m/s²", "m s-2").
  public func factor(from unit: String) -> Double? {
    let u = Self.normalised(unit)
    switch self {
    case .acceleration:
      switch u {
      case "m/s2", "ms-2", "mps2", "m/s/s": return 1
      case "g", "gn", "g0": return Self.standardGravity
      default: return nil
      }
    case .angularRate:
      switch u {
      case "rad/s", "rads-1", "rads": return 1
      case "deg/s", "°/s", "dps", "degs-1": return .pi / 180
      default: return nil
      }
    case .pressure:
      switch u {
      case "hpa", "mbar", "mb": return 1
      case "kpa": return 10
      case "pa": return 0.01
      case "bar": return 1000
      case "inhg": return 33.863_886_666_667
      default: return nil
      }
    case .speed:
      switch u {
      case "m/s", "ms-1", "mps": return 1
      case "km/h", "kmh", "kph": return 1000.0 / 3600.0
      case "mph", "mi/h": return 0.447_04  // exact: 1609.344 m / 3600 s
      case "kn", "kt", "knot", "knots": return 1852.0 / 3600.0
      default: return nil
      }
    case .length:
      switch u {
      case "m": return 1
      case "km": return 1000
      case "ft": return 0.3048
      case "cm": return 0.01
      default: return nil
      }
    case .angle:
      switch u {
      case "deg", "°", "degrees", "degree": return 1
      case "rad", "radians": return 180 / .pi
      default: return nil
      }
    case .duration:
      switch u {
      case "s", "sec", "seconds": return 1
      case "ms": return 1e-3
      case "us", "µs", "μs": return 1e-6
      case "ns": return 1e-9
      default: return nil
      }
    }
  }

  static func normalised(_ unit: String) -> String {
    var u = unit.lowercased().replacingOccurrences(of: " ", with: "")
    u = u.replacingOccurrences(of: "^", with: "").replacingOccurrences(of: "²", with: "2")
    u = u.replacingOccurrences(of: "⁻¹", with: "-1").replacingOccurrences(of: "⁻²", with: "-2")
    return u
  }
}
