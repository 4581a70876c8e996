'use strict';
// What the tests share: the checkout, the command, the shared recordings, and
// a server replay written as a server would drive the package.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..', '..', '..');
const packageDir = path.resolve(__dirname, '..');
// The release `hearth` command of this checkout (Scripts/test builds it).
const command = process.env.HEARTH_COMMAND || path.join(root, '.build', 'release', 'hearth');
const datasets = process.env.HEARTH_SHARED_DATASETS || path.join(root, '..', 'shared', 'datasets');

function hearthCommand(...args) {
  return execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
}

const made = [];
process.on('exit', () => {
  for (const folder of made) fs.rmSync(folder, { recursive: true, force: true });
});

/** A new folder under the system's temporary one, removed when the test file's process exits. */
function temporaryDirectory(prefix) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `hearth-node-${prefix}-`));
  made.push(folder);
  return folder;
}

// A small deterministic random source (a 32-bit xorshift), so every run sees one history.
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const places = [
  { id: 1, circle: 7, name: 'Home', latitude_deg: 52.52, longitude_deg: 13.405, radius_m: 120 },
  { id: 2, circle: 7, name: 'School', latitude_deg: 52.5386, longitude_deg: 13.4243, radius_m: 150 },
  { id: 3, circle: 9, name: 'Club', latitude_deg: 52.5012, longitude_deg: 13.3901, radius_m: 100 },
];

function placesGeoJSON() {
  return JSON.stringify({
    type: 'FeatureCollection',
    features: places.map((p) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [p.longitude_deg, p.latitude_deg] },
      properties: { id: p.id, circle: p.circle, name: p.name, radiusMeters: p.radius_m },
    })),
  });
}

/**
 * Two people's days as uploads: stays at places, drives between them (one
 * above 50 km/h), a stop, every fix every 20 s, uploaded in groups of up to
 * 12 fixes a second after the newest, one upload sent twice and one fix from
 * the far future. Rows: {user, device, time_ms, latitude, longitude,
 * accuracy_m, speed_mps, received_ms}.
 */
function history() {
  const next = random(20240611);
  const rows = [];
  const start = 1718085600000; // 2024-06-11T06:00:00Z
  const legs = [
    [0, 0, 40],
    [0, 1, 9],
    [1, 1, 50],
    [1, 2, 14],
    [2, 2, 30],
    [2, 0, 12],
    [0, 0, 20],
  ];
  for (const user of [42, 43]) {
    let t = start + (user - 42) * 7000;
    const fixes = [];
    for (const [from, to, minutes] of legs) {
      const a = places[from];
      const b = places[to];
      const steps = Math.max(1, Math.round((minutes * 60) / 20));
      for (let k = 0; k < steps; k++) {
        const f = from === to ? 0 : k / steps;
        const jitter = from === to ? 0.00025 : 0.00004;
        const lat = a.latitude_deg + (b.latitude_deg - a.latitude_deg) * f + (next() - 0.5) * jitter;
        const lon = a.longitude_deg + (b.longitude_deg - a.longitude_deg) * f + (next() - 0.5) * jitter;
        const moving = from !== to;
        const speed = moving ? (user === 42 ? 16 : 9) + next() * 2 : next() < 0.5 ? 0.2 : NaN;
        fixes.push({ user, device: user * 10, time_ms: t, latitude: lat, longitude: lon, accuracy_m: 8 + next() * 10, speed_mps: speed });
        t += 20000;
      }
    }
    for (let i = 0; i < fixes.length; i += 12) {
      const group = fixes.slice(i, i + 12);
      const received = Math.max(...group.map((f) => f.time_ms)) + 1000;
      for (const f of group) rows.push({ ...f, received_ms: received });
      if (i === 48) for (const f of group) rows.push({ ...f, received_ms: received + 30000 }); // retried upload
      if (i === 96) rows.push({ ...group[0], time_ms: received + 3600000, received_ms: received + 45000 }); // from the future
    }
  }
  rows.sort((x, y) => x.received_ms - y.received_ms || x.user - y.user);
  return rows;
}

function uploadLogCSV(rows) {
  const header = 'user,device,time_ms,latitude,longitude,accuracy_m,speed_mps,received_ms';
  const lines = rows.map((r) =>
    [r.user, r.device, r.time_ms, r.latitude, r.longitude, r.accuracy_m, Number.isNaN(r.speed_mps) ? '' : r.speed_mps, r.received_ms].join(','));
  return [header, ...lines].join('\n') + '\n';
}

/** Rows grouped into uploads by received_ms, in order. */
function uploads(rows) {
  const out = [];
  for (const r of rows) {
    if (out.length === 0 || out[out.length - 1].received_ms !== r.received_ms) out.push({ received_ms: r.received_ms, rows: [] });
    out[out.length - 1].rows.push(r);
  }
  return out;
}

/** One upload as the columns the package takes. */
function columns(rows) {
  return {
    time_ms: new BigInt64Array(rows.map((r) => BigInt(r.time_ms))),
    latitude_deg: Float64Array.from(rows, (r) => r.latitude),
    longitude_deg: Float64Array.from(rows, (r) => r.longitude),
    horizontal_accuracy_m: Float64Array.from(rows, (r) => r.accuracy_m),
    speed_mps: Float64Array.from(rows, (r) => r.speed_mps),
    device: Uint32Array.from(rows, (r) => r.device),
    user: Uint32Array.from(rows, (r) => r.user),
  };
}

/** The description a server with these places makes: everyone in every circle, 50 km/h in each. */
function serverDescription(placesFile, rows) {
  const circles = [...new Set(places.map((p) => p.circle))];
  const people = [...new Set(rows.map((r) => r.user))];
  return {
    places_file: placesFile,
    circles_of_person: Object.fromEntries(people.map((u) => [String(u), circles])),
    speed_limits_kmh: Object.fromEntries(circles.map((c) => [String(c), 50])),
  };
}

module.exports = {
  root,
  packageDir,
  command,
  datasets,
  hearthCommand,
  temporaryDirectory,
  places,
  placesGeoJSON,
  history,
  uploadLogCSV,
  uploads,
  columns,
  serverDescription,
};
