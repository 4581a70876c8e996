"""Where tasks run: a Dask cluster (started here, reached at an address, or
a client given) or any concurrent.futures executor, behind one small
interface; what every task reports back; time limits; progress."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from concurrent.futures import Executor
from concurrent.futures import as_completed as executor_completed
from dataclasses import dataclass

import pandas as pd

from .._progress import Progress  # noqa: F401  (hearth.distributed.Progress: one progress for every long call)


class TimeLimitExceeded(Exception):
    """A task ran longer than its limit (the computation is abandoned)."""


@dataclass
class Outcome:
    """What one task sends back: its result (or why there is none) and how it went.

    `kind` is "ok", "unreadable" (the library could not read the input: its
    reason in `error`, naming it), "other library" (a replay partition
    planned, or its checkpoint written, on another libhearth build than
    the worker's), "time limit" or "error" (anything else);
    `seconds` the time the task took on its worker, `amount` the work it
    covered (hours of data for a sweep, fixes for a replay), `worker` where
    it ran, `batch` the cluster task that carried it (a sweep sends its
    tasks in batches, `plan_batches`; -1: a cluster task of its own)."""

    index: int
    name: str
    kind: str
    data: object = None
    error: str = ""
    seconds: float = 0.0
    amount: float = 0.0
    worker: str = ""
    batch: int = -1


def worker_name() -> str:
    """This process as a worker: its Dask address, else host and pid."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{os.uname().nodename}:{os.getpid()}"


def run_limited(function, arguments: tuple, limit_s: float | None):
    """`function(*arguments)`, or TimeLimitExceeded after `limit_s` seconds.

    The call runs in a thread of its own so the waiting side can give up:
    a call into the library cannot be interrupted, so it is abandoned (a
    daemon thread) and runs on until it ends or its process does. On Dask
    the worker is then restarted (`Backend.abandoned`), which ends it."""
    if limit_s is None:
        return function(*arguments)
    box = {}

    def target():
        try:
            box["value"] = function(*arguments)
        except BaseException as error:  # handed to the waiting side as it is
            box["error"] = error

    thread = threading.Thread(target=target, name="hearth-task", daemon=True)
    thread.start()
    thread.join(limit_s)
    if thread.is_alive():
        raise TimeLimitExceeded(f"exceeded its time limit of {limit_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


#: Dask settings for the cluster `client=None` starts (`local_cluster`),
#: and a suggestion for any cluster that runs hearth's tasks. A Dask server
#: does work of its own in the background: the worker's statistical profiler
#: samples every thread's stack every 10 ms, every server checks its event
#: loop every 20 ms, the memory monitors poll every 100 ms. On an idle
#: two-worker LocalCluster on this 2-core machine that took about 30 ms of
#: CPU a second in each worker and 36–38 ms in the client's process (the
#: scheduler and the nannies); with these settings 4–5 ms and 11–12 ms
#: (docs/benchmarks.md, distributed sweeps). One batch at a time per worker
#: thread (worker-saturation 1.0, Dask's default 1.1 queues a second one on
#: a single-threaded worker): a queued batch waited behind a long one at the
#: end of a sweep while the other worker had nothing left. What is given
#: up: the dashboard's profile page stays empty (a detector pass is one call
#: into the library, which the profiler cannot see into anyway), a blocked
#: event loop is measured once a second, and a worker's memory is checked
#: once a second (its limit is enforced up to a second later).
CLUSTER_SETTINGS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.worker-saturation": 1.0,
}


def local_cluster(n_workers: int | None = None):
    """The LocalCluster `client=None` starts: `n_workers` (default: the
    cores) single-threaded worker processes on this machine, with
    `CLUSTER_SETTINGS`, the dashboard on a free port, logs quiet. Start one
    to reuse across calls (`distributed.Client(local_cluster())`) without
    paying its start-up each time; close it afterwards."""
    import dask
    from distributed import LocalCluster

    # Read when the servers start (the workers get a copy through their nannies).
    with dask.config.set(CLUSTER_SETTINGS):
        return LocalCluster(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                            dashboard_address=":0", silence_logs=logging.ERROR)


def _same(value):
    """The shared argument of a run's tasks, as a task's result."""
    return value


class Backend:
    """Tasks submitted to a Dask client or an executor, results as they complete.

    `where`: None (`local_cluster(n_workers)`: single-threaded worker
    processes on this machine, closed afterwards), a scheduler address
    ("tcp://host:8786"), a `distributed.Client`, or a
    `concurrent.futures.Executor` (a process pool runs without Dask)."""

    def __init__(self, where=None, *, n_workers: int | None = None):
        self._owned = []
        self.executor = None
        self.client = None
        if isinstance(where, Executor):
            self.executor = where
            return
        try:
            from distributed import Client
        except ImportError as error:
            raise ImportError("hearth.distributed needs dask and distributed: pip install './python[distributed]' (or pass a concurrent.futures executor)") from error
        if where is None:
            cluster = local_cluster(n_workers)
            self._owned.append(cluster)
            self.client = Client(cluster)
            self._owned.insert(0, self.client)
        elif isinstance(where, str):
            self.client = Client(where)
            self._owned.append(self.client)
        elif isinstance(where, Client):
            self.client = where
        else:
            raise TypeError("client: None (a LocalCluster), a scheduler address, a distributed.Client or a concurrent.futures.Executor")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for thing in self._owned:
            thing.close()

    @property
    def dashboard(self) -> str | None:
        """The Dask dashboard's address (None on an executor, or without bokeh)."""
        if self.client is None:
            return None
        try:
            import bokeh  # noqa: F401  (the dashboard is only served with it)
        except ImportError:
            return None
        return self.client.dashboard_link

    @property
    def workers(self) -> int:
        if self.client is not None:
            return len(self.client.scheduler_info(n_workers=-1)["workers"])
        return getattr(self.executor, "_max_workers", 1)

    @property
    def slots(self) -> int:
        """How many tasks can run at once: the cluster's worker threads, the
        executor's workers (at least 1: a cluster still starting has none)."""
        if self.client is not None:
            return max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info(n_workers=-1)["workers"].values()))
        return max(1, getattr(self.executor, "_max_workers", 1))

    def run(self, name: str, function, argument_lists: list[tuple], shared=None):
        """`function(shared, *arguments)` (without `shared` when it is None)
        for every tuple of `argument_lists` as a task (on Dask one graph
        update for all, keys `name-i`, each result fetched as its task
        completes and the task's memory on the cluster released once it is
        handed over); yields (i, result) as they complete, the result an
        exception for a task that raised or was lost for good (a Dask worker
        that died running it every time it was tried, a broken process pool).

        `shared` (the sweep's plan) goes into the Dask graph once, as a task
        of its own that every task depends on, rather than into every task:
        its bytes move once per worker, not once per task, and the scheduler
        recomputes it if the worker holding it dies. An executor pickles it
        with every call."""
        if self.client is not None:
            from distributed import as_completed

            if not argument_lists:
                return
            columns = [list(c) for c in zip(*argument_lists)]
            if shared is not None:
                # Keyed under a prefix of its own ("shared-<name>", not
                # "<name>-shared"): Dask learns task durations per key prefix,
                # and with the tasks' prefix this instant task taught it that
                # the tasks cost nothing, so it never moved one off the
                # worker holding the plan (every task on one worker).
                plan = self.client.submit(_same, shared, key=f"shared-{name}", pure=False)
                columns.insert(0, [plan] * len(argument_lists))
            futures = self.client.map(function, *columns, key=[f"{name}-{i}" for i in range(len(argument_lists))], pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            # On this client's loop (as_completed otherwise takes the
            # process's default client's, which may be another client's).
            done = as_completed(futures, loop=self.client.loop, with_results=True, raise_errors=False)
            # as_completed holds each future until it yields it; dropping the
            # last reference then releases the task's result on the cluster.
            # (With Future.release() called here, and as_completed on the
            # default client's loop, a sweep once waited forever: see
            # test_a_local_cluster_after_another_client_s_sweep_finishes.)
            del futures
            for future, result in done:
                if future.status == "error":  # (type, exception, traceback)
                    result = result[1]
                yield index[future.key], result
            return
        first = () if shared is None else (shared,)
        futures = {self.executor.submit(function, *first, *arguments): i for i, arguments in enumerate(argument_lists)}
        for future in executor_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as error:  # noqa: BLE001 - reported as the task's outcome, the rest go on
                yield futures[future], error

    def abandoned(self, worker: str) -> None:
        """A task on `worker` was given up at its time limit: restart the worker
        (Dask with a nanny) so its abandoned call ends. Executors cannot."""
        if self.client is not None and "://" in worker:
            self.client.restart_workers([worker], raise_for_error=False)


def summary(outcomes: list[Outcome], wall_s: float, unit: str = "hours") -> pd.DataFrame:
    """One row per worker: tasks, the cluster tasks (batches) that carried
    them, failures, work done (`unit`: hours of data, fixes), busy seconds
    and work per busy second; a last row "all" with the work per wall-clock
    second."""
    frame = pd.DataFrame([{"worker": o.worker, "ok": o.kind == "ok", "amount": o.amount, "seconds": o.seconds, "batch": o.batch} for o in outcomes],
                         columns=["worker", "ok", "amount", "seconds", "batch"])

    def row(worker, group, seconds):
        amount = float(group.amount.sum())
        own = group.batch < 0  # a cluster task of its own each
        return {"worker": worker, "tasks": len(group), "batches": int(group.batch[~own].nunique() + own.sum()),
                "failed": int((~group.ok).sum()), unit: amount,
                "busy_s": float(group.seconds.sum()), f"{unit}_per_s": amount / seconds if seconds > 0 else 0.0}

    rows = [row(w, g, float(g.seconds.sum())) for w, g in sorted(frame.groupby("worker"), key=lambda kv: kv[0])]
    rows.append(row("all", frame, wall_s))
    return pd.DataFrame(rows)


def print_summary(what: str, table: pd.DataFrame, wall_s: float, unit: str = "hours") -> None:
    print(f"{what}: {wall_s:.1f} s wall clock; per worker ({unit}, busy seconds, {unit} per busy second; "
          f"'all': per wall-clock second):", file=sys.stderr)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"), file=sys.stderr)
