package hearth;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The possible-impact detector (SPEC §9; docs/guides/impact-detector.md) fed
 * in batches as a phone delivers them. Each feed returns the verdicts that
 * batch completed, each with every condition measured; {@link #report} gives
 * what `hearth impact detect` prints. Thread-safe (calls take turns); close it
 * when done.
 */
public final class Detector extends Handle {
  /** The header's HEARTH_FORMAT_* (checked against include/hearth.h by a test). */
  public enum Format {
    TEXT(0),
    JSON(1),
    CSV(2);

    final int code;

    Format(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  private long delivered;

  /** A detector with the library's default settings. */
  public Detector() {
    this(null);
  }

  /**
   * A detector configured by a JSON object of settings, exactly the file
   * {@code hearth impact detect --config} reads (any subset; an unknown key is
   * refused by the library, naming it). Null or "" for the defaults.
   */
  public Detector(String configurationJson) {
    super("Detector", Native.detectorCreate(Text.utf8(configurationJson, "configurationJson")));
  }

  /** Feeds one batch; returns the verdicts it completed. O(samples). */
  public synchronized List<Verdict> feed(SensorBatch b) {
    Native.detectorFeed(handle(), b.accT, b.accX, b.accY, b.accZ, b.gyrT, b.gyrX, b.gyrY, b.gyrZ, b.baroT,
        b.baroHpa, b.fixT, b.fixSpeed, b.fixAccuracy, b.vehicleGate, b.receivedS);
    return fresh();
  }

  /** Decides an open incident with the data there are (the end of a recording); no feeding after. */
  public synchronized List<Verdict> finish() {
    Native.detectorFinish(handle());
    return fresh();
  }

  /** Samples skipped (a bad time, an impossible value, or not newer than their stream's last). */
  public synchronized long skippedSamples() {
    return Native.detectorCounters(handle())[0];
  }

  /** Jolts seen while the vehicle gate was off. */
  public synchronized long joltsWithGateOff() {
    return Native.detectorCounters(handle())[1];
  }

  /** What `hearth impact detect --format …` prints for what was fed, named {@code fileName}. */
  public synchronized String report(String fileName, Format format) {
    return new String(Native.detectorReport(handle(), Text.utf8(fileName, "fileName"), format.code), StandardCharsets.UTF_8);
  }

  private List<Verdict> fresh() {
    double[] v = Native.detectorVerdicts(handle(), delivered);
    if (v.length == 0) return Collections.emptyList();
    double[] c = Native.detectorConditions(handle());
    List<Verdict> out = new ArrayList<>(v.length / 7);
    for (int i = 0; i + 6 < v.length; i += 7) {
      int first = (int) v[i + 5];
      int count = (int) v[i + 6];
      List<Verdict.Condition> conditions = new ArrayList<>(count);
      for (int k = first; k < first + count; k++) {
        int id = (int) c[5 * k + 1];
        conditions.add(new Verdict.Condition(
            new String(Native.conditionText(id, false), StandardCharsets.UTF_8),
            new String(Native.conditionText(id, true), StandardCharsets.UTF_8),
            c[5 * k + 2] != 0, c[5 * k + 3], c[5 * k + 4]));
      }
      out.add(new Verdict(Verdict.Outcome.of((int) v[i]), v[i + 1] != 0, v[i + 2], v[i + 3], v[i + 4],
          Collections.unmodifiableList(conditions)));
    }
    delivered += out.size();
    return Collections.unmodifiableList(out);
  }
}
