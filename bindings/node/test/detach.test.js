'use strict';
// Async calls run on the libuv pool while JavaScript goes on; whatever the
// caller does to its arrays meanwhile (detach them by a transfer, shrink a
// resizable buffer) the call must give the right result or reject cleanly,
// and the process must live. Inputs are copied when the call is made, so
// their results are right; an output the caller gave that is gone when the
// work completes is a TypeError naming it, and nothing is written.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const hearth = require('..');
const support = require('./support');

/** Detaches the array's buffer as a transfer to another realm would; the clone is garbage at once. */
function detach(array) {
  structuredClone(array.buffer, { transfer: [array.buffer] });
  assert.equal(array.length, 0);
}

/** Fresh allocations of the size of the freed buffers, so a stale pointer would meet someone else's memory. */
function churn(n) {
  for (let k = 0; k < 3; k++) new Float64Array(n).fill(1);
}

function columns(n, seed) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return [0, 1, 2, 3].map((k) => Float64Array.from({ length: n }, () => (k % 2 === 0 ? 52.3 + next() * 0.4 : 13.1 + next() * 0.6)));
}

const copies = (arrays) => arrays.map((a) => a.slice());

/** A rejection for an output array the call could not write: a TypeError naming it. */
function detachedOutput(name) {
  return (error) =>
    error instanceof TypeError &&
    error.code === 'HEARTH_ERROR_ARGUMENT' &&
    error.message.startsWith(`${name}: `) &&
    /detached \(transferred\) during the call; no result was written/.test(error.message);
}

const N = 1000000;

test('without detaching, async results are the synchronous ones, in new arrays and in the caller\'s', async () => {
  const [a, b, c, d] = columns(N, 3);
  const expected = hearth.distances(a, b, c, d);
  assert.deepEqual(await hearth.distancesAsync(a, b, c, d), expected);
  // Into the caller's array, a view at an offset, which is what the promise resolves to.
  const out = new Float64Array(new ArrayBuffer(8 * (N + 3)), 24, N);
  const result = await hearth.distancesAsync(a, b, c, d, out);
  assert.equal(result, out);
  assert.deepEqual(out, expected);
  // Output and input the same array: as the synchronous call does it in place.
  const inPlace = c.slice();
  hearth.distances(a, b, inPlace, d, inPlace);
  const asyncInPlace = c.slice();
  assert.equal(await hearth.distancesAsync(a, b, asyncInPlace, d, asyncInPlace), asyncInPlace);
  assert.deepEqual(asyncInPlace, inPlace);
  const from = hearth.distancesFrom(52.5, 13.4, c, d);
  assert.deepEqual(await hearth.distancesFromAsync(52.5, 13.4, c, d), from);
  const fromOut = new Float64Array(N);
  assert.equal(await hearth.distancesFromAsync(52.5, 13.4, c, d, fromOut), fromOut);
  assert.deepEqual(fromOut, from);
  const grid = new hearth.Grid(750);
  const snapped = grid.snap(a, b);
  assert.deepEqual(await grid.snapAsync(a, b), snapped);
  const given = { cell_id: new BigInt64Array(N), centre_lat_deg: new Float64Array(N), centre_lon_deg: new Float64Array(N) };
  const into = await grid.snapAsync(a, b, given);
  assert.equal(into.cell_id, given.cell_id);
  assert.equal(into.centre_lat_deg, given.centre_lat_deg);
  assert.equal(into.centre_lon_deg, given.centre_lon_deg);
  assert.deepEqual(into, snapped);
  grid.close();
});

test('distancesAsync: every input detached during the call, the result is still right', async () => {
  const inputs = columns(N, 5);
  const expected = hearth.distances(...copies(inputs));
  const pending = hearth.distancesAsync(...inputs);
  for (const column of inputs) detach(column);
  churn(N);
  assert.deepEqual(await pending, expected);
});

