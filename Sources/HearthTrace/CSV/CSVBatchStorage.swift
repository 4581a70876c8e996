/// Column storage for the batch being filled: a row's values are written
/// straight into slot `count`; a rejected row is simply not counted, so the
/// next row overwrites it. Allocated once per file, reused for every batch;
/// so are the arrays a batch is handed in, once the caller lets go of them.
struct CSVBatchStorage {
  let capacity: Int
  /// Column storage per requested number / integer column (slot order).
  let numbers: UnsafeMutablePointer<UnsafeMutablePointer<Double>>
  let integers: UnsafeMutablePointer<UnsafeMutablePointer<Int64>>
  let numberCount: Int
  let integerCount: Int
  let lines: UnsafeMutablePointer<Int>
  var texts: [[String]]
  var rowTexts: [String]
  var count = 0
  /// The arrays of the last batch taken. The next batch is copied into the
  /// same memory when no batch holds them any more (a caller that streams
  /// batch by batch), so a file costs no allocation or fresh pages per
  /// batch; a caller that keeps its batches gets new arrays, as before.
  private var lastNumbers: [[Double]]
  private var lastIntegers: [[Int64]]
  private var lastLines: [Int] = []

  init(capacity: Int, numbers: Int, integers: Int, texts: Int) {
    self.capacity = capacity
    numberCount = numbers
    integerCount = integers
    self.numbers = .allocate(capacity: max(numbers, 1))
    for k in 0..<numbers { self.numbers[k] = .allocate(capacity: capacity) }
    self.integers = .allocate(capacity: max(integers, 1))
    for k in 0..<integers { self.integers[k] = .allocate(capacity: capacity) }
    lines = .allocate(capacity: capacity)
    self.texts = Array(repeating: [], count: texts)
    rowTexts = Array(repeating: "", count: texts)
    lastNumbers = Array(repeating: [], count: numbers)
    lastIntegers = Array(repeating: [], count: integers)
  }

  func deallocate() {
    for k in 0..<numberCount { numbers[k].deallocate() }
    for k in 0..<integerCount { integers[k].deallocate() }
    numbers.deallocate()
    integers.deallocate()
    lines.deallocate()
  }

  var isFull: Bool { count >= capacity }

  /// Keeps the row being written (its numbers are already in slot `count`).
  @inline(__always)
  mutating func commit(line: Int) {
    if !rowTexts.isEmpty {
      for k in rowTexts.indices { texts[k].append(rowTexts[k]) }
    }
    lines[count] = line
    count += 1
  }

  /// The rows kept so far as a batch; the storage starts empty again.
  mutating func take() -> CSVBatch {
    var batch = CSVBatch(numbers: 0, integers: 0, texts: 0)
    for k in 0..<numberCount { Self.copy(numbers[k], count, into: &lastNumbers[k]) }
    for k in 0..<integerCount { Self.copy(integers[k], count, into: &lastIntegers[k]) }
    Self.copy(lines, count, into: &lastLines)
    batch.numbers = lastNumbers
    batch.integers = lastIntegers
    batch.texts = texts
    batch.lines = lastLines
    for k in texts.indices { texts[k].removeAll(keepingCapacity: true) }
    count = 0
    return batch
  }

  /// `array` becomes the `count` values at `source`, in its own memory when
  /// nothing else holds that memory any more.
  private static func copy<Value>(_ source: UnsafePointer<Value>, _ count: Int, into array: inout [Value]) {
    array.removeAll(keepingCapacity: true)
    array.append(contentsOf: UnsafeBufferPointer(start: source, count: count))
  }
}
