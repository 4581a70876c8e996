"""The possible-impact detector (SPEC §9) and the incident lifecycle (SPEC §10)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import warnings
from typing import Iterable

import numpy as np
import pandas as pd

from ._ffi import BadInputError, column, created, ffi, lib, pointer, raise_for, same_length, take_bytes, text
from .trace import recording_name, trace_handle

STANDARD_GRAVITY = 9.80665  # m/s² per g

# MARK: the configuration


def _library_defaults() -> dict:
    return json.loads(take_bytes(lib.hearth_configuration_json, ffi.NULL))


class _ConfigMethods:
    """Reading and writing the command's JSON configuration file."""

    @classmethod
    def from_json(cls, text_or_bytes) -> "ImpactConfig":
        """The configuration in a JSON object of settings (any subset; the
        rest keep their defaults). An unknown setting or a non-number raises
        BadInputError naming it, exactly as `--config` does."""
        raw = text_or_bytes.decode() if isinstance(text_or_bytes, bytes) else text_or_bytes
        full = json.loads(take_bytes(lib.hearth_configuration_json, text(raw)))
        return cls(**full)

    @classmethod
    def read(cls, path: str | os.PathLike) -> "ImpactConfig":
        """The configuration file at `path` (what `impact sweep --out` writes as picked-configuration.json)."""
        with open(path, "rb") as f:
            return cls.from_json(f.read())

    def to_json(self) -> str:
        """Every setting, keys sorted, one per line: byte-identical to the
        file the command writes for the same settings."""
        return take_bytes(lib.hearth_configuration_json, text(json.dumps(dataclasses.asdict(self)))).decode()

    def write(self, path: str | os.PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    @property
    def jolt_g(self) -> float:
        """The jolt threshold in g (the file holds m/s²)."""
        return self.joltMetersPerSecondSquared / STANDARD_GRAVITY

    def with_thresholds(self, *, jolt_g=None, spin_rad_s=None, pressure_hpa=None, moving_m_s=None, free_fall_s=None):
        """A copy with the command's threshold flags applied (--jolt-g, --spin, --pressure, --moving, --free-fall)."""
        changes = {}
        if jolt_g is not None:
            changes["joltMetersPerSecondSquared"] = jolt_g * STANDARD_GRAVITY
        if spin_rad_s is not None:
            changes["spinRadiansPerSecond"] = spin_rad_s
        if pressure_hpa is not None:
            changes["pressureRiseHectopascals"] = pressure_hpa
        if moving_m_s is not None:
            changes["movingMedianMetersPerSecond"] = moving_m_s
        if free_fall_s is not None:
            changes["freeFallSeconds"] = free_fall_s
        return dataclasses.replace(self, **changes)


def _make_config_class():
    # The fields are the library's own settings, read from it at import: a
    # setting renamed or added in the library appears here without an edit.
    defaults = _library_defaults()
    fields = [(key, type(value), dataclasses.field(default=value)) for key, value in defaults.items()]
    cls = dataclasses.make_dataclass("ImpactConfig", fields, bases=(_ConfigMethods,), frozen=True)
    cls.__module__ = __name__
    cls.__doc__ = (
        "The detector's settings as the command's JSON configuration file has them "
        "(units in every name: MetersPerSecondSquared, RadiansPerSecond, Hectopascals, Seconds). "
        "Fields: " + ", ".join(defaults) + "."
    )
    return cls


ImpactConfig = _make_config_class()


def _configuration_json(config) -> bytes | None:
    if config is None:
        return None
    if isinstance(config, ImpactConfig):
        return json.dumps(dataclasses.asdict(config))
    if isinstance(config, dict):
        return json.dumps(config)
    if isinstance(config, (str, os.PathLike)) and os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            return f.read()
    if isinstance(config, str):
        return config
    raise ValueError("config: an ImpactConfig, a dict of settings, a JSON string or a configuration file's path")


# MARK: the detector

_GATES = {"recording": lib.HEARTH_GATE_RECORDING, "on": lib.HEARTH_GATE_ON, "off": lib.HEARTH_GATE_OFF}
_FORMATS = {"text": lib.HEARTH_FORMAT_TEXT, "json": lib.HEARTH_FORMAT_JSON, "csv": lib.HEARTH_FORMAT_CSV}
_OUTCOMES = {0: "possibleImpact", 1: "silent", 2: "suppressed"}
CONDITIONS = [ffi.string(lib.hearth_condition_name(i)).decode() for i in range(11)]
UNITS = {name: ffi.string(lib.hearth_condition_unit(i)).decode() for i, name in enumerate(CONDITIONS)}


def _stream(data, names: tuple[str, ...], label: str) -> list[np.ndarray]:
    """A stream as its columns: a DataFrame with the named columns (as
    read_trace gives them) or a tuple of arrays in that order."""
    if data is None:
        return [np.empty(0) for _ in names]
    if isinstance(data, pd.DataFrame):
        missing = [n for n in names if n not in data.columns]
        if missing:
            raise ValueError(f"{label}: missing columns {missing} (expected {list(names)})")
        arrays = [column(data[n], f"{label}.{n}") for n in names]
    else:
        if len(data) != len(names):
            raise ValueError(f"{label}: expected {len(names)} arrays ({', '.join(names)}), got {len(data)}")
        arrays = [column(a, f"{label}.{n}") for a, n in zip(data, names)]
    same_length(**{f"{label}.{n}": a for n, a in zip(names, arrays)})
    return arrays


def _fix_seconds(fixes, origin_ms=None):
    """Fixes as (t_s, speed_mps): a frame with t_s as it is; the fixes frame
    `read_trace` gives (time_ms, ms since the epoch) on the recording's clock,
    t_s = (time_ms − its time origin) / 1000 as the library converts them
    (the origin from the frame's attrs["timeOriginMs"], which read_trace
    sets, or `origin_ms`); a tuple of arrays as it is."""
    if not isinstance(fixes, pd.DataFrame) or "t_s" in fixes.columns or "time_ms" not in fixes.columns:
        return fixes
    origin = fixes.attrs.get("timeOriginMs") if origin_ms is None else origin_ms
    if origin is None:
        raise ValueError(
            "fixes: a time_ms column with no time origin to put it on the sensors' clock "
            "(a recording without a wall-clock origin; pass a frame with t_s, seconds on the sensors' clock)"
        )
    t = column(fixes["time_ms"], "fixes.time_ms", np.int64)
    return pd.DataFrame({"t_s": (t - np.int64(origin)).astype(np.float64) / 1000.0, "speed_mps": column(fixes["speed_mps"], "fixes.speed_mps")})


class Detector:
    """The phone's possible-impact detector, fed batch by batch.

    `config`: an ImpactConfig, a dict of settings, a JSON string or the path
    of a configuration file (None: the defaults). Verdicts depend only on the
    data, not on how it is cut into batches (fixes less than 2 s late)."""

    def __init__(self, config=None):
        self._handle = created(lib.hearth_detector_create, text(_configuration_json(config)))

    def feed(self, accelerometer=None, gyroscope=None, barometer=None, fixes=None, *, vehicle_gate: bool = True) -> "Detector":
        """One batch: accelerometer (t_s, x_mps2, y_mps2, z_mps2; gravity
        included), gyroscope (t_s, x_radps, y_radps, z_radps), barometer
        (t_s, pressure_hpa), fixes (t_s, speed_mps; negative or NaN =
        unmeasured), each a DataFrame with those columns or a tuple of float64
        arrays; times in seconds on one clock. The arrays are read in place.
        `fixes` may also be the fixes frame `read_trace` gives (time_ms,
        speed_mps): its times are put on the sensors' clock with the
        recording's time origin, as `hearth impact detect` does."""
        acc = _stream(accelerometer, ("t_s", "x_mps2", "y_mps2", "z_mps2"), "accelerometer")
        gyr = _stream(gyroscope, ("t_s", "x_radps", "y_radps", "z_radps"), "gyroscope")
        bar = _stream(barometer, ("t_s", "pressure_hpa"), "barometer")
        fix = _stream(_fix_seconds(fixes), ("t_s", "speed_mps"), "fixes")
        b = ffi.new("hearth_sensor_batch *")
        b.accelerometer_count = len(acc[0])
        b.accelerometer_t_s, b.accelerometer_x_mps2, b.accelerometer_y_mps2, b.accelerometer_z_mps2 = (pointer(a, "double") for a in acc)
        b.gyroscope_count = len(gyr[0])
        b.gyroscope_t_s, b.gyroscope_x_radps, b.gyroscope_y_radps, b.gyroscope_z_radps = (pointer(a, "double") for a in gyr)
        b.barometer_count = len(bar[0])
        b.barometer_t_s, b.barometer_hpa = (pointer(a, "double") for a in bar)
        b.fix_count = len(fix[0])
        b.fix_t_s, b.fix_speed_mps = (pointer(a, "double") for a in fix)
        b.vehicle_gate = 1 if vehicle_gate else 0
        raise_for(lib.hearth_detector_feed(self._handle, b), self._handle)
        return self

    def feed_trace(self, trace, *, vehicle_gate: str = "recording", mapping=None) -> "Detector":
        """A whole recording as `hearth impact detect` feeds it: 250 ms
        batches, the vehicle gate from the recording's activity stream
        ("recording"), or "on" / "off". `trace`: the data as held (what
        read_trace returned, as edited: a cropped frame is the cropped
        recording; an ArrowTrace or a dict of Arrow tables; a Parquet/Arrow
        folder) or a path the library reads (`mapping`: a CSV column
        mapping file, as the command's --mapping). Nothing is read again
        from disk for data in hand (`hearth.trace.trace_handle`)."""
        if vehicle_gate not in _GATES:
            raise ValueError(f"vehicle_gate must be recording, on or off, not {vehicle_gate!r}")
        handle = trace_handle(trace, mapping=mapping)
        raise_for(lib.hearth_detector_feed_trace(self._handle, handle, _GATES[vehicle_gate]), self._handle)
        return self

    def finish(self) -> "Detector":
        """Decides an open incident with the data there are (the end of a recording)."""
        raise_for(lib.hearth_detector_finish(self._handle), self._handle)
        return self

    def _counts(self):
        v, c = ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_detector_count(self._handle, v, c), self._handle)
        return v[0], c[0]

    def verdicts(self) -> pd.DataFrame:
        """One row per verdict so far: outcome, jolt_time_s, decided_time_s,
        moving_from (gps or vibration), jolt_g."""
        n, _ = self._counts()
        records = ffi.new("hearth_verdict[]", max(n, 1))
        raise_for(lib.hearth_detector_verdicts(self._handle, n, records), self._handle)
        rows = [records[i] for i in range(n)]
        return pd.DataFrame(
            {
                "outcome": [_OUTCOMES[r.outcome] for r in rows],
                "jolt_time_s": [r.jolt_s for r in rows],
                "decided_time_s": [r.decided_s for r in rows],
                "moving_from": ["gps" if r.used_gps else "vibration" for r in rows],
                "jolt_g": [r.jolt_g for r in rows],
            }
        )

    def conditions(self) -> pd.DataFrame:
        """One row per verdict and condition: verdict (row of verdicts()),
        condition, held, measured, threshold, unit (NaN: nothing measured)."""
        _, n = self._counts()
        records = ffi.new("hearth_condition[]", max(n, 1))
        raise_for(lib.hearth_detector_conditions(self._handle, n, records), self._handle)
        rows = [records[i] for i in range(n)]
        return pd.DataFrame(
            {
                "verdict": [r.verdict for r in rows],
                "condition": [CONDITIONS[r.condition] for r in rows],
                "held": [bool(r.held) for r in rows],
                "measured": [r.measured for r in rows],
                "threshold": [r.threshold for r in rows],
                "unit": [UNITS[CONDITIONS[r.condition]] for r in rows],
            }
        )

    def counters(self) -> dict:
        """Samples skipped (a bad time, an impossible value, or not newer than their
        stream's last) and jolts seen with the gate off."""
        skipped, gate_off = ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_detector_counters(self._handle, skipped, gate_off), self._handle)
        return {"skipped_samples": skipped[0], "jolts_gate_off": gate_off[0]}

    def report(self, file: str = "-", format: str = "text") -> str:
        """What `hearth impact detect --format FORMAT` prints for this recording
        (text, json = JSON Lines, csv with its header), byte for byte."""
        if format not in _FORMATS:
            raise ValueError(f"format must be text, json or csv, not {format!r}")
        return take_bytes(lib.hearth_detector_report, self._handle, text(file), _FORMATS[format]).decode()


