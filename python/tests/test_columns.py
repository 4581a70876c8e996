"""Recordings built from columns (hearth_trace_create / hearth_trace_append):
every value is checked as a reader checks a file's rows, and feeding or
sweeping the result ends on any times: whole milliseconds on 250 ms edges,
a time of -3e15 s, samples out of order. Each run that could hang or grow
goes to a child process with a time limit and a memory limit."""

import json
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hearth
from conftest import ROOT
from hearth._ffi import created, ffi, lib, pointer, raise_for, take_bytes, text

# What the child runs: builds the recording described on stdin, feeds it to a
# detector and sweeps it, and prints what came out as JSON.
CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import hearth
    from hearth._ffi import created, ffi, lab, lib, pointer, raise_for, take_bytes, text
    from hearth.sweep import SweepPlan, spec

    case = json.load(sys.stdin)
    t = np.ascontiguousarray(case["t_s"], dtype=np.float64)
    x = np.zeros_like(t)
    z = np.full_like(t, 9.81)
    z[len(z) // 2] = 80.0  # a jolt

    def build(library):
        # The same recording in either library (a handle is used with the library that made it).
        handle = created(library.hearth_trace_create, text(json.dumps(case["metadata"])), library=library)
        raise_for(library.hearth_trace_append(handle, lib.HEARTH_STREAM_ACCELEROMETER, len(t), pointer(t, "double"),
                                              pointer(x, "double"), pointer(x, "double"), pointer(z, "double")), handle, library=library)
        return handle

    handle = build(lib)
    detector = hearth.Detector()
    raise_for(lib.hearth_detector_feed_trace(detector._handle, handle, lib.HEARTH_GATE_ON), detector._handle)
    detector.finish()
    plan = SweepPlan(spec(grid={"jolt_g": [4]}, seeds=1, hours=0))
    extraction = plan.run_trace(build(lab()), "columns")
    info = json.loads(take_bytes(lib.hearth_trace_info, handle))
    print(json.dumps({"verdicts": len(detector.verdicts()), "extraction_bytes": len(extraction), "info": info}))
    """
)


def run_child(case: dict, *, seconds: float = 120, memory_mb: int = 4096) -> dict:
    """The child's JSON; fails when it ran out of time or memory or crashed."""

    def limit():
        size = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT / "python")], input=json.dumps(case).encode(), capture_output=True,
        timeout=seconds, preexec_fn=limit, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return json.loads(result.stdout)


def stamped_ms(first_ms: int, count: int, step_ms: int = 20) -> list[float]:
    """50 Hz seconds written in whole milliseconds, as loggers stamp them."""
    return [float(f"{(first_ms + step_ms * i) / 1000:.3f}") for i in range(count)]


def accelerometer_file(out: dict) -> dict:
    return next(f for f in out["info"]["files"] if f["file"] == "accelerometer")


def test_millisecond_stamps_on_250_ms_edges_are_fed_and_swept():
    # From 0.005 s: the sample at 1.005 s lies 4 x 250 ms after the first,
    # where the subtraction rounds below the edge (the cut used to repeat an
    # empty window there forever). One hour at 50 Hz.
    out = run_child({"metadata": {"format": "test"}, "t_s": stamped_ms(5, 180_000)})
    assert accelerometer_file(out)["rowsKept"] == 180_000 and accelerometer_file(out)["rowsRejected"] == 0
    assert out["extraction_bytes"] > 0


def test_a_time_of_minus_3e15_s_is_rejected_and_counted_and_the_rest_is_fed():
    times = stamped_ms(1234, 3_000)
    times[100] = -3e15
    out = run_child({"metadata": {"format": "test"}, "t_s": times})
    accelerometer = accelerometer_file(out)
    assert accelerometer["rejectedByReason"] == {"badTime": 1} and accelerometer["rowsKept"] == 2_999
    assert "accelerometer:101" in accelerometer["firstRejections"][0]


@pytest.mark.parametrize("origin", [2**63 - 1, -(2**63), 7_258_118_400_000, -2_208_988_800_001])
def test_a_time_origin_no_reader_takes_is_refused_with_its_reason(origin):
    with pytest.raises(hearth.BadInputError, match=r"'timeOriginMs' .* is outside .*1900–2200"):
        created(lib.hearth_trace_create, text(json.dumps({"timeOriginMs": origin})))


