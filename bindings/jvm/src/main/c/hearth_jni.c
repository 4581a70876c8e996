/*
 * hearth_jni.c — JNI over libhearth (include/hearth.h) for the Java API in
 * bindings/jvm/src/main/java/hearth (the native methods of hearth.Native).
 *
 * A door: it moves Java arrays to the header's arrays and back and forwards
 * the call; every check on the data is the library's, and this side checks
 * only that each array holds the count the call is given. A failed status
 * becomes a hearth.HearthException built by Java from the status and the
 * library's message (UTF-8 bytes: JNI's own strings are modified UTF-8).
 *
 * Portable to Android as it is: C11, JNI and libc's malloc/free/memcpy only
 * (no stdio, no dlopen, no environment, no threads of its own), so the NDK
 * compiles this file unchanged for every ABI (docs/guides/jvm.md).
 *
 * Arrays: primitive arrays are read in place with GetPrimitiveArrayCritical
 * (no copy on HotSpot or ART for arrays of this size; the VM may pause its
 * collector for the duration of the call, which is the library's O(n)).
 * Handles are jlong values owned by the Java object that created them and
 * released by its close(); Java owns nothing this side frees, and the reverse.
 */
#include <jni.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hearth.h"
#include "hearth_Native.h"

/* ------------------------------------------------------------------------ */
/* Exceptions                                                               */

/* Throws HearthException.fromNative(status, message bytes). */
static void throw_message(JNIEnv *env, int32_t status, const char *message) {
  if ((*env)->ExceptionCheck(env)) return;
  jclass cls = (*env)->FindClass(env, "hearth/HearthException");
  if (!cls) return;
  jmethodID factory = (*env)->GetStaticMethodID(env, cls, "fromNative", "(I[B)Lhearth/HearthException;");
  if (!factory) return;
  jsize length = message ? (jsize)strlen(message) : 0;
  jbyteArray bytes = (*env)->NewByteArray(env, length);
  if (!bytes) return;
  if (length > 0) (*env)->SetByteArrayRegion(env, bytes, 0, length, (const jbyte *)message);
  jobject error = (*env)->CallStaticObjectMethod(env, cls, factory, (jint)status, bytes);
  if (error && !(*env)->ExceptionCheck(env)) (*env)->Throw(env, (jthrowable)error);
}

static void throw_status(JNIEnv *env, int32_t status, const void *handle) {
  throw_message(env, status, hearth_last_error(handle));
}

static void throw_out_of_memory(JNIEnv *env) {
  jclass cls = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
  if (cls) (*env)->ThrowNew(env, cls, "hearth: out of memory");
}

/* ------------------------------------------------------------------------ */
/* Arrays                                                                   */

/* Up to 16 primitive arrays pinned for one call. */
#define MAX_PINNED 16
typedef struct pinned {
  jarray arrays[MAX_PINNED];
  void *data[MAX_PINNED];
  jint modes[MAX_PINNED];
  int count;
  /* Why an array was not pinned (NULL: every one was); the call is then not made. */
  const char *failed;
} pinned;

/* Refuses the call unless `array` (if any) holds `length` elements: the
   count the library will read or write. The Java classes check that a
   call's columns have one length; this side checks again, so that no caller
   of hearth.Native can make the library read or write past an array. Every
   array is checked before the first is pinned (no JNI call may come between
   GetPrimitiveArrayCritical and its release). */
static void expect_length(JNIEnv *env, pinned *p, jarray array, jsize length) {
  if (array != NULL && !p->failed && (*env)->GetArrayLength(env, array) != length) {
    p->failed = "the arrays of one call differ in length";
  }
}

/* A pointer to the elements of `array` (NULL for a null array); `written`:
   copied back on release (an output), else released without copying. */
static void *pin(JNIEnv *env, pinned *p, jarray array, int written) {
  if (array == NULL || p->failed) return NULL;
  if (p->count == MAX_PINNED) {
    p->failed = "more arrays than one call pins";
    return NULL;
  }
  void *data = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
  if (data == NULL) {
    p->failed = "the VM could not lend an array";
    return NULL;
  }
  p->arrays[p->count] = array;
  p->data[p->count] = data;
  p->modes[p->count] = written ? 0 : JNI_ABORT;
  p->count++;
  return data;
}

/* Releases what `pin` lent; then throws why an array was not pinned, or the
   library's failed status (the call's own message, `handle`'s last error). */