def _recordings(traces) -> list:
    """One recording (a path, frames, Arrow tables) or a list of them."""
    if isinstance(traces, (str, os.PathLike, dict)) or hasattr(traces, "tables"):
        return [traces]
    return list(traces)


def _records(traces, config, vehicle_gate: str, mapping, progress, formats: tuple[str, ...]):
    """Each recording through its own detector: (name, {format: text}) for
    those read, and the failures (BadInputError naming the recording).
    A bad recording among good ones is named in a warning and left out,
    the rest kept (as `hearth impact detect` reports it and goes on); when
    every recording fails, the first failure is raised."""
    from ._progress import Progress

    items = _recordings(traces)
    done, failures = [], []
    tracker = Progress("hearth detect", len(items), progress, unit="recordings", delay_s=1.0)
    for trace in items:
        name = recording_name(trace)
        try:
            detector = Detector(config).feed_trace(trace, vehicle_gate=vehicle_gate, mapping=mapping).finish()
            done.append((name, {f: detector.report(name, f) for f in formats}))
            tracker.step(1.0)
        except BadInputError as error:
            failures.append(error)
            tracker.step(1.0, failed=True)
    tracker.close()
    if failures and not done:
        raise failures[0]
    for error in failures:
        warnings.warn(f"left out: {error}", BadRecordingWarning, stacklevel=3)
    return done, [str(e) for e in failures]


