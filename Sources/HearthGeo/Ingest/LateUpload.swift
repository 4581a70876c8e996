/// The one definition of a late upload (SPEC §3 "a batch whose newest fix is
/// older than 15 min", §4 "a drive that uploads late"), used by every engine
/// with a late rule (geofences, the speed alert).
///
/// Fixes are late when the newest of them is more than
/// `lateAfterMilliseconds` older than the time the server received them.
/// Which fixes: those of what the decision is about, as far as the upload
/// shows it — never the whole upload (a server batch mixes many phones, so
/// one person's fresh fix never makes another person's late drive timely),
/// and never simply the person's newest fix:
/// - a **speed alert** is about its stretch over the limit: the stretch's
///   fixes in the upload that decided it, from its start through the fix
///   that made it long enough and on while the next pairs stay over the
///   limit. A drive from hours ago followed in its upload by one fresh fix
///   is late; a stretch still over the limit at a fresh fix is not.
/// - a **geofence** decision is about where the person is, which every
///   fix of theirs says: the person's fixes in the upload (SPEC §3's batch
///   rule, per person). News older than 30 min is feed only by its own age
///   as well (``GeofenceRules``), so an old crossing in an upload that ends
///   fresh is not announced either.
///
/// What a late upload decides goes to the feed only, including decisions
/// that a later clock advance completes (a departure or fast arrival the
/// late fixes left waiting).
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
