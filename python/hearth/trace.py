"""Recordings read through the library's one door (every format `hearth` reads)."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pandas as pd

from ._names import DATETIME, utc
from ._ffi import column, created, ffi, lib, out_pointer, pointer, raise_for, take_bytes, text


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


def read_trace(path: str | os.PathLike, mapping: str | os.PathLike | None = None, *, progress: bool | Any = True) -> TraceFrames:
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

    `progress`: True shows, once reading has taken a second, how long the
    library has been reading and then each stream copied (stderr, or an
    updating line in Jupyter); False nothing; a callable gets the
    `hearth._progress.Progress` after each stream.

    Example:

    >>> drop = read_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1")
    >>> drop["accelerometer"].head(2)
                                              t_s    x_mps2    y_mps2     z_mps2
    time
    2024-09-17 18:33:23.927722695+00:00  0.023723 -0.917206  0.378815   9.873459
    2024-09-17 18:33:23.932727578+00:00  0.028728 -0.989029  0.450638  10.017120
    """
    from ._progress import Progress

    tracker = Progress(f"hearth read_trace {os.fspath(path)}", 6, progress, unit="streams", delay_s=1.0)
    with tracker.waiting("reading"):
        handle = created(lib.hearth_trace_read, text(os.fspath(path), "path"), text(None if mapping is None else os.fspath(mapping), "mapping"))
    tracker.step(0.0)
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
        tracker.step(1.0)
    t, p = samples(lib.HEARTH_STREAM_BAROMETER, 1)
    frames["barometer"] = pd.DataFrame({"t_s": t, "pressure_hpa": p}, index=_index(t, origin))
    tracker.step(1.0)
    t, a = samples(lib.HEARTH_STREAM_ACTIVITIES, 1)
    frames["activities"] = pd.DataFrame({"t_s": t, "activity": a.astype(np.uint8)}, index=_index(t, origin))
    tracker.step(1.0)

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
    tracker.step(1.0)
    tracker.close()
    for frame in frames.values():
        # Where t_s and time_ms meet: Detector.feed(fixes=frames["fixes"]) reads it.
        frame.attrs["timeOriginMs"] = origin
    return frames


# MARK: recordings handed to the library as they are held

_SENSOR_COLUMNS = {
    "accelerometer": (lib.HEARTH_STREAM_ACCELEROMETER, ("t_s", "x_mps2", "y_mps2", "z_mps2")),
    "gyroscope": (lib.HEARTH_STREAM_GYROSCOPE, ("t_s", "x_radps", "y_radps", "z_radps")),
    "barometer": (lib.HEARTH_STREAM_BAROMETER, ("t_s", "pressure_hpa")),
    "activities": (lib.HEARTH_STREAM_ACTIVITIES, ("t_s", "activity")),
}
_METADATA_KEYS = ("format", "platform", "device", "sourceFiles", "timeOriginMs")


def _is_frames(recording) -> bool:
    return isinstance(recording, dict) and bool(recording) and all(isinstance(v, pd.DataFrame) for v in recording.values())


def _is_tables(recording) -> bool:
    return isinstance(recording, dict) and bool(recording) and all(hasattr(v, "schema") and hasattr(v, "to_batches") for v in recording.values())


def recording_name(recording) -> str:
    """How a recording is named in reports and errors: its path, an
    ArrowTrace's name, the path `read_trace` read the frames from."""
    if isinstance(recording, (str, os.PathLike)):
        return os.fspath(recording)
    name = getattr(recording, "path", None) or getattr(recording, "name", None)
    return os.fspath(name) if name is not None else "frames"


def trace_handle(recording, *, mapping=None, library=None):
    """A recording as a trace handle of `library` (libhearth by default; a
    sweep passes the lab library), from the data the caller holds:

    - what `read_trace` returned, as edited (cropped, filtered, a stream
      replaced), or any dict of DataFrames by stream name with read_trace's
      columns: built from those columns (hearth_trace_create, one
      hearth_trace_append per stream, hearth_trace_append_fixes), so a
      cropped frame gives the cropped recording's verdicts; the recording's
      metadata (its time origin) from `info` when it has one;
    - a `hearth.parquet.ArrowTrace`, or a dict of Arrow tables in its layout;
    - a path: a folder in the Parquet/Arrow layout, or any file or folder
      the library reads (CSV with `mapping`, a column mapping file).

    Nothing is read again from disk for data already in hand. Bad input
    raises BadInputError (or ValueError for a missing column) naming the
    recording and column. O(samples): each column copied once into the
    library, as a reader does from a file."""
    library = library or lib
    if hasattr(recording, "tables") and hasattr(recording, "handle"):
        return recording.handle(library)
    if _is_tables(recording):
        from .parquet import ArrowTrace

        return ArrowTrace(dict(recording)).handle(library)
    if _is_frames(recording):
        return _frames_handle(recording, library)
    if isinstance(recording, (str, os.PathLike)):
        path = os.fspath(recording)
        if mapping is None and os.path.isdir(path):
            try:
                from .parquet import ArrowTrace, is_arrow_trace
            except ImportError:
                is_arrow_trace = None
            if is_arrow_trace is not None and is_arrow_trace(path):
                return ArrowTrace.read(path).handle(library)
        return created(library.hearth_trace_read, text(path, "recording"), text(None if mapping is None else os.fspath(mapping), "mapping"), library=library)
    raise TypeError(
        f"a recording: a path, what read_trace returned (a dict of DataFrames), an ArrowTrace or a dict of Arrow tables, not {type(recording).__name__}"
    )


def _frames_handle(frames, library):
    name = recording_name(frames)
    info = getattr(frames, "info", None) or {}
    metadata = {k: info[k] for k in _METADATA_KEYS if info.get(k) is not None}
    handle = created(library.hearth_trace_create, text(json.dumps(metadata), "metadata"), library=library)
    unknown = sorted(set(frames) - set(_SENSOR_COLUMNS) - {"fixes"})
    if unknown:
        raise ValueError(f"{name}: unknown streams {unknown} (streams: {', '.join([*_SENSOR_COLUMNS, 'fixes'])})")
    for stream, (code, names) in _SENSOR_COLUMNS.items():
        frame = frames.get(stream)
        if frame is None or len(frame) == 0:
            continue
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise ValueError(f"{name}: {stream} frame is missing columns {missing} (read_trace's columns: {list(names)})")
        arrays = [column(frame[n].astype(np.float64) if n == "activity" else frame[n], f"{stream}.{n}") for n in names]
        pointers = [pointer(a, "double") for a in arrays] + [ffi.NULL] * (4 - len(arrays))
        raise_for(library.hearth_trace_append(handle, code, len(arrays[0]), *pointers), handle, library=library)
    fixes = frames.get("fixes")
    if fixes is not None and len(fixes):
        from .geo import FixBatch

        batch = FixBatch(fixes)
        raise_for(library.hearth_trace_append_fixes(handle, batch.struct), handle, library=library)
    return handle
