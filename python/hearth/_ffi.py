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

import ctypes
import functools
import hashlib
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
#: The oldest minor of that major it takes: the header's HEARTH_ABI_VERSION_MINOR (it calls
#: every function of its header, and an older library lacks the newer ones).
ABI_MINOR = constants(HEADER)["HEARTH_ABI_VERSION_MINOR"]


def _open(path: str):
    library = ffi.dlopen(path)
    loaded = library.hearth_abi_version()
    if loaded >> 16 != ABI_MAJOR:
        raise ImportError(f"{path}: ABI {loaded:#x} is not major version {ABI_MAJOR}")
    if (loaded >> 8) & 0xFF < ABI_MINOR:
        raise ImportError(
            f"{path}: ABI {loaded:#x}: minor version {(loaded >> 8) & 0xFF} is older than {ABI_MINOR}, "
            "which this package calls (install the libhearth it came with)")
    return library


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _pin(library, path: str) -> tuple[int | None, str]:
    """A descriptor open on the file the loader mapped for `library`, and
    that file's name (dladdr's, so a bare name the loader searched
    LD_LIBRARY_PATH for, or a relative path, names the file too): it keeps
    the loaded bytes readable after the file is replaced by a rebuild or an
    upgrade (a new inode). (None, why) when the file cannot be opened."""
    info = _DlInfo()
    address = ctypes.c_void_p(int(ffi.cast("uintptr_t", library.hearth_abi_version)))
    found = ctypes.CDLL(None).dladdr(address, ctypes.byref(info)) and info.dli_fname
    name = os.fsdecode(info.dli_fname) if found else path
    try:
        return os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)), name
    except OSError as error:
        return None, f"{name} not readable: {error.strerror}"


_LIBRARY_PATH = _library_path()
lib = _open(_LIBRARY_PATH)
_LIBRARY_FILE = _pin(lib, _LIBRARY_PATH)


@functools.cache
def library_identity() -> str:
    """Which libhearth this process loaded: its ABI version and the SHA-256 of
    the loaded file's bytes (the first 16 hex digits), e.g. "libhearth 1.5.0
    sha256:0123456789abcdef". Two processes that loaded the same build say the
    same; a rebuild from other sources does not, even at the same ABI version
    (a rule can change without the ABI). The bytes are read through a
    descriptor opened when the library was loaded, so replacing the file
    later (a rebuild, `pip install -U`) does not change the answer. Read
    once per process, on first call: O(file size), about 0.2 s for 60 MB."""
    version = lib.hearth_abi_version()
    name = f"libhearth {version >> 16}.{(version >> 8) & 0xFF}.{version & 0xFF}"
    descriptor, where = _LIBRARY_FILE
    if descriptor is None:
        return f"{name} ({where})"
    digest, offset = hashlib.sha256(), 0
    while block := os.pread(descriptor, 1 << 20, offset):
        digest.update(block)
        offset += len(block)
    return f"{name} sha256:{digest.hexdigest()[:16]}"


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


def text(value: str | bytes | os.PathLike | None, name: str = "text"):
    """`value` as the library's C string argument `name`: NULL for None, a
    str as UTF-8, bytes and a path's bytes (os.fsencode) as they are.

    The library takes UTF-8 without NUL and refuses anything else (bytes
    that are not UTF-8 arrive as HEARTH_ERROR_ARGUMENT, naming the offset).
    What C cannot be handed is refused here, before the call, with
    ValueError naming `name`: a NUL character (a C string ends at its first
    NUL, so "alice\\0x" would arrive as "alice") and a str that is not
    encodable as UTF-8 (a lone surrogate, "\\udcff", which Python's
    surrogateescape makes of undecodable bytes). Anything else is TypeError."""
    if value is None:
        return ffi.NULL
    if isinstance(value, str):
        try:
            encoded = value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"{name}: {value[error.start]!r} at index {error.start} is a lone surrogate, "
                "which UTF-8 cannot encode"
            ) from None
        where = value.find("\0")
    elif isinstance(value, (bytes, os.PathLike)):
        encoded = os.fsencode(value)
        where = encoded.find(b"\0")
    else:
        raise TypeError(f"{name}: expected a str, not {type(value).__name__}")
    if where >= 0:
        raise ValueError(f"{name}: a NUL character at index {where}, which a C string cannot carry")
    return ffi.new("char[]", encoded)


def _what(value) -> str:
    """A refused element as the messages show it: its repr (1.5, nan, True, '1')."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _refuse(name: str, index: int | None, value, why: str) -> ValueError:
    """The one message for a value refused on its way to the library: the
    argument, the element's index (None for a scalar argument), the value, why."""
    where = name if index is None else f"{name}[{index}]"
    return ValueError(f"{where}: {_what(value)} {why}")


def _not_a_number(value) -> str | None:
    """Why `value` (one element of a list or a scalar argument) is no number, or
    None when it is one. A bool is refused although Python counts it as an int:
    True as a coordinate, an id or a time is a mistake, not a 1."""
    if isinstance(value, (bool, np.bool_)):
        return "is a bool, not a number"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return None
    if isinstance(value, (str, bytes)):
        return "is a string, not a number"
    if value is None:
        return "is not a number"
    return f"is a {type(value).__name__}, not a number"


