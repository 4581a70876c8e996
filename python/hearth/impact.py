"""The possible-impact detector (SPEC §9) and the incident lifecycle (SPEC §10)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import warnings
from typing import Any, Iterable, Union

import numpy as np
import pandas as pd

from ._codes import ACTIONS as _ACTIONS
from ._codes import CONDITIONS
from ._codes import ENDS as _ENDS
from ._codes import OUTCOMES as _OUTCOMES
from ._types import Stream, Trace, Traces
from ._ffi import BadInputError, column, created, ffi, lib, pointer, raise_for, real, same_length, take_bytes, text, whole
from .trace import recording_name, trace_handle

STANDARD_GRAVITY = 9.80665  # m/s² per g

# MARK: the configuration


def _library_defaults() -> dict[str, float]:
    """Every setting the library has, by its key in the configuration file
    (camelCase, the unit spelt out), with its default value."""
    return json.loads(take_bytes(lib.hearth_configuration_json, ffi.NULL))


_DEFAULTS = _library_defaults()


def _setting(key: str, unit: str, doc: str, kind: type = float) -> Any:
    """One field of ImpactConfig: the library's setting `key` (its default),
    its unit as a symbol, and what it means."""
    if key not in _DEFAULTS:
        raise ImportError(f"libhearth has no detector setting {key!r}: the library and hearth.ImpactConfig disagree (ABI {lib.hearth_abi_version():#x})")
    return dataclasses.field(default=kind(_DEFAULTS[key]), metadata={"setting": key, "unit": unit, "doc": doc})


@dataclasses.dataclass(frozen=True)
class ImpactConfig:
    """The possible-impact detector's settings (SPEC §9), one field per setting
    of the library's configuration, in the package's naming rule (snake_case,
    the unit as the name's last part: _mps2 m/s², _mps m/s, _radps rad/s,
    _hpa hPa, _s seconds, _hz Hz). Defaults are the library's own. A window
    written `…_from_s` / `…_to_s` is an offset from the jolt at t (negative:
    before it). Frozen: `with_thresholds` or `dataclasses.replace` make a
    changed copy; every value is checked by the library (BadInputError naming
    the setting and its range) when a detector or sweep is built from it.

    On disk the configuration is the command's JSON file (`--config`, the
    sweep's picked-configuration.json), whose keys are the library's names
    (`jolt_mps2` is `joltMetersPerSecondSquared`): `to_json`, `write`,
    `from_json` and `read` translate. `ImpactConfig.settings()` lists each
    field with its key, unit, default and meaning.

    Example:

    >>> config = ImpactConfig(jolt_mps2=5 * 9.80665, spin_radps=3.0)
    >>> round(config.jolt_g, 3), config.spin_radps, config.free_fall_s
    (5.0, 3.0, 0.12)
    """

    # Features
    gravity_time_constant_s: float = _setting("gravityTimeConstantSeconds", "s", "time constant of the slow gravity estimate a jolt is measured against")
    vibration_time_constant_s: float = _setting("vibrationTimeConstantSeconds", "s", "time constant of the high-pass that leaves the road vibration")
    vibration_bin_s: float = _setting("vibrationBinSeconds", "s", "length of one vibration RMS bin")
    clip_mps2: float = _setting("clipMetersPerSecondSquared", "m/s²", "an axis reading at or beyond this is taken as clipped (the sensor saturated)")
    # D1 jolt
    jolt_mps2: float = _setting("joltMetersPerSecondSquared", "m/s²", "peak dynamic acceleration (gravity removed) that is a jolt")
    jolt_peak_window_s: float = _setting("joltPeakWindowSeconds", "s", "jolt samples this soon after the first belong to its peak")
    jolt_chain_s: float = _setting("joltChainSeconds", "s", "a jolt this soon after the previous one joins its incident")
    # D2, D3, D5 moving before and stopped after, from GPS
    current_fix_age_s: float = _setting("currentFixAgeSeconds", "s", "a fix at most this old at the jolt is current")
    moving_median_mps: float = _setting("movingMedianMetersPerSecond", "m/s", "median speed before the jolt that counts as moving")
    moving_from_s: float = _setting("movingFromSeconds", "s", "start of the moving-before window (offset from the jolt)")
    moving_to_s: float = _setting("movingToSeconds", "s", "end of the moving-before window (offset from the jolt)")
    moving_at_jolt_mps: float = _setting("movingAtJoltMetersPerSecond", "m/s", "speed of the last current fix that counts as still moving at the jolt")
    moving_at_jolt_to_s: float = _setting("movingAtJoltToSeconds", "s", "latest fix looked at for the speed at the jolt (offset from the jolt)")
    stopped_mps: float = _setting("stoppedMetersPerSecond", "m/s", "speed at or under which the car is stopped")
    rest_within_s: float = _setting("restWithinSeconds", "s", "the first stopped fix must come this soon after the jolt")
    stay_stopped_s: float = _setting("stayStoppedSeconds", "s", "how long after the rest every fix must stay stopped")
    stay_stopped_minimum_fixes: int = _setting("stayStoppedMinimumFixes", "count", "fixes needed in that time to decide by GPS", int)
    moving_again_mps: float = _setting("movingAgainMetersPerSecond", "m/s", "after the rest, one fix faster than this (or most of at least three over the stopped speed) says the car moved on; the default is the stopped speed")
    # D4, D6 moving before and stopped after, from vibration
    vibration_moving_mps2: float = _setting("vibrationMovingMetersPerSecondSquared", "m/s²", "median vertical vibration RMS that counts as moving")
    vibration_moving_from_s: float = _setting("vibrationMovingFromSeconds", "s", "start of the vibration moving-before window (offset from the jolt)")
    vibration_moving_to_s: float = _setting("vibrationMovingToSeconds", "s", "end of the vibration moving-before window (offset from the jolt)")
    vibration_moving_at_jolt_from_s: float = _setting("vibrationMovingAtJoltFromSeconds", "s", "start of the vibration moving-at-jolt window (offset from the jolt)")
    vibration_moving_at_jolt_to_s: float = _setting("vibrationMovingAtJoltToSeconds", "s", "end of the vibration moving-at-jolt window (offset from the jolt)")
    vibration_stopped_fraction: float = _setting("vibrationStoppedFraction", "fraction", "stopped after: a window's median RMS at most this share of the one before")
    vibration_stop_earliest_start_s: float = _setting("vibrationStopEarliestStartSeconds", "s", "earliest start of the stopped-after window (offset from the jolt)")
    vibration_stop_latest_start_s: float = _setting("vibrationStopLatestStartSeconds", "s", "latest start of the stopped-after window (offset from the jolt)")
    vibration_stop_window_s: float = _setting("vibrationStopWindowSeconds", "s", "length of the stopped-after window")
    # D7, D8 corroboration, D9 free fall
    spin_radps: float = _setting("spinRadiansPerSecond", "rad/s", "peak rotation rate around the jolt that corroborates it")
    spin_from_s: float = _setting("spinFromSeconds", "s", "start of the spin window (offset from the jolt)")
    spin_to_s: float = _setting("spinToSeconds", "s", "end of the spin window (offset from the jolt)")
    pressure_rise_hpa: float = _setting("pressureRiseHectopascals", "hPa", "cabin pressure rise over the baseline that corroborates the jolt")
    pressure_after_s: float = _setting("pressureAfterSeconds", "s", "the rise is the maximum up to this long after the jolt")
    pressure_baseline_from_s: float = _setting("pressureBaselineFromSeconds", "s", "start of the pressure baseline window (offset from the jolt)")
    pressure_baseline_to_s: float = _setting("pressureBaselineToSeconds", "s", "end of the pressure baseline window (offset from the jolt)")
    free_fall_mps2: float = _setting("freeFallMetersPerSecondSquared", "m/s²", "|a| below this is free fall (the phone dropped)")
    free_fall_s: float = _setting("freeFallSeconds", "s", "free fall at least this long vetoes the spin")
    free_fall_ends_before_jolt_s: float = _setting("freeFallEndsBeforeJoltSeconds", "s", "the free fall must end at most this long before the jolt")
    # D10, D11 deciding and suppressing
    verdict_deadline_s: float = _setting("verdictDeadlineSeconds", "s", "a verdict is reached at the latest this long after the jolt (plus late data)")
    late_data_s: float = _setting("lateDataSeconds", "s", "a stream is complete up to a time once any stream is this far past it")
    suppression_s: float = _setting("suppressionSeconds", "s", "jolts this soon after a reported impact are suppressed")
    # input bounds: a sample beyond them is rejected and counted
    maximum_absolute_time_s: float = _setting("maximumAbsoluteTimeSeconds", "s", "a sample time beyond ± this is bad")
    maximum_acceleration_mps2: float = _setting("maximumAccelerationMetersPerSecondSquared", "m/s²", "an accelerometer axis beyond ± this is a glitch")
    maximum_rotation_radps: float = _setting("maximumRotationRadiansPerSecond", "rad/s", "a gyroscope axis beyond ± this is a glitch or a marker")
    minimum_pressure_hpa: float = _setting("minimumPressureHectopascals", "hPa", "a pressure below this is a glitch or another unit")
    maximum_pressure_hpa: float = _setting("maximumPressureHectopascals", "hPa", "a pressure above this is a glitch or another unit")
    maximum_speed_mps: float = _setting("maximumSpeedMetersPerSecond", "m/s", "a GPS speed above this is impossible")
    # rates the windows are kept for
    supported_gyroscope_hz: float = _setting("supportedGyroscopeHertz", "Hz", "gyroscope rate the windows keep every sample of")
    supported_barometer_hz: float = _setting("supportedBarometerHertz", "Hz", "barometer rate the windows keep every sample of")
    supported_fix_hz: float = _setting("supportedFixHertz", "Hz", "fix rate the windows keep every sample of")

    @classmethod
    def settings(cls) -> pd.DataFrame:
        """One row per field: field, setting (the key in the configuration
        file), unit, default and meaning.

        Example:

        >>> table = ImpactConfig.settings().set_index("field")
        >>> table.loc["spin_radps", "setting"], table.loc["spin_radps", "unit"]
        ('spinRadiansPerSecond', 'rad/s')
        """
        rows = [{"field": f.name, "setting": f.metadata["setting"], "unit": f.metadata["unit"], "default": f.default, "meaning": f.metadata["doc"]}
                for f in dataclasses.fields(cls)]
        return pd.DataFrame(rows)

    def to_settings(self) -> dict[str, float]:
        """The settings by the configuration file's keys (camelCase, units
        spelt out), as the command and the C ABI read them.

        Example:

        >>> ImpactConfig(spin_radps=3.0).to_settings()["spinRadiansPerSecond"]
        3.0
        """
        return {f.metadata["setting"]: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_settings(cls, settings: dict[str, float]) -> "ImpactConfig":
        """A configuration from settings by the file's keys (every key the
        library has; `from_json` takes any subset). Unknown keys raise ValueError.

        Example:

        >>> ImpactConfig.from_settings({"freeFallSeconds": 0.2}).free_fall_s
        0.2
        """
        names = {f.metadata["setting"]: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(settings) - set(names))
        if unknown:
            raise ValueError(f"settings: unknown keys {unknown} (the configuration file's keys: {', '.join(sorted(names))})")
        return cls(**{names[k].name: int(v) if names[k].type in (int, "int") else float(v) for k, v in settings.items()})

    @classmethod
    def from_json(cls, text_or_bytes: str | bytes) -> "ImpactConfig":
        """The configuration in a JSON object of settings by the file's keys
        (any subset; the rest keep their defaults). An unknown setting or a
        non-number raises BadInputError naming it, exactly as `--config` does.

        Example:

        >>> ImpactConfig.from_json('{"spinRadiansPerSecond": 3}').spin_radps
        3.0
        """
        raw = text_or_bytes.decode() if isinstance(text_or_bytes, bytes) else text_or_bytes
        return cls.from_settings(json.loads(take_bytes(lib.hearth_configuration_json, text(raw, "text_or_bytes"))))

    @classmethod
    def read(cls, path: str | os.PathLike) -> "ImpactConfig":
        """The configuration file at `path` (what `impact sweep --out` writes
        as picked-configuration.json); bad settings raise BadInputError.

        Example:

        >>> ImpactConfig().write("/tmp/hearth-doctest-config.json")
        >>> ImpactConfig.read("/tmp/hearth-doctest-config.json") == ImpactConfig()
        True
        """
        with open(path, "rb") as f:
            return cls.from_json(f.read())

    def to_json(self) -> str:
        """Every setting by the file's keys, sorted, one per line:
        byte-identical to the file the command writes for the same settings.

        Example:

        >>> print(ImpactConfig().to_json().splitlines()[1])
          "clipMetersPerSecondSquared" : 152.003075,
        """
        return take_bytes(lib.hearth_configuration_json, text(json.dumps(self.to_settings()), "configuration")).decode()

    def write(self, path: str | os.PathLike) -> None:
        """Writes `to_json()` to `path` (what `impact detect --config` reads).

        Example:

        >>> ImpactConfig(free_fall_s=0.2).write("/tmp/hearth-doctest-config.json")
        """
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    @property
    def jolt_g(self) -> float:
        """The jolt threshold in g (standard gravity, 9.80665 m/s²); the setting is `jolt_mps2`.

        Example:

        >>> ImpactConfig().jolt_g
        4.0
        """
        return self.jolt_mps2 / STANDARD_GRAVITY

    def with_thresholds(self, *, jolt_g: float | None = None, spin_radps: float | None = None, pressure_hpa: float | None = None,
                        moving_mps: float | None = None, free_fall_s: float | None = None) -> "ImpactConfig":
        """A copy with the command's threshold flags applied: `jolt_g` in g
        (--jolt-g), `spin_radps` in rad/s (--spin), `pressure_hpa` in hPa
        (--pressure), `moving_mps` in m/s (--moving), `free_fall_s` in
        seconds (--free-fall). None keeps the value.

        Example:

        >>> config = ImpactConfig().with_thresholds(jolt_g=5, spin_radps=3)
        >>> round(config.jolt_mps2, 5), config.spin_radps
        (49.03325, 3)
        """
        changes: dict[str, float] = {}
        if jolt_g is not None:
            changes["jolt_mps2"] = jolt_g * STANDARD_GRAVITY
        if spin_radps is not None:
            changes["spin_radps"] = spin_radps
        if pressure_hpa is not None:
            changes["pressure_rise_hpa"] = pressure_hpa
        if moving_mps is not None:
            changes["moving_median_mps"] = moving_mps
        if free_fall_s is not None:
            changes["free_fall_s"] = free_fall_s
        return dataclasses.replace(self, **changes)


ImpactConfig.__doc__ += "\n    Fields (unit; the configuration file's key; meaning):\n\n" + "".join(
    f"    {f.name} ({f.metadata['unit']}; {f.metadata['setting']}): {f.metadata['doc']}\n" for f in dataclasses.fields(ImpactConfig)
)

#: A configuration: an ImpactConfig, a dict of settings by the file's keys, a JSON text or a file's path (None: the defaults).
ConfigLike = Union[ImpactConfig, dict, str, os.PathLike, None]


def _configuration_json(config: ConfigLike) -> str | None:
    if config is None:
        return None
    if isinstance(config, ImpactConfig):
        return json.dumps(config.to_settings())
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


def _example_accelerometer() -> pd.DataFrame:
    """30 s at 50 Hz lying still, with one 5.1 g knock at 10 s (the docstrings' examples)."""
    t = np.arange(0, 30, 0.02)
    z = np.full_like(t, 9.81)
    z[500] = 60.0
    return pd.DataFrame({"t_s": t, "x_mps2": np.zeros_like(t), "y_mps2": np.zeros_like(t), "z_mps2": z})


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


#: The names a fixes frame may give its accuracy column (metres): the detector's, and read_trace's.
_FIX_ACCURACY_COLUMNS = ("accuracy_m", "horizontal_accuracy_m")


def _fix_seconds(fixes, origin_ms=None):
    """Fixes as (t_s, speed_mps[, accuracy_m]): a frame with t_s as it is; the
    fixes frame `read_trace` gives (time_ms, ms since the epoch) on the
    recording's clock, t_s = (time_ms − its time origin) / 1000 as the
    library converts them (the origin from the frame's attrs["timeOriginMs"],
    which read_trace sets, or `origin_ms`), with its horizontal_accuracy_m;
    a tuple of arrays as it is."""
    if not isinstance(fixes, pd.DataFrame) or "t_s" in fixes.columns or "time_ms" not in fixes.columns:
        return fixes
    origin = fixes.attrs.get("timeOriginMs") if origin_ms is None else origin_ms
    if origin is None:
        raise ValueError(
            "fixes: a time_ms column with no time origin to put it on the sensors' clock "
            "(a recording without a wall-clock origin; pass a frame with t_s, seconds on the sensors' clock)"
        )
    t = column(fixes["time_ms"], "fixes.time_ms", np.int64)
    out = {"t_s": (t - np.int64(origin)).astype(np.float64) / 1000.0, "speed_mps": column(fixes["speed_mps"], "fixes.speed_mps")}
    for name in _FIX_ACCURACY_COLUMNS:
        if name in fixes.columns:
            out[name] = column(fixes[name], f"fixes.{name}")
    return pd.DataFrame(out)


def _fix_columns(fixes) -> tuple[list[np.ndarray], np.ndarray | None]:
    """The fixes' (t_s, speed_mps) columns and their accuracy_m column, or
    None when they have none: a frame with an accuracy_m (or read_trace's
    horizontal_accuracy_m) column, or a tuple of three arrays."""
    fixes = _fix_seconds(fixes)
    names: tuple[str, ...] = ("t_s", "speed_mps")
    if isinstance(fixes, pd.DataFrame):
        given = [n for n in _FIX_ACCURACY_COLUMNS if n in fixes.columns]
        if len(given) > 1:
            raise ValueError("fixes: both accuracy_m and horizontal_accuracy_m columns (pass one accuracy, in metres)")
        names += tuple(given)
    elif fixes is not None:
        if len(fixes) not in (2, 3):
            raise ValueError(f"fixes: expected 2 arrays (t_s, speed_mps) or 3 (t_s, speed_mps, accuracy_m), got {len(fixes)}")
        names += ("accuracy_m",) if len(fixes) == 3 else ()
    arrays = _stream(fixes, names, "fixes")
    return arrays[:2], (arrays[2] if len(arrays) == 3 else None)


class Detector:
    """The phone's possible-impact detector, fed batch by batch.

    `config`: an ImpactConfig, a dict of settings, a JSON string or the path
    of a configuration file (None: the defaults). Verdicts depend only on the
    data, not on how it is cut into batches (fixes less than 2 s late).

    Example (`_example_accelerometer`: 30 s still, a 5.1 g knock at 10 s):

    >>> Detector().feed(_example_accelerometer()).finish().verdicts()
      outcome  jolt_time_s  decided_time_s moving_from    jolt_g
    0  silent         10.0            20.0   vibration  5.117956
    """

    def __init__(self, config: ConfigLike = None) -> None:
        self._handle = created(lib.hearth_detector_create, text(_configuration_json(config), "config"))

    def feed(self, accelerometer: Stream = None, gyroscope: Stream = None, barometer: Stream = None, fixes: Stream = None, *,
             vehicle_gate: bool = True, received_s: float | None = None) -> "Detector":
        """One batch: accelerometer (t_s, x_mps2, y_mps2, z_mps2; gravity
        included), gyroscope (t_s, x_radps, y_radps, z_radps), barometer
        (t_s, pressure_hpa), fixes (t_s, speed_mps and optionally
        accuracy_m), each a DataFrame with those columns or a tuple of float64
        arrays; times in seconds on one clock. The arrays are read in place.
        `vehicle_gate`: whether the phone is in a vehicle for this batch.
        `fixes` may also be the fixes frame `read_trace` gives (time_ms,
        speed_mps, horizontal_accuracy_m): its times are put on the sensors'
        clock with the recording's time origin, as `hearth impact detect` does.

        Fix speeds with an accuracy column (accuracy_m, or read_trace's
        horizontal_accuracy_m; metres, NaN or negative = unknown) are the
        platform's raw readings, judged as every recording reader judges them
        (SPEC §1, hearth_detector_feed_with_accuracy): negative or NaN is
        unmeasured (iOS −1); a 0 on a fix looser than 30 m, or of unknown
        accuracy, is unmeasured (Android's 0 for a network fix); a 0 on a
        sharper fix is a real stop. An accuracy that is infinite or above
        100 km makes its fix one the detector skips (counters()). Without an
        accuracy column the speeds are taken as given (negative or NaN =
        unmeasured, a 0 is a stop), as before: a phone's raw speeds should
        come with their accuracy, or an Android 0 reads as a stopped car.

        `received_s`: when the batch was received, s, read from the clock its
        samples are stamped on (hearth_detector_feed_received). A sample
        stamped after it cannot have been measured yet and is skipped as a
        bad time (counters()); without it, one sample stamped in the future
        makes every later sample of its stream look old and the next jolt is
        judged before its data. None or NaN: not known; infinite, beyond
        ±1e10 s (the samples' bound) or not a number: a ValueError naming
        it. Give it only for samples on the clock it was read from (ABI 1.7;
        a batch without one goes through hearth_detector_feed or
        hearth_detector_feed_with_accuracy, as before).

        Example:

        >>> len(Detector().feed(_example_accelerometer()).verdicts())   # undecided until 20 s of data
        1
        >>> knock = _example_accelerometer()
        >>> zeros = (np.arange(0.0, 30.0), np.zeros(30), np.full(30, 65.0))   # Android: 0 on a 65 m fix
        >>> Detector().feed(knock, fixes=zeros).finish().verdicts().moving_from.tolist()   # unmeasured: no GPS
        ['vibration']
        >>> Detector().feed(knock, fixes=zeros[:2]).finish().verdicts().moving_from.tolist()   # taken as a stop
        ['gps']
        """
        acc = _stream(accelerometer, ("t_s", "x_mps2", "y_mps2", "z_mps2"), "accelerometer")
        gyr = _stream(gyroscope, ("t_s", "x_radps", "y_radps", "z_radps"), "gyroscope")
        bar = _stream(barometer, ("t_s", "pressure_hpa"), "barometer")
        fix, accuracy = _fix_columns(fixes)
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
        if received_s is not None:
            received = real(received_s, "received_s")
            accuracies = ffi.NULL if accuracy is None else pointer(accuracy, "double")
            raise_for(lib.hearth_detector_feed_received(self._handle, b, accuracies, received), self._handle)
        elif accuracy is None:
            raise_for(lib.hearth_detector_feed(self._handle, b), self._handle)
        else:
            raise_for(lib.hearth_detector_feed_with_accuracy(self._handle, b, pointer(accuracy, "double")), self._handle)
        return self

    def feed_trace(self, trace: Trace, *, vehicle_gate: str = "recording", mapping: str | None = None) -> "Detector":
        """A whole recording as `hearth impact detect` feeds it: 250 ms
        batches, the vehicle gate from the recording's activity stream
        ("recording"), or "on" / "off". `trace`: the data as held (what
        read_trace returned, as edited: a cropped frame is the cropped
        recording; an ArrowTrace or a dict of Arrow tables; a Parquet/Arrow
        folder) or a path the library reads (`mapping`: a CSV column
        mapping file, as the command's --mapping). Nothing is read again
        from disk for data in hand (`hearth.trace.trace_handle`).

        Example:

        >>> Detector().feed_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1").finish().verdicts().outcome.tolist()
        ['silent']
        """
        if vehicle_gate not in _GATES:
            raise ValueError(f"vehicle_gate must be recording, on or off, not {vehicle_gate!r}")
        handle = trace_handle(trace, mapping=mapping)
        raise_for(lib.hearth_detector_feed_trace(self._handle, handle, _GATES[vehicle_gate]), self._handle)
        return self

    def finish(self) -> "Detector":
        """Decides an open incident with the data there are (the end of a recording).

        Example:

        >>> Detector().feed(_example_accelerometer()[:600]).finish().verdicts().outcome.tolist()
        ['silent']
        """
        raise_for(lib.hearth_detector_finish(self._handle), self._handle)
        return self

    def _counts(self):
        v, c = ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_detector_count(self._handle, v, c), self._handle)
        return v[0], c[0]

    def verdicts(self) -> pd.DataFrame:
        """One row per verdict so far: outcome, jolt_time_s and
        decided_time_s (seconds on the data's clock), moving_from (gps or
        vibration, a str column; missing (NaN) for a suppressed verdict,
        which is not judged, as in `detect`), jolt_g (the jolt's peak in g).

        Example:

        >>> Detector().feed(_example_accelerometer()).verdicts().jolt_g.round(2).tolist()
        [5.12]
        """
        n, _ = self._counts()
        records = ffi.new("hearth_verdict[]", max(n, 1))
        raise_for(lib.hearth_detector_verdicts(self._handle, n, records), self._handle)
        rows = [records[i] for i in range(n)]
        return pd.DataFrame(
            {
                "outcome": [_OUTCOMES[r.outcome] for r in rows],
                "jolt_time_s": [r.jolt_s for r in rows],
                "decided_time_s": [r.decided_s for r in rows],
                "moving_from": pd.array([None if _OUTCOMES[r.outcome] == "suppressed" else "gps" if r.used_gps else "vibration" for r in rows], dtype="str"),
                "jolt_g": [r.jolt_g for r in rows],
            }
        )

    def conditions(self) -> pd.DataFrame:
        """One row per verdict and condition: verdict (row of verdicts()),
        condition, held, measured and threshold in the row's `unit` (NaN:
        nothing measured).

        Example:

        >>> Detector().feed(_example_accelerometer()).conditions()[["condition", "measured", "unit"]].head(1)
          condition  measured  unit
        0      jolt     50.19  m/s²
        """
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

    def counters(self) -> dict[str, int]:
        """Samples skipped (a bad time, an impossible value, or not newer than their
        stream's last) and jolts seen with the gate off.

        Example:

        >>> Detector().feed(_example_accelerometer(), vehicle_gate=False).counters()
        {'skipped_samples': 0, 'jolts_gate_off': 1}
        """
        skipped, gate_off = ffi.new("int64_t *"), ffi.new("int64_t *")
        raise_for(lib.hearth_detector_counters(self._handle, skipped, gate_off), self._handle)
        return {"skipped_samples": skipped[0], "jolts_gate_off": gate_off[0]}

    def report(self, file: str = "-", format: str = "text") -> str:
        """What `hearth impact detect --format FORMAT` prints for this recording
        (text, json = JSON Lines, csv with its header), byte for byte; times
        in seconds, accelerations in g and m/s².

        Example:

        >>> print(Detector().feed(_example_accelerometer()).finish().report("knock").split(", moving")[0])
        knock: silent at 10.00 s, decided at 20.00 s
        """
        if format not in _FORMATS:
            raise ValueError(f"format must be text, json or csv, not {format!r}")
        return take_bytes(lib.hearth_detector_report, self._handle, text(file, "file"), _FORMATS[format]).decode()


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


