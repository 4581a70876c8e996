/// Column storage for the batch being filled: a row's values are written
/// straight into slot `count`; a rejected row is simply not counted, so the
/// next row overwrites it. Allocated once per file, reused for every batch.
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
    batch.numbers = (0..<numberCount).map { Array(UnsafeBufferPointer(start: numbers[$0], count: count)) }
    batch.integers = (0..<integerCount).map {
      Array(UnsafeBufferPointer(start: integers[$0], count: count))
    }
    batch.texts = texts
    batch.lines = Array(UnsafeBufferPointer(start: lines, count: count))
    for k in texts.indices { texts[k].removeAll(keepingCapacity: true) }
    count = 0
    return batch
  }
}