static void unpin(JNIEnv *env, pinned *p, int32_t status, const void *handle) {
  while (p->count > 0) {
    p->count--;
    (*env)->ReleasePrimitiveArrayCritical(env, p->arrays[p->count], p->data[p->count], p->modes[p->count]);
  }
  if (p->failed) {
    throw_message(env, HEARTH_ERROR_ARGUMENT, p->failed);
  } else if (status != HEARTH_OK) {
    throw_status(env, status, handle);
  }
}

static jsize length_of(JNIEnv *env, jarray array) { return array ? (*env)->GetArrayLength(env, array) : 0; }

/* A NUL-terminated copy of UTF-8 bytes (free it); NULL for a null array. The
   bytes are Text.utf8's: standard UTF-8 with no NUL inside (JNI's modified
   UTF-8, GetStringUTFChars, is not used: the library refuses it). */
static char *text_of(JNIEnv *env, jbyteArray bytes, int *failed) {
  if (bytes == NULL) return NULL;
  jsize length = (*env)->GetArrayLength(env, bytes);
  char *text = malloc((size_t)length + 1);
  if (!text) {
    throw_out_of_memory(env);
    *failed = 1;
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)text);
  text[length] = 0;
  return text;
}

/* Bytes the library produced, as a Java byte[]; the bytes are released. */
static jbyteArray bytes_of(JNIEnv *env, hearth_bytes *bytes) {
  int64_t size = hearth_bytes_size(bytes);
  if (size < 0) size = 0;
  jbyteArray out = (*env)->NewByteArray(env, (jsize)size);
  if (out && size > 0) (*env)->SetByteArrayRegion(env, out, 0, (jsize)size, (const jbyte *)hearth_bytes_data(bytes));
  hearth_release(bytes);
  return out;
}

/* A created handle, or 0 with the reason thrown (the handle is released). */
static jlong created(JNIEnv *env, int32_t status, void *handle) {
  if (status != HEARTH_OK) {
    throw_status(env, status, handle);
    hearth_release(handle);
    return 0;
  }
  return (jlong)(intptr_t)handle;
}

#define HANDLE(h) ((void *)(intptr_t)(h))

/* ------------------------------------------------------------------------ */
/* Library                                                                  */

JNIEXPORT jint JNICALL Java_hearth_Native_abiVersion(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)hearth_abi_version();
}

JNIEXPORT jint JNICALL Java_hearth_Native_abiCompiled(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return HEARTH_ABI_VERSION;
}

JNIEXPORT jbyteArray JNICALL Java_hearth_Native_statusName(JNIEnv *env, jclass cls, jint status) {
  (void)cls;
  const char *name = hearth_status_name(status);
  jsize length = (jsize)strlen(name);
  jbyteArray out = (*env)->NewByteArray(env, length);
  if (out) (*env)->SetByteArrayRegion(env, out, 0, length, (const jbyte *)name);
  return out;
}

JNIEXPORT void JNICALL Java_hearth_Native_release(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  hearth_release(HANDLE(handle));
}

/* ------------------------------------------------------------------------ */
/* Great-circle distances                                                   */

JNIEXPORT void JNICALL Java_hearth_Native_distances(JNIEnv *env, jclass cls, jdoubleArray lat1, jdoubleArray lon1,
                                                    jdoubleArray lat2, jdoubleArray lon2, jdoubleArray out) {
  (void)cls;
  jsize count = length_of(env, out);
  pinned p = {0};
  expect_length(env, &p, lat1, count);
  expect_length(env, &p, lon1, count);
  expect_length(env, &p, lat2, count);
  expect_length(env, &p, lon2, count);
  const double *a = pin(env, &p, lat1, 0), *b = pin(env, &p, lon1, 0), *c = pin(env, &p, lat2, 0),
               *d = pin(env, &p, lon2, 0);
  double *o = pin(env, &p, out, 1);
  int32_t status = p.failed ? HEARTH_ERROR_ARGUMENT : hearth_distances_m(count, a, b, c, d, o);
  unpin(env, &p, status, NULL);
}

JNIEXPORT void JNICALL Java_hearth_Native_distancesFrom(JNIEnv *env, jclass cls, jdouble origin_lat_deg,
                                                        jdouble origin_lon_deg, jdoubleArray lat, jdoubleArray lon,
                                                        jdoubleArray out) {
  (void)cls;
  jsize count = length_of(env, out);
  pinned p = {0};
  expect_length(env, &p, lat, count);
  expect_length(env, &p, lon, count);
  const double *a = pin(env, &p, lat, 0), *b = pin(env, &p, lon, 0);
  double *o = pin(env, &p, out, 1);
  int32_t status =
      p.failed ? HEARTH_ERROR_ARGUMENT : hearth_distances_from_m(origin_lat_deg, origin_lon_deg, count, a, b, o);
  unpin(env, &p, status, NULL);
}

