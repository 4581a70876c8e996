/// The one definition of a late upload (SPEC §3 "a batch whose newest fix is
/// older than 15 min", §4 "a drive that uploads late"), used by every engine
/// with a late rule (geofences, the speed alert).
///
/// Lateness is judged **per person**: a person's fixes in a batch are late
/// when that person's newest fix in the batch is more than
/// `lateAfterMilliseconds` older than the time the server received the
/// batch. A server batch mixes many phones, so one person's fresh fix never
/// makes another person's late drive timely, nor the other way round. What a
/// late upload decides goes to the feed only, including decisions that a
/// later clock advance completes (a departure or fast arrival the late fixes
/// left waiting).
public struct LateUploadRule: Sendable, Hashable, Codable {
  /// Late beyond this, ms (strictly greater). Default 15 min.
  public var lateAfterMilliseconds: Int64

  public init(lateAfterMilliseconds: Int64 = 15 * 60_000) {
    self.lateAfterMilliseconds = lateAfterMilliseconds
  }

  /// Whether fixes whose newest is `newestFixMilliseconds` are late when
  /// received at `receivedAtMilliseconds`. Exact integer arithmetic, no
  /// overflow (a fix from the future is never late). O(1).
  @inline(__always)
  public func isLate(newestFixMilliseconds: Int64, receivedAtMilliseconds: Int64) -> Bool {
    let age = receivedAtMilliseconds.subtractingReportingOverflow(newestFixMilliseconds)
    return age.overflow ? receivedAtMilliseconds > newestFixMilliseconds : age.partialValue > lateAfterMilliseconds
  }
}
