import CHearth
import Foundation
import Testing

@testable import HearthC

@Suite("Text through the C ABI: strict UTF-8, never repaired")
struct TextTests {
  // MARK: The decoder

  @Test(
    "the first byte that is not UTF-8, at the edges of every sequence length",
    arguments: [
      ([], nil), (Array("plain".utf8), nil), ([0xC2, 0x80], nil), ([0xDF, 0xBF], nil),
      (Array("é".utf8), nil), ([0xE0, 0xA0, 0x80], nil), ([0xED, 0x9F, 0xBF], nil),  // U+0800, U+D7FF
      ([0xEE, 0x80, 0x80], nil), ([0xEF, 0xBF, 0xBF], nil),  // U+E000, U+FFFF
      ([0xF0, 0x90, 0x80, 0x80], nil), ([0xF4, 0x8F, 0xBF, 0xBF], nil),  // U+10000, U+10FFFF
      (Array("😀".utf8), nil),
      ([0xFF], 0), ([0xFE], 0), ([0x61, 0xFF], 1), ([0x80], 0), ([0xBF], 0),  // lone continuations
      ([0xC0, 0x80], 0), ([0xC1, 0xBF], 0),  // overlong: JNI's modified UTF-8 writes NUL as C0 80
      ([0xE0, 0x9F, 0xBF], 0),  // overlong U+07FF
      ([0xED, 0xA0, 0x80], 0), ([0xED, 0xBF, 0xBF], 0),  // surrogates U+D800, U+DFFF
      ([0xF0, 0x8F, 0xBF, 0xBF], 0),  // overlong U+FFFF
      ([0xF4, 0x90, 0x80, 0x80], 0), ([0xF5, 0x80, 0x80, 0x80], 0),  // above U+10FFFF
      ([0x61, 0xE2, 0x82], 1), ([0x61, 0xF0, 0x9F, 0x98], 1), ([0xC3], 0),  // cut short
      ([0xC3, 0x41], 0), ([0x61, 0x62, 0xE2, 0x28, 0xA1], 2),  // a continuation missing
    ] as [([UInt8], Int?)])
  func firstInvalid(bytes: [UInt8], offset: Int?) {
    #expect(bytes.withUnsafeBytes { firstInvalidUTF8($0) } == offset)
  }

