'use strict';
// Strings to the library: UTF-8 exactly, or refused by name. A string C
// cannot be handed (a NUL, a lone surrogate) must not reach the library as
// another string: "\udcff" and "\udcfe" would both arrive as U+FFFD, and
// "alice\0x" as "alice".
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const hearth = require('..');
const support = require('./support');

const VERDICT = 1718085600000;
const refused = (name, what) => ({ name: 'TypeError', code: 'HEARTH_ERROR_ARGUMENT', message: new RegExp(`^${name}: ${what}`) });

test('accounts "\\udcff" and "\\udcfe" are refused, not taken for one account', () => {
  assert.throws(() => new hearth.Incident(VERDICT, '\udcff'), refused('account', 'a lone surrogate \\(U\\+DCFF\\) at index 0'));
  assert.throws(() => new hearth.Incident(VERDICT, 'ada\ud800'), refused('account', 'a lone surrogate \\(U\\+D800\\) at index 3'));
  const incident = new hearth.Incident(VERDICT, 'ada');
  assert.throws(() => incident.check(VERDICT, 'signedIn', { account: 'ada\udcfe' }), refused('account', 'a lone surrogate'));
  // Refused before the call: the incident is where it was.
  assert.equal(incident.check(VERDICT, 'nothing').action, 'ask');
  incident.close();
});

test('a NUL in an account is refused, not cut there (alice\\0x is not alice\\0y)', () => {
  assert.throws(() => new hearth.Incident(VERDICT, 'alice\u0000x'), refused('account', 'a NUL character at index 5'));
  const incident = new hearth.Incident(VERDICT, 'alice');
  assert.throws(() => incident.check(VERDICT, 'signedIn', { account: 'alice\u0000y' }), refused('account', 'a NUL character at index 5'));
  assert.equal(incident.check(VERDICT, 'nothing').action, 'ask');
  // A constant's name is not cut at a NUL either.
  assert.throws(() => incident.check(VERDICT, 'dismissed\u0000x'), { name: 'TypeError', message: /input: a NUL character after 'dismissed'/ });
  incident.close();
});

test('an account outside the BMP round-trips exactly: the same stays, a neighbour ends it, saved and restored', () => {
  const account = '👩‍👧 𝔄';
  const incident = new hearth.Incident(VERDICT, account);
  assert.equal(incident.check(VERDICT, 'signedIn', { account }).action, 'ask');
  const saved = incident.save();
  assert.equal(JSON.parse(Buffer.from(saved).toString('utf8')).account, account);
  const restored = hearth.Incident.restore(saved);
  assert.equal(restored.check(VERDICT, 'signedIn', { account }).action, 'ask');
  const other = restored.check(VERDICT, 'signedIn', { account: '👩‍👧 𝔅' });
  assert.deepEqual([other.action, other.end], ['finished', 'otherAccount']);
  incident.close();
  restored.close();
});

test('paths, descriptions and configurations refuse a NUL by their name', () => {
  const drop = path.join(support.datasets, 'phone-drop-freefall', 'raw_data', 'fall_1');
  assert.throws(() => hearth.detect(`${drop}\u0000/etc/passwd`), refused('path', 'a NUL character at index'));
  assert.throws(() => hearth.detect(drop, { mapping: 'm\u0000' }), refused('mapping', 'a NUL character at index 1'));
  assert.throws(() => hearth.detect(drop, { file_name: 'a\ud800' }), refused('file_name', 'a lone surrogate'));
  assert.throws(() => hearth.detect(drop, { configuration: '{}\u0000{"bogus": 1}' }), refused('configuration', 'a NUL character at index 2'));
  assert.throws(() => new hearth.Ingest('{}\u0000'), refused('description', 'a NUL character at index 2'));
  // Inside an object they are JSON escapes: a NUL one the library reads
  // exactly, an unpaired surrogate one its JSON reader refuses.
  const place = (name) => ({ places: [{ id: 1, circle: 7, name, latitude_deg: 1, longitude_deg: 1, radius_m: 5 }] });
  const ingest = new hearth.Ingest(place('a\u0000b'));
  assert.throws(() => ingest.reconfigure(place('a\ud800')), { code: 'HEARTH_ERROR_BAD_INPUT' });
  assert.throws(() => ingest.reconfigure('{"places": []}\ud800'), refused('description', 'a lone surrogate'));
  ingest.close();
});

test('a place name outside the BMP comes back in the events exactly', () => {
  const name = "Grandma's 🏡";
  const ingest = new hearth.Ingest({
    places: [{ id: 1, circle: 7, name, latitude_deg: 48.137, longitude_deg: 11.575, radius_m: 150 }],
    circles_of_person: { 1: [7] },
  });
  const fixes = { time_ms: [VERDICT], latitude_deg: [48.137], longitude_deg: [11.575], horizontal_accuracy_m: [10], user: [1] };
  const { events } = ingest.batch(fixes, VERDICT + 1000);
  assert.ok(events.some((e) => e.placeName === name), JSON.stringify(events));
  ingest.close();
});
