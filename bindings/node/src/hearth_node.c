/*
 * hearth_node.c — the Node-API addon over libhearth (include/hearth.h).
 *
 * A door: it converts JavaScript values to the header's arrays and structs,
 * calls the library and converts back. It holds no rule of its own: every
 * check on the data is the library's, and a failed status becomes a JS Error
 * carrying the library's status (err.status, err.code) and message. The only
 * checks made here are the ones a conversion needs (a Float64Array where the
 * header takes `const double *`, columns of one length, a whole number where
 * it takes an int64_t) and the handle's lifetime (closed, busy with async work).
 *
 * A synchronous call passes typed arrays without copies: a Float64Array,
 * BigInt64Array, Uint8Array or Uint32Array is read or written in place (its
 * buffer, at its offset). A plain Array of numbers is converted into a
 * temporary C array. Reading an argument may run the caller's JavaScript (a
 * getter, a Proxy's trap, an accessor on an Array's element), which may
 * detach or shrink an array read before it; so a call that reads an object
 * of columns takes the typed arrays' pointers only after all of it was read,
 * immediately before the library call (take_late_columns), and refuses an
 * array that changed meanwhile.
 *
 * Async work (napi_async_work) runs the library call on the libuv pool while
 * JavaScript runs on, and JavaScript may detach (transfer) or shrink any
 * array meanwhile: so the worker never touches a JavaScript array. The call
 * copies every input array into C memory the job owns, the library writes
 * outputs into C memory too, and the completion (on the main thread) copies
 * them into the caller's output arrays only after checking that each is
 * still attached and long enough; if one is not, nothing is written and the
 * promise is rejected with a TypeError naming it. Arrays the addon creates
 * itself are unreachable from JavaScript until the promise resolves and are
 * written in place. index.js queues the async calls of one handle so that a
 * handle serves one call at a time, as the header requires.
 *
 * Built against Node-API version 8 (Node 12.22 / 14.17 and later).
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hearth.h"

/* ------------------------------------------------------------------------ */
/* Names of the header's constants, keyed by the header's macros.           */

typedef struct named {
  int32_t value;
  const char *name;
} named;

#define NAMED(macro, text) {macro, text}

static const named status_codes[] = {
    NAMED(HEARTH_OK, "HEARTH_OK"),
    NAMED(HEARTH_ERROR_ARGUMENT, "HEARTH_ERROR_ARGUMENT"),
    NAMED(HEARTH_ERROR_BAD_INPUT, "HEARTH_ERROR_BAD_INPUT"),
    NAMED(HEARTH_ERROR_SCHEMA, "HEARTH_ERROR_SCHEMA"),
    NAMED(HEARTH_ERROR_STATE, "HEARTH_ERROR_STATE"),
    NAMED(HEARTH_ERROR_CAPACITY, "HEARTH_ERROR_CAPACITY"),
};

/* The Swift library's own spellings (RejectionReason, FixField, SchemaError.Reason). */
static const named fix_verdicts[] = {
    NAMED(HEARTH_FIX_ACCEPTED, "accepted"),
    NAMED(HEARTH_FIX_IN_FUTURE, "inFuture"),
    NAMED(HEARTH_FIX_TOO_OLD, "tooOld"),
    NAMED(HEARTH_FIX_ACCURACY_MISSING, "accuracyMissing"),
    NAMED(HEARTH_FIX_ACCURACY_OUT_OF_RANGE, "accuracyOutOfRange"),
    NAMED(HEARTH_FIX_SPEED_OUT_OF_RANGE, "speedOutOfRange"),
    NAMED(HEARTH_FIX_HEADING_OUT_OF_RANGE, "headingOutOfRange"),
    NAMED(HEARTH_FIX_ALTITUDE_OUT_OF_RANGE, "altitudeOutOfRange"),
    NAMED(HEARTH_FIX_BATTERY_OUT_OF_RANGE, "batteryOutOfRange"),
};
static const named fix_fields[] = {
    NAMED(HEARTH_FIELD_TIME, "time"),
    NAMED(HEARTH_FIELD_LATITUDE, "latitude"),
    NAMED(HEARTH_FIELD_LONGITUDE, "longitude"),
    NAMED(HEARTH_FIELD_HORIZONTAL_ACCURACY, "horizontalAccuracy"),
    NAMED(HEARTH_FIELD_SPEED, "speed"),
    NAMED(HEARTH_FIELD_HEADING, "heading"),
    NAMED(HEARTH_FIELD_ALTITUDE, "altitude"),
    NAMED(HEARTH_FIELD_BATTERY_LEVEL, "batteryLevel"),
};
static const named schema_reasons[] = {
    NAMED(HEARTH_SCHEMA_NOT_FINITE, "not a finite number"),
    NAMED(HEARTH_SCHEMA_OUT_OF_RANGE, "outside its range"),
};
static const named incident_inputs[] = {
    NAMED(HEARTH_INPUT_NOTHING, "nothing"),
    NAMED(HEARTH_INPUT_DISMISSED, "dismissed"),
    NAMED(HEARTH_INPUT_ALERT_NOW, "alertNow"),
    NAMED(HEARTH_INPUT_DELIVERED, "delivered"),
    NAMED(HEARTH_INPUT_NETWORK_FAILURE, "networkFailure"),
    NAMED(HEARTH_INPUT_HTTP, "http"),
    NAMED(HEARTH_INPUT_FIREWALL_PAGE, "firewallPage"),
    NAMED(HEARTH_INPUT_UPLOAD_SUCCEEDED, "uploadSucceeded"),
    NAMED(HEARTH_INPUT_SIGNED_IN, "signedIn"),
};
static const named incident_actions[] = {
    NAMED(HEARTH_ACTION_NONE, "none"),
    NAMED(HEARTH_ACTION_ASK, "ask"),
    NAMED(HEARTH_ACTION_SEND, "send"),
    NAMED(HEARTH_ACTION_WAIT_UNTIL, "waitUntil"),
    NAMED(HEARTH_ACTION_FINISHED, "finished"),
};
static const named incident_ends[] = {
    NAMED(HEARTH_END_DISMISSED, "dismissed"),
    NAMED(HEARTH_END_DELIVERED, "delivered"),
    NAMED(HEARTH_END_REFUSED, "refused"),
    NAMED(HEARTH_END_DROPPED_AFTER_AN_HOUR, "droppedAfterAnHour"),
    NAMED(HEARTH_END_OTHER_ACCOUNT, "otherAccount"),
};
static const named gates[] = {
    NAMED(HEARTH_GATE_RECORDING, "recording"),
    NAMED(HEARTH_GATE_ON, "on"),
    NAMED(HEARTH_GATE_OFF, "off"),
};
static const named formats[] = {
    NAMED(HEARTH_FORMAT_TEXT, "text"),
    NAMED(HEARTH_FORMAT_JSON, "json"),
    NAMED(HEARTH_FORMAT_CSV, "csv"),
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const named *table, size_t count, int32_t value) {
  for (size_t i = 0; i < count; i++) {
    if (table[i].value == value) return table[i].name;
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */

/* Every N-API call here is checked; a failure leaves a pending exception or
   is turned into one, and the function returns NULL (undefined). */
#define CHECK(env, call)                                                 \
  do {                                                                   \
    if ((call) != napi_ok) {                                             \
      throw_napi_failure(env);                                           \
      return NULL;                                                       \
    }                                                                    \
  } while (0)

static void throw_napi_failure(napi_env env) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info);
  napi_throw_error(env, "HEARTH_NODE_API",
                   info && info->error_message ? info->error_message : "a Node-API call failed");
}

static void set_string(napi_env env, napi_value object, const char *key, const char *text) {
  napi_value value;
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value) == napi_ok) {
    napi_set_named_property(env, object, key, value);
  }
}

static void set_number(napi_env env, napi_value object, const char *key, double number) {
  napi_value value;
  if (napi_create_double(env, number, &value) == napi_ok) {
    napi_set_named_property(env, object, key, value);
  }
}

/* A JS Error for a failed library status: the handle's message (the library
   names the file, row, field or setting), else the status's own name. */
static napi_value status_error(napi_env env, int32_t status, const char *message) {
  const char *code = name_of(status_codes, COUNT_OF(status_codes), status);
  const char *text = (message && message[0]) ? message : hearth_status_name(status);
  napi_value code_value, message_value, error;
  napi_create_string_utf8(env, code ? code : "HEARTH_ERROR_UNKNOWN", NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error);
  set_number(env, error, "status", status);
  set_string(env, error, "statusName", hearth_status_name(status));
  return error;
}

static void throw_status(napi_env env, int32_t status, const void *handle) {
  napi_throw(env, status_error(env, status, hearth_last_error(handle)));
}

/* A call without a handle for its reason (hearth_validate,
   hearth_privacy_project) returned HEARTH_ERROR_ARGUMENT: the reason its check
   gave (`checked`, which made `why`), or the bare status when the check
   takes the arguments. Releases `why`. */
static void throw_checked(napi_env env, int32_t checked, hearth_bytes *why) {
  throw_status(env, HEARTH_ERROR_ARGUMENT, checked != HEARTH_OK ? why : NULL);
  hearth_release(why);
}

static void throw_type(napi_env env, const char *format, const char *a, const char *b) {
  char text[512];
  snprintf(text, sizeof text, format, a, b ? b : "");
  napi_throw_type_error(env, "HEARTH_ERROR_ARGUMENT", text);
}

