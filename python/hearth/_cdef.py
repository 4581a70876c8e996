"""The C declarations of libhearth that Python calls, for cffi's ABI mode.

Kept by hand beside include/hearth.h (the one documented header): the same
declarations without the comments and preprocessor guards. A test
(tests/test_cdef.py) compares the two declaration by declaration, so an ABI
change that forgets this file fails the suite.
"""

CDEF = """
#define HEARTH_ABI_VERSION_MAJOR 1
#define HEARTH_ABI_VERSION_MINOR 3
#define HEARTH_ABI_VERSION_PATCH 0
#define HEARTH_ABI_VERSION 0x010300
uint32_t hearth_abi_version(void);
#define HEARTH_OK 0
#define HEARTH_ERROR_ARGUMENT 1
#define HEARTH_ERROR_BAD_INPUT 2
#define HEARTH_ERROR_SCHEMA 3
#define HEARTH_ERROR_STATE 4
#define HEARTH_ERROR_CAPACITY 5
const char *hearth_status_name(int32_t status);
typedef struct hearth_bytes hearth_bytes;
typedef struct hearth_grid hearth_grid;
typedef struct hearth_dedupe hearth_dedupe;
typedef struct hearth_trace hearth_trace;
typedef struct hearth_detector hearth_detector;
typedef struct hearth_incident hearth_incident;
typedef struct hearth_sweep hearth_sweep;
typedef struct hearth_ingest hearth_ingest;
typedef struct hearth_schedule hearth_schedule;
const char *hearth_last_error(const void *handle);
void hearth_release(void *handle);
const uint8_t *hearth_bytes_data(const hearth_bytes *bytes);
int64_t hearth_bytes_size(const hearth_bytes *bytes);
int32_t hearth_distances_m(
    int64_t count, const double *lat1_deg, const double *lon1_deg, const double *lat2_deg,
    const double *lon2_deg, double *out_m);
int32_t hearth_distances_from_m(
    double origin_lat_deg, double origin_lon_deg, int64_t count, const double *lat_deg,
    const double *lon_deg, double *out_m);
int32_t hearth_track_distances_m(
    int64_t count, const double *lat_deg, const double *lon_deg, double *steps_m,
    double *cumulative_m);
int32_t hearth_grid_create(double cell_size_m, hearth_grid **out);
int32_t hearth_grid_snap(
    const hearth_grid *grid, int64_t count, const double *lat_deg, const double *lon_deg,
    int64_t *cell_id, double *centre_lat_deg, double *centre_lon_deg);
int32_t hearth_privacy_project(
    const hearth_grid *grid, double min_accuracy_m, int64_t slot_ms, int64_t count,
    const int64_t *time_ms, const double *lat_deg, const double *lon_deg,
    const double *accuracy_m, int64_t *cell_id, double *centre_lat_deg, double *centre_lon_deg,
    double *accuracy_out_m, int64_t *slot_start_ms);
#define HEARTH_ACTIVITY_UNKNOWN 0
#define HEARTH_ACTIVITY_STILL 1
#define HEARTH_ACTIVITY_WALKING 2
#define HEARTH_ACTIVITY_RUNNING 3
#define HEARTH_ACTIVITY_CYCLING 4
#define HEARTH_ACTIVITY_AUTOMOTIVE 5
#define HEARTH_SOURCE_ORDINARY 0
#define HEARTH_SOURCE_HEARTBEAT 1
#define HEARTH_SOURCE_PARK 2
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
#define HEARTH_SCHEMA_NOT_FINITE 1
#define HEARTH_SCHEMA_OUT_OF_RANGE 2
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
int32_t hearth_validate(
    const hearth_fixes *fixes, int64_t now_ms, int64_t max_future_ms, int64_t max_age_ms,
    int32_t *verdict, hearth_schema_error *schema);
#define HEARTH_DEDUPE_INSERTED 0
#define HEARTH_DEDUPE_DUPLICATE 1
#define HEARTH_DEDUPE_STILL_ADOPTED 2
int32_t hearth_dedupe_create(hearth_dedupe **out);
int32_t hearth_dedupe_insert(hearth_dedupe *dedupe, const hearth_fixes *fixes, int32_t *outcome);
int32_t hearth_dedupe_count(const hearth_dedupe *dedupe, int64_t *count);
#define HEARTH_STREAM_ACCELEROMETER 0
#define HEARTH_STREAM_GYROSCOPE 1
#define HEARTH_STREAM_BAROMETER 2
#define HEARTH_STREAM_FIXES 3
#define HEARTH_STREAM_ACTIVITIES 4
int32_t hearth_trace_read(const char *path, const char *mapping_path, hearth_trace **out);
int32_t hearth_trace_count(const hearth_trace *trace, int32_t stream, int64_t *count);
int32_t hearth_trace_samples(
    const hearth_trace *trace, int32_t stream, int64_t capacity, double *t_s, double *x,
    double *y, double *z);
int32_t hearth_trace_fixes(const hearth_trace *trace, int64_t capacity, const hearth_fixes_out *out);
int32_t hearth_trace_info(const hearth_trace *trace, hearth_bytes **out);
int32_t hearth_trace_create(const char *metadata_json, hearth_trace **out);
int32_t hearth_trace_append(
    hearth_trace *trace, int32_t stream, int64_t count, const double *t_s, const double *x,
    const double *y, const double *z);
int32_t hearth_trace_append_fixes(hearth_trace *trace, const hearth_fixes *fixes);
int32_t hearth_trace_write(const hearth_trace *trace, const char *folder);
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
  int32_t vehicle_gate;
} hearth_sensor_batch;
#define HEARTH_GATE_RECORDING 0
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
const char *hearth_condition_name(int32_t condition);
const char *hearth_condition_unit(int32_t condition);
typedef struct hearth_verdict {
  int32_t outcome;
  int32_t used_gps;
  double jolt_s;
  double decided_s;
  double jolt_g;
  int64_t first_condition;
  int64_t condition_count;
} hearth_verdict;
typedef struct hearth_condition {
  int64_t verdict;
  int32_t condition;
  int32_t held;
  double measured;
  double threshold;
} hearth_condition;
int32_t hearth_detector_create(const char *configuration_json, hearth_detector **out);
int32_t hearth_detector_feed(hearth_detector *detector, const hearth_sensor_batch *batch);
int32_t hearth_detector_feed_trace(hearth_detector *detector, const hearth_trace *trace, int32_t gate);
int32_t hearth_detector_finish(hearth_detector *detector);
int32_t hearth_detector_count(const hearth_detector *detector, int64_t *verdicts, int64_t *conditions);
int32_t hearth_detector_verdicts(const hearth_detector *detector, int64_t capacity, hearth_verdict *out);
int32_t hearth_detector_conditions(const hearth_detector *detector, int64_t capacity, hearth_condition *out);
int32_t hearth_detector_counters(const hearth_detector *detector, int64_t *skipped_samples, int64_t *jolts_gate_off);
#define HEARTH_FORMAT_TEXT 0
#define HEARTH_FORMAT_JSON 1
#define HEARTH_FORMAT_CSV 2
int32_t hearth_detector_report(
    const hearth_detector *detector, const char *file_name, int32_t format, hearth_bytes **out);
int32_t hearth_configuration_json(const char *configuration_json, hearth_bytes **out);
#define HEARTH_INPUT_NOTHING 0
#define HEARTH_INPUT_DISMISSED 1
#define HEARTH_INPUT_ALERT_NOW 2
#define HEARTH_INPUT_DELIVERED 3
#define HEARTH_INPUT_NETWORK_FAILURE 4
#define HEARTH_INPUT_HTTP 5
#define HEARTH_INPUT_FIREWALL_PAGE 6
#define HEARTH_INPUT_UPLOAD_SUCCEEDED 7
#define HEARTH_INPUT_SIGNED_IN 8
#define HEARTH_ACTION_NONE 0
#define HEARTH_ACTION_ASK 1
#define HEARTH_ACTION_SEND 2
#define HEARTH_ACTION_WAIT_UNTIL 3
#define HEARTH_ACTION_FINISHED 4
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
int32_t hearth_incident_create(int64_t verdict_ms, const char *account, hearth_incident **out);
int32_t hearth_incident_check(
    hearth_incident *incident, int64_t now_ms, int32_t input, int32_t http_status,
    int32_t tokens_held, const char *account, hearth_incident_action *action);
int32_t hearth_incident_save(const hearth_incident *incident, hearth_bytes **out);
int32_t hearth_incident_restore(const uint8_t *state, int64_t size, hearth_incident **out);
int32_t hearth_sweep_plan(const char *spec_json, hearth_sweep **out);
int32_t hearth_sweep_task_count(const hearth_sweep *sweep, int64_t *count);
int32_t hearth_sweep_run_task(const hearth_sweep *sweep, int64_t index, hearth_bytes **out);
int32_t hearth_sweep_run_trace(
    const hearth_sweep *sweep, const hearth_trace *trace, const char *name, hearth_bytes **out);
int32_t hearth_sweep_merge(
    hearth_sweep *sweep, int64_t count, const uint8_t *const *extractions, const int64_t *sizes);
#define HEARTH_SWEEP_TABLE 0
#define HEARTH_SWEEP_OUTCOMES 1
#define HEARTH_SWEEP_JOLTS 2
#define HEARTH_SWEEP_CONFIGURATIONS 3
#define HEARTH_SWEEP_RESULT 4
#define HEARTH_SWEEP_REPORT 5
int32_t hearth_sweep_export(const hearth_sweep *sweep, int32_t what, hearth_bytes **out);
int32_t hearth_sweep_write(const hearth_sweep *sweep, const char *folder, int64_t picked);
int32_t hearth_ingest_create(const char *description_json, hearth_ingest **out);
int32_t hearth_ingest_batch(hearth_ingest *ingest, const hearth_fixes *fixes, int64_t received_ms);
int32_t hearth_ingest_tick(hearth_ingest *ingest, int64_t now_ms);
#define HEARTH_EVENT_REJECTED 0
#define HEARTH_EVENT_SHARED_FRAME 1
#define HEARTH_EVENT_GEOFENCE 2
#define HEARTH_EVENT_SPEED_ALERT 3
#define HEARTH_EVENT_SUDDEN_STOP 4
#define HEARTH_EVENT_TRIP 5
#define HEARTH_EVENT_STAY 6
typedef struct hearth_event {
  int32_t kind;
  int32_t code;
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
int32_t hearth_ingest_count(const hearth_ingest *ingest, int64_t *events, int64_t *inserted, int64_t *duplicates);
int32_t hearth_ingest_kept(const hearth_ingest *ingest, int64_t *not_newer, int64_t *overruled);
int32_t hearth_ingest_events(const hearth_ingest *ingest, int64_t capacity, hearth_event *out);
int32_t hearth_ingest_events_json(const hearth_ingest *ingest, hearth_bytes **out);
int32_t hearth_ingest_save(const hearth_ingest *ingest, hearth_bytes **out);
int32_t hearth_ingest_restore(hearth_ingest *ingest, const uint8_t *state, int64_t size);
int32_t hearth_ingest_reconfigure(hearth_ingest *ingest, const char *description_json, int64_t *dropped);
#define HEARTH_NAMED_NONE 0
#define HEARTH_NAMED_BY_FENCE 1
#define HEARTH_NAMED_BY_PLACE_AT 2
typedef struct hearth_trip_names {
  int64_t event;
  uint32_t start_place;
  int32_t start_named_by;
  uint32_t end_place;
  int32_t end_named_by;
  double start_distance_m;
} hearth_trip_names;
int32_t hearth_ingest_trip_names(const hearth_ingest *ingest, int64_t capacity, hearth_trip_names *out);
#define HEARTH_ORIGIN_BATCH 0
#define HEARTH_ORIGIN_CLOCK 1
int32_t hearth_ingest_origins(const hearth_ingest *ingest, int64_t capacity, int32_t *out);
typedef struct hearth_schedule_settings {
  int64_t max_fixes;
  int64_t max_span_ms;
  int64_t receipt_delay_ms;
  int64_t tick_ms;
  int64_t idle_ticking_ms;
  int64_t until_ms;
  int64_t linger_ms;
} hearth_schedule_settings;
int32_t hearth_schedule_defaults(hearth_schedule_settings *out);
int32_t hearth_schedule_create(const hearth_fixes *fixes, const int64_t *received_ms, const hearth_schedule_settings *settings, hearth_schedule **out);
#define HEARTH_STEP_UPLOAD 0
#define HEARTH_STEP_TICK 1
typedef struct hearth_step {
  int64_t time_ms;
  int64_t first_row;
  int64_t row_count;
  int32_t kind;
  int32_t refused;
} hearth_step;
int32_t hearth_schedule_count(const hearth_schedule *schedule, int64_t *steps, int64_t *rows);
int32_t hearth_schedule_steps(const hearth_schedule *schedule, int64_t capacity, hearth_step *out);
int32_t hearth_schedule_rows(const hearth_schedule *schedule, int64_t capacity, int64_t *out);
"""
