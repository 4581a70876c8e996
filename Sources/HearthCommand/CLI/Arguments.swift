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

  var exitCode: Int32 {
    switch self {
    case .usage: 2
    case .badInput: 3
    }
  }

  var message: String {
    switch self {
    case .usage(let text): "usage error: \(text)"
    case .badInput(let text): "bad input: \(text)"
    }
  }
}
