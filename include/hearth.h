/*
 * hearth.h — the C ABI of libhearth: Hearth's location and sensor maths for
 * servers (Node), trackers (Kotlin/JNI) and notebooks (Python via cffi).
 *
 * VERSIONING. hearth_abi_version() returns HEARTH_ABI_VERSION of the library
 * that was loaded: (major << 16) | (minor << 8) | patch. Semantic versioning
 * of this header: a new major breaks callers (a changed signature, struct
 * layout or constant); a new minor adds functions, constants or enum values,
 * and may refuse input an older library took where that input broke a rule
 * of the specification (1.5 rejects a fix's values out of range, which 1.4
 * stored); a patch changes no declaration. A caller checks
 * (hearth_abi_version() >> 16) == HEARTH_ABI_VERSION_MAJOR before anything else,
 * and a caller that links every function of this header (a binding) also that
 * the loaded minor is at least HEARTH_ABI_VERSION_MINOR: an older library
 * lacks the newer functions, and a lazily bound call of one ends the process
 * ("symbol lookup error") instead of failing.
 *
 * SHAPE. Structure of arrays in (`const double *` columns with an int64_t
 * count), caller-allocated arrays out. Every function that can fail returns an
 * int32_t status (HEARTH_OK = 0). Stateful things are opaque handles with
 * create / feed / finish / release; a create function always stores a handle
 * in *out (unless out is NULL) even when it fails, so the reason can be read
 * with hearth_last_error(handle); release it with hearth_release. No Swift
 * error or type crosses this boundary, and the library keeps no global state.
 *
 * UNITS are in every parameter name: _deg degrees, _m metres, _ms milliseconds
 * since the Unix epoch (UTC) unless said otherwise, _s seconds on a
 * recording's own clock, _mps m/s, _mps2 m/s², _radps rad/s, _hpa hPa, _g
 * multiples of standard gravity (9.80665 m/s²). Missing readings are NaN.
 *
 * THREADS. Functions without a handle are thread-safe. A handle may be used
 * from any thread but from one thread at a time: using one handle from two
 * threads at once is a misuse with undefined results. The exceptions (a
 * grid, bytes, a trace being fed, a sweep's tasks) and each handle's
 * ownership and lifetime are stated at its type under HANDLES below.
 *
 * LIBRARIES. libhearth.so provides every function here except the threshold
 * sweep (hearth_sweep_*): the engines and the runtime a server or a tracker
 * links, with no simulator and no BLAS/LAPACK. libhearth_lab.so, built beside
 * it, provides every function here, the sweep included (it carries the
 * scenario catalogue, the drive generator and the logistic model over
 * OpenBLAS/LAPACKE). Each is self-contained with its own handles: a handle is
 * used with the library that made it (a sweep takes traces made by
 * libhearth_lab.so). A process may load both.
 *
 * LOADING. The library starts worker threads of the Swift runtime that live
 * until the process exits, so it is linked to stay mapped (-z nodelete):
 * dlclose() leaves it loaded. Load it once per process.
 *
 * ARRAYS. A NULL array with a count of 0 is fine; a NULL array with a count
 * above 0, or a negative count, is HEARTH_ERROR_ARGUMENT. Arrays are read
 * during the call only and never kept. Output arrays must hold `count`
 * elements (or the capacity passed). hearth_distances_m and
 * hearth_distances_from_m take an output that overlaps an input (in place,
 * or shifted): they write through a buffer of their own then, so the rows
 * are right. Elsewhere outputs may not overlap inputs or each other:
 * hearth_track_distances_m, hearth_grid_snap and hearth_privacy_project
 * refuse an overlap with HEARTH_ERROR_ARGUMENT and write nothing.
 *
 * STRINGS. Every `const char *` parameter (an account, a name, a path, JSON)
 * is UTF-8 ending at its first NUL, read during the call only; so a string
 * cannot hold a NUL, and a binding whose strings can (Python, JavaScript,
 * Java) refuses one before the call. Text that is not UTF-8 is refused with
 * HEARTH_ERROR_ARGUMENT, the message naming the parameter and the offset of
 * the first byte that is not (RFC 3629: no overlong form, no surrogate,
 * nothing above U+10FFFF, no sequence cut short; JNI's modified UTF-8, with
 * NUL as C0 80 and surrogate pairs, is not UTF-8). Nothing is repaired or
 * replaced, so two different byte strings never arrive as one.
 */
#ifndef HEARTH_H
#define HEARTH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version, status, handles                                                 */

#define HEARTH_ABI_VERSION_MAJOR 1
#define HEARTH_ABI_VERSION_MINOR 7
#define HEARTH_ABI_VERSION_PATCH 0
#define HEARTH_ABI_VERSION 0x010700

/** The loaded library's ABI version, (major << 16) | (minor << 8) | patch. A constant. */
uint32_t hearth_abi_version(void);

#define HEARTH_OK 0
/** A NULL pointer where an array or handle is needed, a negative count, an unknown constant, a handle of the wrong kind. */
#define HEARTH_ERROR_ARGUMENT 1
/** Bad data: a file that cannot be read or parsed, a malformed configuration or description. */
#define HEARTH_ERROR_BAD_INPUT 2
/** An ingest batch refused whole (SPEC §1 schema error: a latitude or longitude out of range or not finite). */
#define HEARTH_ERROR_SCHEMA 3
/** The handle cannot do this now: it failed to create, or was finished and fed again. */
#define HEARTH_ERROR_STATE 4
/** An output array is too small; the count needed was written where the function says. */
#define HEARTH_ERROR_CAPACITY 5

/** A short constant name for a status ("ok", "argument", "bad input", …); "unknown" otherwise. */
const char *hearth_status_name(int32_t status);

/*
 * HANDLES. Each opaque type below states its ownership, lifetime and thread
 * safety. What holds for all of them:
 * - A handle is made by a function that stores it in an `out` parameter
 *   (a failed one included), and from then on it is the caller's: the
 *   caller passes it to hearth_release exactly once, after its last use.
 *   Using a handle after its release, or releasing it twice, is undefined.
 * - The library keeps no pointer to a handle it is handed: a handle passed
 *   to a call (a trace to a detector or a sweep) is read during that call
 *   only, so handles may be released in any order. Nothing made by one
 *   library (libhearth.so, libhearth_lab.so) is passed to the other.
 * - A pointer a handle gives out lives as long as said where it is given
 *   (hearth_last_error: until the next call on that handle or its release;
 *   hearth_bytes_data: until the bytes' release).
 * - Unless its entry says more, a handle may be used from any thread but
 *   from one thread at a time (the caller serialises the calls; each call
 *   may change the handle, if only its last error).
 * - A handle passed where another kind belongs is HEARTH_ERROR_ARGUMENT
 *   (one that failed to create: HEARTH_ERROR_STATE). Its last error then
 *   says so only if its kind is used from one thread at a time: bytes, a
 *   grid, a schedule, a trace and a sweep plan, which other threads may be
 *   reading, keep their last error as it was.
 */

