'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hearth = require('..');

const R = 6371008.8;
// A plain haversine, to see that the columns reach the library in their places (not to test its accuracy).
function haversine(lat1, lon1, lat2, lon2) {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

function cityPairs(n, seed = 1) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const columns = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  for (let i = 0; i < n; i++) {
    columns[0][i] = 52.3 + next() * 0.4;
    columns[1][i] = 13.1 + next() * 0.6;
    columns[2][i] = 52.3 + next() * 0.4;
    columns[3][i] = 13.1 + next() * 0.6;
  }
  return columns;
}

test('distances: each pair in its place, and one-to-many the same as pairs', () => {
  const [a, b, c, d] = cityPairs(1000);
  const out = hearth.distances(a, b, c, d);
  assert.ok(out instanceof Float64Array && out.length === 1000);
  for (let i = 0; i < 1000; i++) assert.ok(Math.abs(out[i] - haversine(a[i], b[i], c[i], d[i])) < 1e-6, `pair ${i}`);
  const from = hearth.distancesFrom(a[0], b[0], c, d);
  const pairs = hearth.distances(new Float64Array(1000).fill(a[0]), new Float64Array(1000).fill(b[0]), c, d);
  assert.deepEqual(from, pairs);
  assert.ok(Number.isNaN(hearth.distances(Float64Array.of(91), Float64Array.of(0), Float64Array.of(0), Float64Array.of(0))[0]));
});

test('a Float64Array of 10^6 pairs is read and written in place, without copies', () => {
  const n = 1000000;
  // Four input columns as views at offsets into one buffer, the output a view into another.
  const inputs = new ArrayBuffer(8 * (4 * n + 1));
  const cols = [0, 1, 2, 3].map((k) => new Float64Array(inputs, 8 * (1 + k * n), n));
  const [a, b, c, d] = cityPairs(n, 7);
  cols[0].set(a);
  cols[1].set(b);
  cols[2].set(c);
  cols[3].set(d);
  const outputs = new ArrayBuffer(8 * (n + 2));
  const out = new Float64Array(outputs, 16, n);
  out.fill(-1); // its pages are resident before the call: the call itself should add none
  const external = process.memoryUsage().arrayBuffers;
  const peak = process.resourceUsage().maxRSS; // KiB
  const result = hearth.distances(cols[0], cols[1], cols[2], cols[3], out);
  // No new ArrayBuffer, and no 8 MB column copied anywhere (the peak resident size barely moves).
  assert.equal(result, out);
  assert.equal(result.buffer, outputs);
  assert.ok(process.memoryUsage().arrayBuffers - external < 1 << 20);
  assert.ok(process.resourceUsage().maxRSS - peak < 4 * 1024, `peak grew ${process.resourceUsage().maxRSS - peak} KiB`);
  assert.equal(new Float64Array(outputs, 0, 2).every((x) => x === 0), true);
  for (const i of [0, 1, 4242, 500000, n - 1]) assert.ok(Math.abs(out[i] - haversine(a[i], b[i], c[i], d[i])) < 1e-6);
});

test('many async distance calls in flight give the sequential results', async () => {
  const batches = Array.from({ length: 40 }, (_, k) => cityPairs(20000 + k, k + 1));
  const expected = batches.map((cols) => hearth.distances(...cols));
  const results = await Promise.all(batches.map((cols) => hearth.distancesAsync(...cols)));
  assert.deepEqual(results, expected);
  const from = await Promise.all(batches.map((cols) => hearth.distancesFromAsync(52.5, 13.4, cols[2], cols[3])));
  assert.deepEqual(from, batches.map((cols) => hearth.distancesFrom(52.5, 13.4, cols[2], cols[3])));
});

test('bad arguments are refused by name', async () => {
  const [a, b, c, d] = cityPairs(3);
  assert.throws(() => hearth.distances([1, 2, 3], b, c, d), { name: 'TypeError', message: /lat1_deg: expected a Float64Array/ });
  assert.throws(() => hearth.distances(a, b, c.subarray(1), d), { name: 'RangeError', message: /lat2_deg has 2 elements but lat1_deg has 3/ });
  assert.throws(() => hearth.distances(a, b, c, d, new Float32Array(3)), /out_m: expected a Float64Array/);
  assert.throws(() => hearth.distances(a, b, c, d, new Float64Array(2)), /out_m has 2 elements/);
  assert.throws(() => hearth.distancesFrom('52', 13, c, d), /origin_lat_deg: expected a number/);
  await assert.rejects(hearth.distancesAsync(a, b, c, 'd'), /lon2_deg: expected a Float64Array/);
});

