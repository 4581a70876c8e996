import hearth.GreatCircle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * hearth-bench's JVM side of the binding rows: times one operation through the
 * Java API (bindings/jvm, built by Scripts/build-bindings jvm; run as a source
 * file with hearth.jar on the class path and its native libraries on
 * java.library.path) and prints "SECONDS <what> <count> <sum>" as
 * Scripts/peers/bindings.js does (the median of repeated runs after a warm-up
 * of 20 runs, so the JIT has compiled the loop).
 *
 *   BindingsBench distances PAIRS.npy    GreatCircle.distancesMeters on the (n, 4) pairs into one array
 *   BindingsBench call PAIRS.npy CALLS   CALLS calls on one pair (the first) each
 */
public final class BindingsBench {
  private BindingsBench() {}

  static double[] readNpy(String file, int[] rows) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Paths.get(file))).order(ByteOrder.LITTLE_ENDIAN);
    int major = b.get(6);
    int headerLength = major == 1 ? Short.toUnsignedInt(b.getShort(8)) : b.getInt(8);
    int start = (major == 1 ? 10 : 12) + headerLength;
    String header = new String(b.array(), major == 1 ? 10 : 12, headerLength, StandardCharsets.US_ASCII);
    Matcher shape = Pattern.compile("'shape': *\\((\\d+),").matcher(header);
    if (!header.contains("'<f8'") || header.contains("'fortran_order': True") || !shape.find()) {
      throw new IOException(file + ": not a C-order <f8 array");
    }
    rows[0] = Integer.parseInt(shape.group(1));
    double[] out = new double[(b.capacity() - start) / 8];
    b.position(start);
    b.asDoubleBuffer().get(out);
    return out;
  }

  static double timed(Runnable run) {
    for (int i = 0; i < 20; i++) run.run();
    List<Double> times = new ArrayList<>();
    long started = System.nanoTime();
    while (System.nanoTime() - started < 300_000_000L || times.size() < 5) {
      long t = System.nanoTime();
      run.run();
      times.add((System.nanoTime() - t) / 1e9);
    }
    Collections.sort(times);
    return times.get(times.size() / 2);
  }

  public static void main(String[] args) throws IOException {
    int[] rows = new int[1];
    double[] data = readNpy(args[1], rows);
    int n = rows[0];
    double[][] c = new double[4][n];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < 4; k++) c[k][i] = data[4 * i + k];
    }
    if (args[0].equals("distances")) {
      double[] out = new double[n];
      double seconds = timed(() -> GreatCircle.distancesMeters(c[0], c[1], c[2], c[3], out));
      double sum = 0;
      for (double d : out) sum += d;
      System.out.println(seconds + " java-distances " + n + " " + sum);
    } else if (args[0].equals("call")) {
      int calls = Integer.parseInt(args[2]);
      double[][] one = {{c[0][0]}, {c[1][0]}, {c[2][0]}, {c[3][0]}};
      double[] out = new double[1];
      double seconds = timed(() -> {
        for (int k = 0; k < calls; k++) GreatCircle.distancesMeters(one[0], one[1], one[2], one[3], out);
      });
      System.out.println(seconds + " java-call " + calls + " " + out[0] * calls);
    } else {
      throw new IllegalArgumentException("BindingsBench: unknown operation " + args[0]);
    }
  }
}
