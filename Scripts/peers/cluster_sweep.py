#!/usr/bin/env python3
"""The distributed sweep's speed on this machine (hearth.distributed; docs/guides/distributed.md).

  cluster_sweep.py measure [--hours 100] [--seed 1] [--repeat 3] [--keep DIR]
      Generates HOURS of driving as trace folders in a temporary folder
      (`hearth sim generate mix`, about 8 MB an hour; removed afterwards
      unless --keep), then sweeps them REPEAT times on a LocalCluster of one
      and of two single-threaded workers, side by side, and prints: wall-clock seconds of each sweep
      (the cluster's start-up left out), the ratio, hours of data per second
      per worker, the scheduling overhead per task (wall clock less the
      workers' busy time and the merge, per task, and a Dask round trip of an
      empty task) against the work of one hour of recording.
  cluster_sweep.py compare HOURS [--repeat 3] [--dask-defaults]
      One and two workers side by side on HOURS of the plan's own generated
      driving (no files, no command needed), the order alternating: wall
      clock, the workers' and the client's CPU time, tasks and batches per
      worker, the load average, the CPU seconds other processes took
      meanwhile (/proc/stat: a neighbour's build shows here), the ratio, and
      the CPU seconds of the detector passes themselves against everything
      else (the overhead).
      The clusters are the one hd.sweep(client=None) starts
      (hd.local_cluster); --dask-defaults starts them with Dask's own
      settings instead of hd.CLUSTER_SETTINGS.
  cluster_sweep.py bench HOURS WORKERS
      hearth-bench's reference (Python/distributed/*): a sweep of HOURS of
      generated driving (the plan's own drives, no files) on a LocalCluster
      of WORKERS single-threaded workers; prints "SECONDS sweep" for the
      sweep alone (start-up excluded), as abi.py does.

Needs the hearth package's extras (dask, distributed, pyarrow: python/requirements-dev.txt)
and libhearth (Scripts/build-libhearth); `measure` also the release `hearth` command.
"""

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("HEARTH_LIBRARY", str(ROOT / ".build" / "libhearth" / "libhearth.so"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

GRID = {"jolt_g": [3.5, 4, 5], "spin_radps": [3, 3.5]}


#: True: clusters with Dask's own settings instead of hearth's (`compare --dask-defaults`).
DASK_DEFAULTS = False


def cluster(workers):
    """The LocalCluster `hd.sweep(client=None)` starts (hd.local_cluster:
    hd.CLUSTER_SETTINGS), or one with Dask's defaults."""
    from distributed import Client, LocalCluster

    import hearth.distributed as hd

    if DASK_DEFAULTS:
        c = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR)
    else:
        c = hd.local_cluster(workers)
    client = Client(c)
    client.wait_for_workers(workers)
    return c, client


def _cpu_s():
    """This process's CPU time, s (user + system, all its threads)."""
    return time.process_time()


def _machine_busy_s():
    """CPU seconds the whole machine has been busy since boot (every core,
    every process: /proc/stat's user, nice, system, irq, softirq and steal),
    or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def timed_sweep(traces, workers, cpu=None, **kwargs):
    """The sweep's result, its wall-clock seconds and an empty task's round
    trip; `cpu` (a dict), when given, gets the CPU seconds the workers and
    the client spent on the sweep ("workers", "client") and the machine's
    busy CPU seconds meanwhile ("machine": every process's, other people's
    builds included; None without /proc/stat)."""
    import hearth.distributed as hd

    c, client = cluster(workers)
    try:
        # Warm the workers (the library loaded, the plan made) on a small sweep first.
        hd.sweep([], {"jolt_g": [4]}, client=client, seeds=1, hours=0, progress=False)
        before, client_before = client.run(_cpu_s), _cpu_s()
        machine_before = _machine_busy_s()
        started = time.perf_counter()
        result = hd.sweep(traces, GRID, client=client, progress=False, **kwargs)
        wall = time.perf_counter() - started
        machine_after = _machine_busy_s()
        after, client_after = client.run(_cpu_s), _cpu_s()
        if cpu is not None:
            cpu["workers"] = sum(after[w] - before[w] for w in after if w in before)
            cpu["client"] = client_after - client_before
            cpu["machine"] = None if machine_before is None else machine_after - machine_before
        empty = round_trip(client)
    finally:
        client.close()
        c.close()
    return result, wall, empty


def _nothing(i):
    return i


def round_trip(client, n=400):
    """Seconds per empty task, mapped at once and gathered as they complete,
    as the sweep's tasks are (hearth.distributed._backend.Backend.run)."""
    from distributed import as_completed

    started = time.perf_counter()
    futures = client.map(_nothing, range(n), pure=False)
    for _ in as_completed(futures, loop=client.loop, with_results=True):
        pass
    return (time.perf_counter() - started) / n


def generate(folder, hours, seed):
    """HOURS of `hearth sim generate mix` as trace folders under `folder`
    (the command writes at most 100 h at a time); kept if already there."""
    command = ROOT / ".build" / "release" / "hearth"
    subprocess.run(["swift", "build", "-c", "release", "--product", "hearth"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    if (folder / "generated").exists():
        return
    done, part = 0.0, 0
    while done < hours:
        chunk = min(100.0, hours - done)
        subprocess.run([str(command), "sim", "generate", "mix", "--hours", str(chunk), "--seed", str(seed + part),
                        "--out", str(folder / f"part-{part}")], check=True, stdout=subprocess.DEVNULL)
        done += chunk
        part += 1
    (folder / "generated").write_text(f"{hours} h, seed {seed}\n")


def measure(args):
    import statistics

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hearth-distributed-"))
    try:
        started = time.perf_counter()
        generate(folder, args.hours, args.seed)
        traces = sorted(str(p) for p in folder.glob("part-*/drive-*/trace"))
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        print(f"recordings: {len(traces)} trace folders, {size / 1e9:.2f} GB in {folder} (ready in {time.perf_counter() - started:.0f} s)")
        runs = {1: [], 2: []}
        for repeat in range(args.repeat):
            # Side by side, the order alternating, so a neighbour's build
            # weighs on both sizes alike.
            for workers in ((1, 2) if repeat % 2 == 0 else (2, 1)):
                result, wall, empty = timed_sweep(traces, workers, seeds=1, hours=0)
                runs[workers].append((result, wall, empty))
                table = result.summary.set_index("worker")
                hours = table.loc["all", "hours"]
                per_worker = table.drop("all")
                print(f"run {repeat + 1}, {workers} worker(s): {wall:.2f} s for {hours:.1f} h in {table.loc['all', 'tasks']} tasks "
                      f"({hours / wall:.1f} h/s; per worker, h per busy second: "
                      f"{', '.join(f'{v:.1f}' for v in per_worker.hours_per_s)}); merge {result.merge_s:.2f} s; "
                      f"{len(result.failed)} failed", flush=True)
            one, two = runs[1][-1], runs[2][-1]
            for name in ("sweep.csv", "outcomes.csv", "jolts.csv", "sweep.json"):
                assert one[0].export(name) == two[0].export(name), name
            print(f"run {repeat + 1}: ratio 1 worker / 2 workers {one[1] / two[1]:.2f}x", flush=True)
        ratios = [a[1] / b[1] for a, b in zip(runs[1], runs[2])]
        print(f"\nratio 1 worker / 2 workers: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}x (target >= 1.8)")
        for workers, rows in runs.items():
            tables = [r.summary.set_index("worker") for r, _, _ in rows]
            busy = [t.drop("all").hours_per_s.mean() for t in tables]
            wall = [t.loc["all", "hours"] / w for t, (_, w, _) in zip(tables, rows)]
            print(f"{workers} worker(s): hours of recording per busy second per worker {', '.join(f'{v:.1f}' for v in busy)}; "
                  f"hours per wall-clock second for the sweep {', '.join(f'{v:.1f}' for v in wall)}")
        # Overhead on one worker: wall clock of the tasks less the worker's busy time, per task.
        for result, wall, empty in runs[1]:
            table = result.summary.set_index("worker")
            busy, hours, tasks = table.loc["all", "busy_s"], table.loc["all", "hours"], table.loc["all", "tasks"]
            per_hour = busy / hours
            overhead = (wall - result.merge_s - busy) / tasks
            print(f"1 worker: one hour of recording costs {per_hour * 1000:.1f} ms of work; scheduling overhead per task "
                  f"(wall - merge - busy, / {tasks} tasks) {overhead * 1000:.2f} ms = {100 * overhead / per_hour:.2f} % of an hour's work; "
                  f"an empty task's round trip {empty * 1000:.2f} ms = {100 * empty / per_hour:.2f} % (target < 5 %); "
                  f"merge {result.merge_s:.2f} s for {result.merged_bytes / 1e6:.1f} MB of extractions "
                  f"({result.merged_bytes / hours / 1e3:.1f} kB, {1000 * result.merge_s / hours:.2f} ms per hour of data)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def compare(hours, repeat):
    """One and two workers side by side on HOURS of the plan's own generated
    driving (no files), the order alternating: wall clock, CPU time, tasks
    and batches per worker, the load average at each run, and the CPU-second
    accounting: the detector passes' own CPU time (task work) against the
    rest of the workers' CPU time and the client's (with a LocalCluster, the
    client's process also runs the scheduler and the nannies)."""
    import statistics

    ratios, lines = [], []
    for r in range(repeat):
        walls = {}
        for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
            cpu = {}
            load = os.getloadavg()[0]
            result, wall, _ = timed_sweep([], workers, cpu=cpu, seeds=1, hours=hours)
            walls[workers] = wall
            table = result.summary.set_index("worker")
            per_worker = table.drop("all")
            work = result.task_cpu_s
            overhead = cpu["workers"] - work + cpu["client"]
            hour_s = work / table.loc["all", "hours"]
            others = "" if cpu["machine"] is None else (
                f"; other processes used {max(0.0, cpu['machine'] - cpu['workers'] - cpu['client']):.2f} s of the "
                f"{os.cpu_count() * wall:.2f} CPU seconds the machine had meanwhile")
            print(f"run {r + 1}, {workers} worker(s): {wall:.2f} s wall, {cpu['workers']:.2f} s CPU on the workers, "
                  f"{cpu['client']:.2f} s on the client; tasks per worker {per_worker.tasks.tolist()} in batches "
                  f"{per_worker.batches.tolist()}; load average {load:.1f}{others}", flush=True)
            lines.append(f"  run {r + 1}, {workers} worker(s): task work {work:.2f} s CPU; workers' CPU beyond it "
                         f"{cpu['workers'] - work:.2f} s, client {cpu['client']:.2f} s: overhead {overhead:.2f} s = "
                         f"{1000 * overhead / table.loc['all', 'hours']:.1f} ms per hour of data = {100 * overhead / work:.1f} % "
                         f"of the work (an hour's work {1000 * hour_s:.0f} ms CPU); merge {result.merge_s:.3f} s")
        ratios.append(walls[1] / walls[2])
        print(f"run {r + 1}: 1 worker / 2 workers {ratios[-1]:.2f}x", flush=True)
    print(f"ratios {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.2f}x (target >= 1.8)")
    print("CPU-second accounting (overhead = all CPU time of the workers and the client beyond the passes' own; target < 5 %):")
    print("\n".join(lines))


def bench(hours, workers):
    _, wall, _ = timed_sweep([], workers, seeds=1, hours=hours)
    print(f"{wall} sweep {hours}h {workers}workers")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--hours", type=float, default=100.0)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--keep")
    m.add_argument("--repeat", type=int, default=3)
    cmp = sub.add_parser("compare")
    cmp.add_argument("hours", type=float)
    cmp.add_argument("--repeat", type=int, default=3)
    cmp.add_argument("--dask-defaults", action="store_true", help="clusters with Dask's own settings, not hd.CLUSTER_SETTINGS")
    b = sub.add_parser("bench")
    b.add_argument("hours", type=float)
    b.add_argument("workers", type=int)
    args = parser.parse_args()
    if args.what == "measure":
        measure(args)
    elif args.what == "compare":
        global DASK_DEFAULTS
        DASK_DEFAULTS = args.dask_defaults
        compare(args.hours, args.repeat)
    else:
        bench(args.hours, args.workers)


if __name__ == "__main__":
    main()
