"""Recordings read through the library's one door (every format `hearth` reads)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from ._names import DATETIME, utc
from ._ffi import created, ffi, lib, out_pointer, raise_for, take_bytes, text


class TraceFrames(dict):
    """What `read_trace` returns: a dict of DataFrames by stream name, plus
    the recording's `path` and `info` (format, time origin, rows kept and
    rejected per file, the detector's rate warnings)."""

    path: str
    info: dict


def _index(seconds: np.ndarray, origin_ms: int | None) -> pd.Index:
    """Wall-clock times (UTC) when the recording has an origin, else time since its start."""
    delta = pd.to_timedelta(seconds, unit="s").as_unit("ns")
    if origin_ms is None:
        return pd.TimedeltaIndex(delta, name="time")
    return pd.DatetimeIndex(utc([origin_ms])[0] + delta, name="time").astype(DATETIME)


_VECTOR_STREAMS = {
    "accelerometer": (lib.HEARTH_STREAM_ACCELEROMETER, "mps2"),
    "gyroscope": (lib.HEARTH_STREAM_GYROSCOPE, "radps"),
}


def read_trace(path: str | os.PathLike, mapping: str | os.PathLike | None = None) -> TraceFrames:
    """Reads a recording: a Sensor Logger or phyphox export, a trace folder
    (also the folder `hearth sim generate` writes), a comma2k19 segment, GPX,
    .traj, or CSV with a column mapping file.

    Returns a dict of DataFrames, units in the column names, indexed by time
    (UTC datetimes when the recording has a wall-clock origin, else time
    since its start); `t_s` keeps the seconds on the recording's own clock:
      accelerometer  t_s, x_mps2, y_mps2, z_mps2  (gravity included, as the detector sees it)
      gyroscope      t_s, x_radps, y_radps, z_radps
      barometer      t_s, pressure_hpa
      activities     t_s, activity (the OS classifier's codes 0–5)
      fixes          time_ms, latitude_deg, longitude_deg, horizontal_accuracy_m,
                     speed_mps, heading_deg, altitude_m, activity, source,
                     battery_level, charging, device, user
    The index is datetime64[ns, UTC] for every stream (so streams merge:
    `pd.merge_asof(acc, fixes, left_index=True, right_index=True)`).
    `mapping`: the column mapping file for a CSV recording. Bad input
    raises BadInputError naming the file, row and field.

    Example:

    >>> drop = read_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1")
    >>> drop["accelerometer"].head(2)
                                              t_s    x_mps2    y_mps2     z_mps2
    time
    2024-09-17 18:33:23.927722695+00:00  0.023723 -0.917206  0.378815   9.873459
    2024-09-17 18:33:23.932727578+00:00  0.028728 -0.989029  0.450638  10.017120
    """
    handle = created(lib.hearth_trace_read, text(os.fspath(path)), text(None if mapping is None else os.fspath(mapping)))
    info = json.loads(take_bytes(lib.hearth_trace_info, handle))
    origin = info.get("timeOriginMs")
    count = ffi.new("int64_t *")
    frames = TraceFrames()
    frames.path = os.fspath(path)
    frames.info = info

    def samples(stream: int, width: int):
        raise_for(lib.hearth_trace_count(handle, stream, count), handle)
        n = count[0]
        columns = [np.empty(n) for _ in range(width + 1)]
        pointers = [out_pointer(c, "double") for c in columns] + [ffi.NULL] * (3 - width)
        raise_for(lib.hearth_trace_samples(handle, stream, n, *pointers), handle)
        return columns

    for name, (stream, unit) in _VECTOR_STREAMS.items():
        t, x, y, z = samples(stream, 3)
        frames[name] = pd.DataFrame({"t_s": t, f"x_{unit}": x, f"y_{unit}": y, f"z_{unit}": z}, index=_index(t, origin))
    t, p = samples(lib.HEARTH_STREAM_BAROMETER, 1)
    frames["barometer"] = pd.DataFrame({"t_s": t, "pressure_hpa": p}, index=_index(t, origin))
    t, a = samples(lib.HEARTH_STREAM_ACTIVITIES, 1)
    frames["activities"] = pd.DataFrame({"t_s": t, "activity": a.astype(np.uint8)}, index=_index(t, origin))

    raise_for(lib.hearth_trace_count(handle, lib.HEARTH_STREAM_FIXES, count), handle)
    n = count[0]
    from .geo import _CTYPES, _FIX_COLUMNS

    columns = {name: np.empty(n, dtype=dtype) for name, (_, dtype, _) in _FIX_COLUMNS.items()}
    out = ffi.new("hearth_fixes_out *")
    for name, (field, dtype, _) in _FIX_COLUMNS.items():
        setattr(out, field, out_pointer(columns[name], _CTYPES[dtype]))
    raise_for(lib.hearth_trace_fixes(handle, n, out), handle)
    fixes = pd.DataFrame(columns)
    fixes.index = pd.DatetimeIndex(utc(columns["time_ms"]), name="time")
    frames["fixes"] = fixes
    return frames
