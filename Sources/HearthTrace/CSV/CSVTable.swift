/// A whole CSV file's requested columns, by header name. Built on
/// ``CSVStream`` for files that are read into memory anyway (a trace's
/// streams); use ``CSVStream`` directly to process larger files batch by batch.
struct CSVTable {
  var numbers: [String: [Double]] = [:]
  var integers: [String: [Int64]] = [:]
  var texts: [String: [String]] = [:]
  /// Source line of each row.
  var lines: [Int] = []
  var header: [String] = []
  var count: Int { lines.count }

  /// A column wanted from a file: the first of `names` present in the header
  /// (exact match first, then case-insensitive).
  struct Want {
    var key: String
    var names: [String]
    var kind: CSVColumnRequest.Kind
    var required: Bool
  }

  /// Reads `path`, keeping the wanted columns. Every wanted column found in
  /// the header has an entry (empty when no row was kept).
  /// - Throws: `TraceError.malformed` naming the first required column that
  ///   is missing; the errors of ``CSVStream/read(path:displayName:options:batchRows:select:body:)``.
  static func read(
    path: String, displayName: String, options: ReadOptions, wants: [Want]
  ) throws -> (CSVTable, FileReport) {
    var table = CSVTable()
    var order: [(Want, Int)] = []  // (want, position within its kind)
    let report = try CSVStream.read(
      path: path, displayName: displayName, options: options,
      select: { header, _ in
        table.header = header
        var requests: [CSVColumnRequest] = []
        var counts: [CSVColumnRequest.Kind: Int] = [:]
        for want in wants {
          guard let index = Self.index(of: want.names, in: header) else {
            if want.required {
              throw TraceError.malformed(
                SourceLocation(file: displayName, line: 1),
                reason: "missing column '\(want.names[0])' (header: \(header.joined(separator: ", ")))")
            }
            continue
          }
          requests.append(CSVColumnRequest(index: index, kind: want.kind))
          // Present even when no row survives, so callers may unwrap it.
          switch want.kind {
          case .number: table.numbers[want.key] = []
          case .integer: table.integers[want.key] = []
          case .text: table.texts[want.key] = []
          }
          order.append((want, counts[want.kind, default: 0]))
          counts[want.kind, default: 0] += 1
        }
        return requests
      },
      body: { batch in
        for (want, position) in order {
          switch want.kind {
          case .number: table.numbers[want.key, default: []].append(contentsOf: batch.numbers[position])
          case .integer: table.integers[want.key, default: []].append(contentsOf: batch.integers[position])
          case .text: table.texts[want.key, default: []].append(contentsOf: batch.texts[position])
          }
        }
        table.lines.append(contentsOf: batch.lines)
      })
    return (table, report)
  }

  /// Index of the first of `names` in `header`: exact, then ignoring case.
  static func index(of names: [String], in header: [String]) -> Int? {
    for name in names {
      if let i = header.firstIndex(of: name) { return i }
    }
    for name in names {
      if let i = header.firstIndex(where: { $0.lowercased() == name.lowercased() }) { return i }
    }
    return nil
  }

  func number(_ key: String) -> [Double]? { numbers[key] }
  func number(_ key: String, default value: Double) -> [Double] {
    numbers[key] ?? Array(repeating: value, count: count)
  }
}
