import Foundation
import HearthImpact
import HearthSim
import HearthTrace

/// `hearth impact …`: the possible-impact detector on recorded traces.
enum ImpactCommands {
  static let all: [Command] = [detect]

  static let detect = Command(
    path: ["impact", "detect"],
    summary: "run the possible-impact detector over recorded traces and explain every verdict",
    help: """
      usage: hearth impact detect PATH... [--format text|jsonl|csv] [--mapping FILE]

      Reads each trace (Sensor Logger or phyphox folder, trace folder,
      comma2k19 segment, or CSV with a column mapping), replays it through
      ImpactDetector with the vehicle gate on, and prints every verdict with
      each condition's measured value and threshold:
        text   one line per verdict (default)
        jsonl  one JSON object per verdict: {"file", "verdict"}
        csv    one row per condition: file,jolt_s,outcome,condition,held,measured,threshold
      A trace with no accelerometer that includes gravity (or gravity to add
      back) is bad input. Exit status: 0 nothing reported, 1 a possible impact
      was reported, 2 usage, 3 bad input.
      """,
    options: ["format", "mapping"]
  ) { arguments, console in
    guard !arguments.positionals.isEmpty else {
      throw CLIError.usage("impact detect needs at least one PATH")
    }
    let format = arguments.options["format"] ?? "text"
    guard ["text", "jsonl", "csv"].contains(format) else {
      throw CLIError.usage("--format must be text, jsonl or csv, not '\(format)'")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    if format == "csv" { console.out("file,jolt_s,outcome,condition,held,measured,threshold") }
    var reported = false
    for path in arguments.positionals {
      let trace: Trace
      do { trace = try TraceImport.read(path: path, mappingPath: arguments.options["mapping"]).0 } catch {
        throw CLIError.badInput("\(error)")
      }
      guard let batch = trace.impactBatch(vehicleGate: true) else {
        throw CLIError.badInput("\(path): no accelerometer with gravity (nor a gravity stream to add back)")
      }
      let verdicts = ImpactDetector.replay(batch)
      reported = reported || verdicts.contains { $0.outcome == .possibleImpact }
      switch format {
      case "jsonl":
        for v in verdicts {
          let data = try encoder.encode(Line(file: path, verdict: v))
          console.out(String(decoding: data, as: UTF8.self))
        }
      case "csv":
        for v in verdicts {
          for c in v.conditions {
            console.out(
              "\(csvField(path)),\(v.joltSeconds),\(v.outcome.rawValue),\(c.name.rawValue),\(c.held),\(c.measured),\(c.threshold)"
            )
          }
        }
      default:
        if verdicts.isEmpty { console.out("\(path): no jolt of 4 g or more") }
        for v in verdicts { console.out("\(path): \(v.explanation)") }
      }
    }
    return reported ? 1 : 0
  }

  private struct Line: Encodable {
    var file: String
    var verdict: ImpactVerdict
  }

  /// A CSV field, quoted when it holds a comma, quote or line break.
  private static func csvField(_ s: String) -> String {
    s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
      ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
  }
}
