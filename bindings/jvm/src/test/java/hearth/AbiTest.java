package hearth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding refuses, when it loads, a libhearth whose ABI cannot serve it:
 * another major, or an older minor, which lacks functions the JNI library
 * calls (the first call of one would end the process with "symbol lookup
 * error" instead of throwing).
 */
class AbiTest {
  /** In a fresh VM: loads the binding and prints the library's ABI version, or why it refused. */
  public static void main(String[] args) {
    try {
      System.out.print(Hearth.abiVersion());
    } catch (UnsatisfiedLinkError e) {
      System.out.print("refused: " + e.getMessage());
      System.exit(3);
    }
  }

  static int compiled() {
    return Native.abiCompiled();
  }

  @Test
  void theRuleOnVersions() {
    int c = compiled();
    assertTrue(((c >>> 8) & 0xFF) >= 1, "the header is minor 1 or later");
    assertNull(Native.mismatch(c, c));
    assertNull(Native.mismatch(c + 0x100, c));
    assertNull(Native.mismatch(c + 1, c));
    String older = Native.mismatch(c - 0x100, c);
    assertEquals(
        "libhearth ABI 0x" + Integer.toHexString(c - 0x100) + ", built against 0x" + Integer.toHexString(c)
            + ": minor version " + (((c >>> 8) & 0xFF) - 1) + " is older than " + ((c >>> 8) & 0xFF)
            + " (install the libhearth this binding came with)",
        older);
    assertTrue(Native.mismatch(c + 0x10000, c).endsWith("not major version " + (c >>> 16)));
    assertTrue(Native.mismatch(c & 0xFFFF, c).endsWith("not major version " + (c >>> 16)));
  }

  /** Runs {@link #main} in a fresh VM whose libhearth.so.1 only says it is ABI {@code version}. */
  static String[] loadBesideAStub(Path folder, int version) throws Exception {
    Path jni = Paths.get(System.getProperty("java.library.path").split(":")[0], "libhearth_jni.so");
    Files.copy(jni, folder.resolve("libhearth_jni.so"), StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(folder.resolve("stub.c"), "unsigned hearth_abi_version(void) { return " + version + "u; }\n");
    run(folder, List.of("gcc", "-shared", "-fPIC", "-Wl,-soname,libhearth.so.1", "-o", "libhearth.so.1", "stub.c"));
    String classes = Paths.get(AbiTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        + ":" + Paths.get(Native.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    return run(folder, List.of(java.toString(), "-Djava.library.path=" + folder, "-cp", classes, "hearth.AbiTest"));
  }

  /** {exit status, output} of {@code command} run in {@code folder}. */
  static String[] run(Path folder, List<String> command) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true);
    // Without the caller's LD_LIBRARY_PATH or LD_PRELOAD, which would win over the RUNPATH ($ORIGIN).
    builder.environment().remove("LD_LIBRARY_PATH");
    builder.environment().remove("LD_PRELOAD");
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running: " + command);
    return new String[] {String.valueOf(p.exitValue()), out};
  }

  @Test
  void theVersionBuiltAgainstLoads(@TempDir Path folder) throws Exception {
    String[] run = loadBesideAStub(folder, compiled());
    assertEquals("0", run[0], run[1]);
    assertEquals(String.valueOf(compiled()), run[1]);
  }

  @Test
  void anOlderMinorIsRefusedWhenTheBindingLoads(@TempDir Path folder) throws Exception {
    String[] run = loadBesideAStub(folder, compiled() - 0x100);
    assertEquals("3", run[0], run[1]);
    assertEquals("refused: " + Native.mismatch(compiled() - 0x100, compiled()), run[1]);
  }

  @Test
  void anotherMajorIsRefused(@TempDir Path folder) throws Exception {
    String[] run = loadBesideAStub(folder, compiled() + 0x10000);
    assertEquals("3", run[0], run[1]);
    assertTrue(run[1].endsWith("not major version " + (compiled() >>> 16)), run[1]);
  }
}
