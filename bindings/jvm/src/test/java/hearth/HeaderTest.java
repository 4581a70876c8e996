package hearth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Java enums spell constants of include/hearth.h: each one has the
 * header's value, and each of the header's constants of that family has one
 * (a constant added to the header fails here until the binding has it).
 */
class HeaderTest {
  static Map<String, Integer> constants(String prefix) throws Exception {
    String header = Files.readString(Support.root().resolve("include/hearth.h"));
    Matcher m = Pattern.compile("(?m)^#define " + prefix + "(\\w+) (-?\\d+)").matcher(header);
    Map<String, Integer> out = new TreeMap<>();
    while (m.find()) out.put(m.group(1), Integer.parseInt(m.group(2)));
    return out;
  }

  static <E extends Enum<E>> Map<String, Integer> spelled(Class<E> type, java.util.function.ToIntFunction<E> code) {
    Map<String, Integer> out = new TreeMap<>();
    for (E e : type.getEnumConstants()) {
      if (!e.name().equals("UNKNOWN")) out.put(e.name(), code.applyAsInt(e));
    }
    return out;
  }

  @Test
  void everyEnumMatchesItsFamilyInTheHeader() throws Exception {
    assertEquals(constants("HEARTH_ERROR_"), spelled(HearthException.Status.class, HearthException.Status::code));
    assertEquals(constants("HEARTH_OUTCOME_"), spelled(Verdict.Outcome.class, Verdict.Outcome::code));
    assertEquals(constants("HEARTH_FORMAT_"), spelled(Detector.Format.class, Detector.Format::code));
    assertEquals(constants("HEARTH_INPUT_"), spelled(Incident.Input.class, Incident.Input::code));
    assertEquals(constants("HEARTH_ACTION_"), spelled(Incident.Kind.class, Incident.Kind::code));
    assertEquals(constants("HEARTH_END_"), spelled(Incident.End.class, Incident.End::code));
  }

  @Test
  void theLoadedLibraryIsTheHeadersMajorVersion() throws Exception {
    String header = Files.readString(Support.root().resolve("include/hearth.h"));
    Matcher m = Pattern.compile("#define HEARTH_ABI_VERSION_MAJOR (\\d+)").matcher(header);
    m.find();
    assertEquals(Integer.parseInt(m.group(1)), Hearth.abiVersion() >>> 16);
  }
}
