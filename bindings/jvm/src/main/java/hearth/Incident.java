package hearth;

import java.util.Objects;

/**
 * An incident opened by a verdict (SPEC §10): moved by the wall clock and the
 * person's and network's inputs through {@link #check}; its whole state as
 * bytes ({@link #save}, {@link #restore}) to write to disk and survive a
 * process kill. Thread-safe (calls take turns); close it when done.
 */
public final class Incident extends Handle {
  /** The header's HEARTH_INPUT_* (checked against include/hearth.h by a test). */
  public enum Input {
    NOTHING(0),
    DISMISSED(1),
    ALERT_NOW(2),
    DELIVERED(3),
    NETWORK_FAILURE(4),
    /** With an HTTP status and the tokens held. */
    HTTP(5),
    FIREWALL_PAGE(6),
    UPLOAD_SUCCEEDED(7),
    /** With the account signed in. */
    SIGNED_IN(8);

    final int code;

    Input(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  /** The header's HEARTH_ACTION_*. */
  public enum Kind {
    NONE(0),
    /** Show the question until {@link Action#timeMs}. */
    ASK(1),
    SEND(2),
    /** Call check again at {@link Action#timeMs}. */
    WAIT_UNTIL(3),
    /** {@link Action#end} says how. */
    FINISHED(4);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  /** The header's HEARTH_END_*. */
  public enum End {
    DISMISSED(0),
    DELIVERED(1),
    REFUSED(2),
    DROPPED_AFTER_AN_HOUR(3),
    OTHER_ACCOUNT(4);

    final int code;

    End(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  /** What to do now. */
  public static final class Action {
    public final Kind kind;
    /** How it finished; null unless {@code kind == FINISHED}. */
    public final End end;
    public final long timeMs;

    Action(Kind kind, End end, long timeMs) {
      this.kind = kind;
      this.end = end;
      this.timeMs = timeMs;
    }

    @Override
    public boolean equals(Object other) {
      if (!(other instanceof Action)) return false;
      Action a = (Action) other;
      return a.kind == kind && a.end == end && a.timeMs == timeMs;
    }

    @Override
    public int hashCode() {
      return kind.hashCode() * 31 + (end == null ? 0 : end.hashCode()) * 7 + Long.hashCode(timeMs);
    }

    @Override
    public String toString() {
      return kind + (end == null ? "" : " " + end) + " @" + timeMs;
    }
  }

  /** An incident opened by a verdict at {@code verdictMs} (ms since the epoch) for {@code account}. */
  public Incident(long verdictMs, String account) {
    super("Incident", Native.incidentCreate(verdictMs, Text.utf8(Objects.requireNonNull(account, "account"), "account")));
  }

  private Incident(long handle) {
    super("Incident", handle);
  }

  /** An incident from saved bytes; bad bytes are refused by the library (HearthException, BAD_INPUT). */
  public static Incident restore(byte[] state) {
    return new Incident(Native.incidentRestore(state));
  }

  /** Moves the incident to {@code nowMs} with an input that carries nothing else. */
  public Action check(long nowMs, Input input) {
    return check(nowMs, input, 0, 0, null);
  }

  /** Moves the incident to {@code nowMs} with an input (HTTP: its status and the tokens held; SIGNED_IN: the account). */
  public synchronized Action check(long nowMs, Input input, int httpStatus, int tokensHeld, String account) {
    long[] a = Native.incidentCheck(handle(), nowMs, input.code, httpStatus, tokensHeld, Text.utf8(account, "account"));
    Kind kind = null;
    for (Kind k : Kind.values()) {
      if (k.code == a[0]) kind = k;
    }
    if (kind == null) throw new IllegalStateException("libhearth returned action " + a[0] + ", unknown to this binding");
    End end = null;
    if (kind == Kind.FINISHED) {
      for (End e : End.values()) {
        if (e.code == a[1]) end = e;
      }
      if (end == null) throw new IllegalStateException("libhearth returned end " + a[1] + ", unknown to this binding");
    }
    return new Action(kind, end, a[2]);
  }

  /** The whole state as bytes (JSON), to write where it survives a process kill. */
  public synchronized byte[] save() {
    return Native.incidentSave(handle());
  }
}
