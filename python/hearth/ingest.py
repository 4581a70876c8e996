"""The server's ingest path (SPEC §1–§8): uploaded batches through validation,
dedupe, presence, the privacy projection, geofences, speed alerts, the
sudden-stop check and trips, with the state saved and restored as bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._codes import EVENT_KINDS, NAMED_BY
from ._ffi import column, created, ffi, lib, raise_for, real, take_bytes, text, whole
from ._names import flat_name, with_datetimes
from ._types import Circles, Fixes, PathLike, Places
from .geo import FixBatch, milliseconds

_EVENT_FIELDS = ("kind", "code", "announced", "user", "device", "circle", "place", "index", "time_ms", "end_ms", "cell_id", "latitude_deg", "longitude_deg", "value")


def describe(places: Places = None, circles: Circles = None, *, speed_limits_kmh: Mapping[int, float] | None = None,
             places_file: PathLike | None = None) -> str:
    """The JSON description `hearth_ingest_create` reads (docs/guides/c-abi.md),
    keys sorted: what a pipeline is built from, in any process. Places'
    latitude_deg/longitude_deg in degrees and radius_m in metres;
    `speed_limits_kmh` circle → limit in km/h.

    Example:

    >>> describe(circles={42: [7]}, speed_limits_kmh={7: 50})
    '{"circles_of_person": {"42": [7]}, "places": [], "speed_limits_kmh": {"7": 50.0}}'
    """
    if isinstance(places, pd.DataFrame):
        places = places.to_dict("records")
    description = {
        "places": [{k: (v.item() if hasattr(v, "item") else v) for k, v in p.items()} for p in (places or [])],
        "circles_of_person": {str(whole(u, "circles (a user id)", np.uint32)): [whole(c, f"circles[{u!r}]", np.uint32) for c in cs]
                              for u, cs in (circles or {}).items()},
        "speed_limits_kmh": {str(whole(c, "speed_limits_kmh (a circle id)", np.uint32)): real(v, f"speed_limits_kmh[{c!r}]")
                             for c, v in (speed_limits_kmh or {}).items()},
    }
    if places_file is not None:
        description["places_file"] = str(places_file)
    return json.dumps(description, sort_keys=True)


class Ingest:
    """A pipeline and its state.

    `places`: a DataFrame or list of dicts with id, circle, latitude_deg,
    longitude_deg, radius_m (name optional); `circles`: user id → the circles
    they are in; `speed_limits_kmh`: circle → limit in km/h (none: no speed alerts).
    `places_file`: a GeoJSON places file as `hearth geo replay --places` reads.
    `description`: the JSON `describe` makes of these, given instead of them.

    Example:

    >>> home = {"id": 1, "circle": 7, "name": "Home", "latitude_deg": 52.52, "longitude_deg": 13.405, "radius_m": 100.0}
    >>> pipeline = Ingest([home], {42: [7]})
    >>> fixes = pd.DataFrame({"time_ms": [1_700_000_000_000], "latitude_deg": [52.52], "longitude_deg": [13.405],
    ...                       "horizontal_accuracy_m": [10.0], "user": np.array([42], dtype=np.uint32)})
    >>> pipeline.ingest(fixes, received_ms=1_700_000_001_000).kind.tolist()   # the first fix: a frame, and at home
    ['sharedFrame', 'geofence']
    """

    def __init__(self, places: Places = None, circles: Circles = None, *, speed_limits_kmh: Mapping[int, float] | None = None,
                 places_file: PathLike | None = None, description: str | None = None) -> None:
        if description is None:
            description = describe(places, circles, speed_limits_kmh=speed_limits_kmh, places_file=places_file)
        self.description = description
        self._handle = created(lib.hearth_ingest_create, text(description, "description"))

    def _events(self) -> pd.DataFrame:
        n, inserted, duplicates = ffi.new("int64_t *"), ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_ingest_count(self._handle, n, inserted, duplicates), self._handle)
        not_newer, overruled = ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_ingest_kept(self._handle, not_newer, overruled), self._handle)
        records = ffi.new("hearth_event[]", max(1, n[0]))
        raise_for(lib.hearth_ingest_events(self._handle, n[0], records), self._handle)
        raw = np.frombuffer(ffi.buffer(records, n[0] * ffi.sizeof("hearth_event")), dtype=_EVENT_DTYPE).copy()
        frame = pd.DataFrame({name: raw[name] for name in _EVENT_FIELDS})
        frame["kind"] = pd.Categorical.from_codes(frame["kind"], categories=list(EVENT_KINDS.values()))
        with_datetimes(frame, zero_is_unused=True)
        frame.attrs.update(inserted=inserted[0], duplicates=duplicates[0], not_newer=not_newer[0], overruled=overruled[0])
        return frame

    def ingest(self, fixes: Fixes, received_ms: int) -> pd.DataFrame:
        """One uploaded batch (a DataFrame with time_ms, latitude_deg,
        longitude_deg, horizontal_accuracy_m and optional speed_mps, …, user,
        device), received at `received_ms`: the events it produced, one row
        each (kind, code, announced, user, …, time_ms and end_ms with their
        UTC datetimes time and end, NaT where the kind leaves them unused;
        `attrs` has inserted,
        duplicates, and of the inserted fixes those kept from the engines
        because they did not take the person's presence row: not_newer and
        overruled). Times in ms since the epoch. A schema error refuses the
        batch: SchemaError, state unchanged.

        Example:

        >>> fixes = pd.DataFrame({"time_ms": [1_700_000_000_000], "latitude_deg": [52.52], "longitude_deg": [13.405],
        ...                       "horizontal_accuracy_m": [10.0]})
        >>> Ingest().ingest(fixes, received_ms=1_700_000_001_000).attrs["inserted"]
        1
        """
        batch = FixBatch(fixes)
        raise_for(lib.hearth_ingest_batch(self._handle, batch.struct, milliseconds(received_ms, "received_ms")), self._handle)
        return self._events()

    def tick(self, now_ms: int) -> pd.DataFrame:
        """The server's timer: clocks moved to `now_ms` (ms since the epoch)
        with no fixes; what that decided (events as `ingest` gives them).

        Example:

        >>> len(Ingest().tick(1_700_000_000_000))
        0
        """
        raise_for(lib.hearth_ingest_tick(self._handle, milliseconds(now_ms)), self._handle)
        return self._events()

    def trip_names(self) -> pd.DataFrame:
        """Both ends of each trip of the last batch or tick (SPEC §7, ABI 1.2),
        one row per trip row of its events in order: event (that row's index),
        start_place, start_named_by ("fence": the first departure the
        geofences saw during it; "placeAt": the smallest place holding the
        start, else the nearest centre whose edge is within 1 km; None: no
        name), start_distance_m (to that place's centre, placeAt only, else
        NaN), end_place, end_named_by ("fence": the last arrival not left
        again; None). A place of an unnamed end is <NA>. The names the trip
        lines of `events_json` carry.

        Example:

        >>> Ingest().trip_names().columns.tolist()[:3]
        ['event', 'start_place', 'start_named_by']
        """
        n = ffi.new("int64_t *")
        raise_for(lib.hearth_ingest_count(self._handle, n, ffi.NULL, ffi.NULL), self._handle)
        records = ffi.new("hearth_event[]", max(1, n[0]))
        raise_for(lib.hearth_ingest_events(self._handle, n[0], records), self._handle)
        trips = sum(1 for i in range(n[0]) if records[i].kind == lib.HEARTH_EVENT_TRIP)
        names = ffi.new("hearth_trip_names[]", max(1, trips))
        raise_for(lib.hearth_ingest_trip_names(self._handle, trips, names), self._handle)
        rows = [names[i] for i in range(trips)]
        def place(value, how):
            return value if how != lib.HEARTH_NAMED_NONE else pd.NA
        return pd.DataFrame({
            "event": pd.array([r.event for r in rows], dtype="int64"),
            "start_place": pd.array([place(r.start_place, r.start_named_by) for r in rows], dtype="UInt32"),
            "start_named_by": pd.array([NAMED_BY[r.start_named_by] for r in rows], dtype=object),
            "start_distance_m": pd.array([r.start_distance_m for r in rows], dtype="float64"),
            "end_place": pd.array([place(r.end_place, r.end_named_by) for r in rows], dtype="UInt32"),
            "end_named_by": pd.array([NAMED_BY[r.end_named_by] for r in rows], dtype=object),
        })

    def events_json(self) -> list[dict[str, Any]]:
        """The last batch's or tick's events with every field (outcome,
        reasons, place names), as the library's JSON lines have them (keys
        camelCase with units spelt out: timeMilliseconds).

        Example:

        >>> pipeline = Ingest()
        >>> _ = pipeline.ingest({"time_ms": [0], "latitude_deg": [52.5], "longitude_deg": [13.4], "horizontal_accuracy_m": [float("nan")]}, 1_000)
        >>> pipeline.events_json()[0]["value"]["reason"]
        'accuracyMissing'
        """
        lines = take_bytes(lib.hearth_ingest_events_json, self._handle).decode().splitlines()
        return [json.loads(line) for line in lines]

    def origins(self) -> np.ndarray:
        """Where each event of the last batch or tick came from (ABI 1.3), one
        per row of its events in order: lib.HEARTH_ORIGIN_BATCH for what the
        batch's own fixes produced, lib.HEARTH_ORIGIN_CLOCK for what the clock
        advance to its receipt produced (all of a tick's).

        Example:

        >>> history = pd.DataFrame({"time_ms": np.arange(5, dtype=np.int64) * 100_000 + 1_700_000_000_000,
        ...                         "latitude_deg": np.full(5, 52.5), "longitude_deg": np.full(5, 13.4),
        ...                         "horizontal_accuracy_m": np.full(5, 10.0)})
        >>> pipeline = Ingest()
        >>> _ = pipeline.ingest(history, 1_700_000_500_000)
        >>> bool((pipeline.origins() == lib.HEARTH_ORIGIN_BATCH).all())
        True
        """
        n = ffi.new("int64_t *")
        raise_for(lib.hearth_ingest_count(self._handle, n, ffi.NULL, ffi.NULL), self._handle)
        out = np.empty(n[0], np.int32)
        raise_for(lib.hearth_ingest_origins(self._handle, n[0], ffi.cast("int32_t *", ffi.from_buffer(out))), self._handle)
        return out

    def replay(self, fixes: Fixes, **schedule_options: Any) -> list[str]:
        """A recorded history through this pipeline on the server's schedule
        (`schedule`, whose options these are): each upload as a batch at its
        receipt, each tick as a tick. Returns every step's event lines in
        order, as `events_json` writes them (a refused upload's schemaError
        line, rejected and sharedFrame lines, then the events): the lines
        `hearth geo replay` prints, with the diagnostics it prints on stderr.

        Example:

        >>> history = pd.DataFrame({"time_ms": np.arange(5, dtype=np.int64) * 100_000 + 1_700_000_000_000,
        ...                         "latitude_deg": np.full(5, 52.5), "longitude_deg": np.full(5, 13.4),
        ...                         "horizontal_accuracy_m": np.full(5, 10.0)})
        >>> [json.loads(line)["type"] for line in Ingest().replay(history)]
        ['sharedFrame', 'sharedFrame', 'sharedFrame']
        """
        plan = schedule(fixes, **schedule_options)
        lines = []
        for step in range(len(plan.steps)):
            now = int(plan.steps["time_ms"][step])
            if plan.steps["kind"][step] == lib.HEARTH_STEP_TICK:
                raise_for(lib.hearth_ingest_tick(self._handle, now), self._handle)
            else:
                batch = FixBatch(fixes.iloc[plan.positions(step)])
                status = lib.hearth_ingest_batch(self._handle, batch.struct, now)
                if status not in (lib.HEARTH_OK, lib.HEARTH_ERROR_SCHEMA):
                    raise_for(status, self._handle)
            lines += event_lines(take_bytes(lib.hearth_ingest_events_json, self._handle))
        return lines

    def reconfigure(self, places: Places = None, circles: Circles = None, *, speed_limits_kmh: Mapping[int, float] | None = None,
                    places_file: PathLike | None = None, description: str | None = None) -> int:
        """Places, circles or limits edited between batches (same arguments as
        the constructor): the state is kept, pending work about removed places
        and left circles is dropped; returns how many such items were dropped.
        A bad description raises BadInputError and changes nothing. Limits in
        km/h, places in degrees and metres, as for the constructor.

        Example:

        >>> Ingest(circles={42: [7]}).reconfigure(circles={42: [7]}, speed_limits_kmh={7: 50})
        0
        """
        if description is None:
            description = describe(places, circles, speed_limits_kmh=speed_limits_kmh, places_file=places_file)
        dropped = ffi.new("int64_t *")
        raise_for(lib.hearth_ingest_reconfigure(self._handle, text(description, "description"), dropped), self._handle)
        self.description = description
        return dropped[0]

    def save(self) -> bytes:
        """Every engine's state as bytes (a restored pipeline gives the same future outputs).

        Example:

        >>> pipeline = Ingest()
        >>> pipeline.restore(Ingest().save())
        """
        return take_bytes(lib.hearth_ingest_save, self._handle)

    def restore(self, state: bytes) -> None:
        """Replaces the state with saved bytes; bad bytes raise BadInputError and change nothing.

        Example:

        >>> Ingest().restore(b"not a state")
        Traceback (most recent call last):
        ...
        hearth._ffi.BadInputError: ...
        """
        raise_for(lib.hearth_ingest_restore(self._handle, ffi.from_buffer("uint8_t[]", state), len(state)), self._handle)


def event_lines(text: bytes) -> list[str]:
    """JSON Lines as strings (split on newlines only: a place's name may hold
    any other line separator)."""
    lines = text.decode().split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _event_dtype() -> np.dtype:
    types = {"kind": "i4", "code": "i4", "announced": "i4", "user": "u4", "device": "u4", "circle": "u4", "place": "u4", "index": "i8", "time_ms": "i8", "end_ms": "i8", "cell_id": "i8", "latitude_deg": "f8", "longitude_deg": "f8", "value": "f8"}
    offsets = [ffi.offsetof("hearth_event", name) for name in _EVENT_FIELDS]
    return np.dtype({"names": list(_EVENT_FIELDS), "formats": [types[n] for n in _EVENT_FIELDS], "offsets": offsets, "itemsize": ffi.sizeof("hearth_event")})


_EVENT_DTYPE = _event_dtype()


STEP_DTYPE = np.dtype([("time_ms", "i8"), ("first_row", "i8"), ("row_count", "i8"), ("kind", "i4"), ("refused", "i4")])


class Schedule:
    """The server's schedule of a history, the library's (`hearth_schedule`,
    docs/decisions/0010-one-server-schedule.md; what `hearth geo replay`
    replays): `steps`, one row per step in the server's order (time_ms: the
    receipt or the time a tick moves the clock to; kind: lib.HEARTH_STEP_UPLOAD
    or lib.HEARTH_STEP_TICK; refused: 1 for an upload the ingest path refuses
    whole; first_row, row_count: the upload's positions in `rows`), and
    `rows`, positions (from 0) of the history's fixes, upload after upload."""

    def __init__(self, steps: np.ndarray, rows: np.ndarray):
        self.steps = steps
        self.rows = rows

    def positions(self, step: int) -> np.ndarray:
        """The history's positions of step `step`'s fixes (none for a tick)."""
        first, count = int(self.steps["first_row"][step]), int(self.steps["row_count"][step])
        return self.rows[first:first + count]

    @property
    def is_upload(self) -> np.ndarray:
        return self.steps["kind"] == lib.HEARTH_STEP_UPLOAD


def schedule(fixes, *, batch: int | None = None, span_ms: int | None = None, tick_ms: int | None = None,
             idle_ticking_ms: int | None = None, until_ms: int | None = None, linger_ms: int | None = None) -> Schedule:
    """The server's schedule of a recorded history (a DataFrame of fix
    columns with user and device, in the order the history has them; with a
    received_ms column, an upload log): each phone's fixes cut into the
    uploads it sent, every upload in order of receipt, the timer between
    (hearth.h, hearth_schedule_create). None leaves a setting at the
    library's default: `batch` fixes per upload (200), `span_ms` an upload
    spans at most (5 min, without receipts), `tick_ms` the timer (1 min),
    `idle_ticking_ms` how long it ticks after a receipt with nothing
    arriving (6 h; 0: no ticks), `until_ms` an end after the last receipt
    (ms since the epoch), `linger_ms` an end that long after the last
    receipt. O(n log n) plus one step per tick."""
    settings = ffi.new("hearth_schedule_settings *")
    raise_for(lib.hearth_schedule_defaults(settings))
    for setting, name, value in (("max_fixes", "batch", batch), ("max_span_ms", "span_ms", span_ms), ("tick_ms", "tick_ms", tick_ms),
                                 ("idle_ticking_ms", "idle_ticking_ms", idle_ticking_ms), ("until_ms", "until_ms", until_ms),
                                 ("linger_ms", "linger_ms", linger_ms)):
        if value is not None:
            setattr(settings, setting, whole(value, name))
    columns = FixBatch(fixes)
    receipts = None
    if "received_ms" in fixes:
        receipts = column(fixes["received_ms"], "received_ms", np.int64)
    received = ffi.NULL if receipts is None else ffi.cast("const int64_t *", ffi.from_buffer(receipts))
    handle = created(lib.hearth_schedule_create, columns.struct, received, settings)
    n, m = ffi.new("int64_t *"), ffi.new("int64_t *")
    raise_for(lib.hearth_schedule_count(handle, n, m), handle)
    steps = np.empty(n[0], STEP_DTYPE)
    rows = np.empty(m[0], np.int64)
    records = ffi.new("hearth_step[]", max(1, n[0]))
    raise_for(lib.hearth_schedule_steps(handle, n[0], records), handle)
    raw = np.frombuffer(ffi.buffer(records, n[0] * ffi.sizeof("hearth_step")), dtype=_step_dtype())
    for name in STEP_DTYPE.names:
        steps[name] = raw[name]
    raise_for(lib.hearth_schedule_rows(handle, m[0], ffi.cast("int64_t *", ffi.from_buffer(rows))), handle)
    return Schedule(steps, rows)


def _step_dtype() -> np.dtype:
    return np.dtype({"names": list(STEP_DTYPE.names), "formats": [STEP_DTYPE.fields[n][0] for n in STEP_DTYPE.names],
                     "offsets": [ffi.offsetof("hearth_step", n) for n in STEP_DTYPE.names], "itemsize": ffi.sizeof("hearth_step")})


def uploads(fixes: pd.DataFrame, *, batch: int | None = None, span_ms: int | None = None) -> Iterator[tuple[pd.DataFrame, int]]:
    """A recorded history cut into the uploads it would have arrived in, as
    `hearth geo replay` cuts it (the library's `schedule`): each phone's
    fixes in uploads of at most `batch` fixes spanning at most `span_ms`
    (or, with a received_ms column, one per receipt time), each received a
    second after its newest fix (kept within 1900–2200, where the server's
    clock reads) and never before the phone's previous upload, all in order
    of receipt. Yields (fixes, received_ms), times in ms since the epoch.

    Example:

    >>> history = pd.DataFrame({"time_ms": np.arange(5, dtype=np.int64) * 100_000 + 1_700_000_000_000,
    ...             "latitude_deg": np.full(5, 52.5), "longitude_deg": np.full(5, 13.4),
    ...             "horizontal_accuracy_m": np.full(5, 10.0)})
    >>> [(len(part), received) for part, received in uploads(history, span_ms=250_000)]
    [(3, 1700000201000), (2, 1700000401000)]
    """
    plan = schedule(fixes, batch=batch, span_ms=span_ms, idle_ticking_ms=0)
    for step in np.flatnonzero(plan.is_upload):
        yield fixes.iloc[plan.positions(step)], int(plan.steps["time_ms"][step])


def trips(fixes: pd.DataFrame, places: Places = None, circles: Circles = None) -> pd.DataFrame:
    """The trips and stays in a fix history (SPEC §7), replayed through the
    ingest path on the server's schedule as `hearth geo replay` does (then
    two hours on, so open trips close): one row per closed segment or stay,
    the replay's JSON lines flattened to the package's column names
    (python/README.md, "Conventions"): time_ms, type, ended_by, id, is_trip,
    person, reasons, its summary (start_ms, end_ms, path_m, displacement_m,
    average_speed_mps, max_agreed_speed_mps, start_latitude_deg, …), a
    trip's named ends (start_place, start_named_by, start_place_distance_m,
    end_place, end_named_by, start_place_name, place_name) and, beside each
    `…_ms`, its UTC datetime (time, start, end).

    Example:

    >>> fixes = pd.DataFrame({"time_ms": np.arange(60, dtype=np.int64) * 30_000 + 1_700_000_000_000,
    ...                       "latitude_deg": np.linspace(52.52, 52.56, 60), "longitude_deg": np.full(60, 13.405),
    ...                       "horizontal_accuracy_m": np.full(60, 10.0), "speed_mps": np.full(60, 1.5)})
    >>> trips(fixes)[["type", "start", "end", "path_m"]]
       type                     start                       end       path_m
    0  trip 2023-11-14 22:13:20+00:00 2023-11-14 22:42:50+00:00  4447.803209
    """
    lines = Ingest(places, circles).replay(fixes, linger_ms=2 * 3_600_000)
    rows = [event for event in map(json.loads, lines) if event["type"] in ("trip", "stay")]
    return with_datetimes(pd.json_normalize(rows).rename(columns=flat_name))
