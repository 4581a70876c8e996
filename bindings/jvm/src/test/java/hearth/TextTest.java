package hearth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Strings to the library: standard UTF-8 exactly, or refused by name. A
 * string C cannot be handed (a NUL, a lone surrogate) must not reach the
 * library as another string, and a character outside the BMP must arrive
 * as its four UTF-8 bytes, not as JNI's modified UTF-8.
 */
class TextTest {
  static final long VERDICT = 1_718_085_600_000L;

  static void refused(String expected, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }

  @Test
  void loneSurrogateAccountsAreRefusedNotTakenForOneAccount() {
    // getBytes alone would make '?' of both.
    refused("account: a lone surrogate (U+D800) at index 0", () -> new Incident(VERDICT, "\ud800").close());
    refused("account: a lone surrogate (U+DBFF) at index 3", () -> new Incident(VERDICT, "ada\udbff").close());
    refused("account: a lone surrogate (U+DC00) at index 0", () -> new Incident(VERDICT, "\udc00\ud800").close());
    try (Incident incident = new Incident(VERDICT, "ada")) {
      refused("account: a lone surrogate (U+DBFF) at index 3",
          () -> incident.check(VERDICT, Incident.Input.SIGNED_IN, 0, 0, "ada\udbff"));
      // Refused before the call: the incident is where it was.
      assertEquals(Incident.Kind.ASK, incident.check(VERDICT, Incident.Input.NOTHING).kind);
    }
  }

  @Test
  void aNulIsRefusedNotCutThere() {
    refused("account: a NUL character at index 5", () -> new Incident(VERDICT, "alice\0x").close());
    try (Incident incident = new Incident(VERDICT, "alice")) {
      refused("account: a NUL character at index 5",
          () -> incident.check(VERDICT, Incident.Input.SIGNED_IN, 0, 0, "alice\0y"));
      assertEquals(Incident.Kind.ASK, incident.check(VERDICT, Incident.Input.NOTHING).kind);
    }
    refused("configurationJson: a NUL character at index 34",
        () -> new Detector("{\"joltMetersPerSecondSquared\": 50}\0{\"bogus\": 1}").close());
    try (Detector detector = new Detector()) {
      refused("fileName: a NUL character at index 1", () -> detector.report("a\0b", Detector.Format.TEXT));
    }
  }

  @Test
  void anAccountOutsideTheBmpRoundTripsExactly() {
    String account = "\uD83D\uDC69\u200D\uD83D\uDC67 \uD835\uDD04"; // woman, joiner, girl, space, fraktur A
    String neighbour = "\uD83D\uDC69\u200D\uD83D\uDC67 \uD835\uDD05"; // … fraktur B
    try (Incident incident = new Incident(VERDICT, account)) {
      assertEquals(Incident.Kind.ASK, incident.check(VERDICT, Incident.Input.SIGNED_IN, 0, 0, account).kind);
      String saved = new String(incident.save(), StandardCharsets.UTF_8);
      assertTrue(saved.contains("\"account\":\"" + account + "\""), saved);
      try (Incident restored = Incident.restore(incident.save())) {
        assertEquals(Incident.Kind.ASK, restored.check(VERDICT, Incident.Input.SIGNED_IN, 0, 0, account).kind);
        Incident.Action other = restored.check(VERDICT, Incident.Input.SIGNED_IN, 0, 0, neighbour);
        assertEquals(Incident.Kind.FINISHED, other.kind);
        assertEquals(Incident.End.OTHER_ACCOUNT, other.end);
      }
    }
  }

  @Test
  void aReportNamedOutsideTheBmpKeepsItsName() {
    try (Detector detector = new Detector()) {
      detector.finish();
      String name = "drive \uD83D\uDE97";
      assertTrue(detector.report(name, Detector.Format.TEXT).startsWith(name + ":"));
    }
  }
}