def report(traces: Traces, config: ConfigLike = None, *, vehicle_gate: str = "recording", format: str = "text", mapping: str | None = None, progress: bool | Any = True) -> str:
    """The text `hearth impact detect PATH... --format FORMAT` prints on stdout
    for these recordings (one CSV header for all). `traces`: one recording
    or a list: paths (`mapping` for CSV files), what read_trace returned (as
    edited), ArrowTrace values or Parquet/Arrow folders. A recording that
    cannot be read is named in a BadRecordingWarning and left out (raised
    when it is the only one, or every one). `progress`: True shows the
    recordings done once the work has taken a second (stderr, or an
    updating line in Jupyter), False nothing, a callable gets the
    `hearth._progress.Progress` after each recording.

    Example:

    >>> print(report("../shared/datasets/phone-drop-freefall/raw_data/fall_1").split(", moving")[0])
    ../shared/datasets/phone-drop-freefall/raw_data/fall_1: silent at 4.65 s, decided at 14.00 s
    """
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


# Empty fields that mean "nothing": NaN, as pandas reads a missing value
# (moving_from is empty for a suppressed verdict, which is not judged, and
# on a noJolt row; it stays a str column even when every row is missing).
_NA = {"jolt_time_s": [""], "decided_time_s": [""], "jolt_g": [""], "measured": [""], "threshold": [""], "moving_from": [""]}


