'use strict';
/*
 * hearth — Node bindings over libhearth (include/hearth.h).
 *
 * The addon (src/hearth_node.c) converts arrays and calls the library; this
 * file adds what JavaScript does better: JSON in and out (descriptions as
 * objects, events as objects parsed from the lines the library writes) and
 * a queue per handle so that async calls on one handle run one at a time in
 * the order they were made. No rule of the library is repeated here: every
 * check on the data is libhearth's, and its errors arrive as they are.
 */
const path = require('node:path');

const native = require(path.join(__dirname, 'build', 'hearth.node'));

/** The loaded library's ABI version, (major << 16) | (minor << 8) | patch. */
const abiVersion = native.abiVersion();

/** JSON Lines from the library → objects (NaN arrives as null). */
function parseLines(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line.length > 0) out.push(JSON.parse(line));
  }
  return out;
}

function ingestOutput(raw) {
  return { events: parseLines(raw.events), inserted: raw.inserted, duplicates: raw.duplicates };
}

/** An error from the addon, its `result` (a refused batch's output) parsed. */
function withParsedResult(error) {
  if (error && error.result && typeof error.result.events === 'string') error.result = ingestOutput(error.result);
  return error;
}

/** An object as its JSON text; anything else as it is (the addon takes a string and names what it is not). */
function description(value) {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
}

/** A TypeError with the library's code for a bad argument. */
function argumentError(message) {
  const error = new TypeError(message);
  error.code = 'HEARTH_ERROR_ARGUMENT';
  return error;
}

/**
 * Refuses an options object with a key the call does not take (a typo such
 * as `httpStatus` for `http_status` would otherwise pass as the default).
 * Anything but a plain object of known keys is named.
 */
function checkOptions(call, options, known) {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw argumentError(`${call}: options must be an object (${known.join(', ')})`);
  }
  // Every string key up the prototype chain short of Object.prototype, as a
  // read by name would see it (inherited keys and a class's getters too).
  for (let o = options; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === 'constructor' && o !== options) continue;
      if (!known.includes(key)) throw argumentError(`${call}: unknown option '${key}' (the options are ${known.join(', ')})`);
    }
  }
  return options;
}

/** The built-in typed array constructors by their internal name. */
const typedArrays = new Map(
  [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array,
    Float64Array, BigInt64Array, BigUint64Array].map((type) => [type.name, type]));
/** %TypedArray%.prototype's [Symbol.toStringTag] getter: a view's own kind, whatever its class says. */
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
/** The fix columns the addon reads, in its order. */
const fixColumnNames = native.fixColumnNames();

/**
 * The columns of `fixes` as they are now, each typed array or Array copied,
 * for a call the queue starts later: what is ingested is what the caller
 * passed, whatever it does with its arrays meanwhile (index.d.ts). The keys
 * are the columns the addon looks up by name and every other enumerable key
 * (which it refuses by name); anything but an object goes on as it is, for
 * the addon to name.
 */
function columnsNow(fixes) {
  if (typeof fixes !== 'object' || fixes === null) return fixes;
  const copy = Object.create(null);
  // The columns the addon looks up by name (inherited and non-enumerable
  // ones too), then every other enumerable key, which it refuses by name.
  const keys = fixColumnNames.filter((name) => name in fixes);
  for (const key in fixes) if (!keys.includes(key)) keys.push(key);
  for (const key of keys) {
    const value = fixes[key];
    const kind = ArrayBuffer.isView(value) ? typedArrayName.call(value) : undefined;
    if (kind !== undefined) {
      // By the built-in constructor, not `slice` (a Buffer's is a view, a subclass's follows its species).
      try {
        copy[key] = new (typedArrays.get(kind))(value);
      } catch (error) {
        throw argumentError(`fixes.${key}: could not be copied (${error.message})`);
      }
    } else if (Array.isArray(value)) {
      // Element by element, holes kept (slice would follow a subclass's species).
      const array = new Array(value.length);
      for (let i = 0; i < value.length; i++) if (i in value) array[i] = value[i];
      copy[key] = array;
    } else {
      copy[key] = value;
    }
  }
  return copy;
}

/**
 * One async call at a time per handle, in call order; synchronous calls are
 * refused while any is queued or running (they would overtake it).
 */
class Queue {
  constructor(kind) {
    this.kind = kind;
    this.tail = Promise.resolve();
    this.waiting = 0;
  }