@pytest.mark.parametrize("origin", [7_258_118_399_999, -2_208_988_800_000])
def test_the_first_and_last_origins_a_reader_takes_are_accepted_and_fed(origin):
    out = run_child({"metadata": {"timeOriginMs": origin}, "t_s": stamped_ms(5, 3_000)})
    assert out["info"]["timeOriginMs"] == origin and out["extraction_bytes"] > 0


def build(**streams):
    handle = created(lib.hearth_trace_create, text("{}"))
    for stream, columns in streams.items():
        arrays = [np.ascontiguousarray(c, dtype=np.float64) for c in columns]
        pointers = [pointer(a, "double") for a in arrays] + [ffi.NULL] * (4 - len(arrays))
        code = getattr(lib, f"HEARTH_STREAM_{stream.upper()}")
        raise_for(lib.hearth_trace_append(handle, code, len(arrays[0]), *pointers), handle)
    return handle


def files(handle) -> dict:
    return {f["file"]: f for f in json.loads(take_bytes(lib.hearth_trace_info, handle))["files"]}


def samples(handle, stream: int) -> np.ndarray:
    count = ffi.new("int64_t *")
    raise_for(lib.hearth_trace_count(handle, stream, count), handle)
    out = [np.zeros(count[0]) for _ in range(4)]
    raise_for(lib.hearth_trace_samples(handle, stream, count[0], *(pointer(o, "double") for o in out)), handle)
    return out[0]


def test_columns_are_checked_as_a_trace_folder_s_rows():
    t = [0.0, 0.02, 0.01, 0.04, 0.04, np.nan, 0.06, 1e11]
    x = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3000.0, 0.0]
    handle = build(accelerometer=(t, x, np.zeros(8), np.full(8, 9.81)),
                   gyroscope=([0.0, 0.1, 0.2], [0.0, 99.0, 0.0], [0.0] * 3, [0.0] * 3),
                   barometer=([0.0, 0.2, 0.4], [1013.0, 101.3, np.nan]),
                   activities=([0.0, 1.0, 2.0], [5.0, 7.0, 2.5]))
    report = files(handle)
    # Out of order: put in order; an exact repeat, a NaN time, a time beyond
    # 1e10 s and 3000 m/s^2 (over 256 g) rejected, each counted by reason.
    assert report["accelerometer"]["rejectedByReason"] == {"duplicate": 1, "badTime": 2, "outOfRange": 1}
    assert list(samples(handle, lib.HEARTH_STREAM_ACCELEROMETER)) == [0.0, 0.01, 0.02, 0.04]
    assert report["gyroscope"]["rejectedByReason"] == {"outOfRange": 1}  # 99 rad/s: over 4000 deg/s
    assert report["barometer"]["rejectedByReason"] == {"outOfRange": 1, "missingValue": 1}  # kPa read as hPa
    assert report["activities"]["rejectedByReason"] == {"outOfRange": 2}  # 7 and 2.5 are no activity
    assert list(samples(handle, lib.HEARTH_STREAM_ACTIVITIES)) == [0.0]
    for f in report.values():
        assert f["rowsRead"] == f["rowsKept"] + f["rowsRejected"]


def test_an_append_after_use_is_checked_with_the_rest():
    handle = build(accelerometer=([0.0, 0.02], [0.0] * 2, [0.0] * 2, [9.81] * 2))
    assert files(handle)["accelerometer"]["rowsKept"] == 2
    t = np.array([0.01, np.nan])
    zero = np.zeros(2)
    g = np.full(2, 9.81)
    raise_for(lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACCELEROMETER, 2, pointer(t, "double"),
                                      pointer(zero, "double"), pointer(zero, "double"), pointer(g, "double")), handle)
    assert files(handle)["accelerometer"]["rowsKept"] == 3 and files(handle)["accelerometer"]["rowsRejected"] == 1
    assert list(samples(handle, lib.HEARTH_STREAM_ACCELEROMETER)) == [0.0, 0.01, 0.02]


