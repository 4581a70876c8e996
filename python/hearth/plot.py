"""Drawing the signals around a jolt (matplotlib, an optional extra: pip install ./python[plot])."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .trace import TraceFrames

STANDARD_GRAVITY = 9.80665  # m/s² per g

# Panel → the conditions it shows (detect's condition names), the first one's threshold drawn.
_PANELS = {
    "acceleration": ("jolt",),
    "spin": ("spin", "freeFallVeto"),
    "pressure": ("pressureRise",),
    "speed": ("movingBeforeGPS", "movingAtJoltGPS", "restWithin", "stayedStoppedGPS"),
}


def _verdict_rows(trace, jolt_time_s, verdict, config, vehicle_gate):
    """The detect() rows of the verdict to draw: given, or the recording's
    verdict at `jolt_time_s` (its first verdict when None)."""
    if verdict is not None:
        return verdict
    from .impact import detect

    rows = detect(trace, config, vehicle_gate=vehicle_gate)
    rows = rows[rows.verdict >= 0]
    if rows.empty:
        return rows
    if jolt_time_s is None:
        return rows[rows.verdict == rows.verdict.iloc[0]]
    nearest = rows.loc[(rows.jolt_time_s - jolt_time_s).abs().idxmin()]
    return rows[rows.verdict == nearest.verdict]


def _outcome(rows, names) -> str:
    """"spin met (4.2 vs 3 rad/s)"-style words for the panel's conditions the verdict has."""
    words = []
    for name in names:
        row = rows[rows.condition == name]
        if row.empty:
            continue
        r = row.iloc[0]
        value = "n/a" if np.isnan(r.measured) else f"{r.measured:.3g}"
        words.append(f"{name} {'met' if r.met else 'unmet'} ({value} vs {r.threshold:.3g} {r.unit})")
    return "; ".join(words)


