"""The names Python gives the library's codes, read from the header's constants.

Each table maps a code of include/hearth.h to the camelCase of its constant's
name (HEARTH_EVENT_SHARED_FRAME → "sharedFrame"), so a value added to the
header has its name here with no edit (`_cdef.codes`). The frames and
dictionaries of the package use these names.
"""

from __future__ import annotations

from ._cdef import HEADER, codes, constants
from ._ffi import ffi, lib

#: hearth_validate's verdict per fix (HEARTH_FIX_*).
REJECTION_NAMES = codes("HEARTH_FIX_")
#: The field a schema error names (HEARTH_FIELD_*).
FIELD_NAMES = codes("HEARTH_FIELD_")
#: What hearth_dedupe_insert did with a fix (HEARTH_DEDUPE_*).
DEDUPE_OUTCOMES = codes("HEARTH_DEDUPE_")
#: A verdict's outcome (HEARTH_OUTCOME_*).
OUTCOMES = codes("HEARTH_OUTCOME_")
#: The incident's next action and how it ended (HEARTH_ACTION_*, HEARTH_END_*).
ACTIONS = codes("HEARTH_ACTION_")
ENDS = codes("HEARTH_END_")
#: The kind of an ingest event record (HEARTH_EVENT_*).
EVENT_KINDS = codes("HEARTH_EVENT_")
#: How an end of a trip was named (HEARTH_NAMED_*): None when it was not.
NAMED_BY = dict(sorted({constants(HEADER)["HEARTH_NAMED_NONE"]: None, **codes("HEARTH_NAMED_BY_")}.items()))
#: The detector's conditions by code, as the library names them (hearth_condition_name).
CONDITIONS = [ffi.string(lib.hearth_condition_name(code)).decode() for code in codes("HEARTH_CONDITION_")]