static void throw_range(napi_env env, const char *text) {
  napi_throw_range_error(env, "HEARTH_ERROR_ARGUMENT", text);
}

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */

#define MAX_ARGS 8

typedef struct call {
  napi_env env;
  napi_value self;
  napi_value args[MAX_ARGS];
  size_t argc;
} call;

static bool read_call(napi_env env, napi_callback_info info, call *c) {
  c->env = env;
  c->argc = MAX_ARGS;
  if (napi_get_cb_info(env, info, &c->argc, c->args, &c->self, NULL) != napi_ok) {
    throw_napi_failure(env);
    return false;
  }
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  for (size_t i = c->argc; i < MAX_ARGS; i++) c->args[i] = undefined;
  return true;
}

static bool is_nullish(napi_env env, napi_value value) {
  napi_valuetype type;
  return napi_typeof(env, value, &type) != napi_ok || type == napi_undefined || type == napi_null;
}

static bool read_double(napi_env env, napi_value value, const char *name, double *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number) {
    throw_type(env, "%s: expected a number", name, NULL);
    return false;
  }
  napi_get_value_double(env, value, out);
  return true;
}

/* An int64_t from a BigInt, or from a Number that is a whole number within
   ±2^53 (what a Number holds exactly). */
static bool read_int64(napi_env env, napi_value value, const char *name, int64_t *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) return false;
  if (type == napi_bigint) {
    bool lossless = false;
    napi_get_value_bigint_int64(env, value, out, &lossless);
    if (!lossless) {
      throw_type(env, "%s: the BigInt does not fit in 64 bits", name, NULL);
      return false;
    }
    return true;
  }
  if (type == napi_number) {
    double number = 0;
    napi_get_value_double(env, value, &number);
    if (number == floor(number) && fabs(number) <= 9007199254740992.0) {
      *out = (int64_t)number;
      return true;
    }
    char text[64];
    snprintf(text, sizeof text, "%.17g", number);
    throw_type(env, "%s: %s is not a whole number (an int64_t is expected)", name, text);
    return false;
  }
  throw_type(env, "%s: expected a whole number or a BigInt", name, NULL);
  return false;
}

static bool read_int32(napi_env env, napi_value value, const char *name, int32_t *out) {
  int64_t wide = 0;
  if (!read_int64(env, value, name, &wide)) return false;
  if (wide < INT32_MIN || wide > INT32_MAX) {
    throw_type(env, "%s: outside the range of an int32_t", name, NULL);
    return false;
  }
  *out = (int32_t)wide;
  return true;
}

/* A TypeError for a string argument that C cannot be handed: a NUL (unit 0)
   or a lone surrogate at `index` (in UTF-16 units, as JavaScript counts). */
static void throw_string(napi_env env, const char *name, uint32_t unit, size_t index) {
  char text[512];
  if (unit == 0) {
    snprintf(text, sizeof text, "%s: a NUL character at index %zu, which a C string cannot carry", name, index);
  } else {
    snprintf(text, sizeof text, "%s: a lone surrogate (U+%04X) at index %zu, which UTF-8 cannot encode", name,
             (unsigned)unit, index);
  }
  napi_throw_type_error(env, "HEARTH_ERROR_ARGUMENT", text);
}

/* A UTF-8 copy of a string argument (free it), or NULL with an exception.
   The string's UTF-16 is encoded here, exactly: napi_get_value_string_utf8
   would write U+FFFD for a lone surrogate, so "\udcff" and "\udcfe" would
   reach the library as one string. A lone surrogate (UTF-8 has no form for
   it) or a NUL (a C string ends at its first NUL: "alice\0x" would arrive
   as "alice") is a TypeError naming the argument and the index. What
   remains is always UTF-8, the library's rule for every string. */