/* ------------------------------------------------------------------------ */
/* Grid                                                                     */

JNIEXPORT jlong JNICALL Java_hearth_Native_gridCreate(JNIEnv *env, jclass cls, jdouble cell_size_m) {
  (void)cls;
  hearth_grid *grid = NULL;
  int32_t status = hearth_grid_create(cell_size_m, &grid);
  return created(env, status, grid);
}

JNIEXPORT void JNICALL Java_hearth_Native_gridSnap(JNIEnv *env, jclass cls, jlong grid, jdoubleArray lat,
                                                   jdoubleArray lon, jlongArray cell_id, jdoubleArray centre_lat,
                                                   jdoubleArray centre_lon) {
  (void)cls;
  jsize count = length_of(env, lat);
  pinned p = {0};
  expect_length(env, &p, lon, count);
  expect_length(env, &p, cell_id, count);
  expect_length(env, &p, centre_lat, count);
  expect_length(env, &p, centre_lon, count);
  const double *a = pin(env, &p, lat, 0), *b = pin(env, &p, lon, 0);
  int64_t *ids = pin(env, &p, cell_id, 1);
  double *clat = pin(env, &p, centre_lat, 1), *clon = pin(env, &p, centre_lon, 1);
  int32_t status = p.failed ? HEARTH_ERROR_ARGUMENT : hearth_grid_snap(HANDLE(grid), count, a, b, ids, clat, clon);
  unpin(env, &p, status, HANDLE(grid));
}

/* ------------------------------------------------------------------------ */
/* The detector                                                             */

JNIEXPORT jlong JNICALL Java_hearth_Native_detectorCreate(JNIEnv *env, jclass cls, jbyteArray configuration) {
  (void)cls;
  int failed = 0;
  char *json = text_of(env, configuration, &failed);
  if (failed) return 0;
  hearth_detector *detector = NULL;
  int32_t status = hearth_detector_create(json, &detector);
  free(json);
  return created(env, status, detector);
}

JNIEXPORT void JNICALL Java_hearth_Native_detectorFeed(JNIEnv *env, jclass cls, jlong detector, jdoubleArray acc_t,
                                                       jdoubleArray acc_x, jdoubleArray acc_y, jdoubleArray acc_z,
                                                       jdoubleArray gyr_t, jdoubleArray gyr_x, jdoubleArray gyr_y,
                                                       jdoubleArray gyr_z, jdoubleArray baro_t,
                                                       jdoubleArray baro_hpa, jdoubleArray fix_t,
                                                       jdoubleArray fix_speed, jdoubleArray fix_accuracy,
                                                       jboolean vehicle_gate, jdouble received_s) {
  (void)cls;
  hearth_sensor_batch batch;
  memset(&batch, 0, sizeof batch);
  batch.accelerometer_count = length_of(env, acc_t);
  batch.gyroscope_count = length_of(env, gyr_t);
  batch.barometer_count = length_of(env, baro_t);
  batch.fix_count = length_of(env, fix_t);
  batch.vehicle_gate = vehicle_gate ? 1 : 0;
  pinned p = {0};
  const jsize acc = (jsize)batch.accelerometer_count, gyr = (jsize)batch.gyroscope_count,
              baro = (jsize)batch.barometer_count, fixes = (jsize)batch.fix_count;
  expect_length(env, &p, acc_x, acc);
  expect_length(env, &p, acc_y, acc);
  expect_length(env, &p, acc_z, acc);
  expect_length(env, &p, gyr_x, gyr);
  expect_length(env, &p, gyr_y, gyr);
  expect_length(env, &p, gyr_z, gyr);
  expect_length(env, &p, baro_hpa, baro);
  expect_length(env, &p, fix_speed, fixes);
  expect_length(env, &p, fix_accuracy, fixes);
  batch.accelerometer_t_s = pin(env, &p, acc_t, 0);
  batch.accelerometer_x_mps2 = pin(env, &p, acc_x, 0);
  batch.accelerometer_y_mps2 = pin(env, &p, acc_y, 0);
  batch.accelerometer_z_mps2 = pin(env, &p, acc_z, 0);
  batch.gyroscope_t_s = pin(env, &p, gyr_t, 0);
  batch.gyroscope_x_radps = pin(env, &p, gyr_x, 0);
  batch.gyroscope_y_radps = pin(env, &p, gyr_y, 0);
  batch.gyroscope_z_radps = pin(env, &p, gyr_z, 0);
  batch.barometer_t_s = pin(env, &p, baro_t, 0);
  batch.barometer_hpa = pin(env, &p, baro_hpa, 0);
  batch.fix_t_s = pin(env, &p, fix_t, 0);
  batch.fix_speed_mps = pin(env, &p, fix_speed, 0);
  /* With an accuracy column the speeds are the platform's raw ones (ABI 1.4); without, as given.
     With a receipt time (not NaN) through hearth_detector_feed_received (ABI 1.7), which takes
     the same two forms (NULL: as given); without one, the older calls. */
  const double *accuracy = pin(env, &p, fix_accuracy, 0);
  int32_t status = p.failed ? HEARTH_ERROR_ARGUMENT
                   : !isnan(received_s)
                       ? hearth_detector_feed_received(HANDLE(detector), &batch, fix_accuracy ? accuracy : NULL,
                                                       received_s)
                   : fix_accuracy ? hearth_detector_feed_with_accuracy(HANDLE(detector), &batch, accuracy)
                                  : hearth_detector_feed(HANDLE(detector), &batch);
  unpin(env, &p, status, HANDLE(detector));
}

