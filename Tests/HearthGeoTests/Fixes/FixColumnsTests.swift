import HearthGeo
import Testing

@Suite("Fix and FixColumns")
struct FixColumnsTests {
  static func sample(_ i: Int) -> Fix {
    Fix(
      timeMilliseconds: 1_700_000_000_000 + Int64(i) * 1000,
      latitudeDegrees: 48 + Double(i) * 1e-4, longitudeDegrees: 2 - Double(i) * 1e-4,
      horizontalAccuracyMeters: 5 + Double(i),
      speedMetersPerSecond: i % 3 == 0 ? nil : Double(i),
      headingDegrees: i % 4 == 0 ? nil : 90,
      altitudeMeters: i % 5 == 0 ? nil : 35,
      activity: Activity.allCases[i % Activity.allCases.count],
      source: FixSource.allCases[i % FixSource.allCases.count],
      batteryLevel: i % 2 == 0 ? nil : 0.5,
      charging: ChargingState.allCases[i % 3],
      device: DeviceID(UInt32(i % 2)), user: UserID(7))
  }

  @Test("columns round-trip every field, missing readings included")
  func roundTrip() {
    let fixes = (0..<50).map(Self.sample)
    let columns = FixColumns(fixes)
    #expect(columns.count == 50)
    #expect(columns.fixes == fixes)
    #expect(columns.speedMetersPerSecond[0].isNaN)  // unmeasured is NaN in the column
    #expect(columns.speedMetersPerSecond[1] == 1)
  }

  @Test("selecting, appending from another batch and clearing keep the columns aligned")
  func selection() {
    let columns = FixColumns((0..<10).map(Self.sample))
    let picked = columns.selecting([7, 2, 2])
    #expect(picked.fixes == [Self.sample(7), Self.sample(2), Self.sample(2)])
    var copy = columns
    copy.setActivity(.still, at: 3)
    #expect(copy[3].activity == .still && columns[3].activity != .still)
    copy.removeAll()
    #expect(copy.isEmpty && copy.latitudeDegrees.isEmpty && copy.user.isEmpty)
  }

  @Test("select(_:from:) refills a kept batch: what it held before, longer or shorter, leaves no trace")
  func selectIntoAKeptBatch() {
    let columns = FixColumns((0..<10).map(Self.sample))
    var kept = FixColumns((20..<40).map(Self.sample))
    let shared = kept  // a copy holding the same storage keeps its fixes
    kept.select([9, 0, 4], from: columns)
    #expect(kept == columns.selecting([9, 0, 4]) && kept.count == 3)
    #expect(shared.fixes == (20..<40).map(Self.sample))
    kept.select(0..<10, from: columns)
    #expect(kept == columns)
    kept.select([], from: columns)
    #expect(kept.isEmpty && kept.user.isEmpty && kept.charging.isEmpty)
  }

  @Test("select(_:from:) takes any collection of indices: in place (array, slice) or copied first")
  func selectFromEveryKindOfCollection() {
    let columns = FixColumns((0..<12).map(Self.sample))
    let order = [11, 3, 3, 0, 7]
    let expected = order.map(Self.sample)
    #expect(columns.selecting(order).fixes == expected)
    #expect(columns.selecting([-1, 11, 3, 3, 0, 7, 99][1..<6]).fixes == expected)  // a slice not at 0
    #expect(columns.selecting(ContiguousArray(order)).fixes == expected)
    #expect(columns.selecting(order.lazy.map { $0 }).fixes == expected)  // no contiguous storage
    #expect(columns.selecting((2..<9).reversed()).fixes == (2..<9).reversed().map(Self.sample))
    #expect(columns.selecting(4..<4).isEmpty)
    var kept = FixColumns()
    for _ in 0..<3 { kept.select(order.lazy.map { $0 }, from: columns) }
    #expect(kept.fixes == expected)
  }
}

@Suite("Unmeasured speed (SPEC §1)")
struct SpeedReadingTests {
  @Test("iOS −1 and every negative or non-finite reading is unmeasured")
  func negatives() {
    for raw in [-1.0, -0.001, -.infinity, .infinity, .nan] {
      #expect(SpeedReading.speedMetersPerSecond(raw: raw, horizontalAccuracyMeters: 5) == nil)
    }
  }

  @Test("Android zero: real stop at ≤ 30 m accuracy, unmeasured when looser or unknown")
  func androidZero() {
    #expect(SpeedReading.speedMetersPerSecond(raw: 0, horizontalAccuracyMeters: 30) == 0)
    #expect(SpeedReading.speedMetersPerSecond(raw: 0, horizontalAccuracyMeters: 29.9) == 0)
    #expect(SpeedReading.speedMetersPerSecond(raw: 0, horizontalAccuracyMeters: 30.0001) == nil)
    #expect(SpeedReading.speedMetersPerSecond(raw: 0, horizontalAccuracyMeters: .nan) == nil)
    // The threshold is a parameter.
    #expect(
      SpeedReading.speedMetersPerSecond(
        raw: 0, horizontalAccuracyMeters: 40, zeroIsUnmeasuredBeyondAccuracyMeters: 50) == 0)
  }

  @Test("positive speeds pass through whatever the accuracy")
  func positive() {
    #expect(SpeedReading.speedMetersPerSecond(raw: 0.4, horizontalAccuracyMeters: 500) == 0.4)
    #expect(SpeedReading.speedMetersPerSecond(raw: 33, horizontalAccuracyMeters: 3) == 33)
  }
}
