import Foundation
import HearthTrace

#if canImport(Glibc)
  import Glibc
#endif

/// Where a command writes: results to `out` (stdout), diagnostics to `err`
/// (stderr). Tests pass closures that collect the text.
struct Console: Sendable {
  var out: @Sendable (String) -> Void
  var err: @Sendable (String) -> Void
  /// Redraws a one-line progress bar on stderr; nil when stderr is not a
  /// terminal (logs and tests stay quiet).
  var progress: (@Sendable (String) -> Void)?

  static let standard: Console = {
    let redraw: @Sendable (String) -> Void = { line in
      _ = write(all: "\r\u{1B}[K" + line, to: STDERR_FILENO)
    }
    return Console(
      out: { line in
        if let failure = write(all: line + "\n", to: STDOUT_FILENO) { outputFailed(failure) }
      },
      err: { line in _ = write(all: line + "\n", to: STDERR_FILENO) },
      progress: isatty(STDERR_FILENO) == 1 ? redraw : nil)
  }()

  /// Writes all of `text` to `descriptor`, resuming after a signal or a
  /// partial write; nil when written, else the `errno` of the failed write.
  /// (FileHandle's write traps on a failure instead.)
  static func write(all text: String, to descriptor: Int32) -> Int32? {
    var bytes = Array(text.utf8)
    return bytes.withUnsafeMutableBytes { buffer -> Int32? in
      var done = 0
      while done < buffer.count {
        let n = Glibc.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
        if n > 0 {
          done += n
        } else if n < 0 && errno == EINTR {
          continue
        } else {
          return n < 0 ? errno : EIO
        }
      }
      return nil
    }
  }

  /// A result that could not be written (a full disk, a closed pipe with
  /// SIGPIPE ignored): one line on stderr, and the process ends with
  /// ``HearthCommand/outputFailedStatus`` (the rest of the output would be
  /// lost too; a script must not take a cut result for a whole one).
  static func outputFailed(_ code: Int32) -> Never {
    _ = write(all: "hearth: cannot write the output: \(String(cString: strerror(code)))\n", to: STDERR_FILENO)
    exit(HearthCommand.outputFailedStatus)
  }

  /// A progress callback drawing `label [#####-----] done/total` at most
  /// once per percent (nil when quiet).
  func progressBar(_ label: String) -> (@Sendable (Int, Int) -> Void)? {
    guard let draw = progress else { return nil }
    return { done, total in
      let width = 30
      let filled = total > 0 ? done * width / total : width
      guard total < 100 || done == total || (done * 100 / total) != ((done - 1) * 100 / total) else { return }
      draw(
        "\(label) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
          + "] \(done)/\(total)" + (done == total ? "\n" : ""))
    }
  }
}

/// One runnable command: its words (`["sim", "generate", "day"]`), a
/// one-line summary, the help text, what it accepts, and what it does.
struct Command: Sendable {
  var path: [String]
  var summary: String
  var help: String
  var options: Set<String> = []
  var flags: Set<String> = []
  var run: @Sendable (Arguments, Console) throws -> Int32
}

/// `hearth`: the dispatcher. Exit codes (docs/decisions/0006): 0 ok; 1
/// findings; 2 usage error; 3 bad input; 74 the output could not be
/// written. Every reader error (`TraceError`) and I/O failure reaches 3
/// here, one way: commands let them propagate.
enum HearthCommand {
  static let version = "hearth 0.4.0"
  /// The exit status when standard output cannot be written: 74, sysexits'
  /// EX_IOERR (distinct from every status a run that wrote its output ends with).
  static let outputFailedStatus: Int32 = 74
  static let commands: [Command] = SimCommands.all + GeoCommands.all + ImpactCommands.all + DataCommands.all

  static func main(_ given: [String], console: Console = .standard) -> Int32 {
    // `hearth help [command…]` and `-h` (before any `--`) are `--help`.
    var words: [String] = []
    var optionsEnded = false
    for word in given {
      if word == "--" { optionsEnded = true }
      words.append(!optionsEnded && word == "-h" ? "--help" : word)
    }
    if words.first == "help" { words = Array(words.dropFirst()) + ["--help"] }
    if words == ["--version"] || words == ["version"] {
      console.out(version)
      return 0
    }
    // The longest command path that prefixes the words.
    let match = commands.filter { words.starts(with: $0.path) }.max { $0.path.count < $1.path.count }
    guard let command = match else {
      let prefix = Array(words.prefix { !$0.hasPrefix("-") })
      let below = commands.filter { $0.path.starts(with: prefix) }
      let asked = words.contains("--help") || words.isEmpty
      if below.isEmpty || !(asked || prefix == words) {
        console.err("usage error: unknown command '\(words.joined(separator: " "))'; see hearth --help")
        return 2
      }
      let text = groupHelp(prefix, below)
      if asked {
        console.out(text)
        return 0
      }
      console.err(text)
      return 2
    }
    do {
      let arguments = try Arguments(
        Array(words.dropFirst(command.path.count)), options: command.options, flags: command.flags)
      if arguments.flags.contains("help") {
        console.out("hearth \(command.path.joined(separator: " ")): \(command.summary)\n\n\(command.help)")
        return 0
      }
      return try command.run(arguments, console)
    } catch let error as CLIError {
      console.err("hearth \(command.path.joined(separator: " ")): \(error.message)")
      return error.exitCode
    } catch let error as TraceError {
      console.err("hearth \(command.path.joined(separator: " ")): bad input: \(error)")
      return 3
    } catch {
      console.err("hearth \(command.path.joined(separator: " ")): \(error)")
      return 3
    }
  }

  static func groupHelp(_ prefix: [String], _ below: [Command]) -> String {
    let title = (["hearth"] + prefix).joined(separator: " ")
    var lines = ["usage: \(title) <command> [options]   (--help on any command for more)", ""]
    let width = below.map { $0.path.joined(separator: " ").count }.max() ?? 0
    for command in below {
      let name = command.path.joined(separator: " ")
      lines.append("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(command.summary)")
    }
    if prefix.isEmpty {
      lines += [
        "", "  --version  print the version (also: hearth version)",
        "  --help     this text, or a command's (also: -h, hearth help <command>)", "",
        "exit codes: 0 ok, 1 findings (a possible impact reported), 2 usage error, 3 bad input,",
        "            74 the output could not be written (a full disk, a closed pipe)",
      ]
    }
    return lines.joined(separator: "\n")
  }
}
