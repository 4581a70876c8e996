"""Numbers handed to the package as Python lists and scalars reach the library
as the file readers would take them, or are refused with ValueError naming the
argument, the first bad index and value, and why (hostile-input review,
/work/hostile/py/p_trunc.py): an integer field takes whole numbers within its
type (3 or 3.0; not 3.5, NaN, ±inf, or one past the type's end), and no field
takes a bool or a string. numpy turned 1.9 into 1, -1 into 4294967295, "1"
and True into 1.0."""

import math

import numpy as np
import pandas as pd
import pytest

import hearth
from hearth._ffi import column, real, whole

NOW = 1_700_000_000_000
INT64_MAX, INT64_MIN = 2**63 - 1, -2**63
UINT32_MAX = 2**32 - 1


def fixes(**changes):
    base = {"time_ms": [NOW, NOW + 1], "latitude_deg": [52.5, 52.5], "longitude_deg": [13.4, 13.4],
            "horizontal_accuracy_m": [5.0, 5.0]}
    base.update(changes)
    return base


# MARK: the shared conversion, both sides of each rule


@pytest.mark.parametrize("dtype, top", [(np.int64, INT64_MAX), (np.uint32, UINT32_MAX), (np.uint8, 255), (np.int32, 2**31 - 1)])
def test_an_integer_column_takes_its_type_s_range_and_no_further(dtype, top):
    lo = int(np.iinfo(dtype).min)
    assert column([lo, top], "x", dtype).tolist() == [lo, top]
    with pytest.raises(ValueError, match=rf"^x\[1\]: {top + 1} is outside the range of {np.dtype(dtype).name} "):
        column([0, top + 1], "x", dtype)
    with pytest.raises(ValueError, match=rf"^x\[0\]: {lo - 1} is outside the range of "):
        column([lo - 1, 0], "x", dtype)


@pytest.mark.parametrize("bad, why", [
    (1.5, "is not a whole number"), (math.nan, "is not a whole number"), (math.inf, "is not a whole number"),
    (-math.inf, "is not a whole number"), (True, "is a bool, not a number"), ("1", "is a string, not a number"),
    (None, "is not a number"), (2.0**63, "is outside the range of int64"), (2**64, "is outside the range of int64"),
])
def test_an_integer_column_refuses_what_numpy_would_change(bad, why):
    with pytest.raises(ValueError, match=rf"^time_ms\[2\]: .* {why}"):
        column([NOW, NOW + 1, bad], "time_ms", np.int64)
    with pytest.raises(ValueError, match=rf"^time_ms\[0\]: .* {why}"):
        column(bad, "time_ms", np.int64)  # a scalar is a column of one


def test_an_integer_column_takes_whole_floats_as_the_readers_do():
    out = column([1.0, 2.0, -0.0, 2.0**62], "x", np.int64)
    assert out.dtype == np.int64 and out.tolist() == [1, 2, 0, 2**62]
    assert column([1, 2.0], "x", np.uint32).tolist() == [1, 2]
    assert column([np.int64(7), np.float32(8.0)], "x", np.uint8).tolist() == [7, 8]
    # The most negative int64 is a power of two, exact as a float; 2**63 is one past the top.
    assert column([-(2.0**63)], "x", np.int64).tolist() == [INT64_MIN]


def test_a_float_column_refuses_strings_and_bools_and_takes_none_as_missing():
    for bad, why in (("1", "is a string"), (True, "is a bool"), (np.bool_(False), "is a bool"), (b"1", "is a string")):
        with pytest.raises(ValueError, match=rf"^lat\[1\]: .* {why}, not a number"):
            column([1.0, bad], "lat")
    with pytest.raises(ValueError, match=r"^lat\[0\]: '1' is a string"):
        column(["1", "2"], "lat")
    with pytest.raises(ValueError, match=r"^lat\[0\]: True is a bool"):
        column(True, "lat")
    out = column([1, 2.5, None, math.nan, math.inf], "lat")
    assert out.dtype == np.float64 and out[:2].tolist() == [1.0, 2.5] and np.isnan(out[2:4]).all() and out[4] == math.inf


