"""hearth.distributed.replay (fleet.py): a fleet history partitioned by circle-connected
components, replayed on workers, merged into exactly the single-process
replay's events; checkpoints that a retried partition resumes from."""

import dataclasses
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import hearth
import hearth.distributed as hd
from hearth._ffi import _LIBRARY_PATH, library_identity
from hearth.distributed import fleet as rp
from fleet import MINUTE, T0, fleet, person_day, reference
from hearth.ingest import schedule

TYPED = ["step", "kind", "code", "announced", "user", "device", "circle", "place", "index", "time_ms", "end_ms", "cell_id", "latitude_deg", "longitude_deg", "value"]
SEED = int(os.environ.get("HEARTH_PROPERTY_SEED", "20261202"))


@pytest.fixture(scope="module")
def world():
    return fleet()


@pytest.fixture(scope="module")
def single(world):
    history, places, circles, limits = world
    return hd.replay_in_process(history, places, circles, speed_limits_kmh=limits)


# MARK: the partitioning rule


def test_components_join_people_through_chains_of_shared_circles():
    circles = {1: [10], 2: [10, 20], 3: [20], 4: [30], 6: [40]}
    of = hd.components([1, 2, 3, 4, 5, 6], circles)
    assert of == {1: 1, 2: 1, 3: 1, 4: 4, 5: 5, 6: 6}  # 1–2 share 10, 2–3 share 20; 5 is in no circle
    assert hd.components([3, 1], {3: [7], 1: [7], 9: [7]}) == {1: 1, 3: 1}  # people not in the history are left out


def test_partitions_hold_whole_components_largest_first_on_the_lightest():
    circles = {1: [10], 2: [10], 3: [20], 4: [30], 5: [30]}
    fixes = {1: 50, 2: 50, 3: 70, 4: 10, 5: 10}
    assert hd.partition(fixes, circles, 2) == {1: 0, 2: 0, 3: 1, 4: 1, 5: 1}
    assert hd.partition(fixes, circles, 1) == {u: 0 for u in fixes}
    assert hd.partition(fixes, circles, 9) == hd.partition(dict(reversed(list(fixes.items()))), circles, 9)
    with pytest.raises(ValueError, match="at least 1"):
        hd.partition(fixes, circles, 0)


def test_a_split_circle_is_refused_by_name(world):
    history, places, circles, limits = world
    with pytest.raises(ValueError, match=r"circle 1 spans partitions 0 \(user 100\) and 1 \(user 101\)"):
        rp.plan(history, places, circles, speed_limits_kmh=limits, partitions={u: u % 2 for u in history.user.unique()})
    with pytest.raises(ValueError, match="have no partition"):
        rp.plan(history, places, circles, partitions={100: 0})


def test_why_circles_may_not_span_partitions(world, single):
    # Two members of circle 2 speed within 30 minutes of each other: replayed
    # together, the second one's first alert is held back by the first's (the
    # circle's cooldown); replayed apart, as a split circle would be, it is
    # announced at once.
    history, places, circles, limits = world
    family = history[history.user.isin([103, 104, 105])]

    def alerts(events):
        speed = events[(events.kind == "speedAlert") & (events.circle == 2)]
        return sorted(zip(speed.user, speed.time_ms, speed.announced))

    together = alerts(hd.replay_in_process(family, places, circles, speed_limits_kmh=limits).events)
    apart = alerts(pd.concat([hd.replay_in_process(family[family.user == u], places, circles, speed_limits_kmh=limits).events for u in (103, 104, 105)]))
    assert together != apart
    assert [a for a in together if a[0] == 104][0][2] == 0 and [a for a in apart if a[0] == 104][0][2] == 1


# MARK: the single-process replay


def test_the_in_process_replay_is_the_plain_reference(world, single):
    history, places, circles, limits = world
    events, errors = reference(history, places, circles, limits)
    pd.testing.assert_frame_equal(single.events[TYPED].reset_index(drop=True), events[TYPED].reset_index(drop=True))
    assert [json.loads(line) for line in single.events.json] == [json.loads(line) for line in events.json]
    assert list(single.schema_errors.itertuples(index=False, name=None)) == errors
    # What the fleet exercises: every kind of event but a rejected fix, and the circle cooldown.
    kinds = set(single.events.kind)
    assert {"sharedFrame", "geofence", "speedAlert", "suddenStop", "trip", "stay"} <= kinds
    speed = single.events[single.events.kind == "speedAlert"]
    assert set(speed.announced) == {0, 1}