/**
 * Bytes the library produced: text, JSON, CSV, saved state, a sweep
 * extraction. Made by every function with a `hearth_bytes **out`.
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: a copy, independent of the handle it came from (which may be
 * released first); hearth_bytes_data stays valid until this handle's release.
 * Threads: immutable once made: any number of threads may read it at once.
 */
typedef struct hearth_bytes hearth_bytes;
/**
 * A latitude-band grid (hearth_grid_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle.
 * Threads: immutable after creation: hearth_grid_snap and
 * hearth_privacy_project may use one grid from any number of threads at once
 * (their errors are in the status only, never on the grid).
 */
typedef struct hearth_grid hearth_grid;
/**
 * An index of stored fix keys (hearth_dedupe_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle; holds no caller array.
 * Threads: one thread at a time (hearth_dedupe_insert changes it).
 */
typedef struct hearth_dedupe hearth_dedupe;
/**
 * A recording (hearth_trace_read, hearth_trace_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle; one opened from a path reads
 * that path again when fed or first read whole, so the files must stay in
 * place until its release. Appended columns are copied during the call.
 * Threads: one thread at a time, with one exception: while no other call on
 * it runs, hearth_detector_feed_trace (each with its own detector) and
 * hearth_sweep_run_trace may read one trace from several threads at once.
 * hearth_trace_count, _samples, _fixes, _info and _write keep what they read
 * in the handle, and _append changes it: those are never concurrent.
 */
typedef struct hearth_trace hearth_trace;
/**
 * A crash detector and the verdicts it completed (hearth_detector_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle (a fed trace may be released
 * right after hearth_detector_feed_trace returns).
 * Threads: one thread at a time (feeding changes it).
 */
typedef struct hearth_detector hearth_detector;
/**
 * One incident's lifecycle (hearth_incident_create, hearth_incident_restore).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle and of the bytes it was
 * restored from (read during the call).
 * Threads: one thread at a time (hearth_incident_check changes it).
 */
typedef struct hearth_incident hearth_incident;
/**
 * A threshold sweep plan and, after hearth_sweep_merge, its result
 * (hearth_sweep_plan; libhearth_lab.so only).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle: the extractions merged and
 * the traces run are read during the call only.
 * Threads: hearth_sweep_task_count, hearth_sweep_run_task and
 * hearth_sweep_run_trace may be called on one plan from any number of
 * threads at once (their errors go on the bytes they make). hearth_sweep_merge,
 * _export and _write are one thread at a time and never while a task runs.
 */
typedef struct hearth_sweep hearth_sweep;
/**
 * A server ingest pipeline and its state (hearth_ingest_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: independent of every other handle; a places_file named in the
 * description is read during create or reconfigure only. The events of the
 * last batch or tick stay in the handle until the next batch or tick.
 * Threads: one thread at a time (every batch and tick changes it; a server
 * with several pipelines runs each on its own thread or serialises them).
 */
typedef struct hearth_ingest hearth_ingest;
/**
 * The server's schedule of a recorded history: its steps and rows
 * (hearth_schedule_create).
 * Ownership: the caller's; release with hearth_release.
 * Lifetime: a copy of what it computed; holds neither the fixes nor the
 * receipt times it was made from.
 * Threads: immutable after creation: any number of threads may read it at once
 * (their errors are in the status only, never on the schedule).
 */
typedef struct hearth_schedule hearth_schedule;

/**
 * Why the last call on `handle` failed ("" when it succeeded), naming the
 * file, row, field or setting where there is one. UTF-8, NUL-terminated,
 * owned by the handle: valid until the next call on it or its release.
 * Any handle kind; "" for NULL.
 */
const char *hearth_last_error(const void *handle);

/** Releases any handle (NULL is ignored). The handle must not be used after. */
void hearth_release(void *handle);

/** Bytes the library produced (text, JSON, CSV, saved state). Owned by the handle. */
const uint8_t *hearth_bytes_data(const hearth_bytes *bytes);
/** Their count; -1 for a NULL or non-bytes handle. */
int64_t hearth_bytes_size(const hearth_bytes *bytes);

/* ------------------------------------------------------------------------ */
/* Great-circle distances (SPEC §6; docs/guides/geodesy.md)                 */
/* Spherical Earth of mean radius 6 371 008.8 m; within 0.5 mm of a         */
/* correctly rounded haversine; NaN for NaN or out-of-range input.          */
/* Bit-identical to the Swift scalar function, whatever the count. O(n).    */

/** out_m[i] = distance between (lat1_deg[i], lon1_deg[i]) and (lat2_deg[i], lon2_deg[i]). */
int32_t hearth_distances_m(
    int64_t count, const double *lat1_deg, const double *lon1_deg, const double *lat2_deg,
    const double *lon2_deg, double *out_m);

/** out_m[i] = distance from (origin_lat_deg, origin_lon_deg) to point i. */
int32_t hearth_distances_from_m(
    double origin_lat_deg, double origin_lon_deg, int64_t count, const double *lat_deg,
    const double *lon_deg, double *out_m);

/**
 * Steps and running path length along a track: steps_m[0] = 0, steps_m[i] from
 * point i-1 to i; cumulative_m[i] = compensated sum of steps 1..i (NaN from a
 * bad point on).
 */
int32_t hearth_track_distances_m(
    int64_t count, const double *lat_deg, const double *lon_deg, double *steps_m,
    double *cumulative_m);

/* ------------------------------------------------------------------------ */
/* The latitude-band grid and the privacy projection (SPEC §2)              */

/** A grid of cells of about cell_size_m (750 = the privacy grid; 1 m … 10 000 km). */
int32_t hearth_grid_create(double cell_size_m, hearth_grid **out);

/**
 * Snaps points to cells: cell_id[i] (row << 32 | column; -1 for NaN or out of
 * range) and the cell's centre (NaN for -1). Deterministic on every platform. O(n).
 */
int32_t hearth_grid_snap(
    const hearth_grid *grid, int64_t count, const double *lat_deg, const double *lon_deg,
    int64_t *cell_id, double *centre_lat_deg, double *centre_lon_deg);

/**
 * The approximate-sharing projection of fixes on `grid`: the cell and its
 * centre, accuracy widened to at least min_accuracy_m but never less than the
 * grid's cell size (750 m on the privacy grid: the floor can be raised, not
 * lowered; a NaN accuracy becomes the floor), time floored to its slot of
 * slot_ms. HEARTH_ERROR_ARGUMENT for slot_ms <= 0 or a min_accuracy_m that is
 * not finite. What a viewer of approximate sharing is sent; speed, heading
 * and activity do not appear. O(n).
 */
int32_t hearth_privacy_project(
    const hearth_grid *grid, double min_accuracy_m, int64_t slot_ms, int64_t count,
    const int64_t *time_ms, const double *lat_deg, const double *lon_deg,
    const double *accuracy_m, int64_t *cell_id, double *centre_lat_deg, double *centre_lon_deg,
    double *accuracy_out_m, int64_t *slot_start_ms);