  run(start) {
    this.waiting += 1;
    const done = () => {
      this.waiting -= 1;
    };
    const result = this.tail.then(start);
    this.tail = result.then(done, done);
    return result;
  }

  idle() {
    if (this.waiting > 0) {
      const error = new Error(`${this.kind}: ${this.waiting} async call(s) still queued or running on it; await them first`);
      error.code = 'HEARTH_BUSY';
      throw error;
    }
  }
}

/** A latitude-band grid (SPEC §2): immutable, so snaps may run concurrently. */
class Grid {
  constructor(cell_size_m) {
    this._native = new native.Grid(cell_size_m);
  }

  snap(lat_deg, lon_deg, out) {
    return this._native.snap(lat_deg, lon_deg, out);
  }

  snapAsync(lat_deg, lon_deg, out) {
    try {
      return this._native.snapAsync(lat_deg, lon_deg, out);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  project(fixes, options = {}) {
    const { min_accuracy_m, slot_ms } = checkOptions('Grid.project', options, ['min_accuracy_m', 'slot_ms']);
    return this._native.project(fixes, min_accuracy_m, slot_ms);
  }

  close() {
    this._native.close();
  }
}

/** The server's ingest path (SPEC §1–§8) and its state. */
class Ingest {
  constructor(desc = {}) {
    this._native = new native.Ingest(description(desc));
    this._queue = new Queue('Ingest');
  }

  batch(fixes, received_ms) {
    this._queue.idle();
    try {
      return ingestOutput(this._native.batch(fixes, received_ms));
    } catch (error) {
      throw withParsedResult(error);
    }
  }

  batchAsync(fixes, received_ms) {
    let now;
    try {
      now = columnsNow(fixes);
    } catch (error) {
      return Promise.reject(error);
    }
    return this._queue
      .run(() => this._native.batchAsync(now, received_ms))
      .then(ingestOutput, (error) => Promise.reject(withParsedResult(error)));
  }

  tick(now_ms) {
    this._queue.idle();
    return ingestOutput(this._native.tick(now_ms));
  }

  save() {
    this._queue.idle();
    return this._native.save();
  }

  restore(state) {
    this._queue.idle();
    this._native.restore(state);
  }

  reconfigure(desc) {
    this._queue.idle();
    return this._native.reconfigure(description(desc));
  }

  close() {
    this._native.close();
  }
}

/** An incident opened by a verdict (SPEC §10), its state as bytes. */
class Incident {
  constructor(verdict_ms, account) {
    this._native = verdict_ms instanceof native.Incident ? verdict_ms : new native.Incident(verdict_ms, account);
  }

  static restore(state) {
    return new Incident(new native.Incident(state instanceof ArrayBuffer ? new Uint8Array(state) : state));
  }

  check(now_ms, input, options = {}) {
    const {
      http_status = 0,
      tokens_held = 0,
      account = null,
    } = checkOptions('Incident.check', options, ['http_status', 'tokens_held', 'account']);
    return this._native.check(now_ms, input, http_status, tokens_held, account);
  }

  save() {
    return this._native.save();
  }

  close() {
    this._native.close();
  }
}

function validate(fixes, options = {}) {
  const { now_ms, max_future_ms, max_age_ms } = checkOptions('validate', options, ['now_ms', 'max_future_ms', 'max_age_ms']);
  return native.validate(fixes, now_ms, max_future_ms, max_age_ms);
}

function detectArguments(recording, given) {
  const known = ['mapping', 'configuration', 'gate', 'format', 'file_name'];
  const options = checkOptions('detect', given, known);
  const configuration = options.configuration;
  return [
    recording,
    options.mapping ?? null,
    configuration == null ? null : description(configuration),
    options.gate ?? 'recording',
    options.format ?? 'text',
    options.file_name ?? recording,
  ];
}

function detect(recording, options = {}) {
  return native.detect(...detectArguments(recording, options));
}

function detectAsync(recording, options = {}) {
  try {
    return native.detectAsync(...detectArguments(recording, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

function promised(fn) {
  return (...args) => {
    try {
      return fn(...args);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

module.exports = {
  abiVersion,
  distances: native.distances,
  distancesAsync: promised(native.distancesAsync),
  distancesFrom: native.distancesFrom,
  distancesFromAsync: promised(native.distancesFromAsync),
  trackDistances: native.trackDistances,
  validate,
  detect,
  detectAsync,
  Grid,
  Ingest,
  Incident,
};