static char *read_string(napi_env env, napi_value value, const char *name) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string) {
    throw_type(env, "%s: expected a string", name, NULL);
    return NULL;
  }
  size_t units = 0;
  napi_get_value_string_utf16(env, value, NULL, 0, &units);
  char16_t *utf16 = malloc((units + 1) * sizeof *utf16);
  /* A UTF-16 unit becomes at most 3 bytes; a surrogate pair's two, 4. */
  char *text = units <= (SIZE_MAX - 1) / 3 ? malloc(units * 3 + 1) : NULL;
  if (!utf16 || !text) {
    free(utf16);
    free(text);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  napi_get_value_string_utf16(env, value, utf16, units + 1, &units);
  size_t n = 0;
  for (size_t i = 0; i < units; i++) {
    uint32_t c = utf16[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units && utf16[i + 1] >= 0xDC00 && utf16[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (utf16[i + 1] - 0xDC00u);
      i++;
    } else if (c == 0 || (c >= 0xD800 && c <= 0xDFFF)) {
      free(utf16);
      free(text);
      throw_string(env, name, c, i);
      return NULL;
    }
    if (c < 0x80) {
      text[n++] = (char)c;
    } else if (c < 0x800) {
      text[n++] = (char)(0xC0 | (c >> 6));
      text[n++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      text[n++] = (char)(0xE0 | (c >> 12));
      text[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      text[n++] = (char)(0x80 | (c & 0x3F));
    } else {
      text[n++] = (char)(0xF0 | (c >> 18));
      text[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
      text[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      text[n++] = (char)(0x80 | (c & 0x3F));
    }
  }
  text[n] = 0;
  free(utf16);
  return text;
}

/* A named table's value from its name (a string) or the value itself (a number). */
static bool read_named(napi_env env, napi_value value, const char *name, const named *table, size_t count,
                       int32_t *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) return false;
  if (type == napi_string) {
    char text[64];
    size_t length = 0;
    napi_get_value_string_utf8(env, value, text, sizeof text, &length);
    if (strlen(text) != length) {
      /* C would read only what comes before the NUL, and take "signedIn\0x" for "signedIn". */
      throw_type(env, "%s: a NUL character after '%s', which no name has", name, text);
      return false;
    }
    for (size_t i = 0; i < count; i++) {
      if (strcmp(table[i].name, text) == 0) {
        *out = table[i].value;
        return true;
      }
    }
    throw_type(env, "%s: unknown name '%s'", name, text);
    return false;
  }
  /* A number is the header's constant, forwarded as it is (the library refuses an unknown one). */
  return read_int32(env, value, name, out);
}

/* ------------------------------------------------------------------------ */
/* Columns: typed arrays in place, plain arrays converted                   */

typedef enum element {
  ELEMENT_F64,
  ELEMENT_I64,
  ELEMENT_U8,
  ELEMENT_U32,
} element;

static const char *element_array_name(element e) {
  switch (e) {
    case ELEMENT_F64: return "Float64Array";
    case ELEMENT_I64: return "BigInt64Array";
    case ELEMENT_U8: return "Uint8Array";
    case ELEMENT_U32: return "Uint32Array";
  }
  return "?";
}

static size_t element_size(element e) {
  switch (e) {
    case ELEMENT_F64: return sizeof(double);
    case ELEMENT_I64: return sizeof(int64_t);
    case ELEMENT_U8: return sizeof(uint8_t);
    case ELEMENT_U32: return sizeof(uint32_t);
  }
  return 1;
}

static napi_typedarray_type element_typedarray(element e) {
  switch (e) {
    case ELEMENT_F64: return napi_float64_array;
    case ELEMENT_I64: return napi_bigint64_array;
    case ELEMENT_U8: return napi_uint8_array;
    case ELEMENT_U32: return napi_uint32_array;
  }
  return napi_float64_array;
}

/* An output array the caller gave to an async call: the library writes
   `data` (C memory, `count` elements), and the completion copies it into the
   array (held by `array`) if the array is still attached and long enough. */
typedef struct deferred_output {
  napi_ref array;
  const char *name; /* a string literal */
  element e;
  size_t count;
  void *data;
} deferred_output;

/* A typed array of a synchronous call whose data pointer is taken only when
   every argument has been read (take_late_columns): reading a later argument
   may run JavaScript (a getter, a Proxy, an Array element's accessor) that
   detaches or shrinks this array. `slot` receives the pointer. */
typedef struct late_column {
  napi_value array;
  char name[64];
  size_t length; /* when it was read */
  void *slot;    /* a `const T *` field */
} late_column;

/* What one call holds: temporary C arrays to free (conversions, and an async
   call's copies of its inputs), an async call's deferred outputs, and a
   synchronous call's typed arrays still to be taken. */
#define MAX_HELD 24
#define MAX_OUTPUTS 3
#define MAX_LATE 16
typedef struct holder {
  void *owned[MAX_HELD];
  size_t owned_count;
  deferred_output outputs[MAX_OUTPUTS];
  size_t output_count;
  late_column late[MAX_LATE];
  size_t late_count;
} holder;

static void holder_free(napi_env env, holder *h) {
  for (size_t i = 0; i < h->owned_count; i++) free(h->owned[i]);
  h->owned_count = 0;
  for (size_t i = 0; i < h->output_count; i++) {
    if (env && h->outputs[i].array) napi_delete_reference(env, h->outputs[i].array);
    free(h->outputs[i].data);
  }
  h->output_count = 0;
}

/* `size` bytes of C memory owned by the holder (at least one byte), or NULL with an exception. */
static void *owned_memory(napi_env env, holder *h, size_t size) {
  if (h->owned_count >= MAX_HELD) {
    napi_throw_error(env, NULL, "too many arrays in one call");
    return NULL;
  }
  void *memory = malloc(size > 0 ? size : 1);
  if (!memory) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  h->owned[h->owned_count++] = memory;
  return memory;
}

/* A plain Array element converted to `e`, or false with a TypeError naming name[i]. */
static bool convert_element(napi_env env, napi_value item, element e, const char *name, uint32_t i, void *out) {
  char label[160];
  snprintf(label, sizeof label, "%s[%u]", name, i);
  napi_valuetype type;
  if (napi_typeof(env, item, &type) != napi_ok) return false;
  if (e == ELEMENT_F64) {
    /* null stands for a missing reading (NaN), as JSON cannot carry NaN. */
    if (type == napi_null) {
      ((double *)out)[i] = NAN;
      return true;
    }
    return read_double(env, item, label, &((double *)out)[i]);
  }
  int64_t wide = 0;
  if (!read_int64(env, item, label, &wide)) return false;
  switch (e) {
    case ELEMENT_I64: ((int64_t *)out)[i] = wide; return true;
    case ELEMENT_U8:
      if (wide < 0 || wide > UINT8_MAX) break;
      ((uint8_t *)out)[i] = (uint8_t)wide;
      return true;
    case ELEMENT_U32:
      if (wide < 0 || wide > UINT32_MAX) break;
      ((uint32_t *)out)[i] = (uint32_t)wide;
      return true;
    case ELEMENT_F64: break;
  }
  throw_type(env, "%s: outside the range of a %s element", label, element_array_name(e));
  return false;
}

/*
 * A column: a typed array of the element type (in place, or, when `copy`, as
 * a C copy owned by the holder: what async work reads, since JavaScript may
 * detach the array while it runs), or, when `convertible`, a plain Array
 * converted into a C array owned by the holder. *length receives its length.
 */
static bool read_column(napi_env env, napi_value value, const char *name, element e, bool convertible, bool copy,
                        holder *h, void **data, size_t *length) {
  napi_typedarray_type type;
  /* One Node-API call when it is a typed array (the per-call path); it fails, throwing nothing, when not. */
  if (napi_get_typedarray_info(env, value, &type, length, data, NULL, NULL) == napi_ok) {
    if (type != element_typedarray(e)) {
      throw_type(env, "%s: expected a %s", name, element_array_name(e));
      return false;
    }
    if (*length > 0 && *data == NULL) {
      throw_type(env, "%s: the array's buffer is detached", name, NULL);
      return false;
    }
    if (!copy) return true;
    void *own = owned_memory(env, h, *length * element_size(e));
    if (!own) return false;
    if (*length > 0) memcpy(own, *data, *length * element_size(e));
    *data = own;
    return true;
  }
  bool array = false;
  napi_is_array(env, value, &array);
  if (!array || !convertible) {
    if (convertible) {
      throw_type(env, "%s: expected a %s or an Array of numbers", name, element_array_name(e));
    } else {
      throw_type(env, "%s: expected a %s", name, element_array_name(e));
    }
    return false;
  }
  uint32_t count = 0;
  napi_get_array_length(env, value, &count);
  void *converted = owned_memory(env, h, (size_t)count * element_size(e));
  if (!converted) return false;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    if (napi_get_element(env, value, i, &item) != napi_ok) {
      throw_napi_failure(env);
      return false;
    }
    if (!convert_element(env, item, e, name, i, converted)) return false;
  }
  *data = converted;
  *length = count;
  return true;
}

/*
 * The second phase of a synchronous call that reads several arrays: after
 * every argument was read (all JavaScript the reading can run has run) and
 * just before the library call, with no JavaScript in between, takes each
 * late column's data pointer, and refuses a column that was detached or
 * whose length changed meanwhile (a TypeError naming it).
 */
static bool take_late_columns(napi_env env, holder *h) {
  for (size_t i = 0; i < h->late_count; i++) {
    late_column *l = &h->late[i];
    napi_typedarray_type type;
    napi_value buffer;
    size_t length = 0, offset = 0;
    void *data = NULL;
    bool detached = false;
    char text[256];
    if (napi_get_typedarray_info(env, l->array, &type, &length, &data, &buffer, &offset) != napi_ok ||
        napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok) {
      throw_napi_failure(env);
      return false;
    }
    if (detached || (length > 0 && data == NULL)) {
      snprintf(text, sizeof text,
               "%s: the array's buffer was detached (transferred) while the arguments were read; the call was "
               "not made",
               l->name);
    } else if (length != l->length) {
      snprintf(text, sizeof text,
               "%s: the array's length changed from %zu to %zu elements while the arguments were read; the call "
               "was not made",
               l->name, l->length, length);
    } else {
      memcpy(l->slot, &data, sizeof data);
      continue;
    }
    napi_throw_type_error(env, "HEARTH_ERROR_ARGUMENT", text);
    return false;
  }
  h->late_count = 0;
  return true;
}

/* Columns of one call must have one length. */
static bool same_length(napi_env env, const char *name, size_t length, const char *first, size_t expected) {
  if (length == expected) return true;
  char text[256];
  snprintf(text, sizeof text, "%s has %zu elements but %s has %zu", name, length, first, expected);
  throw_range(env, text);
  return false;
}

/* A new typed array of `count` elements; *data points at its storage. */
static bool new_typed(napi_env env, element e, size_t count, napi_value *out, void **data) {
  napi_value buffer;
  if (napi_create_arraybuffer(env, count * element_size(e), data, &buffer) != napi_ok ||
      napi_create_typedarray(env, element_typedarray(e), count, buffer, 0, out) != napi_ok) {
    throw_napi_failure(env);
    return false;
  }
  return true;
}

/*
 * An output column: the caller's typed array when given, else a new one.
 * A new one, and the caller's in a synchronous call, are written in place;
 * for an async call (`deferred`) the caller's array gets C memory of its own
 * (*data), copied into it by deliver_outputs when the work completes.
 */
static bool output_column(napi_env env, napi_value given, const char *name, element e, size_t count,
                          bool deferred, holder *h, napi_value *out, void **data) {
  if (is_nullish(env, given)) return new_typed(env, e, count, out, data);
  size_t length = 0;
  if (!read_column(env, given, name, e, false, false, h, data, &length)) return false;
  if (!same_length(env, name, length, "the input", count)) return false;
  *out = given;
  if (!deferred) return true;
  if (h->output_count >= MAX_OUTPUTS) {
    napi_throw_error(env, NULL, "too many output arrays in one call");
    return false;
  }
  deferred_output *o = &h->outputs[h->output_count];
  memset(o, 0, sizeof *o);
  o->name = name;
  o->e = e;
  o->count = count;
  o->data = malloc(count > 0 ? count * element_size(e) : 1);
  if (!o->data) {
    napi_throw_error(env, NULL, "out of memory");
    return false;
  }
  h->output_count++; /* holder_free frees o->data from here on */
  if (napi_create_reference(env, given, 1, &o->array) != napi_ok) {
    throw_napi_failure(env);
    return false;
  }
  *data = o->data;
  return true;
}

/*
 * On the main thread, when async work has succeeded: copies each deferred
 * output into the caller's array. Every array is checked first (still
 * attached, still at least as long as the input); if one is not, nothing is
 * written and *error is a TypeError naming it.
 */
static bool deliver_outputs(napi_env env, holder *h, napi_value *error) {
  void *targets[MAX_OUTPUTS];
  for (size_t i = 0; i < h->output_count; i++) {
    deferred_output *o = &h->outputs[i];
    napi_value array, buffer;
    napi_typedarray_type type;
    size_t length = 0, offset = 0;
    void *data = NULL;
    bool detached = false, ok = false;
    char text[256];
    if (napi_get_reference_value(env, o->array, &array) != napi_ok || array == NULL ||
        napi_get_typedarray_info(env, array, &type, &length, &data, &buffer, &offset) != napi_ok ||
        napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok) {
      snprintf(text, sizeof text, "%s: the array could not be read back after the call; no result was written",
               o->name);
    } else if (detached || (o->count > 0 && data == NULL)) {
      snprintf(text, sizeof text,
               "%s: the array's buffer was detached (transferred) during the call; no result was written", o->name);
    } else if (length < o->count) {
      snprintf(text, sizeof text,
               "%s: the array shrank to %zu elements during the call (%zu expected); no result was written",
               o->name, length, o->count);
    } else {
      ok = true;
    }
    if (!ok) {
      napi_value code, message;
      napi_create_string_utf8(env, "HEARTH_ERROR_ARGUMENT", NAPI_AUTO_LENGTH, &code);
      napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
      napi_create_type_error(env, code, message, error);
      return false;
    }
    targets[i] = data;
  }
  for (size_t i = 0; i < h->output_count; i++) {
    deferred_output *o = &h->outputs[i];
    if (o->count > 0) memcpy(targets[i], o->data, o->count * element_size(o->e));
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Fixes (hearth_fixes) from an object of columns named as in the header      */

typedef struct fix_column {
  const char *name;
  element e;
  size_t offset;
} fix_column;

#define FIX_COLUMN(field, e) {#field, e, offsetof(hearth_fixes, field)}

static const fix_column fix_columns[] = {
    FIX_COLUMN(time_ms, ELEMENT_I64),
    FIX_COLUMN(latitude_deg, ELEMENT_F64),
    FIX_COLUMN(longitude_deg, ELEMENT_F64),
    FIX_COLUMN(horizontal_accuracy_m, ELEMENT_F64),
    FIX_COLUMN(speed_mps, ELEMENT_F64),
    FIX_COLUMN(heading_deg, ELEMENT_F64),
    FIX_COLUMN(altitude_m, ELEMENT_F64),
    FIX_COLUMN(activity, ELEMENT_U8),
    FIX_COLUMN(source, ELEMENT_U8),
    FIX_COLUMN(battery_level, ELEMENT_F64),
    FIX_COLUMN(charging, ELEMENT_U8),
    FIX_COLUMN(device, ELEMENT_U32),
    FIX_COLUMN(user, ELEMENT_U32),
};

/*
 * Reads an object of columns into *fixes: each present column is a typed
 * array of the header's element type (used in place, or copied when `copy`)
 * or a plain Array (converted); an absent column is NULL, which the library reads as its
 * documented default or refuses. An unknown key is refused by name (a typo
 * would otherwise drop a column silently). All columns have one length.
 *
 * Reading the object runs the caller's JavaScript (getters, a Proxy's traps,
 * accessors on an Array's elements), which may detach or shrink a column
 * already read. So a typed array used in place is only noted here (its
 * pointer stays NULL): the caller takes it with take_late_columns just before
 * the library call. A copy (`copy`) is made the moment the array is read, so
 * it needs no second phase.
 */
static bool read_fixes(napi_env env, napi_value object, bool copy, holder *h, hearth_fixes *fixes) {
  memset(fixes, 0, sizeof *fixes);
  napi_valuetype type;
  if (napi_typeof(env, object, &type) != napi_ok || type != napi_object) {
    throw_type(env, "fixes: expected an object of columns (time_ms, latitude_deg, …)", NULL, NULL);
    return false;
  }
  napi_value keys;
  uint32_t key_count = 0;
  if (napi_get_property_names(env, object, &keys) != napi_ok) {
    throw_napi_failure(env);
    return false;
  }
  if (napi_get_array_length(env, keys, &key_count) != napi_ok) {
    throw_napi_failure(env);
    return false;
  }
  for (uint32_t k = 0; k < key_count; k++) {
    napi_value key;
    char text[64];
    size_t length = 0;
    if (napi_get_element(env, keys, k, &key) != napi_ok) {
      throw_napi_failure(env);
      return false;
    }
    if (napi_get_value_string_utf8(env, key, text, sizeof text, &length) != napi_ok) continue;
    if (strlen(text) != length) {
      throw_type(env, "fixes: a column named with a NUL character after '%s'%s", text, NULL);
      return false;
    }
    bool known = false;
    for (size_t c = 0; c < COUNT_OF(fix_columns); c++) known = known || strcmp(fix_columns[c].name, text) == 0;
    if (!known) {
      throw_type(env,
                 "fixes: unknown column '%s' (the columns are time_ms, latitude_deg, longitude_deg, "
                 "horizontal_accuracy_m, speed_mps, heading_deg, altitude_m, activity, source, battery_level, "
                 "charging, device, user)%s",
                 text, NULL);
      return false;
    }
  }
  const char *first = NULL;
  size_t count = 0;
  for (size_t c = 0; c < COUNT_OF(fix_columns); c++) {
    napi_value value;
    bool has = false;
    /* A getter or a Proxy trap of the caller's may throw: its exception
       stays pending and nothing more is read (value would be unset). */
    if (napi_has_named_property(env, object, fix_columns[c].name, &has) != napi_ok) {
      throw_napi_failure(env);
      return false;
    }
    if (!has) continue;
    if (napi_get_named_property(env, object, fix_columns[c].name, &value) != napi_ok) {
      throw_napi_failure(env);
      return false;
    }
    if (is_nullish(env, value)) continue;
    char label[64];
    snprintf(label, sizeof label, "fixes.%s", fix_columns[c].name);
    void *data = NULL;
    size_t length = 0;
    if (!read_column(env, value, label, fix_columns[c].e, true, copy, h, &data, &length)) return false;
    if (first == NULL) {
      first = fix_columns[c].name;
      count = length;
    } else if (!same_length(env, label, length, first, count)) {
      return false;
    }
    bool typed = false;
    if (!copy && napi_is_typedarray(env, value, &typed) == napi_ok && typed) {
      if (h->late_count >= MAX_LATE) {
        napi_throw_error(env, NULL, "too many arrays in one call");
        return false;
      }
      late_column *l = &h->late[h->late_count++];
      l->array = value;
      snprintf(l->name, sizeof l->name, "%s", label);
      l->length = length;
      l->slot = (char *)fixes + fix_columns[c].offset;
      continue; /* its pointer is taken by take_late_columns */
    }
    memcpy((char *)fixes + fix_columns[c].offset, &data, sizeof data);
  }
  fixes->count = (int64_t)count;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Handles: one box per JS object, released by close() or the finaliser     */

typedef struct box {
  void *handle;
  int32_t pending; /* async calls running on it */
  bool closing;    /* close() while async work runs: released when it ends */
} box;

static void box_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  box *b = data;
  hearth_release(b->handle);
  free(b);
}

static bool wrap_handle(napi_env env, napi_value object, void *handle) {
  box *b = calloc(1, sizeof *b);
  if (!b) {
    hearth_release(handle);
    napi_throw_error(env, NULL, "out of memory");
    return false;
  }
  b->handle = handle;
  if (napi_wrap(env, object, b, box_finalize, NULL, NULL) != napi_ok) {
    hearth_release(handle);
    free(b);
    throw_napi_failure(env);
    return false;
  }
  return true;
}

/* The box of `self`, open and (unless `allow_busy`) not serving async work. */
static box *open_box(napi_env env, napi_value self, const char *kind, bool allow_busy) {
  box *b = NULL;
  if (napi_unwrap(env, self, (void **)&b) != napi_ok || b == NULL) {
    throw_type(env, "%s: called on an object that is not one", kind, NULL);
    return NULL;
  }
  if (b->handle == NULL || b->closing) {
    char text[128];
    snprintf(text, sizeof text, "%s is closed", kind);
    napi_throw_error(env, "HEARTH_CLOSED", text);
    return NULL;
  }
  if (b->pending > 0 && !allow_busy) {
    char text[160];
    snprintf(text, sizeof text, "%s: an async call is still running on it; await it first", kind);
    napi_throw_error(env, "HEARTH_BUSY", text);
    return NULL;
  }
  return b;
}

static void box_done(box *b) {
  b->pending--;
  if (b->pending == 0 && b->closing) {
    hearth_release(b->handle);
    b->handle = NULL;
  }
}

static napi_value close_handle(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = NULL;
  if (napi_unwrap(env, c.self, (void **)&b) == napi_ok && b != NULL && b->handle != NULL) {
    if (b->pending > 0) {
      b->closing = true; /* released when the last async call ends */
    } else {
      hearth_release(b->handle);
      b->handle = NULL;
    }
  }
  return NULL;
}

/* Bytes the library produced, copied into a Node Buffer, then released. */
static napi_value take_bytes(napi_env env, hearth_bytes *bytes) {
  napi_value out;
  void *data = NULL;
  int64_t size = hearth_bytes_size(bytes);
  if (size < 0) size = 0;
  if (napi_create_buffer_copy(env, (size_t)size, hearth_bytes_data(bytes), &data, &out) != napi_ok) {
    hearth_release(bytes);
    throw_napi_failure(env);
    return NULL;
  }
  hearth_release(bytes);
  return out;
}

static napi_value take_string(napi_env env, hearth_bytes *bytes) {
  napi_value out;
  int64_t size = hearth_bytes_size(bytes);
  if (size < 0) size = 0;
  napi_status s = napi_create_string_utf8(env, (const char *)hearth_bytes_data(bytes), (size_t)size, &out);
  hearth_release(bytes);
  CHECK(env, s);
  return out;
}

/* ------------------------------------------------------------------------ */
/* Async work                                                               */

typedef enum job_kind {
  JOB_DISTANCES,
  JOB_DISTANCES_FROM,
  JOB_SNAP,
  JOB_INGEST,
  JOB_DETECT,
} job_kind;

typedef struct job {
  job_kind kind;
  bool on_heap; /* async jobs; a synchronous call keeps its job on the stack */
  napi_async_work work;
  napi_deferred deferred;
  napi_ref result; /* what the promise resolves to (the output arrays), if set */
  holder held;
  box *b;
  napi_ref self; /* keeps the handle's JS object alive */
  int32_t status;
  char *message; /* the library's message on failure, copied on the worker */
  /* arguments */
  int64_t count;
  const double *in[4];
  double origin_lat_deg, origin_lon_deg;
  double *out_f64[2];
  int64_t *out_i64;
  hearth_fixes fixes;
  int64_t received_ms;
  char *path, *mapping, *configuration, *file_name;
  int32_t gate, format;
  /* results */
  hearth_bytes *bytes;
  int64_t inserted, duplicates;
} job;

static char *copy_text(const char *text) {
  size_t n = strlen(text);
  char *out = malloc(n + 1);
  if (out) memcpy(out, text, n + 1);
  return out;
}

static void job_free(napi_env env, job *j) {
  holder_free(env, &j->held);
  if (j->result) napi_delete_reference(env, j->result);
  if (j->self) napi_delete_reference(env, j->self);
  if (j->bytes) hearth_release(j->bytes);
  free(j->message);
  free(j->path);
  free(j->mapping);
  free(j->configuration);
  free(j->file_name);
  if (j->on_heap) free(j);
}

/* Runs the detector over a recording as `hearth impact detect` does and keeps
   its report; the message of a failure is the failing handle's (a failed
   report's is on the bytes it handed back, not on the detector). */
static void run_detect(job *j) {
  hearth_trace *trace = NULL;
  hearth_detector *detector = NULL;
  j->status = hearth_trace_read(j->path, j->mapping, &trace);
  if (j->status != HEARTH_OK) {
    j->message = copy_text(hearth_last_error(trace));
  } else {
    j->status = hearth_detector_create(j->configuration, &detector);
    if (j->status == HEARTH_OK) j->status = hearth_detector_feed_trace(detector, trace, j->gate);
    if (j->status == HEARTH_OK) j->status = hearth_detector_finish(detector);
    if (j->status != HEARTH_OK) {
      j->message = copy_text(hearth_last_error(detector));
    } else {
      j->status = hearth_detector_report(detector, j->file_name, j->format, &j->bytes);
      if (j->status != HEARTH_OK) j->message = copy_text(hearth_last_error(j->bytes));
    }
  }
  hearth_release(detector);
  hearth_release(trace);
}

static void job_execute(napi_env env, void *data) {
  (void)env;
  job *j = data;
  switch (j->kind) {
    case JOB_DISTANCES:
      j->status = hearth_distances_m(j->count, j->in[0], j->in[1], j->in[2], j->in[3], j->out_f64[0]);
      break;
    case JOB_DISTANCES_FROM:
      j->status =
          hearth_distances_from_m(j->origin_lat_deg, j->origin_lon_deg, j->count, j->in[0], j->in[1], j->out_f64[0]);
      break;
    case JOB_SNAP:
      j->status = hearth_grid_snap(j->b->handle, j->count, j->in[0], j->in[1], j->out_i64, j->out_f64[0],
                                   j->out_f64[1]);
      if (j->status != HEARTH_OK) j->message = copy_text(hearth_last_error(j->b->handle));
      break;
    case JOB_INGEST:
      j->status = hearth_ingest_batch(j->b->handle, &j->fixes, j->received_ms);
      if (j->status != HEARTH_OK) j->message = copy_text(hearth_last_error(j->b->handle));
      if (j->status == HEARTH_OK || j->status == HEARTH_ERROR_SCHEMA) {
        int64_t events = 0;
        hearth_ingest_count(j->b->handle, &events, &j->inserted, &j->duplicates);
        hearth_ingest_events_json(j->b->handle, &j->bytes);
      }
      break;
    case JOB_DETECT: run_detect(j); break;
  }
}

static napi_value ingest_result(napi_env env, hearth_bytes *events, int64_t inserted, int64_t duplicates);

static void job_complete(napi_env env, napi_status status, void *data) {
  job *j = data;
  if (j->b) box_done(j->b);
  napi_value outcome = NULL, refused = NULL;
  bool ok = status == napi_ok;
  if (ok && j->status == HEARTH_OK && !deliver_outputs(env, &j->held, &refused)) {
    /* a caller's output array was detached or shrunk meanwhile: rejected with `refused` */
  } else if (ok && j->status == HEARTH_OK) {
    if (j->kind == JOB_INGEST) {
      outcome = ingest_result(env, j->bytes, j->inserted, j->duplicates);
      j->bytes = NULL;
    } else if (j->kind == JOB_DETECT) {
      outcome = take_string(env, j->bytes);
      j->bytes = NULL;
    } else if (j->result) {
      napi_get_reference_value(env, j->result, &outcome);
    }
  }
  if (outcome != NULL) {
    napi_resolve_deferred(env, j->deferred, outcome);
  } else {
    napi_value error;
    if (refused) {
      error = refused;
    } else if (!ok) {
      napi_value message;
      napi_create_string_utf8(env, "the async call was cancelled", NAPI_AUTO_LENGTH, &message);
      napi_create_error(env, NULL, message, &error);
    } else {
      error = status_error(env, j->status, j->message);
      if (j->kind == JOB_INGEST && j->bytes) {
        napi_value events = ingest_result(env, j->bytes, j->inserted, j->duplicates);
        j->bytes = NULL;
        if (events) napi_set_named_property(env, error, "result", events);
      }
    }
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    napi_reject_deferred(env, j->deferred, error);
  }
  napi_delete_async_work(env, j->work);
  job_free(env, j);
}

/* An async call's job (on the heap, freed when it completes), or `local`
   zeroed for a synchronous one (no allocation on the per-call path). */
static job *new_job(napi_env env, job_kind kind, bool async, job *local) {
  job *j = async ? calloc(1, sizeof *j) : memset(local, 0, sizeof *local);
  if (!j) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  j->kind = kind;
  j->on_heap = async;
  return j;
}

/* Queues the job and returns its promise; frees it (with an exception) on failure. */
static napi_value start_job(napi_env env, job *j, napi_value self) {
  napi_value promise, name;
  if (self && napi_create_reference(env, self, 1, &j->self) != napi_ok) goto failed;
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok) goto failed;
  napi_create_string_utf8(env, "hearth", NAPI_AUTO_LENGTH, &name);
  if (napi_create_async_work(env, NULL, name, job_execute, job_complete, j, &j->work) != napi_ok) goto rejected;
  if (napi_queue_async_work(env, j->work) != napi_ok) {
    napi_delete_async_work(env, j->work);
    goto rejected;
  }
  if (j->b) j->b->pending++;
  return promise;
rejected: {
  napi_value error = status_error(env, HEARTH_ERROR_STATE, "the async call could not be queued");
  napi_reject_deferred(env, j->deferred, error);
  job_free(env, j);
  return promise;
}
failed:
  throw_napi_failure(env);
  job_free(env, j);
  return NULL;
}

/* Starts `j`, whose promise resolves to `result` (kept alive until then). */
static napi_value start_resolving(napi_env env, job *j, napi_value result, napi_value self) {
  if (napi_create_reference(env, result, 1, &j->result) != napi_ok) {
    job_free(env, j);
    throw_napi_failure(env);
    return NULL;
  }
  return start_job(env, j, self);
}

/* The synchronous and the async entry of a call written once as name##_common(env, info, async). */
#define SYNC_AND_ASYNC(name)                                                                        \
  static napi_value name(napi_env env, napi_callback_info info) { return name##_common(env, info, false); } \
  static napi_value name##_async(napi_env env, napi_callback_info info) { return name##_common(env, info, true); }

/* ------------------------------------------------------------------------ */
/* Great-circle distances                                                   */

static const char *const pair_names[4] = {"lat1_deg", "lon1_deg", "lat2_deg", "lon2_deg"};

/* distances(lat1_deg, lon1_deg, lat2_deg, lon2_deg, out_m?) → out_m; async when `async`. */
static napi_value distances_common(napi_env env, napi_callback_info info, bool async) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  job local, *j = new_job(env, JOB_DISTANCES, async, &local);
  if (!j) return NULL;
  size_t count = 0;
  for (int k = 0; k < 4; k++) {
    void *data = NULL;
    size_t length = 0;
    if (!read_column(env, c.args[k], pair_names[k], ELEMENT_F64, false, async, &j->held, &data, &length) ||
        (k > 0 && !same_length(env, pair_names[k], length, pair_names[0], count))) {
      job_free(env, j);
      return NULL;
    }
    count = k == 0 ? length : count;
    j->in[k] = data;
  }
  napi_value out;
  void *out_data = NULL;
  if (!output_column(env, c.args[4], "out_m", ELEMENT_F64, count, async, &j->held, &out, &out_data)) {
    job_free(env, j);
    return NULL;
  }
  j->count = (int64_t)count;
  j->out_f64[0] = out_data;
  if (async) {
    return start_resolving(env, j, out, NULL);
  }
  int32_t status = hearth_distances_m(j->count, j->in[0], j->in[1], j->in[2], j->in[3], j->out_f64[0]);
  job_free(env, j);
  if (status != HEARTH_OK) {
    throw_status(env, status, NULL);
    return NULL;
  }
  return out;
}

SYNC_AND_ASYNC(distances)

/* distancesFrom(origin_lat_deg, origin_lon_deg, lat_deg, lon_deg, out_m?) → out_m. */
static napi_value distances_from_common(napi_env env, napi_callback_info info, bool async) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  job local, *j = new_job(env, JOB_DISTANCES_FROM, async, &local);
  if (!j) return NULL;
  void *lat = NULL, *lon = NULL, *out_data = NULL;
  size_t count = 0, length = 0;
  napi_value out;
  if (!read_double(env, c.args[0], "origin_lat_deg", &j->origin_lat_deg) ||
      !read_double(env, c.args[1], "origin_lon_deg", &j->origin_lon_deg) ||
      !read_column(env, c.args[2], "lat_deg", ELEMENT_F64, false, async, &j->held, &lat, &count) ||
      !read_column(env, c.args[3], "lon_deg", ELEMENT_F64, false, async, &j->held, &lon, &length) ||
      !same_length(env, "lon_deg", length, "lat_deg", count) ||
      !output_column(env, c.args[4], "out_m", ELEMENT_F64, count, async, &j->held, &out, &out_data)) {
    job_free(env, j);
    return NULL;
  }
  j->count = (int64_t)count;
  j->in[0] = lat;
  j->in[1] = lon;
  j->out_f64[0] = out_data;
  if (async) {
    return start_resolving(env, j, out, NULL);
  }
  int32_t status = hearth_distances_from_m(j->origin_lat_deg, j->origin_lon_deg, j->count, lat, lon, out_data);
  job_free(env, j);
  if (status != HEARTH_OK) {
    throw_status(env, status, NULL);
    return NULL;
  }
  return out;
}

SYNC_AND_ASYNC(distances_from)

/* trackDistances(lat_deg, lon_deg) → {steps_m, cumulative_m}. */
static napi_value track_distances(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  holder h = {0};
  void *lat = NULL, *lon = NULL, *steps = NULL, *cumulative = NULL;
  size_t count = 0, length = 0;
  napi_value steps_value, cumulative_value, result;
  bool ok = read_column(env, c.args[0], "lat_deg", ELEMENT_F64, false, false, &h, &lat, &count) &&
            read_column(env, c.args[1], "lon_deg", ELEMENT_F64, false, false, &h, &lon, &length) &&
            same_length(env, "lon_deg", length, "lat_deg", count) &&
            new_typed(env, ELEMENT_F64, count, &steps_value, &steps) &&
            new_typed(env, ELEMENT_F64, count, &cumulative_value, &cumulative);
  holder_free(env, &h);
  if (!ok) return NULL;
  int32_t status = hearth_track_distances_m((int64_t)count, lat, lon, steps, cumulative);
  if (status != HEARTH_OK) {
    throw_status(env, status, NULL);
    return NULL;
  }
  CHECK(env, napi_create_object(env, &result));
  napi_set_named_property(env, result, "steps_m", steps_value);
  napi_set_named_property(env, result, "cumulative_m", cumulative_value);
  return result;
}

/* ------------------------------------------------------------------------ */
/* Grid and the privacy projection                                          */

/* new Grid(cell_size_m) */
static napi_value grid_new(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  double cell_size_m = 0;
  if (!read_double(env, c.args[0], "cell_size_m", &cell_size_m)) return NULL;
  hearth_grid *grid = NULL;
  int32_t status = hearth_grid_create(cell_size_m, &grid);
  if (status != HEARTH_OK) {
    throw_status(env, status, grid);
    hearth_release(grid);
    return NULL;
  }
  return wrap_handle(env, c.self, grid) ? c.self : NULL;
}

/* The bytes of a typed array the caller gave (none for anything else: the
   addon converts it into memory of its own), for the library's rule that
   outputs may not overlap inputs or each other. An async call copies every
   array, so the library cannot see an overlap there; the door checks it for
   both forms, so they refuse alike and name the columns. */
typedef struct span {
  const char *name;
  uintptr_t start, end;
} span;

static span typed_span(napi_env env, napi_value value, const char *name) {
  span out = {name, 0, 0};
  bool typed = false;
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (value == NULL || napi_is_typedarray(env, value, &typed) != napi_ok || !typed ||
      napi_get_typedarray_info(env, value, &type, &length, &data, NULL, NULL) != napi_ok || data == NULL) {
    return out;
  }
  size_t size = 8;
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array: size = 1; break;
    case napi_int16_array:
    case napi_uint16_array: size = 2; break;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: size = 4; break;
    default: size = 8; break;
  }
  out.start = (uintptr_t)data;
  out.end = out.start + length * size;
  return out;
}

static bool spans_overlap(span a, span b) {
  return a.start < a.end && b.start < b.end && a.start < b.end && b.start < a.end;
}

/* HEARTH_ERROR_ARGUMENT naming the first output that overlaps an input or an
   earlier output, as the library words it; true when all lie apart. */
static bool outputs_apart(napi_env env, const span *outputs, size_t n_out, const span *inputs, size_t n_in) {
  for (size_t k = 0; k < n_out; k++) {
    const span *other = NULL;
    for (size_t i = 0; i < n_in && !other; i++)
      if (spans_overlap(outputs[k], inputs[i])) other = &inputs[i];
    for (size_t i = 0; i < k && !other; i++)
      if (spans_overlap(outputs[k], outputs[i])) other = &outputs[i];
    if (other) {
      char text[256];
      snprintf(text, sizeof text, "%s overlaps %s: outputs may not overlap inputs or each other", outputs[k].name,
               other->name);
      napi_throw(env, status_error(env, HEARTH_ERROR_ARGUMENT, text));
      return false;
    }
  }
  return true;
}

/* grid.snap(lat_deg, lon_deg, out?) → {cell_id, centre_lat_deg, centre_lon_deg} */
static napi_value grid_snap_common(napi_env env, napi_callback_info info, bool async) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  void *lat = NULL, *lon = NULL, *ids = NULL, *centre_lat = NULL, *centre_lon = NULL;
  size_t count = 0, length = 0;
  napi_value ids_value, lat_value, lon_value, result, given = c.args[2];
  napi_value given_ids = NULL, given_lat = NULL, given_lon = NULL;
  /* The output object's getters (the caller's JavaScript) run first, before
     any array's pointer is taken and before the grid is checked. */
  if (!is_nullish(env, given)) {
    if (napi_get_named_property(env, given, "cell_id", &given_ids) != napi_ok ||
        napi_get_named_property(env, given, "centre_lat_deg", &given_lat) != napi_ok ||
        napi_get_named_property(env, given, "centre_lon_deg", &given_lon) != napi_ok) {
      throw_napi_failure(env);
      return NULL;
    }
  } else {
    given_ids = given_lat = given_lon = given;
  }
  const span inputs[] = {typed_span(env, c.args[0], "lat_deg"), typed_span(env, c.args[1], "lon_deg")};
  const span outputs[] = {typed_span(env, given_ids, "cell_id"), typed_span(env, given_lat, "centre_lat_deg"),
                          typed_span(env, given_lon, "centre_lon_deg")};
  if (!outputs_apart(env, outputs, COUNT_OF(outputs), inputs, COUNT_OF(inputs))) return NULL;
  /* A grid is immutable: any number of snaps may run on it at once. */
  box *b = open_box(env, c.self, "Grid", true);
  if (!b) return NULL;
  job local, *j = new_job(env, JOB_SNAP, async, &local);
  if (!j) return NULL;
  if (!read_column(env, c.args[0], "lat_deg", ELEMENT_F64, false, async, &j->held, &lat, &count) ||
      !read_column(env, c.args[1], "lon_deg", ELEMENT_F64, false, async, &j->held, &lon, &length) ||
      !same_length(env, "lon_deg", length, "lat_deg", count) ||
      !output_column(env, given_ids, "cell_id", ELEMENT_I64, count, async, &j->held, &ids_value, &ids) ||
      !output_column(env, given_lat, "centre_lat_deg", ELEMENT_F64, count, async, &j->held, &lat_value,
                     &centre_lat) ||
      !output_column(env, given_lon, "centre_lon_deg", ELEMENT_F64, count, async, &j->held, &lon_value,
                     &centre_lon) ||
      napi_create_object(env, &result) != napi_ok) {
    job_free(env, j);
    return NULL;
  }
  napi_set_named_property(env, result, "cell_id", ids_value);
  napi_set_named_property(env, result, "centre_lat_deg", lat_value);
  napi_set_named_property(env, result, "centre_lon_deg", lon_value);
  j->b = b;
  j->count = (int64_t)count;
  j->in[0] = lat;
  j->in[1] = lon;
  j->out_i64 = ids;
  j->out_f64[0] = centre_lat;
  j->out_f64[1] = centre_lon;
  if (async) {
    return start_resolving(env, j, result, c.self);
  }
  int32_t status = hearth_grid_snap(b->handle, j->count, lat, lon, ids, centre_lat, centre_lon);
  job_free(env, j);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    return NULL;
  }
  return result;
}

