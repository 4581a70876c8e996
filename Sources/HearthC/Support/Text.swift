// Text in through the C ABI: every `const char *` (ids, paths, JSON) and
// every pointer-and-length text becomes a Swift string here, and only here.
//
// The rule is strict UTF-8 (RFC 3629, as Swift's own `String(validating:)`
// takes it): no overlong forms, no surrogates (U+D800–U+DFFF, which is how
// JNI's modified UTF-8 writes a character outside the BMP), nothing above
// U+10FFFF, no sequence cut short. Text that breaks it is refused with
// HEARTH_ERROR_ARGUMENT naming the parameter and the offset of the first
// byte that is not UTF-8, never repaired: a lenient decoder turns every bad
// sequence into U+FFFD, so two different inputs ("\xff" and "\xfe" as
// accounts) would become one string and compare equal.
//
// A C string ends at its first NUL, so a NUL inside text cannot reach the
// library through a `const char *`: a door whose language strings may hold
// one (Python, Node, Java) refuses it before the call.

/// The offset of the first byte of `bytes` that does not start or continue
/// a well-formed UTF-8 sequence (the start of a sequence cut short, or of a
/// byte that begins none), nil when all of it is UTF-8. O(count).
package func firstInvalidUTF8(_ bytes: UnsafeRawBufferPointer) -> Int? {
  var i = 0
  let n = bytes.count
  while i < n {
    let lead = bytes[i]
    if lead < 0x80 {
      i += 1
      continue
    }
    // The length of the sequence `lead` starts, and the range its second
    // byte must be in (which rules out overlong forms, surrogates and
    // values above U+10FFFF: the Unicode Standard's table 3-7).
    let length: Int
    var second: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: (length, second) = (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED: (length, second) = (3, 0x80...0x9F)
    case 0xF0: (length, second) = (4, 0x90...0xBF)
    case 0xF1...0xF3: length = 4
    case 0xF4: (length, second) = (4, 0x80...0x8F)
    default: return i  // a continuation byte alone, C0, C1 or F5–FF
    }
    guard i + 1 < n, second.contains(bytes[i + 1]) else { return i }
    for k in 2..<length {
      guard i + k < n, (0x80...0xBF).contains(bytes[i + k]) else { return i }
    }
    i += length
  }
  return nil
}

/// `bytes` as a string, exactly, or ArgumentError naming `name` and the
/// offset of the first byte that is not UTF-8. O(count).
package func string(_ bytes: UnsafeRawBufferPointer, _ name: String) throws(ArgumentError) -> String {
  if let offset = firstInvalidUTF8(bytes) {
    let byte = String(bytes[offset], radix: 16, uppercase: true)
    throw ArgumentError(
      reason: "\(name) is not UTF-8: byte 0x\(byte.count < 2 ? "0" : "")\(byte) at offset \(offset)")
  }
  // Valid, so decoding replaces nothing.
  return String(decoding: bytes, as: UTF8.self)
}

/// A NUL-terminated C string as a string (nil for NULL), exactly, or
/// ArgumentError naming `name` and the offset of the first byte that is
/// not UTF-8. O(length).
package func string(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(ArgumentError) -> String? {
  guard let pointer else { return nil }
  var length = 0
  while pointer[length] != 0 { length += 1 }
  return try string(UnsafeRawBufferPointer(start: pointer, count: length), name)
}

/// A C string that may not be NULL ("`name` is NULL" otherwise), as
/// ``string(_:_:)-(UnsafePointer<CChar>?,_)`` reads it.
package func requiredString(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(ArgumentError) -> String
{
  guard let text = try string(pointer, name) else { throw ArgumentError(reason: "\(name) is NULL") }
  return text
}
