'use strict';
// What a careless or hostile server hands the package (review47, of the Node
// door): a getter that throws, arrays reused while a batch waits in the
// queue, overlapping outputs for the async snap, option names with a typo.
// Each gets a clear error or the right result; the process lives.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const hearth = require('..');
const support = require('./support');

const T0 = 1718085600000;

function oneFix(latitude) {
  return {
    time_ms: new BigInt64Array([BigInt(T0)]),
    latitude_deg: new Float64Array([latitude]),
    longitude_deg: new Float64Array([13.405]),
    horizontal_accuracy_m: new Float64Array([10]),
    user: new Uint32Array([42]),
    device: new Uint32Array([1]),
  };
}

const argumentError = (pattern) => (error) => error.code === 'HEARTH_ERROR_ARGUMENT' && pattern.test(error.message);

test('a column getter that throws: its own error, from every call that reads fixes, in a process that lives', () => {
  // Before: the unchecked property read left a value unset and the process died (SIGSEGV) in validate.
  const script = `
    const hearth = require(${JSON.stringify(support.packageDir)});
    const fixes = () => ({ get time_ms() { throw new Error('boom'); } });
    const calls = [
      () => hearth.validate(fixes(), { now_ms: 0, max_future_ms: 0, max_age_ms: 0 }),
      () => new hearth.Ingest({}).batch(fixes(), 0),
      () => new hearth.Grid(750).project(fixes(), { min_accuracy_m: 1, slot_ms: 1 }),
    ];
    const seen = calls.map((call) => { try { call(); return 'returned'; } catch (e) { return e.message; } });
    new hearth.Ingest({}).batchAsync(fixes(), 0).then(() => seen.push('resolved'), (e) => seen.push(e.message))
      .then(() => console.log(JSON.stringify(seen)));`;
  for (let round = 0; round < 3; round++) {
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(run.signal, null, `killed by ${run.signal}: ${run.stderr}`);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), ['boom', 'boom', 'boom', 'boom']);
  }
});

test('Ingest.batchAsync copies the columns when called: arrays reused at once do not change what is ingested', async () => {
  const pipeline = new hearth.Ingest({});
  const expected = new hearth.Ingest({}).batch(oneFix(52.52), T0 + 1000);
  const fixes = oneFix(52.52);
  const pending = pipeline.batchAsync(fixes, T0 + 1000);
  fixes.latitude_deg[0] = 48.85; // the buffer reused for the next upload
  fixes.time_ms = 'garbage';
  assert.deepEqual(await pending, expected);
  // Detached (transferred) right after the call: the same.
  const again = oneFix(52.52);
  const second = new hearth.Ingest({});
  const later = second.batchAsync(again, T0 + 1000);
  structuredClone(again.latitude_deg.buffer, { transfer: [again.latitude_deg.buffer] });
  assert.deepEqual(await later, expected);
  // A Buffer's slice is a view, and a subclass's follows its species: copied all the same (review48).
  const buffer = oneFix(52.52);
  buffer.source = Buffer.from([0]);
  const third = new hearth.Ingest({});
  const viaBuffer = third.batchAsync(buffer, T0 + 1000);
  buffer.source.fill(9);
  assert.deepEqual(await viaBuffer, expected);
  let shared;
  class Shared extends Float64Array {
    static get [Symbol.species]() {
      return function () { return new Float64Array(shared.buffer); }; // a "copy" over the same memory
    }
  }
  const species = oneFix(52.52);
  species.latitude_deg = shared = new Shared([52.52]);
  const fourth = new hearth.Ingest({});
  const viaSpecies = fourth.batchAsync(species, T0 + 1000);
  species.latitude_deg[0] = 48.85;
  assert.deepEqual(await viaSpecies, expected);
  // Columns a class gives as getters (not enumerable) are read as batch reads them.
  class Upload {
    get time_ms() { return [T0]; }
    get latitude_deg() { return [52.52]; }
    get longitude_deg() { return [13.405]; }
    get horizontal_accuracy_m() { return [10]; }
    get user() { return [42]; }
    get device() { return [1]; }
  }
  assert.deepEqual(await new hearth.Ingest({}).batchAsync(new Upload(), T0 + 1000), expected);
  assert.deepEqual(new hearth.Ingest({}).batch(new Upload(), T0 + 1000), expected);
  third.close();
  fourth.close();
  // Already detached when called: refused by name.
  const detached = oneFix(52.52);
  structuredClone(detached.longitude_deg.buffer, { transfer: [detached.longitude_deg.buffer] });
  await assert.rejects(second.batchAsync(detached, T0 + 2000), argumentError(/^fixes\.longitude_deg/));
  pipeline.close();
  second.close();
});

