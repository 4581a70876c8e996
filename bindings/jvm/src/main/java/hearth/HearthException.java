package hearth;

import java.nio.charset.StandardCharsets;

/**
 * A call into libhearth failed: {@link #status()} is the header's status
 * (HEARTH_ERROR_*), the message the library's reason (which file, row, field
 * or setting), or the status's name when the library gave none.
 */
public final class HearthException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The header's status codes (include/hearth.h; a test checks them against it). */
  public enum Status {
    ARGUMENT(1),
    BAD_INPUT(2),
    SCHEMA(3),
    STATE(4),
    CAPACITY(5),
    /** A status this version of the binding does not know (a newer library). */
    UNKNOWN(-1);

    final int code;

    Status(int code) {
      this.code = code;
    }

    /** The header's value, HEARTH_ERROR_&lt;name&gt;. */
    public int code() {
      return code;
    }

    static Status of(int code) {
      for (Status s : values()) {
        if (s.code == code) return s;
      }
      return UNKNOWN;
    }
  }

  private final int code;

  private HearthException(int code, String message) {
    super(message);
    this.code = code;
  }

  /** Called by the JNI library with the status and the library's message (UTF-8). */
  static HearthException fromNative(int status, byte[] message) {
    String text = new String(message, StandardCharsets.UTF_8);
    if (text.isEmpty()) text = new String(Native.statusName(status), StandardCharsets.UTF_8);
    return new HearthException(status, text);
  }

  /** The status as the header numbers it. */
  public int statusCode() {
    return code;
  }

  /** The status by name ({@link Status#UNKNOWN} for one this binding does not know). */
  public Status status() {
    return Status.of(code);
  }
}