/**
 * ABI 1.6. Whether hearth_privacy_project refuses min_accuracy_m and slot_ms:
 * HEARTH_OK with empty bytes in *out, or HEARTH_ERROR_ARGUMENT with the
 * reason (which setting, why) on hearth_last_error(*out); the grid keeps no
 * message. Only the settings are judged: a projection refused for its
 * arrays (NULL, a negative count, overlapping) or its grid has another
 * cause. A NULL `out` is HEARTH_ERROR_ARGUMENT, as for every function with
 * one. O(1).
 */
int32_t hearth_privacy_check_settings(double min_accuracy_m, int64_t slot_ms, hearth_bytes **out);

/* ------------------------------------------------------------------------ */
/* Fixes: validation and dedupe (SPEC §1)                                   */

#define HEARTH_ACTIVITY_UNKNOWN 0
#define HEARTH_ACTIVITY_STILL 1
#define HEARTH_ACTIVITY_WALKING 2
#define HEARTH_ACTIVITY_RUNNING 3
#define HEARTH_ACTIVITY_CYCLING 4
#define HEARTH_ACTIVITY_AUTOMOTIVE 5

#define HEARTH_SOURCE_ORDINARY 0
#define HEARTH_SOURCE_HEARTBEAT 1
#define HEARTH_SOURCE_PARK 2

/**
 * A batch of fixes, column by column (all columns `count` long). The first
 * four are required; an optional column left NULL means: NaN (speed, heading,
 * altitude, battery level), 0 (activity unknown, source ordinary, charging
 * unknown, device 0, user 0). speed_mps is the platform's raw reading, read
 * as the file readers read it (SPEC §1, unmeasured speed): negative (iOS's
 * -1) or NaN is unmeasured, and so is a 0 on a fix whose accuracy is worse
 * than 30 m (Android's "no speed"); fixes read back give NaN there. A speed
 * that is infinite or above 600 m/s is not unmeasured but out of range
 * (since ABI 1.5; before, infinity read as unmeasured): validation and
 * ingest reject that fix, and a recording refuses it as a reader refuses
 * such a row. heading_deg negative and finite, or NaN, is not measured (read
 * back as NaN since ABI 1.5); above 360° or -infinity is out of range.
 */
typedef struct hearth_fixes {
  int64_t count;
  const int64_t *time_ms;
  const double *latitude_deg;
  const double *longitude_deg;
  const double *horizontal_accuracy_m;
  const double *speed_mps;
  const double *heading_deg;
  const double *altitude_m;
  const uint8_t *activity;
  const uint8_t *source;
  const double *battery_level;
  const uint8_t *charging;
  const uint32_t *device;
  const uint32_t *user;
} hearth_fixes;

/** Where fixes are written (every column `capacity` long; a NULL column is skipped). */
typedef struct hearth_fixes_out {
  int64_t *time_ms;
  double *latitude_deg;
  double *longitude_deg;
  double *horizontal_accuracy_m;
  double *speed_mps;
  double *heading_deg;
  double *altitude_m;
  uint8_t *activity;
  uint8_t *source;
  double *battery_level;
  uint8_t *charging;
  uint32_t *device;
  uint32_t *user;
} hearth_fixes_out;

#define HEARTH_FIELD_TIME 0
#define HEARTH_FIELD_LATITUDE 1
#define HEARTH_FIELD_LONGITUDE 2
#define HEARTH_FIELD_HORIZONTAL_ACCURACY 3
#define HEARTH_FIELD_SPEED 4 /* ABI 1.5: the field each *_OUT_OF_RANGE code is about (none is a schema error's) */
#define HEARTH_FIELD_HEADING 5
#define HEARTH_FIELD_ALTITUDE 6
#define HEARTH_FIELD_BATTERY_LEVEL 7

#define HEARTH_SCHEMA_NOT_FINITE 1
#define HEARTH_SCHEMA_OUT_OF_RANGE 2

/** The first schema error of a refused batch. */
typedef struct hearth_schema_error {
  int64_t index;
  int32_t field;
  int32_t reason;
  double value;
} hearth_schema_error;

#define HEARTH_FIX_ACCEPTED 0
#define HEARTH_FIX_IN_FUTURE 1
#define HEARTH_FIX_TOO_OLD 2
#define HEARTH_FIX_ACCURACY_MISSING 3
/* ABI 1.5: a value no phone reports, which the recording readers refuse too. */
#define HEARTH_FIX_ACCURACY_OUT_OF_RANGE 4 /* above 100 km */
#define HEARTH_FIX_SPEED_OUT_OF_RANGE 5    /* above 600 m/s or infinite */
#define HEARTH_FIX_HEADING_OUT_OF_RANGE 6  /* above 360° or -infinity */
#define HEARTH_FIX_ALTITUDE_OUT_OF_RANGE 7 /* outside -2 km … 100 km (NaN: none) */
#define HEARTH_FIX_BATTERY_OUT_OF_RANGE 8  /* outside 0 … 1 (NaN: none) */

/**
 * Validates a batch against the server clock now_ms: verdict[i] is
 * HEARTH_FIX_ACCEPTED or the reason fix i was rejected, the first of: dated
 * more than max_future_ms ahead or from 2200-01-01 on; more than max_age_ms
 * old or before 1900-01-01; accuracy not a finite number ≥ 0; accuracy,
 * speed, heading, altitude or battery level outside its range (the
 * HEARTH_FIX_*_OUT_OF_RANGE codes; speeds and headings are read as
 * hearth_fixes says, so iOS's -1 is "not measured", never out of range).
 * hearth_ingest_batch rejects with the same codes. A caller must expect
 * codes a later minor version adds. HEARTH_ERROR_SCHEMA refuses the whole
 * batch: *schema (if not NULL) names the first offending fix and field,
 * verdict is untouched. A negative max_future_ms or max_age_ms is
 * HEARTH_ERROR_ARGUMENT. O(n).
 */
int32_t hearth_validate(
    const hearth_fixes *fixes, int64_t now_ms, int64_t max_future_ms, int64_t max_age_ms,
    int32_t *verdict, hearth_schema_error *schema);

/**
 * ABI 1.6. Why hearth_validate returned HEARTH_ERROR_ARGUMENT: its arguments
 * but the verdict array checked as it checks them (fixes NULL, a negative
 * max_future_ms or max_age_ms, a column it cannot read, such as an activity
 * code outside HEARTH_ACTIVITY_*), giving HEARTH_OK with empty bytes in *out,
 * or HEARTH_ERROR_ARGUMENT with the reason (which fix, column or setting) on
 * hearth_last_error(*out). hearth_validate has no handle to carry it. A NULL
 * `out` is HEARTH_ERROR_ARGUMENT, as for every function with one. O(n).
 */
int32_t hearth_validate_check_arguments(
    const hearth_fixes *fixes, int64_t max_future_ms, int64_t max_age_ms, hearth_bytes **out);

#define HEARTH_DEDUPE_INSERTED 0
#define HEARTH_DEDUPE_DUPLICATE 1
#define HEARTH_DEDUPE_STILL_ADOPTED 2

