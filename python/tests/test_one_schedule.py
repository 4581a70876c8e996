"""One server schedule (docs/decisions/0010-one-server-schedule.md): the same
history replayed through `hearth geo replay`, `hearth.Ingest.replay` and
`hearth.distributed.replay` (1 and 2 workers) gives byte-identical event
lines. The histories have several devices per person, late and duplicated
uploads, receipts and fix times on whole minutes (the timer's edges) and a
refused upload."""

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import hearth
import hearth.distributed as hd
from conftest import run
from fleet import MINUTE, fleet
from hearth._ffi import lib
from hearth.ingest import schedule

EVENTS = ("geofence", "speedAlert", "suddenStop", "trip", "stay")
ACTIVITY = {0: "unknown", 1: "still", 2: "walking", 3: "running", 4: "cycling", 5: "automotive"}


def adversarial(seed):
    """A fleet whose people carry a second device (its own clock: every other
    fix of a stretch, 30 s later), with receipts: each phone's fixes arrive in
    bundles received on whole minutes, one phone's last bundles two hours
    late, one retried stretch received again later, a fix on a bundle's
    receipt minute exactly."""
    history, places, circles, limits = fleet(seed=seed, families=3, per_family=2)
    rng = np.random.default_rng(seed)
    second = []
    for user in sorted(history.user.unique())[::2]:
        own = history[history.user == user].iloc[::2].copy()
        own["device"] = np.uint32(2)
        own["time_ms"] += 30_000
        second.append(own)
    history = pd.concat([history, *second], ignore_index=True)
    bundle = int(rng.integers(3, 8)) * MINUTE
    history["received_ms"] = (history.time_ms // bundle + 1) * bundle  # on whole minutes
    late = int(history.user.max())
    history.loc[(history.user == late) & (history.time_ms > history.time_ms.median()), "received_ms"] += 2 * 3_600_000
    retried = history[history.user == history.user.min()].iloc[20:30].copy()
    retried["received_ms"] = retried.received_ms.max() + 10 * MINUTE
    history = pd.concat([history, retried], ignore_index=True)
    edge = history.index[(history.device == 1)][40]
    history.loc[edge, "time_ms"] = history.loc[edge, "received_ms"]  # a fix taken the millisecond it is received
    # The log in the order the server got the rows.
    history = history.sort_values("received_ms", kind="stable").reset_index(drop=True)
    return history, places, circles, limits


def upload_log(history, path):
    """The history as the upload log `hearth geo replay` reads (the same numbers, shortest round-trip text)."""
    log = pd.DataFrame({
        "user": history.user, "device": history.device, "time_ms": history.time_ms,
        "latitude": history.latitude_deg, "longitude": history.longitude_deg, "accuracy_m": history.horizontal_accuracy_m,
        "speed_mps": history.speed_mps, "activity": [ACTIVITY[int(a)] for a in history.activity],
        "received_ms": history.received_ms,
    })
    log.to_csv(path, index=False)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_command_hearth_ingest_and_the_fleet_print_the_same_lines(command, tmp_path, seed):
    history, places, circles, limits = adversarial(seed)
    description = hearth.describe(places, circles, speed_limits_kmh=limits)
    until = int(history.received_ms.max()) + 2 * 3_600_000
    (tmp_path / "description.json").write_text(description)
    upload_log(history, tmp_path / "log.csv")
    printed = run(command, "geo", "replay", tmp_path / "log.csv", "--description", tmp_path / "description.json",
                  "--until", until, check_codes=(0,))
    from_command = printed.stdout.decode().splitlines()

    lines = hearth.Ingest(description=description).replay(history, until_ms=until)
    from_ingest = [line for line in lines if line.split('"type":"')[1].split('"')[0] in EVENTS]

    assert from_command == from_ingest and len(from_ingest) > 50
    kinds = {line.split('"type":"')[1].split('"')[0] for line in from_ingest}
    assert set(EVENTS) <= kinds, kinds
    assert b"uploads refused" in printed.stderr and b"1 uploads refused" in printed.stderr  # the impossible latitude

    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            result = hd.replay(history, places, circles, client, speed_limits_kmh=limits, progress=False)
        assert result.complete and len(result.partitions) == 2 * workers
        events = result.events[result.events.kind.astype(str).isin(EVENTS)]
        assert events.json.tolist() == from_ingest, f"{workers} workers"


def test_the_schedule_through_the_c_abi_is_the_command_s(command, tmp_path):
    # The steps Python gets are those the command replays: as many uploads,
    # and the clock where the command says it ended.
    history, places, circles, limits = adversarial(3)
    plan = schedule(history)
    upload_log(history, tmp_path / "log.csv")
    (tmp_path / "d.json").write_text(hearth.describe(places, circles, speed_limits_kmh=limits))
    err = run(command, "geo", "replay", tmp_path / "log.csv", "--description", tmp_path / "d.json", check_codes=(0,)).stderr.decode()
    uploads = int((plan.steps["kind"] == lib.HEARTH_STEP_UPLOAD).sum())
    assert f"in {uploads} uploads to {int(plan.steps['time_ms'][-1])} ms" in err
    # Each upload is one phone's, its rows in the order the phone sent them.
    for step in np.flatnonzero(plan.is_upload):
        rows = plan.positions(step)
        assert len(set(zip(history.user.iloc[rows], history.device.iloc[rows]))) == 1
        assert (np.diff(rows) > 0).all()
    assert sorted(plan.rows.tolist()) == list(range(len(history)))
    assert plan.steps["refused"].sum() == 1


def test_bad_schedule_settings_are_refused_by_name():
    history, *_ = fleet(families=2, per_family=2, bad_upload=False, retried=False)
    with pytest.raises(ValueError, match="tick_ms is 0, below 1"):
        schedule(history, tick_ms=0)
    with pytest.raises(ValueError, match="max_fixes is 0, below 1"):
        schedule(history, batch=0)
    assert len(schedule(history, idle_ticking_ms=0).steps) == len(list(hearth.uploads(history)))


def test_a_timer_that_would_tick_past_the_cap_is_refused_not_allocated():
    # A 1 s timer that never idles, on to 2199: billions of ticks. The library
    # refuses the settings with a reason instead of running out of memory.
    history, *_ = fleet(families=2, per_family=2, bad_upload=False, retried=False)
    with pytest.raises(ValueError, match="tick more than 5000000 times"):
        schedule(history, tick_ms=1000, idle_ticking_ms=2**63 - 1, until_ms=7_258_118_399_999)


def test_every_step_is_a_server_clock_from_1900_to_2200():
    # A receipt in nanoseconds or past 2200 is a clock in the wrong unit: refused
    # naming the first such fix and how many, as hearth_ingest_batch refuses
    # it. A linger past 2200 stops at the window's last millisecond, so every
    # step of the plan is a clock hearth_ingest_tick takes.
    history, *_ = fleet(families=1, per_family=2, bad_upload=False, retried=False)
    last = 7_258_118_399_999
    logged = history.copy()
    logged["received_ms"] = logged.time_ms + 1_000
    assert len(schedule(logged).steps) > 0
    logged.loc[logged.index[3], "received_ms"] = last + 1
    logged.loc[logged.index[5], "received_ms"] = 1_700_000_000_000_000_000  # nanoseconds
    with pytest.raises(ValueError, match=r"the receipt of fix 3: 7258118400000 is not a time from 1900 to 2200.*\(2 receipts in all\)"):
        schedule(logged)
    with pytest.raises(ValueError, match="until"):
        schedule(history, until_ms=last + 1)
    assert schedule(history, until_ms=last).steps["time_ms"][-1] == last
    late = history.copy()
    late["time_ms"] += last - 60_000 - int(late.time_ms.max())
    plan = schedule(late, linger_ms=2**63 - 1)
    assert plan.steps["time_ms"][-1] == last and (plan.steps["time_ms"] <= last).all()
