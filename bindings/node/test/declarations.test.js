'use strict';
// Every export and every public method has a TypeScript declaration, and the
// declarations name nothing the package lacks. (No TypeScript compiler can be
// installed here, so the declarations are read as text.)
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const hearth = require('..');
const support = require('./support');

const text = fs.readFileSync(path.join(support.packageDir, 'index.d.ts'), 'utf8');

function declaredExports() {
  const names = new Set();
  for (const m of text.matchAll(/^export declare (?:const|function|class) (\w+)/gm)) names.add(m[1]);
  return [...names].sort();
}

function declaredMembers(cls) {
  const body = text.match(new RegExp(`export declare class ${cls} \\{([\\s\\S]*?)\\n\\}`))[1];
  const names = new Set();
  for (const m of body.matchAll(/^ {2}(?:static )?(\w+)\(/gm)) if (m[1] !== 'constructor') names.add(m[1]);
  return [...names].sort();
}

test('every export is declared, and nothing more', () => {
  assert.deepEqual(declaredExports(), Object.keys(hearth).sort());
});

test('every public method of each class is declared, and nothing more', () => {
  for (const cls of ['Grid', 'Ingest', 'Incident']) {
    const own = Object.getOwnPropertyNames(hearth[cls].prototype).filter((n) => n !== 'constructor');
    const statics = Object.getOwnPropertyNames(hearth[cls]).filter((n) => typeof hearth[cls][n] === 'function');
    assert.deepEqual(declaredMembers(cls), [...own, ...statics].sort(), cls);
  }
});
