"""Silent pandas traps (issue 31.3): results keep the input's index, sweep
tables hold the thresholds as listed, scalars broadcast, times may be
Timestamps, and one bad recording among several is named, the rest kept."""

import warnings

import numpy as np
import pandas as pd
import pytest

import hearth
from conftest import DRIVE, DROP


def fixes_frame(index):
    n = len(index)
    return pd.DataFrame({
        "time_ms": np.full(n, 1_700_000_000_000, dtype=np.int64),
        "latitude_deg": np.linspace(51.0, 51.1, n), "longitude_deg": np.linspace(-0.1, 0.0, n),
        "horizontal_accuracy_m": np.full(n, 10.0),
    }, index=index)


def test_snap_keeps_the_index_so_assigning_a_column_aligns():
    fx = fixes_frame(pd.RangeIndex(100, 150))[::2]  # a filtered frame: its index is not 0..n-1
    fx["cell_id"] = hearth.snap(fx.latitude_deg, fx.longitude_deg)["cell_id"]
    assert fx.cell_id.notna().all() and (fx.cell_id >= 0).all()
    assert list(fx.cell_id) == list(hearth.snap(np.ascontiguousarray(fx.latitude_deg), np.ascontiguousarray(fx.longitude_deg)).cell_id)
    # Plain arrays keep the default index.
    assert list(hearth.snap(np.array([51.0]), np.array([0.0])).index) == [0]


def test_validate_keeps_the_index():
    fx = fixes_frame(pd.Index(["a", "b", "c"]))
    verdicts = hearth.validate(fx, 1_700_000_000_000)
    assert list(verdicts.index) == ["a", "b", "c"] and list(verdicts) == ["accepted"] * 3
    fx["validation"] = verdicts
    assert fx.validation.notna().all()


def test_haversine_broadcasts_a_scalar_against_arrays():
    lat, lon = np.array([51.0, 52.0, 53.0]), np.array([0.0, 0.5, 1.0])
    one = hearth.haversine(51.0, 0.0, lat, lon)
    assert one.shape == (3,) and one[0] == 0.0
    np.testing.assert_array_equal(one, hearth.haversine(np.full(3, 51.0), np.zeros(3), lat, lon))
    np.testing.assert_array_equal(hearth.distances_from(51.0, 0.0, lat, lon), one)
    with pytest.raises(ValueError, match="different lengths"):
        hearth.haversine(lat, lon, lat[:2], lon[:2])
    series = pd.Series(lat, index=[7, 8, 9])
    out = hearth.haversine(series, pd.Series(lon, index=[7, 8, 9]), 51.0, 0.0)
    assert list(out.index) == [7, 8, 9] and out[7] == 0.0


def test_now_ms_takes_a_tz_aware_timestamp_and_refuses_a_naive_one():
    fx = fixes_frame(pd.RangeIndex(2))
    stamp = pd.Timestamp(1_700_000_000_000 + 300_000, unit="ms", tz="UTC")
    assert list(hearth.validate(fx, stamp)) == list(hearth.validate(fx, 1_700_000_300_000))
    # One millisecond either side of the 5-minute future limit, through a Timestamp in another zone.
    fx.loc[0, "time_ms"] = 1_700_000_000_000 + 300_001
    assert list(hearth.validate(fx, pd.Timestamp(1_700_000_000_000, unit="ms", tz="UTC").tz_convert("Europe/Berlin"))) == ["inFuture", "accepted"]
    fx.loc[0, "time_ms"] = 1_700_000_000_000 + 300_000
    assert list(hearth.validate(fx, pd.Timestamp(1_700_000_000_000, unit="ms", tz="UTC"))) == ["accepted", "accepted"]
    with pytest.raises(ValueError, match="has no time zone"):
        hearth.validate(fx, pd.Timestamp("2023-11-14 22:13:20"))
    incident = hearth.Incident(pd.Timestamp(1_700_000_000_000, unit="ms", tz="UTC"), "me")
    assert incident.check(pd.Timestamp(1_700_000_000_000, unit="ms", tz="UTC"))["action"] == \
        hearth.Incident(1_700_000_000_000, "me").check(1_700_000_000_000)["action"]


def test_sweep_tables_hold_the_thresholds_as_listed():
    result = hearth.sweep([], {"jolt_g": [3.5, 4.1], "spin_rad_s": [3, 3.5]}, seeds=1, hours=0, progress=False)
    table = result.table
    assert sorted(set(table.jolt_g)) == [3.5, 4.1]
    assert len(table.query("jolt_g == 3.5")) == 2 and len(table.query("jolt_g == 4.1")) == 2
    assert b"3.4999999999999996" not in result.export("sweep.csv")


def test_one_bad_recording_among_several_is_named_and_the_rest_kept(tmp_path):
    missing = tmp_path / "nothing-here"
    with pytest.warns(hearth.BadRecordingWarning, match="nothing-here"):
        result = hearth.detect([DROP, missing, DRIVE], progress=False)
    assert set(result.file) == {str(DROP), str(DRIVE)}
    assert len(result.attrs["failures"]) == 1 and "nothing-here" in result.attrs["failures"][0]
    pd.testing.assert_frame_equal(result[result.file == str(DROP)].reset_index(drop=True),
                                  hearth.detect(DROP, progress=False), check_like=False)
    with pytest.warns(hearth.BadRecordingWarning):
        text = hearth.report([missing, DROP], progress=False)
    assert text == hearth.report(DROP, progress=False)
    # Nothing readable: the failure itself.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(hearth.BadInputError, match="nothing-here"):
            hearth.detect(missing, progress=False)
