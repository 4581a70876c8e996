"""The threshold sweep on a cluster: one detector pass per trace, the
passes sent in batches, one exact merge.

The plan is the single-process sweep's (`hearth.spec`): every catalogue
scenario × seed, the generated drives, then one task per recording, in the
order given. The tasks are cut into contiguous batches (`plan_batches`),
each one cluster task: Dask's own cost (scheduling, messages, the result's
transfer, a few milliseconds) is paid per batch, not per trace. A batch
takes only the plan's JSON text (on Dask one shared task of the graph, so
it moves once per worker, not once per batch), the range of its tasks and,
for a recording in hand (frames as read_trace returned them and edited,
Arrow tables, a Parquet/Arrow folder), that recording. It returns its
traces' extractions as one buffer with their sizes, and per task its kind,
reason, seconds and hours (`SweepBatch`). The client hands the extractions,
in task order, to the library's merge. However the tasks were batched, and
however many workers ran the batches, in whatever order, on whichever
retries, the merge sees the same bytes in the same order, so every export is
byte-identical to `hearth.sweep` and `hearth impact sweep --out` on the same
arguments.
"""

from __future__ import annotations

import functools
import math
import os
import time
import uuid
from dataclasses import dataclass, field

import numpy as np
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


def _extract_timed(spec_json: str, index: int, recording: Recording | None) -> tuple[bytes, float]:
    """`_extract` and the CPU seconds it took on the thread that ran it."""
    started = time.thread_time()
    data = _extract(spec_json, index, recording)
    return data, time.thread_time() - started


