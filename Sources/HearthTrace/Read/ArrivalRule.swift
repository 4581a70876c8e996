/// Judges each row's key against the rows before it in the file: the one rule
/// by which a file is put in time order, whether it is sorted whole
/// (``RowBlock/finish(rule:keysPerSecond:report:)``), surveyed
/// (``FileSurvey``) or streamed (``RowOrderer``), so all three keep the same rows.
///
/// - A row at or after the newest key kept before it is `inOrder`.
/// - A row at most `limit` behind that key is `reordered`: put in its place.
/// - A row more than `limit` behind it is `tooLate`: rejected `outOfOrder`.
/// - A row more than `limit` ahead of that key, and the first row of a file,
///   is `held`, with the rows that go on from it (none more than `limit`
///   behind or ahead of the newest held). The rows after decide:
///   - one more row going on from the held rows, once ``heldRowsAtMost`` are
///     held, keeps them all (``Resolution/kept(reordered:)``): the file's
///     clock moved on, as after a pause in logging;
///   - a row more than `limit` ahead of them keeps them too, and is held
///     itself: a second jump starts from the first;
///   - a row more than `limit` behind every held row but not behind the rows
///     kept before them drops them (``Resolution/dropped``), each rejected
///     `outOfOrder` as a lone jump ahead;
///   - any other row more than `limit` behind the newest held is `tooLate`
///     and decides nothing, as it would be were they kept;
///   - the end of the file keeps them.
///
/// Why (review26 F5): one row dated years ahead used to become the newest
/// key, so every later row of the file was `tooLate` and a recording of an
/// hour kept a second of it.
///
/// A `limit` of infinity (a file kept in its own order) holds nothing and
/// rejects nothing. Keys are finite: the readers reject other times first.
///
/// - Complexity: O(1) per row, no allocation; the rows held are the caller's
///   to keep, at most ``heldRowsAtMost`` of them.
struct ArrivalRule: Sendable {
  /// How a row's key stands.
  enum Arrival: Equatable {
    case inOrder
    case reordered
    case tooLate
    /// Held with the rows before it that are held, until a later row decides.
    case held
  }

  /// What a row (or the end) decided for the rows held before it.
  enum Resolution: Equatable {
    case none
    /// They are kept, in the order held; `reordered` of them came behind a
    /// held row before them.
    case kept(reordered: Int)
    /// They are rejected: a jump ahead the file did not go on from.
    case dropped
  }

  /// The most rows held after a jump ahead: a jump that this many rows go on
  /// from, and one more, is where the file's clock went. Choice: 16, more
  /// than the few rows a glitching clock or a corrupted export writes wrong,
  /// and so few that holding them costs nothing.
  static let heldRowsAtMost = 16

  /// How far behind the newest key a row is still put in order, and how far
  /// ahead of it a row must jump to be held, key units.
  let limit: Double
  /// The newest key of the rows kept so far (−∞ before the first).
  private(set) var latest = -Double.infinity
  /// The smallest key kept (+∞ while none is).
  private(set) var earliestKept = Double.infinity
  /// The deepest a kept row came behind the newest key kept before it: the
  /// horizon a streamed read must hold rows for. 0 for a file in order.
  private(set) var deepestKept = 0.0
  /// What the last ``arrive(_:)`` or ``end()`` decided for the held rows
  /// before it; the caller acts on it before the row's own arrival.
  private(set) var resolution = Resolution.none
  /// How many rows are held now.
  private(set) var heldCount = 0
  private var heldLatest = -Double.infinity
  private var heldEarliest = Double.infinity
  private var heldDeepest = 0.0
  private var heldReordered = 0

  init(limit: Double) { self.limit = limit }

  /// Judges key `t`, the next row's in file order. Read ``resolution`` first:
  /// it says what became of the rows held before this one.
  @inline(__always)
  mutating func arrive(_ t: Double) -> Arrival {
    resolution = .none
    if heldCount == 0 { return judge(t) }
    if t >= heldLatest - limit {
      if t <= heldLatest + limit && heldCount < Self.heldRowsAtMost {
        hold(t)
        return .held
      }
      // Enough rows went on from the jump, or another jump starts from them.
      keepHeld()
      return judge(t)
    }
    // Too late for the held rows, though near some of them, or too late for all.
    guard t < heldEarliest - limit && t >= latest - limit else { return .tooLate }
    resolution = .dropped
    heldCount = 0
    // At the start of a file the row that denied the first ones starts it.
    return latest == -.infinity ? take(t) : judge(t)
  }

  /// The end of the file: held rows are kept (``resolution``).
  mutating func end() {
    resolution = .none
    if heldCount > 0 { keepHeld() }
  }

  @inline(__always)
  private mutating func judge(_ t: Double) -> Arrival {
    if t > latest + limit {  // false for an infinite limit (NaN at the start)
      heldLatest = t
      heldEarliest = t
      heldDeepest = 0
      heldReordered = 0
      heldCount = 1
      return .held
    }
    return take(t)
  }

  @inline(__always)
  private mutating func take(_ t: Double) -> Arrival {
    if t >= latest {
      latest = t
      earliestKept = min(earliestKept, t)
      return .inOrder
    }
    if t < latest - limit { return .tooLate }
    deepestKept = max(deepestKept, latest - t)
    earliestKept = min(earliestKept, t)
    return .reordered
  }

  private mutating func hold(_ t: Double) {
    heldCount += 1
    heldEarliest = min(heldEarliest, t)
    if t >= heldLatest {
      heldLatest = t
    } else {
      heldReordered += 1
      heldDeepest = max(heldDeepest, heldLatest - t)
    }
  }

  /// Held rows all come after `latest` (the first by more than `limit`, the
  /// rest no more than `limit` behind the newest held), so kept in the order
  /// held they are judged against each other alone.
  private mutating func keepHeld() {
    resolution = .kept(reordered: heldReordered)
    latest = heldLatest
    earliestKept = min(earliestKept, heldEarliest)
    deepestKept = max(deepestKept, heldDeepest)
    heldCount = 0
  }
}