JNIEXPORT void JNICALL Java_hearth_Native_detectorFinish(JNIEnv *env, jclass cls, jlong detector) {
  (void)cls;
  int32_t status = hearth_detector_finish(HANDLE(detector));
  if (status != HEARTH_OK) throw_status(env, status, HANDLE(detector));
}

/* Verdicts from `from` on, 7 numbers each: outcome, used_gps, jolt_s, decided_s,
   jolt_g, first_condition, condition_count. */
JNIEXPORT jdoubleArray JNICALL Java_hearth_Native_detectorVerdicts(JNIEnv *env, jclass cls, jlong detector,
                                                                   jlong from) {
  (void)cls;
  int64_t verdicts = 0, conditions = 0;
  int32_t status = hearth_detector_count(HANDLE(detector), &verdicts, &conditions);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(detector));
    return NULL;
  }
  if (from < 0 || from > verdicts) from = verdicts;
  hearth_verdict *all = malloc(((size_t)verdicts + 1) * sizeof *all);
  if (!all) {
    throw_out_of_memory(env);
    return NULL;
  }
  status = hearth_detector_verdicts(HANDLE(detector), verdicts, all);
  if (status != HEARTH_OK) {
    free(all);
    throw_status(env, status, HANDLE(detector));
    return NULL;
  }
  jsize n = (jsize)(verdicts - from);
  jdoubleArray out = (*env)->NewDoubleArray(env, 7 * n);
  double *values = out ? malloc(((size_t)n * 7 + 1) * sizeof *values) : NULL;
  if (out && values) {
    for (jsize i = 0; i < n; i++) {
      const hearth_verdict *v = &all[from + i];
      double *row = values + 7 * i;
      row[0] = v->outcome;
      row[1] = v->used_gps;
      row[2] = v->jolt_s;
      row[3] = v->decided_s;
      row[4] = v->jolt_g;
      row[5] = (double)v->first_condition;
      row[6] = (double)v->condition_count;
    }
    (*env)->SetDoubleArrayRegion(env, out, 0, 7 * n, values);
  } else if (out) {
    throw_out_of_memory(env);
  }
  free(values);
  free(all);
  return out;
}

/* Every condition, 5 numbers each: verdict, condition, held, measured, threshold. */
JNIEXPORT jdoubleArray JNICALL Java_hearth_Native_detectorConditions(JNIEnv *env, jclass cls, jlong detector) {
  (void)cls;
  int64_t verdicts = 0, conditions = 0;
  int32_t status = hearth_detector_count(HANDLE(detector), &verdicts, &conditions);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(detector));
    return NULL;
  }
  hearth_condition *all = malloc(((size_t)conditions + 1) * sizeof *all);
  if (!all) {
    throw_out_of_memory(env);
    return NULL;
  }
  status = hearth_detector_conditions(HANDLE(detector), conditions, all);
  if (status != HEARTH_OK) {
    free(all);
    throw_status(env, status, HANDLE(detector));
    return NULL;
  }
  jdoubleArray out = (*env)->NewDoubleArray(env, (jsize)(5 * conditions));
  double *values = out ? malloc(((size_t)conditions * 5 + 1) * sizeof *values) : NULL;
  if (out && values) {
    for (int64_t i = 0; i < conditions; i++) {
      double *row = values + 5 * i;
      row[0] = (double)all[i].verdict;
      row[1] = all[i].condition;
      row[2] = all[i].held;
      row[3] = all[i].measured;
      row[4] = all[i].threshold;
    }
    (*env)->SetDoubleArrayRegion(env, out, 0, (jsize)(5 * conditions), values);
  } else if (out) {
    throw_out_of_memory(env);
  }
  free(values);
  free(all);
  return out;
}