def test_arrays_of_the_right_dtype_pass_in_place_and_others_are_refused_as_before():
    t = np.array([NOW, NOW + 1], dtype=np.int64)
    assert column(t, "time_ms", np.int64) is t
    series = pd.Series([1.5, 2.5])
    assert np.shares_memory(column(series, "lat"), series.to_numpy())
    with pytest.raises(ValueError, match=r"^time_ms: dtype float64, expected int64"):
        column(np.array([1.0]), "time_ms", np.int64)
    with pytest.raises(ValueError, match=r"^lat: dtype bool, expected float64"):
        column(pd.Series([True]), "lat")


def test_scalar_arguments():
    assert whole(3, "n") == 3 and whole(3.0, "n") == 3 and whole(np.int64(INT64_MAX), "n") == INT64_MAX
    assert whole(UINT32_MAX, "n", np.uint32) == UINT32_MAX
    for bad, why in ((1.5, "is not a whole number"), (math.nan, "is not a whole number"), (True, "is a bool"),
                     ("1", "is a string"), (INT64_MAX + 1, "is outside the range of int64"), (None, "is not a number")):
        with pytest.raises(ValueError, match=rf"^n: .* {why}"):
            whole(bad, "n")
    with pytest.raises(ValueError, match=r"^n: 4294967296 is outside the range of uint32"):
        whole(UINT32_MAX + 1, "n", np.uint32)
    assert real(2, "m") == 2.0 and real(np.float32(1.25), "m") == 1.25 and math.isnan(real(math.nan, "m"))
    for bad in (True, "1", None):
        with pytest.raises(ValueError, match=r"^m: "):
            real(bad, "m")


# MARK: the entry points of the review


def test_dedupe_does_not_merge_users_1_9_and_1_2_into_user_1():
    store = hearth.Dedupe()
    assert store.insert(fixes(user=[1, 1])).tolist() == ["inserted", "inserted"]
    with pytest.raises(ValueError, match=r"^user\[0\]: 1\.9 is not a whole number \(uint32 expected\)"):
        store.insert(fixes(user=[1.9, 1.2]))
    assert len(store) == 2  # nothing inserted
    assert store.insert(fixes(user=[1.0, 2.0])).tolist() == ["duplicate", "inserted"]
    assert store.insert(fixes(user=[UINT32_MAX, UINT32_MAX])).tolist() == ["inserted", "inserted"]
    for bad, message in ((UINT32_MAX + 1, "is outside the range of uint32"), (-1, "is outside the range of uint32"),
                         (True, "is a bool"), ("1", "is a string"), (math.nan, "is not a whole number")):
        with pytest.raises(ValueError, match=rf"^user\[1\]: .* {message}"):
            store.insert(fixes(user=[1, bad]))
    with pytest.raises(ValueError, match=r"^device\[0\]: 0\.5 is not a whole number"):
        store.insert(fixes(device=[0.5, 1]))


