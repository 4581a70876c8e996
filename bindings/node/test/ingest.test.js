'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const hearth = require('..');
const support = require('./support');

const TICK_MS = 60000; // `hearth geo replay`'s default --tick
const IDLE_MS = 6 * 3600000; // and how long its timer runs after a receipt
const RECORDS = new Set(['geofence', 'speedAlert', 'suddenStop', 'trip', 'stay']);

function fixture() {
  const folder = support.temporaryDirectory('ingest');
  const placesFile = path.join(folder, 'places.geojson');
  fs.writeFileSync(placesFile, support.placesGeoJSON());
  const rows = support.history();
  const log = path.join(folder, 'uploads.csv');
  fs.writeFileSync(log, support.uploadLogCSV(rows));
  return { folder, placesFile, rows, log, description: support.serverDescription(placesFile, rows) };
}

/**
 * A server's loop over the uploads: the timer ticks every minute between
 * receipts (for up to 6 h after one), each upload is ingested at its receipt.
 * Returns every record the pipeline produced, in order.
 */
function serve(pipeline, uploads) {
  const out = [];
  let clock = null;
  for (const upload of uploads) {
    if (clock !== null) {
      const stop = Math.min(upload.received_ms, clock + IDLE_MS);
      for (let t = clock; t < stop && stop - t > TICK_MS; ) {
        t += TICK_MS;
        out.push(...pipeline.tick(t).events);
      }
    }
    let result;
    try {
      result = pipeline.batch(support.columns(upload.rows), upload.received_ms);
    } catch (error) {
      if (error.code !== 'HEARTH_ERROR_SCHEMA') throw error;
      result = error.result;
    }
    out.push(...result.events);
    clock = upload.received_ms;
  }
  return out;
}

test('the same records as `hearth geo replay` on one history', () => {
  const f = fixture();
  const expected = support
    .hearthCommand('geo', 'replay', f.log, '--places', f.placesFile)
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
  const pipeline = new hearth.Ingest(f.description);
  const events = serve(pipeline, support.uploads(f.rows));
  const records = events.filter((e) => RECORDS.has(e.type));
  const types = new Set(records.map((e) => e.type));
  assert.ok(types.has('geofence') && types.has('trip') && types.has('stay'), [...types].join(','));
  assert.ok(records.some((e) => e.placeName === 'School'));
  assert.deepEqual(records, expected);
  // The diagnostics come first in each output: the future fix was rejected with the library's reason.
  assert.ok(events.some((e) => e.type === 'rejected'), 'a rejected line');
  pipeline.close();
});

test('events are plain objects with the command field names, and counts come along', () => {
  const f = fixture();
  const pipeline = new hearth.Ingest(f.description);
  const [first] = support.uploads(f.rows);
  const output = pipeline.batch(support.columns(first.rows), first.received_ms);
  assert.equal(output.inserted, first.rows.length);
  assert.equal(output.duplicates, 0);
  const again = pipeline.batch(support.columns(first.rows), first.received_ms + 1000);
  assert.equal(again.inserted, 0);
  assert.equal(again.duplicates, first.rows.length);
  for (const e of output.events) {
    assert.equal(Object.getPrototypeOf(e), Object.prototype);
    assert.equal(typeof e.type, 'string');
  }
  pipeline.close();
});

test('save and restore: the restored pipeline gives the same future records', () => {
  const f = fixture();
  const all = support.uploads(f.rows);
  const half = Math.floor(all.length / 2);
  const a = new hearth.Ingest(f.description);
  serve(a, all.slice(0, half));
  const state = a.save();
  assert.ok(state instanceof Uint8Array && state.length > 0);
  const b = new hearth.Ingest(f.description);
  b.restore(state);
  const rest = all.slice(half);
  assert.deepEqual(serve(b, rest), serve(a, rest));
  a.close();
  b.close();
});

test('bad saved bytes are refused with the library message and change nothing', () => {
  const f = fixture();
  const pipeline = new hearth.Ingest(f.description);
  const [first, second] = support.uploads(f.rows);
  pipeline.batch(support.columns(first.rows), first.received_ms);
  const before = Buffer.from(pipeline.save());
  assert.throws(() => pipeline.restore(Buffer.from('not a state')), (error) => {
    assert.equal(error.code, 'HEARTH_ERROR_BAD_INPUT');
    assert.equal(error.status, 2);
    assert.ok(error.message.length > 0 && error.message !== error.statusName, error.message);
    return true;
  });
  assert.deepEqual(Buffer.from(pipeline.save()), before);
  pipeline.batch(support.columns(second.rows), second.received_ms);
  pipeline.close();
});

