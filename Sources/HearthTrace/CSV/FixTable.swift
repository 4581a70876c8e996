import Foundation
import HearthGeo

/// The minimal fix table peers read (trackintel, movingpandas, pandas):
/// `user,time_ms,latitude,longitude` — the person's id, milliseconds since
/// the Unix epoch, and WGS84 degrees printed shortest-round-trip, so a peer
/// parses exactly the values Hearth used.
public enum FixTable {
  public static let header = "user,time_ms,latitude,longitude"

  /// The rows of `fixes` in their order, header first, one line each. O(n).
  public static func text(_ fixes: some Sequence<FixColumns>) -> String {
    var text = header + "\n"
    for f in fixes {
      for i in 0..<f.count {
        text +=
          "\(f.user[i].rawValue),\(f.timeMilliseconds[i]),\(f.latitudeDegrees[i]),\(f.longitudeDegrees[i])\n"
      }
    }
    return text
  }

  /// Writes the table to `path`.
  /// - Throws: `TraceError.io` when the file cannot be written.
  public static func write(_ fixes: some Sequence<FixColumns>, to path: String) throws {
    do { try Data(text(fixes).utf8).write(to: URL(fileURLWithPath: path)) } catch {
      throw TraceError.io(path: path, reason: "cannot write: \(FolderListing.reason(error))")
    }
  }
}
