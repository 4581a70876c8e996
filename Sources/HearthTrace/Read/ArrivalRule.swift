/// Judges each row's key against the rows before it in the file: the one rule
/// by which a file is put in time order, whether it is sorted whole
/// (``RowBlock/finish(rule:keysPerSecond:report:)``), surveyed
/// (``FileSurvey``) or streamed (``RowOrderer``), so all three keep the same rows.
///
/// - A row at or after the newest key kept before it is `inOrder`.
/// - A row at most `limit` behind that key is `reordered`: put in its place.
/// - A row more than `limit` behind it is `tooLate`: rejected `outOfOrder`.
/// - A row more than `limit` ahead of that key (a jump) is `held` until the
///   rows after it decide:
///   - a row within `limit` of it, a row more than `limit` ahead of it (a
///     second jump, held in turn) and the end of the file keep it
///     (``Outcome/kept``): the file's clock moved on, as after a pause in
///     logging or a clock stepped forward;
///   - a row more than `limit` behind it, not too late for the rows kept
///     before, is held as its rival. If the next row is too late for the
///     rows kept before, it is `tooLate` and the rival stays held. If it
///     goes on from the rival instead (within `limit` of it, not of the
///     jump), two rows in a row say the jump was a lone row: it is dropped
///     (``Outcome/dropped``), rejected `outOfOrder`, and the rival is judged
///     as any row. Any other next row, and the end of the file, reject the
///     rival as `tooLate` (``Resolution/rivalRejected``), and the row is then
///     judged against the jump. One stray row never overrules another
///     (review28 F3: a stale row after a pause cost the rows after it).
///
/// Only a lone row is dropped: two rows or more that go on from a jump are
/// where the file's clock went, as before this rule (review29 F1, F2: two
/// stale rows after a pause, or a minority clock written in bursts, would
/// otherwise overrule real rows). Why the lone row is (review26 F5): one row
/// dated years ahead used to become the newest key, so every later row of
/// the file was `tooLate` and a recording of an hour kept a second of it.
///
/// The first row of a file has nothing before it to be judged against, so
/// the rule starts from it (one dated 1900 is kept; review28 F1), with one
/// exception decided before the rule runs (``firstRowStrays(_:limit:)``): a
/// first row more than `limit` ahead of every one of the
/// ``firstRowLookahead`` rows after it (of all of them, in a shorter file of
/// at least ``firstRowWitnesses``) is rejected, and the rule starts from the
/// second row. A `limit` of infinity (a file kept in its own order) holds
/// nothing and rejects nothing. Keys are finite: the readers reject other
/// times first.
///
/// - Complexity: O(1) per row, no allocation; the rows held are the caller's
///   to keep, in the order they came: the jump, then its rival if there is one.
struct ArrivalRule: Sendable {
  /// How a row's key stands.
  enum Arrival: Equatable {
    case inOrder
    case reordered
    case tooLate
    /// Held, as a jump or as its rival, until a later row decides.
    case held
  }

  /// What became of a held jump.
  enum Outcome: Equatable {
    case none
    /// Kept: the newest key kept.
    case kept
    /// Rejected: a lone row ahead the file did not go on from.
    case dropped
  }

  /// What a row (or the end) decided for the rows held before it, acted on
  /// in this order: the rival, the jump, then (when the jump was dropped)
  /// the rival again.
  struct Resolution: Equatable {
    /// The rival (the last row held) is rejected as too late.
    var rivalRejected = false
    /// The jump (the first row held).
    var jump = Outcome.none
    /// When the jump was dropped: the rival's own arrival, judged then
    /// (`inOrder` or `reordered`; a rival that is a jump itself is kept by
    /// the row that went on from it).
    var rival = Arrival.held

    static let none = Resolution()
  }

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
  /// The held jump's key, and its rival's.
  private var jump: Double?
  private var rival: Double?

  init(limit: Double) { self.limit = limit }

  /// Judges key `t`, the next row's in file order. Read ``resolution`` first:
  /// it says what became of the rows held before this one.
  @inline(__always)
  mutating func arrive(_ t: Double) -> Arrival {
    resolution = .none
    guard let j = jump else { return judge(t) }
    if let b = rival {
      if abs(t - j) <= limit {
        rejectRival()
      } else if t < latest - limit {
        return .tooLate
      } else if abs(t - b) <= limit {
        // Two rows in a row go on from before the jump: it was a lone row.
        resolution.jump = .dropped
        (jump, rival) = (nil, nil)
        if b > latest + limit {
          // The rival is a jump itself, and `t` goes on from it: kept.
          latest = b
          earliestKept = min(earliestKept, b)
          resolution.rival = .inOrder
        } else {
          resolution.rival = judge(b)
        }
        return judge(t)
      } else {
        rejectRival()
      }
    }
    if t >= j - limit {
      keepJump(j)
      return judge(t)
    }
    if t < latest - limit { return .tooLate }
    rival = t
    return .held
  }

  /// The end of the file: a rival is rejected, a jump kept (``resolution``).
  mutating func end() {
    resolution = .none
    if rival != nil { rejectRival() }
    if let j = jump { keepJump(j) }
  }

  private mutating func rejectRival() {
    resolution.rivalRejected = true
    rival = nil
  }

  private mutating func keepJump(_ j: Double) {
    resolution.jump = .kept
    jump = nil
    latest = j
    earliestKept = min(earliestKept, j)
  }

  @inline(__always)
  private mutating func judge(_ t: Double) -> Arrival {
    if t > latest + limit && latest > -.infinity {  // never for an infinite limit
      jump = t
      return .held
    }
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
}

extension ArrivalRule {
  /// How many rows after a file's first row the first row is judged by.
  /// Choice: 64. The first row is rejected only when every one of them (at
  /// least ``firstRowWitnesses``) lies more than the limit behind it: a log
  /// may open with a good fix and then a run of cached fixes an hour old, or
  /// of placeholder rows dated 1970 (review31, review34), and a row after
  /// that run that comes back near the first fix shows the run is the stray.
  /// Only a run of 64 or more such rows still costs a good first row.
  static let firstRowLookahead = 64
  /// The fewest rows after the first row that may reject it. Choice: 8; a
  /// file of fewer than nine rows keeps its first row.
  static let firstRowWitnesses = 8

  /// Whether a file's first row is rejected before the rule runs: `opening`
  /// is the file's first rows in file order (only the first
  /// 1 + ``firstRowLookahead`` are read). True when `limit` is finite and
  /// the rows after the first — every one up to ``firstRowLookahead``, and
  /// at least ``firstRowWitnesses`` — all lie more than `limit` behind it;
  /// a corrupted first stamp years ahead then costs that row, not every row
  /// after it (before, they were all too late). O(``firstRowLookahead``).
  static func firstRowStrays(_ opening: some Collection<Double>, limit: Double) -> Bool {
    guard limit < .infinity, let first = opening.first else { return false }
    let after = opening.dropFirst().prefix(firstRowLookahead)
    return after.count >= firstRowWitnesses && after.allSatisfy { $0 < first - limit }
  }

  /// How many of a file's first rows ``firstRowStrays(_:limit:)`` reads.
  static let openingRows = 1 + firstRowLookahead
}