SYNC_AND_ASYNC(grid_snap)

/* grid.project(fixes, min_accuracy_m, slot_ms) → {cell_id, centre_lat_deg, centre_lon_deg, accuracy_m, slot_start_ms} */
static napi_value grid_project(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Grid", true);
  if (!b) return NULL;
  holder h = {0};
  hearth_fixes fixes;
  double min_accuracy_m = 0;
  int64_t slot_ms = 0;
  if (!read_fixes(env, c.args[0], false, &h, &fixes) ||
      !read_double(env, c.args[1], "min_accuracy_m", &min_accuracy_m) ||
      !read_int64(env, c.args[2], "slot_ms", &slot_ms)) {
    holder_free(env, &h);
    return NULL;
  }
  size_t count = (size_t)fixes.count;
  napi_value ids_value, lat_value, lon_value, accuracy_value, slot_value, result;
  void *ids = NULL, *lat = NULL, *lon = NULL, *accuracy = NULL, *slot = NULL;
  if (!new_typed(env, ELEMENT_I64, count, &ids_value, &ids) ||
      !new_typed(env, ELEMENT_F64, count, &lat_value, &lat) ||
      !new_typed(env, ELEMENT_F64, count, &lon_value, &lon) ||
      !new_typed(env, ELEMENT_F64, count, &accuracy_value, &accuracy) ||
      !new_typed(env, ELEMENT_I64, count, &slot_value, &slot) ||
      /* The columns' pointers last; a getter may also have closed the grid. */
      !(b = open_box(env, c.self, "Grid", true)) || !take_late_columns(env, &h)) {
    holder_free(env, &h);
    return NULL;
  }
  /* The library refuses a missing column without a reason it can keep (a
     grid holds no message): named here. */
  const struct {
    const void *data;
    const char *name;
  } needed[] = {{fixes.time_ms, "fixes.time_ms"},
                {fixes.latitude_deg, "fixes.latitude_deg"},
                {fixes.longitude_deg, "fixes.longitude_deg"},
                {fixes.horizontal_accuracy_m, "fixes.horizontal_accuracy_m"}};
  for (size_t k = 0; k < COUNT_OF(needed) && count > 0; k++) {
    if (needed[k].data == NULL) {
      char text[160];
      snprintf(text, sizeof text, "%s is missing with %zu fixes (project needs time, position and accuracy)",
               needed[k].name, count);
      holder_free(env, &h);
      napi_throw(env, status_error(env, HEARTH_ERROR_ARGUMENT, text));
      return NULL;
    }
  }
  int32_t status =
      hearth_privacy_project(b->handle, min_accuracy_m, slot_ms, fixes.count, fixes.time_ms, fixes.latitude_deg,
                             fixes.longitude_deg, fixes.horizontal_accuracy_m, ids, lat, lon, accuracy, slot);
  holder_free(env, &h);
  if (status == HEARTH_ERROR_ARGUMENT) {
    hearth_bytes *why = NULL;
    int32_t checked = hearth_privacy_check_settings(min_accuracy_m, slot_ms, &why);
    throw_checked(env, checked, why);
    return NULL;
  } else if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    return NULL;
  }
  CHECK(env, napi_create_object(env, &result));
  napi_set_named_property(env, result, "cell_id", ids_value);
  napi_set_named_property(env, result, "centre_lat_deg", lat_value);
  napi_set_named_property(env, result, "centre_lon_deg", lon_value);
  napi_set_named_property(env, result, "accuracy_m", accuracy_value);
  napi_set_named_property(env, result, "slot_start_ms", slot_value);
  return result;
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

