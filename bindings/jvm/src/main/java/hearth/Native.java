package hearth;

/**
 * The JNI functions of libhearth_jni (src/main/c/hearth_jni.c), one per C
 * call of include/hearth.h. Not API: the public classes of this package call
 * these and own the handles (jlong) they return.
 *
 * <p>Loading: {@code System.loadLibrary("hearth_jni")}, which finds
 * libhearth_jni.so on {@code java.library.path} (desktop) or in the app's
 * native library folder (Android); libhearth is found beside it under the soname
 * it records (libhearth.so.1 on the desktop, libhearth.so on Android). The
 * library's ABI version is checked once, here ({@link #mismatch}).
 */
final class Native {
  private Native() {}

  static {
    System.loadLibrary("hearth_jni");
    String why = mismatch(abiVersion(), abiCompiled());
    if (why != null) {
      throw new UnsatisfiedLinkError(why);
    }
  }

  /**
   * Why a libhearth of ABI {@code loaded} cannot serve a JNI library compiled
   * against ABI {@code compiled}, or null when it can: the same major, and a
   * minor at least the compiled one (an older minor lacks functions the JNI
   * library calls, and the first call of one would end the process).
   */
  static String mismatch(int loaded, int compiled) {
    String versions = "libhearth ABI 0x" + Integer.toHexString(loaded) + ", built against 0x"
        + Integer.toHexString(compiled);
    if ((loaded >>> 16) != (compiled >>> 16)) {
      return versions + ": not major version " + (compiled >>> 16);
    }
    if (((loaded >>> 8) & 0xFF) < ((compiled >>> 8) & 0xFF)) {
      return versions + ": minor version " + ((loaded >>> 8) & 0xFF) + " is older than "
          + ((compiled >>> 8) & 0xFF) + " (install the libhearth this binding came with)";
    }
    return null;
  }

  static native int abiVersion();

  /** HEARTH_ABI_VERSION of the header the JNI library was compiled against. */
  static native int abiCompiled();

  static native byte[] statusName(int status);

  static native void release(long handle);

  static native void distances(double[] lat1Deg, double[] lon1Deg, double[] lat2Deg, double[] lon2Deg, double[] outM);

  static native void distancesFrom(
      double originLatDeg, double originLonDeg, double[] latDeg, double[] lonDeg, double[] outM);

  static native long gridCreate(double cellSizeM);

  static native void gridSnap(
      long grid, double[] latDeg, double[] lonDeg, long[] cellId, double[] centreLatDeg, double[] centreLonDeg);

  static native long detectorCreate(byte[] configurationJson);

  static native void detectorFeed(
      long detector,
      double[] accT, double[] accX, double[] accY, double[] accZ,
      double[] gyrT, double[] gyrX, double[] gyrY, double[] gyrZ,
      double[] baroT, double[] baroHpa,
      double[] fixT, double[] fixSpeed, double[] fixAccuracy,
      boolean vehicleGate, double receivedS);

  static native void detectorFinish(long detector);

  static native double[] detectorVerdicts(long detector, long from);

  static native double[] detectorConditions(long detector);

  static native long[] detectorCounters(long detector);

  static native byte[] detectorReport(long detector, byte[] fileName, int format);

  static native byte[] conditionText(int condition, boolean unit);

  static native long incidentCreate(long verdictMs, byte[] account);

  static native long incidentRestore(byte[] state);

  static native long[] incidentCheck(
      long incident, long nowMs, int input, int httpStatus, int tokensHeld, byte[] account);

  static native byte[] incidentSave(long incident);
}
