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

/// The executables `swift build --build-tests` puts next to the test bundle,
/// run as a user runs them: a separate process, optionally under limits.
public enum BuiltExecutable {
  /// What a run printed and how it ended.
  public struct Run: Sendable {
    /// The exit status; 124 or 137 when the time limit stopped it.
    public var status: Int32
    public var out: String
    public var err: String
  }

  /// The path of product `name` (`hearth`), nil when it was not built.
  public static func path(_ name: String) -> String? {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent(name).path }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Where a run's standard output goes.
  public enum Output: Sendable {
    /// Collected into ``Run/out``.
    case captured
    /// Written to the file at this path (`/dev/full`: every write fails).
    case file(String)
    /// A pipe whose reading end is closed before the run starts, with
    /// SIGPIPE ignored: every write fails with EPIPE.
    case closedPipe
  }

  /// Runs product `name` with `arguments`, killed after `timeLimitSeconds`,
  /// its address space capped at `memoryLimitMegabytes` when given (an
  /// allocation beyond it fails: the process ends instead of exhausting the
  /// machine), its standard output going to `standardOutput`.
  /// - Throws: when the product was not built or cannot be started.
  public static func run(
    _ name: String, _ arguments: [String], timeLimitSeconds: Int = 120, memoryLimitMegabytes: Int? = nil,
    standardOutput: Output = .captured
  ) throws -> Run {
    guard let path = path(name) else { throw ExecutableMissing(name: name) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    let limit = memoryLimitMegabytes.map { "ulimit -v \($0 * 1024); " } ?? ""
    let ignorePipe = if case .closedPipe = standardOutput { "trap '' PIPE; " } else { "" }
    process.arguments =
      ["-c", "\(limit)\(ignorePipe)exec timeout -s KILL \(timeLimitSeconds) \"$0\" \"$@\"", path] + arguments
    let out = Pipe()
    let err = Pipe()
    switch standardOutput {
    case .captured: process.standardOutput = out
    case .file(let file):
      guard let handle = FileHandle(forWritingAtPath: file) else { throw CannotOpen(path: file) }
      process.standardOutput = handle
    case .closedPipe:
      try out.fileHandleForReading.close()
      process.standardOutput = out
    }
    process.standardError = err
    try process.run()
    // Read both pipes while the child runs (a full pipe would stall it).
    let errData = LockedData()
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let o: Data
    if case .captured = standardOutput {
      o = out.fileHandleForReading.readDataToEndOfFile()
    } else {
      o = Data()
    }
    process.waitUntilExit()
    let e = errData.waitForValue()
    return Run(
      status: process.terminationStatus, out: String(decoding: o, as: UTF8.self),
      err: String(decoding: e, as: UTF8.self))
  }

  public struct ExecutableMissing: Error, CustomStringConvertible {
    public var name: String
    public var description: String {
      "no built \(name) beside the test bundle (swift build --build-tests builds it)"
    }
  }

  public struct CannotOpen: Error, CustomStringConvertible {
    public var path: String
    public var description: String { "cannot open \(path) for writing" }
  }

  private final class LockedData: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Data?
    func set(_ data: Data) {
      condition.lock()
      value = data
      condition.signal()
      condition.unlock()
    }
    func waitForValue() -> Data {
      condition.lock()
      defer { condition.unlock() }
      while value == nil { condition.wait() }
      return value ?? Data()
    }
  }
}

/// What `body` threw, in words ("\(error)"); `accepted` when it threw nothing.
public func thrownText(_ body: () throws -> Void, accepted: String = "accepted") -> String {
  do {
    try body()
    return accepted
  } catch { return "\(error)" }
}
