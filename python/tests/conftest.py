"""Shared fixtures: the checkout, the library under test, the command, the recordings."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = Path(os.environ.setdefault("HEARTH_LIBRARY", str(ROOT / ".build" / "libhearth" / "libhearth.so")))
sys.path.insert(0, str(ROOT / "python"))
DATASETS = Path(os.environ.get("HEARTH_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
DROP = DATASETS / "phone-drop-freefall" / "raw_data" / "fall_1"
DRIVE = DATASETS / "comma2k19-example" / "Example_1" / "b0c9d2329ad1606b|2018-08-02--08-34-47" / "40"


def pytest_configure(config):
    if not LIBRARY.exists():
        raise pytest.UsageError(f"{LIBRARY} is missing: run Scripts/build-libhearth first (Scripts/test does)")


@pytest.fixture(scope="session")
def command() -> Path:
    """The release `hearth` command, built from this checkout (a no-op when it is
    up to date: an older binary left by an earlier build would compare the
    library with a command that is not its own)."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "hearth"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return ROOT / ".build" / "release" / "hearth"


def run(*arguments, check_codes=(0, 1), **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in arguments], capture_output=True, **kwargs)
    assert result.returncode in check_codes, result.stderr.decode(errors="replace")
    return result


@pytest.fixture(scope="session")
def scenario(command, tmp_path_factory) -> Path:
    """A generated crash (C1, seed 2) as `hearth sim generate scenario` writes it."""
    out = tmp_path_factory.mktemp("scenario") / "c1"
    run(command, "sim", "generate", "scenario", "C1", "--seed", "2", "--out", out)
    return out
