import Foundation
import HearthImpact
import HearthTrace

/// An incident's saved bytes (SPEC §10: the state must survive a process
/// kill), as every door reads them: libhearth's `hearth_incident_restore`
/// and through it Python's `hearth.Incident.restore`, Node's and the JVM's.
public enum SavedIncident {
  /// The incident `bytes` (JSON, as ``IncidentState``'s `Codable` writes it)
  /// saved. The format version is checked (absent: version 1; another is
  /// refused naming `formatVersion`) and then every value
  /// (``IncidentState/init(from:)``). O(size of the bytes).
  /// - Throws: `TraceError.malformed` beginning "not a saved incident",
  ///   naming the field refused and why.
  public static func restore(_ bytes: Data) throws(TraceError) -> IncidentState {
    do {
      return try DecodingProblem.decoding(Array(bytes)) {
        try JSONDecoder().decode(IncidentState.self, from: $0)
      }
    } catch {
      throw .malformed(
        SourceLocation(file: "saved incident", line: 0),
        reason: "not a saved incident (\(bytes.count) bytes): \(error.reason)")
    }
  }
}
