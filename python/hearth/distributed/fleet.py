"""Fleet replays on a cluster: a recorded history of many people through the
server's ingest path, partitioned, each partition a task that saves its
state as it goes, the events merged into the single-process order.

THE PARTITIONING RULE (one place: `components` and `check_partition`).
Every engine of the ingest path keeps its state per person (dedupe,
presence and shared frames, geofence memberships, open speed stretches,
sudden stops, trips), except one piece kept per circle: the speed alert's
30-minute cooldown (SPEC §4 "at most once every 30 min per circle"), which
two people of one circle share. A partition therefore holds whole
*circle-connected components*: people joined, directly or through others,
by any circle they share. No circle ever spans two partitions, so no state
is ever split or replicated. All circles couple, not only those with a speed
limit today: a per-circle rule added later (the `geo` work reconfigures
places per circle) keeps the replay exact without a change here. A person
in no circle is a component of their own. Components are spread over the
partitions largest first (by fixes), each to the lightest partition so far.

THE REPLAY (what a single process does, and so what every partition does for
its people). The server's schedule is the library's, the one `hearth geo
replay` and `hearth.Ingest.replay` run (`hearth.ingest.schedule`, hearth.h's
hearth_schedule_create; docs/decisions/0010-one-server-schedule.md): each
phone's fixes cut into the uploads it sent, every upload in order of
receipt, the timer every `tick_ms` after a receipt, and a last advance
`final_advance_ms` past the last receipt so open trips close. Its steps are
numbered once, for the whole fleet; Python only partitions them. A batch
moves every engine's clock to its receipt time for everybody (a pending
departure, sudden stop or idle trip of someone who sent nothing is decided
by anyone's upload), so every partition runs every step: its own people's
uploads as batches, every tick, and every other partition's upload as a
clock advance to that upload's receipt time (one the library marks refused,
a schema error, moves no clock and is left out). An upload is one phone's,
so it is one person's and lies in one partition. One person's events then
depend only on their own uploads, their component's and the clock, so a
partition's events are exactly that component's events in the
single-process replay, on the same steps.

THE MERGE. Events are ordered by (step, kind, origin, user), and, within one
person's events of one kind, origin and step, as their partition produced
them. The library says where each event of a batch came from
(hearth_ingest_origins, ABI 1.3): the batch's own fixes (origin 0, only in
the uploader's partition) or the clock advance to its receipt that follows
(origin 1; all of a tick's). Within a step and kind it gives the batch's
events first, then the clock's person by person in ascending id (a test
checks the single-process replay against this). So the order is exact: no
event's place depends on guessing which part it came from.

RESUMING. A partition writes a checkpoint (its state as the library saves it,
the events so far in chunks, the step reached) every `checkpoint_every_s`
seconds or `checkpoint_every_steps` steps; a retried partition task (its
worker died) restores the last one and goes on from the next step.

ONE LIBRARY. A plan names the libhearth build the client planned it on
(its ABI version and the loaded file's SHA-256, `hearth._ffi.library_identity`),
since the schedule is the client's library's. A worker that loaded another
build refuses the partition (Outcome kind "other library"), a checkpoint
another build wrote is not resumed (the same kind), and `merge` refuses
partitions from different builds. A rule can change without the ABI
changing, so mixing builds could give events the single-process replay
never gives.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._ffi import BadInputError, SchemaError, ffi, lib, library_identity, raise_for, take_bytes
from .._names import with_datetimes
from ..geo import _FIX_COLUMNS, FixBatch
from ..ingest import _EVENT_DTYPE, _EVENT_FIELDS, EVENT_KINDS, Ingest, describe, event_lines, schedule
from ._backend import Backend, Outcome, Progress, TimeLimitExceeded, print_summary, run_limited, summary, worker_name

# MARK: the partitioning rule


def components(users, circles_of_person: dict) -> dict[int, int]:
    """Each user's circle-connected component, named by its smallest user id:
    two people are in one component when a chain of shared circles joins
    them. `users`: everyone in the history; `circles_of_person`: user →
    circles (people not in it are alone). O((people + memberships) α)."""
    parent = {int(u): int(u) for u in users}

    def root(u):
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    first_member = {}
    for user, circles in sorted(circles_of_person.items(), key=lambda kv: int(kv[0])):
        user = int(user)
        if user not in parent:
            continue
        for circle in circles:
            other = first_member.setdefault(int(circle), user)
            a, b = root(user), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {u: root(u) for u in parent}


def partition(fixes_per_user: dict, circles_of_person: dict, n: int) -> dict[int, int]:
    """User → partition (0 … n−1): whole components, largest first (by
    fixes; ties by smallest user id), each to the partition with the fewest
    fixes so far (ties: the lowest index). Deterministic."""
    if n < 1:
        raise ValueError(f"partitions: at least 1, not {n}")
    of = components(fixes_per_user, circles_of_person)
    weight, members = {}, {}
    for user, component in of.items():
        weight[component] = weight.get(component, 0) + int(fixes_per_user[user])
        members.setdefault(component, []).append(user)
    load = [0] * n
    out = {}
    for component in sorted(weight, key=lambda c: (-weight[c], c)):
        target = min(range(n), key=lambda p: (load[p], p))
        load[target] += weight[component]
        for user in members[component]:
            out[user] = target
    return out


def check_partition(assignment: dict, circles_of_person: dict) -> None:
    """ValueError naming the first circle whose members are in two partitions
    (a split circle would split the speed alert's per-circle cooldown)."""
    seen = {}
    for user, circles in sorted(circles_of_person.items(), key=lambda kv: int(kv[0])):
        user = int(user)
        if user not in assignment:
            continue
        for circle in circles:
            other = seen.setdefault(int(circle), user)
            if assignment[other] != assignment[user]:
                raise ValueError(
                    f"circle {circle} spans partitions {assignment[other]} (user {other}) and {assignment[user]} "
                    f"(user {user}): a circle's people must share a partition (hearth.distributed.replay)"
                )


# MARK: the history


def history_frame(history, mapping=None) -> pd.DataFrame:
    """A fleet history as fix columns: a DataFrame (time_ms, latitude_deg,
    longitude_deg, horizontal_accuracy_m and any of the other fix columns,
    user and device included; optional received_ms), a Parquet file of such
    columns, a folder in the Parquet layout (its fixes), or any recording
    the library reads (its fixes)."""
    if isinstance(history, pd.DataFrame):
        return history
    path = os.fspath(history)
    if os.path.isfile(path) and path.endswith(".parquet"):
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pandas()
    from .sweeps import _arrow_folder

    if _arrow_folder(path):
        from ..parquet import ArrowTrace

        return ArrowTrace.read(path).tables["fixes"].to_pandas()
    from ..trace import read_trace

    return read_trace(path, mapping)["fixes"].reset_index(drop=True)


# MARK: one partition


@dataclass
class PartitionPlan:
    """What a partition task replays: its people's fixes upload after upload
    (`columns`, contiguous), and its steps (`steps`: global step numbers,
    `bounds`: the upload's rows in `columns` or (−1, −1) for a clock
    advance (a tick, or another partition's upload), `times`: the step's
    server clock). `fingerprint` names the replay and
    partition, so a checkpoint of another replay is never resumed;
    `library` the libhearth build it was planned on."""

    partition: int
    users: np.ndarray
    columns: dict
    steps: np.ndarray
    bounds: np.ndarray
    times: np.ndarray
    description: str
    fingerprint: str
    library: str

    @property
    def fixes(self) -> int:
        return len(self.columns["time_ms"])


_PACKED = np.dtype([(name, _EVENT_DTYPE.fields[name][0]) for name in _EVENT_FIELDS])


def _take_events(handle) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The last batch's or tick's events: typed records, their origins
    (lib.HEARTH_ORIGIN_*) and their JSON lines."""
    n = ffi.new("int64_t *")
    raise_for(lib.hearth_ingest_count(handle, n, ffi.NULL, ffi.NULL), handle)
    if n[0] == 0:
        return np.empty(0, _PACKED), np.empty(0, np.int32), []
    records = ffi.new("hearth_event[]", n[0])
    raise_for(lib.hearth_ingest_events(handle, n[0], records), handle)
    raw = np.frombuffer(ffi.buffer(records, n[0] * ffi.sizeof("hearth_event")), dtype=_EVENT_DTYPE)
    packed = np.empty(n[0], _PACKED)
    for name in _EVENT_FIELDS:
        packed[name] = raw[name]
    origins = np.empty(n[0], np.int32)
    raise_for(lib.hearth_ingest_origins(handle, n[0], ffi.cast("int32_t *", ffi.from_buffer(origins))), handle)
    lines = event_lines(take_bytes(lib.hearth_ingest_events_json, handle))
    if len(lines) != n[0]:
        raise AssertionError(f"{len(lines)} JSON lines for {n[0]} events")
    return packed, origins, lines


class OtherLibrary(BadInputError):
    """A partition planned, or a checkpoint written, on another libhearth
    build than the one this worker loaded; the message names both."""


class Checkpoints:
    """A partition's checkpoints in `folder/partition-NNNN/`: manifest.json
    (the step reached, how many event chunks, which replay, which library
    wrote it), state-K.bin (the pipeline's saved state) and chunk-K.npz
    (events since the last checkpoint). The manifest is replaced last,
    atomically, so a worker that dies mid-write leaves the previous
    checkpoint whole. A checkpoint another libhearth build wrote is refused
    by name: its events and the ones after it would come from two sets of
    rules, which the single-process replay never mixes."""

    # 3: each event's origin kept (the library's, ABI 1.3); the library's schedule. 4: the library that wrote it.
    LAYOUT = "hearth-replay-checkpoint/4"

    def __init__(self, folder, plan: PartitionPlan):
        self.path = Path(folder) / f"partition-{plan.partition:04d}"
        self.fingerprint = plan.fingerprint
        self.chunks = 0

    def load(self):
        """(position, state bytes, records, steps, origins, lines, schema errors) of the
        last checkpoint, or None. A checkpoint of another replay, or damaged,
        raises BadInputError naming it."""
        manifest_path = self.path / "manifest.json"
        if not manifest_path.exists():
            return None
        try:
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("layout") != self.LAYOUT:
                raise BadInputError(lib.HEARTH_ERROR_BAD_INPUT, f"{manifest_path}: a checkpoint in the layout {manifest.get('layout')!r}; "
                                    f"this package reads {self.LAYOUT!r} (remove it, or give another checkpoint_dir)")
            if manifest.get("fingerprint") != self.fingerprint:
                raise BadInputError(lib.HEARTH_ERROR_BAD_INPUT, f"{manifest_path}: a checkpoint of another replay (remove it, or give another checkpoint_dir)")
            if manifest.get("library") != library_identity():
                raise OtherLibrary(lib.HEARTH_ERROR_BAD_INPUT, f"{manifest_path}: written by {manifest.get('library')}, and this worker "
                                    f"loaded {library_identity()}; resuming would mix two libraries' events (rerun with the "
                                    f"library that wrote it, or remove it)")
            records, steps, origins, lines, errors = [], [], [], [], []
            for k in range(int(manifest["chunks"])):
                with np.load(self.path / f"chunk-{k:06d}.npz", allow_pickle=False) as chunk:
                    records.append(chunk["records"])
                    steps.append(chunk["steps"])
                    origins.append(chunk["origins"])
                    lines += event_lines(chunk["lines"].tobytes())
                    errors += json.loads(chunk["errors"].tobytes().decode() or "[]")
            state = (self.path / f"state-{int(manifest['chunks']) - 1:06d}.bin").read_bytes()
        except BadInputError:
            raise
        except (OSError, ValueError, KeyError) as error:
            raise BadInputError(lib.HEARTH_ERROR_BAD_INPUT, f"{self.path}: damaged checkpoint ({error})") from None
        self.chunks = int(manifest["chunks"])
        cat = lambda parts, dtype: np.concatenate(parts) if parts else np.empty(0, dtype)  # noqa: E731
        return int(manifest["position"]), state, cat(records, _PACKED), cat(steps, np.int64), cat(origins, np.int32), lines, errors

    def save(self, position: int, state: bytes, records: np.ndarray, steps: np.ndarray, origins: np.ndarray, lines: list, errors: list) -> None:
        """Events since the last checkpoint, the state after step `position` − 1."""
        self.path.mkdir(parents=True, exist_ok=True)
        k = self.chunks
        text = "".join(line + "\n" for line in lines).encode()
        np.savez(self.path / f"chunk-{k:06d}.npz", records=records, steps=steps, origins=origins,
                 lines=np.frombuffer(text, np.uint8), errors=np.frombuffer(json.dumps(errors).encode(), np.uint8))
        (self.path / f"state-{k:06d}.bin").write_bytes(state)
        manifest = {"layout": self.LAYOUT, "fingerprint": self.fingerprint, "library": library_identity(), "position": position, "chunks": k + 1,
                    "worker": worker_name(), "pid": os.getpid()}
        temporary = self.path / "manifest.json.tmp"
        temporary.write_text(json.dumps(manifest))
        os.replace(temporary, self.path / "manifest.json")
        previous = self.path / f"state-{k - 1:06d}.bin"
        if previous.exists():
            previous.unlink()
        self.chunks = k + 1


@dataclass
class PartitionEvents:
    """A partition's output: events (typed records with their global step,
    origin and JSON lines), schema errors (step, message), where it resumed
    from, and the libhearth build that produced it (`library_identity`)."""

    partition: int
    records: np.ndarray
    steps: np.ndarray
    origins: np.ndarray
    lines: list
    schema_errors: list
    resumed_from: int
    steps_run: int
    library: str


def _replay(plan: PartitionPlan, checkpoint_dir, every_steps, every_s) -> PartitionEvents:
    if plan.library != library_identity():
        raise OtherLibrary(lib.HEARTH_ERROR_BAD_INPUT, f"planned on {plan.library}, and this worker loaded {library_identity()}: "
                           "the schedule and the events would come from two builds (install one build on the client and every worker)")
    pipeline = Ingest(description=plan.description)
    store = Checkpoints(checkpoint_dir, plan) if checkpoint_dir is not None else None
    loaded = store.load() if store is not None else None
    done = {"records": [], "steps": [], "origins": [], "lines": [], "errors": []}
    position = 0
    if loaded is not None:
        position, state, records, steps, origins, lines, errors = loaded
        pipeline.restore(state)
        done = {"records": [records], "steps": [steps], "origins": [origins], "lines": lines, "errors": errors}
    resumed_from = position
    new = {"records": [], "steps": [], "origins": [], "lines": [], "errors": []}
    last_saved, since = time.monotonic(), 0
    handle = pipeline._handle
    for i in range(position, len(plan.steps)):
        step, (a, b), now = int(plan.steps[i]), plan.bounds[i], int(plan.times[i])
        refused = False
        if a < 0:
            raise_for(lib.hearth_ingest_tick(handle, now), handle)
        else:
            batch = FixBatch({name: values[a:b] for name, values in plan.columns.items()})
            try:
                raise_for(lib.hearth_ingest_batch(handle, batch.struct, now), handle)
            except SchemaError as error:  # the upload refused whole, the state unchanged (SPEC §1)
                new["errors"].append([step, str(error)])
                refused = True
        if not refused:
            records, origins, lines = _take_events(handle)
            if len(records):
                new["records"].append(records)
                new["steps"].append(np.full(len(records), step, np.int64))
                new["origins"].append(origins)
                new["lines"] += lines
        since += 1
        due = (every_steps is not None and since >= every_steps) or (every_s is not None and time.monotonic() - last_saved >= every_s)
        if store is not None and due and i + 1 < len(plan.steps):
            chunk = _cat(new["records"], _PACKED), _cat(new["steps"], np.int64), _cat(new["origins"], np.int32)
            store.save(i + 1, pipeline.save(), *chunk, new["lines"], new["errors"])
            for name, part in zip(("records", "steps", "origins"), chunk):
                done[name].append(part)
            done["lines"] += new["lines"]
            done["errors"] += new["errors"]
            new = {"records": [], "steps": [], "origins": [], "lines": [], "errors": []}
            last_saved, since = time.monotonic(), 0
    return PartitionEvents(
        plan.partition, _cat(done["records"] + new["records"], _PACKED), _cat(done["steps"] + new["steps"], np.int64),
        _cat(done["origins"] + new["origins"], np.int32), done["lines"] + new["lines"], done["errors"] + new["errors"],
        resumed_from, len(plan.steps) - position, library_identity(),
    )


def _cat(parts, dtype):
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def run_partition(plan: PartitionPlan, checkpoint_dir=None, every_steps=None, every_s=30.0, time_limit_s=None) -> Outcome:
    """One partition through its own pipeline (what a worker runs; every
    argument and the result pickle): its events, or why there are none."""
    started = time.perf_counter()
    where = worker_name()
    name = f"partition {plan.partition}"
    try:
        events = run_limited(_replay, (plan, checkpoint_dir, every_steps, every_s), time_limit_s)
    except TimeLimitExceeded as error:
        return Outcome(plan.partition, name, "time limit", error=f"{name}: {error}", seconds=time.perf_counter() - started, worker=where)
    except OtherLibrary as error:
        return Outcome(plan.partition, name, "other library", error=f"{name}: {error}", seconds=time.perf_counter() - started, worker=where)
    except BadInputError as error:
        return Outcome(plan.partition, name, "unreadable", error=f"{name}: {error}", seconds=time.perf_counter() - started, worker=where)
    return Outcome(plan.partition, name, "ok", data=events, seconds=time.perf_counter() - started, amount=plan.fixes, worker=where)


# MARK: the whole replay


@dataclass
class ReplayResult:
    """A fleet replay: `events` one row per event in the single-process
    order (step, step_time_ms, kind, code, announced, user, device, circle,
    place, index, time_ms, end_ms, cell_id, latitude_deg, longitude_deg,
    value, json: the event's JSON line with every field); `schema_errors`
    uploads refused whole (step, message); `partitions` one row per
    partition (people, fixes, steps, resumed_from: the step a retried task
    went on from, 0 when it ran straight through; worker, busy_s; library:
    the libhearth build it ran on); `failed` partitions
    without a result (their people's events are missing); `summary` per
    worker (fixes, fixes per busy second)."""

    events: pd.DataFrame
    schema_errors: pd.DataFrame
    partitions: pd.DataFrame
    failed: pd.DataFrame = field(default_factory=pd.DataFrame)
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    wall_s: float = 0.0

    @property
    def complete(self) -> bool:
        return self.failed.empty

    def write_parquet(self, folder) -> None:
        """events.parquet, schema_errors.parquet and partitions.parquet in `folder`."""
        from ..parquet import write_table

        os.makedirs(folder, exist_ok=True)
        frame = self.events.assign(kind=self.events.kind.astype(str))
        write_table(frame, os.path.join(folder, "events.parquet"))
        write_table(self.schema_errors, os.path.join(folder, "schema_errors.parquet"))
        write_table(self.partitions, os.path.join(folder, "partitions.parquet"))


def plan(history, places=None, circles=None, *, speed_limits_kmh=None, places_file=None, partitions: int | dict = 1,
         tick_ms: int | None = None, idle_ticking_ms: int | None = None, final_advance_ms: int | None = 2 * 3_600_000,
         batch: int | None = None, span_ms: int | None = None, mapping=None) -> list[PartitionPlan]:
    """The replay cut into partition plans (see the module's rules).
    `partitions`: how many (components spread by `partition`), or an explicit
    user → partition mapping (checked by `check_partition`). `tick_ms`,
    `idle_ticking_ms`, `batch`, `span_ms`: the library's schedule settings
    (`hearth.ingest.schedule`; None: its defaults); `final_advance_ms`: its
    `linger_ms` (None: stop at the last receipt)."""
    fixes = history_frame(history, mapping).reset_index(drop=True)
    description = describe(places, circles, speed_limits_kmh=speed_limits_kmh, places_file=places_file)
    circles_of_person = {int(u): [int(c) for c in cs] for u, cs in (circles or {}).items()}
    server = schedule(fixes, batch=batch, span_ms=span_ms, tick_ms=tick_ms, idle_ticking_ms=idle_ticking_ms,
                      linger_ms=final_advance_ms)
    users, counts = np.unique(fixes["user"].to_numpy(np.uint32) if "user" in fixes else np.zeros(len(fixes), np.uint32), return_counts=True)
    per_user = {int(u): int(c) for u, c in zip(users, counts)}
    if isinstance(partitions, dict):
        assignment = {int(u): int(p) for u, p in partitions.items()}
        missing = sorted(set(per_user) - set(assignment))
        if missing:
            raise ValueError(f"partitions: users {missing[:5]} have no partition")
        check_partition(assignment, circles_of_person)
        count = max(assignment.values(), default=0) + 1
    else:
        assignment = partition(per_user, circles_of_person, int(partitions))
        count = int(partitions)
    columns = {name: fixes[name].to_numpy(dtype) for name, (_, dtype, _) in _FIX_COLUMNS.items() if name in fixes}
    steps = server.steps
    is_upload = server.is_upload
    refused = steps["refused"] != 0
    # An upload is one phone's: its first fix names the person, and so the partition.
    user = columns["user"] if "user" in columns else np.zeros(len(fixes), np.uint32)
    step_partition = np.full(len(steps), -1, np.int64)
    step_partition[is_upload] = [assignment[int(u)] for u in user[server.rows[steps["first_row"][is_upload]]]]
    identity = hashlib.sha256(description.encode())
    for name in sorted(columns):
        identity.update(name.encode())
        identity.update(np.ascontiguousarray(columns[name]).tobytes())
    identity.update(steps.tobytes())
    identity.update(server.rows.tobytes())
    plans = []
    for p in range(count):
        # Its own uploads as batches; every tick, and every other partition's
        # upload the server took (not refused), as a clock advance to its
        # receipt time: a batch advances everybody's clock.
        own = is_upload & (step_partition == p)
        taken_steps = np.flatnonzero(own | ~is_upload | ~refused).astype(np.int64)
        rows, bounds, filled = [], np.full((len(taken_steps), 2), -1, np.int64), 0
        for i, step in enumerate(taken_steps):
            if not own[step]:
                continue
            picked = server.positions(step)
            rows.append(picked)
            bounds[i] = (filled, filled + len(picked))
            filled += len(picked)
        taken = np.concatenate(rows) if rows else np.array([], np.int64)
        fingerprint = identity.copy()
        fingerprint.update(f"partition {p} of {count}: {sorted(u for u, q in assignment.items() if q == p)}".encode())
        plans.append(PartitionPlan(
            partition=p, users=np.array(sorted(u for u, q in assignment.items() if q == p), dtype=np.uint32),
            columns={name: np.ascontiguousarray(values[taken]) for name, values in columns.items()},
            steps=taken_steps, bounds=bounds, times=steps["time_ms"][taken_steps], description=description,
            fingerprint=fingerprint.hexdigest(), library=library_identity(),
        ))
    return plans


def merge(parts: list[PartitionEvents], step_time: np.ndarray | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The partitions' events in the single-process order (step, kind, the
    batch's own events before the clock's, user, then as produced; the
    origins are the library's), and their schema errors in step order.
    Partitions that different libhearth builds produced are refused
    (ValueError naming them): the single-process replay runs one library."""
    build = lambda p: getattr(p, "library", "a package that names no build")  # noqa: E731 (a worker on an older package)
    libraries = sorted({build(p) for p in parts})
    if len(libraries) > 1:
        which = "; ".join(f"{name}: partitions {[p.partition for p in parts if build(p) == name]}" for name in libraries)
        raise ValueError(f"the partitions ran on different libhearth builds ({which}); install one build on every worker")
    records = _cat([p.records for p in parts], _PACKED)
    steps = _cat([p.steps for p in parts], np.int64)
    lines = [line for p in parts for line in p.lines]
    origin = _cat([p.origins for p in parts], np.int32)
    order = np.lexsort((records["user"], origin, records["kind"], steps))  # stable: ties keep the partition's own order
    frame = pd.DataFrame({"step": steps[order]})
    if step_time is not None:
        frame["step_time_ms"] = step_time[frame["step"].to_numpy()] if len(frame) else np.empty(0, np.int64)
    for name in _EVENT_FIELDS:
        frame[name] = records[name][order]
    frame["kind"] = pd.Categorical.from_codes(frame["kind"], categories=list(EVENT_KINDS.values()))
    with_datetimes(frame, zero_is_unused=True)  # python/README.md, Conventions: as Ingest's events
    frame["json"] = [lines[i] for i in order]
    errors = sorted((int(s), m) for p in parts for s, m in p.schema_errors)
    return frame, pd.DataFrame(errors, columns=["step", "message"])


def replay(history, places=None, circles=None, client=None, *, speed_limits_kmh=None, places_file=None,
           partitions: int | dict | None = None, tick_ms: int | None = None, idle_ticking_ms: int | None = None,
           final_advance_ms: int | None = 2 * 3_600_000, batch: int | None = None, span_ms: int | None = None,
           mapping=None, checkpoint_dir=None,
           checkpoint_every_steps: int | None = None, checkpoint_every_s: float | None = 30.0,
           time_limit_s: float | None = None, progress=True, n_workers: int | None = None) -> ReplayResult:
    """A recorded fleet history through the ingest path, partitioned on a
    cluster, merged into the single-process replay's events.

    `history`: see `history_frame`; `places`, `circles`, `speed_limits_kmh`,
    `places_file`: as `hearth.Ingest`. `client`: as `hearth.distributed.sweep`
    (None: a LocalCluster here; an address; a Client; an Executor).
    `partitions`: how many (default: twice the workers), or a user →
    partition mapping. `tick_ms`, `idle_ticking_ms`, `final_advance_ms`,
    `batch`, `span_ms`: the server's schedule (`plan`; the library's rules). `checkpoint_dir`: a
    folder every worker can reach (a shared file system on a cluster; None:
    a temporary folder here, removed afterwards, which serves a LocalCluster
    or a process pool); checkpoints every `checkpoint_every_s` s or
    `checkpoint_every_steps` steps. `time_limit_s` per partition (its people
    are then reported in `failed`; a rerun with the same checkpoint_dir
    goes on from its last checkpoint).
    The events are identical, row for row, to `replay_in_process` (one
    pipeline, every person), on any number of workers and partitions."""
    own_dir = checkpoint_dir is None
    folder = tempfile.mkdtemp(prefix="hearth-replay-") if own_dir else os.fspath(checkpoint_dir)
    try:
        with Backend(client, n_workers=n_workers) as backend:
            count = partitions if partitions is not None else 2 * max(1, backend.workers)
            plans = plan(history, places, circles, speed_limits_kmh=speed_limits_kmh, places_file=places_file, partitions=count,
                         tick_ms=tick_ms, idle_ticking_ms=idle_ticking_ms, final_advance_ms=final_advance_ms, batch=batch,
                         span_ms=span_ms, mapping=mapping)
            step_time = _step_times(plans)
            started = time.perf_counter()
            tracker = Progress("hearth replay", len(plans), progress, unit="fixes", dashboard=backend.dashboard)
            token = uuid.uuid4().hex[:8]
            arguments = [(p, folder, checkpoint_every_steps, checkpoint_every_s, time_limit_s) for p in plans]
            outcomes = {}
            for i, outcome in backend.run(f"hearth-replay-{token}", run_partition, arguments):
                if isinstance(outcome, BaseException):
                    outcome = Outcome(i, f"partition {i}", "error", error=f"partition {i}: {type(outcome).__name__}: {outcome}")
                if outcome.kind == "time limit":
                    backend.abandoned(outcome.worker)
                outcomes[i] = outcome
                tracker.step(outcome)
            wall = time.perf_counter() - started
    finally:
        if own_dir:
            shutil.rmtree(folder, ignore_errors=True)
    ordered = [outcomes[p.partition] for p in plans]
    done = [o.data for o in ordered if o.kind == "ok"]
    events, errors = merge(done, step_time)
    by_partition = {e.partition: e for e in done}
    table = pd.DataFrame([{
        "partition": p.partition, "people": len(p.users), "fixes": p.fixes, "steps": len(p.steps),
        "resumed_from": by_partition[p.partition].resumed_from if p.partition in by_partition else -1,
        "worker": outcomes[p.partition].worker, "busy_s": outcomes[p.partition].seconds,
        "library": by_partition[p.partition].library if p.partition in by_partition else None,
    } for p in plans])
    failed = pd.DataFrame([{"partition": o.index, "kind": o.kind, "reason": o.error,
                            "users": plans[o.index].users.tolist()} for o in ordered if o.kind != "ok"],
                          columns=["partition", "kind", "reason", "users"])
    result = ReplayResult(events, errors, table, failed, summary(ordered, wall, unit="fixes"), wall)
    if progress is True:
        print_summary("hearth replay", result.summary, wall, unit="fixes")
    return result


def _step_times(plans: list[PartitionPlan]) -> np.ndarray:
    """The server clock of every global step (each partition knows its own)."""
    size = max((int(p.steps.max()) + 1 for p in plans if len(p.steps)), default=0)
    out = np.zeros(size, np.int64)
    for p in plans:
        out[p.steps] = p.times
    return out


def replay_in_process(history, places=None, circles=None, **options) -> ReplayResult:
    """The single-process replay: one pipeline, every person, every step in
    order (`replay`'s options, without the cluster's). What `replay` equals."""
    plans = plan(history, places, circles, partitions=1, **options)
    started = time.perf_counter()
    events = _replay(plans[0], None, None, None)
    frame, errors = merge([events], _step_times(plans))
    table = pd.DataFrame([{"partition": 0, "people": len(plans[0].users), "fixes": plans[0].fixes, "steps": len(plans[0].steps),
                           "resumed_from": 0, "worker": worker_name(), "busy_s": time.perf_counter() - started,
                           "library": events.library}])
    return ReplayResult(frame, errors, table, wall_s=time.perf_counter() - started)
