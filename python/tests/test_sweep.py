"""The sweep in tasks: byte-identical to `hearth impact sweep --out`,
however the tasks are scheduled."""

import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import hearth
from conftest import DRIVE, DROP, run

FILES = ["sweep.csv", "outcomes.csv", "jolts.csv", "configurations.json", "sweep.json", "report.html"]
ARGS = dict(grid={"jolt_g": [4, 5], "spin_radps": [3, 3.5]}, seeds=1, hours=0.1)


@pytest.fixture(scope="module")
def command_sweep(command, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    run(command, "impact", "sweep", DRIVE, DROP, "--jolt-g", "4,5", "--spin", "3,3.5", "--seeds", "1", "--hours", "0.1",
        "--pick", "2", "--out", out, check_codes=(0,))
    return out


@pytest.fixture(scope="module")
def threaded():
    return hearth.sweep([DRIVE, DROP], n_jobs=2, **ARGS)


def test_every_export_is_the_command_s_byte_for_byte(command_sweep, threaded, tmp_path):
    for name in FILES:
        assert threaded.export(name) == (command_sweep / name).read_bytes(), name
    threaded.write(tmp_path, pick=2)
    for name in FILES + ["picked-configuration.json"]:
        assert (tmp_path / name).read_bytes() == (command_sweep / name).read_bytes(), name


def test_a_process_pool_and_hand_scheduled_tasks_give_the_same_bytes(threaded):
    with ProcessPoolExecutor(2) as pool:
        pooled = hearth.sweep([DRIVE, DROP], executor=pool, **ARGS)
    plan_json = hearth.spec([DRIVE, DROP], **ARGS)
    plan = hearth.SweepPlan(plan_json)
    # Tasks run in reverse, pickled and back (as a cluster would ship them).
    parts = {i: pickle.loads(pickle.dumps(hearth.run_task(plan_json, i))) for i in reversed(range(len(plan)))}
    by_hand = plan.merge([parts[i] for i in range(len(plan))])
    for name in FILES:
        assert pooled.export(name) == threaded.export(name) == by_hand.export(name), name


def test_a_merge_refuses_a_repeated_a_lost_or_another_plan_s_extraction():
    plan_json = hearth.spec(grid={"jolt_g": [4, 5]}, seeds=1, hours=0)
    plan = hearth.SweepPlan(plan_json)
    parts = [plan.run_task(i) for i in range(3)]
    rest = [plan.run_task(i) for i in range(3, len(plan))]
    assert plan.merge(parts + rest).table.shape[0] == 2
    with pytest.raises(hearth.BadInputError, match="extraction 2 .* repeats an earlier task"):
        plan.merge(parts[:2] + parts[1:] + rest)
    with pytest.raises(hearth.BadInputError, match="has no extraction"):
        plan.merge(parts + rest[:-1])
    other = hearth.SweepPlan(hearth.spec(grid={"jolt_g": [3, 4]}, seeds=1, hours=0))
    with pytest.raises(hearth.BadInputError, match="extraction 0 .* another plan"):
        plan.merge([other.run_task(0)] + parts[1:] + rest)
    # A refused merge leaves no result behind (not the earlier one).
    with pytest.raises(hearth.HearthError, match="not merged"):
        hearth.SweepResult(plan).export("sweep.csv")


def test_the_frames_are_tidy(threaded):
    assert len(threaded.table) == 4 and {"recall", "false_alarms_per_1000h"} <= set(threaded.table.columns)
    assert set(threaded.outcomes.kind) == {"scenario", "drive", "recording"}
    assert set(threaded.jolts.is_crash) == {0, 1}
    assert "<table" in threaded._repr_html_()


def test_an_unreadable_recording_is_reported_and_left_out(tmp_path):
    result = hearth.sweep([tmp_path / "gone", DROP], grid={"jolt_g": [4]}, seeds=1, hours=0)
    assert len(result.failures) == 1 and "gone" in result.failures[0]
    assert list(result.outcomes[result.outcomes.kind == "recording"].source) == [str(DROP)]


def test_a_bad_spec_is_named():
    with pytest.raises(hearth.BadInputError, match="unknown key 'jolts' \\(nearest known: 'jolt_g'"):
        hearth.SweepPlan('{"jolts": [1]}')
    with pytest.raises(hearth.BadInputError, match="'seeds'"):
        hearth.SweepPlan('{"seeds": 0}')
    with pytest.raises(hearth.HearthError, match="not merged"):
        hearth.SweepResult(hearth.SweepPlan("{}")).export("sweep.csv")


@pytest.mark.parametrize("grid, named", [
    ({"jolt_g": [4, -4]}, r"jolt_g -4: joltMetersPerSecondSquared: -39\.2266 m/s² is outside \(0, 627\.6256\] m/s²"),
    ({"jolt_g": [0]}, r"jolt_g 0: joltMetersPerSecondSquared: 0 m/s² is outside \(0, "),
    ({"jolt_g": [1e308]}, r"jolt_g 1e\+308: joltMetersPerSecondSquared: ∞ m/s² is outside \(0, "),
    ({"spin_radps": [-1]}, r"spin_rad_s -1: spinRadiansPerSecond: -1 rad/s is outside \[0, ∞\) rad/s"),
    ({"pressure_hpa": [-1]}, r"pressure_hpa -1: pressureRiseHectopascals: -1 hPa is outside \[0, ∞\) hPa"),
    ({"moving_mps": [-1]}, r"moving_m_s -1: movingMedianMetersPerSecond: -1 m/s is outside \[0, ∞\) m/s"),
    ({"free_fall_s": [-1]}, r"free_fall_s -1: freeFallSeconds: -1 s is outside \[0, ∞\) s"),
])
def test_a_plan_with_a_threshold_outside_its_domain_is_refused_whole_before_any_task(grid, named):
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.SweepPlan(hearth.spec(grid=grid, seeds=1, hours=0))
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.sweep(grid=grid, seeds=1, hours=0)


@pytest.mark.parametrize("seeds, hours, named", [
    (1_000_000, 0, r"the sweep is too large: 3e\+07 traces × 1 combinations, .* samples, about [0-9.e+]+ GB, over the budget of 2\.15 GB"),
    (1, 1_000_000, r"the sweep is too large: 3\.4e\+06 traces × 1 combinations"),
])
def test_a_plan_over_the_memory_budget_is_refused_from_its_estimate_before_any_task(seeds, hours, named):
    # The library's own caps for seeds and hours: refused at once, with the
    # estimate, instead of listing millions of tasks (issue 29.7).
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.SweepPlan(hearth.spec(seeds=seeds, hours=hours))
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.sweep(seeds=seeds, hours=hours)


def test_a_plan_within_the_memory_budget_is_planned():
    plan = hearth.SweepPlan(hearth.spec(grid={"jolt_g": [3, 4, 5, 6]}, seeds=2, hours=1))
    assert len(plan) > 2 * 30  # 30 scenarios × 2 seeds, then the drives of 1 h


def test_a_plan_passed_where_another_kind_belongs_is_refused_and_keeps_its_message():
    # review27 R12: the plan is read by several threads at once, so a wrong-kind call writes no message on it.
    from hearth._ffi import created, ffi

    plan = hearth.SweepPlan(hearth.spec(grid={"jolt_g": [4]}, seeds=1, hours=0))
    lab = plan._lab
    count = ffi.new("int64_t *", -1)
    assert lab.hearth_trace_count(ffi.cast("hearth_trace *", plan._handle), 0, count) == lab.HEARTH_ERROR_ARGUMENT
    assert count[0] == -1
    assert lab.hearth_detector_finish(ffi.cast("hearth_detector *", plan._handle)) == lab.HEARTH_ERROR_ARGUMENT
    assert ffi.string(lab.hearth_last_error(plan._handle)) == b""
    assert len(plan) > 0, "the plan still works"
    # A detector (one thread at a time) handed to the plan's call is told on its own message.
    detector = created(lab.hearth_detector_create, ffi.NULL, library=lab)
    tasks = ffi.new("int64_t *", -1)
    assert lab.hearth_sweep_task_count(ffi.cast("hearth_sweep *", detector), tasks) == lab.HEARTH_ERROR_ARGUMENT
    assert tasks[0] == -1
    assert ffi.string(lab.hearth_last_error(detector)) == b"a handle of another kind was passed"
