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
  /// `maximumRows`: rows kept beyond it are counted in the report but not
  /// stored (small side files that a hostile folder may make huge).
  static func read(
    path: String, displayName: String, options: ReadOptions, wants: [Want], maximumRows: Int = .max
  ) throws -> (CSVTable, FileReport) {
    var table = CSVTable()
    var order: [(Want, Int)] = []  // (want, position within its kind)
    var requested: [Int: (CSVColumnRequest.Kind, Int)] = [:]  // header index → its request
    let report = try CSVStream.read(
      path: path, displayName: displayName, options: options,
      select: { header, _ in
        table.header = header
        var requests: [CSVColumnRequest] = []
        var counts: [CSVColumnRequest.Kind: Int] = [:]
        requested = [:]
        for want in wants {
          guard let index = try Self.index(of: want.names, in: header, file: displayName) else {
            if want.required {
              throw TraceError.malformed(
                SourceLocation(file: displayName, line: 1),
                reason:
                  "missing column '\(Excerpt.of(want.names[0], bytes: 80))' (header: \(Excerpt.of(header.joined(separator: ", "))))"
              )
            }
            continue
          }
          // Present even when no row survives, so callers may unwrap it.
          switch want.kind {
          case .number: table.numbers[want.key] = []
          case .integer: table.integers[want.key] = []
          case .text: table.texts[want.key] = []
          }
          // A column wanted twice (two fields from one column) is read once
          // and given to both.
          if let (kind, position) = requested[index] {
            guard kind == want.kind else {
              throw TraceError.unsupported(
                SourceLocation(file: displayName, line: 1, column: index + 1),
                reason: "one column wanted as two kinds of value")
            }
            order.append((want, position))
            continue
          }
          requests.append(CSVColumnRequest(index: index, kind: want.kind))
          requested[index] = (want.kind, counts[want.kind, default: 0])
          order.append((want, counts[want.kind, default: 0]))
          counts[want.kind, default: 0] += 1
        }
        return requests
      },
      body: { batch in
        let n = min(batch.count, maximumRows - table.count)
        guard n > 0 else { return }
        for (want, position) in order {
          switch want.kind {
          case .number:
            table.numbers[want.key, default: []].append(contentsOf: batch.numbers[position].prefix(n))
          case .integer:
            table.integers[want.key, default: []].append(contentsOf: batch.integers[position].prefix(n))
          case .text: table.texts[want.key, default: []].append(contentsOf: batch.texts[position].prefix(n))
          }
        }
        table.lines.append(contentsOf: batch.lines.prefix(n))
      })
    return (table, report)
  }

  /// Index of the first of `names` in `header`: exact, then ignoring case;
  /// nil when none is there.
  /// - Throws: `TraceError.malformed` naming both columns when the name
  ///   found is carried by two (two exact matches, or two ignoring case with
  ///   no exact one): which of them is meant cannot be known, and taking the
  ///   first would read the wrong values in silence. A duplicate the reader
  ///   does not ask for is harmless. O(names · header).
  static func index(of names: [String], in header: [String], file: String) throws -> Int? {
    func unique(_ matches: (String) -> Bool, _ name: String) throws -> Int? {
      guard let first = header.firstIndex(where: matches) else { return nil }
      if let second = header[(first + 1)...].firstIndex(where: matches) {
        throw TraceError.malformed(
          SourceLocation(
            file: file, line: 1, column: second + 1, columnName: Excerpt.of(header[second], bytes: 80)),
          reason:
            "columns \(first + 1) and \(second + 1) are both named '\(Excerpt.of(name, bytes: 80))': which one to read is unknown"
        )
      }
      return first
    }
    for name in names {
      if let i = try unique({ $0 == name }, name) { return i }
    }
    for name in names {
      let lower = name.lowercased()
      if let i = try unique({ $0.lowercased() == lower }, name) { return i }
    }
    return nil
  }

  /// The wanted columns of the first kept row, reading the rest of the
  /// file only to account for it (memory: one batch): for one-row files
  /// such as Sensor Logger's Metadata.csv, which a hostile export may make huge.
  static func firstRow(
    path: String, displayName: String, options: ReadOptions, wants: [Want]
  ) throws -> (FirstRow, FileReport) {
    var first = FirstRow()
    var order: [(Want, Int)] = []
    let report = try CSVStream.read(
      path: path, displayName: displayName, options: options, batchRows: 64,
      select: { header, dialect in
        var requests: [CSVColumnRequest] = []
        var counts: [CSVColumnRequest.Kind: Int] = [:]
        for want in wants {
          guard let index = try Self.index(of: want.names, in: header, file: displayName) else { continue }
          guard !requests.contains(where: { $0.index == index }) else { continue }
          requests.append(CSVColumnRequest(index: index, kind: want.kind))
          order.append((want, counts[want.kind, default: 0]))
          counts[want.kind, default: 0] += 1
        }
        return requests
      },
      body: { batch in
        guard !first.read, batch.count > 0 else { return }
        first.read = true
        for (want, position) in order {
          switch want.kind {
          case .number: first.numbers[want.key] = batch.numbers[position][0]
          case .integer: first.integers[want.key] = batch.integers[position][0]
          case .text: first.texts[want.key] = batch.texts[position][0]
          }
        }
      })
    return (first, report)
  }

  /// One row's values by key.
  struct FirstRow {
    var read = false
    var numbers: [String: Double] = [:]
    var integers: [String: Int64] = [:]
    var texts: [String: String] = [:]
  }

  func number(_ key: String) -> [Double]? { numbers[key] }
  func number(_ key: String, default value: Double) -> [Double] {
    numbers[key] ?? Array(repeating: value, count: count)
  }
}

/// The header line of a CSV file alone.
enum CSVHeader {
  /// The header's field names (the file's rows are not read).
  /// - Throws: as ``CSVStream/read(path:displayName:options:batchRows:select:body:)`` for the header.
  static func read(path: String, displayName: String, options: ReadOptions) throws -> [String] {
    try CSVRowReader(
      path: path, displayName: displayName, options: options, batchRows: 1, select: { _, _ in [] }
    )
    .header
  }
}
