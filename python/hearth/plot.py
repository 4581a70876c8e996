"""Drawing the signals around a jolt (matplotlib, an optional extra: pip install ./python[plot])."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .trace import TraceFrames


def plot_verdict(trace: TraceFrames, jolt_time_s: float, *, before_s: float = 3.0, after_s: float = 10.0, ax: Sequence[Any] | None = None,
                 title: str | None = None) -> Any:
    """Acceleration (|a|, g), spin (|ω|, rad/s), pressure (hPa) and GPS speed
    (m/s) from `before_s` before to `after_s` after a jolt at `jolt_time_s`
    (seconds on the recording's clock, as `detect` gives jolt_time_s), one
    panel each, the jolt marked. `trace` is what read_trace returned.
    `ax`: four matplotlib Axes to draw in (None: a new figure). Returns the
    matplotlib Figure.

    Example:

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from hearth import read_trace
    >>> figure = plot_verdict(read_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1"), 4.65)
    >>> [a.get_ylabel() for a in figure.axes]
    ['|a| (g)', '|ω| (rad/s)', 'pressure (hPa)', 'speed (m/s)']
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(8, 7)) if ax is None else (ax[0].figure, ax)
    lo, hi = jolt_time_s - before_s, jolt_time_s + after_s

    def window(frame):
        t = frame["t_s"].to_numpy()
        keep = (t >= lo) & (t <= hi)
        return frame[keep], t[keep] - jolt_time_s

    acc, t = window(trace["accelerometer"])
    axes[0].plot(t, np.sqrt(acc.x_mps2**2 + acc.y_mps2**2 + acc.z_mps2**2) / 9.80665, lw=0.8)
    axes[0].set_ylabel("|a| (g)")
    gyr, t = window(trace["gyroscope"])
    axes[1].plot(t, np.sqrt(gyr.x_radps**2 + gyr.y_radps**2 + gyr.z_radps**2), lw=0.8, color="tab:orange")
    axes[1].set_ylabel("|ω| (rad/s)")
    bar, t = window(trace["barometer"])
    axes[2].step(t, bar.pressure_hpa, where="post", lw=0.8, color="tab:green")
    axes[2].set_ylabel("pressure (hPa)")
    fixes = trace["fixes"]
    origin = trace.info.get("timeOriginMs") or 0
    fix_t = (fixes["time_ms"].to_numpy() - origin) / 1000.0
    keep = (fix_t >= lo) & (fix_t <= hi)
    axes[3].plot(fix_t[keep] - jolt_time_s, fixes["speed_mps"].to_numpy()[keep], "o-", ms=3, lw=0.8, color="tab:red")
    axes[3].set_ylabel("speed (m/s)")
    axes[3].set_xlabel("time from the jolt (s)")
    for a in axes:
        a.axvline(0, color="k", lw=0.6, ls="--")
    fig.suptitle(title or f"{trace.path}: jolt at {jolt_time_s:.2f} s")
    fig.tight_layout()
    return fig
