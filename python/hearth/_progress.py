"""Progress of long work (sweeps, fleet replays, detecting over many
recordings, reading a recording), in a terminal or in Jupyter, or not at all.

Every long call takes `progress=`: True shows it (one line on stderr,
rewritten in place, in a terminal; one updating output in a Jupyter
notebook), False shows nothing, a callable is called with the `Progress`
after every step (its `done`, `total`, `failed`, `amount`, `unit`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time


def in_jupyter() -> bool:
    """Whether this runs in a Jupyter kernel (an IPython kernel shell)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except AttributeError:
        return False
    return ip is not None and getattr(ip, "kernel", None) is not None


class Progress:
    """Steps done of `total`, failed ones and the work covered (`unit`:
    hours of data, fixes, recordings), at most every `every_s` seconds and
    at the end; nothing before `delay_s` has passed (quick work stays quiet)."""

    def __init__(self, what: str, total: int, show, *, unit: str = "h", dashboard: str | None = None,
                 delay_s: float = 0.0, every_s: float = 0.5):
        self.what = what
        self.unit = unit
        self.total = total
        self.done = 0
        self.failed = 0
        self.amount = 0.0
        self.started = time.perf_counter()
        self.callback = show if callable(show) else None
        self.printing = show is True
        self.delay_s = delay_s
        self.every_s = every_s
        self._shown = False
        self._last = -float("inf")
        self._display = None
        self._jupyter = self.printing and in_jupyter()
        if self.printing and dashboard:
            self._write(f"{what}: dashboard {dashboard}", final=True)

    def step(self, amount=0.0, *, failed: bool = False) -> None:
        """One step done: `amount` of work (or a task's Outcome: its amount, failed unless "ok")."""
        if hasattr(amount, "kind"):
            amount, failed = amount.amount, amount.kind != "ok"
        self.done += 1
        self.failed += bool(failed)
        self.amount += float(amount)
        if self.callback is not None:
            self.callback(self)
        if not self.printing:
            return
        now = time.perf_counter()
        elapsed = now - self.started
        last = self.done >= self.total
        if (last and (self._shown or elapsed >= self.delay_s)) or (elapsed >= self.delay_s and now - self._last >= self.every_s):
            self._last = now
            self._write(self.line(elapsed), final=last)

    def line(self, elapsed: float) -> str:
        left = elapsed / max(self.done, 1) * (self.total - self.done)
        rate = self.amount / max(elapsed, 1e-9)
        return (f"{self.what}: {self.done}/{self.total} tasks, {self.failed} failed, {self.amount:.1f} {self.unit}, "
                f"{rate:.2f} {self.unit}/s, {elapsed:.0f} s, ~{left:.0f} s left")

    @contextlib.contextmanager
    def waiting(self, doing: str):
        """While one long call runs (a library call reading a recording, which
        reports nothing until it returns): the line says what and for how long."""
        if not self.printing:
            yield
            return
        stop = threading.Event()

        def tick():
            while not stop.wait(self.every_s):
                elapsed = time.perf_counter() - self.started
                if elapsed >= self.delay_s:
                    self._write(f"{self.what}: {doing}, {elapsed:.0f} s", final=False)

        ticker = threading.Thread(target=tick, name="hearth-progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()

    def close(self) -> None:
        """Ends the line (when something was shown and the last step was not reached)."""
        if self._shown and self.done < self.total and not self._jupyter:
            print(file=sys.stderr, flush=True)

    def _write(self, text: str, *, final: bool) -> None:
        self._shown = True
        if self._jupyter:
            from IPython.display import HTML, display

            bar = f'<progress value="{self.done}" max="{max(self.total, 1)}" style="width:20em"></progress> '
            body = HTML(bar + "<code>" + text.replace("&", "&amp;").replace("<", "&lt;") + "</code>")
            if self._display is None:
                self._display = display(body, display_id=True)
            else:
                self._display.update(body)
            return
        print(f"\r{text}   ", end="\n" if final else "", file=sys.stderr, flush=True)
