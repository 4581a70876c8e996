"""The threshold sweep: the command's `hearth impact sweep`, cut into tasks.

A sweep is a plan (a JSON spec, picklable), one task per trace (a catalogue
scenario and seed, a generated drive, a recording: each one detector pass,
returning bytes), and a merge of those bytes in task order. Tasks run in
threads here (the library releases the GIL), or anywhere else: `run_task`
takes only the spec text and an index, so a process pool or a Dask cluster
runs the same function, and `SweepPlan.merge` gets the same result, byte for
byte, however the tasks were scheduled.
"""

from __future__ import annotations

import functools
import glob
import io
import json
import os
import warnings
from concurrent.futures import Executor, ThreadPoolExecutor
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import pandas as pd

from ._ffi import BadInputError, created, ffi, lab, lib, raise_for, real, take_bytes, text, whole
from ._names import export_name
from ._types import PathLike, Traces
from .impact import ConfigLike, _configuration_json
from .trace import recording_name, trace_handle

#: A threshold grid: jolt_g, spin_radps, pressure_hpa, moving_mps, free_fall_s → a value or values.
ThresholdGrid = Mapping[str, Union[float, Sequence[float]]]

# The grid's keys here (the package's unit suffixes) → the keys of the
# library's plan and of the command's exports (sweep.csv, jolts.csv, …).
_GRID_KEYS = {"jolt_g": "jolt_g", "spin_radps": "spin_rad_s", "pressure_hpa": "pressure_hpa", "moving_mps": "moving_m_s", "free_fall_s": "free_fall_s"}
# The grid keys before the naming rule (0.1): still read, with a warning.
_OLD_GRID_KEYS = {"spin_rad_s": "spin_radps", "moving_m_s": "moving_mps"}


def _renamed_grid_key(key: str) -> str:
    if key in _OLD_GRID_KEYS:
        warnings.warn(f"grid key {key!r} is now {_OLD_GRID_KEYS[key]!r} (python/README.md, Conventions)", DeprecationWarning, stacklevel=3)
        return _OLD_GRID_KEYS[key]
    return key




def spec(traces: Traces = (), grid: ThresholdGrid | None = None, *, base: ConfigLike = None, seeds: int = 5, hours: float = 100.0,
         mapping: PathLike | None = None, vehicle_gate: str = "recording") -> str:
    """The sweep's plan as the JSON text the library reads (docs/guides/c-abi.md).

    `grid`: {"jolt_g": [g…], "spin_radps": [rad/s…], "pressure_hpa": [hPa…],
    "moving_mps": [m/s…], "free_fall_s": [s…]}, any subset (the base's value
    for the rest, as the command's flags --jolt-g, --spin, --pressure,
    --moving, --free-fall); `base`: the settings every combination starts
    from (ImpactConfig, dict, JSON or a file, as `--config`); `seeds` per
    catalogue scenario; `hours` of generated driving; `traces` recordings
    swept as driving with no known crash; `mapping` the column mapping file
    for CSV recordings.

    Example:

    >>> json.loads(spec(grid={"jolt_g": [4, 5], "spin_radps": 3}, seeds=1, hours=0.5))["spin_rad_s"]
    [3.0]
    """
    grid = {_renamed_grid_key(k): v for k, v in (grid or {}).items()}
    unknown = sorted(set(grid) - set(_GRID_KEYS))
    if unknown:
        raise ValueError(f"grid: unknown keys {unknown} (known: {', '.join(_GRID_KEYS)})")
    out = {_GRID_KEYS[k]: [real(v, f"grid[{k!r}]") for v in (vs if hasattr(vs, "__iter__") and not isinstance(vs, str) else [vs])]
           for k, vs in grid.items()}
    if base is not None:
        out["base"] = json.loads(_configuration_json(base))
    paths = [r.name for r in recordings(traces)]
    out.update(seeds=whole(seeds, "seeds"), hours=real(hours, "hours"), recordings=paths, vehicle_gate=vehicle_gate)
    if mapping is not None:
        out["mapping"] = os.fspath(mapping)
    return json.dumps(out, sort_keys=True)


@functools.lru_cache(maxsize=1)
def _example_result() -> "SweepResult":
    """The docstrings' example sweep (two jolt thresholds in g, one seed per
    catalogue scenario, no generated driving), run once per process."""
    return sweep(grid={"jolt_g": [4, 5]}, seeds=1, hours=0)


