"""Answers as data (issue 31.5): detect() says per verdict which conditions
were unmet (the library's rule, from its verdict records), a `met` flag that
reads the same way for every condition, and when the recording ended before
a window could be measured; plot_verdict draws thresholds and outcomes and
names a missing stream."""

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import hearth  # noqa: E402
from conftest import DROP  # noqa: E402


@pytest.fixture(scope="module")
def drop():
    return hearth.read_trace(DROP, progress=False)


def test_unmet_and_met_are_the_library_s_records(drop):
    rows = hearth.detect(drop, progress=False)
    records = [json.loads(line) for line in hearth.report(drop, format="json", progress=False).splitlines()]
    verdicts = rows[rows.verdict >= 0]
    assert len(records) == verdicts.verdict.nunique() and len(records) > 0
    for i, record in enumerate(records):
        mine = verdicts[verdicts.verdict == i]
        assert set(mine.unmet) == {tuple(record["unmet"])}
        assert list(mine.met) == [c["met"] for c in record["conditions"]]
        assert list(mine.condition) == [c["name"] for c in record["conditions"]]
        # One reading for every condition: a condition named unmet is never met; the jolt is met when it held.
        for row in mine.itertuples():
            assert row.met == (row.held if row.condition == "jolt" else row.condition not in row.unmet)
        # A silent verdict names why; a report has nothing unmet.
        assert (record["outcome"] == "possibleImpact") == (record["unmet"] == []) or record["outcome"] == "suppressed"


def test_a_recording_that_ends_before_the_windows_says_so_and_one_that_goes_on_does_not(drop):
    # The drop recording is 8.8 s long: its verdict's stop window reaches past the end.
    ended = hearth.detect(drop, progress=False)
    first = ended[ended.verdict == 0]
    end_s = drop["accelerometer"].t_s.max()
    assert (first.decided_time_s > end_s).all()
    assert first.recording_ended.iloc[0].startswith(f"the recording ended at {end_s:.2f} s"), first.recording_ended.iloc[0]
    # The same recording with 30 s more of the phone lying still: every window complete, no note.
    longer = hearth.read_trace(DROP, progress=False)
    acc = longer["accelerometer"]
    step = float(np.median(np.diff(acc.t_s)))
    t = end_s + step * np.arange(1, int(30 / step))
    still = pd.DataFrame({"t_s": t, "x_mps2": 0.0, "y_mps2": 0.0, "z_mps2": 9.80665})
    longer["accelerometer"] = pd.concat([acc, still], ignore_index=True)
    rows = hearth.detect(longer, progress=False)
    first = rows[rows.verdict == 0]
    assert (first.recording_ended == "").all() and (first.decided_time_s <= t.max()).all()


def test_plot_verdict_draws_thresholds_outcomes_and_names_the_missing_gyroscope(drop):
    assert len(drop["gyroscope"]) == 0  # an accelerometer-only phyphox recording
    before = set(plt.get_fignums())
    fig = hearth.plot_verdict(drop)
    assert set(plt.get_fignums()) == before, "the figure is closed in pyplot: a notebook shows it once"
    acc, gyr, bar, speed = fig.axes
    assert acc.get_ylabel() == "|a| (g)" and len(acc.lines[0].get_xdata()) > 100
    jolt_threshold = hearth.ImpactConfig().jolt_g
    assert any(list(line.get_ydata()) == [jolt_threshold, jolt_threshold] for line in acc.lines)
    assert "jolt met" in acc.get_title(loc="left")
    assert [t.get_text() for t in gyr.texts] == ["no gyroscope in this recording"]
    assert [t.get_text() for t in bar.texts] == ["no barometer in this recording"]
    rows = hearth.detect(drop, progress=False)
    first = rows[rows.verdict == 0]
    assert first.outcome.iloc[0] in fig._suptitle.get_text()
    # The same verdict's rows given: the same figure, without a second pass.
    again = hearth.plot_verdict(drop, first.jolt_time_s.iloc[0], verdict=first)
    assert again._suptitle.get_text() == fig._suptitle.get_text()