/** An empty index of stored fix keys (user, device, time). */
int32_t hearth_dedupe_create(hearth_dedupe **out);

/**
 * Stores the batch's new keys; outcome[i] says what happened to fix i (a
 * duplicate re-reporting `still` makes the stored fix still). Retrying a
 * batch changes nothing. O(n) for fixes newer than their device's last.
 */
int32_t hearth_dedupe_insert(hearth_dedupe *dedupe, const hearth_fixes *fixes, int32_t *outcome);

/** Keys stored. */
int32_t hearth_dedupe_count(const hearth_dedupe *dedupe, int64_t *count);

/* ------------------------------------------------------------------------ */
/* Recordings (docs/guides/trace-formats.md)                                */

#define HEARTH_STREAM_ACCELEROMETER 0 /* total specific force, gravity included (added back when the file has it apart), m/s² */
#define HEARTH_STREAM_GYROSCOPE 1     /* rad/s */
#define HEARTH_STREAM_BAROMETER 2     /* hPa (x only) */
#define HEARTH_STREAM_FIXES 3
#define HEARTH_STREAM_ACTIVITIES 4    /* the OS classifier's verdicts (x = activity code) */

/**
 * Reads a recording through the library's one door: a Sensor Logger or
 * phyphox export, a trace folder, a comma2k19 segment, GPX, .traj, or CSV
 * with a column mapping (mapping_path, else NULL). Bad input names the file,
 * row and field.
 */
int32_t hearth_trace_read(const char *path, const char *mapping_path, hearth_trace **out);

/** Samples (or fixes) in a stream; 0 when the recording has none. */
int32_t hearth_trace_count(const hearth_trace *trace, int32_t stream, int64_t *count);

/**
 * Copies a sensor stream: t_s[i] (s on the recording's clock, whose origin is
 * in hearth_trace_info) and x, y, z (y and z may be NULL; barometer and
 * activities have x only). HEARTH_ERROR_CAPACITY when capacity < count.
 */
int32_t hearth_trace_samples(
    const hearth_trace *trace, int32_t stream, int64_t capacity, double *t_s, double *x,
    double *y, double *z);

/** Copies the fixes (HEARTH_ERROR_CAPACITY when capacity < count). */
int32_t hearth_trace_fixes(const hearth_trace *trace, int64_t capacity, const hearth_fixes_out *out);

/**
 * The recording's metadata and import report as one JSON object: format,
 * platform, device, source files, time_origin_ms, rows kept and rejected per
 * file, the detector's rate warnings, the time warnings (streams apart in
 * time; a wall clock that stepped against the monotonic one, whose rows stay
 * on the monotonic clock) and hours with data.
 */
int32_t hearth_trace_info(const hearth_trace *trace, hearth_bytes **out);

/*
 * Recordings built from columns (ABI 1.1): for a recording held in memory
 * (Arrow column chunks read from Parquet, a numpy pipeline). Create an empty
 * trace, append each chunk of each stream as it comes (no concatenation
 * needed: the library copies each chunk once into the recording, as a
 * reader fills one from a file), then sweep it (hearth_sweep_run_trace), feed
 * it (hearth_detector_feed_trace), read it back or write it as a folder.
 */

/**
 * An empty recording from a JSON object of metadata, every key optional:
 * {"format": "parquet", "platform": "ios"|"android"|"unknown", "device":
 * "Pixel 6a", "sourceFiles": ["…"], "timeOriginMs": 1690000000000} (the
 * object hearth_trace_info gives is accepted as it is: its derived keys are
 * ignored). An unknown key, a wrong type or a timeOriginMs outside 1900–2200
 * (as a reader takes it) is HEARTH_ERROR_BAD_INPUT, named.
 */
int32_t hearth_trace_create(const char *metadata_json, hearth_trace **out);

/**
 * Appends count samples to a stream of a created recording, read during the
 * call: ACCELEROMETER (gravity included) and GYROSCOPE take t_s, x, y, z;
 * BAROMETER t_s and x = hPa; ACTIVITIES t_s and x = the activity code (a
 * whole number 0–5); y and z may be NULL where unused. Every sample is then
 * checked as a trace folder's columns are, when the recording is next used:
 * times finite and within ±1e10 s, values within the readers' bounds (an
 * accelerometer must read gravity as 9.81 m/s²), a code that is an activity.
 * A sample that fails is rejected with its reason and counted (hearth_trace_info:
 * "files", per stream). Order, per stream over every append to it (a trace
 * folder's rule): a sample timed more than 60 s before the latest sample
 * kept ahead of it in append order is rejected as "outOfOrder" (counted), so
 * one stray time cannot make a streamed read hold the whole recording; a
 * sample less late than that is put in its place by time (counted as out of
 * order); a sample with the same time and values as the one kept before it
 * in time order is rejected as a repeat; the rest are kept.
 * HEARTH_ERROR_STATE on a recording read from a file.
 */
int32_t hearth_trace_append(
    hearth_trace *trace, int32_t stream, int64_t count, const double *t_s, const double *x,
    const double *y, const double *z);

/**
 * Appends fixes to a created recording (codes outside an enum refused, naming
 * the fix and column). Each fix is then checked as a trace folder's are (time
 * within 1900–2200, position and fields within bounds; a negative finite
 * speed is unmeasured, an infinite one refused since ABI 1.5); a fix that
 * fails is rejected and counted, the rest kept in the order given.
 */
int32_t hearth_trace_append_fixes(hearth_trace *trace, const hearth_fixes *fixes);

/**
 * Writes any recording as a trace folder (docs/decisions/0004: .npy columns
 * and trace.json), which hearth_trace_read and every command read back.
 * `folder` is made when missing; an existing one must be empty (names
 * starting with "." aside) or a trace folder this layout wrote (trace.json
 * naming "hearth-trace-folder/"), whose streams are replaced once the new
 * trace is written whole (other files in it stay). Anything else, or a
 * write that fails, is HEARTH_ERROR_BAD_INPUT naming the path and why, with
 * the folder as it was.
 */
int32_t hearth_trace_write(const hearth_trace *trace, const char *folder);

/* ------------------------------------------------------------------------ */
/* The possible-impact detector (SPEC §9; docs/guides/impact-detector.md)   */

/**
 * One batch of phone sensor data (times in s on one clock; any order, the
 * detector sorts each stream). Fix speeds: see hearth_detector_feed (taken as
 * given) and hearth_detector_feed_with_accuracy (the platform's raw speeds
 * with each fix's accuracy).
 */
typedef struct hearth_sensor_batch {
  int64_t accelerometer_count;
  const double *accelerometer_t_s;
  const double *accelerometer_x_mps2;
  const double *accelerometer_y_mps2;
  const double *accelerometer_z_mps2;
  int64_t gyroscope_count;
  const double *gyroscope_t_s;
  const double *gyroscope_x_radps;
  const double *gyroscope_y_radps;
  const double *gyroscope_z_radps;
  int64_t barometer_count;
  const double *barometer_t_s;
  const double *barometer_hpa;
  int64_t fix_count;
  const double *fix_t_s;
  const double *fix_speed_mps;
  /** Non-zero: the OS classifier says "in a vehicle" (the detector runs only then). */
  int32_t vehicle_gate;
} hearth_sensor_batch;

