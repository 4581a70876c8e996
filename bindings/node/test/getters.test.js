'use strict';
// A synchronous call that reads several columns (Ingest.batch, Grid.project,
// validate) runs the caller's JavaScript while it reads them: getters, a
// Proxy's traps, accessors on a plain Array's elements. That code may detach
// or shrink a column already read. The call must then refuse cleanly, naming
// the column (a TypeError, code HEARTH_ERROR_ARGUMENT), and the process must
// live: the library never sees a pointer into a buffer that is gone. Each
// hostile case runs in a process of its own, so a regression is a crash
// reported here, not a dead test runner.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const hearth = require('..');
const support = require('./support');

// What every child has: the package, large columns (so a stale pointer meets
// freed pages or someone else's memory), ways to detach and to churn the heap,
// and `outcome`, which catches what a call throws.
const prelude = `
  const hearth = require(${JSON.stringify(support.packageDir)});
  const N = 1000000, t0 = 1718085600000;
  function detach(array) { structuredClone(array.buffer, { transfer: [array.buffer] }); }
  function churn(n) { for (let k = 0; k < 3; k++) new Float64Array(n).fill(1); }
  function columns(n) {
    const time_ms = new BigInt64Array(n);
    for (let i = 0; i < n; i++) time_ms[i] = BigInt(t0 + i * 1000);
    return { time_ms, latitude_deg: new Float64Array(n).fill(52.5), longitude_deg: new Float64Array(n).fill(13.4),
      horizontal_accuracy_m: new Float64Array(n).fill(10), device: new Uint32Array(n).fill(1), user: new Uint32Array(n).fill(42) };
  }
  function outcome(f) {
    try { f(); return { returned: true }; }
    catch (e) { return { name: e.name, code: e.code, message: e.message, typeError: e instanceof TypeError }; }
  }
  const calls = {
    batch: (fixes) => new hearth.Ingest({}).batch(fixes, t0 + N * 1000),
    project: (fixes) => new hearth.Grid(750).project(fixes, { min_accuracy_m: 100, slot_ms: 60000 }),
    validate: (fixes) => hearth.validate(fixes, { now_ms: t0 + N * 1000, max_future_ms: 300000, max_age_ms: 86400000 * 30 }),
  };
  const call = calls[process.argv[1]];
`;