/* validate(fixes, now_ms, max_future_ms, max_age_ms) → verdict names; a schema
   error throws with err.schema = {index, field, reason, value}. */
static napi_value validate(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  holder h = {0};
  hearth_fixes fixes;
  int64_t now_ms = 0, max_future_ms = 0, max_age_ms = 0;
  if (!read_fixes(env, c.args[0], false, &h, &fixes) || !read_int64(env, c.args[1], "now_ms", &now_ms) ||
      !read_int64(env, c.args[2], "max_future_ms", &max_future_ms) ||
      !read_int64(env, c.args[3], "max_age_ms", &max_age_ms)) {
    holder_free(env, &h);
    return NULL;
  }
  int32_t *verdict = malloc(((size_t)fixes.count + 1) * sizeof *verdict);
  if (!verdict) {
    holder_free(env, &h);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  if (!take_late_columns(env, &h)) { /* the columns' pointers, last */
    free(verdict);
    holder_free(env, &h);
    return NULL;
  }
  hearth_schema_error schema;
  memset(&schema, 0, sizeof schema);
  int32_t status = hearth_validate(&fixes, now_ms, max_future_ms, max_age_ms, verdict, &schema);
  /* Its reason, asked while the columns are still held. */
  hearth_bytes *why = NULL;
  int32_t checked =
      status == HEARTH_ERROR_ARGUMENT ? hearth_validate_check_arguments(&fixes, max_future_ms, max_age_ms, &why) : HEARTH_OK;
  holder_free(env, &h);
  napi_value result = NULL;
  if (status == HEARTH_ERROR_SCHEMA) {
    const char *field = name_of(fix_fields, COUNT_OF(fix_fields), schema.field);
    const char *reason = name_of(schema_reasons, COUNT_OF(schema_reasons), schema.reason);
    char text[256];
    snprintf(text, sizeof text, "fix %lld: %s %.17g is %s; batch refused", (long long)schema.index,
             field ? field : "?", schema.value, reason ? reason : "?");
    napi_value error = status_error(env, status, text), detail;
    napi_create_object(env, &detail);
    set_number(env, detail, "index", (double)schema.index);
    set_string(env, detail, "field", field ? field : "?");
    set_string(env, detail, "reason", reason ? reason : "?");
    set_number(env, detail, "value", schema.value);
    napi_set_named_property(env, error, "schema", detail);
    napi_throw(env, error);
  } else if (status == HEARTH_ERROR_ARGUMENT) {
    throw_checked(env, checked, why);
  } else if (status != HEARTH_OK) {
    throw_status(env, status, NULL);
  } else if (napi_create_array_with_length(env, (size_t)fixes.count, &result) == napi_ok) {
    for (int64_t i = 0; i < fixes.count; i++) {
      const char *name = name_of(fix_verdicts, COUNT_OF(fix_verdicts), verdict[i]);
      napi_value item;
      if (name) napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &item);
      else napi_create_int32(env, verdict[i], &item);
      napi_set_element(env, result, (uint32_t)i, item);
    }
  } else {
    throw_napi_failure(env);
  }
  free(verdict);
  return result;
}

