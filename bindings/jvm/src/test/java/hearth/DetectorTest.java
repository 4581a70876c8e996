package hearth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The detector fed as a phone feeds it: a generated crash (`hearth sim
 * generate scenario C1`) read from its trace folder and handed over in
 * one-second batches, against what `hearth impact detect` says of the same
 * recording.
 */
class DetectorTest {
  @TempDir static Path folder;
  static Path recording;
  static double[] accT, accX, accY, accZ, gyrT, gyrX, gyrY, gyrZ, baroT, baroHpa, fixT, fixSpeed;

  @BeforeAll
  static void generate() throws Exception {
    recording = folder.resolve("c1");
    Support.hearth("sim", "generate", "scenario", "C1", "--seed", "2", "--out", recording.toString());
    Path trace = recording.resolve("trace");
    int[] w = new int[1];
    accT = Support.npy(trace.resolve("accelerometer/t.npy"), w);
    double[] acc = Support.npy(trace.resolve("accelerometer/value.npy"), w);
    accX = Support.column(acc, 3, 0);
    accY = Support.column(acc, 3, 1);
    accZ = Support.column(acc, 3, 2);
    gyrT = Support.npy(trace.resolve("gyroscope/t.npy"), w);
    double[] gyr = Support.npy(trace.resolve("gyroscope/value.npy"), w);
    gyrX = Support.column(gyr, 3, 0);
    gyrY = Support.column(gyr, 3, 1);
    gyrZ = Support.column(gyr, 3, 2);
    baroT = Support.npy(trace.resolve("barometer/t.npy"), w);
    double[] baro = Support.npy(trace.resolve("barometer/value.npy"), w); // hPa, then relative altitude
    baroHpa = Support.column(baro, w[0], 0);
    // Fix times are ms since the epoch; the detector's clock is the recording's, in seconds.
    String meta = Files.readString(trace.resolve("trace.json"));
    long origin = Long.parseLong(meta.replaceAll("(?s).*\"timeOriginMilliseconds\":(\\d+).*", "$1"));
    double[] ms = Support.npy(trace.resolve("fixes/time_ms.npy"), w);
    fixT = new double[ms.length];
    for (int i = 0; i < ms.length; i++) fixT[i] = (ms[i] - origin) / 1000.0;
    fixSpeed = Support.npy(trace.resolve("fixes/speed_mps.npy"), w);
  }

  static double[] slice(double[] t, double[] v, double from, double to) {
    int a = 0;
    while (a < t.length && t[a] < from) a++;
    int b = a;
    while (b < t.length && t[b] < to) b++;
    return Arrays.copyOfRange(v, a, b);
  }

  /** Feeds the recording in batches of {@code seconds}; returns the verdicts as they came. */
  static List<Verdict> feed(Detector detector, double seconds) {
    return feed(detector, seconds, fixSpeed, null);
  }

  /**
   * The same with the fixes' speeds {@code speed}, and their accuracies
   * {@code accuracy} (null: the speeds are taken as given).
   */
  static List<Verdict> feed(Detector detector, double seconds, double[] speed, double[] accuracy) {
    List<Verdict> all = new ArrayList<>();
    double end = Math.max(accT[accT.length - 1], fixT[fixT.length - 1]);
    for (double from = Math.min(accT[0], fixT[0]); from <= end; from += seconds) {
      double to = from + seconds;
      SensorBatch batch = new SensorBatch()
          .accelerometer(slice(accT, accT, from, to), slice(accT, accX, from, to), slice(accT, accY, from, to),
              slice(accT, accZ, from, to))
          .gyroscope(slice(gyrT, gyrT, from, to), slice(gyrT, gyrX, from, to), slice(gyrT, gyrY, from, to),
              slice(gyrT, gyrZ, from, to))
          .barometer(slice(baroT, baroT, from, to), slice(baroT, baroHpa, from, to))
          .vehicleGate(true);
      if (accuracy == null) {
        batch.fixes(slice(fixT, fixT, from, to), slice(fixT, speed, from, to));
      } else {
        batch.fixes(slice(fixT, fixT, from, to), slice(fixT, speed, from, to), slice(fixT, accuracy, from, to));
      }
      all.addAll(detector.feed(batch));
    }
    all.addAll(detector.finish());
    return all;
  }

