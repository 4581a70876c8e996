import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A NumPy `.npy` array (format versions 1.0–3.0), read and written.
///
/// Supported: little-endian `<f8`, `<f4`, `<i8`, `<i4` and `|u1`, 0-, 1- and
/// 2-dimensional, C or Fortran order (both are read; arrays are written in C
/// order). Files larger than ``mapThresholdBytes`` are memory-mapped
/// read-only rather than copied, so a column opens at once whatever its
/// size. Anything else (big-endian, object, string dtypes, 3-D) is a clear
/// `TraceError.unsupported`.
public struct NPYArray: Sendable {
  public enum DType: String, Sendable, Hashable, CaseIterable {
    case float64 = "<f8"
    case float32 = "<f4"
    case int64 = "<i8"
    case int32 = "<i4"
    case uint8 = "|u1"

    public var byteCount: Int {
      switch self {
      case .float64, .int64: 8
      case .float32, .int32: 4
      case .uint8: 1
      }
    }
  }

  /// Files at least this large are memory-mapped (64 MiB).
  public static let mapThresholdBytes = 64 << 20

  public let dtype: DType
  /// Dimensions, outermost first; [] for a scalar.
  public let shape: [Int]
  /// Whether the file stores the array column by column.
  public let fortranOrder: Bool
  let storage: Storage