test('track distances: steps and the running path length', () => {
  const [a, b] = cityPairs(50);
  const { steps_m, cumulative_m } = hearth.trackDistances(a, b);
  assert.equal(steps_m[0], 0);
  for (let i = 1; i < 50; i++) assert.ok(Math.abs(steps_m[i] - haversine(a[i - 1], b[i - 1], a[i], b[i])) < 1e-6);
  assert.ok(Math.abs(cumulative_m[49] - steps_m.reduce((x, y) => x + y, 0)) < 1e-6);
});

test('grid: snap in place or into new arrays, async snaps in flight agree, bad sizes are the library error', async () => {
  const grid = new hearth.Grid(750);
  const [a, b] = cityPairs(5000, 3);
  const cells = grid.snap(a, b);
  assert.ok(cells.cell_id instanceof BigInt64Array && cells.centre_lat_deg instanceof Float64Array);
  assert.ok(cells.cell_id.every((id) => id >= 0n));
  const into = { cell_id: new BigInt64Array(5000), centre_lat_deg: new Float64Array(5000), centre_lon_deg: new Float64Array(5000) };
  const same = grid.snap(a, b, into);
  assert.equal(same.cell_id, into.cell_id);
  assert.deepEqual(into, cells);
  const many = await Promise.all(Array.from({ length: 20 }, () => grid.snapAsync(a, b)));
  for (const m of many) assert.deepEqual(m, cells);
  // A NaN point has no cell: the library's -1 and NaN centre come through.
  const bad = grid.snap(Float64Array.of(NaN), Float64Array.of(13));
  assert.equal(bad.cell_id[0], -1n);
  assert.ok(Number.isNaN(bad.centre_lat_deg[0]));
  assert.throws(() => new hearth.Grid(0.5), (error) => error.code === 'HEARTH_ERROR_ARGUMENT' && /cell_size_m/.test(error.message));
  const pending = grid.snapAsync(a, b);
  grid.close(); // released once the snap in flight is done
  assert.deepEqual(await pending, cells);
  assert.throws(() => grid.snap(a, b), /Grid is closed/);
});

test('privacy projection: cells, widened accuracy and time slots from the library', () => {
  const grid = new hearth.Grid(750);
  const fixes = {
    time_ms: new BigInt64Array([1718085600123n, 1718085659999n, 1718085660000n]),
    latitude_deg: Float64Array.of(52.52, 52.52, 52.6),
    longitude_deg: Float64Array.of(13.405, 13.405, 13.5),
    horizontal_accuracy_m: Float64Array.of(5, NaN, 2000),
  };
  const p = grid.project(fixes, { min_accuracy_m: 1000, slot_ms: 60000 });
  assert.deepEqual([...p.accuracy_m], [1000, 1000, 2000]);
  assert.deepEqual([...p.slot_start_ms], [1718085600000n, 1718085600000n, 1718085660000n]);
  assert.deepEqual([...p.cell_id.subarray(0, 2)], [...grid.snap(fixes.latitude_deg.subarray(0, 2), fixes.longitude_deg.subarray(0, 2)).cell_id]);
  // The grid keeps no message; the library says why when asked (ABI 1.6).
  assert.throws(() => grid.project(fixes, { min_accuracy_m: 1000, slot_ms: 0 }),
    { code: 'HEARTH_ERROR_ARGUMENT', message: /^min_accuracy_m 1000\.0, slot_ms 0: the time slot must be positive, not 0 ms/ });
  assert.throws(() => grid.project(fixes, { min_accuracy_m: Infinity, slot_ms: 60000 }),
    { code: 'HEARTH_ERROR_ARGUMENT', message: /the minimum accuracy must be a finite number of metres, not inf/ });
  assert.throws(() => grid.project(fixes, { min_accuracy_m: 1000 }), /slot_ms: expected a whole number/);
  grid.close();
});