  @Test
  void verdictsAndExplanationsMatchTheCommand() throws Exception {
    try (Detector detector = new Detector()) {
      List<Verdict> verdicts = feed(detector, 1.0);
      assertEquals(1, verdicts.size());
      Verdict v = verdicts.get(0);
      assertEquals(Verdict.Outcome.POSSIBLE_IMPACT, v.outcome);
      assertTrue(v.usedGps);
      assertTrue(v.joltG > 4, v.toString());
      Verdict.Condition jolt = v.conditions.get(0);
      assertEquals("jolt", jolt.name);
      assertEquals("m/s²", jolt.unit);
      assertTrue(jolt.held && jolt.measured > jolt.threshold, jolt.toString());
      for (Detector.Format format : Detector.Format.values()) {
        String flag = format.name().toLowerCase(java.util.Locale.ROOT);
        String expected = Support.hearth("impact", "detect", recording.toString(), "--vehicle-gate", "on", "--format", flag);
        assertEquals(expected, detector.report(recording.toString(), format), flag);
      }
    }
  }

  @Test
  void batchCutsDoNotChangeTheVerdicts() {
    try (Detector a = new Detector(); Detector b = new Detector()) {
      assertEquals(feed(a, 0.25).toString(), feed(b, 5.0).toString());
      assertEquals(a.report("x", Detector.Format.JSON), b.report("x", Detector.Format.JSON));
    }
  }

  @Test
  void settingsAreTheConfigurationFilesAndTheLibraryNamesABadOne() {
    try (Detector strict = new Detector("{\"joltMetersPerSecondSquared\": 400}")) {
      List<Verdict> none = feed(strict, 1.0);
      assertTrue(none.isEmpty(), none.toString());
      assertTrue(strict.report("c1", Detector.Format.TEXT).contains("no jolt"));
    }
    HearthException e = assertThrows(HearthException.class, () -> new Detector("{\"joltGee\": 5}"));
    assertEquals(HearthException.Status.BAD_INPUT, e.status());
    assertTrue(e.getMessage().contains("unknown setting 'joltGee'"), e.getMessage());
  }

  @Test
  void feedingAfterFinishIsTheLibrarysStateError() {
    try (Detector detector = new Detector()) {
      detector.finish();
      HearthException e = assertThrows(HearthException.class, () -> detector.feed(new SensorBatch()));
      assertEquals(HearthException.Status.STATE, e.status());
      assertFalse(e.getMessage().isEmpty());
      assertEquals(0, detector.skippedSamples());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SensorBatch().barometer(new double[3], new double[2]));
    assertEquals("barometer hpa has 2 elements but barometer tS has 3", e.getMessage());
  }

  /**
   * The generated crash with every fix before the jolt made an Android
   * network fix (speed 0, never measured, at 65 m): taken as given the zeros
   * say "not moving" and the crash is silent; with their accuracy they are
   * unmeasured, the car's vibration says it was moving, and it is reported.
   */
  @Test
  void aCrashAfterLooseAndroidZerosIsReportedWithTheirAccuracy() {
    double jolt;
    try (Detector detector = new Detector()) {
      jolt = feed(detector, 1.0).get(0).joltSeconds;
    }
    double[] speed = fixSpeed.clone();
    double[] accuracy = new double[fixT.length];
    for (int i = 0; i < fixT.length; i++) {
      boolean before = fixT[i] < jolt;
      speed[i] = before ? 0 : fixSpeed[i];
      accuracy[i] = before ? 65 : 5;
    }
    try (Detector asGiven = new Detector(); Detector judged = new Detector()) {
      List<Verdict> silent = feed(asGiven, 1.0, speed, null);
      assertEquals(1, silent.size());
      assertEquals(Verdict.Outcome.SILENT, silent.get(0).outcome, silent.toString());
      assertTrue(silent.get(0).usedGps);
      List<Verdict> reported = feed(judged, 1.0, speed, accuracy);
      assertEquals(1, reported.size());
      assertEquals(Verdict.Outcome.POSSIBLE_IMPACT, reported.get(0).outcome, reported.toString());
      assertFalse(reported.get(0).usedGps);
    }
  }

  /**
   * Feeds the knock a second at a time, the first second with one sample
   * stamped 5 000 s ahead, each second received {@code lag} s after its end
   * (NaN: not known); returns the verdicts and leaves the counters.
   */
  static List<Verdict> knockWithAGlitch(Detector detector, double lag) {
    List<Verdict> verdicts = new ArrayList<>();
    for (int second = 0; second < 30; second++) {
      int n = second == 0 ? 51 : 50;
      double[] t = new double[n], zero = new double[n], z = new double[n];
      for (int i = 0; i < 50; i++) {
        t[i] = second + i * 0.02;
        z[i] = second * 50 + i == 500 ? 60 : 9.81;
      }
      if (second == 0) {
        t[50] = 5000;
        z[50] = 9.81;
      }
      SensorBatch batch = new SensorBatch().accelerometer(t, zero, zero, z).vehicleGate(true)
          .receivedAt(second + 1 + lag);
      verdicts.addAll(detector.feed(batch));
    }
    verdicts.addAll(detector.finish());
    return verdicts;
  }

