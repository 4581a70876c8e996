// Test support for the Hearth test suites. Not API: nothing outside Tests/
// depends on it.

import Foundation
import HearthGeo

/// Where things are when tests run from a checkout.
public enum TestPaths {
  /// The repository root (two levels above this file's folder).
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The project's own datasets/ folder.
  public static var projectDatasets: URL { repositoryRoot.appendingPathComponent("datasets") }

  /// The shared real recordings: $HEARTH_SHARED_DATASETS, else ../shared/datasets
  /// next to the checkout (where CI has them).
  public static var sharedDatasets: URL {
    if let override = ProcessInfo.processInfo.environment["HEARTH_SHARED_DATASETS"] {
      return URL(fileURLWithPath: override)
    }
    return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets")
  }
}

/// A small CSV reader for committed reference tables (plain, comma separated,
/// no quoting, a header row). Fails loudly: a broken reference file must stop
/// the test, not be skipped.
public struct ReferenceTable {
  public let header: [String]
  public let rows: [[String]]

  public init(contentsOf url: URL) throws {
    let text = try String(contentsOf: url, encoding: .utf8)
    var lines = text.split(whereSeparator: \.isNewline).map(String.init)
    guard !lines.isEmpty else { throw ReferenceTableError.empty(url.path) }
    header = lines.removeFirst().split(separator: ",").map(String.init)
    rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    for (index, row) in rows.enumerated() where row.count != header.count {
      throw ReferenceTableError.badRow(url.path, index + 2)
    }
  }

  /// The column named `name` as doubles.
  public func doubles(_ name: String) throws -> [Double] {
    guard let column = header.firstIndex(of: name) else {
      throw ReferenceTableError.missingColumn(name)
    }
    return try rows.enumerated().map { index, row in
      guard let value = Double(row[column]) else {
        throw ReferenceTableError.badValue(name, index + 2, row[column])
      }
      return value
    }
  }

  /// The column named `name` as strings.
  public func strings(_ name: String) throws -> [String] {
    guard let column = header.firstIndex(of: name) else {
      throw ReferenceTableError.missingColumn(name)
    }
    return rows.map { $0[column] }
  }
}

public enum ReferenceTableError: Error, CustomStringConvertible {
  case empty(String)
  case badRow(String, Int)
  case missingColumn(String)
  case badValue(String, Int, String)

  public var description: String {
    switch self {
    case .empty(let path): "\(path) is empty"
    case .badRow(let path, let line): "\(path):\(line): wrong number of fields"
    case .missingColumn(let name): "no column \(name)"
    case .badValue(let name, let line, let value): "line \(line): \(name) '\(value)' is not a number"
    }
  }
}

/// Distance in units in the last place between two doubles (0 when equal,
/// .infinity when exactly one is NaN or they differ in sign by more than 0).
public func ulpDistance(_ a: Double, _ b: Double) -> Double {
  if a == b || (a.isNaN && b.isNaN) { return 0 }
  if a.isNaN || b.isNaN { return .infinity }
  let scale = max(a.magnitude, b.magnitude).ulp
  return (a - b).magnitude / scale
}

/// Smallest difference between two angles in degrees, in [0, 180].
public func angularDifferenceDegrees(_ a: Double, _ b: Double) -> Double {
  let d = (a - b).truncatingRemainder(dividingBy: 360).magnitude
  return min(d, 360 - d)
}

/// A coordinate from (latitude, longitude) in degrees: shorthand for tests.
public func point(_ latitudeDegrees: Double, _ longitudeDegrees: Double) -> Coordinate {
  Coordinate(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
}

/// A fresh temporary folder for one test, removed when the value is released.
public final class TemporaryFolder: @unchecked Sendable {
  public let path: String

  public init() {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("hearth-test-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// Writes `bytes` to `name` inside the folder and returns the full path.
  @discardableResult
  public func write(_ name: String, _ bytes: [UInt8]) -> String {
    let full = (path as NSString).appendingPathComponent(name)
    try? FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    return full
  }

  /// Writes UTF-8 `text`.
  @discardableResult
  public func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

  public func path(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}