def test_the_single_process_events_already_come_in_the_merge_order(world):
    # The merge orders by (step, kind, origin, user): within a step and kind
    # the library gives a batch's own events first (origin 0), then the clock
    # advance's (origin 1), person by person. The reference keeps the
    # pipeline's own order, which must already be that order.
    events, _ = reference(*world)
    key = list(zip(events.step, events.kind.cat.codes, events.origin, events.user))
    assert key == sorted(key)
    assert set(events.origin) == {0, 1}


def ambiguous_history():
    """The case the merge once had to guess (ABI 1.1): persons 100 and 102, in
    circles of their own (two partitions), stop after the same drive at the
    same millisecond; what follows the stop arrives 20 min late, and no timer
    runs, so both sudden stops are still pending when 102's home tablet sends
    a `still` fix 6 min later (overruled: 102's phone is fresh). That
    upload's clock advance raises both stops: the uploader's own clock event
    and a smaller id's in the other partition, same step, same kind."""
    places = [{"id": 1, "circle": 1, "name": "A", "latitude_deg": 52.40, "longitude_deg": 13.30, "radius_m": 150.0},
              {"id": 2, "circle": 2, "name": "B", "latitude_deg": 52.50, "longitude_deg": 13.40, "radius_m": 150.0}]
    circles = {100: [1], 102: [2]}
    history = pd.concat([person_day(np.random.default_rng(5), user, 1, home, T0, drive_mps=18.0)
                         for user, home in ((100, (52.40, 13.30)), (102, (52.50, 13.40)))], ignore_index=True)
    a = history[history.user == 100]
    stop = int(a.time_ms[(a.activity == 1) & (a.activity.shift() == 5)].iloc[0])
    received = (history.time_ms // (2 * MINUTE) + 1) * (2 * MINUTE)
    received[history.time_ms > stop - 2 * MINUTE] = stop + 1000
    received[history.time_ms > stop] = stop + 20 * MINUTE
    history["received_ms"] = received
    tablet = history[(history.user == 102) & (history.time_ms <= stop)].iloc[-1].copy()
    tablet["device"], tablet["time_ms"], tablet["received_ms"] = 2, stop + 30_000, stop + 6 * MINUTE
    tablet["speed_mps"], tablet["activity"] = 0.0, 1
    history = pd.concat([history, tablet.to_frame().T.astype(history.dtypes)], ignore_index=True)
    return history.sort_values("received_ms", kind="stable").reset_index(drop=True), places, circles


def test_the_uploader_s_own_clock_event_sorts_by_its_origin_not_a_guess():
    history, places, circles = ambiguous_history()
    events, _ = reference(history, places, circles, {}, idle_ticking_ms=0)
    plan = schedule(history, linger_ms=2 * 3_600_000, idle_ticking_ms=0)
    uploads = plan.steps["kind"] == hearth.ingest.lib.HEARTH_STEP_UPLOAD
    uploader = np.full(len(plan.steps), -1, np.int64)
    uploader[uploads] = history.user.to_numpy()[plan.rows[plan.steps["first_row"][uploads]]]
    stops = events[(events.kind == "suddenStop") & (events.origin == 1)]
    at = stops[stops.user.astype(np.int64) == uploader[stops.step]].step.unique()
    both = stops[stops.step.isin(at)]
    assert list(both.user) == [100, 102] and (uploader[both.step] == 102).all() and (both.announced == 1).all()
    # The old guess (the uploader's events before anyone else's in its own
    # partition are the upload's) puts 102 first; the library's origins do not.
    guessed = sorted(zip(both.user, [0 if u == 102 else 1 for u in both.user]), key=lambda e: (e[1], e[0]))
    assert [u for u, _ in guessed] == [102, 100]
    single = hd.replay_in_process(history, places, circles, idle_ticking_ms=0)
    for n in (1, 2):
        plans = rp.plan(history, places, circles, partitions=n, idle_ticking_ms=0)
        merged, _ = rp.merge([rp._replay(p, None, None, None) for p in plans], rp._step_times(plans))
        assert merged.equals(single.events), n
    assert [len(p.users) for p in plans] == [1, 1]


def test_another_partition_s_upload_advances_everybody_s_clock(world, single):
    # A batch moves every engine's clock to its receipt time for everybody
    # (a trip of someone who sent nothing closes at anyone's upload): each
    # partition runs the other partitions' uploads as clock advances, so the
    # event lands on the same step as in one process.
    history, places, circles, limits = world
    events, _ = reference(*world)
    uploads = set(events.step[events.origin == 0])
    advanced = events[(events.origin == 1) & events.step.isin(uploads)]
    assert len(advanced) > 0, "the fleet has no event decided by another person's upload"
    plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=3)
    events, _ = rp.merge([rp._replay(p, None, None, None) for p in plans], rp._step_times(plans))
    assert events.equals(single.events)