#define HEARTH_GATE_RECORDING 0 /* follow the recording's activity stream (as `hearth impact detect`) */
#define HEARTH_GATE_ON 1
#define HEARTH_GATE_OFF 2

#define HEARTH_OUTCOME_POSSIBLE_IMPACT 0
#define HEARTH_OUTCOME_SILENT 1
#define HEARTH_OUTCOME_SUPPRESSED 2

#define HEARTH_CONDITION_JOLT 0
#define HEARTH_CONDITION_MOVING_BEFORE_GPS 1
#define HEARTH_CONDITION_MOVING_AT_JOLT_GPS 2
#define HEARTH_CONDITION_MOVING_BEFORE_VIBRATION 3
#define HEARTH_CONDITION_MOVING_AT_JOLT_VIBRATION 4
#define HEARTH_CONDITION_REST_WITHIN 5
#define HEARTH_CONDITION_STAYED_STOPPED_GPS 6
#define HEARTH_CONDITION_STOPPED_VIBRATION_RATIO 7
#define HEARTH_CONDITION_SPIN 8
#define HEARTH_CONDITION_PRESSURE_RISE 9
#define HEARTH_CONDITION_FREE_FALL_VETO 10

/** A condition's name as the outputs spell it ("jolt", "spin", …); "" when unknown. */
const char *hearth_condition_name(int32_t condition);
/** The unit of its measured value and threshold ("m/s²", "rad/s", "hPa", "m/s", "s", "fraction"). */
const char *hearth_condition_unit(int32_t condition);

/** One verdict; its conditions are conditions[first_condition …+condition_count]. */
typedef struct hearth_verdict {
  int32_t outcome;
  /** 1: moving was judged from GPS (a fix was current), 0: from vibration; 0 too for a
   *  suppressed verdict, which is not judged (its outcome says so). */
  int32_t used_gps;
  double jolt_s;
  double decided_s;
  /** The jolt's peak dynamic acceleration, g. */
  double jolt_g;
  int64_t first_condition;
  int64_t condition_count;
} hearth_verdict;

/** One condition of a verdict as measured (NaN: nothing to measure). */
typedef struct hearth_condition {
  int64_t verdict;
  int32_t condition;
  int32_t held;
  double measured;
  double threshold;
} hearth_condition;

/**
 * A detector configured by a JSON object of settings, exactly the file
 * `hearth impact detect --config` reads (any subset; missing keys keep their
 * defaults; an unknown key or a non-number is HEARTH_ERROR_BAD_INPUT naming
 * it). NULL or "" for the defaults.
 */
int32_t hearth_detector_create(const char *configuration_json, hearth_detector **out);

/**
 * Feeds one batch; completed verdicts accumulate in the handle. O(samples).
 * Fix speeds are taken as given, as since ABI 1.0: negative or NaN is
 * unmeasured, and every other value, a 0 included, is a measured speed (a 0
 * is a real stop). A platform's raw speed is not that: Android reports 0 for
 * a fix whose speed it never measured (SPEC §1), and such a zero here reads
 * as a stop, so "moving before the jolt" by GPS fails and a crash at speed
 * can stay silent. A caller with each fix's accuracy (every phone has it)
 * feeds with hearth_detector_feed_with_accuracy instead; this function is
 * for speeds already cleared of unmeasured zeros (as the recording readers
 * leave them: speed_mps of hearth_trace_fixes).
 */
int32_t hearth_detector_feed(hearth_detector *detector, const hearth_sensor_batch *batch);

/**
 * Feeds one batch whose fix speeds are the platform's raw readings (ABI 1.4),
 * with fix_accuracy_m[i] the horizontal accuracy of fix i, m (fix_count of
 * them; NULL: every accuracy unknown). Each fix goes through the rule every
 * recording reader applies (SPEC §1 *Unmeasured speed*; HearthRuntime's
 * ImpactFixSpeeds): a negative or NaN speed is unmeasured (iOS -1); a 0 on a
 * fix looser than 30 m, or of unknown accuracy, is unmeasured (Android's 0
 * for a network fix); a 0 on a fix of 30 m or sharper is a real stop; any
 * other speed is kept. An accuracy that is NaN or negative is unknown; one
 * that is infinite or above 100 km is not a reading (a reader rejects such a
 * row): that fix is skipped and counted (hearth_detector_counters), the rest
 * of the batch is fed. Otherwise as hearth_detector_feed. On Android pass NaN
 * when Location.hasAccuracy() is false (getAccuracy() then returns 0).
 */
int32_t hearth_detector_feed_with_accuracy(
    hearth_detector *detector, const hearth_sensor_batch *batch, const double *fix_accuracy_m);

/**
 * Feeds one batch with the time it was received (ABI 1.7): received_s, s, read
 * from the clock the samples are stamped on, after the batch arrived (Android:
 * SystemClock.elapsedRealtimeNanos() / 1e9, the clock of SensorEvent.timestamp
 * and Location.getElapsedRealtimeNanos(); iOS: ProcessInfo.systemUptime, the
 * clock of CMLogItem.timestamp). A sample stamped after it cannot have been
 * measured yet: it is skipped and counted (hearth_detector_counters) as a bad
 * time. Without it, one sample stamped in the future moves its stream's clock
 * ahead, every later sample of that stream is skipped as not newer, and the
 * next jolt is judged before its data arrive (a missed crash). NaN: not known
 * (as hearth_detector_feed); infinite, or beyond the samples' own bound
 * (±maximumAbsoluteTimeSeconds, 1e10 s by default: a receipt in nanoseconds
 * not divided by 1e9 is) is HEARTH_ERROR_ARGUMENT naming received_s. Pass it
 * only when the samples' clock is the one read: on another clock every sample
 * may lie after it and be skipped (the counters say so).
 * fix_accuracy_m: a column of fix_count accuracies, m, judges the speeds as the
 * platform's raw readings (as hearth_detector_feed_with_accuracy; NaN: that
 * fix's accuracy unknown). NULL takes the speeds as given, as
 * hearth_detector_feed does: NOT as hearth_detector_feed_with_accuracy's NULL
 * (every accuracy unknown); for raw speeds of unknown accuracy pass a column
 * of NaN, or an Android 0 reads as a stop.
 */
int32_t hearth_detector_feed_received(
    hearth_detector *detector, const hearth_sensor_batch *batch, const double *fix_accuracy_m, double received_s);

/**
 * Feeds a whole recording as `hearth impact detect` does: 250 ms batches,
 * gravity added back where needed, the vehicle gate by `gate` (HEARTH_GATE_*).
 * HEARTH_ERROR_BAD_INPUT when it has no accelerometer with gravity.
 */
int32_t hearth_detector_feed_trace(hearth_detector *detector, const hearth_trace *trace, int32_t gate);

/** Decides an open incident with the data there are (end of the recording). No feeding after. */
int32_t hearth_detector_finish(hearth_detector *detector);