def test_validate_refuses_fractional_times_codes_and_limits():
    good = hearth.validate(fixes(), NOW).tolist()
    assert good == ["accepted", "accepted"]
    assert hearth.validate(fixes(time_ms=[float(NOW), NOW + 1.0]), float(NOW)).tolist() == good
    with pytest.raises(ValueError, match=r"^time_ms\[0\]: 1700000000000\.5 is not a whole number \(int64 expected\)"):
        hearth.validate(fixes(time_ms=[NOW + 0.5, NOW + 1.9]), NOW)
    assert hearth.validate(fixes(time_ms=[INT64_MAX, NOW]), NOW).tolist()[1] == "accepted"
    with pytest.raises(ValueError, match=r"^time_ms\[0\]: 9223372036854775808 is outside the range of int64"):
        hearth.validate(fixes(time_ms=[INT64_MAX + 1, NOW]), NOW)
    assert hearth.validate(fixes(activity=[2.0, 1]), NOW).tolist() == good
    with pytest.raises(ValueError, match=r"^activity\[0\]: 2\.7 is not a whole number \(uint8 expected\)"):
        hearth.validate(fixes(activity=[2.7, 1]), NOW)
    with pytest.raises(ValueError, match=r"^activity\[1\]: 256 is outside the range of uint8"):
        hearth.validate(fixes(activity=[255, 256]), NOW)
    for name in ("max_future_ms", "max_age_ms"):
        assert hearth.validate(fixes(), NOW, **{name: 300_000.0}).tolist() == hearth.validate(fixes(), NOW, **{name: 300_000}).tolist()
        with pytest.raises(ValueError, match=rf"^{name}: 1\.9 is not a whole number"):
            hearth.validate(fixes(), NOW, **{name: 1.9})
        with pytest.raises(ValueError, match=rf"^{name}: True is a bool"):
            hearth.validate(fixes(), NOW, **{name: True})
    for bad in (1.5, math.nan, True, "1700000000000", INT64_MAX + 1):
        with pytest.raises(ValueError, match=r"^now_ms: "):
            hearth.validate(fixes(), bad)


def test_max_future_ms_1_9_is_not_1():
    # The answer truncation gave: a fix 1 ms ahead with a limit of "1.9" read as 1 is accepted.
    ahead = fixes(time_ms=[NOW + 1, NOW + 1])
    assert hearth.validate(ahead, NOW, max_future_ms=1).tolist() == ["accepted", "accepted"]
    assert hearth.validate(ahead, NOW, max_future_ms=0).tolist() == ["inFuture", "inFuture"]
    with pytest.raises(ValueError):
        hearth.validate(ahead, NOW, max_future_ms=1.9)


def test_validate_refuses_strings_and_bools_as_coordinates():
    with pytest.raises(ValueError, match=r"^latitude_deg\[0\]: '1' is a string, not a number"):
        hearth.validate(fixes(latitude_deg=["1", "2"]), NOW)
    with pytest.raises(ValueError, match=r"^latitude_deg\[0\]: True is a bool, not a number"):
        hearth.validate(fixes(latitude_deg=[True, False]), NOW)
    with pytest.raises(ValueError, match=r"^horizontal_accuracy_m\[1\]: '5' is a string"):
        hearth.validate(fixes(horizontal_accuracy_m=[5.0, "5"]), NOW)
    # A missing accuracy is NaN, or None in a list (JSON's null): both give accuracyMissing.
    assert hearth.validate(fixes(horizontal_accuracy_m=[5.0, None]), NOW).tolist() == ["accepted", "accuracyMissing"]
    assert hearth.validate(fixes(latitude_deg=[52, 52]), NOW).tolist() == ["accepted", "accepted"]


def test_grid_project_refuses_a_fractional_slot_and_fractional_times():
    expected = hearth.Grid().project(np.array([NOW + 123_456], dtype=np.int64), [52.52], [13.405], [5.0], slot_ms=300_000)
    same = hearth.Grid().project([float(NOW + 123_456)], [52.52], [13.405], [5.0], slot_ms=300_000.0)
    pd.testing.assert_frame_equal(same, expected)
    assert expected.slot_start_ms.tolist() == [NOW + 123_456 - (NOW + 123_456) % 300_000]
    for bad, why in ((1.5, "is not a whole number"), (True, "is a bool"), ("300000", "is a string"),
                     (math.nan, "is not a whole number"), (INT64_MAX + 1, "is outside the range of int64")):
        with pytest.raises(ValueError, match=rf"^slot_ms: .* {why}"):
            hearth.Grid().project([NOW], [52.52], [13.405], [5.0], slot_ms=bad)
    with pytest.raises(ValueError, match=r"^time_ms\[0\]: 1700000000000\.5 is not a whole number"):
        hearth.Grid().project([NOW + 0.5], [52.52], [13.405], [5.0])
    with pytest.raises(ValueError, match=r"^min_accuracy_m: '750' is a string"):
        hearth.Grid().project([NOW], [52.52], [13.405], [5.0], min_accuracy_m="750")
    with pytest.raises(ValueError, match=r"^cell_size_m: True is a bool"):
        hearth.Grid(True)


