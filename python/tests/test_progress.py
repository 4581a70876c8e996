"""Progress of long work (issue 31.9): sweeps, fleet replays, detect over
many recordings and reading a recording show it in a terminal and in
Jupyter, and `progress=False` turns it off."""

import pytest

import hearth
import hearth._progress as progress_module
from conftest import DRIVE, DROP
from hearth._progress import Progress


def test_a_terminal_line_rewritten_in_place_and_ended(capsys):
    tracker = Progress("hearth sweep", 3, True, unit="h", every_s=0.0)
    for _ in range(3):
        tracker.step(0.5)
    err = capsys.readouterr().err
    assert err.count("\r") == 3 and err.endswith("\n")
    assert "hearth sweep: 3/3 tasks, 0 failed, 1.5 h, " in err and "~0 s left" in err


def test_quick_work_stays_quiet_until_its_delay(capsys):
    tracker = Progress("hearth detect", 2, True, delay_s=60.0)
    tracker.step(1.0)
    tracker.step(1.0)
    tracker.close()
    assert capsys.readouterr().err == ""


def test_in_jupyter_one_updating_display(monkeypatch, capsys):
    shown = []

    class Handle:
        def update(self, body):
            shown.append(("update", body.data))

    def display(body, display_id=False):
        assert display_id is True
        shown.append(("display", body.data))
        return Handle()

    import IPython.display

    monkeypatch.setattr(progress_module, "in_jupyter", lambda: True)
    monkeypatch.setattr(IPython.display, "display", display)
    tracker = Progress("hearth sweep", 2, True, every_s=0.0)
    tracker.step(1.0)
    tracker.step(1.0, failed=True)
    assert [kind for kind, _ in shown] == ["display", "update"]
    assert '<progress value="2" max="2"' in shown[-1][1] and "2/2 tasks, 1 failed" in shown[-1][1]
    assert capsys.readouterr().err == ""


def test_outside_a_kernel_it_is_no_notebook():
    assert progress_module.in_jupyter() is False


def test_sweep_detect_and_read_trace_report_each_step_and_can_be_turned_off(capsys):
    seen = []
    result = hearth.sweep([DROP], {"jolt_g": [4]}, seeds=1, hours=0, progress=lambda p: seen.append((p.done, p.total, p.amount)))
    assert [d for d, _, _ in seen] == list(range(1, len(seen) + 1)) and seen[-1][0] == seen[-1][1] > 1
    assert seen[-1][2] > 0  # hours of data covered
    steps = []
    hearth.detect([DROP, DRIVE], progress=lambda p: steps.append((p.done, p.total)))
    assert steps == [(1, 2), (2, 2)]
    streams = []
    hearth.read_trace(DROP, progress=lambda p: streams.append(p.done))
    assert streams == [1, 2, 3, 4, 5, 6]
    capsys.readouterr()
    hearth.sweep([DROP], {"jolt_g": [4]}, seeds=1, hours=0, progress=False)
    hearth.detect([DROP, DRIVE], progress=False)
    hearth.read_trace(DROP, progress=False)
    assert capsys.readouterr().err == "" and result is not None


def test_reading_shows_how_long_the_library_has_been_reading(capsys, monkeypatch):
    import time

    tracker = Progress("hearth read_trace big", 6, True, delay_s=0.0, every_s=0.05)
    with tracker.waiting("reading"):
        time.sleep(0.3)
    assert "hearth read_trace big: reading, 0 s" in capsys.readouterr().err