/* ------------------------------------------------------------------------ */
/* The ingest pipeline                                                      */

/* {events: the JSON Lines text (index.js parses it), inserted, duplicates} */
static napi_value ingest_result(napi_env env, hearth_bytes *events, int64_t inserted, int64_t duplicates) {
  napi_value result, text;
  if (napi_create_object(env, &result) != napi_ok) {
    hearth_release(events);
    return NULL;
  }
  text = take_string(env, events);
  if (!text) return NULL;
  napi_set_named_property(env, result, "events", text);
  set_number(env, result, "inserted", (double)inserted);
  set_number(env, result, "duplicates", (double)duplicates);
  return result;
}

static napi_value ingest_output(napi_env env, box *b) {
  int64_t events = 0, inserted = 0, duplicates = 0;
  hearth_bytes *json = NULL;
  int32_t status = hearth_ingest_count(b->handle, &events, &inserted, &duplicates);
  if (status == HEARTH_OK) status = hearth_ingest_events_json(b->handle, &json);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    hearth_release(json);
    return NULL;
  }
  return ingest_result(env, json, inserted, duplicates);
}

/* new Ingest(description_json) */
static napi_value ingest_new(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  char *description = read_string(env, c.args[0], "description");
  if (!description) return NULL;
  hearth_ingest *ingest = NULL;
  int32_t status = hearth_ingest_create(description, &ingest);
  free(description);
  if (status != HEARTH_OK) {
    throw_status(env, status, ingest);
    hearth_release(ingest);
    return NULL;
  }
  return wrap_handle(env, c.self, ingest) ? c.self : NULL;
}