def test_scalars_that_broadcast_are_numbers():
    lat = np.array([52.0, 53.0])
    np.testing.assert_array_equal(hearth.haversine(52, 13, lat, np.full(2, 13.0)), hearth.haversine(52.0, 13.0, lat, np.full(2, 13.0)))
    with pytest.raises(ValueError, match=r"^lat1: '52' is a string"):
        hearth.haversine("52", 13.0, lat, np.full(2, 13.0))
    with pytest.raises(ValueError, match=r"^lon2: True is a bool"):
        hearth.haversine(lat, np.full(2, 13.0), 52.0, True)
    with pytest.raises(ValueError, match=r"^lat0: '52' is a string"):
        hearth.distances_from("52", 13.0, lat, np.full(2, 13.0))


def test_an_ingest_batch_refuses_fractional_ids_times_and_receipts():
    received = NOW + 1_000
    plain = hearth.Ingest().ingest(fixes(user=[42, 42]), received)
    pd.testing.assert_frame_equal(hearth.Ingest().ingest(fixes(user=[42.0, 42.0]), float(received)), plain)
    pipeline = hearth.Ingest()
    for changes, message in (({"user": [42, 42.5]}, r"^user\[1\]: 42\.5 is not a whole number"),
                             ({"time_ms": [NOW, NOW + 0.5]}, r"^time_ms\[1\]: 1700000000000\.5 is not a whole number"),
                             ({"source": [1, True]}, r"^source\[1\]: True is a bool"),
                             ({"charging": [0, 1.5]}, r"^charging\[1\]: 1\.5 is not a whole number"),
                             ({"latitude_deg": [52.5, "52.5"]}, r"^latitude_deg\[1\]: '52\.5' is a string")):
        with pytest.raises(ValueError, match=message):
            pipeline.ingest(fixes(**changes), received)
    for bad, why in ((received + 0.5, "is not a whole number"), (True, "is a bool"), (str(received), "is a string"),
                     (INT64_MAX + 1, "is outside the range of int64")):
        with pytest.raises(ValueError, match=rf"^received_ms: .* {why}"):
            pipeline.ingest(fixes(), bad)
        with pytest.raises(ValueError, match=rf"^now_ms: .* {why}"):
            pipeline.tick(bad)
    # Nothing refused reached the pipeline: it answers as a fresh one.
    pd.testing.assert_frame_equal(pipeline.ingest(fixes(user=[42, 42]), received), plain)


def test_circles_and_speed_limits_are_ids_and_numbers():
    assert hearth.describe(circles={42.0: [7.0]}) == hearth.describe(circles={42: [7]})
    assert hearth.describe(circles={UINT32_MAX: [UINT32_MAX]}).count(str(UINT32_MAX)) == 2
    with pytest.raises(ValueError, match=r"^circles \(a user id\): 42\.5 is not a whole number"):
        hearth.describe(circles={42.5: [7]})
    with pytest.raises(ValueError, match=r"^circles\[42\]: 7\.5 is not a whole number"):
        hearth.Ingest(circles={42: [7.5]})
    with pytest.raises(ValueError, match=r"^circles\[42\]: 4294967296 is outside the range of uint32"):
        hearth.describe(circles={42: [UINT32_MAX + 1]})
    with pytest.raises(ValueError, match=r"^circles\[42\]: True is a bool"):
        hearth.describe(circles={42: [True]})
    with pytest.raises(ValueError, match=r"^speed_limits_kmh\[7\]: '50' is a string"):
        hearth.describe(speed_limits_kmh={7: "50"})