def plot_verdict(trace: TraceFrames, jolt_time_s: float | None = None, *, verdict: pd.DataFrame | None = None, config: Any = None,
                 vehicle_gate: str = "recording", before_s: float = 3.0, after_s: float = 10.0, ax: Sequence[Any] | None = None,
                 title: str | None = None) -> Any:
    """Acceleration (|a|, g), spin (|ω|, rad/s), pressure (hPa) and GPS speed
    (m/s) from `before_s` before to `after_s` after a jolt at `jolt_time_s`
    (seconds on the recording's clock, as `detect` gives jolt_time_s; None:
    the first verdict's), one quantity per panel, the jolt marked. Each panel
    draws its condition's threshold (the jolt in g, the spin in rad/s, the
    moving speed in m/s; the pressure rise over the pre-jolt median) and
    says whether it was met, from the verdict's rows of `detect` (`verdict`:
    those rows, else detect(trace, config) is run and the verdict at the
    jolt taken). A stream the recording lacks says so in its panel ("no
    gyroscope in this recording") instead of an empty panel. `trace` is what
    read_trace returned (as edited). Returns the matplotlib Figure, closed
    in pyplot so a notebook shows it once (as the cell's value).
    Complexity: O(samples) plus, without `verdict`, one detector pass.

    Example:

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from hearth import read_trace
    >>> figure = plot_verdict(read_trace("../shared/datasets/phone-drop-freefall/raw_data/fall_1"), 4.65)
    >>> [a.get_ylabel() for a in figure.axes]
    ['|a| (g)', '|ω| (rad/s)', 'pressure (hPa)', 'speed (m/s)']
    """
    import matplotlib.pyplot as plt

    rows = _verdict_rows(trace, jolt_time_s, verdict, config, vehicle_gate)
    if jolt_time_s is None:
        if rows.empty:
            raise ValueError(f"{getattr(trace, 'path', 'the recording')}: no verdict to draw (no jolt at or above the threshold)")
        jolt_time_s = float(rows.jolt_time_s.iloc[0])
    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(8, 8)) if ax is None else (ax[0].figure, ax)
    lo, hi = jolt_time_s - before_s, jolt_time_s + after_s

    def threshold(name):
        row = rows[rows.condition == name] if not rows.empty else rows
        return None if row.empty else float(row.threshold.iloc[0])

    def window(frame):
        t = frame["t_s"].to_numpy()
        keep = (t >= lo) & (t <= hi)
        return frame[keep], t[keep] - jolt_time_s

    def missing(axis, stream, label):
        axis.set_ylabel(label)
        axis.text(0.5, 0.5, f"no {stream} in this recording", transform=axis.transAxes, ha="center", va="center", color="0.4")
        axis.set_yticks([])

    def panel(axis, key, label):
        axis.set_ylabel(label)
        words = _outcome(rows, _PANELS[key]) if not rows.empty else ""
        if words:
            axis.set_title(words, fontsize=8, loc="left")

    def rule(axis, value, label, color="tab:red"):
        """The threshold as a dotted line with its label (nothing when the verdict has none)."""
        if value is not None:
            axis.axhline(value, color=color, lw=0.8, ls=":", label=label)
            axis.legend(loc="upper right", fontsize=7)

    # The two vector streams: |a| in g against the jolt, |ω| in rad/s against the spin.
    for axis, stream, unit, scale, label, key, condition, color in (
        (axes[0], "accelerometer", "mps2", STANDARD_GRAVITY, "|a| (g)", "acceleration", "jolt", "tab:blue"),
        (axes[1], "gyroscope", "radps", 1.0, "|ω| (rad/s)", "spin", "spin", "tab:orange"),
    ):
        frame = trace.get(stream)
        if frame is None or len(frame) == 0:
            missing(axis, stream, label)
            continue
        frame, t = window(frame)
        magnitude = np.sqrt(frame[f"x_{unit}"] ** 2 + frame[f"y_{unit}"] ** 2 + frame[f"z_{unit}"] ** 2) / scale
        axis.plot(t, magnitude, lw=0.8, color=color)
        value = threshold(condition)
        rule(axis, None if value is None else value / scale, f"{condition} threshold {(value or 0) / scale:.3g} {label.split('(')[1][:-1]}")
        panel(axis, key, label)

    bar = trace.get("barometer")
    if bar is None or len(bar) == 0:
        missing(axes[2], "barometer", "pressure (hPa)")
    else:
        bar, t = window(bar)
        axes[2].step(t, bar.pressure_hpa, where="post", lw=0.8, color="tab:green")
        rise = threshold("pressureRise")
        before = bar.pressure_hpa.to_numpy()[t < 0]
        if rise is not None and len(before):
            rule(axes[2], float(np.median(before)) + rise, f"pre-jolt median + {rise:.3g} hPa")
        panel(axes[2], "pressure", "pressure (hPa)")

    fixes = trace.get("fixes")
    if fixes is None or len(fixes) == 0:
        missing(axes[3], "GPS fix", "speed (m/s)")
    else:
        origin = (getattr(trace, "info", None) or {}).get("timeOriginMs") or 0
        fix_t = (fixes["time_ms"].to_numpy() - origin) / 1000.0
        keep = (fix_t >= lo) & (fix_t <= hi)
        axes[3].plot(fix_t[keep] - jolt_time_s, fixes["speed_mps"].to_numpy()[keep], "o-", ms=3, lw=0.8, color="tab:red")
        moving = threshold("movingBeforeGPS")
        rule(axes[3], moving, f"moving {moving or 0:.3g} m/s", color="0.3")
        panel(axes[3], "speed", "speed (m/s)")
    axes[3].set_xlabel("time from the jolt (s)")
    for a in axes:
        a.axvline(0, color="k", lw=0.6, ls="--")
    words = [] if rows.empty else [rows.outcome.iloc[0]]
    unmet = rows.unmet.iloc[0] if not rows.empty and "unmet" in rows else ()
    if unmet:
        words.append(f"unmet: {', '.join(unmet)}")
    ended = rows.recording_ended.iloc[0] if not rows.empty and "recording_ended" in rows else ""
    if ended:
        words.append(ended)
    heading = f"{getattr(trace, 'path', 'recording')}: jolt at {jolt_time_s:.2f} s"
    fig.suptitle(title or "\n".join([heading, *words]), fontsize=8)
    fig.tight_layout()
    if ax is None:
        plt.close(fig)  # the notebook shows the returned figure once, not also as pyplot's open figure
    return fig