# MARK: the distributed replay


def test_any_valid_partitioning_gives_the_single_process_events(world, single):
    # Property: random assignments of whole components to 1–6 partitions,
    # each partition replayed on its own, merged (seed: HEARTH_PROPERTY_SEED).
    history, places, circles, limits = world
    rng = random.Random(SEED)
    of = hd.components(history.user.unique(), circles)
    for case in range(25):
        n = rng.randint(1, 6)
        label = {c: rng.randrange(n) for c in sorted(set(of.values()))}
        assignment = {u: label[c] for u, c in of.items()}
        plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=assignment)
        parts = [rp._replay(p, None, None, None) for p in plans]
        events, errors = rp.merge(parts, rp._step_times(plans))
        assert events.equals(single.events) and errors.equals(single.schema_errors), f"seed {SEED} case {case}: {assignment}"


def test_a_process_pool_and_a_local_cluster_give_the_single_process_events(world, single):
    history, places, circles, limits = world
    with ProcessPoolExecutor(2) as pool:
        for n in (1, 2, 5):
            result = hd.replay(history, places, circles, pool, speed_limits_kmh=limits, partitions=n, progress=False)
            assert result.events.equals(single.events) and result.complete, n
            assert result.partitions.fixes.sum() == len(history) and (result.partitions.resumed_from == 0).all()
            assert (result.partitions.library == library_identity()).all()  # the workers loaded this build too
    result = hd.replay(history, places, circles, speed_limits_kmh=limits, n_workers=2, progress=False)
    assert result.events.equals(single.events) and len(result.partitions) == 4
    assert list(result.partitions.columns) == list(single.partitions.columns)  # the same table, one row or many


def test_receipt_times_late_uploads_and_a_parquet_history(world, tmp_path):
    history, places, circles, limits = world
    late = history.copy()
    # Every phone's fixes arrive in 10-minute bundles; one phone's last hour
    # arrives two hours late (late uploads go to the feed only).
    late["received_ms"] = (late.time_ms // 600_000 + 1) * 600_000
    late.loc[late.user == 110, "received_ms"] += 2 * 3_600_000
    expected = hd.replay_in_process(late, places, circles, speed_limits_kmh=limits)
    assert (expected.events.kind == "geofence").any()
    with ProcessPoolExecutor(2) as pool:
        got = hd.replay(late, places, circles, pool, speed_limits_kmh=limits, partitions=3, progress=False)
        assert got.events.equals(expected.events)
        late.to_parquet(tmp_path / "fleet.parquet")
        from_file = hd.replay(tmp_path / "fleet.parquet", places, circles, pool, speed_limits_kmh=limits, partitions=2, progress=False)
    assert from_file.events.equals(expected.events)
    got.write_parquet(tmp_path / "out")
    back = pd.read_parquet(tmp_path / "out" / "events.parquet")
    assert back.json.tolist() == got.events.json.tolist() and list(back.kind) == list(got.events.kind.astype(str))


# MARK: checkpoints and faults


def test_a_partition_resumes_from_its_last_checkpoint(world, single, tmp_path):
    history, places, circles, limits = world
    plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=2)
    straight = [rp._replay(p, None, None, None) for p in plans]
    first = [rp._replay(p, tmp_path, 40, None) for p in plans]
    manifests = [json.loads((tmp_path / f"partition-{p.partition:04d}" / "manifest.json").read_text()) for p in plans]
    assert all(0 < m["position"] < len(p.steps) for m, p in zip(manifests, plans))
    # A retried task finds the checkpoint and goes on from its step.
    again = [rp._replay(p, tmp_path, 40, None) for p in plans]
    for s, f, a, m in zip(straight, first, again, manifests):
        assert f.resumed_from == 0 and a.resumed_from == m["position"]
        assert a.records.tobytes() == s.records.tobytes() == f.records.tobytes() and a.lines == s.lines
    assert rp.merge(again, rp._step_times(plans))[0].equals(single.events)