test('Grid.snapAsync refuses overlapping outputs as Grid.snap does, naming the columns', async () => {
  const grid = new hearth.Grid(750);
  const lat = new Float64Array([52.52]);
  const lon = new Float64Array([13.405]);
  const shared = new Float64Array(1);
  const both = { centre_lat_deg: shared, centre_lon_deg: shared };
  const overlap = argumentError(/^centre_lon_deg overlaps centre_lat_deg: outputs may not overlap inputs or each other$/);
  assert.throws(() => grid.snap(lat, lon, both), overlap);
  await assert.rejects(grid.snapAsync(lat, lon, both), overlap);
  const onInput = argumentError(/^centre_lat_deg overlaps lat_deg/);
  assert.throws(() => grid.snap(lat, lon, { centre_lat_deg: lat }), onInput);
  await assert.rejects(grid.snapAsync(lat, lon, { centre_lat_deg: lat }), onInput);
  // A view one element on in the same buffer overlaps too; one past the end does not.
  const buffer = new Float64Array(3);
  const input = buffer.subarray(0, 2);
  await assert.rejects(grid.snapAsync(input, input, { centre_lat_deg: buffer.subarray(1, 3) }), argumentError(/overlaps lat_deg/));
  const apart = new Float64Array(4);
  const cells = await grid.snapAsync(apart.subarray(0, 2), apart.subarray(0, 2), { centre_lat_deg: apart.subarray(2, 4) });
  assert.deepEqual(cells.centre_lat_deg, grid.snap(new Float64Array(2), new Float64Array(2)).centre_lat_deg);
  grid.close();
});

test('Grid.project names a missing column instead of a bare "argument"', () => {
  const grid = new hearth.Grid(750);
  const fixes = { latitude_deg: [52], longitude_deg: [13], horizontal_accuracy_m: [5] };
  assert.throws(() => grid.project(fixes, { min_accuracy_m: 1, slot_ms: 1 }), argumentError(/^fixes\.time_ms is missing with 1 fixes/));
  assert.equal(grid.project({ time_ms: [T0], ...fixes }, { min_accuracy_m: 1, slot_ms: 1 }).cell_id.length, 1);
  grid.close();
});

test('an option the call does not take is refused by name: a typo cannot turn a retry into the end of an incident', () => {
  const verdict = T0;
  const incident = new hearth.Incident(verdict, 'alice');
  incident.check(verdict + 31000, 'alertNow');
  // Before: {httpStatus: 500} passed as http_status 0 and finished the incident ("refused").
  assert.throws(() => incident.check(verdict + 32000, 'http', { httpStatus: 500 }), argumentError(/^Incident\.check: unknown option 'httpStatus'/));
  assert.throws(() => incident.check(verdict + 32000, 'http', null), argumentError(/^Incident\.check: options must be an object/));
  // Inherited, or a class's getter: a read by name would see it, so the check does (review48).
  assert.throws(() => incident.check(verdict + 32000, 'http', Object.create({ httpStatus: 500 })), argumentError(/unknown option 'httpStatus'/));
  class Options { get httpStatus() { return 500; } }
  assert.throws(() => incident.check(verdict + 32000, 'http', new Options()), argumentError(/unknown option 'httpStatus'/));
  assert.equal(incident.check(verdict + 32000, 'http', { http_status: 500 }).action, 'waitUntil');
  const drop = path.join(support.datasets, 'phone-drop-freefall', 'raw_data', 'fall_1');
  assert.throws(() => hearth.detect(drop, { fromat: 'json' }), argumentError(/^detect: unknown option 'fromat'/));
  assert.throws(() => hearth.validate(oneFix(52), { now_ms: T0, max_future_ms: 0, maxAge_ms: 1 }), argumentError(/^validate: unknown option 'maxAge_ms'/));
  const grid = new hearth.Grid(750);
  assert.throws(() => grid.project(oneFix(52), { min_accuracy_m: 1, slot: 1 }), argumentError(/^Grid\.project: unknown option 'slot'/));
  grid.close();
  return assert.rejects(hearth.detectAsync(drop, null), argumentError(/^detect: options must be an object/));
});