class BadRecordingWarning(UserWarning):
    """A recording among several could not be read: named, left out, the rest kept."""


def report(traces, config=None, *, vehicle_gate: str = "recording", format: str = "text", mapping=None, progress=True) -> str:
    """The text `hearth impact detect PATH... --format FORMAT` prints on stdout
    for these recordings (one CSV header for all). `traces`: one recording
    or a list: paths (`mapping` for CSV files), what read_trace returned (as
    edited), ArrowTrace values or Parquet/Arrow folders. A recording that
    cannot be read is named in a BadRecordingWarning and left out (raised
    when it is the only one, or every one). `progress`: True shows the
    recordings done once the work has taken a second (stderr, or an
    updating line in Jupyter), False nothing, a callable gets the
    `hearth._progress.Progress` after each recording."""
    if format not in _FORMATS:
        raise ValueError(f"format must be text, json or csv, not {format!r}")
    done, _ = _records(traces, config, vehicle_gate, mapping, progress, (format,))
    out = []
    for i, (_, texts) in enumerate(done):
        body = texts[format]
        if format == "csv" and i > 0:
            body = body.split("\n", 1)[1]
        out.append(body)
    return "".join(out)


_NA = {"jolt_time_s": [""], "decided_time_s": [""], "jolt_g": [""], "measured": [""], "threshold": [""]}


