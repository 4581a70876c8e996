"""The package's naming rule (python/README.md, "Conventions") in one place:
the library's camelCase keys with units spelt out (`joltMetersPerSecondSquared`,
`value.summary.startMilliseconds`) become snake_case names ending in one
short unit suffix (`jolt_mps2`, `start_ms`), and every epoch-millisecond
column gets a UTC datetime column beside it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

# Unit words at the end of a library key → the suffix; longest first, so
# MetersPerSecondSquared is not read as MetersPerSecond + Squared.
UNIT_SUFFIXES: dict[str, str] = {
    "MetersPerSecondSquared": "mps2",
    "RadiansPerSecond": "radps",
    "KilometersPerHour": "kmh",
    "MetersPerSecond": "mps",
    "Milliseconds": "ms",
    "Hectopascals": "hpa",
    "Seconds": "s",
    "Degrees": "deg",
    "Meters": "m",
    "Hertz": "hz",
}

# Levels of the library's JSON lines that carry no meaning of their own in a flat table.
_DROPPED_LEVELS = ("value", "summary")

#: The datetime type of every time column and index the package hands out.
DATETIME = "datetime64[ns, UTC]"


def snake(key: str) -> str:
    """A camelCase key as a snake_case name with its unit as the suffix:
    `freeFallMetersPerSecondSquared` → `free_fall_mps2`, `timeMilliseconds` →
    `time_ms`, `isTrip` → `is_trip`. O(len(key))."""
    for word, suffix in UNIT_SUFFIXES.items():
        if key.endswith(word) and len(key) > len(word):
            stem = key[: -len(word)]
            return f"{snake(stem)}_{suffix}"
        if key == word[0].lower() + word[1:]:
            return suffix
    return _CAMEL_BREAK.sub("_", key).lower()


# A word starts at a capital after a small letter or digit (freeFall), or at
# the last capital of a run followed by a small letter (GPSFix: GPS, Fix).
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# The command's exports spell "per" with an underscore (jolt_m_s2).
_EXPORT_UNITS = ((re.compile(r"_m_s2$"), "_mps2"), (re.compile(r"_m_s$"), "_mps"), (re.compile(r"_rad_s$"), "_radps"), (re.compile(r"_km_h$"), "_kmh"))


def export_name(column: str) -> str:
    """A column of the command's CSV exports in the package's rule:
    `jolt_m_s2` → `jolt_mps2`, `rejected_by_freeFallVeto` →
    `rejected_by_free_fall_veto`, `spin_rad_s` → `spin_radps`."""
    name = "_".join(snake(part) for part in column.split("_"))
    for pattern, suffix in _EXPORT_UNITS:
        name = pattern.sub(suffix, name)
    return name


def flat_name(path: str) -> str:
    """A dotted path of the library's JSON (`value.summary.start.latitudeDegrees`)
    as one column name (`start_latitude_deg`): the wrapper levels dropped,
    the rest joined by `_`."""
    parts = [p for p in path.split(".") if p not in _DROPPED_LEVELS]
    return "_".join(snake(p) for p in parts)


#: The milliseconds a datetime64[ns] can hold (1677-09-21 … 2262-04-11); beyond them NaT.
DATETIME_RANGE_MS = (-9_223_372_036_854, 9_223_372_036_854)


def utc(ms) -> pd.DatetimeIndex:
    """Milliseconds since the Unix epoch (integers) as UTC datetimes at the
    package's one resolution (ns); a time outside DATETIME_RANGE_MS (an
    int64 extreme, a year past 2262) is NaT, its milliseconds stay as they are. O(n)."""
    values = np.asarray(ms, dtype=np.int64).reshape(-1)
    inside = (values >= DATETIME_RANGE_MS[0]) & (values <= DATETIME_RANGE_MS[1])
    out = pd.DatetimeIndex(pd.to_datetime(np.where(inside, values, 0), unit="ms", utc=True)).astype(DATETIME)
    return out.where(inside) if not inside.all() else out


def with_datetimes(frame: pd.DataFrame, *, zero_is_unused: bool = False) -> pd.DataFrame:
    """`frame` with, right after each integer `…_ms` column (milliseconds since
    the epoch), its UTC datetime twin named without the suffix (`time_ms` →
    `time`). `zero_is_unused`: 0 means "not used by this row" (the C ABI's
    events leave a field a kind does not use at 0) and becomes NaT. Changes
    `frame` in place and returns it. O(rows × such columns)."""
    for name in [c for c in frame.columns if c.endswith("_ms") and pd.api.types.is_integer_dtype(frame[c])]:
        when = pd.Series(utc(frame[name].to_numpy()), index=frame.index)
        if zero_is_unused:
            when = when.where(frame[name] != 0)
        frame.insert(frame.columns.get_loc(name) + 1, name[: -len("_ms")], when)
    return frame
