"""Loading libhearth and moving arrays across the boundary without copies.

cffi in ABI mode: no compiler at install or import time, the library is
opened with dlopen. cffi releases the GIL around every call into the
library, so the maths runs while other Python threads go on (a thread pool
parallelises `sweep`, `haversine` on chunks, …).

The library is found, in order: the HEARTH_LIBRARY environment variable (a
path to libhearth.so), the copy installed inside this package, and
../.build/libhearth/libhearth.so beside a source checkout.

The threshold sweep lives in a second library, libhearth_lab.so (the whole
ABI plus the sweep, with the scenario catalogue and OpenBLAS/LAPACKE), loaded
on the first sweep only (`lab()`): HEARTH_LAB_LIBRARY, else beside the
libhearth.so that was loaded, else the places above. Each library has its own
handles: a handle one made is used with that one only (`created`,
`take_bytes` and `raise_for` take the library as `library=`).
"""

from __future__ import annotations

import os
from pathlib import Path

import cffi
import numpy as np

from ._cdef import CDEF, HEADER, constants

ffi = cffi.FFI()
ffi.cdef(CDEF)


def _library_path(name: str = "libhearth.so", variable: str = "HEARTH_LIBRARY", beside: str | None = None) -> str:
    given = os.environ.get(variable)
    if given:
        return given
    here = Path(__file__).resolve().parent
    candidates = [Path(beside).parent / name] if beside else []
    candidates += [here / name, here.parent.parent / ".build" / "libhearth" / name]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    raise ImportError(
        f"{name} not found: install the package (pip install ./python), run Scripts/build-libhearth "
        f"in a checkout, or set {variable} to the library's path"
    )


#: The ABI major version this package was written for: the header's HEARTH_ABI_VERSION_MAJOR.
ABI_MAJOR = constants(HEADER)["HEARTH_ABI_VERSION_MAJOR"]


def _open(path: str):
    library = ffi.dlopen(path)
    if library.hearth_abi_version() >> 16 != ABI_MAJOR:
        raise ImportError(f"{path}: ABI {library.hearth_abi_version():#x} is not major version {ABI_MAJOR}")
    return library


_LIBRARY_PATH = _library_path()
lib = _open(_LIBRARY_PATH)
_lab = None


def lab():
    """libhearth_lab.so, opened on first use: the library the threshold sweep
    runs in (hearth_sweep_*), and the one whose trace handles a sweep takes.
    Raises ImportError when it cannot be found."""
    global _lab
    if _lab is None:
        _lab = _open(_library_path("libhearth_lab.so", "HEARTH_LAB_LIBRARY", beside=_LIBRARY_PATH))
    return _lab


class HearthError(Exception):
    """A call into libhearth failed; `status` is the HEARTH_ERROR_* code, the
    message the library's reason (which file, row, field or setting)."""

    def __init__(self, status: int, message: str):
        self.status = status
        name = ffi.string(lib.hearth_status_name(status)).decode()
        super().__init__(f"{message} ({name})" if message else name)


class BadInputError(HearthError, ValueError):
    """Bad data: a file that cannot be read or parsed, a malformed configuration."""


class SchemaError(HearthError, ValueError):
    """An ingest batch refused whole (SPEC §1: a latitude or longitude out of range or not finite)."""


def raise_for(status: int, handle=ffi.NULL, *, library=None) -> None:
    """Raises the exception for a failed status, with the handle's message
    (read through `library`, the one that made the handle; libhearth by default)."""
    if status == lib.HEARTH_OK:
        return
    library = library or lib
    message = ffi.string(library.hearth_last_error(handle)).decode("utf-8", "replace") if handle != ffi.NULL else ""
    if status == lib.HEARTH_ERROR_ARGUMENT:
        raise ValueError(message or "invalid argument")
    if status == lib.HEARTH_ERROR_BAD_INPUT:
        raise BadInputError(status, message)
    if status == lib.HEARTH_ERROR_SCHEMA:
        raise SchemaError(status, message)
    raise HearthError(status, message)


def created(function, *arguments, library=None):
    """Calls a create function (the last argument its `**out`) of `library`
    (libhearth by default) and returns the handle, owned by Python (released
    by that library when collected); raises with the library's reason when
    it failed (the failed handle is released)."""
    library = library or lib
    out = ffi.new(ffi.typeof(function).args[-1])
    status = function(*arguments, out)
    handle = ffi.gc(out[0], library.hearth_release) if out[0] != ffi.NULL else ffi.NULL
    raise_for(status, handle, library=library)
    return handle


def take_bytes(function, *arguments, library=None) -> bytes:
    """Calls a function of `library` that hands out a hearth_bytes and returns its contents."""
    library = library or lib
    handle = created(function, *arguments, library=library)
    return bytes(ffi.buffer(library.hearth_bytes_data(handle), library.hearth_bytes_size(handle)))


def text(value: str | os.PathLike | None):
    """A UTF-8 C string (NULL for None)."""
    if value is None:
        return ffi.NULL
    return ffi.new("char[]", os.fsencode(value) if isinstance(value, os.PathLike) else value.encode("utf-8"))


def column(values, name: str, dtype=np.float64) -> np.ndarray:
    """`values` as a 1-D contiguous array of `dtype`, without a copy.

    A numpy array must already be 1-D, C-contiguous and of `dtype` (a copy
    would hide a cost and is refused with ValueError); a pandas Series gives
    its own array; a list, tuple or scalar is converted (it has no buffer to
    share). A pandas Series gives its own array when contiguous, else one copy."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        # A DataFrame's column: its own array when contiguous (pandas keeps
        # a column's values together), else one gathered copy.
        values = np.ascontiguousarray(values.to_numpy())
    if not isinstance(values, np.ndarray):
        values = np.ascontiguousarray(np.asarray(values, dtype=dtype).reshape(-1))
    if values.dtype != np.dtype(dtype):
        raise ValueError(f"{name}: dtype {values.dtype}, expected {np.dtype(dtype)} (convert with .astype({np.dtype(dtype).name}))")
    if values.ndim != 1:
        raise ValueError(f"{name}: {values.ndim}-D array, expected 1-D")
    if not values.flags.c_contiguous:
        raise ValueError(f"{name}: not contiguous (a strided view); pass np.ascontiguousarray({name})")
    return values


def same_length(**columns: np.ndarray) -> int:
    """The common length of the columns, or ValueError naming them."""
    lengths = {name: len(c) for name, c in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError("arrays of different lengths: " + ", ".join(f"{k}={v}" for k, v in lengths.items()))
    return next(iter(lengths.values()), 0)


def pointer(array: np.ndarray, ctype: str):
    """A C pointer into the array's own memory (no copy). NULL for an empty array."""
    if len(array) == 0:
        return ffi.NULL
    return ffi.from_buffer(ctype + "[]", array)


def out_pointer(array: np.ndarray, ctype: str):
    """A writable C pointer into the array's memory."""
    if len(array) == 0:
        return ffi.NULL
    return ffi.from_buffer(ctype + "[]", array, require_writable=True)