@dataclass
class Recording:
    """One recording of a sweep: its name (in the plan, the tables and
    errors) and the data in hand (`data`: what read_trace returned, as
    edited; an ArrowTrace; a dict of Arrow tables; a Parquet/Arrow folder),
    or None for a path the library reads itself (with the plan's mapping)."""

    name: str
    data: object = None


def _is_pattern(text: str) -> bool:
    return any(c in text for c in "*?[")


def recordings(traces: Traces) -> list[Recording]:
    """The recordings `traces` names, in order: paths of any format the
    library reads, folders in the Parquet/Arrow layout, globs of either
    (expanded, sorted; a glob matching nothing stays as it is, so its task
    fails and says so), what read_trace returned (as edited: never read
    again from its path), `hearth.parquet.ArrowTrace` values or dicts of
    Arrow tables."""
    if isinstance(traces, (str, os.PathLike, dict)) or hasattr(traces, "tables"):
        traces = [traces]
    out = []
    for trace in traces:
        if not isinstance(trace, (str, os.PathLike)):
            out.append(Recording(recording_name(trace), trace))
            continue
        text_ = os.fspath(trace)
        for name in (sorted(glob.glob(text_, recursive=True)) or [text_]) if _is_pattern(text_) else [text_]:
            out.append(Recording(name, name if _arrow_folder(name) else None))
    return out


def _arrow_folder(path: str) -> bool:
    try:
        from .parquet import is_arrow_trace
    except ImportError:
        return False
    return is_arrow_trace(path)


def run_task(spec_json: str, index: int) -> bytes:
    """Task `index` of the plan `spec_json`: one trace through the detector,
    its extraction as bytes for `SweepPlan.merge`. Picklable arguments and
    result: what a worker process or a Dask task runs. A recording that
    cannot be read raises BadInputError naming it.

    Example:

    >>> plan = spec(grid={"jolt_g": [4, 5]}, seeds=1, hours=0)
    >>> parts = [run_task(plan, i) for i in range(len(SweepPlan(plan)))]
    >>> SweepPlan(plan).merge(parts).export("sweep.csv") == _example_result().export("sweep.csv")
    True
    """
    return SweepPlan(spec_json).run_task(index)


class SweepPlan:
    """A sweep plan in the lab library (libhearth_lab.so, `_ffi.lab`): its
    tasks and, once merged, its result.

    Example:

    >>> len(SweepPlan(spec(grid={"jolt_g": [4]}, seeds=1, hours=0)))   # one task per scenario and seed
    30
    """

    def __init__(self, spec_json: str) -> None:
        self.spec = spec_json
        self._lab = lab()
        self._handle = created(self._lab.hearth_sweep_plan, text(spec_json, "spec_json"), library=self._lab)

    def __len__(self) -> int:
        """How many tasks the plan has."""
        count = ffi.new("int64_t *")
        raise_for(self._lab.hearth_sweep_task_count(self._handle, count), self._handle, library=self._lab)
        return count[0]

    def run_task(self, index: int) -> bytes:
        """Runs task `index` (safe from several threads at once on one plan);
        its extraction's bytes.

        Example:

        >>> len(SweepPlan(spec(grid={"jolt_g": [4]}, seeds=1, hours=0)).run_task(0)) > 0
        True
        """
        return take_bytes(self._lab.hearth_sweep_run_task, self._handle, whole(index, "index"), library=self._lab)

    def run_trace(self, trace: Any, name: str) -> bytes:
        """A recording held in memory through this plan's extraction, as the
        recording task `name` would run it; place the bytes where that
        recording stands in the task order when merging. `trace`: an object
        with `handle(library)` (hearth.parquet's ArrowTrace builds one from
        Arrow chunks), or a trace handle the lab library made.

        Example:

        >>> from hearth.parquet import ArrowTrace
        >>> plan = SweepPlan(spec(grid={"jolt_g": [4]}, seeds=1, hours=0))
        >>> len(plan.run_trace(ArrowTrace.from_recording("../shared/datasets/phone-drop-freefall/raw_data/fall_1"), "drop")) > 0
        True
        """
        handle = trace.handle(self._lab) if hasattr(trace, "handle") else trace
        return take_bytes(self._lab.hearth_sweep_run_trace, self._handle, handle, text(name, "name"), library=self._lab)

    def run_recording(self, index: int, recording: "Recording") -> bytes:
        """Task `index`, a recording: read by the library from its path, or
        built from the data in hand (`hearth.trace.trace_handle`).

        Example:

        >>> plan = SweepPlan(spec(["../shared/datasets/phone-drop-freefall/raw_data/fall_1"], {"jolt_g": [4]}, seeds=1, hours=0))
        >>> plan.run_recording(0, recordings("../shared/datasets/phone-drop-freefall/raw_data/fall_1")[0]) == plan.run_task(0)
        True
        """
        if recording is None or recording.data is None:
            return self.run_task(index)
        return self.run_trace(trace_handle(recording.data, library=self._lab), recording.name)

    def merge(self, extractions: list[bytes], failures: Sequence[str] = ()) -> "SweepResult":
        """Every combination judged over the extractions, given in task order
        (failed recordings left out, as the command leaves them out).

        Example:

        >>> plan = SweepPlan(spec(grid={"jolt_g": [4]}, seeds=1, hours=0))
        >>> plan.merge([plan.run_task(i) for i in range(len(plan))]).table.recall.tolist()
        [1.0]
        """
        keep = [ffi.from_buffer("uint8_t[]", e) for e in extractions]
        pointers = ffi.new("const uint8_t *[]", max(1, len(keep)))
        for i, b in enumerate(keep):
            pointers[i] = b
        sizes = ffi.new("int64_t[]", [len(e) for e in extractions] or [0])
        raise_for(self._lab.hearth_sweep_merge(self._handle, len(extractions), pointers, sizes), self._handle, library=self._lab)
        return SweepResult(self, list(failures))


