package hearth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the tests share: the checkout, the command, and reading a trace folder's .npy columns. */
final class Support {
  private Support() {}

  /** The checkout (-Dhearth.root, set by Scripts/test; else the working directory's grandparent). */
  static Path root() {
    String given = System.getProperty("hearth.root");
    return given != null ? Paths.get(given) : Paths.get("").toAbsolutePath().getParent().getParent();
  }

  static Path command() {
    String given = System.getenv("HEARTH_COMMAND");
    return given != null ? Paths.get(given) : root().resolve(".build/release/hearth");
  }

  /** Runs the `hearth` command; its standard output. */
  static String hearth(String... arguments) throws IOException, InterruptedException {
    List<String> line = new ArrayList<>();
    line.add(command().toString());
    line.addAll(List.of(arguments));
    Process process = new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = readAll(process.getInputStream());
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() > 1) {
      throw new IOException("hearth " + String.join(" ", arguments) + " failed");
    }
    return new String(out, StandardCharsets.UTF_8);
  }

  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  /** A .npy array of little-endian float64 or int64 (as doubles), flattened row by row; shape[1] in {@code columns[0]}. */
  static double[] npy(Path file, int[] columns) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    int major = b.get(6);
    int headerLength = major == 1 ? Short.toUnsignedInt(b.getShort(8)) : b.getInt(8);
    int start = (major == 1 ? 10 : 12) + headerLength;
    String header = new String(b.array(), major == 1 ? 10 : 12, headerLength, StandardCharsets.US_ASCII);
    Matcher descr = Pattern.compile("'descr': *'([<>|]?)(\\w\\d)'").matcher(header);
    Matcher shape = Pattern.compile("'shape': *\\((\\d+),? *(\\d*)\\)").matcher(header);
    if (!descr.find() || !shape.find() || header.contains("'fortran_order': True")) {
      throw new IOException(file + ": unexpected header " + header);
    }
    int rows = Integer.parseInt(shape.group(1));
    int width = shape.group(2).isEmpty() ? 1 : Integer.parseInt(shape.group(2));
    columns[0] = width;
    double[] out = new double[rows * width];
    b.position(start);
    for (int i = 0; i < out.length; i++) {
      switch (descr.group(2)) {
        case "f8": out[i] = b.getDouble(); break;
        case "i8": out[i] = b.getLong(); break;
        default: throw new IOException(file + ": dtype " + descr.group(2));
      }
    }
    return out;
  }

  /** Column k of a flattened (n, width) array. */
  static double[] column(double[] flat, int width, int k) {
    double[] out = new double[flat.length / width];
    for (int i = 0; i < out.length; i++) out[i] = flat[i * width + k];
    return out;
  }
}
