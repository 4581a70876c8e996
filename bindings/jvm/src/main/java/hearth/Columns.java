package hearth;

/** The one check a conversion needs: the columns of one call have one length. */
final class Columns {
  private Columns() {}

  /** Every array (after its name) has {@code n} elements; the first named one that does not is reported. */
  static void same(int n, String firstName, Object... arraysAndNames) {
    for (int i = 0; i + 1 < arraysAndNames.length; i += 2) {
      Object array = arraysAndNames[i];
      int length = array == null ? -1 : java.lang.reflect.Array.getLength(array);
      if (length != n) {
        throw new IllegalArgumentException(
            arraysAndNames[i + 1] + " has " + (array == null ? "no array" : length + " elements")
                + " but " + firstName + " has " + n);
      }
    }
  }
}
