"""Location maths over numpy columns: great-circle distances, the privacy
grid, fix validation and dedupe. Every function reads the caller's arrays in
place and writes into new arrays it returns; the GIL is released while the
library works."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._codes import DEDUPE_OUTCOMES, FIELD_NAMES, REJECTION_NAMES
from ._names import with_datetimes
from ._types import Column, Fixes
from ._ffi import column, created, ffi, lib, out_pointer, pointer, raise_for, real, same_length, take_bytes, whole


def _index_of(*values):
    """The pandas index of the first Series or DataFrame among `values` (None
    when there is none): results keep it, so they align with the input."""
    for v in values:
        if isinstance(v, (pd.Series, pd.DataFrame)):
            return v.index
    return None


def _broadcast(named: dict) -> list[np.ndarray]:
    """Arrays as `column` takes them; a scalar (a Python or numpy number, a
    0-d array) repeated to the arrays' common length, as numpy broadcasts."""
    lengths = {len(v) for v in named.values() if np.ndim(v) > 0}
    n = lengths.pop() if len(lengths) == 1 else None
    out = []
    for name, v in named.items():
        if np.ndim(v) == 0 and n is not None:
            v = np.full(n, real(v.item() if isinstance(v, np.ndarray) else v, name))
        out.append(column(v, name))
    return out


def haversine(lat1: Column | float, lon1: Column | float, lat2: Column | float, lon2: Column | float) -> np.ndarray | pd.Series:
    """Great-circle distances between corresponding points, metres.

    Degrees in (latitude in [-90, 90], longitude in [-180, 180]); a spherical
    Earth of mean radius 6 371 008.8 m; within 0.5 mm of a correctly rounded
    haversine, NaN for NaN or out-of-range input. O(n), no copy of the inputs.
    A scalar broadcasts against the arrays (one point against many); a
    pandas Series gives a Series on its index. Raises ValueError for arrays
    of another dtype than float64, not 1-D, not contiguous, or of different
    lengths.

    Example (Berlin to Paris):

    >>> haversine(np.array([52.52]), np.array([13.405]), np.array([48.8566]), np.array([2.3522])).round(1)
    array([877464.5])
    """
    a, b, c, d = _broadcast({"lat1": lat1, "lon1": lon1, "lat2": lat2, "lon2": lon2})
    n = same_length(lat1=a, lon1=b, lat2=c, lon2=d)
    out = np.empty(n)
    raise_for(
        lib.hearth_distances_m(
            n, pointer(a, "double"), pointer(b, "double"), pointer(c, "double"), pointer(d, "double"),
            out_pointer(out, "double"),
        )
    )
    index = _index_of(lat1, lon1, lat2, lon2)
    return out if index is None else pd.Series(out, index=index, name="distance_m")


def distances_from(lat0: float, lon0: float, lat: Column, lon: Column) -> np.ndarray:
    """Distances from one point (degrees) to many, metres (as `haversine`). O(n).

    Example:

    >>> distances_from(0.0, 0.0, np.array([0.0, 1.0]), np.array([1.0, 0.0])).round(1)
    array([111195.1, 111195.1])
    """
    a, b = column(lat, "lat"), column(lon, "lon")
    n = same_length(lat=a, lon=b)
    out = np.empty(n)
    raise_for(lib.hearth_distances_from_m(real(lat0, "lat0"), real(lon0, "lon0"), n, pointer(a, "double"), pointer(b, "double"), out_pointer(out, "double")))
    return out


def track_distances(lat: Column, lon: Column) -> tuple[np.ndarray, np.ndarray]:
    """Step lengths and cumulative path length along a track, metres, from
    latitudes and longitudes in degrees: steps[0] = 0, steps[i] from point
    i-1 to i; cumulative is a compensated running sum (NaN from a bad point
    on). O(n).

    Example:

    >>> steps, total = track_distances(np.array([0.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0]))
    >>> total.round(1)
    array([     0. , 111195.1, 222390.2])
    """
    a, b = column(lat, "lat"), column(lon, "lon")
    n = same_length(lat=a, lon=b)
    steps, cumulative = np.empty(n), np.empty(n)
    raise_for(lib.hearth_track_distances_m(n, pointer(a, "double"), pointer(b, "double"), out_pointer(steps, "double"), out_pointer(cumulative, "double")))
    return steps, cumulative


