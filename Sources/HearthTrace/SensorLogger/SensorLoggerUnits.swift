/// What Sensor Logger writes in each of its files, per platform and per the
/// app's "Standardise Units & Frames" setting, as the app's own unit,
/// coordinate and cross-platform references state it (UNITS.md,
/// COORDINATES.md and CROSSPLATFORM.md of tszheichoi/awesome-sensor-logger):
///
/// | file | Android | iOS, setting off (the default) | iOS, setting on |
/// |---|---|---|---|
/// | Accelerometer.csv (calibrated, gravity removed) | m/s² | m/s², axes negated | m/s² |
/// | TotalAcceleration.csv (Android only) | m/s² | — | — |
/// | AccelerometerUncalibrated.csv (gravity included) | m/s² | g, axes negated | m/s² |
/// | Gravity.csv | m/s² | m/s², negated | m/s² |
/// | Gyroscope.csv | rad/s | rad/s (same sign) | rad/s |
/// | Barometer.csv (phone) | mbar = hPa | mbar = hPa | mbar = hPa |
/// | WatchBarometer.csv | kPa | kPa | mbar = hPa |
///
/// "Negated": iOS reports acceleration as an inertial force and gravity
/// pointing down (−z for a phone flat on a table), Android the accelerating
/// force and gravity up (+z). The trace uses Android's convention (the
/// right-handed one the setting converts iOS to): an accelerometer at rest
/// reads +9.81 m/s² along the axis pointing up. Magnitudes do not depend on
/// it; directions do.
///
/// Metadata.csv says the platform (`platform`: ios or android) and, in
/// newer exports, the setting (`standardisation`: true or false); an export
/// without the column was made before the setting existed or with it off.
/// Where the reference leaves a file's unit open (the uncalibrated
/// accelerometer of an unknown platform, a watch barometer without
/// Metadata.csv or with the setting on under Android, where the references
/// contradict each other), the file is skipped and says so.
struct SensorLoggerSettings: Sendable, Hashable {
  var platform: Platform = .unknown
  /// `standardisation` from Metadata.csv; nil when the column is absent or
  /// unreadable.
  var standardised: Bool?
  /// The `standardisation` value when it is neither `true` nor `false`
  /// ("1", "yes"): the setting is unknown, and so is every unit or
  /// direction that depends on it.
  var unreadableStandardisation: String?
  /// Whether Metadata.csv was read at all.
  var hasMetadata = false

  /// Whether iOS's axes must be negated to reach the trace's convention.
  var negatesAxes: Bool { platform == .iOS && standardised != true && unreadableStandardisation == nil }
}

/// One Sensor Logger file the reader uses.
enum SensorLoggerFile: String, CaseIterable, Sendable {
  case metadata = "Metadata.csv"
  case totalAcceleration = "TotalAcceleration.csv"
  case accelerometer = "Accelerometer.csv"
  case accelerometerUncalibrated = "AccelerometerUncalibrated.csv"
  case gravity = "Gravity.csv"
  case gyroscope = "Gyroscope.csv"
  case barometer = "Barometer.csv"
  case watchBarometer = "WatchBarometer.csv"
  case location = "Location.csv"
  case locationGPS = "LocationGps.csv"
  case locationNetwork = "LocationNetwork.csv"
  case activity = "Activity.csv"

  /// How a file's numbers become the trace's units.
  struct Units: Sendable, Hashable {
    /// Multiplies every value (x, y, z or pressure).
    var factor: Double
    /// Negates x, y and z (iOS axes to the trace's convention).
    var negate: Bool
    /// In words, for ``FileReport/units``.
    var description: String
  }

  /// The units of this sensor file under `settings`, or why they cannot be
  /// known. Nil for files that hold no sensor values (metadata, locations,
  /// activity: their units are the same everywhere).
  func units(_ settings: SensorLoggerSettings) -> Result<Units, UnitsUnknown>? {
    let setting = settings.standardised == true ? "“Standardise Units & Frames” on" : "the setting off"
    let unknownSetting = settings.unreadableStandardisation.map {
      "Metadata.csv's standardisation reads “\($0)”, neither true nor false, so the setting is unknown"
    }
    func axes() -> (Bool, String) {
      switch settings.platform {
      case .android: return (false, "Android axes (the trace's convention)")
      case .iOS where unknownSetting != nil:
        return (
          false,
          "directions as recorded: \(unknownSetting ?? ""), and iOS's axes are the negatives of Android's unless it was on"
        )
      case .iOS:
        return settings.negatesAxes
          ? (true, "iOS axes negated to the trace's (Android) convention")
          : (false, "iOS axes already in the Android convention (\(setting))")
      case .unknown:
        return (
          false,
          "directions as recorded: Metadata.csv does not say the platform, and iOS's axes are the negatives of Android's"
        )
      }
    }
    switch self {
    case .accelerometer, .totalAcceleration, .gravity:
      let (negate, words) = axes()
      return .success(
        Units(factor: 1, negate: negate, description: "x, y, z in m/s² (both platforms); \(words)"))
    case .accelerometerUncalibrated:
      let (negate, words) = axes()
      switch settings.platform {
      case .android:
        return .success(Units(factor: 1, negate: negate, description: "x, y, z in m/s² (Android); \(words)"))
      case .iOS where unknownSetting != nil:
        return .failure(
          UnitsUnknown(
            reason:
              "unit unknown: the uncalibrated accelerometer is in g on iOS unless “Standardise Units & Frames” was on, and \(unknownSetting ?? "")"
          ))
      case .iOS where settings.standardised == true:
        return .success(
          Units(factor: 1, negate: negate, description: "x, y, z in m/s² (iOS, \(setting)); \(words)"))
      case .iOS:
        return .success(
          Units(
            factor: Quantity.standardGravity, negate: negate,
            description: "x, y, z in g (iOS, \(setting)) × 9.80665 → m/s²; \(words)"))
      case .unknown:
        return .failure(
          UnitsUnknown(
            reason:
              "unit unknown: the uncalibrated accelerometer is in g on iOS and m/s² on Android, and Metadata.csv does not say the platform"
          ))
      }
    case .gyroscope:
      return .success(
        Units(factor: 1, negate: false, description: "x, y, z in rad/s (both platforms, same sign)"))
    case .barometer:
      return .success(Units(factor: 1, negate: false, description: "pressure in mbar = hPa (both platforms)"))
    case .watchBarometer:
      guard settings.hasMetadata else {
        return .failure(
          UnitsUnknown(
            reason:
              "unit unknown: the watch barometer is in kPa unless “Standardise Units & Frames” was on (then mbar), and there is no Metadata.csv to say"
          ))
      }
      if let unknownSetting {
        return .failure(
          UnitsUnknown(
            reason:
              "unit unknown: the watch barometer is in kPa unless “Standardise Units & Frames” was on (then mbar), and \(unknownSetting)"
          ))
      }
      if settings.standardised == true {
        if settings.platform == .android {
          return .failure(
            UnitsUnknown(
              reason:
                "unit unknown: Sensor Logger's references say the setting converts the watch barometer to mbar but has no effect on Android"
            ))
        }
        return .success(
          Units(factor: 1, negate: false, description: "pressure in mbar = hPa (watch, \(setting))"))
      }
      return .success(
        Units(factor: 10, negate: false, description: "pressure in kPa (watch, \(setting)) × 10 → hPa"))
    case .metadata, .location, .locationGPS, .locationNetwork, .activity:
      return nil
    }
  }

  struct UnitsUnknown: Error, Sendable, Hashable {
    var reason: String
  }
}
