package hearth;

/**
 * A native handle owned by one Java object: released once, by {@link #close()}.
 * Methods of the owner are synchronized on it, so a handle serves one thread
 * at a time, as include/hearth.h requires.
 */
abstract class Handle implements AutoCloseable {
  private long handle;
  private final String kind;

  Handle(String kind, long handle) {
    this.kind = kind;
    this.handle = handle;
  }

  /** The handle, or IllegalStateException once closed. Call with the lock held. */
  final long handle() {
    if (handle == 0) throw new IllegalStateException(kind + " is closed");
    return handle;
  }

  /** Releases the native handle; closing again does nothing. */
  @Override
  public final synchronized void close() {
    if (handle != 0) {
      Native.release(handle);
      handle = 0;
    }
  }
}
