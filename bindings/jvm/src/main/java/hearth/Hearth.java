package hearth;

/** The loaded library. */
public final class Hearth {
  private Hearth() {}

  /** The loaded libhearth's ABI version, (major &lt;&lt; 16) | (minor &lt;&lt; 8) | patch. */
  public static int abiVersion() {
    return Native.abiVersion();
  }
}
