'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hearth = require('..');

const VERDICT = 1718085600000;

test('check moves the incident; its saved bytes restore to the same future', () => {
  const a = new hearth.Incident(VERDICT, 'ada@example.org');
  const first = a.check(VERDICT, 'nothing');
  assert.equal(first.action, 'ask');
  assert.equal(first.end, null);
  assert.ok(first.time_ms > VERDICT);
  const state = a.save();
  const copy = new ArrayBuffer(state.length);
  new Uint8Array(copy).set(state);
  const b = hearth.Incident.restore(copy);
  const steps = [
    [first.time_ms + 1, 'nothing', {}],
    [first.time_ms + 2, 'networkFailure', {}],
    [first.time_ms + 60000, 'http', { http_status: 503, tokens_held: 1 }],
    [first.time_ms + 120000, 'delivered', {}],
  ];
  for (const [now, input, options] of steps) assert.deepEqual(b.check(now, input, options), a.check(now, input, options));
  assert.deepEqual(b.save(), a.save());
  a.close();
  b.close();
});

test('dismissing finishes it with the library end; bad input is refused by name', () => {
  const incident = new hearth.Incident(VERDICT, 'ada@example.org');
  incident.check(VERDICT, 'nothing');
  const done = incident.check(VERDICT + 1000, 'dismissed');
  assert.equal(done.action, 'finished');
  assert.equal(done.end, 'dismissed');
  assert.throws(() => incident.check(VERDICT, 'dismised'), { name: 'TypeError', message: /input: unknown name 'dismised'/ });
  assert.throws(() => incident.check(VERDICT, 99), (error) => error.code === 'HEARTH_ERROR_ARGUMENT');
  assert.throws(() => hearth.Incident.restore(Buffer.from('{"phase": 3}')), (error) => error.code === 'HEARTH_ERROR_BAD_INPUT' && error.message.length > 0);
  assert.throws(() => new hearth.Incident(VERDICT), /account: expected a string/);
  incident.close();
});