/** Verdicts completed so far, and their conditions. */
int32_t hearth_detector_count(const hearth_detector *detector, int64_t *verdicts, int64_t *conditions);

/** Copies the verdicts (capacity ≥ count, else HEARTH_ERROR_CAPACITY). */
int32_t hearth_detector_verdicts(const hearth_detector *detector, int64_t capacity, hearth_verdict *out);

/** Copies the conditions of every verdict, in verdict order. */
int32_t hearth_detector_conditions(const hearth_detector *detector, int64_t capacity, hearth_condition *out);

/** Samples skipped (a bad time, an impossible value, or not newer than their stream's last; every stream) and jolts seen with the gate off. */
int32_t hearth_detector_counters(const hearth_detector *detector, int64_t *skipped_samples, int64_t *jolts_gate_off);

#define HEARTH_FORMAT_TEXT 0
#define HEARTH_FORMAT_JSON 1 /* JSON Lines, NaN as null */
#define HEARTH_FORMAT_CSV 2  /* with the header line */

/**
 * What `hearth impact detect --format …` prints for this recording, named
 * `file_name`: every verdict with every condition's measured value,
 * threshold and unit, or one line saying no jolt (hours with data and peak
 * |a| of every accelerometer sample fed). Byte-identical to the command.
 */
int32_t hearth_detector_report(
    const hearth_detector *detector, const char *file_name, int32_t format, hearth_bytes **out);

/**
 * The configuration JSON with every setting (keys sorted, one per line), as
 * `impact sweep --out` writes picked-configuration.json: the defaults for
 * NULL or "", otherwise the given subset over them.
 */
int32_t hearth_configuration_json(const char *configuration_json, hearth_bytes **out);

/* ------------------------------------------------------------------------ */
/* The incident lifecycle (SPEC §10)                                        */

#define HEARTH_INPUT_NOTHING 0
#define HEARTH_INPUT_DISMISSED 1
#define HEARTH_INPUT_ALERT_NOW 2
#define HEARTH_INPUT_DELIVERED 3
#define HEARTH_INPUT_NETWORK_FAILURE 4
#define HEARTH_INPUT_HTTP 5 /* http_status, tokens_held */
#define HEARTH_INPUT_FIREWALL_PAGE 6
#define HEARTH_INPUT_UPLOAD_SUCCEEDED 7
#define HEARTH_INPUT_SIGNED_IN 8 /* account */

#define HEARTH_ACTION_NONE 0
#define HEARTH_ACTION_ASK 1        /* show the question until time_ms */
#define HEARTH_ACTION_SEND 2
#define HEARTH_ACTION_WAIT_UNTIL 3 /* call check again at time_ms */
#define HEARTH_ACTION_FINISHED 4   /* end says how */

#define HEARTH_END_DISMISSED 0
#define HEARTH_END_DELIVERED 1
#define HEARTH_END_REFUSED 2
#define HEARTH_END_DROPPED_AFTER_AN_HOUR 3
#define HEARTH_END_OTHER_ACCOUNT 4

typedef struct hearth_incident_action {
  int32_t action;
  int32_t end;
  int64_t time_ms;
} hearth_incident_action;

/**
 * An incident opened by a verdict at verdict_ms for `account` (UTF-8). A
 * verdict_ms outside 1900–2200 is HEARTH_ERROR_ARGUMENT (not a clock: its
 * saved state would be refused by hearth_incident_restore).
 */
int32_t hearth_incident_create(int64_t verdict_ms, const char *account, hearth_incident **out);

/**
 * Moves the incident with the wall clock and an input; writes what to do. Pure in its state.
 * Waits run on the incident's own clock, which moves on only by the wall clock's forward
 * moves between checks (a clock set back stretches nothing); the times written are on the
 * wall clock as now_ms reads it. A now_ms outside 1900–2200 is HEARTH_ERROR_ARGUMENT and
 * changes nothing (not a clock: the saved state would be refused).
 */
int32_t hearth_incident_check(
    hearth_incident *incident, int64_t now_ms, int32_t input, int32_t http_status,
    int32_t tokens_held, const char *account, hearth_incident_action *action);

/** The incident's state as bytes (JSON), to survive a process kill. */
int32_t hearth_incident_save(const hearth_incident *incident, hearth_bytes **out);

/**
 * An incident from saved bytes; bad bytes are HEARTH_ERROR_BAD_INPUT, never a
 * crash. The bytes carry formatVersion 1 (bytes without one, saved before
 * versions were written, read as 1); another version, or a value the
 * lifecycle never writes, is refused naming the field.
 */
int32_t hearth_incident_restore(const uint8_t *state, int64_t size, hearth_incident **out);

/* ------------------------------------------------------------------------ */
/* The threshold sweep, in tasks (docs/guides/c-abi.md)                     */
/* In libhearth_lab.so only (see LIBRARIES above).                          */

/**
 * A sweep plan from a JSON object: {"base": {settings}, "jolt_g": [..],
 * "spin_rad_s": [..], "pressure_hpa": [..], "moving_m_s": [..],
 * "free_fall_s": [..], "seeds": N, "hours": H, "recordings": [paths],
 * "mapping": path or null, "vehicle_gate": "recording"|"on"|"off"}; every key
 * optional (the defaults of `hearth impact sweep`). Reads no file yet.
 * HEARTH_ERROR_BAD_INPUT, before any task is listed, for a plan whose
 * estimated memory is over 2 GiB (the message gives the estimate: traces,
 * combinations, samples, GB), as `hearth impact sweep` refuses it.
 */
int32_t hearth_sweep_plan(const char *spec_json, hearth_sweep **out);

/** Tasks of the extraction pass: scenarios × seeds, drives, then one per recording. */
int32_t hearth_sweep_task_count(const hearth_sweep *sweep, int64_t *count);

/**
 * Runs task `index` (one trace through the detector) and stores the trace's
 * extraction in *out: bytes to hand to hearth_sweep_merge, in any process.
 * Safe to call concurrently on one plan; errors (a recording that cannot be
 * read) are on *out's hearth_last_error, never on the plan.
 */
int32_t hearth_sweep_run_task(const hearth_sweep *sweep, int64_t index, hearth_bytes **out);

/**
 * Runs a recording given as a trace handle (read or created) through the
 * plan's extraction, as the recording task of that name would (ABI 1.1):
 * bytes for hearth_sweep_merge, placed by the caller where the recording
 * stands in the plan's task order. Reads the plan and the trace only (safe
 * concurrently, as long as nobody appends to the trace meanwhile); errors are
 * on *out's hearth_last_error.
 */
int32_t hearth_sweep_run_trace(
    const hearth_sweep *sweep, const hearth_trace *trace, const char *name, hearth_bytes **out);

/**
 * Judges every combination over the extractions given in task order (a
 * failed recording left out, as the command does). Identical, bit for bit,
 * to `hearth impact sweep` with the same plan, however the tasks ran.
 * HEARTH_ERROR_BAD_INPUT, naming the extraction, when one was made under
 * another plan's extraction configuration, a generated task's extraction is
 * repeated, missing or out of order, or there are more recordings than the
 * plan lists; a refused merge leaves the plan without a result.
 */
