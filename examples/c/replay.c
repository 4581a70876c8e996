/*
 * replay: a recording through libhearth's detector (and, with --places,
 * through the server's ingest path), printing what `hearth impact detect`
 * prints. The proof that plain C links the maths; the test suite compiles it
 * with gcc and compares its output with the command's.
 *
 *   Scripts/install-libhearth --prefix /opt/hearth
 *   gcc -std=c11 -Wall -Wextra -Werror examples/c/replay.c \
 *       $(PKG_CONFIG_PATH=/opt/hearth/lib/pkgconfig pkg-config --cflags --libs hearth) \
 *       -Wl,-rpath,/opt/hearth/lib -o replay
 *   ./replay [--format text|json|csv] [--config FILE] [--ingest] PATH...
 *
 * Exit status as the command's: 0 nothing reported, 1 a possible impact was
 * reported, 2 usage, 3 a PATH was bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hearth.h"

/* Reads a whole file into a NUL-terminated string (NULL on failure). */
static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t size = 0, capacity = 4096;
  char *text = malloc(capacity);
  size_t n;
  while (text && (n = fread(text + size, 1, capacity - size - 1, f)) > 0) {
    size += n;
    if (capacity - size < 2) {
      char *bigger = realloc(text, capacity *= 2);
      if (!bigger) free(text);
      text = bigger;
    }
  }
  fclose(f);
  if (text) text[size] = '\0';
  return text;
}

/* The recording's fixes through the ingest path in uploads of at most 200
   fixes, each received a second after its newest; counts on stderr. */
static int ingest(const char *path, hearth_trace *trace) {
  int64_t n = 0;
  if (hearth_trace_count(trace, HEARTH_STREAM_FIXES, &n) != HEARTH_OK || n == 0) return 0;
  int64_t *time_ms = malloc((size_t)n * sizeof *time_ms);
  double *lat = malloc((size_t)n * sizeof *lat), *lon = malloc((size_t)n * sizeof *lon);
  double *acc = malloc((size_t)n * sizeof *acc), *speed = malloc((size_t)n * sizeof *speed);
  uint32_t *user = malloc((size_t)n * sizeof *user), *device = malloc((size_t)n * sizeof *device);
  hearth_fixes_out out = {0};
  out.time_ms = time_ms;
  out.latitude_deg = lat;
  out.longitude_deg = lon;
  out.horizontal_accuracy_m = acc;
  out.speed_mps = speed;
  out.user = user;
  out.device = device;
  int status = hearth_trace_fixes(trace, n, &out);
  hearth_ingest *pipeline = NULL;
  if (status == HEARTH_OK) status = hearth_ingest_create("{}", &pipeline);
  int64_t events = 0, inserted = 0, uploads = 0, clock = INT64_MIN;
  for (int64_t start = 0; status == HEARTH_OK && start < n; uploads++) {
    int64_t end = start + 1;
    while (end < n && end - start < 200 && time_ms[end] - time_ms[start] <= 300000) end++;
    hearth_fixes batch = {0};
    batch.count = end - start;
    batch.time_ms = time_ms + start;
    batch.latitude_deg = lat + start;
    batch.longitude_deg = lon + start;
    batch.horizontal_accuracy_m = acc + start;
    batch.speed_mps = speed + start;
    batch.user = user + start;
    batch.device = device + start;
    int64_t newest = time_ms[start];
    for (int64_t i = start; i < end; i++) newest = time_ms[i] > newest ? time_ms[i] : newest;
    if (newest + 1000 > clock) clock = newest + 1000;
    status = hearth_ingest_batch(pipeline, &batch, clock);
    if (status == HEARTH_ERROR_SCHEMA) status = HEARTH_OK; /* counted, the rest go on */
    int64_t e = 0, k = 0, d = 0;
    if (status == HEARTH_OK) status = hearth_ingest_count(pipeline, &e, &k, &d);
    events += e;
    inserted += k;
    start = end;
  }
  if (status == HEARTH_OK) fprintf(stderr, "%s: ingest: %lld fixes in %lld uploads, %lld new, %lld events\n", path,
                                   (long long)n, (long long)uploads, (long long)inserted, (long long)events);
  else fprintf(stderr, "%s: ingest: %s\n", path, hearth_last_error(pipeline ? (void *)pipeline : (void *)trace));
  hearth_release(pipeline);
  free(time_ms), free(lat), free(lon), free(acc), free(speed), free(user), free(device);
  return status == HEARTH_OK ? 0 : 3;
}