/* {skipped samples, jolts seen with the gate off} */
JNIEXPORT jlongArray JNICALL Java_hearth_Native_detectorCounters(JNIEnv *env, jclass cls, jlong detector) {
  (void)cls;
  int64_t values[2] = {0, 0};
  int32_t status = hearth_detector_counters(HANDLE(detector), &values[0], &values[1]);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(detector));
    return NULL;
  }
  jlongArray out = (*env)->NewLongArray(env, 2);
  if (out) (*env)->SetLongArrayRegion(env, out, 0, 2, (const jlong *)values);
  return out;
}

JNIEXPORT jbyteArray JNICALL Java_hearth_Native_detectorReport(JNIEnv *env, jclass cls, jlong detector,
                                                               jbyteArray file_name, jint format) {
  (void)cls;
  int failed = 0;
  char *name = text_of(env, file_name, &failed);
  if (failed) return NULL;
  hearth_bytes *bytes = NULL;
  int32_t status = hearth_detector_report(HANDLE(detector), name, format, &bytes);
  free(name);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(detector));
    hearth_release(bytes);
    return NULL;
  }
  return bytes_of(env, bytes);
}

/* A condition's name and unit as the library spells them (UTF-8). */
JNIEXPORT jbyteArray JNICALL Java_hearth_Native_conditionText(JNIEnv *env, jclass cls, jint condition,
                                                              jboolean unit) {
  (void)cls;
  const char *text = unit ? hearth_condition_unit(condition) : hearth_condition_name(condition);
  jsize length = (jsize)strlen(text);
  jbyteArray out = (*env)->NewByteArray(env, length);
  if (out) (*env)->SetByteArrayRegion(env, out, 0, length, (const jbyte *)text);
  return out;
}

/* ------------------------------------------------------------------------ */
/* The incident lifecycle                                                   */

JNIEXPORT jlong JNICALL Java_hearth_Native_incidentCreate(JNIEnv *env, jclass cls, jlong verdict_ms,
                                                          jbyteArray account) {
  (void)cls;
  int failed = 0;
  char *text = text_of(env, account, &failed);
  if (failed) return 0;
  hearth_incident *incident = NULL;
  int32_t status = hearth_incident_create(verdict_ms, text, &incident);
  free(text);
  return created(env, status, incident);
}

JNIEXPORT jlong JNICALL Java_hearth_Native_incidentRestore(JNIEnv *env, jclass cls, jbyteArray state) {
  (void)cls;
  jsize size = length_of(env, state);
  pinned p = {0};
  const uint8_t *data = pin(env, &p, state, 0);
  if (p.failed) {
    unpin(env, &p, HEARTH_OK, NULL);
    return 0;
  }
  hearth_incident *incident = NULL;
  int32_t status = hearth_incident_restore(data, size, &incident);
  unpin(env, &p, HEARTH_OK, NULL);
  return created(env, status, incident);
}

/* {action, end, time_ms} */
JNIEXPORT jlongArray JNICALL Java_hearth_Native_incidentCheck(JNIEnv *env, jclass cls, jlong incident, jlong now_ms,
                                                              jint input, jint http_status, jint tokens_held,
                                                              jbyteArray account) {
  (void)cls;
  int failed = 0;
  char *text = text_of(env, account, &failed);
  if (failed) return NULL;
  hearth_incident_action action;
  memset(&action, 0, sizeof action);
  int32_t status = hearth_incident_check(HANDLE(incident), now_ms, input, http_status, tokens_held, text, &action);
  free(text);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(incident));
    return NULL;
  }
  jlong values[3] = {action.action, action.end, action.time_ms};
  jlongArray out = (*env)->NewLongArray(env, 3);
  if (out) (*env)->SetLongArrayRegion(env, out, 0, 3, values);
  return out;
}

JNIEXPORT jbyteArray JNICALL Java_hearth_Native_incidentSave(JNIEnv *env, jclass cls, jlong incident) {
  (void)cls;
  hearth_bytes *bytes = NULL;
  int32_t status = hearth_incident_save(HANDLE(incident), &bytes);
  if (status != HEARTH_OK) {
    throw_status(env, status, HANDLE(incident));
    hearth_release(bytes);
    return NULL;
  }
  return bytes_of(env, bytes);
}
