'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const support = require('./support');

test('handles not closed are released by the finaliser once unreachable', () => {
  // A pipeline holds megabytes of native state; forty left to the collector must give most of
  // it back (judged against what they took, not a fixed size: the state shrinks as it improves).
  const script = `
    const hearth = require(${JSON.stringify(support.packageDir)});
    const rss = () => process.memoryUsage().rss;
    const description = { places: [{ id: 1, circle: 7, latitude_deg: 52.5, longitude_deg: 13.4, radius_m: 100 }] };
    global.gc();
    const before = rss();
    let kept = Array.from({ length: 40 }, () => new hearth.Ingest(description));
    const held = rss();
    kept = null;
    global.gc();
    setImmediate(() => {
      global.gc();
      console.log(JSON.stringify({ before, held, after: rss() }));
    });`;
  const out = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' }));
  const took = out.held - out.before;
  assert.ok(took > 16 * 1048576, `forty handles took only ${took} bytes`);
  assert.ok(out.held - out.after > took / 2, `resident ${out.before} → ${out.held} → ${out.after} bytes`);
});

test('close() releases at once and twice is harmless; a closed handle is refused by name', () => {
  const hearth = require('..');
  const grid = new hearth.Grid(750);
  grid.close();
  grid.close();
  assert.throws(() => grid.snap(Float64Array.of(1), Float64Array.of(1)), { code: 'HEARTH_CLOSED', message: 'Grid is closed' });
  const incident = new hearth.Incident(0, 'a');
  incident.close();
  assert.throws(() => incident.save(), { code: 'HEARTH_CLOSED', message: 'Incident is closed' });
});
