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

import glob
import io
import json
import os
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

import pandas as pd

from ._ffi import BadInputError, created, ffi, lab, lib, raise_for, take_bytes, text
from .impact import _configuration_json
from .trace import recording_name, trace_handle

_GRID_KEYS = ("jolt_g", "spin_rad_s", "pressure_hpa", "moving_m_s", "free_fall_s")


def spec(traces=(), grid=None, *, base=None, seeds: int = 5, hours: float = 100.0, mapping=None, vehicle_gate: str = "recording") -> str:
    """The sweep's plan as the JSON text the library reads (docs/guides/c-abi.md).

    `grid`: {"jolt_g": [g…], "spin_rad_s": […], "pressure_hpa": […],
    "moving_m_s": […], "free_fall_s": […]}, any subset (the base's value for
    the rest, as the command's flags); `base`: the settings every combination
    starts from (ImpactConfig, dict, JSON or a file, as `--config`);
    `seeds` per catalogue scenario; `hours` of generated driving; `traces`
    recordings swept as driving with no known crash."""
    grid = dict(grid or {})
    unknown = sorted(set(grid) - set(_GRID_KEYS))
    if unknown:
        raise ValueError(f"grid: unknown keys {unknown} (known: {', '.join(_GRID_KEYS)})")
    out = {k: [float(v) for v in (vs if hasattr(vs, "__iter__") else [vs])] for k, vs in grid.items()}
    if base is not None:
        out["base"] = json.loads(_configuration_json(base))
    paths = [r.name for r in recordings(traces)]
    out.update(seeds=int(seeds), hours=float(hours), recordings=paths, vehicle_gate=vehicle_gate)
    if mapping is not None:
        out["mapping"] = os.fspath(mapping)
    return json.dumps(out, sort_keys=True)


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


def recordings(traces) -> list[Recording]:
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
    cannot be read raises BadInputError naming it."""
    return SweepPlan(spec_json).run_task(index)


class SweepPlan:
    """A sweep plan in the lab library (libhearth_lab.so, `_ffi.lab`): its
    tasks and, once merged, its result."""

    def __init__(self, spec_json: str):
        self.spec = spec_json
        self._lab = lab()
        self._handle = created(self._lab.hearth_sweep_plan, text(spec_json), library=self._lab)

    def __len__(self) -> int:
        count = ffi.new("int64_t *")
        raise_for(self._lab.hearth_sweep_task_count(self._handle, count), self._handle, library=self._lab)
        return count[0]

    def run_task(self, index: int) -> bytes:
        """Runs task `index` (safe from several threads at once on one plan)."""
        return take_bytes(self._lab.hearth_sweep_run_task, self._handle, int(index), library=self._lab)

    def run_trace(self, trace, name: str) -> bytes:
        """A recording held in memory through this plan's extraction, as the
        recording task `name` would run it; place the bytes where that
        recording stands in the task order when merging. `trace`: an object
        with `handle(library)` (hearth.parquet's ArrowTrace builds one from
        Arrow chunks), or a trace handle the lab library made."""
        handle = trace.handle(self._lab) if hasattr(trace, "handle") else trace
        return take_bytes(self._lab.hearth_sweep_run_trace, self._handle, handle, text(name), library=self._lab)

    def run_recording(self, index: int, recording: "Recording") -> bytes:
        """Task `index`, a recording: read by the library from its path, or
        built from the data in hand (`hearth.trace.trace_handle`)."""
        if recording is None or recording.data is None:
            return self.run_task(index)
        return self.run_trace(trace_handle(recording.data, library=self._lab), recording.name)

    def merge(self, extractions: list[bytes], failures: list[str] = ()) -> "SweepResult":
        """Every combination judged over the extractions, given in task order
        (failed recordings left out, as the command leaves them out)."""
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
    the recordings that could not be read (which, why)."""

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
        """One of the files `impact sweep --out` writes, byte for byte."""
        if name not in self._EXPORTS:
            raise ValueError(f"export: one of {', '.join(self._EXPORTS)}, not {name!r}")
        return take_bytes(self.plan._lab.hearth_sweep_export, self.plan._handle, self._EXPORTS[name], library=self.plan._lab)

    def _frame(self, name: str) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(self.export(name)))

    @property
    def table(self) -> pd.DataFrame:
        return self._frame("sweep.csv")

    @property
    def outcomes(self) -> pd.DataFrame:
        return self._frame("outcomes.csv")

    @property
    def jolts(self) -> pd.DataFrame:
        return self._frame("jolts.csv")

    @property
    def configurations(self) -> list:
        return json.loads(self.export("configurations.json"))

    def write(self, folder: str | os.PathLike, pick: int | None = None) -> None:
        """Writes every file of `impact sweep --out FOLDER [--pick N]`."""
        raise_for(self.plan._lab.hearth_sweep_write(self.plan._handle, text(os.fspath(folder)), -1 if pick is None else int(pick)), self.plan._handle, library=self.plan._lab)

    def _repr_html_(self) -> str:
        table = self.table
        columns = ["combination", "jolt_g", "spin_rad_s", "pressure_hpa", "moving_m_s", "free_fall_s", "recall", "precision", "false_alarms_per_1000h", "misses", "false_alarms"]
        shown = table[[c for c in columns if c in table.columns]]
        note = f"<p>{len(table)} combinations; {len(self.failures)} recordings could not be read</p>" if self.failures else f"<p>{len(table)} combinations</p>"
        return "<div><b>hearth sweep</b>" + note + shown.to_html(index=False, float_format=lambda v: f"{v:.3g}") + "</div>"

    def __repr__(self) -> str:
        return f"SweepResult({len(self.table)} combinations, {len(self.jolts)} jolts)"


def sweep(traces=(), grid=None, *, base=None, seeds: int = 5, hours: float = 100.0, mapping=None,
          vehicle_gate: str = "recording", n_jobs: int = 1, executor: Executor | None = None, progress=True) -> SweepResult:
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
    after every task."""
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