def test_a_checkpoint_of_another_replay_or_a_damaged_one_is_named(world, tmp_path):
    history, places, circles, limits = world
    plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=1)
    rp._replay(plans[0], tmp_path, 40, None)
    other = rp.plan(history.iloc[:-1], places, circles, speed_limits_kmh=limits, partitions=1)
    with pytest.raises(hearth.BadInputError, match="a checkpoint of another replay"):
        rp._replay(other[0], tmp_path, 40, None)
    manifest = tmp_path / "partition-0000" / "manifest.json"
    chunks = json.loads(manifest.read_text())["chunks"]
    (tmp_path / "partition-0000" / f"chunk-{chunks - 1:06d}.npz").write_bytes(b"not an npz")
    with pytest.raises(hearth.BadInputError, match="partition-0000: damaged checkpoint"):
        rp._replay(plans[0], tmp_path, 40, None)
    manifest.write_text("{not json")
    with pytest.raises(hearth.BadInputError, match="damaged checkpoint"):
        rp._replay(plans[0], tmp_path, 40, None)


def test_the_library_identity_is_the_abi_version_and_the_loaded_file_s_digest(tmp_path):
    identity = library_identity()
    version = hearth.ABI_VERSION
    digest = hashlib.sha256(Path(_LIBRARY_PATH).read_bytes()).hexdigest()[:16]
    assert identity == f"libhearth {version >> 16}.{(version >> 8) & 0xFF}.{version & 0xFF} sha256:{digest}"
    # The file loaded, even once a rebuild or an upgrade replaced it; and a
    # bare name the loader found on LD_LIBRARY_PATH (review24).
    copy = tmp_path / "libhearth.so"
    copy.write_bytes(Path(_LIBRARY_PATH).read_bytes())
    probe = ("import os, sys; from hearth._ffi import library_identity; "
             "new = sys.argv[1] + '.new'; open(new, 'wb').write(b'another build'); os.replace(new, sys.argv[1]); "
             "print(library_identity())")
    for given, extra in ((str(copy), {}), ("libhearth.so", {"LD_LIBRARY_PATH": str(tmp_path)})):
        environment = os.environ | {"HEARTH_LIBRARY": given, "PYTHONPATH": str(Path(hearth.__file__).parent.parent)} | extra
        copy.write_bytes(Path(_LIBRARY_PATH).read_bytes())
        said = subprocess.run([sys.executable, "-c", probe, str(copy)], env=environment, capture_output=True, text=True, check=True)
        assert said.stdout.strip() == identity, (given, said.stdout, said.stderr)
        assert copy.read_bytes() == b"another build"


def test_a_worker_that_loaded_another_build_refuses_the_partition_by_name(world):
    history, places, circles, limits = world
    plan = dataclasses.replace(rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=1)[0],
                               library="libhearth 1.5.0 sha256:0000000000000000")
    outcome = rp.run_partition(plan)
    assert outcome.kind == "other library" and outcome.data is None
    assert outcome.error == ("partition 0: planned on libhearth 1.5.0 sha256:0000000000000000, and this worker loaded "
                             f"{library_identity()}: the schedule and the events would come from two builds "
                             "(install one build on the client and every worker) (bad input)")