/** Runs `body` (after the prelude) in a new node for entry point `which`; it must exit 0 and print JSON. */
function inChild(which, body) {
  const run = spawnSync(process.execPath, ['-e', prelude + body, which], { encoding: 'utf8', timeout: 120000 });
  assert.equal(run.signal, null, `${which}: the child died of ${run.signal}\n${run.stderr}`);
  assert.equal(run.status, 0, `${which}: the child exited ${run.status}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

function assertDetached(result, column) {
  assert.equal(result.typeError, true, JSON.stringify(result));
  assert.equal(result.code, 'HEARTH_ERROR_ARGUMENT');
  assert.equal(
    result.message,
    `fixes.${column}: the array's buffer was detached (transferred) while the arguments were read; the call was not made`);
}

function assertChanged(result, column, from, to) {
  assert.equal(result.typeError, true, JSON.stringify(result));
  assert.equal(result.code, 'HEARTH_ERROR_ARGUMENT');
  assert.equal(
    result.message,
    `fixes.${column}: the array's length changed from ${from} to ${to} elements while the arguments were read; the call was not made`);
}

const entryPoints = ['batch', 'project', 'validate'];

for (const which of entryPoints) {
  test(`${which}: a getter on a later column detaches earlier ones; a clean TypeError naming the first`, () => {
    const result = inChild(which, `
      const fixes = columns(N);
      const user = fixes.user;
      delete fixes.user;
      Object.defineProperty(fixes, 'user', { enumerable: true, get() {
        detach(fixes.time_ms); detach(fixes.latitude_deg); churn(N); return user;
      } });
      process.stdout.write(JSON.stringify(outcome(() => call(fixes))));
    `);
    assertDetached(result, 'time_ms');
  });

  test(`${which}: a Proxy's get trap shrinks an earlier column's resizable buffer; refused with both lengths`, () => {
    const result = inChild(which, `
      const fixes = columns(N);
      const buffer = new ArrayBuffer(8 * N, { maxByteLength: 8 * N });
      const latitude = new Float64Array(buffer); // tracks the buffer's length
      latitude.fill(52.5);
      fixes.latitude_deg = latitude;
      const proxy = new Proxy(fixes, { get(target, key) {
        if (key === 'horizontal_accuracy_m') { buffer.resize(8 * 10); churn(N); }
        return target[key];
      } });
      process.stdout.write(JSON.stringify(outcome(() => call(proxy))));
    `);
    assertChanged(result, 'latitude_deg', 1000000, 10);
  });

  test(`${which}: an accessor on a plain Array column's element detaches an earlier typed column`, () => {
    const result = inChild(which, `
      const n = 1000;
      const fixes = columns(n);
      const accuracy = Array.from({ length: n }, () => 10);
      Object.defineProperty(accuracy, n - 1, { get() { detach(fixes.longitude_deg); churn(N); return 10; } });
      fixes.horizontal_accuracy_m = accuracy;
      process.stdout.write(JSON.stringify(outcome(() => call(fixes))));
    `);
    assertDetached(result, 'longitude_deg');
  });

  test(`${which}: a fixed-length view over a resizable buffer left out of bounds by a getter is refused`, () => {
    const result = inChild(which, `
      const fixes = columns(N);
      const buffer = new ArrayBuffer(8 * N, { maxByteLength: 8 * N });
      fixes.longitude_deg = new Float64Array(buffer, 0, N).fill(13.4);
      const device = fixes.device;
      delete fixes.device;
      Object.defineProperty(fixes, 'device', { enumerable: true, get() { buffer.resize(8); churn(N); return device; } });
      process.stdout.write(JSON.stringify(outcome(() => call(fixes))));
    `);
    assertChanged(result, 'longitude_deg', 1000000, 0);
  });
}

test('the reproducer (/tmp/nd/sync_getter.js, SIGSEGV 3/3 before): refused, and the same pipeline works on', () => {
  const result = inChild('batch', `
    const ingest = new hearth.Ingest({}), calm = new hearth.Ingest({});
    const fixes = columns(N), user = fixes.user;
    fixes.latitude_deg[N - 1] = 91;
    delete fixes.user;
    Object.defineProperty(fixes, 'user', { enumerable: true, get() {
      detach(fixes.time_ms); detach(fixes.latitude_deg); churn(N); return user;
    } });
    const refused = outcome(() => ingest.batch(fixes, t0 + N * 1000));
    // Nothing was ingested: the next batch gives what an untouched pipeline gives.
    const fresh = columns(1000);
    const same = JSON.stringify(ingest.batch(fresh, t0 + 1000 * 1000)) === JSON.stringify(calm.batch(fresh, t0 + 1000 * 1000));
    process.stdout.write(JSON.stringify({ refused, same }));
  `);
  assertDetached(result.refused, 'time_ms');
  assert.equal(result.same, true);
});

test('a getter that closes the handle or starts async work on it: refused by the handle check, not run', () => {
  const result = inChild('batch', `
    const closing = new hearth.Ingest({}), busy = new hearth.Ingest({}), grid = new hearth.Grid(750);
    const closer = (handle) => { const fixes = columns(10), user = fixes.user; delete fixes.user;
      Object.defineProperty(fixes, 'user', { enumerable: true, get() { handle.close(); return user; } }); return fixes; };
    const starter = () => { const fixes = columns(10), user = fixes.user; delete fixes.user;
      Object.defineProperty(fixes, 'user', { enumerable: true, get() { busy._native.batchAsync(columns(10), t0); return user; } }); return fixes; };
    process.stdout.write(JSON.stringify({
      closed: outcome(() => closing.batch(closer(closing), t0)),
      projectClosed: outcome(() => grid.project(closer(grid), { min_accuracy_m: 100, slot_ms: 60000 })),
      busy: outcome(() => busy._native.batch(starter(), t0)),
      busyAsync: outcome(() => busy._native.batchAsync(starter(), t0)),
    }));
  `);
  assert.equal(result.closed.code, 'HEARTH_CLOSED', JSON.stringify(result.closed));
  assert.equal(result.projectClosed.code, 'HEARTH_CLOSED', JSON.stringify(result.projectClosed));
  assert.equal(result.busy.code, 'HEARTH_BUSY', JSON.stringify(result.busy));
  assert.equal(result.busyAsync.code, 'HEARTH_BUSY', JSON.stringify(result.busyAsync));
});

/** The same columns behind getters that do nothing else, and behind a Proxy that only forwards. */
function disguises(fixes) {
  const getters = {};
  for (const [key, value] of Object.entries(fixes)) Object.defineProperty(getters, key, { enumerable: true, get: () => value });
  return [getters, new Proxy({ ...fixes }, {})];
}

test('harmless getters and Proxies: batch, project and validate give the results of a plain object', () => {
  const placesFile = path.join(support.temporaryDirectory('getters'), 'places.geojson');
  fs.writeFileSync(placesFile, support.placesGeoJSON());
  const rows = support.history();
  const description = support.serverDescription(placesFile, rows);
  const plain = new hearth.Ingest(description);
  const others = [new hearth.Ingest(description), new hearth.Ingest(description)];
  for (const upload of support.uploads(rows)) {
    const expected = plain.batch(support.columns(upload.rows), upload.received_ms);
    disguises(support.columns(upload.rows)).forEach((fixes, k) => {
      assert.deepEqual(others[k].batch(fixes, upload.received_ms), expected);
    });
  }
  const grid = new hearth.Grid(750);
  const fixes = support.columns(rows);
  const projected = grid.project(fixes, { min_accuracy_m: 500, slot_ms: 60000 });
  const options = { now_ms: rows[rows.length - 1].received_ms, max_future_ms: 300000, max_age_ms: 86400000 };
  const verdicts = hearth.validate(fixes, options);
  for (const disguised of disguises(fixes)) {
    assert.deepEqual(grid.project(disguised, { min_accuracy_m: 500, slot_ms: 60000 }), projected);
    assert.deepEqual(hearth.validate(disguised, options), verdicts);
  }
  // A plain Array column, converted, mixed with typed ones behind getters.
  const mixed = disguises({ ...fixes, horizontal_accuracy_m: Array.from(fixes.horizontal_accuracy_m) })[0];
  assert.deepEqual(hearth.validate(mixed, options), verdicts);
  grid.close();
  plain.close();
  for (const ingest of others) ingest.close();
});