class Grid:
    """A latitude-band grid of cells of about `cell_size_m` (750 m: the
    privacy grid of SPEC §2). Immutable; safe to share between threads."""

    def __init__(self, cell_size_m: float = 750.0) -> None:
        """A grid of cells about `cell_size_m` metres on a side.

        Example:

        >>> Grid(1000.0).cell_size_m
        1000.0
        """
        self.cell_size_m = real(cell_size_m, "cell_size_m")
        self._handle = created(lib.hearth_grid_create, self.cell_size_m)

    def snap(self, lat: Column, lon: Column) -> pd.DataFrame:
        """Each point's cell (latitude and longitude in degrees): columns
        cell_id (row << 32 | column; -1 for NaN or out of range),
        centre_lat_deg, centre_lon_deg, on the index of `lat` (or `lon`)
        when it is a pandas Series, so `frame["cell_id"] = snap(frame.lat,
        frame.lon)["cell_id"]` aligns row for row. O(n).

        Example:

        >>> Grid(750.0).snap([52.52], [13.405]).cell_id.tolist()
        [90752658981926]
        """
        a, b = column(lat, "lat"), column(lon, "lon")
        n = same_length(lat=a, lon=b)
        ids, clat, clon = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n)
        raise_for(
            lib.hearth_grid_snap(
                self._handle, n, pointer(a, "double"), pointer(b, "double"), out_pointer(ids, "int64_t"),
                out_pointer(clat, "double"), out_pointer(clon, "double"),
            )
        )
        return pd.DataFrame({"cell_id": ids, "centre_lat_deg": clat, "centre_lon_deg": clon}, index=_index_of(lat, lon))

    def project(self, time_ms: Column, lat: Column, lon: Column, accuracy_m: Column, *, min_accuracy_m: float = 750.0, slot_ms: int = 300_000) -> pd.DataFrame:
        """What a viewer of approximate sharing sees of fixes at `time_ms`
        (ms since the epoch, int64), `lat`/`lon` (degrees), `accuracy_m`
        (metres): the cell and its centre,
        accuracy widened to at least `min_accuracy_m`, time floored to its
        slot of `slot_ms` (columns cell_id, centre_lat_deg, centre_lon_deg,
        accuracy_m, slot_start_ms and its UTC datetime slot_start). Speed,
        heading and activity do not appear. O(n).

        Example:

        >>> Grid().project(np.array([1_700_000_123_456]), [52.52], [13.405], [5.0])[["accuracy_m", "slot_start"]]
           accuracy_m                slot_start
        0       750.0 2023-11-14 22:15:00+00:00
        """
        t = column(time_ms, "time_ms", np.int64)
        a, b, c = column(lat, "lat"), column(lon, "lon"), column(accuracy_m, "accuracy_m")
        min_accuracy, slot_length = real(min_accuracy_m, "min_accuracy_m"), whole(slot_ms, "slot_ms")
        n = same_length(time_ms=t, lat=a, lon=b, accuracy_m=c)
        ids, clat, clon, acc, slot = (np.empty(n, dtype=np.int64), np.empty(n), np.empty(n), np.empty(n), np.empty(n, dtype=np.int64))
        # The grid is shared between threads and keeps no message: the
        # library says why it refused the settings when asked (hearth.h).
        status = lib.hearth_privacy_project(
            self._handle, min_accuracy, slot_length, n, pointer(t, "int64_t"), pointer(a, "double"),
            pointer(b, "double"), pointer(c, "double"), out_pointer(ids, "int64_t"), out_pointer(clat, "double"),
            out_pointer(clon, "double"), out_pointer(acc, "double"), out_pointer(slot, "int64_t"),
        )
        if status == lib.HEARTH_ERROR_ARGUMENT:
            _say_why("hearth_privacy_check_settings", min_accuracy, slot_length)
        raise_for(status)
        return with_datetimes(pd.DataFrame({"cell_id": ids, "centre_lat_deg": clat, "centre_lon_deg": clon, "accuracy_m": acc, "slot_start_ms": slot},
                                            index=_index_of(time_ms, lat, lon, accuracy_m)))