def _check_whole(values: np.ndarray, name: str, dtype: np.dtype, first: int | None = 0) -> None:
    """Raises ValueError for the first element of a numeric array that `dtype`
    (an integer type) does not hold exactly: a fraction, NaN, ±inf, or a value
    outside its range. Vectorised; nothing is converted here. `first`: the
    index the array's first element has in the argument (None: a scalar)."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if values.dtype.kind == "f":
        finite = np.isfinite(values)
        fraction = finite & (values != np.trunc(np.where(finite, values, 0)))
        # hi + 1 is a power of two, exact as a float (x <= float(hi) would round hi up).
        outside = finite & ~fraction & ((values < float(lo)) | (values >= float(hi + 1)))
        bad = ~finite | fraction | outside
    else:
        outside = (values < lo) | (values > hi)
        bad = outside
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    index = None if first is None else first + i
    if outside[i]:
        raise _refuse(name, index, values[i], f"is outside the range of {dtype.name} ({lo} to {hi})")
    raise _refuse(name, index, values[i], f"is not a whole number ({dtype.name} expected)")


def _whole_element(value, name: str, dtype: np.dtype, index: int | None) -> int:
    """One number (an int of any size or a float) as the Python int `dtype`
    holds exactly, or ValueError as `_check_whole` words it."""
    if isinstance(value, (int, np.integer)):
        info = np.iinfo(dtype)
        if not int(info.min) <= int(value) <= int(info.max):
            raise _refuse(name, index, value, f"is outside the range of {dtype.name} ({info.min} to {info.max})")
        return int(value)
    _check_whole(np.asarray(value, dtype=np.float64).reshape(1), name, dtype, first=index)
    return int(value)


def _converted(values, name: str, dtype: np.dtype) -> np.ndarray:
    """A list, tuple or scalar as a new 1-D array of `dtype`, refusing what
    numpy's own conversion would change or invent: a string or a bool for any
    number ("1" and True become 1.0), and for an integer type a fraction (1.9
    becomes 1), NaN, ±inf or a value outside the type (numpy's OverflowError
    or ValueError for these names no argument).
    None stands for a missing reading (NaN) in a float column, as JSON's null
    does for the Node binding; an integer column has no missing value."""
    whole = dtype.kind in "iu"
    raw = np.asarray(values).reshape(-1)
    # numpy reads [1, True] as int64 and [1, "2"] as strings: a list holding a
    # bool, or anything numpy did not make numbers of, is read element by element.
    listed = isinstance(values, (list, tuple))
    numeric = raw.dtype.kind in "iuf"
    # A bool among numbers reads as 0 or 1: only then are the elements' types looked at.
    has_bool = (listed and numeric and bool(((raw == 0) | (raw == 1)).any())
                and not {bool, np.bool_}.isdisjoint(map(type, values)))
    if numeric and not has_bool:
        try:
            if whole:
                _check_whole(raw, name, dtype)
            return np.ascontiguousarray(raw.astype(dtype))
        except ValueError:
            if not listed:
                raise
            # numpy may have read the list as floats ([-1, 2**63]): the element
            # by element reading below names the same element with the value as given.
    if raw.dtype.kind != "O":
        raw = np.asarray(values, dtype=object).reshape(-1)
    out = np.empty(len(raw), dtype=dtype)
    for i, value in enumerate(raw):
        if value is None and not whole:
            out[i] = np.nan
            continue
        why = _not_a_number(value)
        if why is not None:
            raise _refuse(name, i, value, why)
        if whole:
            out[i] = _whole_element(value, name, dtype, i)
        else:
            out[i] = float(value)
    return out


def whole(value, name: str, dtype=np.int64) -> int:
    """A scalar argument the library takes as an integer type (`dtype`:
    int64, int32, uint32, …) as a Python int: an int, or a float that is a
    whole number within the type (3.0, as the file readers take 3.0 for a
    whole-number field). A fraction, NaN, ±inf, a value outside the type, a
    bool or a string raises ValueError naming `name`."""
    dtype = np.dtype(dtype)
    why = _not_a_number(value)
    if why is not None:
        raise _refuse(name, None, value, why)
    return _whole_element(value, name, dtype, None)


def real(value, name: str) -> float:
    """A scalar argument the library takes as a double, as a Python float: an
    int or a float (NaN and ±inf pass; the library decides about them). A
    bool or a string raises ValueError naming `name` (float("1") and
    float(True) would make numbers of them), and so does an int too large
    for a double."""
    why = _not_a_number(value)
    if why is not None:
        raise _refuse(name, None, value, why)
    try:
        return float(value)
    except OverflowError:  # an int beyond the doubles (10**400)
        raise _refuse(name, None, value, "is too large for a double") from None


def column(values, name: str, dtype=np.float64) -> np.ndarray:
    """`values` as a 1-D contiguous array of `dtype`, without a copy.

    A numpy array must already be 1-D, C-contiguous and of `dtype` (a copy
    would hide a cost and is refused with ValueError); a pandas Series gives
    its own array when contiguous, else one copy, and must be of `dtype` too.
    A list, tuple or scalar is converted (it has no buffer to share), value
    by value as the file readers take them (`_converted`): an integer dtype
    takes whole numbers within its range (3 or 3.0, not 3.5, NaN or -1 for
    a uint32), every dtype refuses strings and bools, with ValueError naming
    the argument, the first bad index and value."""
    dtype = np.dtype(dtype)
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        # A DataFrame's column: its own array when contiguous (pandas keeps
        # a column's values together), else one gathered copy.
        values = np.ascontiguousarray(values.to_numpy())
    if not isinstance(values, np.ndarray):
        values = _converted(values, name, dtype)
    if values.dtype != dtype:
        raise ValueError(f"{name}: dtype {values.dtype}, expected {dtype} (convert with .astype({dtype.name}))")
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
