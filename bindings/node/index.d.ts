// Type declarations of the `hearth` package: Node bindings over libhearth
// (include/hearth.h). Names of columns and options are the header's (units in
// every name: _deg degrees, _m metres, _ms milliseconds since the Unix epoch,
// _mps m/s). Typed arrays are read and written in place by the synchronous
// calls; the …Async calls copy them, so the caller may change, transfer or
// detach them meanwhile (Ingest.batchAsync copies its columns when called, though it
// may start later; an output array is filled when the promise settles;
// one detached or shrunk by then is left alone and the promise rejects with a
// TypeError naming it). Plain arrays of numbers are accepted where a column is
// read and converted (null = NaN). An options object with a key the call does
// not take is a TypeError with code HEARTH_ERROR_ARGUMENT naming it.

/** The loaded library's ABI version, (major << 16) | (minor << 8) | patch. */
export declare const abiVersion: number;

/** A whole number of milliseconds: a Number within ±2^53, or a BigInt. */
export type Milliseconds = number | bigint;

type F64 = Float64Array | ReadonlyArray<number | null>;
type I64 = BigInt64Array | ReadonlyArray<number | bigint>;
type U8 = Uint8Array | ReadonlyArray<number>;
type U32 = Uint32Array | ReadonlyArray<number>;

/**
 * Errors from the library: `status` and `code` name the header's status
 * (HEARTH_ERROR_ARGUMENT, _BAD_INPUT, _SCHEMA, _STATE, _CAPACITY), the message
 * is the library's (the file, row, field or setting). The binding's own
 * errors: TypeError/RangeError (code HEARTH_ERROR_ARGUMENT) for an argument
 * that cannot be converted, naming it; HEARTH_CLOSED for a closed handle;
 * HEARTH_BUSY for a synchronous call while async calls on the handle are pending.
 */
export interface HearthError extends Error {
  code: string;
  status?: number;
  statusName?: string;
  /** hearth.validate's schema error: the first offending fix and field. */
  schema?: SchemaError;
  /** Ingest.batch refused whole: that batch's output (its schemaError line). */
  result?: IngestOutput;
}

export interface SchemaError {
  index: number;
  field: 'time' | 'latitude' | 'longitude' | 'horizontalAccuracy';
  reason: 'not a finite number' | 'outside its range';
  value: number;
}

/**
 * A batch of fixes, column by column, every column the same length. The
 * first four are required by the library; an optional column left out means
 * NaN (speed, heading, altitude, battery level) or 0 (activity unknown,
 * source ordinary, charging unknown, device 0, user 0). An unknown key is refused.
 */
export interface Fixes {
  time_ms: I64;
  latitude_deg: F64;
  longitude_deg: F64;
  horizontal_accuracy_m: F64;
  speed_mps?: F64;
  heading_deg?: F64;
  altitude_m?: F64;
  /** HEARTH_ACTIVITY_*: 0 unknown, 1 still, 2 walking, 3 running, 4 cycling, 5 automotive. */
  activity?: U8;
  /** HEARTH_SOURCE_*: 0 ordinary, 1 heartbeat, 2 park. */
  source?: U8;
  battery_level?: F64;
  charging?: U8;
  device?: U32;
  user?: U32;
}

/** Great-circle distances (SPEC §6), metres; NaN for NaN or out-of-range input. O(n). Into `out_m` when given. */
export declare function distances(
  lat1_deg: Float64Array, lon1_deg: Float64Array, lat2_deg: Float64Array, lon2_deg: Float64Array, out_m?: Float64Array,
): Float64Array;
/** The same off the event loop; the inputs are copied at the call, `out_m` is filled when it settles (see the top). */
export declare function distancesAsync(
  lat1_deg: Float64Array, lon1_deg: Float64Array, lat2_deg: Float64Array, lon2_deg: Float64Array, out_m?: Float64Array,
): Promise<Float64Array>;
/** Distances from one origin to each point, metres. */
export declare function distancesFrom(
  origin_lat_deg: number, origin_lon_deg: number, lat_deg: Float64Array, lon_deg: Float64Array, out_m?: Float64Array,
): Float64Array;
export declare function distancesFromAsync(
  origin_lat_deg: number, origin_lon_deg: number, lat_deg: Float64Array, lon_deg: Float64Array, out_m?: Float64Array,
): Promise<Float64Array>;
/** Steps (steps_m[0] = 0) and the compensated running path length along a track. */
export declare function trackDistances(lat_deg: Float64Array, lon_deg: Float64Array): { steps_m: Float64Array; cumulative_m: Float64Array };

export type FixVerdict =
  | 'accepted'
  | 'inFuture'
  | 'tooOld'
  | 'accuracyMissing'
  | 'accuracyOutOfRange'
  | 'speedOutOfRange'
  | 'headingOutOfRange'
  | 'altitudeOutOfRange'
  | 'batteryOutOfRange';

/**
 * Validation against the server clock (SPEC §1): a verdict per fix. A
 * latitude or longitude out of range or not finite refuses the batch: an
 * error with code HEARTH_ERROR_SCHEMA and `schema`. Every option is required.
 */
export declare function validate(
  fixes: Fixes, options: { now_ms: Milliseconds; max_future_ms: Milliseconds; max_age_ms: Milliseconds },
): FixVerdict[];

export interface Cells {
  /** row << 32 | column; -1 for a NaN or out-of-range point. */
  cell_id: BigInt64Array;
  /** The cell's centre; NaN for -1. */
  centre_lat_deg: Float64Array;
  centre_lon_deg: Float64Array;
}