def plan_batches(total: int, slots: int, *, per_slot: int = 2, count: int | None = None) -> list[range]:
    """The plan's tasks 0 … total-1 cut into contiguous batches, in order;
    each batch is one cluster task.

    By default (`count` None) the cut is guided: each batch takes
    ceil(left / (per_slot × slots)) of the tasks still left, at least one.
    The first batches are large, so a sweep is a few dozen cluster tasks
    rather than one per trace (Dask costs a few milliseconds of CPU per task
    on the workers and the scheduler, a trace's pass tens of milliseconds),
    and the last ones are single tasks, so the workers run out of work
    within about one trace's time of each other. `slots`: the tasks that run
    at once (the cluster's worker threads); `per_slot` (≥ 1, default 2):
    how finely the first cut divides the work among them (1: fewer, larger
    batches, a longer wait for the last one; 4: more batches, more per-task
    cost). With `count`, exactly min(count, total) batches as even as
    possible (the first ones one task longer). Batching changes no result.
    Cost: O(batches); about per_slot × slots × (1 + ln(total / (per_slot × slots))) batches.

    Example:

    >>> [len(r) for r in plan_batches(20, 2)]
    [5, 4, 3, 2, 2, 1, 1, 1, 1]
    >>> plan_batches(10, 2, count=3)
    [range(0, 4), range(4, 7), range(7, 10)]
    """
    if slots < 1:
        raise ValueError(f"slots: at least 1, not {slots}")
    if per_slot < 1:
        raise ValueError(f"per_slot: at least 1, not {per_slot}")
    if count is not None:
        if count < 1:
            raise ValueError(f"batches: at least 1, not {count}")
        count = min(count, total)
        sizes = [total // count + (1 if i < total % count else 0) for i in range(count)]
    else:
        sizes, left = [], total
        while left > 0:  # every turn takes at least one task
            sizes.append(max(1, math.ceil(left / (per_slot * slots))))
            left -= sizes[-1]
    cut, start = [], 0
    for size in sizes:
        cut.append(range(start, start + size))
        start += size
    return cut


@dataclass
class SweepBatch:
    """What one batch sends back, compactly: the extractions of its tasks
    that ran ("ok") concatenated in `data`, and one entry per task of the
    batch (in task order, from `start`) in `kinds` ("ok" | "unreadable" |
    "time limit" | "error"), `errors` (the reason, "" when ok; the library's
    message names an unreadable recording, the client adds the task's name
    to the others), `sizes` (bytes of each extraction in `data`, 0 without
    one), `seconds` (wall clock on the worker), `cpu_s` (CPU seconds of the
    pass itself, on the thread that ran it) and `hours` (of data swept);
    `worker` where it ran."""

    start: int
    kinds: list
    errors: list
    sizes: np.ndarray
    seconds: np.ndarray
    cpu_s: np.ndarray
    hours: np.ndarray
    data: bytes
    worker: str

    def outcomes(self, batch: int, names: list[str]) -> list[Outcome]:
        """One Outcome per task (`names`: the batch's tasks' names), each
        extraction a view into `data` (no copy)."""
        view = memoryview(self.data)
        ends = np.cumsum(self.sizes).tolist()
        out = []
        for k, kind in enumerate(self.kinds):
            data = view[ends[k] - int(self.sizes[k]):ends[k]] if kind == "ok" else None
            error = f"{names[k]}: {self.errors[k]}" if kind in ("time limit", "error") else self.errors[k]
            out.append(Outcome(self.start + k, names[k], kind, data=data, error=error, seconds=float(self.seconds[k]),
                               amount=float(self.hours[k]), worker=self.worker, batch=batch))
        return out


def run_batch(spec_json: str, start: int, stop: int, inputs: dict[int, Recording] | None = None,
              time_limit_s: float | None = None) -> SweepBatch:
    """Tasks start … stop-1 of the plan on this worker, one after the other:
    each one's extraction, or why there is none (an input that cannot be
    read, named by the library; the time limit, per task; any other error),
    the others unaffected. `inputs`: the recordings held in memory among
    them, by task index (the library reads the others itself). What a
    cluster runs: every argument and the result pickle."""
    where = worker_name()
    inputs = inputs or {}
    count = stop - start
    kinds, errors = ["ok"] * count, [""] * count
    sizes, seconds, cpu, hours = np.zeros(count, np.int64), np.zeros(count), np.zeros(count), np.zeros(count)
    parts = []
    for k in range(count):
        started = time.perf_counter()
        try:
            data, cpu[k] = run_limited(_extract_timed, (spec_json, start + k, inputs.get(start + k)), time_limit_s)
        except BadInputError as error:
            kinds[k], errors[k] = "unreadable", str(error)
        except TimeLimitExceeded as error:
            kinds[k], errors[k] = "time limit", str(error)
        except Exception as error:  # noqa: BLE001 - reported as this task's outcome, the batch goes on
            kinds[k], errors[k] = "error", f"{type(error).__name__}: {error}"
        else:
            parts.append(data)
            sizes[k], hours[k] = len(data), extraction_hours(data)
        seconds[k] = time.perf_counter() - started
    return SweepBatch(start, kinds, errors, sizes, seconds, cpu, hours, b"".join(parts), where)


@dataclass
class DistributedSweepResult(SweepResult):
    """A merged sweep (the exports of `hearth.SweepResult`, byte-identical to
    the single-process sweep's) and how it ran: `failed` one row per task
    without a result (index, name, kind: unreadable | time limit | error,
    reason), `summary` one row per worker (tasks, failed, hours of data,
    busy seconds, hours per busy second; "all": hours per wall-clock second),
    `wall_s` (tasks and merge), `dashboard` (the Dask dashboard's address,
    when there was one), `merge_s` and `merged_bytes` (the merge's share),
    `batches` (the cluster tasks that carried the plan's tasks) and
    `task_cpu_s` (the CPU seconds the detector passes themselves took on the
    workers: a worker's CPU time beyond it is the cluster's overhead)."""

    failed: pd.DataFrame = field(default_factory=pd.DataFrame)
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    wall_s: float = 0.0
    dashboard: str | None = None
    #: The merge on the client: seconds, and the extractions' bytes it read.
    merge_s: float = 0.0
    merged_bytes: int = 0
    batches: int = 0
    task_cpu_s: float = 0.0

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
          n_workers: int | None = None, batches: int | None = None) -> DistributedSweepResult:
    """`hearth.sweep` with the traces' detector passes as tasks on a cluster.

    `client`: None starts a LocalCluster of `n_workers` (default: the
    cores) single-threaded worker processes here and closes it afterwards; a
    scheduler address ("tcp://10.0.0.5:8786") or a `distributed.Client`
    runs on that cluster; a `concurrent.futures.Executor` (a process pool)
    runs without Dask. `traces`: see `recordings` (paths, globs, Parquet/Arrow
    recordings). `time_limit_s`: a task (one trace) running longer is given
    up, reported and left out (None: no limit). `progress`: True prints a line
    a person can follow and a per-worker summary at the end (hours of data
    per second), False nothing, a callable is called with the `Progress`
    after every task. `batches`: how many cluster tasks carry the plan's
    tasks (None: `plan_batches`' guided cut for the cluster's worker threads
    when the sweep starts; an int n: n even contiguous batches).

    Every export of the result is byte-identical to `hearth.sweep` (and the
    command's `--out` files) on the same arguments, on any number of workers
    and any batching. A recording that cannot be read, a task over its time
    limit or lost with its workers is reported by name in `failures` and
    `failed`, and the rest are merged (the command leaves a failed recording
    out the same way). On Dask a batch whose worker dies is run again
    elsewhere.
    Cost: one detector pass per trace on the workers; per batch, one cluster
    task; the merge (O(combinations × jolts)) and every extraction's bytes
    on the client."""
    inputs = recordings(traces)
    plan_json = spec([r.name for r in inputs], grid, base=base, seeds=seeds, hours=hours, mapping=mapping, vehicle_gate=vehicle_gate)
    plan = SweepPlan(plan_json)
    total = len(plan)
    generated = total - len(inputs)
    names = [f"task {i}" for i in range(generated)] + [r.name for r in inputs]
    held = {generated + k: r for k, r in enumerate(inputs) if r.data is not None}  # the rest are paths the library reads
    token = uuid.uuid4().hex[:8]
    with Backend(client, n_workers=n_workers) as backend:
        started = time.perf_counter()  # the cluster's start-up is not the sweep's
        tracker = Progress("hearth sweep", total, progress, unit="h", dashboard=backend.dashboard)
        cut = plan_batches(total, backend.slots, count=batches)
        arguments = [(r.start, r.stop, {i: held[i] for i in r if i in held} or None, time_limit_s) for r in cut]
        outcomes, task_cpu_s = {}, 0.0
        for b, batch in backend.run(f"hearth-sweep-{token}", run_batch, arguments, shared=plan_json):
            if isinstance(batch, BaseException):  # the batch was lost (its workers died, every time it was tried)
                got = [Outcome(i, names[i], "error", error=f"{names[i]}: {type(batch).__name__}: {batch}", batch=b) for i in cut[b]]
            else:
                got = batch.outcomes(b, names[cut[b].start:cut[b].stop])
                task_cpu_s += float(batch.cpu_s.sum())
                if "time limit" in batch.kinds:
                    backend.abandoned(batch.worker)
            for outcome in got:
                outcomes[outcome.index] = outcome
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
        merged_bytes=sum(len(e) for e in extractions), batches=len(cut), task_cpu_s=task_cpu_s,
    )
    if progress is True:
        print_summary("hearth sweep", result.summary, result.wall_s)
    return result