@dataclass
class SweepResult:
    """A merged sweep: the command's exports as DataFrames and bytes.

    `table` one row per combination (sweep.csv); `outcomes` the tidy long
    table, one row per combination × trace (outcomes.csv); `jolts` the
    per-jolt feature table with the label is_crash (jolts.csv); `failures`
    the recordings that could not be read (which, why). The tables' columns
    are the exports' in the package's naming rule (jolt_m_s2 is jolt_mps2,
    spin_rad_s spin_radps, rejected_by_freeFallVeto
    rejected_by_free_fall_veto); the exported files are the command's.

    Example (`_example_result()`: two jolt thresholds, one seed per scenario):

    >>> _example_result()
    SweepResult(2 combinations, 22 jolts)
    """

    plan: SweepPlan
    failures: list = field(default_factory=list)

    _EXPORTS = {
        "sweep.csv": lib.HEARTH_SWEEP_TABLE,
        "outcomes.csv": lib.HEARTH_SWEEP_OUTCOMES,
        "jolts.csv": lib.HEARTH_SWEEP_JOLTS,
        "configurations.json": lib.HEARTH_SWEEP_CONFIGURATIONS,
        "sweep.json": lib.HEARTH_SWEEP_RESULT,
        "report.html": lib.HEARTH_SWEEP_REPORT,
    }

    def export(self, name: str) -> bytes:
        """One of the files `impact sweep --out` writes, byte for byte
        (sweep.csv, outcomes.csv, jolts.csv, configurations.json, sweep.json, report.html).

        Example:

        >>> _example_result().export("sweep.csv").split(b",")[:2]
        [b'combination', b'jolt_g']
        """
        if name not in self._EXPORTS:
            raise ValueError(f"export: one of {', '.join(self._EXPORTS)}, not {name!r}")
        return take_bytes(self.plan._lab.hearth_sweep_export, self.plan._handle, self._EXPORTS[name], library=self.plan._lab)

    def _frame(self, name: str) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(self.export(name))).rename(columns=export_name)

    @property
    def table(self) -> pd.DataFrame:
        """One row per combination (sweep.csv): its thresholds (jolt_g in g,
        spin_radps in rad/s, pressure_hpa in hPa, moving_mps in m/s,
        free_fall_s in s), recall, precision, false alarms per 1000 h, …

        Example:

        >>> _example_result().table[["jolt_g", "recall", "false_alarms"]]
           jolt_g  recall  false_alarms
        0     4.0   1.000             0
        1     5.0   0.875             0
        """
        return self._frame("sweep.csv")

    @property
    def outcomes(self) -> pd.DataFrame:
        """One row per combination and trace (outcomes.csv): what was
        expected, how many reports (hours: the trace's hours of data).

        Example:

        >>> _example_result().outcomes.groupby("jolt_g").as_expected.mean().round(3).tolist()
        [1.0, 0.967]
        """
        return self._frame("outcomes.csv")

    @property
    def jolts(self) -> pd.DataFrame:
        """One row per jolt (jolts.csv): every feature the conditions read,
        units in the names (jolt_mps2, spin_radps, pressure_rise_hpa, …),
        and the label is_crash.

        Example:

        >>> _example_result().jolts.is_crash.value_counts().sort_index().tolist()
        [14, 8]
        """
        return self._frame("jolts.csv")

    @property
    def configurations(self) -> list[dict[str, Any]]:
        """Each combination's full configuration (configurations.json).

        Example:

        >>> len(_example_result().configurations)
        2
        """
        return json.loads(self.export("configurations.json"))

    def write(self, folder: str | os.PathLike, pick: int | None = None) -> None:
        """Writes every file of `impact sweep --out FOLDER [--pick N]`.

        Example:

        >>> _example_result().write("/tmp/hearth-doctest-sweep")
        """
        raise_for(self.plan._lab.hearth_sweep_write(self.plan._handle, text(os.fspath(folder), "folder"), -1 if pick is None else whole(pick, "pick")), self.plan._handle, library=self.plan._lab)

    def _repr_html_(self) -> str:
        table = self.table
        columns = ["combination", "jolt_g", "spin_radps", "pressure_hpa", "moving_mps", "free_fall_s", "recall", "precision", "false_alarms_per_1000h", "misses", "false_alarms"]
        shown = table[[c for c in columns if c in table.columns]]
        note = f"<p>{len(table)} combinations; {len(self.failures)} recordings could not be read</p>" if self.failures else f"<p>{len(table)} combinations</p>"
        return "<div><b>hearth sweep</b>" + note + shown.to_html(index=False, float_format=lambda v: f"{v:.3g}") + "</div>"

    def __repr__(self) -> str:
        return f"SweepResult({len(self.table)} combinations, {len(self.jolts)} jolts)"