test('distancesAsync: the output detached during the call is a clean rejection; the next call works', async () => {
  const inputs = columns(N, 6);
  const out = new Float64Array(N);
  const pending = hearth.distancesAsync(...inputs, out);
  detach(out);
  churn(N);
  await assert.rejects(pending, detachedOutput('out_m'));
  assert.deepEqual(await hearth.distancesAsync(...inputs, new Float64Array(N)), hearth.distances(...inputs));
});

test('distancesAsync: an output that shrinks during the call is refused and not written', async () => {
  const inputs = columns(N, 7);
  const buffer = new ArrayBuffer(8 * N, { maxByteLength: 8 * N });
  const tracking = new Float64Array(buffer); // follows the buffer's length
  const fixed = new Float64Array(new ArrayBuffer(8 * N, { maxByteLength: 8 * N }), 0, N); // out of bounds once shrunk
  const first = hearth.distancesAsync(...inputs, tracking);
  const second = hearth.distancesAsync(...inputs, fixed);
  buffer.resize(8 * 10);
  tracking.fill(-1);
  fixed.buffer.resize(8);
  const shrank = (length) => (error) =>
    error instanceof TypeError && error.code === 'HEARTH_ERROR_ARGUMENT' &&
    error.message === `out_m: the array shrank to ${length} elements during the call (${N} expected); no result was written`;
  await Promise.all([assert.rejects(first, shrank(10)), assert.rejects(second, shrank(0))]);
  assert.deepEqual(tracking, new Float64Array(10).fill(-1));
});

test('distancesFromAsync: inputs detached or shrunk during the call give the right result; a detached output rejects', async () => {
  const [lat, lon] = columns(N, 8);
  const expected = hearth.distancesFrom(52.5, 13.4, lat, lon);
  const resizable = new ArrayBuffer(8 * N, { maxByteLength: 8 * N });
  const lonResizable = new Float64Array(resizable);
  lonResizable.set(lon);
  const latCopy = lat.slice();
  const pending = hearth.distancesFromAsync(52.5, 13.4, latCopy, lonResizable);
  detach(latCopy);
  resizable.resize(0);
  churn(N);
  assert.deepEqual(await pending, expected);
  const out = new Float64Array(N);
  const refused = hearth.distancesFromAsync(52.5, 13.4, lat, lon, out);
  detach(out);
  await assert.rejects(refused, detachedOutput('out_m'));
});

test('Grid.snapAsync: inputs detached during the call give the right result; any detached output rejects and none is written', async () => {
  const grid = new hearth.Grid(750);
  const [lat, lon] = columns(N, 9);
  const expected = grid.snap(lat, lon);
  const inputs = [lat.slice(), lon.slice()];
  const pending = grid.snapAsync(...inputs);
  for (const column of inputs) detach(column);
  churn(N);
  assert.deepEqual(await pending, expected);
  for (const name of ['cell_id', 'centre_lat_deg', 'centre_lon_deg']) {
    const given = { cell_id: new BigInt64Array(N), centre_lat_deg: new Float64Array(N), centre_lon_deg: new Float64Array(N) };
    const refused = grid.snapAsync(lat, lon, given);
    detach(given[name]);
    churn(N);
    await assert.rejects(refused, detachedOutput(name));
    // All or nothing: the arrays still attached were not written either.
    for (const other of Object.keys(given)) if (other !== name) assert.ok(given[other].every((x) => x == 0), `${other} untouched`);
  }
  // The grid serves on, and closes, after the refusals.
  assert.deepEqual(await grid.snapAsync(lat, lon), expected);
  grid.close();
});