def detect(traces, config=None, *, vehicle_gate: str = "recording", mapping=None, progress=True) -> pd.DataFrame:
    """The detector on recordings: one row per verdict and condition, the rows
    of `hearth impact detect --format csv` (file, jolt_time_s,
    decided_time_s, outcome, moving_from, jolt_g, condition, held, measured,
    threshold, unit, note); a recording with no jolt has one row, outcome
    noJolt, measured = its peak |a|. Then, from the library's verdict records
    (the command's --format json), the answers as data:

      verdict          the verdict's number within its recording (0, 1, …;
                       -1 on a recording's noJolt row)
      met              True when this condition does not stand in the way of
                       a report: read the same way for every condition (held
                       for the jolt; a free fall seen, held, is met=False only
                       when nothing else corroborated)
      unmet            the verdict's conditions that failed, in SPEC §9 order
                       (a tuple; empty for a report or a suppressed verdict)
      recording_ended  a note when the recording ended before every window
                       the verdict reads was complete (else "")

    `traces`, `mapping`, `progress` and bad recordings: as `report`; the
    names of recordings left out are in `frame.attrs["failures"]`."""
    done, failures = _records(traces, config, vehicle_gate, mapping, progress, ("csv", "json"))
    frames = []
    for _, texts in done:
        frame = pd.read_csv(io.StringIO(texts["csv"]), keep_default_na=False, na_values=_NA)
        records = [json.loads(line) for line in texts["json"].splitlines() if line.strip()]
        verdict, met, unmet, ended = [], [], [], []
        for i, record in enumerate(records):
            conditions = record.get("conditions") or [{"met": False}]  # noJolt: one row, the jolt not met
            for c in conditions:
                verdict.append(i if record["outcome"] != "noJolt" else -1)
                met.append(bool(c["met"]))
                unmet.append(tuple(record.get("unmet") or ()))
                ended.append(record.get("recordingEnded") or "")
        if len(met) != len(frame):
            raise AssertionError(f"the library's CSV has {len(frame)} rows and its JSON {len(met)} conditions")
        frames.append(frame.assign(verdict=verdict, met=met, unmet=unmet, recording_ended=ended))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    out.attrs["failures"] = failures
    return out