test('validation: a reason per fix, a schema error for the batch, options by name', () => {
  const now = 1718085600000;
  const fixes = {
    time_ms: [now, now + 300001, now - 86400001, now],
    latitude_deg: [52.5, 52.5, 52.5, 52.5],
    longitude_deg: [13.4, 13.4, 13.4, 13.4],
    horizontal_accuracy_m: [10, 10, 10, null],
  };
  const options = { now_ms: now, max_future_ms: 300000, max_age_ms: 86400000 };
  assert.deepEqual(hearth.validate(fixes, options), ['accepted', 'inFuture', 'tooOld', 'accuracyMissing']);
  assert.deepEqual(hearth.validate({ ...fixes, time_ms: [now, now + 300000, now - 86400000, now] }, options).slice(0, 3), ['accepted', 'accepted', 'accepted']);
  assert.throws(() => hearth.validate({ ...fixes, longitude_deg: [13.4, 13.4, 181, NaN] }, options), (error) => {
    assert.equal(error.code, 'HEARTH_ERROR_SCHEMA');
    assert.deepEqual(error.schema, { index: 2, field: 'longitude', reason: 'outside its range', value: 181 });
    assert.match(error.message, /fix 2: longitude 181 is outside its range/);
    return true;
  });
  assert.throws(() => hearth.validate(fixes, { now_ms: now, max_future_ms: 300000 }), /max_age_ms: expected a whole number/);
  // hearth_validate has no handle for its reason; the library says it when asked (ABI 1.6).
  assert.throws(() => hearth.validate(fixes, { ...options, max_future_ms: -1 }), { code: 'HEARTH_ERROR_ARGUMENT', message: /^max_future_ms is -1, below 0/ });
  assert.throws(() => hearth.validate(fixes, { ...options, max_age_ms: -2 }), { code: 'HEARTH_ERROR_ARGUMENT', message: /^max_age_ms is -2, below 0/ });
  assert.throws(() => hearth.validate({ ...fixes, activity: [1, 9, 1, 1] }, options), { code: 'HEARTH_ERROR_ARGUMENT', message: /^fix 1: fixes\.activity 9 is not a known code/ });
  // A value the recording readers refuse is rejected with its field's reason
  // (ABI 1.5); iOS's -1 is "not measured", each bound itself is taken.
  const ranged = {
    time_ms: Array(8).fill(now),
    latitude_deg: Array(8).fill(52.5),
    longitude_deg: Array(8).fill(13.4),
    horizontal_accuracy_m: [10, 100001, 10, 10, 10, 10, 10, 100000],
    speed_mps: [600.001, 1, Infinity, -1, 1, 1, 1, 600],
    heading_deg: [1, 1, 1, -1, 360.5, 1, 1, 360],
    altitude_m: [0, 0, 0, 0, 0, -2001, 0, -2000],
    battery_level: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.01, 1],
  };
  assert.deepEqual(hearth.validate(ranged, options), [
    'speedOutOfRange', 'accuracyOutOfRange', 'speedOutOfRange', 'accepted', 'headingOutOfRange', 'altitudeOutOfRange',
    'batteryOutOfRange', 'accepted']);
  assert.throws(() => hearth.validate({ ...fixes, accuracy_m: [1, 1, 1, 1] }, options), /unknown column 'accuracy_m'/);
  assert.throws(() => hearth.validate({ ...fixes, latitude_deg: [52.5] }, options), /fixes\.latitude_deg has 1 elements but time_ms has 4/);
  assert.throws(() => hearth.validate({ ...fixes, activity: [0, 1, 2, 256] }, options), /fixes\.activity\[3\]: outside the range of a Uint8Array element/);
  // A missing required column is the library's to refuse.
  assert.throws(() => hearth.validate({ time_ms: fixes.time_ms, latitude_deg: fixes.latitude_deg }, options), (error) => error.code === 'HEARTH_ERROR_ARGUMENT');
});

// review19: an output laid over an input one element on gave wrong rows in the synchronous
// calls, which hand the caller's memory straight to the library. The distance calls now write
// through the library's own buffer when the output overlaps an input: right rows however the
// arrays lie, as the async calls (which copy their inputs) always gave.
test('an output laid over an input gets the right rows, shifted or in place, sync and async', async () => {
  const n = 100;
  const [a, b, c, d] = cityPairs(n);
  const expected = hearth.distances(a, b, c, d);
  const from = hearth.distancesFrom(a[0], b[0], c, d);
  for (const shift of [1, 0]) {
    const shared = new Float64Array(n + 1);
    shared.set(a, 0);
    hearth.distances(shared.subarray(0, n), b, c, d, shared.subarray(shift, shift + n));
    assert.deepEqual(shared.subarray(shift, shift + n), expected, `distances, shift ${shift}`);
    shared.set(c, 0);
    hearth.distancesFrom(a[0], b[0], shared.subarray(0, n), d, shared.subarray(shift, shift + n));
    assert.deepEqual(shared.subarray(shift, shift + n), from, `distancesFrom, shift ${shift}`);
    shared.set(a, 0);
    const out = shared.subarray(shift, shift + n);
    assert.deepEqual(await hearth.distancesAsync(shared.subarray(0, n), b, c, d, out), expected);
  }
});
