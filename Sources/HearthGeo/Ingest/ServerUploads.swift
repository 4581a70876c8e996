/// One way of cutting a recorded history into the uploads a server
/// receives, shared by `hearth geo replay`, the ingest benchmark and the
/// pipeline tests (SPEC §1: a batch and its receipt time).
///
/// Two kinds of history:
/// - **with receipt times** (one per fix: when the server got it): fixes
///   are taken in the order given, which is the order they arrived; a new
///   upload starts wherever the receipt time changes, however many fixes
///   it holds (an upload is refused or taken whole, SPEC §1), or, when
///   ``Policy/gatherAcrossReceipts`` is set (a server that batches what
///   arrives), only when the batch is full. An upload is received at the
///   newest receipt time in it.
/// - **without**: fixes in the order given are cut into uploads of at most
///   ``Policy/maximumFixes`` fixes spanning at most
///   ``Policy/maximumSpanMilliseconds`` (first to last fix), each received
///   ``Policy/receiptDelayMilliseconds`` after its newest fix, or at the
///   nearer end of the server's clock window (1900–2200) when that falls
///   outside it.
///
/// Either way the server clock never goes backwards: an upload is received
/// no earlier than the one before it.
public enum ServerUploads {
  /// One upload: its fixes in arrival order and when the server got them.
  public struct Upload: Sendable, Hashable {
    public var receivedAtMilliseconds: Int64
    public var fixes: FixColumns
    public init(receivedAtMilliseconds: Int64, fixes: FixColumns) {
      self.receivedAtMilliseconds = receivedAtMilliseconds
      self.fixes = fixes
    }
  }

  public struct Policy: Sendable, Hashable, Codable {
    /// At most this many fixes per upload without receipt times, and per
    /// gathered batch (≥ 1). Default 200. Fixes logged with one receipt
    /// time stay one upload, however many.
    public var maximumFixes: Int
    /// Without receipt times: an upload spans at most this long, ms. Default 5 min.
    public var maximumSpanMilliseconds: Int64
    /// Without receipt times: received this long after its newest fix, ms. Default 1 s.
    public var receiptDelayMilliseconds: Int64
    /// With receipt times: fixes received at different times may share a
    /// batch until it is full (a server's batcher). Default false: every
    /// receipt time is an upload of its own, whole.
    public var gatherAcrossReceipts: Bool

    public init(
      maximumFixes: Int = 200, maximumSpanMilliseconds: Int64 = 5 * 60_000,
      receiptDelayMilliseconds: Int64 = 1_000,
      gatherAcrossReceipts: Bool = false
    ) {
      self.maximumFixes = maximumFixes
      self.maximumSpanMilliseconds = maximumSpanMilliseconds
      self.receiptDelayMilliseconds = receiptDelayMilliseconds
      self.gatherAcrossReceipts = gatherAcrossReceipts
    }
  }

  /// Cuts `fixes` (in arrival order) into uploads.
  /// - Parameters:
  ///   - receivedAtMilliseconds: one receipt time per fix, or nil when the
  ///     history has none.
  /// - Precondition: `receivedAtMilliseconds`, when given, has one entry per fix.
  /// - Complexity: O(n). Saturating arithmetic: no time overflows.
  public static func cut(
    _ fixes: FixColumns, receivedAtMilliseconds: [Int64]? = nil, policy: Policy = Policy()
  ) -> [Upload] {
    bounds(
      timeMilliseconds: fixes.timeMilliseconds, receivedAtMilliseconds: receivedAtMilliseconds, policy: policy
    )
    .map { Upload(receivedAtMilliseconds: $0.receivedAtMilliseconds, fixes: fixes.selecting($0.rows)) }
  }

  /// Where ``cut(_:receivedAtMilliseconds:policy:)`` cuts: each upload as a
  /// range of positions in the fixes (given by their times, in arrival
  /// order) and its receipt time, ms. The form for a caller that keeps the
  /// fixes elsewhere (``ServerUploads`` per phone in the runtime's schedule).
  /// - Precondition: `receivedAtMilliseconds`, when given, has one entry per fix.
  /// - Complexity: O(n). Saturating arithmetic: no time overflows.
  public static func bounds(
    timeMilliseconds times: [Int64], receivedAtMilliseconds: [Int64]? = nil, policy: Policy = Policy()
  ) -> [(rows: Range<Int>, receivedAtMilliseconds: Int64)] {
    precondition(receivedAtMilliseconds.map { $0.count == times.count } ?? true, "one receipt time per fix")
    let limit = max(1, policy.maximumFixes)
    var uploads: [(rows: Range<Int>, receivedAtMilliseconds: Int64)] = []
    var clock = Int64.min
    var start = 0
    while start < times.count {
      var end = start + 1
      var received: Int64
      if let receipts = receivedAtMilliseconds {
        received = receipts[start]
        while end < times.count
          && (policy.gatherAcrossReceipts ? end - start < limit : receipts[end] == receipts[start])
        {
          received = max(received, receipts[end])
          end += 1
        }
      } else {
        let first = times[start]
        var newest = first
        func withinSpan(_ t: Int64) -> Bool {
          let (span, overflow) = t.subtractingReportingOverflow(first)
          return overflow ? t < first : span <= policy.maximumSpanMilliseconds
        }
        while end < times.count && end - start < limit && withinSpan(times[end]) {
          newest = max(newest, times[end])
          end += 1
        }
        // Kept on the server's clock (FixValidation.serverClockProblem): a
        // fix dated outside 1900–2200 is rejected when it arrives, and its
        // receipt is the window's nearest end, not a clock centuries away.
        let window = FixValidation.plausibleMilliseconds
        let delayed = newest.addingReportingOverflow(policy.receiptDelayMilliseconds)
        let sum =
          delayed.overflow ? (policy.receiptDelayMilliseconds > 0 ? Int64.max : .min) : delayed.partialValue
        received = min(max(sum, window.lowerBound), window.upperBound - 1)
      }
      clock = max(clock, received)
      uploads.append((start..<end, clock))
      start = end
    }
    return uploads
  }
}
