package hearth;

import java.util.List;

/**
 * One decision of the possible-impact detector (SPEC §9) with its explanation:
 * every condition as measured against its threshold.
 */
public final class Verdict {
  /** The header's HEARTH_OUTCOME_* (a test checks the codes against include/hearth.h). */
  public enum Outcome {
    POSSIBLE_IMPACT(0),
    SILENT(1),
    SUPPRESSED(2);

    final int code;

    Outcome(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    static Outcome of(int code) {
      for (Outcome o : values()) {
        if (o.code == code) return o;
      }
      throw new IllegalStateException("libhearth returned outcome " + code + ", which this binding does not know");
    }
  }

  /** One condition of a verdict: its name and unit as the library spells them. */
  public static final class Condition {
    public final String name;
    public final String unit;
    public final boolean held;
    /** NaN when there was nothing to measure. */
    public final double measured;
    public final double threshold;

    Condition(String name, String unit, boolean held, double measured, double threshold) {
      this.name = name;
      this.unit = unit;
      this.held = held;
      this.measured = measured;
      this.threshold = threshold;
    }

    @Override
    public String toString() {
      return name + " " + (held ? "held" : "not held") + ": " + measured + " vs " + threshold + " " + unit;
    }
  }

  public final Outcome outcome;
  /**
   * True: moving was judged from GPS (a fix was current); false: from vibration, or not judged at
   * all for a suppressed verdict (see {@code outcome}).
   */
  public final boolean usedGps;
  public final double joltSeconds;
  public final double decidedSeconds;
  /** The jolt's peak dynamic acceleration, g. */
  public final double joltG;
  public final List<Condition> conditions;

  Verdict(Outcome outcome, boolean usedGps, double joltSeconds, double decidedSeconds, double joltG,
      List<Condition> conditions) {
    this.outcome = outcome;
    this.usedGps = usedGps;
    this.joltSeconds = joltSeconds;
    this.decidedSeconds = decidedSeconds;
    this.joltG = joltG;
    this.conditions = conditions;
  }

  @Override
  public String toString() {
    return outcome + " at " + joltSeconds + " s (decided " + decidedSeconds + " s, " + joltG + " g): " + conditions;
  }
}
