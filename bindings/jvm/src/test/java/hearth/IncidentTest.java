package hearth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IncidentTest {
  static final long VERDICT = 1_718_085_600_000L;

  /** The steps both sides of a kill take: the first check opens the question. */
  static Incident.Action opened(Incident incident) {
    return incident.check(VERDICT, Incident.Input.NOTHING);
  }

  static void resume(Incident incident, Incident.Action first, List<Incident.Action> into) {
    into.add(incident.check(first.timeMs + 1, Incident.Input.NOTHING));
    into.add(incident.check(first.timeMs + 2, Incident.Input.NETWORK_FAILURE));
    into.add(incident.check(first.timeMs + 60_000, Incident.Input.HTTP, 503, 1, null));
    into.add(incident.check(first.timeMs + 120_000, Incident.Input.DELIVERED));
  }

  @Test
  void checkMovesItAndSavedBytesRestoreTheSameFuture() {
    try (Incident a = new Incident(VERDICT, "ada@example.org")) {
      Incident.Action first = opened(a);
      assertEquals(Incident.Kind.ASK, first.kind);
      assertNull(first.end);
      assertTrue(first.timeMs > VERDICT);
      try (Incident b = Incident.restore(a.save())) {
        List<Incident.Action> x = new java.util.ArrayList<>(), y = new java.util.ArrayList<>();
        resume(a, first, x);
        resume(b, first, y);
        assertEquals(x, y);
        assertArrayEquals(a.save(), b.save());
      }
    }
  }

  @Test
  void dismissingFinishesItAndBadBytesAreTheLibrarysError() {
    try (Incident incident = new Incident(VERDICT, "ada@example.org")) {
      opened(incident);
      Incident.Action done = incident.check(VERDICT + 1000, Incident.Input.DISMISSED);
      assertEquals(Incident.Kind.FINISHED, done.kind);
      assertEquals(Incident.End.DISMISSED, done.end);
    }
    HearthException e = assertThrows(HearthException.class,
        () -> Incident.restore("{\"phase\": 3}".getBytes(StandardCharsets.UTF_8)));
    assertEquals(HearthException.Status.BAD_INPUT, e.status());
    assertTrue(!e.getMessage().isEmpty());
  }

  /** Run in a child JVM by the kill test: opens an incident, writes its state, then waits to be killed. */
  public static void main(String[] args) throws Exception {
    Path state = Paths.get(args[0]);
    Incident incident = new Incident(VERDICT, "ada@example.org");
    opened(incident);
    Path partial = Paths.get(args[0] + ".partial");
    Files.write(partial, incident.save());
    Files.move(partial, state, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("saved");
    System.out.flush();
    Thread.sleep(600_000);
  }

  @Test
  void theStateSurvivesAProcessKill(@TempDir Path folder) throws Exception {
    Path state = folder.resolve("incident.state");
    String javaCommand = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    // The class path this test was loaded from (the console launcher loads it apart from its own).
    String classPath = Paths.get(IncidentTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        + java.io.File.pathSeparator
        + Paths.get(Incident.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Process child = new ProcessBuilder(javaCommand, "-cp", classPath,
        "-Djava.library.path=" + System.getProperty("java.library.path"), IncidentTest.class.getName(), state.toString())
        .redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      assertEquals("saved", out.readLine());
    }
    child.destroyForcibly(); // SIGKILL: no shutdown hook, no finaliser runs
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, child.exitValue());
    try (Incident restored = Incident.restore(Files.readAllBytes(state));
        Incident uninterrupted = new Incident(VERDICT, "ada@example.org")) {
      Incident.Action first = opened(uninterrupted);
      List<Incident.Action> x = new java.util.ArrayList<>(), y = new java.util.ArrayList<>();
      resume(uninterrupted, first, x);
      resume(restored, first, y);
      assertEquals(x, y);
    }
  }
}
