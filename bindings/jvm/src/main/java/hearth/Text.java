package hearth;

import java.nio.charset.StandardCharsets;

/**
 * Strings to the library: standard UTF-8 bytes, exactly, or refused by name.
 * Not API.
 *
 * <p>The bytes are made here with {@link String#getBytes} in UTF-8, not by
 * JNI's GetStringUTFChars, whose "modified UTF-8" writes NUL as C0 80 and a
 * character outside the BMP as two surrogates of three bytes each (neither
 * is UTF-8: the library would refuse an emoji). What UTF-8 cannot say is
 * refused before the call with {@link IllegalArgumentException} naming the
 * parameter and the index: a lone surrogate (getBytes would write '?' for
 * it, so a lone U+D800 and a lone U+DBFF would reach the library as one
 * string) and a NUL (a C string ends at its first NUL: "alice", NUL, "x"
 * would arrive as "alice"). The rule itself, UTF-8 without NUL, is the
 * library's (include/hearth.h).
 */
final class Text {
  private Text() {}

  /** {@code text} as UTF-8 bytes for the parameter {@code name}; null for null. */
  static byte[] utf8(String text, String name) {
    if (text == null) return null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        throw new IllegalArgumentException(name + ": a NUL character at index " + i + ", which a C string cannot carry");
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(String.format(
            "%s: a lone surrogate (U+%04X) at index %d, which UTF-8 cannot encode", name, (int) c, i));
      }
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
