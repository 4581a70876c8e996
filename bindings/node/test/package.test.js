'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const support = require('./support');

// No registry is reachable from these machines: the tarball must install from itself alone.
const offline = ['--offline', '--no-audit', '--no-fund', '--loglevel=error'];

test('npm pack makes a tarball that npm install puts in an app, offline, and it works there', () => {
  const folder = support.temporaryDirectory('pack');
  const name = execFileSync('npm', ['pack', '--pack-destination', folder, ...offline], { cwd: support.packageDir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  assert.match(name, /^hearth-\d+\.\d+\.\d+\.tgz$/);
  const listed = execFileSync('tar', ['-tzf', path.join(folder, name)], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  assert.deepEqual(listed, [
    'package/README.md',
    'package/build/hearth.node',
    // The library under its soname, libhearth.so.MAJOR: the name hearth.node records.
    `package/build/libhearth.so.${require('..').abiVersion >> 16}`,
    'package/index.d.ts',
    'package/index.js',
    'package/package.json',
  ]);
  const app = path.join(folder, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', ...offline, `./${path.relative(app, path.join(folder, name))}`], { cwd: app, stdio: 'pipe' });
  const script = `
    const hearth = require('hearth');
    const d = hearth.distances(Float64Array.of(52.52), Float64Array.of(13.405), Float64Array.of(48.8566), Float64Array.of(2.3522));
    console.log(JSON.stringify({ abi: hearth.abiVersion, m: d[0], from: require.resolve('hearth') }));`;
  // The installed package needs nothing from the checkout: a bare environment, another folder.
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: app, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' }));
  const here = require('..').distances(Float64Array.of(52.52), Float64Array.of(13.405), Float64Array.of(48.8566), Float64Array.of(2.3522));
  assert.equal(out.m, here[0]);
  assert.ok(Math.abs(out.m - 877460) < 100, String(out.m)); // Berlin to Paris
  assert.equal(out.abi >> 16, 1);
  assert.equal(out.from, path.join(fs.realpathSync(app), 'node_modules', 'hearth', 'index.js'));
});
