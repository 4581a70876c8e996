"""The threshold sweep on a cluster: one detector pass per trace as a task,
one exact merge.

The plan is the single-process sweep's (`hearth.spec`): every catalogue
scenario × seed, the generated drives, then one task per recording, in the
order given. A task takes only the plan's JSON text (on Dask one shared
task of the graph, so it moves once per worker, not once per task), its
index and, for a recording in hand (frames as read_trace returned them and
edited, Arrow tables, a Parquet/Arrow folder), that recording, and returns
the trace's extraction as bytes; the client hands the extractions, in task order, to
the library's merge. However many workers ran the tasks, in whatever order,
on whichever retries, the merge sees the same bytes in the same order, so
every export is byte-identical to `hearth.sweep` and `hearth impact sweep
--out` on the same arguments.
"""

from __future__ import annotations

import functools
import os
import time
import uuid
from dataclasses import dataclass, field

import pandas as pd

from .._ffi import BadInputError
from ..sweep import Recording, SweepPlan, SweepResult, extraction_hours, recordings, spec
from ._backend import Backend, Outcome, Progress, TimeLimitExceeded, print_summary, run_limited, summary, worker_name


@functools.lru_cache(maxsize=8)
def _plan(spec_json: str) -> SweepPlan:
    """The plan, made once per worker process (tasks share it: the library
    runs tasks concurrently on one plan)."""
    return SweepPlan(spec_json)


def _extract(spec_json: str, index: int, recording: Recording | None) -> bytes:
    return _plan(spec_json).run_recording(index, recording)


def run(spec_json: str, index: int, name: str, recording: Recording | None = None, time_limit_s: float | None = None) -> Outcome:
    """Task `index` of the plan on this worker: its extraction's bytes, or
    why there are none (an input that cannot be read, named by the library;
    the time limit). What a cluster runs: every argument and the result pickle."""
    started = time.perf_counter()
    where = worker_name()
    try:
        data = run_limited(_extract, (spec_json, index, recording), time_limit_s)
    except BadInputError as error:
        return Outcome(index, name, "unreadable", error=str(error), seconds=time.perf_counter() - started, worker=where)
    except TimeLimitExceeded as error:
        return Outcome(index, name, "time limit", error=f"{name}: {error}", seconds=time.perf_counter() - started, worker=where)
    return Outcome(index, name, "ok", data=data, seconds=time.perf_counter() - started, amount=extraction_hours(data), worker=where)


@dataclass
class DistributedSweepResult(SweepResult):
    """A merged sweep (the exports of `hearth.SweepResult`, byte-identical to
    the single-process sweep's) and how it ran: `failed` one row per task
    without a result (index, name, kind: unreadable | time limit | error,
    reason), `summary` one row per worker (tasks, failed, hours of data,
    busy seconds, hours per busy second; "all": hours per wall-clock second),
    `wall_s` (tasks and merge), `dashboard` (the Dask dashboard's address,
    when there was one), `merge_s` and `merged_bytes` (the merge's share)."""

    failed: pd.DataFrame = field(default_factory=pd.DataFrame)
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    wall_s: float = 0.0
    dashboard: str | None = None
    #: The merge on the client: seconds, and the extractions' bytes it read.
    merge_s: float = 0.0
    merged_bytes: int = 0

    def write_parquet(self, folder) -> None:
        """sweep.parquet, outcomes.parquet and jolts.parquet (the CSV exports'
        tables as Parquet) and failed.parquet in `folder`."""
        from ..parquet import write_table

        os.makedirs(folder, exist_ok=True)
        for name, frame in (("sweep", self.table), ("outcomes", self.outcomes), ("jolts", self.jolts), ("failed", self.failed)):
            write_table(frame, os.path.join(folder, f"{name}.parquet"))

    def __repr__(self) -> str:
        return f"DistributedSweepResult({len(self.table)} combinations, {len(self.jolts)} jolts, {len(self.failed)} failed tasks)"


def sweep(traces=(), grid=None, client=None, *, base=None, seeds: int = 5, hours: float = 100.0, mapping=None,
          vehicle_gate: str = "recording", time_limit_s: float | None = None, progress=True,
          n_workers: int | None = None) -> DistributedSweepResult:
    """`hearth.sweep` with each trace's detector pass a task on a cluster.

    `client`: None starts a LocalCluster of `n_workers` (default: the
    cores) single-threaded worker processes here and closes it afterwards; a
    scheduler address ("tcp://10.0.0.5:8786") or a `distributed.Client`
    runs on that cluster; a `concurrent.futures.Executor` (a process pool)
    runs without Dask. `traces`: see `recordings` (paths, globs, Parquet/Arrow
    recordings). `time_limit_s`: a task running longer is given up,
    reported and left out (None: no limit). `progress`: True prints a line
    a person can follow and a per-worker summary at the end (hours of data
    per second), False nothing, a callable is called with the `Progress`
    after every task.

    Every export of the result is byte-identical to `hearth.sweep` (and the
    command's `--out` files) on the same arguments, on any number of workers.
    A recording that cannot be read, a task over its time limit or lost with
    its workers is reported by name in `failures` and `failed`, and the rest
    are merged (the command leaves a failed recording out the same way). On
    Dask a task whose worker dies is run again elsewhere.
    Cost: one detector pass per trace on the workers; the merge
    (O(combinations × jolts)) and every extraction's bytes on the client."""
    inputs = recordings(traces)
    plan_json = spec([r.name for r in inputs], grid, base=base, seeds=seeds, hours=hours, mapping=mapping, vehicle_gate=vehicle_gate)
    plan = SweepPlan(plan_json)
    total = len(plan)
    generated = total - len(inputs)
    token = uuid.uuid4().hex[:8]
    with Backend(client, n_workers=n_workers) as backend:
        started = time.perf_counter()  # the cluster's start-up is not the sweep's
        tracker = Progress("hearth sweep", total, progress, unit="h", dashboard=backend.dashboard)
        arguments = []
        for i in range(total):
            recording = inputs[i - generated] if i >= generated else None
            arguments.append((i, recording.name if recording else f"task {i}", recording, time_limit_s))
        outcomes = {}
        for i, outcome in backend.run(f"hearth-sweep-{token}", run, arguments, shared=plan_json):
            if isinstance(outcome, BaseException):
                name = arguments[i][1]
                outcome = Outcome(i, name, "error", error=f"{name}: {type(outcome).__name__}: {outcome}")
            if outcome.kind == "time limit":
                backend.abandoned(outcome.worker)
            outcomes[i] = outcome
            tracker.step(outcome)
        dashboard = backend.dashboard
        tasks_s = time.perf_counter() - started
    ordered = [outcomes[i] for i in range(total)]
    failed = [o for o in ordered if o.kind != "ok"]
    extractions = [o.data for o in ordered if o.kind == "ok"]
    merge_started = time.perf_counter()
    merged = plan.merge(extractions, [o.error for o in failed])
    merge_s = time.perf_counter() - merge_started
    result = DistributedSweepResult(
        plan, merged.failures,
        failed=pd.DataFrame([{"index": o.index, "name": o.name, "kind": o.kind, "reason": o.error} for o in failed], columns=["index", "name", "kind", "reason"]),
        summary=summary(ordered, tasks_s), wall_s=tasks_s + merge_s, dashboard=dashboard, merge_s=merge_s,
        merged_bytes=sum(len(e) for e in extractions),
    )
    if progress is True:
        print_summary("hearth sweep", result.summary, result.wall_s)
    return result