def sweep(traces: Traces = (), grid: ThresholdGrid | None = None, *, base: ConfigLike = None, seeds: int = 5, hours: float = 100.0,
          mapping: PathLike | None = None, vehicle_gate: str = "recording", n_jobs: int = 1, executor: Executor | None = None,
          progress: bool | Any = True) -> SweepResult:
    """`hearth impact sweep PATH... --jolt-g … --seeds S --hours H` in Python:
    every trace through the detector once (in `n_jobs` threads, or on
    `executor`: any concurrent.futures executor, a process pool included),
    then every combination judged. The result's exports are byte-identical
    to the command's `--out` files for the same arguments. `traces`: see
    `recordings` (paths with `mapping` for CSV, what read_trace returned as
    edited, Arrow tables, Parquet folders). A recording that cannot be read
    is reported in `failures` and left out, as the command does.
    `progress`: True shows tasks done, hours and time left once the sweep
    has run a second (stderr in a terminal, an updating line in Jupyter),
    False nothing, a callable is called with the `hearth._progress.Progress`
    after every task.

    Example:

    >>> sweep(grid={"jolt_g": [4, 5]}, seeds=1, hours=0, n_jobs=2).export("sweep.csv") == _example_result().export("sweep.csv")
    True
    """
    from ._progress import Progress

    inputs = recordings(traces)
    plan_json = spec([r.name for r in inputs], grid, base=base, seeds=seeds, hours=hours, mapping=mapping, vehicle_gate=vehicle_gate)
    plan = SweepPlan(plan_json)
    n = len(plan)
    generated = n - len(inputs)
    own = executor is None
    pool = ThreadPoolExecutor(max_workers=max(1, int(n_jobs))) if own else executor
    tracker = Progress("hearth sweep", n, progress, unit="h", delay_s=1.0)
    try:
        futures = []
        for i in range(n):
            recording = inputs[i - generated] if i >= generated else None
            if own:
                futures.append(pool.submit(plan.run_recording, i, recording))
            elif recording is not None and recording.data is not None:
                futures.append(pool.submit(_run_recording, plan_json, i, recording))
            else:
                futures.append(pool.submit(run_task, plan_json, i))
        extractions, failures = [], []
        for future in futures:
            try:
                extractions.append(future.result())
                tracker.step(extraction_hours(extractions[-1]) if tracker.printing or tracker.callback else 0.0)
            except BadInputError as error:
                failures.append(str(error))
                tracker.step(0.0, failed=True)
    finally:
        tracker.close()
        if own:
            pool.shutdown()
    return plan.merge(extractions, failures)


def extraction_hours(data: bytes) -> float:
    """Hours of data a task's extraction covered (its source's hours)."""
    return float(json.loads(data)["source"].get("hours", 0.0))


def _run_recording(spec_json: str, index: int, recording: Recording) -> bytes:
    """`SweepPlan(spec_json).run_recording(index, recording)`: what a process pool runs."""
    return SweepPlan(spec_json).run_recording(index, recording)