int main(int argc, char **argv) {
  if ((hearth_abi_version() >> 16) != HEARTH_ABI_VERSION_MAJOR) {
    fprintf(stderr, "replay: libhearth ABI %#x, built against %#x\n", hearth_abi_version(), HEARTH_ABI_VERSION);
    return 2;
  }
  int32_t format = HEARTH_FORMAT_TEXT;
  char *configuration = NULL;
  int with_ingest = 0, first = 1;
  for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
    if (strcmp(argv[first], "--ingest") == 0) {
      with_ingest = 1;
    } else if (strcmp(argv[first], "--format") == 0 && first + 1 < argc) {
      const char *f = argv[++first];
      format = strcmp(f, "json") == 0 ? HEARTH_FORMAT_JSON : strcmp(f, "csv") == 0 ? HEARTH_FORMAT_CSV : HEARTH_FORMAT_TEXT;
    } else if (strcmp(argv[first], "--config") == 0 && first + 1 < argc) {
      if (!(configuration = read_file(argv[++first]))) {
        fprintf(stderr, "%s: cannot read the configuration file\n", argv[first]);
        return 3;
      }
    } else {
      fprintf(stderr, "usage: replay [--format text|json|csv] [--config FILE] [--ingest] PATH...\n");
      return 2;
    }
  }
  if (first >= argc) {
    fprintf(stderr, "usage: replay [--format text|json|csv] [--config FILE] [--ingest] PATH...\n");
    return 2;
  }
  int reported = 0, failed = 0;
  for (int p = first; p < argc; p++) {
    hearth_trace *trace = NULL;
    hearth_detector *detector = NULL;
    hearth_bytes *report = NULL;
    int status = hearth_trace_read(argv[p], NULL, &trace);
    void *failing = trace;
    if (status == HEARTH_OK) status = hearth_detector_create(configuration, &detector), failing = detector;
    if (status == HEARTH_OK) status = hearth_detector_feed_trace(detector, trace, HEARTH_GATE_RECORDING);
    if (status == HEARTH_OK) status = hearth_detector_finish(detector);
    if (status == HEARTH_OK) {
      /* One CSV header for every PATH, as the command prints. */
      int32_t shown = format == HEARTH_FORMAT_CSV && p > first ? HEARTH_FORMAT_CSV : format;
      status = hearth_detector_report(detector, argv[p], shown, &report);
      failing = report;
      if (status == HEARTH_OK) {
        const uint8_t *data = hearth_bytes_data(report);
        int64_t size = hearth_bytes_size(report), skip = 0;
        if (shown == HEARTH_FORMAT_CSV && p > first)
          while (skip < size && data[skip++] != '\n') {}
        fwrite(data + skip, 1, (size_t)(size - skip), stdout);
      }
      int64_t verdicts = 0;
      hearth_detector_count(detector, &verdicts, NULL);
      hearth_verdict *v = calloc((size_t)(verdicts > 0 ? verdicts : 1), sizeof *v);
      if (v && hearth_detector_verdicts(detector, verdicts, v) == HEARTH_OK)
        for (int64_t i = 0; i < verdicts; i++) reported |= v[i].outcome == HEARTH_OUTCOME_POSSIBLE_IMPACT;
      free(v);
    }
    if (status != HEARTH_OK) {
      fprintf(stderr, "%s: %s: %s\n", argv[p], hearth_status_name(status), hearth_last_error(failing));
      failed++;
    } else if (with_ingest && ingest(argv[p], trace) != 0) {
      failed++;
    }
    hearth_release(report);
    hearth_release(detector);
    hearth_release(trace);
  }
  free(configuration);
  return failed ? 3 : reported ? 1 : 0;
}