def test_a_sample_more_than_60_s_late_is_rejected_and_a_less_late_one_is_put_in_order():
    """hearth.h's hearth_trace_append: the reorder horizon of the readers, over every append."""
    handle = build(accelerometer=([0.0, 100.0, 40.5, 39.5, 100.0], [0.0] * 5, [0.0] * 5, [9.81] * 5))
    t = np.array([100.5, 40.0, 39.0])  # a second append: 60.5 s late and 61.5 s late
    zero, g = np.zeros(3), np.full(3, 9.81)
    raise_for(lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACCELEROMETER, 3, pointer(t, "double"),
                                      pointer(zero, "double"), pointer(zero, "double"), pointer(g, "double")), handle)
    accelerometer = files(handle)["accelerometer"]
    # 40.5 s (59.5 s late) is put in order; 39.5 s, 40.0 s and 39.0 s (over 60 s late) are
    # rejected as out of order; the second 100.0 s repeats the first.
    assert accelerometer["rejectedByReason"] == {"outOfOrder": 3, "duplicate": 1}
    assert list(samples(handle, lib.HEARTH_STREAM_ACCELEROMETER)) == [0.0, 40.5, 100.0, 100.5]


def test_an_accelerometer_in_g_is_a_unit_problem_as_in_a_file():
    t = np.arange(500) * 0.02
    handle = build(accelerometer=(t, np.zeros(500), np.zeros(500), np.ones(500)))
    accelerometer = files(handle)["accelerometer"]
    assert accelerometer["rowsKept"] == 0 and "unitProblem" in accelerometer["rejectedByReason"]


def test_raw_platform_speeds_through_the_c_door_are_read_as_the_file_readers_read_them():
    # SPEC §1, unmeasured speed: iOS's -1 and Android's 0 on a loose fix are no speed;
    # a 0 on a sharp (GPS-class) fix is a real stop; 30 m itself is sharp. An
    # infinite speed is no reading: refused and counted, as every reader refuses
    # its row (ABI 1.5; before, +inf was kept as unmeasured and -inf too).
    from hearth.geo import _CTYPES, _FIX_COLUMNS, FixBatch
    from hearth._ffi import out_pointer

    speeds = [-1.0, 0.0, 0.0, 0.0, float("nan"), -5e-324, 12.5, float("inf"), float("-inf")]
    accuracy = [5.0, 50.0, 30.0, 30.000001, 5.0, 5.0, 50.0, 5.0, 5.0]
    fixes = {"time_ms": 1_700_000_000_000 + 1000 * np.arange(9, dtype=np.int64), "latitude_deg": np.full(9, 52.5),
             "longitude_deg": np.full(9, 13.4), "horizontal_accuracy_m": np.array(accuracy), "speed_mps": np.array(speeds)}
    handle = created(lib.hearth_trace_create, text('{"format": "columns"}'))
    raise_for(lib.hearth_trace_append_fixes(handle, FixBatch(fixes).struct), handle)
    count = ffi.new("int64_t *")
    raise_for(lib.hearth_trace_count(handle, lib.HEARTH_STREAM_FIXES, count), handle)
    assert count[0] == 7
    back = np.empty(7)
    out = ffi.new("hearth_fixes_out *")
    columns = {name: np.empty(7, dtype=dtype) for name, (_, dtype, _) in _FIX_COLUMNS.items()}
    for name, (field, dtype, _) in _FIX_COLUMNS.items():
        setattr(out, field, out_pointer(columns[name], _CTYPES[dtype]))
    raise_for(lib.hearth_trace_fixes(handle, 7, out), handle)
    back = columns["speed_mps"]
    assert np.isnan(back[[0, 1, 3, 4, 5]]).all(), back
    assert back[2] == 0.0 and back[6] == 12.5, back
    assert columns["time_ms"].tolist() == fixes["time_ms"][:7].tolist()
    info = json.loads(take_bytes(lib.hearth_trace_info, handle))
    assert "2 rejected" in json.dumps(info) or sum(f.get("rowsRejected", 0) for f in info.get("files", [])) == 2, info