def test_a_checkpoint_another_library_wrote_or_an_older_layout_is_refused_by_name(world, single, tmp_path):
    history, places, circles, limits = world
    plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=1)
    rp._replay(plans[0], tmp_path, 40, None)
    manifest_path = tmp_path / "partition-0000" / "manifest.json"
    written = json.loads(manifest_path.read_text())
    assert written["library"] == library_identity()
    other = "libhearth 1.4.0 sha256:0123456789abcdef"
    manifest_path.write_text(json.dumps(written | {"library": other}))
    with pytest.raises(hearth.BadInputError, match=f"written by {other}, and this worker loaded {re.escape(library_identity())}"):
        rp._replay(plans[0], tmp_path, 40, None)
    manifest_path.write_text(json.dumps({k: v for k, v in written.items() if k != "library"} | {"layout": "hearth-replay-checkpoint/3"}))
    with pytest.raises(hearth.BadInputError, match="in the layout 'hearth-replay-checkpoint/3'; this package reads 'hearth-replay-checkpoint/4'"):
        rp._replay(plans[0], tmp_path, 40, None)
    manifest_path.write_text(json.dumps(written))  # the build that wrote it resumes it
    resumed = rp._replay(plans[0], tmp_path, 40, None)
    assert resumed.resumed_from == written["position"] > 0
    assert rp.merge([resumed], rp._step_times(plans))[0].equals(single.events)


def test_partitions_from_different_library_builds_are_not_merged(world, single):
    history, places, circles, limits = world
    plans = rp.plan(history, places, circles, speed_limits_kmh=limits, partitions=3)
    parts = [rp._replay(p, None, None, None) for p in plans]
    assert rp.merge(parts, rp._step_times(plans))[0].equals(single.events)
    parts[1] = dataclasses.replace(parts[1], library="libhearth 1.5.0 sha256:0000000000000000")
    with pytest.raises(ValueError, match=r"different libhearth builds \(libhearth 1.5.0 sha256:0000000000000000: partitions \[1\]; "
                                         + re.escape(f"{library_identity()}: partitions [0, 2]")):
        rp.merge(parts, rp._step_times(plans))
    del parts[1].library  # from a worker on a package that named no build
    with pytest.raises(ValueError, match=re.escape("a package that names no build: partitions [1]")):
        rp.merge(parts, rp._step_times(plans))


def test_a_worker_killed_mid_replay_resumes_from_its_checkpoint(tmp_path):
    # Enough steps that a partition runs for seconds: every fix its own upload.
    history, places, circles, limits = fleet(seed=3, families=24)
    options = dict(speed_limits_kmh=limits, batch=1, tick_ms=20_000)
    expected = hd.replay_in_process(history, places, circles, **options)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, Client(cluster) as client:
        out = {}
        runner = threading.Thread(target=lambda: out.update(result=hd.replay(
            history, places, circles, client, partitions=2, checkpoint_dir=tmp_path, checkpoint_every_steps=100, progress=False, **options)))
        runner.start()
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and runner.is_alive() and time.monotonic() < deadline:
            for manifest in Path(tmp_path).glob("partition-*/manifest.json"):
                try:
                    m = json.loads(manifest.read_text())
                except (OSError, ValueError):
                    continue  # being replaced right now
                if m["position"] >= 300:
                    killed = m
                    os.kill(m["pid"], signal.SIGKILL)
                    break
            time.sleep(0.01)
        runner.join(300)
    assert killed is not None, "no partition reached its third checkpoint before the replay ended"
    result = out["result"]
    assert result.events.equals(expected.events) and result.complete
    resumed = result.partitions.resumed_from
    assert resumed.max() >= killed["position"], result.partitions


def test_a_partition_over_its_time_limit_is_reported_with_its_people(world, tmp_path):
    history, places, circles, limits = world
    with ProcessPoolExecutor(2) as pool:
        result = hd.replay(history, places, circles, pool, speed_limits_kmh=limits, partitions=2, time_limit_s=0.0, progress=False,
                           checkpoint_dir=tmp_path)
    assert not result.complete and list(result.failed.kind) == ["time limit", "time limit"]
    assert sorted(u for users in result.failed.users for u in users) == sorted(history.user.unique())
    assert "exceeded its time limit of 0 s" in result.failed.reason[0]
