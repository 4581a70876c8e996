// C reference loops for hearth-bench. Not part of any library.
//
// hearth-bench compiles this file when it starts, with the system C compiler:
//   cc -O3 -march=native -ffast-math -fPIC -shared reference.c -lm
// so that gcc may call glibc's vector math (libmvec) for sin, cos and asin.
// Each function is the loop a careful C programmer would write for the same
// job as the Swift kernel it is timed against, on the same arrays.
#include <math.h>
#include <stdint.h>

#define EARTH_RADIUS_METERS 6371008.8
#define RADIANS_PER_DEGREE (M_PI / 180.0)

void ref_haversine_pairs(const double *lat1, const double *lon1, const double *lat2,
                         const double *lon2, double *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double dlat = (lat2[i] - lat1[i]) * RADIANS_PER_DEGREE;
    double dlon = (lon2[i] - lon1[i]) * RADIANS_PER_DEGREE;
    double s1 = sin(0.5 * dlat), s2 = sin(0.5 * dlon);
    double h = s1 * s1 + cos(lat1[i] * RADIANS_PER_DEGREE) * cos(lat2[i] * RADIANS_PER_DEGREE) * s2 * s2;
    out[i] = 2.0 * EARTH_RADIUS_METERS * asin(sqrt(h));
  }
}

void ref_haversine_one_to_many(double lat0, double lon0, const double *lat, const double *lon,
                               double *out, int64_t n) {
  double c0 = cos(lat0 * RADIANS_PER_DEGREE);
  for (int64_t i = 0; i < n; i++) {
    double s1 = sin(0.5 * (lat[i] - lat0) * RADIANS_PER_DEGREE);
    double s2 = sin(0.5 * (lon[i] - lon0) * RADIANS_PER_DEGREE);
    double h = s1 * s1 + c0 * cos(lat[i] * RADIANS_PER_DEGREE) * s2 * s2;
    out[i] = 2.0 * EARTH_RADIUS_METERS * asin(sqrt(h));
  }
}

// Steps between consecutive points and their running sum. Cosines are
// computed once per point in blocks, as the Swift kernel does.
void ref_track_distances(const double *lat, const double *lon, double *steps,
                         double *cumulative, int64_t n) {
  enum { BLOCK = 512 };
  double cosines[BLOCK + 1];
  if (n <= 0) return;
  steps[0] = 0.0;
  for (int64_t start = 0; start < n - 1;) {
    int64_t end = start + BLOCK < n - 1 ? start + BLOCK : n - 1;
    for (int64_t j = 0; j <= end - start; j++) cosines[j] = cos(lat[start + j] * RADIANS_PER_DEGREE);
    for (int64_t i = start + 1; i <= end; i++) {
      int64_t j = i - start;
      double s1 = sin(0.5 * (lat[i] - lat[i - 1]) * RADIANS_PER_DEGREE);
      double s2 = sin(0.5 * (lon[i] - lon[i - 1]) * RADIANS_PER_DEGREE);
      double h = s1 * s1 + cosines[j - 1] * cosines[j] * s2 * s2;
      steps[i] = 2.0 * EARTH_RADIUS_METERS * asin(sqrt(h));
    }
    start = end;
  }
  double sum = 0.0;
  for (int64_t i = 0; i < n; i++) {
    sum += steps[i];
    cumulative[i] = sum;
  }
}

// Latitude-band grid snap with the same tables the Swift grid uses (passed in,
// so both sides use bit-identical column counts). bands: per band r, two
// doubles at 2r: columns per degree and column width; the column count is
// recovered exactly by rounding 360 * columns per degree.
void ref_grid_snap(const double *lat, const double *lon, int64_t n, double rows_per_degree,
                   double last_row, double row_height, const double *bands, int64_t *ids,
                   double *centre_lat, double *centre_lon) {
  for (int64_t i = 0; i < n; i++) {
    double y = (lat[i] + 90.0) * rows_per_degree;
    y = y >= 0.0 ? y : 0.0;
    y = y < last_row ? y : last_row;
    int32_t row = (int32_t)y;
    const double *band = bands + 2 * (int64_t)row;
    double last_column = rint(360.0 * band[0]) - 1.0;
    double wrapped = lon[i] >= 180.0 ? lon[i] - 360.0 : lon[i];
    double x = (wrapped + 180.0) * band[0];
    x = x >= 0.0 ? x : 0.0;
    x = x < last_column ? x : last_column;
    int32_t column = (int32_t)x;
    int valid = fabs(lat[i]) <= 90.0 && fabs(lon[i]) <= 180.0;
    ids[i] = valid ? ((int64_t)row << 32 | (int64_t)column) : -1;
    // A polar cap's centre is its pole; any other band's, its middle.
    double middle = ((double)row + 0.5) * row_height - 90.0;
    double centre = row == 0 ? -90.0 : ((double)row == last_row ? 90.0 : middle);
    centre_lat[i] = valid ? centre : NAN;
    centre_lon[i] = valid ? ((double)column + 0.5) * band[1] - 180.0 : NAN;
  }
}

