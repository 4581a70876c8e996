#!/usr/bin/env node
'use strict';
/*
 * hearth-bench's Node side of the binding rows: times one operation through
 * the Node package (bindings/node, built by Scripts/build-bindings node) on
 * the inputs the benchmark wrote, and prints "SECONDS <what> <count> <sum>"
 * (the median of repeated runs after a warm-up; <sum> is the sum of the
 * distances in index order, which hearth-bench compares with its C call's).
 *
 *   bindings.js distances PAIRS.npy        hearth.distances on the (n, 4) pairs, into one output array
 *   bindings.js call PAIRS.npy CALLS       CALLS calls of hearth.distances on one pair (the first) each
 */
const fs = require('node:fs');
const path = require('node:path');

const hearth = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

/** A little-endian float64 .npy array, row-major: {shape, data}. */
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLength;
  const header = bytes.toString('latin1', major === 1 ? 10 : 12, start);
  if (!/'descr': *'<f8'/.test(header) || /'fortran_order': *True/.test(header)) throw new Error(`${file}: not a C-order <f8 array`);
  const shape = header.match(/'shape': *\(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const copy = new Uint8Array(bytes.length - start);
  copy.set(bytes.subarray(start));
  return { shape, data: new Float64Array(copy.buffer) };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The median seconds of `run` over at least 0.3 s and 5 runs, after one untimed run. */
function timed(run) {
  run();
  const times = [];
  const started = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - started) / 1e9 < 0.3 || times.length < 5) {
    const t = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
  return median(times);
}

function sum(values) {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s;
}

function main() {
  const [operation, file, callsText] = process.argv.slice(2);
  const { shape, data } = readNpy(file);
  const n = shape[0];
  const columns = [0, 1, 2, 3].map((k) => Float64Array.from({ length: n }, (_, i) => data[4 * i + k]));
  if (operation === 'distances') {
    const out = new Float64Array(n);
    const seconds = timed(() => hearth.distances(columns[0], columns[1], columns[2], columns[3], out));
    console.log(`${seconds} node-distances ${n} ${sum(out)}`);
  } else if (operation === 'call') {
    const calls = Number(callsText);
    const one = columns.map((c) => c.subarray(0, 1));
    const out = new Float64Array(1);
    const seconds = timed(() => {
      for (let k = 0; k < calls; k++) hearth.distances(one[0], one[1], one[2], one[3], out);
    });
    console.log(`${seconds} node-call ${calls} ${out[0] * calls}`);
  } else {
    throw new Error(`bindings.js: unknown operation ${operation}`);
  }
}

main();