# MARK: the incident lifecycle

_INPUTS = {
    "nothing": lib.HEARTH_INPUT_NOTHING,
    "dismissed": lib.HEARTH_INPUT_DISMISSED,
    "alertNow": lib.HEARTH_INPUT_ALERT_NOW,
    "delivered": lib.HEARTH_INPUT_DELIVERED,
    "networkFailure": lib.HEARTH_INPUT_NETWORK_FAILURE,
    "http": lib.HEARTH_INPUT_HTTP,
    "firewallPage": lib.HEARTH_INPUT_FIREWALL_PAGE,
    "uploadSucceeded": lib.HEARTH_INPUT_UPLOAD_SUCCEEDED,
    "signedIn": lib.HEARTH_INPUT_SIGNED_IN,
}
_ACTIONS = {0: "none", 1: "ask", 2: "send", 3: "waitUntil", 4: "finished"}
_ENDS = {0: "dismissed", 1: "delivered", 2: "refused", 3: "droppedAfterAnHour", 4: "otherAccount"}


class Incident:
    """What happens after a possible-impact verdict (SPEC §10): call `check`
    whenever the app runs; it says what to do. Times in ms since the epoch."""

    def __init__(self, verdict_ms, account: str, *, _handle=None):
        from .geo import milliseconds

        self._handle = _handle if _handle is not None else created(lib.hearth_incident_create, milliseconds(verdict_ms, "verdict_ms"), text(account))

    def check(self, now_ms, input: str = "nothing", *, http_status: int = 0, tokens_held: bool = False, account: str | None = None) -> dict:
        """{"action": none|ask|send|waitUntil|finished, "time_ms": …, "end": …}.
        `now_ms`: ms since the epoch, or a tz-aware pandas Timestamp (a naive one is refused)."""
        from .geo import milliseconds

        if input not in _INPUTS:
            raise ValueError(f"input must be one of {', '.join(_INPUTS)}, not {input!r}")
        action = ffi.new("hearth_incident_action *")
        raise_for(
            lib.hearth_incident_check(self._handle, milliseconds(now_ms), _INPUTS[input], int(http_status), 1 if tokens_held else 0, text(account), action),
            self._handle,
        )
        out = {"action": _ACTIONS[action.action]}
        if action.action in (lib.HEARTH_ACTION_ASK, lib.HEARTH_ACTION_WAIT_UNTIL):
            out["time_ms"] = action.time_ms
        if action.action == lib.HEARTH_ACTION_FINISHED:
            out["end"] = _ENDS[action.end]
        return out

    def save(self) -> bytes:
        """The state as bytes (it survives a process kill)."""
        return take_bytes(lib.hearth_incident_save, self._handle)

    @classmethod
    def restore(cls, state: bytes) -> "Incident":
        """An incident from saved bytes; bad bytes raise BadInputError."""
        buffer = ffi.from_buffer("uint8_t[]", state)
        return cls(0, "", _handle=created(lib.hearth_incident_restore, buffer, len(state)))