def detect(traces: Traces, config: ConfigLike = None, *, vehicle_gate: str = "recording", mapping: str | None = None, progress: bool | Any = True) -> pd.DataFrame:
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
    names of recordings left out are in `frame.attrs["failures"]`.

    Example:

    >>> detect("../shared/datasets/phone-drop-freefall/raw_data/fall_1")[["outcome", "jolt_time_s", "jolt_g", "met"]].head(1)
      outcome  jolt_time_s    jolt_g   met
    0  silent     4.650604  16.61719  True
    """
    done, failures = _records(traces, config, vehicle_gate, mapping, progress, ("csv", "json"))
    frames = []
    for _, texts in done:
        frame = pd.read_csv(io.StringIO(texts["csv"]), keep_default_na=False, na_values=_NA, dtype={"moving_from": "str"})
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


class Incident:
    """What happens after a possible-impact verdict (SPEC §10): call `check`
    whenever the app runs; it says what to do. Times in ms since the epoch.

    Example:

    >>> incident = Incident(1_000, "me")          # a verdict at 1 s past the epoch
    >>> incident.check(1_000)
    {'action': 'ask', 'time_ms': 31000}
    """

    def __init__(self, verdict_ms: int | pd.Timestamp, account: str, *, _handle: Any = None) -> None:
        from .geo import milliseconds

        self._handle = _handle if _handle is not None else created(lib.hearth_incident_create, milliseconds(verdict_ms, "verdict_ms"), text(account, "account"))

    def check(self, now_ms: int | pd.Timestamp, input: str = "nothing", *, http_status: int = 0, tokens_held: bool = False, account: str | None = None) -> dict[str, Any]:
        """What to do at `now_ms` (ms since the epoch) after `input` (one of
        nothing, dismissed, alertNow, delivered, networkFailure, http,
        firewallPage, uploadSucceeded, signedIn): {"action":
        none|ask|send|waitUntil|finished, "time_ms": … (ms since the epoch),
        "end": …}. `now_ms` may be a tz-aware pandas Timestamp (a naive one
        is refused).

        Example:

        >>> Incident(1_000, "me").check(2_000, "dismissed")
        {'action': 'finished', 'end': 'dismissed'}
        """
        from .geo import milliseconds

        if input not in _INPUTS:
            raise ValueError(f"input must be one of {', '.join(_INPUTS)}, not {input!r}")
        action = ffi.new("hearth_incident_action *")
        raise_for(
            lib.hearth_incident_check(self._handle, milliseconds(now_ms), _INPUTS[input], whole(http_status, "http_status", np.int32), 1 if tokens_held else 0, text(account, "account"), action),
            self._handle,
        )
        out = {"action": _ACTIONS[action.action]}
        if action.action in (lib.HEARTH_ACTION_ASK, lib.HEARTH_ACTION_WAIT_UNTIL):
            out["time_ms"] = action.time_ms
        if action.action == lib.HEARTH_ACTION_FINISHED:
            out["end"] = _ENDS[action.end]
        return out

    def save(self) -> bytes:
        """The state as bytes (it survives a process kill).

        Example:

        >>> Incident.restore(Incident(1_000, "me").save()).check(1_000)
        {'action': 'ask', 'time_ms': 31000}
        """
        return take_bytes(lib.hearth_incident_save, self._handle)

    @classmethod
    def restore(cls, state: bytes) -> "Incident":
        """An incident from saved bytes; bad bytes raise BadInputError naming the field.

        The bytes carry ``formatVersion`` 1; bytes saved without one (before
        versions were written) restore as version 1, any other version is
        refused, and so is a value the lifecycle never writes (a verdict
        outside 1900–2200, a sending phase with no attempt).

        Example:

        >>> Incident.restore(Incident(1_000, "me").save()).check(31_001)["action"]
        'send'
        """
        buffer = ffi.from_buffer("uint8_t[]", state)
        return cls(0, "", _handle=created(lib.hearth_incident_restore, buffer, len(state)))
