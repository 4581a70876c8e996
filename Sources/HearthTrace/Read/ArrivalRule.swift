/// Judges each row's key against the rows before it in the file: the one rule
/// by which a file is put in time order, whether it is sorted whole
/// (``RowBlock/finish(rule:keysPerSecond:report:)``), surveyed
/// (``FileSurvey``) or streamed (``RowOrderer``), so all three keep the same rows.
///
/// - A row at or after the newest key kept before it is `inOrder`.
/// - A row at most `limit` behind that key is `reordered`: put in its place.
/// - A row more than `limit` behind it is `tooLate`: rejected `outOfOrder`.
/// - A row more than `limit` ahead of that key starts a held group with the
///   rows that go on from it (none more than `limit` behind or ahead of the
///   newest held). The rows after decide:
///   - one more row going on from the group, once ``heldRowsAtMost`` are
///     held, keeps it (``Outcome/kept(reordered:)``): the file's clock moved
///     on, as after a pause in logging; so do a row more than `limit` ahead
///     of the group (a second jump starts from the first) and the end of the
///     file;
///   - a row more than `limit` behind every held row, not too late for the
///     rows kept before, is held as the group's rival. If the next row goes
///     on from the rival (within `limit` of it, not of the group), the group
///     is dropped (``Outcome/dropped``), each of its rows rejected
///     `outOfOrder` as a lone jump, and the rival is judged as any row. A
///     next row too late for the rows kept before is `tooLate` and leaves the
///     rival held; any other next row, and the end of the file, reject the
///     rival as `tooLate` (``Resolution/rivalRejected``), and the row is then
///     judged against the group. One stray row alone never overrules the
///     group (review28 F3: a stale row after a pause cost the rows after it);
///   - any other row more than `limit` behind the newest held is `tooLate`
///     and decides nothing, as it would be were the group kept.
///
/// Why (review26 F5): one row dated years ahead used to become the newest
/// key, so every later row of the file was `tooLate` and a recording of an
/// hour kept a second of it.
///
/// The first row of a file is kept whatever its time: nothing before it says
/// whether it strays, and holding it would cost a recording that pauses
/// after its first rows those rows (so a first row dated years ahead still
/// makes the rest too late, and one dated 1900 is kept; review28 F1). A
/// `limit` of infinity (a file kept in its own order) holds nothing and
/// rejects nothing. Keys are finite: the readers reject other times first.
///
/// - Complexity: O(1) per row, no allocation; the rows held are the caller's
///   to keep, in the order they came: the group, then the rival if there is
///   one, at most ``heldRowsAtMost`` + 1 rows.
struct ArrivalRule: Sendable {
  /// How a row's key stands.
  enum Arrival: Equatable {
    case inOrder
    case reordered
    case tooLate
    /// Held, in the group or as its rival, until a later row decides.
    case held
  }

  /// What became of a held group.
  enum Outcome: Equatable {
    case none
    /// Kept, in the order held; `reordered` of its rows came behind a held
    /// row before them.
    case kept(reordered: Int)
    /// Rejected: a jump ahead the file did not go on from.
    case dropped
  }

  /// What a row (or the end) decided for the rows held before it, acted on
  /// in this order: the rival, the group, then (when the group was dropped)
  /// the rival again.
  struct Resolution: Equatable {
    /// The rival (the last row held) is rejected as too late.
    var rivalRejected = false
    /// The group (the rows held, the rival aside).
    var group = Outcome.none
    /// When the group was dropped: the rival's own arrival, judged then
    /// (`held`: it starts a new group).
    var rival = Arrival.held

    static let none = Resolution()
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
  /// How many rows the group holds now (the rival aside).
  private(set) var heldCount = 0
  private var heldLatest = -Double.infinity
  private var heldEarliest = Double.infinity
  private var heldDeepest = 0.0
  private var heldReordered = 0
  /// The rival's key, when one is held.
  private var rival: Double?

  init(limit: Double) { self.limit = limit }

  /// Judges key `t`, the next row's in file order. Read ``resolution`` first:
  /// it says what became of the rows held before this one.
  @inline(__always)
  mutating func arrive(_ t: Double) -> Arrival {
    resolution = .none
    if heldCount == 0 { return judge(t) }
    if let b = rival {
      if t >= heldLatest - limit && t <= heldLatest + limit {
        rejectRival()
      } else if abs(t - b) <= limit {
        // Two rows agree against the group: it was a lone jump.
        resolution.group = .dropped
        heldCount = 0
        rival = nil
        resolution.rival = judge(b)
        return heldCount == 0 ? judge(t) : group(t)
      } else if t < latest - limit {
        return .tooLate
      } else {
        rejectRival()
      }
    }
    return group(t)
  }

  /// The end of the file: a rival is rejected, the group kept (``resolution``).
  mutating func end() {
    resolution = .none
    if rival != nil { rejectRival() }
    if heldCount > 0 { keepHeld() }
  }

  /// `t` against the group, with no rival held.
  @inline(__always)
  private mutating func group(_ t: Double) -> Arrival {
    if t >= heldLatest - limit {
      if t <= heldLatest + limit && heldCount < Self.heldRowsAtMost {
        hold(t)
        return .held
      }
      // Enough rows went on from the jump, or another jump starts from them.
      keepHeld()
      return judge(t)
    }
    // Near some held rows but too late for the newest, or too late for all.
    if t >= heldEarliest - limit || t < latest - limit { return .tooLate }
    rival = t
    return .held
  }

  private mutating func rejectRival() {
    resolution.rivalRejected = true
    rival = nil
  }

  @inline(__always)
  private mutating func judge(_ t: Double) -> Arrival {
    if t > latest + limit && latest > -.infinity {  // never for an infinite limit
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
    resolution.group = .kept(reordered: heldReordered)
    latest = heldLatest
    earliestKept = min(earliestKept, heldEarliest)
    deepestKept = max(deepestKept, heldDeepest)
    heldCount = 0
  }
}
