import Foundation
import Testing
import _HearthTestSupport

/// The built `hearth` beside the test bundle (`swift build --build-tests`
/// builds every product there, or one folder up).
func builtHearth() -> String {
  let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let beside = bundleFolder.appendingPathComponent("hearth").path
  return FileManager.default.fileExists(atPath: beside)
    ? beside : bundleFolder.deletingLastPathComponent().appendingPathComponent("hearth").path
}

@Suite("The README's quick start")
struct QuickStartTests {
  /// The README's quick-start block as a newcomer would run it, with the
  /// release build replaced by the test build and the output folder by a
  /// temporary one.
  @Test("runs as written: generate, detect, sweep, pick, detect with the picked configuration, pandas")
  func quickStart() throws {
    let readme = try String(
      contentsOf: TestPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let parts = readme.components(separatedBy: "<!-- quick-start -->")
    try #require(parts.count == 2, "the README has one quick-start block")
    let block = try #require(parts[1].components(separatedBy: "<!-- /quick-start -->").first)
    let lines = block.components(separatedBy: "\n").drop { !$0.hasPrefix("```sh") }.dropFirst()
      .prefix { !$0.hasPrefix("```") }
    let folder = TemporaryFolder()
    var script = ["set -euo pipefail", "export PATH=\"\((builtHearth() as NSString).deletingLastPathComponent):$PATH\""]
    for line in lines {
      if line.hasPrefix("swift build") { continue }
      script.append(line.hasPrefix("out=") ? "out=\(folder.path)" : line)
    }
    #expect(script.contains { $0.hasPrefix("hearth impact sweep") })
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script.joined(separator: "\n")]
    process.currentDirectoryURL = TestPaths.repositoryRoot
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "stdout:\n\(stdout)\nstderr:\n\(stderr)")
    #expect(stdout.contains("c1: possibleImpact at 39.96 s"), "\(stdout)")
    #expect(stdout.contains("no jolt ≥ 5.00 g") && stdout.contains("fall_1: silent"), "\(stdout)")
    #expect(stdout.contains("crashes; spin ROC has"), "\(stdout)")
    let picked = try String(contentsOfFile: folder.path("sweep/picked-configuration.json"), encoding: .utf8)
    #expect(picked.contains("\"spinRadiansPerSecond\" : 3,") && picked.contains("\"pressureRiseHectopascals\" : 4"))
    #expect(FileManager.default.fileExists(atPath: folder.path("sweep/report.html")))
  }
}

@Suite("The README's library example")
struct DependencyExampleTests {
  /// The README's two Swift blocks as a package beside a link named `hearth`
  /// to this checkout: it must build with the toolchain alone and print a
  /// Berlin–Paris distance.
  @Test("builds against this checkout as the package 'hearth' and runs")
  func libraryExample() throws {
    let readme = try String(
      contentsOf: TestPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(
      readme.components(separatedBy: "### The library as a dependency").dropFirst().first)
    let blocks = section.components(separatedBy: "```swift\n").dropFirst().map {
      $0.components(separatedBy: "```").first ?? ""
    }
    try #require(blocks.count >= 2)
    let folder = TemporaryFolder()
    try FileManager.default.createSymbolicLink(
      atPath: folder.path("hearth"), withDestinationPath: TestPaths.repositoryRoot.path)
    try FileManager.default.createDirectory(
      atPath: folder.path("demo/Sources/Demo"), withIntermediateDirectories: true)
    try blocks[0].write(toFile: folder.path("demo/Package.swift"), atomically: true, encoding: .utf8)
    try blocks[1].write(toFile: folder.path("demo/Sources/Demo/main.swift"), atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift", "run", "--package-path", folder.path("demo"), "-q", "Demo"]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(stderr)")
    let metres = Double(stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    #expect(abs(metres - 877_464) < 1_000, "\(stdout)")
  }
}
