package hearth;

/**
 * One batch of phone sensor data for {@link Detector#feed}: times in seconds
 * on one clock, in any order (the detector sorts each stream). Accelerometer
 * in m/s² with gravity, gyroscope in rad/s, barometer in hPa, fix speeds in
 * m/s and accuracies in m (see {@link #fixes(double[], double[], double[])}).
 * A stream left out is empty.
 */
public final class SensorBatch {
  double[] accT, accX, accY, accZ;
  double[] gyrT, gyrX, gyrY, gyrZ;
  double[] baroT, baroHpa;
  double[] fixT, fixSpeed, fixAccuracy;
  boolean vehicleGate;
  double receivedS = Double.NaN;

  public SensorBatch accelerometer(double[] tS, double[] xMps2, double[] yMps2, double[] zMps2) {
    Columns.same(tS.length, "accelerometer tS", xMps2, "accelerometer xMps2", yMps2, "accelerometer yMps2",
        zMps2, "accelerometer zMps2");
    accT = tS;
    accX = xMps2;
    accY = yMps2;
    accZ = zMps2;
    return this;
  }

  public SensorBatch gyroscope(double[] tS, double[] xRadps, double[] yRadps, double[] zRadps) {
    Columns.same(tS.length, "gyroscope tS", xRadps, "gyroscope xRadps", yRadps, "gyroscope yRadps",
        zRadps, "gyroscope zRadps");
    gyrT = tS;
    gyrX = xRadps;
    gyrY = yRadps;
    gyrZ = zRadps;
    return this;
  }

  public SensorBatch barometer(double[] tS, double[] hpa) {
    Columns.same(tS.length, "barometer tS", hpa, "barometer hpa");
    baroT = tS;
    baroHpa = hpa;
    return this;
  }

  /**
   * Fixes whose speeds are taken as given: negative or NaN is unmeasured and
   * every other value, a 0 included, is a measured speed (a 0 is a stopped
   * car). For a phone's raw speeds use {@link #fixes(double[], double[], double[])}:
   * Android reports 0 for a speed it never measured, and such a 0 here reads
   * as a stop.
   */
  public SensorBatch fixes(double[] tS, double[] speedMps) {
    Columns.same(tS.length, "fixes tS", speedMps, "fixes speedMps");
    fixT = tS;
    fixSpeed = speedMps;
    fixAccuracy = null;
    return this;
  }

  /**
   * Fixes as the platform reports them: {@code speedMps} its raw speeds
   * ({@code Location.getSpeed()}), {@code accuracyM} each fix's horizontal
   * accuracy in metres ({@code Location.getAccuracy()}; NaN or negative when
   * unknown). The library judges each speed as its recording readers do
   * (SPEC §1, hearth_detector_feed_with_accuracy): negative or NaN is
   * unmeasured; a 0 on a fix looser than 30 m, or of unknown accuracy, is
   * unmeasured (Android's 0 for a network fix); a 0 on a sharper fix is a
   * real stop. An accuracy that is infinite or above 100 km makes its fix one
   * the detector skips and counts ({@link Detector#skippedSamples}).
   * {@code getAccuracy()} returns 0 when {@code hasAccuracy()} is false: pass
   * NaN for such a fix, or its 0 speed reads as a stop.
   */
  public SensorBatch fixes(double[] tS, double[] speedMps, double[] accuracyM) {
    Columns.same(tS.length, "fixes tS", speedMps, "fixes speedMps", accuracyM, "fixes accuracyM");
    fixT = tS;
    fixSpeed = speedMps;
    fixAccuracy = accuracyM;
    return this;
  }

  /**
   * When the batch was received, s, read from the clock its samples are
   * stamped on ({@code SystemClock.elapsedRealtimeNanos() / 1e9}, the clock of
   * {@code SensorEvent.timestamp} and {@code Location.getElapsedRealtimeNanos()};
   * hearth_detector_feed_received). A sample stamped after it cannot have been
   * measured yet and is skipped as a bad time ({@link Detector#skippedSamples});
   * without it, one sample stamped in the future makes every later sample of
   * its stream look old and the next jolt is judged before its data. NaN (the
   * default): not known. Infinite or beyond ±1e10 s (nanoseconds not divided
   * by 10⁹): a {@link HearthException} with status ARGUMENT when fed. The value
   * stays with this batch until set again: a batch object reused for the next
   * delivery needs its new receipt ({@code receivedAt(Double.NaN)} clears it).
   * Give it only for samples on the clock it was read from (needs libhearth
   * ABI 1.7; without a receipt the older calls are made).
   */
  public SensorBatch receivedAt(double receivedS) {
    this.receivedS = receivedS;
    return this;
  }

  /** Whether the OS classifier says "in a vehicle" (the detector runs only then). */
  public SensorBatch vehicleGate(boolean inVehicle) {
    vehicleGate = inVehicle;
    return this;
  }
}