test('reconfigure keeps the state and reports what it dropped; a bad description is named', () => {
  const f = fixture();
  const pipeline = new hearth.Ingest(f.description);
  serve(pipeline, support.uploads(f.rows).slice(0, 3));
  const dropped = pipeline.reconfigure({ ...f.description, speed_limits_kmh: {} });
  assert.equal(typeof dropped, 'number');
  // The library's errors, with its messages: a file it cannot read, a description it cannot parse.
  assert.throws(
    () => pipeline.reconfigure({ ...f.description, places_file: '/nonexistent/places.geojson' }),
    (error) => error.code === 'HEARTH_ERROR_BAD_INPUT' && /\/nonexistent\/places\.geojson/.test(error.message),
  );
  assert.throws(
    () => new hearth.Ingest({ places: [{ id: 1, circle: 7, latitude_deg: 52.5, longitude_deg: 13.4, radius_m: 'far' }] }),
    (error) => error.code === 'HEARTH_ERROR_BAD_INPUT' && /not a description of places and circles/.test(error.message),
  );
  assert.throws(() => new hearth.Ingest('{'), (error) => error.code === 'HEARTH_ERROR_BAD_INPUT');
  assert.throws(() => new hearth.Ingest(7), { name: 'TypeError', message: /description: expected a string/ });
  pipeline.close();
});

test('a batch with a latitude out of range is refused whole: the library error and its schemaError line', () => {
  const f = fixture();
  const pipeline = new hearth.Ingest(f.description);
  const [first] = support.uploads(f.rows);
  const fixes = support.columns(first.rows);
  fixes.latitude_deg[3] = 91;
  assert.throws(() => pipeline.batch(fixes, first.received_ms), (error) => {
    assert.equal(error.code, 'HEARTH_ERROR_SCHEMA');
    assert.match(error.message, /fix 3/);
    assert.ok(error.result.events.some((e) => e.type === 'schemaError'));
    return true;
  });
  fixes.latitude_deg[3] = 52.5;
  assert.equal(pipeline.batch(fixes, first.received_ms).inserted, first.rows.length);
  pipeline.close();
});

test('many async batches in flight give the sequential results, in order', async () => {
  const f = fixture();
  const all = support.uploads(f.rows);
  const sequential = new hearth.Ingest(f.description);
  const expected = all.map((u) => sequential.batch(support.columns(u.rows), u.received_ms));
  const concurrent = new hearth.Ingest(f.description);
  const pending = all.map((u) => concurrent.batchAsync(support.columns(u.rows), u.received_ms));
  assert.throws(() => concurrent.tick(all[0].received_ms), (error) => error.code === 'HEARTH_BUSY');
  assert.deepEqual(await Promise.all(pending), expected);
  // Once they are done, synchronous calls are served again, from the same state.
  const later = all[all.length - 1].received_ms + 7200000;
  assert.deepEqual(concurrent.tick(later), sequential.tick(later));
  sequential.close();
  concurrent.close();
});

test('an async batch with a bad column rejects by name; plain arrays are converted', async () => {
  const f = fixture();
  const pipeline = new hearth.Ingest(f.description);
  const [first] = support.uploads(f.rows);
  const fixes = support.columns(first.rows);
  await assert.rejects(pipeline.batchAsync({ ...fixes, lat: fixes.latitude_deg }, first.received_ms), /unknown column 'lat'/);
  await assert.rejects(pipeline.batchAsync({ ...fixes, user: Float64Array.from(fixes.user) }, first.received_ms), /fixes\.user: expected a Uint32Array/);
  const plain = {
    time_ms: first.rows.map((r) => r.time_ms),
    latitude_deg: first.rows.map((r) => r.latitude),
    longitude_deg: first.rows.map((r) => r.longitude),
    horizontal_accuracy_m: first.rows.map((r) => r.accuracy_m),
    speed_mps: first.rows.map((r) => (Number.isNaN(r.speed_mps) ? null : r.speed_mps)),
    device: first.rows.map((r) => r.device),
    user: first.rows.map((r) => r.user),
  };
  const typed = new hearth.Ingest(f.description);
  assert.deepEqual(await pipeline.batchAsync(plain, first.received_ms), typed.batch(fixes, first.received_ms));
  assert.throws(() => pipeline.batch({ ...plain, time_ms: [1.5] }, 0), /fixes\.time_ms\[0\]: 1\.5 is not a whole number/);
  pipeline.close();
  typed.close();
});

test('close() releases the handle: later calls are refused, closing twice is fine', () => {
  const pipeline = new hearth.Ingest({});
  pipeline.close();
  pipeline.close();
  assert.throws(() => pipeline.tick(0), (error) => error.code === 'HEARTH_CLOSED' && /Ingest is closed/.test(error.message));
});
