package hearth;

/**
 * One batch of phone sensor data for {@link Detector#feed}: times in seconds
 * on one clock, in any order (the detector sorts each stream). Accelerometer
 * in m/s² with gravity, gyroscope in rad/s, barometer in hPa, fix speeds in
 * m/s (negative or NaN: unmeasured). A stream left out is empty.
 */
public final class SensorBatch {
  double[] accT, accX, accY, accZ;
  double[] gyrT, gyrX, gyrY, gyrZ;
  double[] baroT, baroHpa;
  double[] fixT, fixSpeed;
  boolean vehicleGate;

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

  public SensorBatch fixes(double[] tS, double[] speedMps) {
    Columns.same(tS.length, "fixes tS", speedMps, "fixes speedMps");
    fixT = tS;
    fixSpeed = speedMps;
    return this;
  }

  /** Whether the OS classifier says "in a vehicle" (the detector runs only then). */
  public SensorBatch vehicleGate(boolean inVehicle) {
    vehicleGate = inVehicle;
    return this;
  }
}
