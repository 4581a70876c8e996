/// What to extract from one column of a CSV file.
public struct CSVColumnRequest: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// A decimal number; empty fields and "NaN" read as NaN (missing).
    case number
    /// A whole number (e.g. nanoseconds since the epoch); empty is a rejection.
    case integer
    /// Text, validated as UTF-8.
    case text
  }
  /// 0-based index of the column in the header.
  public var index: Int
  public var kind: Kind
  /// When the column is a row's time, its format in words ("epoch-seconds"):
  /// a value that does not parse is then `badTime` (not `notANumber`),
  /// named by column and saying what was expected.
  public var timeFormat: String?

  public init(index: Int, kind: Kind, timeFormat: String? = nil) {
    self.index = index
    self.kind = kind
    self.timeFormat = timeFormat
  }
}

/// A batch of rows, column by column, in the order the columns were requested.
public struct CSVBatch: Sendable {
  /// One array per requested `.number` column, in request order.
  public var numbers: [[Double]]
  /// One array per requested `.integer` column, in request order.
  public var integers: [[Int64]]
  /// One array per requested `.text` column, in request order.
  public var texts: [[String]]
  /// The line each row started on (1-based; the header is line 1).
  public var lines: [Int] = []

  public var count: Int { lines.count }

  init(numbers: Int, integers: Int, texts: Int) {
    self.numbers = Array(repeating: [], count: numbers)
    self.integers = Array(repeating: [], count: integers)
    self.texts = Array(repeating: [], count: texts)
  }
}

/// The delimiter and decimal separator of a CSV file.
public struct CSVDialect: Sendable, Hashable {
  /// `,`, `;` or tab.
  public var delimiter: UInt8
  /// Whether `,` is also accepted as a decimal separator in numbers (files
  /// from locales that write 1,5 use `;` or tab between fields).
  public var decimalComma: Bool
}

/// A streaming CSV reader: reads any size of file in bounded memory (one
/// chunk of 4 MiB plus at most one line), hands rows to the caller in
/// batches, and accounts for every row: each one is kept or rejected with its
/// line, column and reason.
///
/// Handles RFC 4180 quoting (delimiters, newlines and doubled quotes inside
/// quoted fields), a UTF-8 byte-order mark, CRLF line ends, blank lines,
/// a missing final newline, `,` / `;` / tab delimiters (detected from the
/// header) and decimal commas (accepted when the delimiter is not a comma).
///
/// The work is split by concern: `ChunkSource` (bytes from the file),
/// `CSVParser` (the row loop and accounting), its header
/// (`CSVParser+Header`), the fast path for unquoted rows
/// (`CSVParser+FastRow`), the RFC 4180 path for quoted ones
/// (`CSVParser+QuotedRow`) and the batch's column storage (`CSVBatchStorage`).
public enum CSVStream {
  /// Reads `path`: calls `select` with the header's field names to learn which
  /// columns to extract, then `body` with batches of at most `batchRows` rows.
  ///
  /// - Throws: `TraceError.io` when the file cannot be read or is not a
  ///   regular file; `TraceError.malformed` when it has no header line;
  ///   whatever `select` or `body` throw; `TraceError.rejectedInStrictMode`
  ///   on the first bad row when `options.strict`.
  /// - Returns: the file's report (`rowsRead == rowsKept + rowsRejected`).
  /// - Complexity: O(file size) time; memory O(chunk + maximumLineBytes +
  ///   batchRows × columns), independent of the file size.
  public static func read(
    path: String, displayName: String? = nil, options: ReadOptions = ReadOptions(),
    batchRows: Int = 65_536,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest],
    body: (CSVBatch) throws -> Void
  ) throws -> FileReport {
    try read(
      path: path, displayName: displayName, options: options, batchRows: batchRows, plainRows: .standard,
      select: select, body: body)
  }

  /// The same, with the plain path used as `plainRows` says (tests compare
  /// it with the general path).
  static func read(
    path: String, displayName: String?, options: ReadOptions, batchRows: Int, plainRows: PlainRowPolicy,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest],
    body: (CSVBatch) throws -> Void
  ) throws -> FileReport {
    let reader = try CSVRowReader(
      path: path, displayName: displayName ?? path, options: options, batchRows: batchRows,
      plainRows: plainRows, select: select)
    while let batch = try reader.next() { try body(batch) }
    return reader.report
  }
}

/// The same reader pulled batch by batch, for readers that interleave
/// several files (streaming a recording in time order). Closes its file
/// when released.
final class CSVRowReader {
  private var source: ChunkSource
  private var parser: CSVParser
  private var storage: CSVBatchStorage
  /// The header's field names.
  let header: [String]
  /// The line after the header's.
  let firstDataLine: Int

  init(
    path: String, displayName: String, options: ReadOptions, batchRows: Int,
    plainRows: PlainRowPolicy = .standard,
    select: ([String], CSVDialect) throws -> [CSVColumnRequest]
  ) throws {
    source = try ChunkSource(path: path, displayName: displayName, maximumLineBytes: options.maximumLineBytes)
    do {
      var header: [String] = []
      parser = try CSVParser(
        source: &source, name: displayName, options: options, plainRows: plainRows,
        select: { fields, dialect in
          header = fields
          return try select(fields, dialect)
        })
      self.header = header
      firstDataLine = parser.line
    } catch {
      source.close()
      throw error
    }
    // A row takes at least two bytes: a small file needs no full batch.
    storage = CSVBatchStorage(
      capacity: max(1, min(batchRows, source.fileBytes / 2 + 1)), numbers: parser.numberCount,
      integers: parser.integerCount, texts: parser.textCount)
  }

  deinit {
    storage.deallocate()
    source.close()
  }

  /// Every row read so far, kept or rejected.
  var report: FileReport { parser.report }

  /// The next batch of kept rows, nil at the end of the file.
  func next() throws -> CSVBatch? {
    try parser.fill(&storage, from: &source) ? storage.take() : nil
  }
}
