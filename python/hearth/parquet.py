"""Recordings as Parquet or Arrow tables, one table per stream, units in the schema.

The layout (``hearth-trace-parquet/1``) is a folder with one file per stream
the recording has; every column is a plain Arrow type with its unit in the
field's metadata, and every file says which stream it is and where the
recording came from in its schema metadata:

    recording/
      accelerometer.parquet  t_s, x_mps2, y_mps2, z_mps2      float64 (gravity included)
      gyroscope.parquet      t_s, x_radps, y_radps, z_radps   float64
      barometer.parquet      t_s, pressure_hpa                float64
      activities.parquet     t_s float64, activity uint8      (the OS classifier's codes 0–5)
      fixes.parquet          time_ms int64, latitude_deg, longitude_deg,
                             horizontal_accuracy_m, speed_mps, heading_deg,
                             altitude_m, battery_level float64; activity,
                             source, charging uint8; device, user uint32

    schema metadata of each file:
      hearth.layout  "hearth-trace-parquet/1"
      hearth.stream  "accelerometer" (the file's stream)
      hearth.units   {"t_s": "s", "x_mps2": "m/s²", …}
      hearth.trace   {"format", "platform", "device", "sourceFiles", "timeOriginMs"}
    field metadata:  unit = the column's unit

Sensor times are seconds on the recording's clock (its origin is
``timeOriginMs``), fix times milliseconds since the Unix epoch, missing
readings NaN. A column whose declared unit (field or schema metadata) is not
the layout's is refused by name (BadInputError), never read as if it were.
Arrow IPC files (``accelerometer.arrow`` …) in place of the
``.parquet`` files are read the same way, memory-mapped. The layout is the
detector's and the ingest path's view of a recording: the accelerometer with
gravity included (a file that kept gravity apart has it added back), the
barometer's pressure only; conversion from any format the library reads, and
back to a trace folder, keeps every value bit for bit.

Handing a recording to the library copies nothing on the Python side: each
Arrow chunk (a row group of a Parquet file, a record batch of an IPC file) of
a float64 column without nulls is a contiguous buffer, passed to the library
as it is (``ArrowTrace.handle``); the library copies each chunk once into the
recording it builds, as a reader does from a file. A chunk with nulls is the
one exception: it is copied once with the nulls as NaN (the detector skips
and counts NaN samples), and the copy is counted in ``ArrowTrace.copies``. A
column of another type is refused (BadInputError naming the file, column and
type): a silent conversion would hide a copy of the whole column.

Needs pyarrow (``pip install './python[parquet]'``).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._types import PathLike, Trace
from ._ffi import BadInputError, column, created, ffi, lib, pointer, raise_for, take_bytes, text

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as error:  # pragma: no cover - the extra is installed in the test environment
    raise ImportError("hearth.parquet needs pyarrow: pip install './python[parquet]'") from error

LAYOUT = "hearth-trace-parquet/1"

# stream → [(column, Arrow type, unit)], in file order.
_FLOAT = pa.float64()
STREAMS: dict[str, list[tuple[str, pa.DataType, str]]] = {
    "accelerometer": [("t_s", _FLOAT, "s"), ("x_mps2", _FLOAT, "m/s²"), ("y_mps2", _FLOAT, "m/s²"), ("z_mps2", _FLOAT, "m/s²")],
    "gyroscope": [("t_s", _FLOAT, "s"), ("x_radps", _FLOAT, "rad/s"), ("y_radps", _FLOAT, "rad/s"), ("z_radps", _FLOAT, "rad/s")],
    "barometer": [("t_s", _FLOAT, "s"), ("pressure_hpa", _FLOAT, "hPa")],
    "activities": [("t_s", _FLOAT, "s"), ("activity", pa.uint8(), "code: 0 unknown, 1 still, 2 walking, 3 running, 4 cycling, 5 automotive")],
    "fixes": [
        ("time_ms", pa.int64(), "ms since the Unix epoch (UTC)"),
        ("latitude_deg", _FLOAT, "degrees"),
        ("longitude_deg", _FLOAT, "degrees"),
        ("horizontal_accuracy_m", _FLOAT, "m"),
        ("speed_mps", _FLOAT, "m/s"),
        ("heading_deg", _FLOAT, "degrees"),
        ("altitude_m", _FLOAT, "m"),
        ("activity", pa.uint8(), "code: 0 unknown, 1 still, 2 walking, 3 running, 4 cycling, 5 automotive"),
        ("source", pa.uint8(), "code: 0 ordinary, 1 heartbeat, 2 park fix"),
        ("battery_level", _FLOAT, "fraction 0–1"),
        ("charging", pa.uint8(), "code: 0 unknown, 1 not charging, 2 charging"),
        ("device", pa.uint32(), "id"),
        ("user", pa.uint32(), "id"),
    ],
}
_SENSOR = {
    "accelerometer": lib.HEARTH_STREAM_ACCELEROMETER,
    "gyroscope": lib.HEARTH_STREAM_GYROSCOPE,
    "barometer": lib.HEARTH_STREAM_BAROMETER,
    "activities": lib.HEARTH_STREAM_ACTIVITIES,
}
_REQUIRED_FIXES = ("time_ms", "latitude_deg", "longitude_deg", "horizontal_accuracy_m")
_TRACE_KEYS = ("format", "platform", "device", "sourceFiles", "timeOriginMs")
_SUFFIXES = (".parquet", ".arrow")


def _bad(message: str) -> BadInputError:
    return BadInputError(lib.HEARTH_ERROR_BAD_INPUT, message)


def schema(stream: str, trace_metadata: dict | None = None) -> pa.Schema:
    """The Arrow schema of one stream's table in the layout, units in the
    field metadata and the schema metadata (`trace_metadata`: format,
    platform, device, sourceFiles, timeOriginMs in ms since the epoch).

    Example:

    >>> schema("barometer").field("pressure_hpa").metadata
    {b'unit': b'hPa'}
    """
    if stream not in STREAMS:
        raise ValueError(f"stream: one of {', '.join(STREAMS)}, not {stream!r}")
    fields = [pa.field(name, kind, metadata={"unit": unit}) for name, kind, unit in STREAMS[stream]]
    metadata = {
        "hearth.layout": LAYOUT,
        "hearth.stream": stream,
        "hearth.units": json.dumps({name: unit for name, _, unit in STREAMS[stream]}, ensure_ascii=False),
        "hearth.trace": json.dumps({k: v for k, v in (trace_metadata or {}).items() if k in _TRACE_KEYS}, sort_keys=True),
    }
    return pa.schema(fields, metadata=metadata)


def is_arrow_trace(path: PathLike) -> bool:
    """Whether `path` is a folder in this layout (a stream file in it).

    Example:

    >>> is_arrow_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1")
    False
    """
    p = Path(os.fspath(path))
    return p.is_dir() and any((p / f"{stream}{suffix}").is_file() for stream in STREAMS for suffix in _SUFFIXES)


@dataclass
class ArrowTrace:
    """A recording as Arrow tables by stream name (the layout's columns),
    with where it came from (`metadata`: format, platform, device,
    sourceFiles, timeOriginMs) and its name (the path it was read from).
    Build one from a folder (`read`), from any recording (`from_recording`),
    or from tables of your own (they are checked against the layout).
    Units as the layout has them (module docstring): t_s seconds, x_mps2
    m/s², time_ms ms since the epoch, ….

    Example:

    >>> trace = ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1")
    >>> trace.tables["accelerometer"].column_names
    ['t_s', 'x_mps2', 'y_mps2', 'z_mps2']
    """

    tables: dict
    metadata: dict = field(default_factory=dict)
    name: str = "arrow"
    #: Chunks that had to be copied on their way to the library (nulls made NaN): (stream, column, rows).
    copies: list = field(default_factory=list)

    def __post_init__(self) -> None:
        for stream, table in self.tables.items():
            if stream not in STREAMS:
                raise _bad(f"{self.name}: unknown stream {stream!r} (streams: {', '.join(STREAMS)})")
            _check_columns(table.schema, stream, f"{self.name}/{stream}")

    @classmethod
    def read(cls, folder: PathLike) -> "ArrowTrace":
        """A folder in the layout: Parquet files read into memory once (their
        pages decoded), Arrow IPC files memory-mapped. Bad input (an unknown
        layout, a column of another type, files that disagree about the
        recording) raises BadInputError naming the file.

        Example:

        >>> ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").write("/tmp/hearth-doctest-drop")
        >>> ArrowTrace.read("/tmp/hearth-doctest-drop").tables["accelerometer"].num_rows
        1748
        """
        folder = Path(os.fspath(folder))
        tables, metadata, seen_from = {}, None, None
        for stream in STREAMS:
            for suffix in _SUFFIXES:
                path = folder / f"{stream}{suffix}"
                if not path.is_file():
                    continue
                try:
                    table = pq.read_table(path, memory_map=True) if suffix == ".parquet" else pa.ipc.open_file(pa.memory_map(str(path))).read_all()
                except (OSError, pa.ArrowException) as error:
                    raise _bad(f"{path}: not a readable {suffix[1:]} file ({error})") from None
                meta = table.schema.metadata or {}
                if meta.get(b"hearth.layout", b"").decode() != LAYOUT:
                    raise _bad(f"{path}: not in the layout {LAYOUT} (schema metadata hearth.layout is {meta.get(b'hearth.layout', b'missing').decode(errors='replace')!r})")
                if meta.get(b"hearth.stream", b"").decode() != stream:
                    raise _bad(f"{path}: says it is the stream {meta.get(b'hearth.stream', b'').decode(errors='replace')!r}, its name says {stream!r}")
                try:
                    trace = json.loads(meta.get(b"hearth.trace", b"{}"))
                except ValueError:
                    raise _bad(f"{path}: hearth.trace metadata is not JSON") from None
                if metadata is not None and trace != metadata:
                    raise _bad(f"{path}: its recording metadata {trace} differs from {seen_from}'s {metadata}")
                metadata, seen_from = trace, path.name
                if stream in tables:
                    raise _bad(f"{folder}: both {stream}.parquet and {stream}.arrow (keep one)")
                tables[stream] = table
        if not tables:
            raise _bad(f"{folder}: no stream file ({', '.join(s + '.parquet' for s in STREAMS)})")
        return cls(tables, metadata or {}, os.fspath(folder))

    @classmethod
    def from_recording(cls, recording: Trace, *, mapping: PathLike | None = None) -> "ArrowTrace":
        """Any recording the library reads (a path, or what `read_trace`
        returned; `mapping` the column mapping file of a CSV recording):
        every stream as a table in the layout, values bit for bit (units as
        the layout has them).

        Example:

        >>> sorted(ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").tables)
        ['accelerometer']
        """
        from .trace import read_trace

        frames = recording if hasattr(recording, "info") else read_trace(recording, mapping)
        metadata = {k: frames.info[k] for k in _TRACE_KEYS if frames.info.get(k) is not None}
        tables = {}
        for stream, columns in STREAMS.items():
            frame = frames[stream]
            if len(frame) == 0:
                continue
            arrays = [pa.array(np.ascontiguousarray(frame[name].to_numpy(dtype=kind.to_pandas_dtype())), type=kind) for name, kind, _ in columns]
            tables[stream] = pa.Table.from_arrays(arrays, schema=schema(stream, metadata))
        return cls(tables, metadata, os.fspath(getattr(frames, "path", recording)))

    def write(self, folder: PathLike, *, format: str = "parquet", row_group_rows: int | None = None) -> None:
        """Writes the layout to `folder` (created): `format` "parquet" (zstd
        compressed, `row_group_rows` rows per row group: one Arrow chunk each
        when read back) or "arrow" (Arrow IPC files, uncompressed, for
        memory-mapping). Units in the schema, as the layout has them.

        A folder that exists must be empty (names starting with "." aside) or
        hold a recording of this layout: the new one is written beside it
        first, in a hidden folder inside it, and only once whole replaces
        every stream file of the earlier one, so no stream of another
        recording is read back with this one and a failed write leaves the
        earlier recording as it was; other files are not touched (as the
        library's trace folders, review27 R6). Anything else, a stream file
        another program wrote included, raises `BadInputError` naming the
        folder and leaves it untouched.

        Example:

        >>> ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").write("/tmp/hearth-doctest-drop-ipc", format="arrow")
        >>> is_arrow_trace("/tmp/hearth-doctest-drop-ipc")
        True
        """
        if format not in ("parquet", "arrow"):
            raise ValueError(f"format: parquet or arrow, not {format!r}")
        folder = Path(os.fspath(folder))
        if not folder.exists():
            return self._write_streams(folder, format, row_group_rows)
        if not folder.is_dir():
            raise _bad(f"{folder}: exists and is not a folder")
        names = sorted(n for n in os.listdir(folder) if not n.startswith("."))
        if not names:
            return self._write_streams(folder, format, row_group_rows)
        layout = [f"{stream}{suffix}" for stream in STREAMS for suffix in _SUFFIXES]
        streams = [n for n in names if n in layout]
        foreign = next((n for n in streams if not _written_by_layout(folder / n)), None)
        if not streams or foreign is not None:
            why = f"{foreign} is not a stream file of {LAYOUT}" if foreign else f"it holds no stream file of {LAYOUT}"
            raise _bad(f"{folder}: is not empty and {why}: a recording is written into a new or empty folder, or over one of this layout")
        staging = folder / f".hearth-writing-{uuid.uuid4().hex}"
        try:
            self._write_streams(staging, format, row_group_rows)
            for name in layout:
                earlier, written = folder / name, staging / name
                try:
                    if earlier.exists():
                        earlier.unlink()
                    if written.exists():
                        written.replace(earlier)
                except OSError as error:
                    raise _bad(f"{earlier}: cannot replace the earlier recording's: {error.strerror or error}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _write_streams(self, folder: Path, format: str, row_group_rows: int | None) -> None:
        """Every stream's file into `folder` (made if missing)."""
        folder.mkdir(parents=True, exist_ok=True)
        for stream, table in self.tables.items():
            table = table.select([name for name, _, _ in STREAMS[stream] if name in table.column_names])
            table = table.cast(_schema_for(table, stream, self.metadata))
            if format == "parquet":
                pq.write_table(table, folder / f"{stream}.parquet", compression="zstd", row_group_size=row_group_rows)
            else:
                with pa.OSFile(str(folder / f"{stream}.arrow"), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                    writer.write_table(table, max_chunksize=row_group_rows)

    def handle(self, library: Any = None) -> Any:
        """The recording as a trace handle of `library` (libhearth by default;
        a sweep passes the lab library it runs in): hearth_trace_create, one
        hearth_trace_append per Arrow chunk and stream, the chunks' own
        buffers passed in place. Records any chunk it had to copy in `copies`.

        Example:

        >>> trace = ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1")
        >>> _ = trace.handle()
        >>> trace.copies
        []
        """
        library = library or lib
        handle = created(library.hearth_trace_create, text(json.dumps(self.metadata), "metadata"), library=library)
        for stream, table in self.tables.items():
            names = [name for name, _, _ in STREAMS[stream] if name in table.column_names]
            for batch in table.select(names).to_batches():
                views = {name: self._view(batch.column(i), stream, name) for i, name in enumerate(names)}
                if stream == "fixes":
                    from .geo import FixBatch

                    fixes = FixBatch(views)
                    raise_for(library.hearth_trace_append_fixes(handle, fixes.struct), handle, library=library)
                    continue
                if stream == "activities":
                    # The ABI takes codes as doubles: the one conversion (a
                    # few rows per recording), not counted as a copy.
                    views["activity"] = views["activity"].astype(np.float64)
                columns = list(views.values())
                n = len(columns[0])
                pointers = [pointer(c, "double") for c in columns] + [ffi.NULL] * (4 - len(columns))
                raise_for(library.hearth_trace_append(handle, _SENSOR[stream], n, *pointers), handle, library=library)
        return handle

    def _view(self, array, stream: str, name: str) -> np.ndarray:
        """The chunk's values as a numpy view of its Arrow buffer (float64
        without nulls: no copy), or one copy with nulls as NaN (counted)."""
        kind = array.type
        if array.null_count == 0:
            values = array.to_numpy(zero_copy_only=True)
        elif pa.types.is_floating(kind):
            values = array.fill_null(np.nan).to_numpy(zero_copy_only=True)
            self.copies.append((stream, name, len(array)))
        else:
            first = next(i for i, v in enumerate(array.is_null().to_pylist()) if v)
            raise _bad(f"{self.name}/{stream}: column {name} has a null at row {first} (only float columns may have missing values, as NaN)")
        return column(values, f"{stream}.{name}", values.dtype)

    def to_trace_folder(self, folder: PathLike) -> None:
        """Writes the recording as a trace folder (.npy columns and trace.json,
        the library's own layout; decisions/0004), through the library's
        writer; values and units unchanged.

        Example:

        >>> ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").to_trace_folder("/tmp/hearth-doctest-drop-folder")
        >>> from hearth import read_trace
        >>> len(read_trace("/tmp/hearth-doctest-drop-folder")["accelerometer"])
        1748
        """
        handle = self.handle()
        raise_for(lib.hearth_trace_write(handle, text(os.fspath(folder), "folder")), handle)

    def info(self) -> dict[str, Any]:
        """What `hearth_trace_info` says of the recording (hours with data, rate warnings …).

        Example:

        >>> ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").info()["format"]
        'phyphox'
        """
        return json.loads(take_bytes(lib.hearth_trace_info, self.handle()))

    @property
    def hours(self) -> float:
        """Hours with data (accelerometer steps of at most 1 s), as the sweep counts them.

        Example:

        >>> round(ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1").hours * 3600, 1)   # seconds
        8.8
        """
        return float(self.info().get("hoursWithData") or 0.0)


def _written_by_layout(path: Path) -> bool:
    """Whether `path` is a stream file this layout wrote: its schema names the
    layout and the stream its file name says."""
    stream, suffix = os.path.splitext(path.name)
    try:
        if suffix == ".parquet":
            given = pq.read_schema(path)
        else:
            with pa.memory_map(str(path)) as source:
                given = pa.ipc.open_file(source).schema
    except (OSError, pa.ArrowException):
        return False
    meta = given.metadata or {}
    return meta.get(b"hearth.layout", b"").startswith(LAYOUT.split("/")[0].encode() + b"/") and meta.get(b"hearth.stream") == stream.encode()


def _schema_for(table, stream: str, metadata: dict) -> pa.Schema:
    """The layout's schema for the columns `table` has (fixes may leave optional columns out)."""
    full = schema(stream, metadata)
    return pa.schema([full.field(name) for name in table.column_names], metadata=full.metadata)


def _declared_units(given: pa.Schema, where: str) -> dict:
    """The unit each column declares: its field metadata's `unit`, else the
    schema metadata's `hearth.units` entry (columns with neither declare none)."""
    meta = given.metadata or {}
    try:
        table_units = json.loads(meta.get(b"hearth.units", b"{}"))
    except ValueError:
        raise _bad(f"{where}: hearth.units metadata is not JSON") from None
    if not isinstance(table_units, dict):
        raise _bad(f"{where}: hearth.units metadata is not a JSON object of column: unit")
    declared = {}
    for f in given:
        unit = (f.metadata or {}).get(b"unit")
        declared[f.name] = unit.decode(errors="replace") if unit is not None else table_units.get(f.name)
    return declared


def _check_columns(given: pa.Schema, stream: str, where: str) -> None:
    """Columns of the layout's types and units; the required ones present.
    A column that declares a unit (field metadata `unit`, or the schema's
    `hearth.units`) other than the layout's is refused by name: the layout's
    buffers are handed to the library as they are, so a value in km/h would
    be read as m/s. A column that declares none is in the layout's unit."""
    expected = {name: kind for name, kind, _ in STREAMS[stream]}
    units = {name: unit for name, _, unit in STREAMS[stream]}
    for name, unit in _declared_units(given, where).items():
        if name in units and unit is not None and unit != units[name]:
            raise _bad(
                f"{where}: column {name} is declared in {unit!r}, the layout stores it in {units[name]!r} "
                f"(hearth.parquet converts no unit: convert the column to {units[name]!r} and declare that)"
            )
    required = _REQUIRED_FIXES if stream == "fixes" else tuple(expected)
    missing = [name for name in required if name not in given.names]
    if missing:
        raise _bad(f"{where}: missing columns {missing} (the layout has {list(expected)})")
    for f in given:
        if f.name not in expected:
            continue
        if f.type != expected[f.name]:
            raise _bad(
                f"{where}: column {f.name} is {f.type}, the layout has {expected[f.name]} "
                f"(convert it once with pyarrow.compute.cast(column, pyarrow.{expected[f.name]}()))"
            )


def read(folder: PathLike) -> ArrowTrace:
    """`ArrowTrace.read(folder)`: a folder in the layout (units in its schema).

    Example:

    >>> from_trace_folder("../shared/datasets/phone-drop-freefall/raw_data/fall_1", "/tmp/hearth-doctest-drop")
    ArrowTrace(...)
    >>> read("/tmp/hearth-doctest-drop").tables["accelerometer"].schema.field("x_mps2").metadata
    {b'unit': b'm/s\xc2\xb2'}
    """
    return ArrowTrace.read(folder)


def from_trace_folder(source: Trace, folder: PathLike, *, format: str = "parquet", mapping: PathLike | None = None,
                      row_group_rows: int | None = None) -> ArrowTrace:
    """Converts any recording the library reads (a trace folder, Sensor
    Logger, phyphox, comma2k19, GPX, CSV with a mapping) to the layout in
    `folder`, units as the layout has them.

    Example:

    >>> from_trace_folder("../shared/datasets/phone-drop-freefall/raw_data/fall_1", "/tmp/hearth-doctest-drop").tables["accelerometer"].num_rows
    1748
    """
    trace = ArrowTrace.from_recording(source, mapping=mapping)
    trace.write(folder, format=format, row_group_rows=row_group_rows)
    return trace


def to_trace_folder(source: "ArrowTrace | PathLike", folder: PathLike) -> None:
    """Converts a recording in the layout (a folder or an ArrowTrace) to a
    trace folder, values and units unchanged.

    Example:

    >>> to_trace_folder(ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1"), "/tmp/hearth-doctest-drop-folder")
    """
    (source if isinstance(source, ArrowTrace) else ArrowTrace.read(source)).to_trace_folder(folder)


def write_table(frame: pd.DataFrame, path: PathLike) -> None:
    """A DataFrame (a sweep's table, a replay's events) as one Parquet file,
    zstd-compressed, column types (and their units, in the names) as pandas has them.

    Example:

    >>> import pandas as pd
    >>> write_table(pd.DataFrame({"distance_m": [1.5]}), "/tmp/hearth-doctest-table.parquet")
    >>> pq.read_table("/tmp/hearth-doctest-table.parquet").column_names
    ['distance_m']
    """
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), os.fspath(path), compression="zstd")
