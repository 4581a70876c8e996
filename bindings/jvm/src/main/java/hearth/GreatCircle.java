package hearth;

/**
 * Great-circle distances (SPEC §6; docs/guides/geodesy.md): a spherical Earth
 * of mean radius 6 371 008.8 m, within 0.5 mm of a correctly rounded
 * haversine, NaN for NaN or out-of-range input. Arrays are read and written
 * in place (no copy). O(n).
 */
public final class GreatCircle {
  private GreatCircle() {}

  /** Distances in metres between (lat1Deg[i], lon1Deg[i]) and (lat2Deg[i], lon2Deg[i]). */
  public static double[] distancesMeters(double[] lat1Deg, double[] lon1Deg, double[] lat2Deg, double[] lon2Deg) {
    double[] out = new double[lat1Deg.length];
    distancesMeters(lat1Deg, lon1Deg, lat2Deg, lon2Deg, out);
    return out;
  }

  /** The same into {@code outM} (as long as the inputs), allocating nothing. */
  public static void distancesMeters(
      double[] lat1Deg, double[] lon1Deg, double[] lat2Deg, double[] lon2Deg, double[] outM) {
    int n = lat1Deg.length;
    Columns.same(n, "lat1Deg", lon1Deg, "lon1Deg", lat2Deg, "lat2Deg", lon2Deg, "lon2Deg", outM, "outM");
    Native.distances(lat1Deg, lon1Deg, lat2Deg, lon2Deg, outM);
  }

  /** Distances in metres from (originLatDeg, originLonDeg) to each point. */
  public static double[] distancesFromMeters(double originLatDeg, double originLonDeg, double[] latDeg, double[] lonDeg) {
    double[] out = new double[latDeg.length];
    distancesFromMeters(originLatDeg, originLonDeg, latDeg, lonDeg, out);
    return out;
  }

  /** The same into {@code outM}, allocating nothing. */
  public static void distancesFromMeters(
      double originLatDeg, double originLonDeg, double[] latDeg, double[] lonDeg, double[] outM) {
    Columns.same(latDeg.length, "latDeg", lonDeg, "lonDeg", outM, "outM");
    Native.distancesFrom(originLatDeg, originLonDeg, latDeg, lonDeg, outM);
  }
}
