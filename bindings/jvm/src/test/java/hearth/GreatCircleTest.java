package hearth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class GreatCircleTest {
  static final double R = 6_371_008.8;

  /** A plain haversine, to see that each column reaches the library in its place. */
  static double haversine(double lat1, double lon1, double lat2, double lon2) {
    double p1 = Math.toRadians(lat1), p2 = Math.toRadians(lat2);
    double h = Math.pow(Math.sin((p2 - p1) / 2), 2)
        + Math.cos(p1) * Math.cos(p2) * Math.pow(Math.sin(Math.toRadians(lon2 - lon1) / 2), 2);
    return 2 * R * Math.asin(Math.sqrt(h));
  }

  static double[][] cityPairs(int n, long seed) {
    Random random = new Random(seed);
    double[][] c = new double[4][n];
    for (int i = 0; i < n; i++) {
      c[0][i] = 52.3 + random.nextDouble() * 0.4;
      c[1][i] = 13.1 + random.nextDouble() * 0.6;
      c[2][i] = 52.3 + random.nextDouble() * 0.4;
      c[3][i] = 13.1 + random.nextDouble() * 0.6;
    }
    return c;
  }

  @Test
  void eachPairInItsPlaceAndOneToManyAgrees() {
    double[][] c = cityPairs(1000, 1);
    double[] d = GreatCircle.distancesMeters(c[0], c[1], c[2], c[3]);
    for (int i = 0; i < d.length; i++) assertEquals(haversine(c[0][i], c[1][i], c[2][i], c[3][i]), d[i], 1e-6);
    double[] lat = new double[1000], lon = new double[1000];
    java.util.Arrays.fill(lat, c[0][0]);
    java.util.Arrays.fill(lon, c[1][0]);
    assertArrayEquals(GreatCircle.distancesMeters(lat, lon, c[2], c[3]),
        GreatCircle.distancesFromMeters(c[0][0], c[1][0], c[2], c[3]));
    assertTrue(Double.isNaN(GreatCircle.distancesMeters(new double[] {91}, new double[] {0}, new double[] {0}, new double[] {0})[0]));
  }

  @Test
  void aMillionPairsIntoTheCallersArray() {
    int n = 1_000_000;
    double[][] c = cityPairs(n, 7);
    double[] out = new double[n];
    GreatCircle.distancesMeters(c[0], c[1], c[2], c[3], out);
    for (int i : new int[] {0, 1, 4242, 500_000, n - 1}) {
      assertEquals(haversine(c[0][i], c[1][i], c[2][i], c[3][i]), out[i], 1e-6);
    }
  }

  @Test
  void columnsOfDifferentLengthsAreRefusedByName() {
    double[][] c = cityPairs(3, 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GreatCircle.distancesMeters(c[0], c[1], new double[2], c[3]));
    assertEquals("lat2Deg has 2 elements but lat1Deg has 3", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> GreatCircle.distancesFromMeters(52, 13, c[0], c[1], new double[4]));
    assertEquals("outM has 4 elements but latDeg has 3", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> GreatCircle.distancesMeters(c[0], null, c[2], c[3], new double[3]));
  }

  @Test
  void gridSnapsAndItsErrorsAreTheLibrarys() {
    double[][] c = cityPairs(500, 3);
    try (Grid grid = new Grid(750)) {
      Grid.Cells cells = grid.snap(c[0], c[1]);
      for (long id : cells.cellIds) assertTrue(id >= 0);
      Grid.Cells bad = grid.snap(new double[] {Double.NaN}, new double[] {13});
      assertEquals(-1, bad.cellIds[0]);
      assertTrue(Double.isNaN(bad.centreLatitudesDeg[0]));
      assertArrayEquals(cells.cellIds, grid.snap(c[0], c[1]).cellIds);
    }
    HearthException e = assertThrows(HearthException.class, () -> new Grid(0.5));
    assertEquals(HearthException.Status.ARGUMENT, e.status());
    assertTrue(e.getMessage().contains("cell_size_m"), e.getMessage());
    Grid closed = new Grid(750);
    closed.close();
    closed.close();
    IllegalStateException s = assertThrows(IllegalStateException.class, () -> closed.snap(c[0], c[1]));
    assertEquals("Grid is closed", s.getMessage());
  }
}
