import Foundation
import HearthLab
import HearthRuntime
import HearthTrace

/// `--format text|json|csv`, the same word in every command that prints records.
enum Formats: String {
  case text, json, csv

  static func choose(_ arguments: Arguments, default fallback: Formats = .text) throws(CLIError) -> Formats {
    guard let text = arguments.options["format"] else { return fallback }
    guard let format = Formats(rawValue: text) else {
      throw CLIError.usage("--format must be text, json or csv, not '\(text)'")
    }
    return format
  }
}

/// One printed record: fields in order, each name carrying its unit
/// (`path_m`, `started_ms`), as CSV, JSON Lines or a line of text.
struct Record {
  enum Value {
    case integer(Int64)
    case unsigned(UInt64)
    /// A number; NaN and ±∞ print as missing.
    case number(Double)
    case text(String)
    case bool(Bool)
    case missing
  }

  var fields: [(name: String, value: Value)]

  init(_ fields: [(String, Value)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

  var csvHeader: String { fields.map(\.name).joined(separator: ",") }

  /// Empty cells for missing values; text quoted when it needs it.
  var csv: String {
    fields.map { field -> String in
      switch field.value {
      case .integer(let v): "\(v)"
      case .unsigned(let v): "\(v)"
      case .number(let v): v.isFinite ? "\(v)" : ""
      case .text(let v): CSVField.quoted(v)
      case .bool(let v): "\(v)"
      case .missing: ""
      }
    }
    .joined(separator: ",")
  }

  /// One JSON object, keys in the record's order, missing values as null.
  /// - Throws: `TraceError.io` when a string cannot be encoded (never in practice).
  func json() throws -> String {
    let members = try fields.map { field -> String in
      let key = String(decoding: try JSONOutput.encode(field.name), as: UTF8.self)
      let value: String
      switch field.value {
      case .integer(let v): value = "\(v)"
      case .unsigned(let v): value = "\(v)"
      case .number(let v): value = String(decoding: try JSONOutput.encode(v), as: UTF8.self)
      case .text(let v): value = String(decoding: try JSONOutput.encode(v), as: UTF8.self)
      case .bool(let v): value = "\(v)"
      case .missing: value = "null"
      }
      return key + ":" + value
    }
    return "{" + members.joined(separator: ",") + "}"
  }

  /// `name value` pairs for a person to read (the unit is in the name).
  var text: String {
    fields.map { field -> String in
      switch field.value {
      case .integer(let v): "\(field.name) \(v)"
      case .unsigned(let v): "\(field.name) \(v)"
      case .number(let v): "\(field.name) \(v.isFinite ? "\(v)" : "–")"
      case .text(let v): "\(field.name) \(v.isEmpty ? "–" : v)"
      case .bool(let v): "\(field.name) \(v)"
      case .missing: "\(field.name) –"
      }
    }
    .joined(separator: ", ")
  }
}

/// Prints records in the chosen format: CSV with its header once (however
/// many PATHs), JSON Lines, or text lines.
struct RecordPrinter {
  let format: Formats
  let console: Console
  private var headerPrinted = false

  init(_ format: Formats, _ console: Console) {
    self.format = format
    self.console = console
  }

  mutating func print(_ record: Record) throws {
    switch format {
    case .csv:
      if !headerPrinted {
        console.out(record.csvHeader)
        headerPrinted = true
      }
      console.out(record.csv)
    case .json: console.out(try record.json())
    case .text: console.out(record.text)
    }
  }
}

/// Runs `body` on every path; a path that does not exist is reported
/// before any work starts, one that fails is reported on stderr (which,
/// why), and the rest still run. Returns how many failed.
/// - Throws: an output that cannot be written (``CLIError/output(_:)``):
///   it ends the run (exit 74) instead of counting as the PATH's failure.
func forEachPath(_ paths: [String], _ console: Console, _ body: (String) throws -> Void) throws -> Int {
  let missing = Set(paths.filter { !FileManager.default.fileExists(atPath: $0) })
  for path in paths where missing.contains(path) { console.err("\(path): bad input: no such file or folder") }
  var failed = missing.count
  for path in paths where !missing.contains(path) {
    do { try body(path) } catch let error as CLIError where error.exitCode == HearthCommand.outputFailedStatus
    {
      // The output is no PATH's: nothing more can be written.
      throw error
    } catch {
      failed += 1
      let reason = (error as? CLIError)?.message ?? "bad input: \(error)"
      // Reader errors name the file themselves.
      console.err(reason.contains(path) ? reason : "\(path): \(reason)")
    }
  }
  if failed > 0 { console.err("\(failed) of \(paths.count) PATHs could not be used") }
  return failed
}

/// Tells stderr what reading `path` rejected or skipped, file by file, with
/// the first rejection (file, line, field, why): a command that prints
/// results from a recording never hides that part of it was not used.
func importNotes(_ report: ImportReport, path: String, _ console: Console) {
  for file in report.files where file.hasProblems {
    console.err("\(path): \(file.summary)")
    if let first = file.rejections.first { console.err("\(path):   first rejection: \(first)") }
  }
}