int32_t hearth_sweep_merge(
    hearth_sweep *sweep, int64_t count, const uint8_t *const *extractions, const int64_t *sizes);

#define HEARTH_SWEEP_TABLE 0          /* sweep.csv */
#define HEARTH_SWEEP_OUTCOMES 1       /* outcomes.csv */
#define HEARTH_SWEEP_JOLTS 2          /* jolts.csv */
#define HEARTH_SWEEP_CONFIGURATIONS 3 /* configurations.json */
#define HEARTH_SWEEP_RESULT 4         /* sweep.json */
#define HEARTH_SWEEP_REPORT 5         /* report.html */

/** One export of the merged result, byte-identical to the file `--out` writes. */
int32_t hearth_sweep_export(const hearth_sweep *sweep, int32_t what, hearth_bytes **out);

/** Writes every file of `impact sweep --out folder [--pick picked]` (picked < 0: the featured one). */
int32_t hearth_sweep_write(const hearth_sweep *sweep, const char *folder, int64_t picked);

/* ------------------------------------------------------------------------ */
/* The server's ingest path (SPEC §1–§8; docs/guides/ingest.md)             */

/**
 * A pipeline (every engine of SPEC §1–§8) and an empty state from a JSON
 * description of places and circles, every key optional:
 *   {"places": [{"id": 1, "circle": 7, "name": "Home", "latitude_deg": 52.52,
 *                "longitude_deg": 13.405, "radius_m": 120}],
 *    "places_file": "places.geojson",       (GeoJSON as `hearth geo replay --places`)
 *    "circles_of_person": {"42": [7]},      (user id → its circles)
 *    "speed_limits_kmh": {"7": 50}}         (circle → limit; none: no speed alerts)
 * Places, circle memberships and speed limits may be changed between batches
 * with hearth_ingest_reconfigure (ABI 1.1), which keeps the state.
 */
int32_t hearth_ingest_create(const char *description_json, hearth_ingest **out);

/**
 * One uploaded batch received at received_ms (the server clock), through
 * every stage. HEARTH_ERROR_SCHEMA refuses it whole and changes no state
 * (the schema error is in hearth_last_error and in the events). The batch's
 * output replaces the previous one (hearth_ingest_events). A received_ms
 * outside 1900-01-01 ..< 2200-01-01 is no server clock (a clock in ns or s):
 * HEARTH_ERROR_ARGUMENT names it, nothing changes.
 * O(n log n) in the batch; each engine's own bound applies.
 */
int32_t hearth_ingest_batch(hearth_ingest *ingest, const hearth_fixes *fixes, int64_t received_ms);

/**
 * Moves every clock to now_ms with no fixes (the server's timer); its output
 * likewise. now_ms outside 1900–2200: HEARTH_ERROR_ARGUMENT, nothing changes.
 */
int32_t hearth_ingest_tick(hearth_ingest *ingest, int64_t now_ms);

#define HEARTH_EVENT_REJECTED 0     /* a fix refused: index, code = HEARTH_FIX_* */
#define HEARTH_EVENT_SHARED_FRAME 1 /* a changed approximate frame: cell_id, centre, time_ms = slot start */
#define HEARTH_EVENT_GEOFENCE 2     /* code 0 arrival, 1 departure; place, circle; time_ms event, end_ms decided */
#define HEARTH_EVENT_SPEED_ALERT 3  /* circle; time_ms start, end_ms end; value = agreed speed, m/s */
#define HEARTH_EVENT_SUDDEN_STOP 4  /* time_ms stop, end_ms decided; position; value = cruising speed, m/s */
#define HEARTH_EVENT_TRIP 5         /* a closed segment: code 1 trip, 0 not; time_ms start, end_ms end; value = path, m; place = its end's name (hearth_ingest_trip_names) */
#define HEARTH_EVENT_STAY 6         /* a closed stay: time_ms start, end_ms end; position */

/** One thing the last batch or tick produced. Fields a kind does not use are 0 (or NaN). */
typedef struct hearth_event {
  int32_t kind;
  int32_t code;
  /** 1 when it goes to people (announced, raised), 0 otherwise (feed only, pending, …). */
  int32_t announced;
  uint32_t user;
  uint32_t device;
  uint32_t circle;
  uint32_t place;
  int64_t index;
  int64_t time_ms;
  int64_t end_ms;
  int64_t cell_id;
  double latitude_deg;
  double longitude_deg;
  double value;
} hearth_event;

/** What the last batch or tick produced: events, and fixes inserted (new) and duplicate. */
int32_t hearth_ingest_count(const hearth_ingest *ingest, int64_t *events, int64_t *inserted, int64_t *duplicates);

/**
 * Of the last batch's new fixes (inserted), those kept from the engines
 * (ABI 1.2; SPEC §1: geofences, speed rules and trips follow the person, so
 * only a fix that takes the person's presence row reaches them): *not_newer
 * not newer than the row (a second device's old fixes, an upload overtaken
 * by a newer one), *overruled a `still` fix from a second device while the
 * holder was fresh at receipt. The rest of inserted reached the engines.
 * Either pointer may be NULL; 0 after a tick. O(1).
 */
int32_t hearth_ingest_kept(const hearth_ingest *ingest, int64_t *not_newer, int64_t *overruled);

/** Copies the events, in the order kind by kind as listed above (capacity ≥ count, else HEARTH_ERROR_CAPACITY). */
int32_t hearth_ingest_events(const hearth_ingest *ingest, int64_t capacity, hearth_event *out);

/**
 * The same events as JSON Lines, {"type", "timeMilliseconds", "value",
 * "placeName"} with every field of the engine's event (outcome, reasons; a
 * trip without its fixes), after the batch's "schemaError", "rejected" and
 * "sharedFrame" lines; NaN as null. The shape `hearth geo replay` prints.
 */
int32_t hearth_ingest_events_json(const hearth_ingest *ingest, hearth_bytes **out);

/**
 * The whole state (every engine's, and since ABI 1.2 the geofence events
 * trips still open may be named from) as bytes; restoring it gives the same
 * future outputs. Bytes saved by ABI 1.0–1.1 still restore (with no such
 * events remembered).
 */
int32_t hearth_ingest_save(const hearth_ingest *ingest, hearth_bytes **out);

/** Replaces the state with saved bytes (from a pipeline of the same description); bad bytes change nothing. */
int32_t hearth_ingest_restore(hearth_ingest *ingest, const uint8_t *state, int64_t size);

/**
 * Places, circle memberships or speed limits edited between batches (ABI 1.1):
 * the pipeline takes the new description (as hearth_ingest_create reads it)
 * and keeps its state — dedupe, presence, open trips, memberships of places
 * that still exist — while pending arrivals and departures at removed places,
 * their place records and open speeding stretches of circles left or without
 * a limit are dropped; *dropped (may be NULL) receives how many. A bad
 * description is HEARTH_ERROR_BAD_INPUT and changes nothing. O(state).
 */