// Geofence screening, all pairs: for each fix (a unit vector), the smallest
// place whose circle holds it, by dot product against each place's unit
// vector and cos(radius / R); places are given smallest radius first, so the
// first hit is the answer. -1 when none.
void ref_geofence_all_pairs(const double *fx, const double *fy, const double *fz, int64_t n,
                            const double *px, const double *py, const double *pz,
                            const double *cos_radius, int64_t m, int32_t *out) {
  for (int64_t i = 0; i < n; i++) {
    int32_t found = -1;
    for (int64_t j = 0; j < m; j++) {
      double dot = fx[i] * px[j] + fy[i] * py[j] + fz[i] * pz[j];
      if (dot >= cos_radius[j]) { found = (int32_t)j; break; }
    }
    out[i] = found;
  }
}

// The impact detector's per-sample features in one plain pass, as the
// reference for the streaming detector: accelerometer (slow gravity estimate
// for the jolt, fast one for the vibration band, vertical component, RMS per
// whole second, free-fall runs, jolts), gyroscope magnitude peak, pressure
// summed. Returns the number of jolt samples; writes one RMS per second into
// bins (capacity max_bins), their count, the number of free-fall runs, the
// peak spin and the pressure sum.
int64_t ref_impact_features(const double *t, const double *x, const double *y, const double *z, int64_t n,
                            const double *gx, const double *gy, const double *gz, int64_t ng,
                            const double *hpa, int64_t nb, double tau_gravity, double tau_vibration,
                            double jolt, double free_fall, double *bins, int64_t max_bins,
                            int64_t *bin_count, int64_t *fall_count, double *peak_spin, double *pressure_sum) {
  double sx = x[0], sy = y[0], sz = z[0], fx = x[0], fy = y[0], fz = z[0];
  double last = t[0] - 1, second = -1e300, sum = 0;
  int64_t count = 0, nbins = 0, jolts = 0, falling = 0, falls = 0;
  for (int64_t i = 0; i < n; i++) {
    double dt = t[i] - last;
    if (dt > 1) dt = 1;
    last = t[i];
    double dx = x[i] - sx, dy = y[i] - sy, dz = z[i] - sz;
    double dyn = sqrt(dx * dx + dy * dy + dz * dz);
    double norm = sqrt(sx * sx + sy * sy + sz * sz);
    double vx = x[i] - fx, vy = y[i] - fy, vz = z[i] - fz;
    double vertical = norm > 0 ? (vx * sx + vy * sy + vz * sz) / norm : 0;
    double a = dt / (tau_gravity + dt), b = dt / (tau_vibration + dt);
    sx += a * (x[i] - sx); sy += a * (y[i] - sy); sz += a * (z[i] - sz);
    fx += b * (x[i] - fx); fy += b * (y[i] - fy); fz += b * (z[i] - fz);
    double s = floor(t[i]);
    if (s != second) {
      if (count > 0 && nbins < max_bins) bins[nbins++] = sqrt(sum / (double)count);
      second = s; sum = 0; count = 0;
    }
    sum += vertical * vertical; count++;
    double total = sqrt(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
    if (total < free_fall) falling = 1; else if (falling) { falls++; falling = 0; }
    if (dyn >= jolt) jolts++;
  }
  double peak = 0;
  for (int64_t i = 0; i < ng; i++) {
    double w = sqrt(gx[i] * gx[i] + gy[i] * gy[i] + gz[i] * gz[i]);
    if (w > peak) peak = w;
  }
  double p = 0;
  for (int64_t i = 0; i < nb; i++) p += hpa[i];
  *bin_count = nbins;
  *peak_spin = peak;
  *pressure_sum = p;
  *fall_count = falls;
  return jolts;
}
