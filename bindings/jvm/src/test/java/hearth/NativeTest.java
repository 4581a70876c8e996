package hearth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The JNI side on its own: the public classes check that a call's columns
 * have one length before they reach hearth.Native, and the C side checks
 * again, so no caller in this package can make the library read or write
 * past a Java array. Each call below would have done so before.
 */
class NativeTest {
  static void refused(Executable call) {
    HearthException e = assertThrows(HearthException.class, call);
    assertEquals(HearthException.Status.ARGUMENT, e.status());
    assertEquals("the arrays of one call differ in length", e.getMessage());
  }

  @Test
  void distancesRefuseColumnsShorterThanTheOutput() {
    double[] one = {52.5}, out = new double[1_000];
    refused(() -> Native.distances(one, one, one, one, out));
    refused(() -> Native.distancesFrom(52.5, 13.4, one, new double[1_000], out));
    // The output shorter than the inputs is refused too (it sets the count).
    refused(() -> Native.distances(new double[3], new double[3], new double[2], new double[2], new double[2]));
    double[] right = new double[1];
    Native.distances(one, one, one, one, right);
    assertArrayEquals(new double[] {0}, right);
  }

  @Test
  void gridSnapRefusesOutputsShorterThanTheInput() {
    try (Grid grid = new Grid(750)) {
      double[] lat = new double[1_000], lon = new double[1_000];
      refused(() -> Native.gridSnap(grid.handle(), lat, lon, new long[1], new double[1_000], new double[1_000]));
      refused(() -> Native.gridSnap(grid.handle(), lat, lon, new long[1_000], new double[1_000], new double[3]));
      long[] ids = new long[1_000];
      Native.gridSnap(grid.handle(), lat, lon, ids, new double[1_000], new double[1_000]);
      assertEquals(grid.snap(lat, lon).cellIds[0], ids[0]);
    }
  }

  @Test
  void detectorFeedRefusesAColumnOfAnotherLength() {
    try (Detector detector = new Detector()) {
      double[] t = {0.00, 0.01, 0.02}, short1 = {0}, three = new double[3];
      refused(() -> Native.detectorFeed(detector.handle(), t, three, short1, three, null, null, null, null,
          null, null, null, null, null, true, Double.NaN));
      refused(() -> Native.detectorFeed(detector.handle(), null, null, null, null, t, three, three, short1,
          null, null, null, null, null, true, Double.NaN));
      refused(() -> Native.detectorFeed(detector.handle(), null, null, null, null, null, null, null, null,
          t, short1, null, null, null, true, Double.NaN));
      refused(() -> Native.detectorFeed(detector.handle(), null, null, null, null, null, null, null, null,
          null, null, t, three, short1, true, Double.NaN));
      // Nothing reached the detector: the same samples are still taken, in order.
      Native.detectorFeed(detector.handle(), t, three, three, three, null, null, null, null, null, null, null,
          null, null, true, Double.NaN);
      assertEquals(0, detector.skippedSamples());
    }
  }
}