def _say_why(check: str, *arguments) -> None:
    """After HEARTH_ERROR_ARGUMENT from a call with no handle for its reason
    (hearth_validate, hearth_privacy_project): asks the library's check
    `check` (ABI 1.6), which raises ValueError with the reason. Returns when
    the check takes the arguments."""
    take_bytes(getattr(lib, check), *arguments)


_privacy_grid: Grid | None = None


def snap(lat: Column, lon: Column) -> pd.DataFrame:
    """`Grid(750).snap(lat, lon)`: the privacy grid's cell of every point
    (degrees in; cell_id, centre_lat_deg, centre_lon_deg out). O(n).

    Example:

    >>> snap([52.52], [13.405])
              cell_id  centre_lat_deg  centre_lon_deg
    0  90752658981926       52.522202       13.402309
    """
    global _privacy_grid
    if _privacy_grid is None:
        _privacy_grid = Grid(750.0)
    return _privacy_grid.snap(lat, lon)


# MARK: fixes as columns

_FIX_COLUMNS = {
    # column name: (hearth_fixes field, dtype, required)
    "time_ms": ("time_ms", np.int64, True),
    "latitude_deg": ("latitude_deg", np.float64, True),
    "longitude_deg": ("longitude_deg", np.float64, True),
    "horizontal_accuracy_m": ("horizontal_accuracy_m", np.float64, True),
    "speed_mps": ("speed_mps", np.float64, False),
    "heading_deg": ("heading_deg", np.float64, False),
    "altitude_m": ("altitude_m", np.float64, False),
    "activity": ("activity", np.uint8, False),
    "source": ("source", np.uint8, False),
    "battery_level": ("battery_level", np.float64, False),
    "charging": ("charging", np.uint8, False),
    "device": ("device", np.uint32, False),
    "user": ("user", np.uint32, False),
}

_CTYPES = {np.int64: "int64_t", np.float64: "double", np.uint8: "uint8_t", np.uint32: "uint32_t"}


class FixBatch:
    """A `hearth_fixes` over the columns of a DataFrame (or a dict of arrays),
    kept alive with the struct. Column names with units as `read_trace`
    gives them; the first four are required."""

    def __init__(self, fixes: Fixes) -> None:
        self.columns = {}
        n = None
        for name, (field, dtype, required) in _FIX_COLUMNS.items():
            if name not in fixes:
                if required:
                    raise ValueError(f"fixes: missing column {name!r} (needed: time_ms, latitude_deg, longitude_deg, horizontal_accuracy_m)")
                continue
            values = column(fixes[name], name, dtype)
            if n is not None and len(values) != n:
                raise ValueError(f"fixes: column {name!r} has {len(values)} rows, the others {n}")
            n = len(values)
            self.columns[field] = values
        self.count = n or 0
        self.struct = ffi.new("hearth_fixes *")
        self.struct.count = self.count
        for field, values in self.columns.items():
            setattr(self.struct, field, pointer(values, _CTYPES[values.dtype.type]))


