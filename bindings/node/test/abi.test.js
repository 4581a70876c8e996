'use strict';
// The module refuses, with a reason, a libhearth whose ABI cannot serve it: another major, or an
// older minor than the header it was built against (the policy of every binding: an older minor
// lacks that header's newer functions, and the first call of one would end the process with
// "symbol lookup error" instead of failing).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync, execFileSync } = require('node:child_process');
const support = require('./support');

const built = path.join(support.packageDir, 'build');
const header = fs.readFileSync(path.join(support.root, 'include', 'hearth.h'), 'utf8');
const compiled = parseInt(/#define HEARTH_ABI_VERSION (0x[0-9a-fA-F]+)/.exec(header)[1], 16);

/** A folder with hearth.node beside a libhearth.so.1 that only says it is ABI `version`. */
function besideAStub(version) {
  const folder = support.temporaryDirectory('abi');
  fs.copyFileSync(path.join(built, 'hearth.node'), path.join(folder, 'hearth.node'));
  fs.writeFileSync(path.join(folder, 'stub.c'), `unsigned hearth_abi_version(void) { return ${version}u; }\n`);
  execFileSync('gcc', ['-shared', '-fPIC', '-Wl,-soname,libhearth.so.1', '-o', path.join(folder, 'libhearth.so.1'), path.join(folder, 'stub.c')]);
  return folder;
}

/** Loads the module of `folder` in a fresh process: its exit status and what it printed. */
function load(folder) {
  const script = `try { console.log(require(${JSON.stringify(path.join(folder, 'hearth.node'))}).abiVersion()); }
    catch (e) { console.log(e.code + ': ' + e.message); process.exit(3); }`;
  // Without the caller's LD_LIBRARY_PATH or LD_PRELOAD, which would win over the RUNPATH ($ORIGIN).
  const env = { ...process.env };
  delete env.LD_LIBRARY_PATH;
  delete env.LD_PRELOAD;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env });
}

test('the version this module was built against, and a newer minor, load', () => {
  for (const version of [compiled, compiled + 0x100]) {
    const run = load(besideAStub(version));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(Number(run.stdout.trim()), version);
  }
});

test('an older minor is refused when the module loads, naming both versions', () => {
  assert.ok((compiled >> 8) & 0xff, 'the header is minor 1 or later');
  const older = compiled - 0x100;
  const run = load(besideAStub(older));
  assert.equal(run.status, 3, run.stdout + run.stderr);
  assert.match(run.stdout, new RegExp(`^HEARTH_ABI: libhearth ABI 0x${older.toString(16)}, built against 0x${compiled.toString(16)}: minor version ${(older >> 8) & 0xff} is older than ${(compiled >> 8) & 0xff}`));
});

test('another major is refused', () => {
  for (const version of [compiled + 0x10000, compiled & 0xffff]) {
    const run = load(besideAStub(version));
    assert.equal(run.status, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /^HEARTH_ABI: .*not major version 1/);
  }
});
