package hearth;

/**
 * The latitude-band grid (SPEC §2; docs/guides/grid.md) of cells of about
 * {@code cellSizeMeters} (750 m is the privacy grid). Thread-safe (calls on
 * one grid take turns). Close it when done (Kotlin: {@code use}).
 */
public final class Grid extends Handle {
  /** Snapped points: cell ids (row &lt;&lt; 32 | column; -1 for a bad point) and cell centres (NaN for -1). */
  public static final class Cells {
    public final long[] cellIds;
    public final double[] centreLatitudesDeg;
    public final double[] centreLongitudesDeg;

    Cells(int n) {
      cellIds = new long[n];
      centreLatitudesDeg = new double[n];
      centreLongitudesDeg = new double[n];
    }
  }

  /** A grid of cells of about {@code cellSizeMeters}; the library refuses a size outside 1 m … 10 000 km. */
  public Grid(double cellSizeMeters) {
    super("Grid", Native.gridCreate(cellSizeMeters));
  }

  /** Snaps points to cells. O(n); deterministic on every platform. */
  public Cells snap(double[] latDeg, double[] lonDeg) {
    Columns.same(latDeg.length, "latDeg", lonDeg, "lonDeg");
    Cells cells = new Cells(latDeg.length);
    synchronized (this) {
      Native.gridSnap(handle(), latDeg, lonDeg, cells.cellIds, cells.centreLatitudesDeg, cells.centreLongitudesDeg);
    }
    return cells;
  }
}