/* ingest.batch(fixes, received_ms) → {events, inserted, duplicates}; a refused
   batch throws with err.result = the same (its schemaError line). */
static napi_value ingest_batch_common(napi_env env, napi_callback_info info, bool async) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Ingest", false);
  if (!b) return NULL;
  job local, *j = new_job(env, JOB_INGEST, async, &local);
  if (!j) return NULL;
  if (!read_fixes(env, c.args[0], async, &j->held, &j->fixes) ||
      !read_int64(env, c.args[1], "received_ms", &j->received_ms)) {
    job_free(env, j);
    return NULL;
  }
  /* Checked again once every getter has run (one may have closed the
     pipeline or started an async call on it); then, for a synchronous call,
     the columns' pointers, last. */
  if (!(b = open_box(env, c.self, "Ingest", false)) || (!async && !take_late_columns(env, &j->held))) {
    job_free(env, j);
    return NULL;
  }
  j->b = b;
  if (async) return start_job(env, j, c.self);
  int32_t status = hearth_ingest_batch(b->handle, &j->fixes, j->received_ms);
  job_free(env, j);
  if (status == HEARTH_OK) return ingest_output(env, b);
  napi_value error = status_error(env, status, hearth_last_error(b->handle));
  if (status == HEARTH_ERROR_SCHEMA) {
    napi_value output = ingest_output(env, b);
    if (!output) return NULL;
    napi_set_named_property(env, error, "result", output);
  }
  napi_throw(env, error);
  return NULL;
}

SYNC_AND_ASYNC(ingest_batch)

static napi_value ingest_tick(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Ingest", false);
  int64_t now_ms = 0;
  if (!b || !read_int64(env, c.args[0], "now_ms", &now_ms)) return NULL;
  int32_t status = hearth_ingest_tick(b->handle, now_ms);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    return NULL;
  }
  return ingest_output(env, b);
}

static napi_value ingest_save(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Ingest", false);
  if (!b) return NULL;
  hearth_bytes *bytes = NULL;
  int32_t status = hearth_ingest_save(b->handle, &bytes);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    hearth_release(bytes);
    return NULL;
  }
  return take_bytes(env, bytes);
}

/* Bytes from a Buffer, a Uint8Array or an ArrayBuffer, read in place. */
static bool read_bytes(napi_env env, napi_value value, const char *name, const uint8_t **data, size_t *size) {
  bool is = false;
  void *raw = NULL;
  napi_is_arraybuffer(env, value, &is);
  if (is) {
    if (napi_get_arraybuffer_info(env, value, &raw, size) != napi_ok) return false;
    *data = raw;
    return true;
  }
  holder h = {0};
  if (!read_column(env, value, name, ELEMENT_U8, false, false, &h, &raw, size)) return false;
  *data = raw;
  return true;
}

static napi_value ingest_restore(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Ingest", false);
  const uint8_t *state = NULL;
  size_t size = 0;
  if (!b || !read_bytes(env, c.args[0], "state", &state, &size)) return NULL;
  int32_t status = hearth_ingest_restore(b->handle, state, (int64_t)size);
  if (status != HEARTH_OK) throw_status(env, status, b->handle);
  return NULL;
}