def test_the_schedule_takes_whole_settings_and_receipts():
    history = pd.DataFrame(fixes(time_ms=np.array([NOW, NOW + 60_000], dtype=np.int64)))
    plain = list(hearth.uploads(history, batch=1))
    assert [(len(f), r) for f, r in hearth.uploads(history, batch=1.0)] == [(len(f), r) for f, r in plain]
    with pytest.raises(ValueError, match=r"^batch: 1\.5 is not a whole number"):
        list(hearth.uploads(history, batch=1.5))
    with pytest.raises(ValueError, match=r"^span_ms: True is a bool"):
        list(hearth.uploads(history, span_ms=True))
    with pytest.raises(ValueError, match=r"^received_ms\[1\]: 1700000060000\.5 is not a whole number"):
        hearth.ingest.schedule(fixes(received_ms=[NOW, NOW + 60_000.5]))
    assert len(hearth.ingest.schedule(fixes(received_ms=[NOW + 1_000, NOW + 61_000.0])).steps) > 0
    with pytest.raises(ValueError, match=r"^received_ms: dtype float64, expected int64"):
        list(hearth.uploads(history.assign(received_ms=[float(NOW), NOW + 60_000.0])))


def test_an_incident_s_times_and_status_are_whole_numbers():
    incident = hearth.Incident(1_000.0, "me")
    assert incident.check(1_000) == hearth.Incident(1_000, "me").check(1_000.0)
    with pytest.raises(ValueError, match=r"^verdict_ms: 1000\.5 is not a whole number"):
        hearth.Incident(1_000.5, "me")
    with pytest.raises(ValueError, match=r"^now_ms: True is a bool"):
        incident.check(True)
    with pytest.raises(ValueError, match=r"^http_status: 404\.5 is not a whole number \(int32 expected\)"):
        incident.check(2_000, "http", http_status=404.5)
    with pytest.raises(ValueError, match=r"^http_status: 2147483648 is outside the range of int32"):
        incident.check(2_000, "http", http_status=2**31)
    assert incident.check(2_000, "http", http_status=404.0) == hearth.Incident(1_000, "me").check(2_000, "http", http_status=404)


def test_a_detector_stream_refuses_strings_and_bools():
    good = (np.arange(0.0, 1.0, 0.02), np.zeros(50), np.zeros(50), np.full(50, 9.81))
    hearth.Detector().feed(good)
    with pytest.raises(ValueError, match=r"^accelerometer\.t_s\[1\]: '0\.02' is a string"):
        hearth.Detector().feed(([0.0, "0.02"], [0.0, 0.0], [0.0, 0.0], [9.81, 9.81]))
    with pytest.raises(ValueError, match=r"^fixes\.speed_mps\[0\]: True is a bool"):
        hearth.Detector().feed(fixes=([0.0], [True]))


def test_a_sweep_spec_takes_whole_seeds_and_numeric_thresholds():
    plain = hearth.spec(grid={"jolt_g": [4, 5]}, seeds=1, hours=0)
    assert hearth.spec(grid={"jolt_g": [4.0, 5.0]}, seeds=1.0, hours=0.0) == plain
    with pytest.raises(ValueError, match=r"^seeds: 1\.5 is not a whole number"):
        hearth.spec(grid={"jolt_g": [4]}, seeds=1.5, hours=0)
    with pytest.raises(ValueError, match=r"^seeds: True is a bool"):
        hearth.spec(grid={"jolt_g": [4]}, seeds=True, hours=0)
    with pytest.raises(ValueError, match=r"^hours: '5' is a string"):
        hearth.spec(grid={"jolt_g": [4]}, seeds=1, hours="5")
    with pytest.raises(ValueError, match=r"^grid\['jolt_g'\]: '4' is a string"):
        hearth.spec(grid={"jolt_g": "4"}, seeds=1, hours=0)
