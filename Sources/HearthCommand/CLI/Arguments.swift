import HearthTrace

/// The parsed words after a command's name: `--name value` / `--name=value`
/// options, bare `--flag`s (declared by the command), and positionals.
/// `--` ends the options. Unknown options are usage errors.
struct Arguments {
  var positionals: [String] = []
  var options: [String: String] = [:]
  var flags: Set<String> = []

  /// Parses `words` for a command that accepts `options` (take a value) and
  /// `flags` (do not). `--help` is always a flag.
  init(_ words: [String], options allowed: Set<String>, flags allowedFlags: Set<String>) throws(CLIError) {
    var i = 0
    var onlyPositionals = false
    while i < words.count {
      let word = words[i]
      i += 1
      guard !onlyPositionals, word.hasPrefix("--"), word.count > 2 else {
        if word == "--" && !onlyPositionals {
          onlyPositionals = true
        } else {
          positionals.append(word)
        }
        continue
      }
      var name = String(word.dropFirst(2))
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if name == "help" || allowedFlags.contains(name) {
        guard value == nil else { throw .usage("--\(name) takes no value") }
        flags.insert(name)
      } else if allowed.contains(name) {
        if value == nil {
          guard i < words.count else { throw .usage("--\(name) needs a value") }
          value = words[i]
          i += 1
        }
        guard options[name] == nil else { throw .usage("--\(name) given twice") }
        options[name] = value
      } else {
        throw .usage("unknown option --\(name)")
      }
    }
  }

  /// The option's value parsed as `T`, or `default` when absent.
  func value<T: LosslessStringConvertible>(_ name: String, default fallback: T) throws(CLIError) -> T {
    guard let text = options[name] else { return fallback }
    guard let parsed = T(text) else { throw .usage("--\(name): cannot read '\(text)' as \(T.self)") }
    return parsed
  }

  /// The option's value, which must be given.
  func required(_ name: String) throws(CLIError) -> String {
    guard let text = options[name] else { throw .usage("--\(name) is required") }
    return text
  }
}

/// Why a command stopped; each maps to the documented exit code.
enum CLIError: Error, Equatable {
  /// Bad arguments (exit 2).
  case usage(String)
  /// A file that cannot be read or is not what it should be (exit 3).
  case badInput(String)
  /// An output file or folder the command was asked to write that could
  /// not be written (exit 74, as for standard output).
  case output(String)

  var exitCode: Int32 {
    switch self {
    case .usage: 2
    case .badInput: 3
    case .output: HearthCommand.outputFailedStatus
    }
  }

  var message: String {
    switch self {
    case .usage(let text): "usage error: \(text)"
    case .badInput(let text): "bad input: \(text)"
    case .output(let text): "cannot write the output: \(text)"
    }
  }
}

/// Runs `write`, which writes the output file or folder at `path` a flag
/// named: its failure is the output's (exit 74, naming the path and why),
/// not the input's (review26 F4: a full disk or a missing folder said
/// "bad input").
func writingOutput(_ path: String, _ write: () throws -> Void) throws {
  do { try write() } catch let error as TraceError {
    throw CLIError.output(error.description)
  } catch {
    throw CLIError.output("\(path): \(error)")
  }
}

/// The flags of every command that reads recordings, parsed one way:
/// `--mapping FILE` (a column mapping for CSV files), `--timezone ZONE` (the
/// zone of local times in mapped files whose mapping names none) and
/// `--rate HZ` (the sample rate of mapped files with no time column).
struct ReadingFlags {
  static let options: Set<String> = ["mapping", "timezone", "rate"]

  /// The help paragraph every such command shows.
  static let help = """
    Reading: --mapping FILE reads CSV files through a column mapping
    (docs/guides/trace-formats.md); with it, --timezone ZONE (an IANA name
    such as Europe/Berlin, or an offset such as +02:00) reads local times
    (ISO 8601 without an offset, times of day) where the mapping names no
    zone, and --rate HZ times the rows of files the mapping gives no time
    column (row k at k / HZ s).
    """

  var mappingPath: String?
  var options = ReadOptions()

  /// - Throws: a usage error for a zone or rate that does not read, or for
  ///   `--timezone`/`--rate` without `--mapping` (no other format takes them).
  init(_ arguments: Arguments) throws(CLIError) {
    mappingPath = arguments.options["mapping"]
    if let name = arguments.options["timezone"] {
      guard let zone = TimeZoneRule(name) else {
        throw .usage("--timezone: '\(name)' is neither an IANA zone (Europe/Berlin) nor an offset (+02:00)")
      }
      options.timeZone = zone
    }
    if let text = arguments.options["rate"] {
      guard let hertz = Double(text), hertz.isFinite, hertz > 0, hertz <= ColumnMapping.maximumRateHertz
      else {
        throw .usage(
          "--rate: '\(text)' is not a rate in Hz above 0 and at most \(Int(ColumnMapping.maximumRateHertz))")
      }
      options.rateHertz = hertz
    }
    if mappingPath == nil, let flag = ["timezone", "rate"].first(where: { arguments.options[$0] != nil }) {
      throw .usage(
        "--\(flag) applies to CSV files read with --mapping FILE (other formats carry their own clock)")
    }
  }

  /// The recording at `path`, whole.
  func read(_ path: String) throws -> (Trace, ImportReport) {
    try TraceImport.read(path: path, mappingPath: mappingPath, options: options)
  }

  /// The recording at `path`, streamed.
  func stream(_ path: String) throws -> TraceStream {
    try TraceImport.stream(path: path, mappingPath: mappingPath, options: options)
  }
}
