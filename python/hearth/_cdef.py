"""The C declarations of libhearth for cffi's ABI mode, derived from include/hearth.h.

Nothing here is typed by hand: `cdef(header_text)` turns the one documented
header into what cffi's parser takes, by a small preprocessing step —
comments dropped, the include guard, `#include` lines and the `extern "C"`
block for C++ dropped, every `#define HEARTH_* <integer>` kept. A declaration
or constant added to the header (a new ingest function, an enum value) is in
`CDEF` the next time the package is imported, with no edit here.

The header read is, in order: `hearth.h` inside the installed package (the
wheel ships the header its libraries were built from), else
`include/hearth.h` of the checkout this folder belongs to.
tests/test_declarations.py checks that `CDEF` keeps every declaration and
constant of the header, and that no module of the package retypes a constant.

Pure Python, no cffi: `constants()` gives the header's integer constants and
`codes(prefix)` the names of one family of them (e.g. HEARTH_EVENT_*).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: Where the header is looked for: the copy installed in the package, then the checkout's.
HEADER_CANDIDATES = (_HERE / "hearth.h", _HERE.parent.parent / "include" / "hearth.h")

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# `#define NAME value` with an integer value (decimal or hex): what cffi's ABI mode can bind.
_CONSTANT = re.compile(r"^#\s*define\s+(HEARTH_\w+)\s+(0[xX][0-9A-Fa-f]+|-?[0-9]+)\s*$")


def header_path() -> Path:
    """The header the declarations are read from; ImportError when neither copy exists."""
    for candidate in HEADER_CANDIDATES:
        if candidate.is_file():
            return candidate
    raise ImportError("hearth.h not found: looked for " + ", ".join(str(c) for c in HEADER_CANDIDATES)
                      + " (install the package with pip, or use it from a Hearth checkout)")


def cdef(header: str) -> str:
    """The header's declarations as cffi's `ffi.cdef` takes them.

    Keeps every line outside preprocessor conditionals and comments, and
    every integer `#define HEARTH_*`; drops the include guard, `#include`s,
    the C++ `extern "C"` wrapper (inside `#ifdef __cplusplus`) and any other
    preprocessor line. ValueError for a `#define HEARTH_*` with a value cffi
    cannot bind (it would silently be missing from Python otherwise)."""
    text = _COMMENT.sub(" ", header)
    out = []
    skipping = 0  # depth inside `#ifdef __cplusplus` blocks
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            directive = re.match(r"#\s*(\w+)", stripped)
            word = directive.group(1) if directive else ""
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
                if skipping or "__cplusplus" in stripped:
                    skipping += 1
            elif word == "endif":
                depth -= 1
                if skipping:
                    skipping -= 1
            elif word == "define" and not skipping:
                constant = _CONSTANT.match(stripped)
                if constant:
                    out.append(f"#define {constant.group(1)} {constant.group(2)}")
                elif re.match(r"#\s*define\s+HEARTH_\w+\s+\S", stripped):
                    raise ValueError(f"hearth.h: {stripped!r} is not an integer constant cffi can bind")
            continue
        if skipping or not stripped:
            continue
        out.append(line.rstrip())
    if depth != 0:
        raise ValueError("hearth.h: unbalanced #if/#endif")
    return "\n".join(out) + "\n"


@functools.lru_cache(maxsize=4)
def _constants(header: str) -> tuple[tuple[str, int], ...]:
    found = {}
    for line in cdef(header).splitlines():
        constant = _CONSTANT.match(line)
        if constant:
            found[constant.group(1)] = int(constant.group(2), 0)
    return tuple(found.items())


def constants(header: str) -> dict[str, int]:
    """Every integer `#define HEARTH_*` of the header, name → value (parsed
    once per header text: the package asks for several families at import)."""
    return dict(_constants(header))


def _camel(words: str) -> str:
    first, *rest = words.lower().split("_")
    return first + "".join(w.capitalize() for w in rest)


def codes(prefix: str, header: str | None = None) -> dict[int, str]:
    """The family of constants named `prefix…` as code → camelCase name of the
    rest (HEARTH_EVENT_SHARED_FRAME → 1: "sharedFrame"), in code order.
    ValueError when the family is empty or two names share a code."""
    table = {}
    for name, value in constants(HEADER if header is None else header).items():
        if name.startswith(prefix):
            if value in table:
                raise ValueError(f"hearth.h: {prefix}* has two names for {value}")
            table[value] = _camel(name[len(prefix):])
    if not table:
        raise ValueError(f"hearth.h: no constant starts with {prefix}")
    return dict(sorted(table.items()))


HEADER = header_path().read_text(encoding="utf-8")
CDEF = cdef(HEADER)
