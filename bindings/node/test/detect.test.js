'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const hearth = require('..');
const support = require('./support');

const drop = path.join(support.datasets, 'phone-drop-freefall', 'raw_data', 'fall_1');
const drive = path.join(support.datasets, 'comma2k19-example', 'Example_1', 'b0c9d2329ad1606b|2018-08-02--08-34-47', '40');

test('detect prints what `hearth impact detect` prints, in every format', () => {
  for (const recording of [drop, drive]) {
    for (const format of ['text', 'json', 'csv']) {
      const expected = support.hearthCommand('impact', 'detect', recording, '--format', format);
      assert.equal(hearth.detect(recording, { format }), expected, `${path.basename(recording)} ${format}`);
    }
  }
  const configured = support.hearthCommand('impact', 'detect', drop, '--format', 'json', '--vehicle-gate', 'on', '--jolt-g', '20');
  assert.equal(hearth.detect(drop, { format: 'json', gate: 'on', configuration: { joltMetersPerSecondSquared: 20 * 9.80665 } }), configured);
});

test('detectAsync: many recordings in flight give the sequential reports', async () => {
  const recordings = [drop, drive, drop, drive, drop, drive];
  const expected = recordings.map((r) => hearth.detect(r, { format: 'csv' }));
  assert.deepEqual(await Promise.all(recordings.map((r) => hearth.detectAsync(r, { format: 'csv' }))), expected);
});

test('a recording or setting the library refuses is its error, named; a bad option is named here', async () => {
  await assert.rejects(hearth.detectAsync('/nonexistent/recording'), (error) => error.code === 'HEARTH_ERROR_BAD_INPUT' && /\/nonexistent\/recording/.test(error.message));
  assert.throws(
    () => hearth.detect(drop, { configuration: { joltMetersPerSecondSquared: 40, joltGee: 5 } }),
    (error) => error.code === 'HEARTH_ERROR_BAD_INPUT' && /unknown setting 'joltGee'/.test(error.message),
  );
  assert.throws(() => hearth.detect(drop, { gate: 'sometimes' }), { name: 'TypeError', message: /gate: unknown name 'sometimes'/ });
  assert.throws(() => hearth.detect(drop, { format: 'xml' }), { name: 'TypeError', message: /format: unknown name 'xml'/ });
});
