"""Names for the kinds of argument the public functions take (type hints only)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np
import numpy.typing as npt
import pandas as pd

from .trace import TraceFrames

#: Numbers for one column: a float64 (or the named dtype) numpy array, a pandas Series, a list or a scalar.
Column = npt.ArrayLike
#: A path on disk.
PathLike = Union[str, os.PathLike]
#: Fix columns by name (time_ms, latitude_deg, …): a DataFrame or a mapping of arrays.
Fixes = Union[pd.DataFrame, Mapping[str, Any]]
#: One sensor stream: a DataFrame with the stream's columns, or its arrays in order.
Stream = Union[pd.DataFrame, Sequence[np.ndarray], None]
#: Places: a DataFrame or a list of dicts (id, circle, latitude_deg, longitude_deg, radius_m, name).
Places = Union[pd.DataFrame, Sequence[Mapping[str, Any]], None]
#: Circles: a user id → the ids of the circles they are in.
Circles = Union[Mapping[int, Iterable[int]], None]
#: A recording: its path, or what read_trace returned (it carries its path).
Trace = Union[str, os.PathLike, TraceFrames]
#: One recording or several.
Traces = Union[Trace, Iterable[Trace]]
