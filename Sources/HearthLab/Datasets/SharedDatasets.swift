import Foundation

/// Where the shared real recordings are (`../shared/datasets`: read, never
/// copied into the project) and the folders the evaluations and the
/// calibration use. Each folder's SOURCE.txt gives provenance and licence.
public struct SharedDatasets: Sendable, Hashable {
  /// The folder holding `comma2k19-example/`, `mems-nav-drives/`, … .
  public var root: String

  public init(root: String) { self.root = root }

  /// `$HEARTH_SHARED_DATASETS` when set, else `../shared/datasets` (relative
  /// to the working directory: a checkout's root, where CI has them).
  public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> SharedDatasets
  {
    SharedDatasets(root: environment["HEARTH_SHARED_DATASETS"] ?? "../shared/datasets")
  }

  func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }

  /// comma2k19's one 60 s highway segment (phone-class IMU, CAN speed, GNSS).
  public var comma2k19Segment: String {
    path("comma2k19-example/Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40")
  }
  /// The MEMS-Nav Sensor Logger export with 2.4 h of fixes and network fixes.
  public var memsNavRawDrive: String { path("mems-nav-drives/raw/2023-08-04_214758") }
  /// MEMS-Nav's four drives resampled to 1 Hz (one folder per drive).
  public var memsNavProcessed: String { path("mems-nav-drives/processed_1hz") }
  /// The phyphox drop recordings, one folder per drop.
  public var phoneDrops: String { path("phone-drop-freefall/raw_data") }
  /// tracktable's AIS vessels.
  public var tracktableAIS: String { path("tracktable-ais") }
}