int32_t hearth_ingest_reconfigure(hearth_ingest *ingest, const char *description_json, int64_t *dropped);

/* How an end of a trip was named (SPEC §7; ABI 1.2). */
#define HEARTH_NAMED_NONE 0        /* no name: no record of the geofences and no place near enough */
#define HEARTH_NAMED_BY_FENCE 1    /* the geofences' records: the first departure during the trip; the last arrival not left again */
#define HEARTH_NAMED_BY_PLACE_AT 2 /* a start the geofences never saw them leave: the smallest place holding it, else the nearest centre whose edge is within 1 km */

/** Both ends of one HEARTH_EVENT_TRIP record (ABI 1.2). */
typedef struct hearth_trip_names {
  /** Index of the trip's record in hearth_ingest_events. */
  int64_t event;
  /** Place ids; 0 when the matching _named_by is HEARTH_NAMED_NONE. */
  uint32_t start_place;
  int32_t start_named_by;
  uint32_t end_place;
  int32_t end_named_by;
  /** From the trip's first fix to the start place's centre, m, when named by placeAt; NaN otherwise. */
  double start_distance_m;
} hearth_trip_names;

/**
 * The names of the last batch's or tick's trips (ABI 1.2): one per
 * HEARTH_EVENT_TRIP record of hearth_ingest_events, in that order
 * (capacity ≥ their number, else HEARTH_ERROR_CAPACITY). The same names as
 * the trip lines of hearth_ingest_events_json and `hearth geo replay`.
 */
int32_t hearth_ingest_trip_names(const hearth_ingest *ingest, int64_t capacity, hearth_trip_names *out);

/* Where an event of a batch came from (ABI 1.3). */
#define HEARTH_ORIGIN_BATCH 0 /* the batch's own fixes (rejections, frames, their people's events) */
#define HEARTH_ORIGIN_CLOCK 1 /* the clock advance to the receipt after the batch, or a tick: decisions that were waiting, anybody's */

/**
 * Where each event of hearth_ingest_events came from (ABI 1.3), one value per
 * event in the same order (capacity ≥ the count, else HEARTH_ERROR_CAPACITY):
 * HEARTH_ORIGIN_BATCH for what the batch's own fixes produced,
 * HEARTH_ORIGIN_CLOCK for what the clock advance to its receipt time that
 * follows every accepted batch produced (every event of a tick is
 * HEARTH_ORIGIN_CLOCK). Within each kind the batch's events come first. A
 * person's clock events do not depend on whose batch moved the clock, so a
 * caller that replays people apart (each part sees the others' uploads as
 * ticks to their receipt) merges exactly with this. The JSON lines of
 * hearth_ingest_events_json after the schemaError line are the events in the
 * same order. O(events).
 */
int32_t hearth_ingest_origins(const hearth_ingest *ingest, int64_t capacity, int32_t *out);

/* ------------------------------------------------------------------------ */
/* The server's schedule (ABI 1.3; docs/decisions/0010-one-server-schedule.md) */

/**
 * How a recorded history is cut into uploads and when the timer ticks; fill
 * it with hearth_schedule_defaults and change what differs.
 */
typedef struct hearth_schedule_settings {
  /** At most this many fixes per upload (≥ 1; default 200). */
  int64_t max_fixes;
  /** Without receipt times: an upload spans at most this long (≥ 0; default 300000). */
  int64_t max_span_ms;
  /** Without receipt times: received this long after its newest fix (≥ 0; default 1000). */
  int64_t receipt_delay_ms;
  /** The timer, ms (≥ 1; default 60000). */
  int64_t tick_ms;
  /** The timer stops this long after a receipt with nothing arriving (≥ 0, 0: no ticks; default 6 h). */
  int64_t idle_ticking_ms;
  /** Go on after the last receipt up to this time, ms since the epoch; INT64_MIN: no (the default). */
  int64_t until_ms;
  /** Go on this long after the last receipt (≥ 0, 0: no; the default); with until_ms, the later end wins. */
  int64_t linger_ms;
} hearth_schedule_settings;

/** The default settings (those of `hearth geo replay`). */
int32_t hearth_schedule_defaults(hearth_schedule_settings *out);

/**
 * The server's schedule for a history (`fixes` in the order the history has
 * them; received_ms: NULL, or one receipt time per fix for an upload log):
 * each phone's (user, device) fixes cut into the uploads it sent (with
 * receipt times, wherever the receipt changes; without, at most max_fixes
 * spanning at most max_span_ms, received receipt_delay_ms after the newest;
 * never earlier than the phone's previous upload), every upload in order of
 * receipt (same millisecond: the order of their first fix in the history),
 * and the timer every tick_ms after a receipt for up to idle_ticking_ms, on
 * to the end set by until_ms or linger_ms with a last tick there. What
 * `hearth geo replay` replays. Every step's time is a server clock from
 * 1900 to 2200 (as hearth_ingest_batch and hearth_ingest_tick take): a
 * received_ms or until_ms outside it is HEARTH_ERROR_ARGUMENT naming the
 * first such fix and how many; a derived receipt (fix time plus
 * receipt_delay_ms) or a linger past it stops at the window's end. Bad
 * settings are HEARTH_ERROR_ARGUMENT. O(n log n) plus one step per tick.
 */
int32_t hearth_schedule_create(const hearth_fixes *fixes, const int64_t *received_ms, const hearth_schedule_settings *settings, hearth_schedule **out);

#define HEARTH_STEP_UPLOAD 0 /* hearth_ingest_batch of the upload's fixes at time_ms */
#define HEARTH_STEP_TICK 1   /* hearth_ingest_tick to time_ms */

/** One step of the server, in order. */
typedef struct hearth_step {
  /** The receipt time, or the time a tick moves the clock to. */
  int64_t time_ms;
  /** The upload's fixes: positions first_row … first_row + row_count − 1 of hearth_schedule_rows (0 for a tick). */
  int64_t first_row;
  int64_t row_count;
  /** HEARTH_STEP_UPLOAD or HEARTH_STEP_TICK. */
  int32_t kind;
  /** 1 for an upload the ingest path refuses whole (HEARTH_ERROR_SCHEMA: it moves no clock), else 0. */
  int32_t refused;
} hearth_step;

/** How many steps, and how many rows (every fix of the history once). Either pointer may be NULL. */
int32_t hearth_schedule_count(const hearth_schedule *schedule, int64_t *steps, int64_t *rows);

/** Copies the steps in order (capacity ≥ their number, else HEARTH_ERROR_CAPACITY). */
int32_t hearth_schedule_steps(const hearth_schedule *schedule, int64_t capacity, hearth_step *out);

/**
 * Copies the rows: positions (from 0) of the history's fixes, upload after
 * upload, each upload's in the order its phone sent them (capacity ≥ their
 * number, else HEARTH_ERROR_CAPACITY).
 */
int32_t hearth_schedule_rows(const hearth_schedule *schedule, int64_t capacity, int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* HEARTH_H */
