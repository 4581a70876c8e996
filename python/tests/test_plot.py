"""plot_verdict draws the four signals around a jolt."""

import matplotlib

matplotlib.use("Agg")

import hearth  # noqa: E402


def test_plot_verdict_draws_four_panels_around_the_jolt(scenario):
    trace = hearth.read_trace(scenario)
    jolt = hearth.detect(trace).jolt_time_s.dropna().iloc[0]
    fig = hearth.plot_verdict(trace, jolt)
    assert len(fig.axes) == 4 and fig.axes[0].get_ylabel() == "|a| (g)"
    assert len(fig.axes[0].lines[0].get_xdata()) > 100