def milliseconds(now_ms: int | pd.Timestamp, name: str = "now_ms") -> int:
    """A time as ms since the Unix epoch: an integer as it is (a whole float,
    3.0, as 3; see `hearth._ffi.whole`), a tz-aware
    `pandas.Timestamp` or `datetime` converted (floored to the millisecond).
    A naive one (no time zone) is refused with ValueError naming `name`:
    whether it meant UTC or local time cannot be told.

    Example:

    >>> milliseconds(pd.Timestamp("2026-12-04 12:00", tz="UTC"))
    1796385600000
    """
    import datetime

    if isinstance(now_ms, (pd.Timestamp, datetime.datetime, np.datetime64)):
        stamp = pd.Timestamp(now_ms)
        if stamp.tzinfo is None:
            raise ValueError(f"{name}: {stamp} has no time zone; give a tz-aware time (e.g. pd.Timestamp(..., tz='UTC')) or ms since the epoch")
        return int(stamp.value // 1_000_000)
    # A number as the library's int64: 3.0 as 3; 1.5, NaN, beyond int64, a bool or a string refused.
    return whole(now_ms, name)


def validate(fixes: Fixes, now_ms: int | pd.Timestamp, *, max_future_ms: int = 300_000, max_age_ms: int = 7 * 86_400_000) -> pd.Series:
    """SPEC §1 validation against the server clock `now_ms` (ms since the
    epoch, or a tz-aware pandas Timestamp; a naive one is refused): per fix
    "accepted", "inFuture" (more than `max_future_ms` ms ahead), "tooOld"
    (more than `max_age_ms` ms behind), "accuracyMissing", or a value no
    phone reports and the recording readers refuse too: "accuracyOutOfRange"
    (above 100 km), "speedOutOfRange" (above 600 m/s or infinite; a negative
    speed is iOS's "not measured"), "headingOutOfRange" (above 360° or -inf),
    "altitudeOutOfRange" (outside -2 km … 100 km), "batteryOutOfRange"
    (outside 0 … 1); the first that applies, on the index of `fixes` when it
    is a DataFrame. A code a newer library adds is the category "code N". A latitude or longitude out of range refuses the
    whole batch: SchemaError naming the first offending fix and field. O(n).

    Example:

    >>> fixes = {"time_ms": [1_000_000, 2_000_000], "latitude_deg": [52.5, 52.5], "longitude_deg": [13.4, 13.4],
    ...          "horizontal_accuracy_m": [5.0, float("nan")]}
    >>> validate(fixes, now_ms=1_500_000).tolist()
    ['accepted', 'inFuture']
    """
    batch = FixBatch(fixes)
    verdict = np.empty(batch.count, dtype=np.int32)
    schema = ffi.new("hearth_schema_error *")
    status = lib.hearth_validate(batch.struct, milliseconds(now_ms), whole(max_future_ms, "max_future_ms"), whole(max_age_ms, "max_age_ms"),
                                 out_pointer(verdict, "int32_t"), schema)
    if status == lib.HEARTH_ERROR_SCHEMA:
        from ._ffi import SchemaError

        field = FIELD_NAMES[schema.field]
        reason = "not a finite number" if schema.reason == lib.HEARTH_SCHEMA_NOT_FINITE else "outside its range"
        raise SchemaError(status, f"fix {schema.index}: {field} {schema.value} is {reason}; batch refused")
    if status == lib.HEARTH_ERROR_ARGUMENT:
        _say_why("hearth_validate_check_arguments", batch.struct, whole(max_future_ms, "max_future_ms"), whole(max_age_ms, "max_age_ms"))
    raise_for(status)
    # A library of a later minor version may add codes this package has no
    # name for: each is its own category, "code N", rather than an error.
    names = list(REJECTION_NAMES.values())
    known = (verdict >= 0) & (verdict < len(names))
    unknown = np.unique(verdict[~known])
    verdict = np.where(known, verdict, len(names) + np.searchsorted(unknown, verdict))
    names += [f"code {code}" for code in unknown]
    return pd.Series(pd.Categorical.from_codes(verdict, categories=names), name="validation", index=_index_of(fixes))


class Dedupe:
    """The stored fixes' keys (user, device, time): `insert` says per fix
    "inserted", "duplicate" or "stillAdopted" (a duplicate re-reporting
    `still`). Retrying a batch changes nothing."""

    def __init__(self) -> None:
        """An empty store.

        Example:

        >>> len(Dedupe())
        0
        """
        self._handle = created(lib.hearth_dedupe_create)

    def insert(self, fixes: Fixes) -> pd.Series:
        """Each fix's outcome (keys user, device, time_ms in ms since the epoch). O(n log n).

        Example:

        >>> store = Dedupe()
        >>> fixes = {"time_ms": [1_000, 1_000], "latitude_deg": [52.5, 52.5], "longitude_deg": [13.4, 13.4],
        ...          "horizontal_accuracy_m": [5.0, 5.0]}
        >>> store.insert(fixes).tolist()
        ['inserted', 'duplicate']
        """
        batch = FixBatch(fixes)
        outcome = np.empty(batch.count, dtype=np.int32)
        raise_for(lib.hearth_dedupe_insert(self._handle, batch.struct, out_pointer(outcome, "int32_t")), self._handle)
        return pd.Series(pd.Categorical.from_codes(outcome, categories=list(DEDUPE_OUTCOMES.values())), name="dedupe")

    def __len__(self) -> int:
        """How many fixes are stored."""
        count = ffi.new("int64_t *")
        raise_for(lib.hearth_dedupe_count(self._handle, count), self._handle)
        return count[0]