  @Test("agrees with the standard library's strict decoder on 20 000 seeded random byte strings")
  func agreesWithTheStandardLibrary() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {  // SplitMix64
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    for trial in 0..<20_000 {
      // Bytes around the lead and continuation ranges, so many strings are valid.
      let alphabet: [UInt8] = [
        0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
        0xF0, 0xF4, 0xF5, 0xFF,
      ]
      let bytes = (0..<Int(next() % 8)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
      let ours = bytes.withUnsafeBytes { firstInvalidUTF8($0) }
      let standard = String(validating: bytes, as: UTF8.self)
      #expect((ours == nil) == (standard != nil), "trial \(trial): \(bytes)")
      if ours == nil { #expect(standard.map { Array($0.utf8) } == bytes) }
      // The valid prefix ends where the first bad byte is.
      if let ours {
        #expect(String(validating: bytes[..<ours], as: UTF8.self) != nil, "trial \(trial): \(bytes)")
      }
    }
  }

  @Test("a refusal names the parameter, the byte and its offset; valid text comes back byte for byte")
  func decoding() throws {
    let valid = cString(Array("Zoë 😀".utf8))
    let decoded = try valid.withUnsafeBufferPointer { (p) throws(ArgumentError) -> String? in
      try string(p.baseAddress, "account")
    }
    #expect(decoded.map { Array($0.utf8) } == Array("Zoë 😀".utf8))
    let refused = cString([0x61, 0x62, 0x0F, 0xFE]).withUnsafeBufferPointer { p in
      Result { () throws(ArgumentError) in try string(p.baseAddress, "account") }
    }
    guard case .failure(let error) = refused else {
      Issue.record("accepted")
      return
    }
    #expect(error.reason == "account is not UTF-8: byte 0xFE at offset 3")
    #expect(try string(nil, "account") == nil)
    #expect(throws: ArgumentError.self) { try requiredString(nil, "folder") }
  }

  // MARK: The incident's accounts (SPEC §10: a different account drops it)

  @Test("accounts \\xff and \\xfe are refused, not both read as U+FFFD and taken for one account")
  func invalidAccounts() {
    let verdict: Int64 = 1_700_000_000_000
    for bad: [UInt8] in [[0xFF], [0xFE], [0x61, 0xC0, 0x80, 0x62]] {
      var incident: OpaquePointer?
      let status = hearth_incident_create(verdict, cString(bad), &incident)
      #expect(status == HEARTH_ERROR_ARGUMENT)
      #expect(lastError(incident).hasPrefix("account is not UTF-8: byte 0x"))
      release(incident)
    }
    // A signed-in account that is not UTF-8 is refused and changes nothing:
    // the incident neither ends nor is taken to be the same account's.
    var incident: OpaquePointer?
    #expect(hearth_incident_create(verdict, "ada", &incident) == HEARTH_OK)
    defer { release(incident) }
    var action = hearth_incident_action()
    let status = hearth_incident_check(
      incident, verdict, HEARTH_INPUT_SIGNED_IN, 0, 0, cString(Array("ada".utf8) + [0xFF]), &action)
    #expect(status == HEARTH_ERROR_ARGUMENT)
    #expect(lastError(incident) == "account is not UTF-8: byte 0xFF at offset 3")
    #expect(hearth_incident_check(incident, verdict, HEARTH_INPUT_NOTHING, 0, 0, nil, &action) == HEARTH_OK)
    #expect(action.action == HEARTH_ACTION_ASK)
  }

  @Test(
    "an account outside the BMP round-trips exactly: same account stays, a neighbour's ends it, saved and restored"
  )
  func emojiAccount() throws {
    let verdict: Int64 = 1_700_000_000_000
    let account = "👩‍👧 𝔄"  // four-byte sequences and a joiner
    var incident: OpaquePointer?
    #expect(hearth_incident_create(verdict, account, &incident) == HEARTH_OK)
    defer { release(incident) }
    var action = hearth_incident_action()
    #expect(
      hearth_incident_check(incident, verdict, HEARTH_INPUT_SIGNED_IN, 0, 0, account, &action) == HEARTH_OK)
    #expect(action.action == HEARTH_ACTION_ASK)
    // Saved and restored, the account is the same bytes.
    var saved: OpaquePointer?
    #expect(hearth_incident_save(incident, &saved) == HEARTH_OK)
    defer { release(saved) }
    let data = Data(bytes: try #require(hearth_bytes_data(saved)), count: Int(hearth_bytes_size(saved)))
    struct State: Decodable { var account: String }
    #expect(Array(try JSONDecoder().decode(State.self, from: data).account.utf8) == Array(account.utf8))
    var restored: OpaquePointer?
    #expect(
      hearth_incident_restore(hearth_bytes_data(saved), hearth_bytes_size(saved), &restored) == HEARTH_OK)
    defer { release(restored) }
    #expect(
      hearth_incident_check(restored, verdict, HEARTH_INPUT_SIGNED_IN, 0, 0, account, &action) == HEARTH_OK)
    #expect(action.action == HEARTH_ACTION_ASK)
    // One code point apart (𝔄 U+1D504, 𝔅 U+1D505): another account.
    #expect(
      hearth_incident_check(restored, verdict, HEARTH_INPUT_SIGNED_IN, 0, 0, "👩‍👧 𝔅", &action) == HEARTH_OK)
    #expect(action.action == HEARTH_ACTION_FINISHED && action.end == HEARTH_END_OTHER_ACCOUNT)
    // JNI's modified UTF-8 of U+1F600 (a surrogate pair, CESU-8) is refused, not mangled.
    var cesu: OpaquePointer?
    #expect(
      hearth_incident_create(verdict, cString([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]), &cesu)
        == HEARTH_ERROR_ARGUMENT)
    #expect(lastError(cesu) == "account is not UTF-8: byte 0xED at offset 0")
    release(cesu)
  }

  // MARK: Every other text parameter

  @Test("every text parameter refuses bytes that are not UTF-8 with HEARTH_ERROR_ARGUMENT, naming itself")
  func everyParameter() throws {
    let bad = cString([0x7B, 0x7D, 0xFF])  // "{}" then a byte that is not UTF-8
    func created(_ name: String, _ call: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) {
      var handle: OpaquePointer?
      #expect(call(&handle) == HEARTH_ERROR_ARGUMENT, "\(name)")
      #expect(lastError(handle) == "\(name) is not UTF-8: byte 0xFF at offset 2")
      release(handle)
    }
    created("path") { hearth_trace_read(bad, nil, $0) }
    created("mapping_path") { hearth_trace_read("/", bad, $0) }
    created("metadata_json") { hearth_trace_create(bad, $0) }
    created("configuration_json") { hearth_detector_create(bad, $0) }
    created("configuration_json") { hearth_configuration_json(bad, $0) }
    created("description_json") { hearth_ingest_create(bad, $0) }

    var trace: OpaquePointer?
    #expect(hearth_trace_create("{}", &trace) == HEARTH_OK)
    defer { release(trace) }
    #expect(hearth_trace_write(trace, bad) == HEARTH_ERROR_ARGUMENT)
    #expect(lastError(trace) == "folder is not UTF-8: byte 0xFF at offset 2")

    var detector: OpaquePointer?
    #expect(hearth_detector_create(nil, &detector) == HEARTH_OK)
    defer { release(detector) }
    created("file_name") { hearth_detector_report(detector, bad, HEARTH_FORMAT_TEXT, $0) }

    var ingest: OpaquePointer?
    #expect(hearth_ingest_create("{}", &ingest) == HEARTH_OK)
    defer { release(ingest) }
    var dropped: Int64 = -1
    #expect(hearth_ingest_reconfigure(ingest, bad, &dropped) == HEARTH_ERROR_ARGUMENT)
    #expect(
      lastError(ingest) == "description_json is not UTF-8: byte 0xFF at offset 2; the pipeline is unchanged")
    #expect(dropped == -1)
    // Valid text is still read as before: a malformed description is bad input.
    #expect(hearth_ingest_reconfigure(ingest, "{", &dropped) == HEARTH_ERROR_BAD_INPUT)
  }

  @Test("a place name outside the BMP comes back in the events exactly as given")
  func emojiPlaceName() throws {
    let name = "Grandma's 🏡"
    let description = """
      {"places": [{"id": 1, "circle": 7, "name": "\(name)", "latitude_deg": 48.137, "longitude_deg": 11.575,
                   "radius_m": 150}], "circles_of_person": {"1": [7]}}
      """
    var ingest: OpaquePointer?
    #expect(hearth_ingest_create(description, &ingest) == HEARTH_OK)
    defer { release(ingest) }
    let t0: Int64 = 1_700_000_000_000
    var (time, lat, lon, accuracy) = ([t0], [48.137], [11.575], [10.0])
    var user: [UInt32] = [1]
    var fixes = hearth_fixes()
    fixes.count = 1
    let status = time.withUnsafeMutableBufferPointer { t in
      lat.withUnsafeMutableBufferPointer { la in
        lon.withUnsafeMutableBufferPointer { lo in
          accuracy.withUnsafeMutableBufferPointer { a in
            user.withUnsafeMutableBufferPointer { u in
              fixes.time_ms = UnsafePointer(t.baseAddress)
              fixes.latitude_deg = UnsafePointer(la.baseAddress)
              fixes.longitude_deg = UnsafePointer(lo.baseAddress)
              fixes.horizontal_accuracy_m = UnsafePointer(a.baseAddress)
              fixes.user = UnsafePointer(u.baseAddress)
              return hearth_ingest_batch(ingest, &fixes, t0 + 1_000)
            }
          }
        }
      }
    }
    #expect(status == HEARTH_OK, "\(lastError(ingest))")
    var json: OpaquePointer?
    #expect(hearth_ingest_events_json(ingest, &json) == HEARTH_OK)
    defer { release(json) }
    let text = String(
      decoding: UnsafeRawBufferPointer(start: hearth_bytes_data(json), count: Int(hearth_bytes_size(json))),
      as: UTF8.self)
    #expect(text.contains(name), "\(text)")
  }
}