static napi_value ingest_reconfigure(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Ingest", false);
  if (!b) return NULL;
  char *description = read_string(env, c.args[0], "description");
  if (!description) return NULL;
  int64_t dropped = 0;
  int32_t status = hearth_ingest_reconfigure(b->handle, description, &dropped);
  free(description);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    return NULL;
  }
  napi_value out;
  CHECK(env, napi_create_double(env, (double)dropped, &out));
  return out;
}

/* ------------------------------------------------------------------------ */
/* The incident lifecycle                                                   */

/* new Incident(verdict_ms, account) or, with a single Uint8Array, restored from saved bytes. */
static napi_value incident_new(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  hearth_incident *incident = NULL;
  int32_t status;
  bool typed = false;
  napi_is_typedarray(env, c.args[0], &typed);
  if (typed) {
    const uint8_t *state = NULL;
    size_t size = 0;
    if (!read_bytes(env, c.args[0], "state", &state, &size)) return NULL;
    status = hearth_incident_restore(state, (int64_t)size, &incident);
  } else {
    int64_t verdict_ms = 0;
    if (!read_int64(env, c.args[0], "verdict_ms", &verdict_ms)) return NULL;
    char *account = read_string(env, c.args[1], "account");
    if (!account) return NULL;
    status = hearth_incident_create(verdict_ms, account, &incident);
    free(account);
  }
  if (status != HEARTH_OK) {
    throw_status(env, status, incident);
    hearth_release(incident);
    return NULL;
  }
  return wrap_handle(env, c.self, incident) ? c.self : NULL;
}

/* incident.check(now_ms, input, http_status, tokens_held, account|null) → {action, end, time_ms} */
static napi_value incident_check(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Incident", false);
  int64_t now_ms = 0;
  int32_t input = 0, http_status = 0, tokens_held = 0;
  if (!b || !read_int64(env, c.args[0], "now_ms", &now_ms) ||
      !read_named(env, c.args[1], "input", incident_inputs, COUNT_OF(incident_inputs), &input) ||
      !read_int32(env, c.args[2], "http_status", &http_status) ||
      !read_int32(env, c.args[3], "tokens_held", &tokens_held)) {
    return NULL;
  }
  char *account = NULL;
  if (!is_nullish(env, c.args[4])) {
    account = read_string(env, c.args[4], "account");
    if (!account) return NULL;
  }
  hearth_incident_action action;
  memset(&action, 0, sizeof action);
  int32_t status = hearth_incident_check(b->handle, now_ms, input, http_status, tokens_held, account, &action);
  free(account);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    return NULL;
  }
  napi_value result, value;
  CHECK(env, napi_create_object(env, &result));
  const char *kind = name_of(incident_actions, COUNT_OF(incident_actions), action.action);
  if (kind) set_string(env, result, "action", kind);
  else set_number(env, result, "action", action.action);
  if (action.action == HEARTH_ACTION_FINISHED) {
    const char *end = name_of(incident_ends, COUNT_OF(incident_ends), action.end);
    if (end) set_string(env, result, "end", end);
    else set_number(env, result, "end", action.end);
  } else {
    napi_get_null(env, &value);
    napi_set_named_property(env, result, "end", value);
  }
  set_number(env, result, "time_ms", (double)action.time_ms);
  return result;
}

static napi_value incident_save(napi_env env, napi_callback_info info) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  box *b = open_box(env, c.self, "Incident", false);
  if (!b) return NULL;
  hearth_bytes *bytes = NULL;
  int32_t status = hearth_incident_save(b->handle, &bytes);
  if (status != HEARTH_OK) {
    throw_status(env, status, b->handle);
    hearth_release(bytes);
    return NULL;
  }
  return take_bytes(env, bytes);
}

/* ------------------------------------------------------------------------ */
/* A recording through the detector (`hearth impact detect`)                */

/* detect(path, mapping_path|null, configuration_json|null, gate, format, file_name) → report text */
static napi_value detect_common(napi_env env, napi_callback_info info, bool async) {
  call c;
  if (!read_call(env, info, &c)) return NULL;
  job local, *j = new_job(env, JOB_DETECT, async, &local);
  if (!j) return NULL;
  j->path = read_string(env, c.args[0], "path");
  bool ok = j->path != NULL;
  if (ok && !is_nullish(env, c.args[1])) ok = (j->mapping = read_string(env, c.args[1], "mapping")) != NULL;
  if (ok && !is_nullish(env, c.args[2])) {
    ok = (j->configuration = read_string(env, c.args[2], "configuration")) != NULL;
  }
  ok = ok && read_named(env, c.args[3], "gate", gates, COUNT_OF(gates), &j->gate) &&
       read_named(env, c.args[4], "format", formats, COUNT_OF(formats), &j->format) &&
       (j->file_name = read_string(env, c.args[5], "file_name")) != NULL;
  if (!ok) {
    job_free(env, j);
    return NULL;
  }
  if (async) return start_job(env, j, NULL);
  run_detect(j);
  napi_value out = NULL;
  if (j->status == HEARTH_OK) {
    out = take_string(env, j->bytes);
    j->bytes = NULL;
  } else {
    napi_throw(env, status_error(env, j->status, j->message));
  }
  job_free(env, j);
  return out;
}

SYNC_AND_ASYNC(detect)

/* ------------------------------------------------------------------------ */
/* The module                                                               */

static napi_value abi_version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(env, napi_create_uint32(env, hearth_abi_version(), &out));
  return out;
}

/* The names of the fix columns, in the reader's order: index.js copies
   exactly these (and any other key, for the reader to refuse) when an async
   ingest is queued, so the list lives in one place. */
static napi_value fix_column_names(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(env, napi_create_array_with_length(env, COUNT_OF(fix_columns), &out));
  for (size_t c = 0; c < COUNT_OF(fix_columns); c++) {
    napi_value name;
    CHECK(env, napi_create_string_utf8(env, fix_columns[c].name, NAPI_AUTO_LENGTH, &name));
    CHECK(env, napi_set_element(env, out, (uint32_t)c, name));
  }
  return out;
}

static bool define_class(napi_env env, napi_value exports, const char *name, napi_callback constructor,
                         const napi_property_descriptor *methods, size_t count) {
  napi_value cls;
  return napi_define_class(env, name, NAPI_AUTO_LENGTH, constructor, NULL, count, methods, &cls) == napi_ok &&
         napi_set_named_property(env, exports, name, cls) == napi_ok;
}

#define METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_default_method, NULL}

static napi_value init(napi_env env, napi_value exports) {
  /* The same major, and a minor at least the header's: an older minor lacks
     functions this module calls, and the first call of one would end the
     process ("symbol lookup error"). */
  uint32_t loaded = hearth_abi_version();
  uint32_t minor = (loaded >> 8) & 0xFF;
  if ((loaded >> 16) != HEARTH_ABI_VERSION_MAJOR || minor < HEARTH_ABI_VERSION_MINOR) {
    char text[192];
    if ((loaded >> 16) != HEARTH_ABI_VERSION_MAJOR)
      snprintf(text, sizeof text, "libhearth ABI %#x, built against %#x: not major version %d", loaded,
               HEARTH_ABI_VERSION, HEARTH_ABI_VERSION_MAJOR);
    else
      snprintf(text, sizeof text,
               "libhearth ABI %#x, built against %#x: minor version %u is older than %d (install the "
               "libhearth this module came with)",
               loaded, HEARTH_ABI_VERSION, minor, HEARTH_ABI_VERSION_MINOR);
    napi_throw_error(env, "HEARTH_ABI", text);
    return NULL;
  }
  napi_property_descriptor functions[] = {
      METHOD("abiVersion", abi_version),
      METHOD("fixColumnNames", fix_column_names),
      METHOD("distances", distances),
      METHOD("distancesAsync", distances_async),
      METHOD("distancesFrom", distances_from),
      METHOD("distancesFromAsync", distances_from_async),
      METHOD("trackDistances", track_distances),
      METHOD("validate", validate),
      METHOD("detect", detect),
      METHOD("detectAsync", detect_async),
  };
  CHECK(env, napi_define_properties(env, exports, COUNT_OF(functions), functions));
  napi_property_descriptor grid[] = {
      METHOD("snap", grid_snap),
      METHOD("snapAsync", grid_snap_async),
      METHOD("project", grid_project),
      METHOD("close", close_handle),
  };
  napi_property_descriptor ingest[] = {
      METHOD("batch", ingest_batch),
      METHOD("batchAsync", ingest_batch_async),
      METHOD("tick", ingest_tick),
      METHOD("save", ingest_save),
      METHOD("restore", ingest_restore),
      METHOD("reconfigure", ingest_reconfigure),
      METHOD("close", close_handle),
  };
  napi_property_descriptor incident[] = {
      METHOD("check", incident_check),
      METHOD("save", incident_save),
      METHOD("close", close_handle),
  };
  if (!define_class(env, exports, "Grid", grid_new, grid, COUNT_OF(grid)) ||
      !define_class(env, exports, "Ingest", ingest_new, ingest, COUNT_OF(ingest)) ||
      !define_class(env, exports, "Incident", incident_new, incident, COUNT_OF(incident))) {
    throw_napi_failure(env);
    return NULL;
  }
  return exports;
}

NAPI_MODULE(hearth, init)