test('Ingest.batchAsync: columns detached once the call has started give the same output as an undisturbed pipeline', async () => {
  const placesFile = path.join(support.temporaryDirectory('detach'), 'places.geojson');
  fs.writeFileSync(placesFile, support.placesGeoJSON());
  const rows = support.history();
  const description = support.serverDescription(placesFile, rows);
  const all = support.uploads(rows);
  const calm = new hearth.Ingest(description);
  const disturbed = new hearth.Ingest(description);
  for (const upload of all) {
    const expected = calm.batch(support.columns(upload.rows), upload.received_ms);
    const fixes = support.columns(upload.rows);
    const pending = disturbed.batchAsync(fixes, upload.received_ms);
    await null; // the queue starts the native call a microtask after batchAsync returns
    for (const column of Object.values(fixes)) detach(column);
    churn(upload.rows.length);
    assert.deepEqual(await pending, expected);
  }
  // The same state after: the next tick gives the same records.
  const later = all[all.length - 1].received_ms + 7200000;
  assert.deepEqual(disturbed.tick(later), calm.tick(later));
  // Detached before the queue starts the call: the columns were copied when it was made (review47).
  const fixes = support.columns(all[0].rows);
  const early = disturbed.batchAsync(fixes, all[0].received_ms);
  detach(fixes.latitude_deg);
  assert.deepEqual(await early, calm.batch(support.columns(all[0].rows), all[0].received_ms));
  calm.close();
  disturbed.close();
});

test('the hostile reproducers: 10^6–5·10^6 elements detached mid-call, in a process of their own, which exits 0', () => {
  // What /work/hostile/node/detach_segv.js and n5.js did (exit 139 before the fix), with this package,
  // and the same for a large ingest batch (the queue starts the native call a microtask later).
  const script = `
    const hearth = require(${JSON.stringify(support.packageDir)});
    const N = 5000000, which = process.argv[1];
    const lat = new Float64Array(N).fill(52.5), lon = new Float64Array(N).fill(13.4);
    let p, victim = lat;
    if (which === 'pairs') p = hearth.distancesAsync(lat, lon, lon, lon);
    if (which === 'snap') p = new hearth.Grid(750).snapAsync(lat, lon);
    if (which === 'from') p = hearth.distancesFromAsync(1, 1, lat, lon);
    if (which === 'out') { victim = new Float64Array(N); p = hearth.distancesAsync(lon, lon, lon, lon, victim); }
    if (which === 'ingest') {
      // 10^6 fixes of one person, every column detached once the queue has started the call; the
      // last latitude is out of range, so the library reads every row and refuses the batch (quick).
      const n = 1000000, t0 = 1718085600000, time = new BigInt64Array(n);
      for (let i = 0; i < n; i++) time[i] = BigInt(t0 + i * 1000);
      const fixes = { time_ms: time, latitude_deg: new Float64Array(n).fill(52.5), longitude_deg: new Float64Array(n).fill(13.4),
        horizontal_accuracy_m: new Float64Array(n).fill(10), device: new Uint32Array(n).fill(1), user: new Uint32Array(n).fill(42) };
      fixes.latitude_deg[n - 1] = 91;
      p = new hearth.Ingest({}).batchAsync(fixes, t0 + n * 1000);
      setImmediate(() => {
        for (const column of Object.values(fixes)) structuredClone(column.buffer, { transfer: [column.buffer] });
        for (let k = 0; k < 3; k++) new Float64Array(N).fill(1);
      });
    } else {
      structuredClone(victim.buffer, { transfer: [victim.buffer] });
      for (let k = 0; k < 3; k++) new Float64Array(N).fill(1);
    }
    p.then(() => console.log('finished'), (e) => console.log('rejected', e.message));`;
  const cases = [['pairs', 'finished'], ['snap', 'finished'], ['from', 'finished'], ['out', 'rejected out_m'], ['ingest', 'rejected fix 999999: latitude 91']];
  for (const [which, outcome] of cases) {
    const run = spawnSync(process.execPath, ['-e', script, which], { encoding: 'utf8' });
    assert.equal(run.signal, null, `${which}: killed by ${run.signal}`);
    assert.equal(run.status, 0, `${which}: ${run.stderr}`);
    assert.ok(run.stdout.startsWith(outcome), `${which}: ${run.stdout}`);
  }
});
