"""The possible-impact detector (SPEC §9) and the incident lifecycle (SPEC §10)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
from typing import Iterable

import numpy as np
import pandas as pd

from ._codes import ACTIONS as _ACTIONS
from ._codes import CONDITIONS
from ._codes import ENDS as _ENDS
from ._codes import OUTCOMES as _OUTCOMES
from ._ffi import column, created, ffi, lib, pointer, raise_for, same_length, take_bytes, text

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
        arrays; times in seconds on one clock. The arrays are read in place."""
        acc = _stream(accelerometer, ("t_s", "x_mps2", "y_mps2", "z_mps2"), "accelerometer")
        gyr = _stream(gyroscope, ("t_s", "x_radps", "y_radps", "z_radps"), "gyroscope")
        bar = _stream(barometer, ("t_s", "pressure_hpa"), "barometer")
        fix = _stream(fixes, ("t_s", "speed_mps"), "fixes")
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

    def feed_trace(self, trace, *, vehicle_gate: str = "recording") -> "Detector":
        """A whole recording (a path or what read_trace returned) as `hearth
        impact detect` feeds it: 250 ms batches, the vehicle gate from the
        recording's activity stream ("recording"), or "on" / "off"."""
        if vehicle_gate not in _GATES:
            raise ValueError(f"vehicle_gate must be recording, on or off, not {vehicle_gate!r}")
        path = getattr(trace, "path", trace)
        handle = created(lib.hearth_trace_read, text(os.fspath(path)), ffi.NULL)
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


def _paths(traces) -> list:
    if isinstance(traces, (str, os.PathLike)) or hasattr(traces, "path"):
        return [traces]
    return list(traces)


def report(traces, config=None, *, vehicle_gate: str = "recording", format: str = "text") -> str:
    """The text `hearth impact detect PATH... --format FORMAT` prints on stdout
    for these recordings (one CSV header for all). A recording that cannot
    be read raises BadInputError naming it."""
    out = []
    for i, trace in enumerate(_paths(traces)):
        name = os.fspath(getattr(trace, "path", trace))
        body = Detector(config).feed_trace(name, vehicle_gate=vehicle_gate).finish().report(name, format)
        if format == "csv" and i > 0:
            body = body.split("\n", 1)[1]
        out.append(body)
    return "".join(out)


def detect(traces, config=None, *, vehicle_gate: str = "recording") -> pd.DataFrame:
    """The detector on recordings (paths, or what read_trace returned): one row
    per verdict and condition, exactly the rows of `hearth impact detect
    --format csv` (file, jolt_time_s, decided_time_s, outcome, moving_from,
    jolt_g, condition, held, measured, threshold, unit, note); a recording
    with no jolt has one row, outcome noJolt, measured = its peak |a|."""
    return pd.read_csv(io.StringIO(report(traces, config, vehicle_gate=vehicle_gate, format="csv")), keep_default_na=False, na_values={"jolt_time_s": [""], "decided_time_s": [""], "jolt_g": [""], "measured": [""], "threshold": [""]})


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


class Incident:
    """What happens after a possible-impact verdict (SPEC §10): call `check`
    whenever the app runs; it says what to do. Times in ms since the epoch."""

    def __init__(self, verdict_ms: int, account: str, *, _handle=None):
        self._handle = _handle if _handle is not None else created(lib.hearth_incident_create, int(verdict_ms), text(account))

    def check(self, now_ms: int, input: str = "nothing", *, http_status: int = 0, tokens_held: bool = False, account: str | None = None) -> dict:
        """{"action": none|ask|send|waitUntil|finished, "time_ms": …, "end": …}."""
        if input not in _INPUTS:
            raise ValueError(f"input must be one of {', '.join(_INPUTS)}, not {input!r}")
        action = ffi.new("hearth_incident_action *")
        raise_for(
            lib.hearth_incident_check(self._handle, int(now_ms), _INPUTS[input], int(http_status), 1 if tokens_held else 0, text(account), action),
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