  /// Elements in the array (the shape's product, checked on reading).
  public var count: Int { shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).partialValue } }

  /// Raw element bytes, owned or memory-mapped.
  final class Storage: @unchecked Sendable {
    // Immutable after init; a mapping is read-only (PROT_READ), so sharing it
    // across threads is safe.
    let base: UnsafeRawPointer
    let byteCount: Int
    private let mapping: (pointer: UnsafeMutableRawPointer, length: Int)?
    private let owned: UnsafeMutableRawPointer?
    /// Set when `owned` is an anonymous mapping (freed with munmap).
    private let anonymousLength: Int?

    /// Reads `byteCount` bytes at `offset` of an open file straight into new
    /// storage (one copy, from the page cache). Arrays of 4 MiB or more get
    /// anonymous memory advised for transparent huge pages, as numpy does:
    /// first-touch page faults, not the copy, dominate the load otherwise
    /// (measured 1.2 GB/s with 4 KiB pages, 2.5–3.2 GB/s with huge pages).
    init(reading descriptor: Int32, offset: Int, byteCount: Int, path: String) throws {
      let buffer: UnsafeMutableRawPointer
      if byteCount >= 4 << 20,
        let region = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
        region != MAP_FAILED
      {
        _ = madvise(region, byteCount, MADV_HUGEPAGE)
        buffer = region
        anonymousLength = byteCount
      } else {
        buffer = .allocate(byteCount: max(byteCount, 1), alignment: 16)
        anonymousLength = nil
      }
      var done = 0
      while done < byteCount {
        let n = pread(descriptor, buffer + done, byteCount - done, off_t(offset + done))
        guard n > 0 else {
          if let length = anonymousLength { munmap(buffer, length) } else { buffer.deallocate() }
          throw TraceError.io(path: path, reason: n == 0 ? "short read" : String(cString: strerror(errno)))
        }
        done += n
      }
      base = UnsafeRawPointer(buffer)
      self.byteCount = byteCount
      owned = buffer
      mapping = nil
    }

    init(mapped pointer: UnsafeMutableRawPointer, length: Int, offset: Int, byteCount: Int) {
      base = UnsafeRawPointer(pointer + offset)
      self.byteCount = byteCount
      mapping = (pointer, length)
      owned = nil
      anonymousLength = nil
    }

    /// A copy of `bytes` in new storage (arrays held in memory: columns a
    /// door was handed).
    init(copying bytes: UnsafeRawBufferPointer) {
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
      if let source = bytes.baseAddress, bytes.count > 0 {
        buffer.copyMemory(from: source, byteCount: bytes.count)
      }
      base = UnsafeRawPointer(buffer)
      byteCount = bytes.count
      owned = buffer
      mapping = nil
      anonymousLength = nil
    }

    var isMapped: Bool { mapping != nil }

    deinit {
      if let mapping { munmap(mapping.pointer, mapping.length) }
      if let owned {
        if let anonymousLength { munmap(owned, anonymousLength) } else { owned.deallocate() }
      }
    }
  }

  /// Whether the data is memory-mapped from the file.
  public var isMemoryMapped: Bool { storage.isMapped }

  // MARK: Reading

  /// Reads (or maps) the `.npy` file at `path`.
  /// - Throws: `TraceError.io`, `.malformed` (bad magic, header or length),
  ///   `.unsupported` (dtype, byte order, rank).
  public static func read(path: String, mapThresholdBytes: Int = NPYArray.mapThresholdBytes) throws
    -> NPYArray
  {
    let descriptor = try RegularFile.open(path, displayName: path)
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw TraceError.io(path: path, reason: String(cString: strerror(errno)))
    }
    let fileSize = Int(status.st_size)
    // The header is at most a few KiB; read enough to parse it.
    var head = [UInt8](repeating: 0, count: min(fileSize, 65_536 + 12))
    let got = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard got == head.count else { throw TraceError.io(path: path, reason: "short read") }
    let header = try parseHeader(head, name: path)
    let (dataBytes, overflow) = header.count.multipliedReportingOverflow(by: header.dtype.byteCount)
    guard !overflow, dataBytes <= fileSize - header.dataOffset else {
      throw TraceError.malformed(
        SourceLocation(file: path, line: 1),
        reason:
          "file holds \(fileSize - header.dataOffset) data bytes, shape \(header.shape) needs \(overflow ? "more than Int.max" : "\(dataBytes)")"
      )
    }
    let storage: Storage
    if fileSize >= mapThresholdBytes && dataBytes > 0 {
      guard let pointer = mmap(nil, fileSize, PROT_READ, MAP_PRIVATE, descriptor, 0), pointer != MAP_FAILED
      else {
        throw TraceError.io(path: path, reason: "mmap: \(String(cString: strerror(errno)))")
      }
      storage = Storage(mapped: pointer, length: fileSize, offset: header.dataOffset, byteCount: dataBytes)
    } else {
      storage = try Storage(reading: descriptor, offset: header.dataOffset, byteCount: dataBytes, path: path)
    }
    return NPYArray(
      dtype: header.dtype, shape: header.shape, fortranOrder: header.fortranOrder, storage: storage)
  }

  struct Header {
    var dtype: DType
    var shape: [Int]
    var fortranOrder: Bool
    var dataOffset: Int
    /// The product of the shape (checked not to overflow when parsed).
    var count: Int { shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).partialValue } }
  }

  static func parseHeader(_ bytes: [UInt8], name: String) throws -> Header {
    let location = SourceLocation(file: name, line: 1)
    guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8) else {
      throw TraceError.malformed(location, reason: "not a .npy file (bad magic)")
    }
    let major = bytes[6]
    let headerLength: Int
    let headerStart: Int
    switch major {
    case 1:
      headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
      headerStart = 10
    case 2, 3:
      guard bytes.count >= 12 else { throw TraceError.malformed(location, reason: "truncated header") }
      headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
      headerStart = 12
    default:
      throw TraceError.unsupported(location, reason: "format version \(major)")
    }
    guard headerStart + headerLength <= bytes.count else {
      throw TraceError.malformed(location, reason: "header of \(headerLength) bytes runs past the file")
    }
    let text = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
    guard let descr = value(of: "descr", in: text), let order = value(of: "fortran_order", in: text),
      let shapeText = value(of: "shape", in: text)
    else {
      throw TraceError.malformed(
        location, reason: "header is not a numpy dict: \(Excerpt.of(text, bytes: 80))")
    }
    let code = descr.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
    let normalised = code.hasPrefix("=") ? "<" + code.dropFirst() : code
    guard let dtype = DType(rawValue: normalised == "<u1" ? "|u1" : normalised) else {
      throw TraceError.unsupported(
        location, reason: "dtype \(Excerpt.of(code, bytes: 40)) (supported: <f8, <f4, <i8, <i4, |u1)")
    }
    let inner = shapeText.trimmingCharacters(in: CharacterSet(charactersIn: "() "))
    let shape = try inner.split(separator: ",").map { part -> Int in
      guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n >= 0 else {
        throw TraceError.malformed(location, reason: "bad shape \(Excerpt.of(shapeText, bytes: 80))")
      }
      return n
    }
    guard shape.count <= 2 else {
      throw TraceError.unsupported(location, reason: "\(shape.count)-dimensional array")
    }
    var total = 1
    for n in shape {
      let (product, overflow) = total.multipliedReportingOverflow(by: n)
      guard !overflow else { throw TraceError.malformed(location, reason: "shape \(shape) too large") }
      total = product
    }
    return Header(
      dtype: dtype, shape: shape, fortranOrder: order.hasPrefix("True"),
      dataOffset: headerStart + headerLength)
  }

  /// The text after `'key':` up to the next top-level comma or brace.
  static func value(of key: String, in dictionary: String) -> String? {
    guard let keyRange = dictionary.range(of: "'\(key)'") ?? dictionary.range(of: "\"\(key)\"") else {
      return nil
    }
    var rest = dictionary[keyRange.upperBound...].drop { $0 == " " }
    guard rest.first == ":" else { return nil }
    rest = rest.dropFirst().drop { $0 == " " }
    var depth = 0
    var end = rest.startIndex
    while end < rest.endIndex {
      let c = rest[end]
      if c == "(" { depth += 1 }
      if c == ")" { depth -= 1 }
      if depth == 0 && (c == "," || c == "}") { break }
      end = rest.index(after: end)
    }
    return String(rest[rest.startIndex..<end]).trimmingCharacters(in: .whitespaces)
  }

  // MARK: Values

  /// Element `i` (row-major index) converted to Double.
  @inline(__always)
  func element(_ i: Int) -> Double {
    let p = storage.base
    switch dtype {
    case .float64: return p.loadUnaligned(fromByteOffset: i * 8, as: Double.self)
    case .float32: return Double(p.loadUnaligned(fromByteOffset: i * 4, as: Float.self))
    case .int64: return Double(p.loadUnaligned(fromByteOffset: i * 8, as: Int64.self))
    case .int32: return Double(p.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))
    case .uint8: return Double(p.load(fromByteOffset: i, as: UInt8.self))
    }
  }

  /// Element (`row`, `column`) of the array seen as a matrix, as a Double.
  /// - Precondition: both inside ``matrixShape``.
  @inline(__always)
  func element(row r: Int, column c: Int) -> Double {
    let (rows, columns) = matrixShape
    return element(fortranOrder ? c * rows + r : r * columns + c)
  }

  /// Element `i` as an Int64 when it is one exactly (integer dtypes always;
  /// floats when integral and in range), else nil.
  func exactInt64(_ i: Int) -> Int64? {
    let p = storage.base
    switch dtype {
    case .int64: return p.loadUnaligned(fromByteOffset: i * 8, as: Int64.self)
    case .int32: return Int64(p.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))
    case .uint8: return Int64(p.load(fromByteOffset: i, as: UInt8.self))
    case .float64, .float32: return Int64(exactly: element(i))
    }
  }

  /// The rows of a 2-D array (or the whole of a 1-D one) as Doubles, row-major.
  public var doubles: [Double] {
    if dtype == .float64 && !fortranOrder && isAligned {
      return Array(
        UnsafeBufferPointer(start: storage.base.assumingMemoryBound(to: Double.self), count: count))
    }
    // No elements (a dimension of 0): no rows to walk, however many the
    // other dimension claims (a fuzzed (84 294 967 296, 0) hung here).
    guard count > 0 else { return [] }
    let (rows, columns) = matrixShape
    var out = [Double](repeating: 0, count: count)
    for r in 0..<rows {
      for c in 0..<columns { out[r * columns + c] = element(fortranOrder ? c * rows + r : r * columns + c) }
    }
    return out
  }

  /// Column `j` of a 2-D array (the whole array for 1-D), as Doubles.
  /// - Precondition: `j` is a valid column.
  public func column(_ j: Int) -> [Double] {
    let (rows, columns) = matrixShape
    precondition(j >= 0 && j < columns, "column \(j) outside a \(rows)×\(columns) array")
    return (0..<rows).map { r in element(fortranOrder ? j * rows + r : r * columns + j) }
  }

  /// Every element as Int64 (1-D or flattened row-major); floats are
  /// truncated towards zero, and NaN or values beyond Int64's range become 0.
  public var int64s: [Int64] {
    if dtype == .int64 && !fortranOrder && isAligned {
      return Array(UnsafeBufferPointer(start: storage.base.assumingMemoryBound(to: Int64.self), count: count))
    }
    return doubles.map { Int64(exactly: $0.rounded(.towardZero)) ?? 0 }
  }

  /// Whether the data starts at an address aligned for its element type.
  var isAligned: Bool { Int(bitPattern: storage.base) % dtype.byteCount == 0 }

  /// Calls `body` with the data as Doubles without copying, when it is a
  /// C-order `<f8` array aligned in memory (always, for files this package
  /// writes); otherwise with a converted copy. The pointer is valid only
  /// inside `body`.
  public func withDoubles<R>(_ body: (UnsafeBufferPointer<Double>) throws -> R) rethrows -> R {
    if dtype == .float64 && !fortranOrder && isAligned {
      return try body(
        UnsafeBufferPointer(start: storage.base.assumingMemoryBound(to: Double.self), count: count))
    }
    return try doubles.withUnsafeBufferPointer(body)
  }

  /// (rows, columns) of the array seen as a matrix: a 1-D array is one column.
  public var matrixShape: (rows: Int, columns: Int) {
    switch shape.count {
    case 0: (1, 1)
    case 1: (shape[0], 1)
    default: (shape[0], shape[1])
    }
  }

  // MARK: Writing

  /// Writes Doubles as `<f8` in C order with the given shape.
  public static func write(_ values: [Double], shape: [Int]? = nil, to path: String) throws {
    try values.withUnsafeBytes {
      try write(bytes: $0, dtype: .float64, shape: shape ?? [values.count], to: path)
    }
  }

  /// Writes Int64s as `<i8`.
  public static func write(_ values: [Int64], shape: [Int]? = nil, to path: String) throws {
    try values.withUnsafeBytes {
      try write(bytes: $0, dtype: .int64, shape: shape ?? [values.count], to: path)
    }
  }

  /// Writes bytes as `|u1`.
  public static func write(_ values: [UInt8], shape: [Int]? = nil, to path: String) throws {
    try values.withUnsafeBytes {
      try write(bytes: $0, dtype: .uint8, shape: shape ?? [values.count], to: path)
    }
  }

  /// Writes raw little-endian element bytes with a version 1.0 header padded
  /// to a multiple of 64 bytes (so the data is aligned for memory mapping).
  public static func write(bytes: UnsafeRawBufferPointer, dtype: DType, shape: [Int], to path: String) throws
  {
    precondition(shape.reduce(1, *) * dtype.byteCount == bytes.count, "shape does not match the data")
    let shapeText =
      shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
    var dictionary = "{'descr': '\(dtype.rawValue)', 'fortran_order': False, 'shape': \(shapeText), }"
    let unpadded = 10 + dictionary.utf8.count + 1
    dictionary += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
    var file = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
    let length = UInt16(dictionary.utf8.count)
    file.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
    file.append(contentsOf: Array(dictionary.utf8))
    file.append(contentsOf: bytes)
    do {
      try file.write(to: URL(fileURLWithPath: path))
    } catch {
      throw TraceError.io(path: path, reason: FolderListing.reason(error))
    }
  }
}

extension NPYArray {
  /// An in-memory `<f8` array of `values` (copied) in C order; `shape`
  /// defaults to one dimension.
  /// - Precondition: the shape's product is `values.count`.
  init(_ values: [Double], shape: [Int]? = nil) {
    let shape = shape ?? [values.count]
    precondition(shape.reduce(1, *) == values.count, "shape \(shape) for \(values.count) values")
    self.init(
      dtype: .float64, shape: shape, fortranOrder: false,
      storage: values.withUnsafeBytes { Storage(copying: $0) })
  }

  /// An in-memory one-dimensional `<i8` array of `values` (copied).
  init(_ values: [Int64]) {
    self.init(
      dtype: .int64, shape: [values.count], fortranOrder: false,
      storage: values.withUnsafeBytes { Storage(copying: $0) })
  }
}