export interface Projection extends Cells {
  /** Accuracy widened to at least min_accuracy_m (NaN becomes it). */
  accuracy_m: Float64Array;
  /** The time floored to its slot. */
  slot_start_ms: BigInt64Array;
}

/** A latitude-band grid (SPEC §2) of cells of about cell_size_m (750: the privacy grid; 1 m … 10 000 km). */
export declare class Grid {
  constructor(cell_size_m: number);
  /** Snaps points to cells, into `out` when given. O(n). */
  snap(lat_deg: Float64Array, lon_deg: Float64Array, out?: Cells): Cells;
  /** The same off the event loop; any number may run on one grid at once. */
  snapAsync(lat_deg: Float64Array, lon_deg: Float64Array, out?: Cells): Promise<Cells>;
  /** What a viewer of approximate sharing is sent (the privacy projection). Both options required. */
  project(
    fixes: Pick<Fixes, 'time_ms' | 'latitude_deg' | 'longitude_deg' | 'horizontal_accuracy_m'>,
    options: { min_accuracy_m: number; slot_ms: Milliseconds },
  ): Projection;
  /** Releases the handle now (a pending async snap finishes first); the finaliser does it otherwise. */
  close(): void;
}

/** One place of an ingest description. */
export interface Place {
  id: number;
  circle: number;
  name?: string;
  latitude_deg: number;
  longitude_deg: number;
  radius_m: number;
}

/** What a pipeline is built from (docs/guides/c-abi.md); every key optional. */
export interface IngestDescription {
  places?: Place[];
  /** GeoJSON as `hearth geo replay --places` reads. */
  places_file?: string;
  /** user id → its circles */
  circles_of_person?: Record<string, number[]>;
  /** circle → limit; none: no speed alerts */
  speed_limits_kmh?: Record<string, number>;
}

/**
 * One record as `hearth geo replay` prints it: {type, timeMilliseconds,
 * value, placeName}, `value` with every field of the engine's event; before
 * them a batch's diagnostics (types schemaError, rejected, sharedFrame).
 * NaN arrives as null.
 */
export interface IngestEvent {
  type: 'geofence' | 'speedAlert' | 'suddenStop' | 'trip' | 'stay' | 'schemaError' | 'rejected' | 'sharedFrame' | string;
  timeMilliseconds?: number;
  value?: unknown;
  placeName?: string;
  [field: string]: unknown;
}

export interface IngestOutput {
  events: IngestEvent[];
  /** Fixes stored new, and duplicates, by this batch. */
  inserted: number;
  duplicates: number;
}

/** The server's ingest path (SPEC §1–§8) and its state. */
export declare class Ingest {
  /** A pipeline from a description (an object, or its JSON text). */
  constructor(description?: IngestDescription | string);
  /** One uploaded batch received at received_ms. A schema error throws (code HEARTH_ERROR_SCHEMA) and changes no state. */
  batch(fixes: Fixes, received_ms: Milliseconds): IngestOutput;
  /** The same off the event loop; calls on one pipeline run one at a time, in call order. */
  batchAsync(fixes: Fixes, received_ms: Milliseconds): Promise<IngestOutput>;
  /** The server's timer: every clock to now_ms with no fixes. */
  tick(now_ms: Milliseconds): IngestOutput;
  /** The whole state as bytes. */
  save(): Buffer;
  /** Replaces the state with saved bytes; bad bytes throw HEARTH_ERROR_BAD_INPUT and change nothing. */
  restore(state: Uint8Array | ArrayBuffer): void;
  /** Places, circles or limits edited between batches, the state kept; returns how many pending items were dropped. */
  reconfigure(description: IngestDescription | string): number;
  close(): void;
}

export type IncidentInput =
  | 'nothing' | 'dismissed' | 'alertNow' | 'delivered' | 'networkFailure' | 'http' | 'firewallPage' | 'uploadSucceeded' | 'signedIn'
  | number;

export interface IncidentAction {
  /** ask: show the question until time_ms; waitUntil: check again at time_ms; finished: `end` says how. */
  action: 'none' | 'ask' | 'send' | 'waitUntil' | 'finished';
  end: 'dismissed' | 'delivered' | 'refused' | 'droppedAfterAnHour' | 'otherAccount' | null;
  time_ms: number;
}

/** An incident opened by a verdict (SPEC §10). */
export declare class Incident {
  constructor(verdict_ms: Milliseconds, account: string);
  /** From saved bytes; bad bytes throw HEARTH_ERROR_BAD_INPUT. */
  static restore(state: Uint8Array | ArrayBuffer): Incident;
  /** Moves the incident with the wall clock and an input (http: http_status and tokens_held; signedIn: account). */
  check(now_ms: Milliseconds, input: IncidentInput, options?: { http_status?: number; tokens_held?: number; account?: string | null }): IncidentAction;
  /** Its state as bytes (JSON), to survive a process kill. */
  save(): Buffer;
  close(): void;
}

export interface DetectOptions {
  /** A CSV column mapping file, as --mapping. */
  mapping?: string | null;
  /** Detector settings: the object (or JSON text) `hearth impact detect --config` reads. */
  configuration?: Record<string, number> | string | null;
  /** The vehicle gate: from the recording's activity stream (the command's default), always on, or off. */
  gate?: 'recording' | 'on' | 'off';
  format?: 'text' | 'json' | 'csv';
  /** The name the report gives the recording (default: the path as given). */
  file_name?: string;
}

/** What `hearth impact detect --format …` prints for a recording, byte for byte. */
export declare function detect(path: string, options?: DetectOptions): string;
/** The same off the event loop (reading and detecting a recording takes a while). */
export declare function detectAsync(path: string, options?: DetectOptions): Promise<string>;