  @Test
  void aSampleStampedAfterItsReceiptIsSkipped() {
    try (Detector detector = new Detector()) {
      assertEquals(1, knockWithAGlitch(detector, 0.05).size());
      assertEquals(1, detector.skippedSamples());
    }
    // Not known: the glitch is taken, every later sample is old and the knock is never seen.
    try (Detector detector = new Detector()) {
      assertEquals(0, knockWithAGlitch(detector, Double.NaN).size());
      assertEquals(1450, detector.skippedSamples());
    }
    // Infinite, or beyond the samples' bound (nanoseconds not divided by 1e9): refused by name.
    for (double bad : new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.7e18}) {
      try (Detector detector = new Detector()) {
        SensorBatch batch = new SensorBatch().vehicleGate(true).receivedAt(bad);
        HearthException e = assertThrows(HearthException.class, () -> detector.feed(batch));
        assertEquals(HearthException.Status.ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("received_s"), e.getMessage());
      }
    }
  }

  /**
   * Feeds 30 s of a still phone with a 5 g knock at 10 s, and a fix every
   * second of {@code speed} at {@code accuracy}, then finishes; the verdicts.
   */
  static List<Verdict> knock(Detector detector, double speed, double accuracy, boolean withAccuracy) {
    int n = 1500;
    double[] t = new double[n], zero = new double[n], z = new double[n];
    for (int i = 0; i < n; i++) {
      t[i] = i * 0.02;
      z[i] = i == 500 ? 60 : 9.81;
    }
    double[] ft = new double[30], fv = new double[30], fa = new double[30];
    for (int i = 0; i < 30; i++) {
      ft[i] = i;
      fv[i] = speed;
      fa[i] = accuracy;
    }
    SensorBatch batch = new SensorBatch().accelerometer(t, zero, zero, z).vehicleGate(true);
    if (withAccuracy) {
      batch.fixes(ft, fv, fa);
    } else {
      batch.fixes(ft, fv);
    }
    List<Verdict> verdicts = new ArrayList<>(detector.feed(batch));
    verdicts.addAll(detector.finish());
    assertEquals(1, verdicts.size());
    return verdicts;
  }

  /** Whether "moving before the jolt" was judged from GPS: a fix with a measured speed was current. */
  static boolean judgedByGps(double speed, double accuracy, boolean withAccuracy) {
    try (Detector detector = new Detector()) {
      return knock(detector, speed, accuracy, withAccuracy).get(0).usedGps;
    }
  }

  @Test
  void aRawSpeedIsJudgedWithItsAccuracy() {
    // A 0 on a fix of 30 m or sharper is a stop; looser, it was never measured.
    assertTrue(judgedByGps(0, 30, true));
    assertFalse(judgedByGps(0, 30.5, true));
    assertFalse(judgedByGps(0, 65, true));
    // A small measured speed is kept on any fix.
    assertTrue(judgedByGps(0.1, 65, true));
    // Unknown accuracy (NaN, or negative): a 0 is unmeasured.
    assertFalse(judgedByGps(0, Double.NaN, true));
    assertFalse(judgedByGps(0, -1, true));
    assertTrue(judgedByGps(0.1, Double.NaN, true));
    // Without accuracy the speeds are taken as given: a 0 is a stop.
    assertTrue(judgedByGps(0, 65, false));
  }

  @Test
  void anAccuracyThatIsNoReadingSkipsItsFixAndCountsIt() {
    try (Detector detector = new Detector()) {
      assertFalse(knock(detector, 12, Double.POSITIVE_INFINITY, true).get(0).usedGps);
      assertEquals(30, detector.skippedSamples());
    }
    try (Detector detector = new Detector()) {
      assertTrue(knock(detector, 12, 100_000, true).get(0).usedGps);
      assertEquals(0, detector.skippedSamples());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SensorBatch().fixes(new double[3], new double[3], new double[2]));
    assertEquals("fixes accuracyM has 2 elements but fixes tS has 3", e.getMessage());
  }
}
