"""Installing the package: `pip install ./python` builds libhearth with the
Swift toolchain (showing its progress and, when it fails, its errors), and
Scripts/build-wheel turns that into a manylinux wheel with the libraries'
dependencies vendored, which installs with pip alone into a fresh venv and
needs nothing from the checkout or the toolchain."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import LIBRARY, ROOT, run

#: An environment with neither the Swift toolchain nor the checkout in sight.
BARE = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The manylinux wheel: HEARTH_WHEEL when Scripts/test built it already
    (once per run), else built here by Scripts/build-wheel from the library under test."""
    given = os.environ.get("HEARTH_WHEEL")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheel")
    built = run(ROOT / "Scripts" / "build-wheel", "--from", LIBRARY.parent, out, check_codes=(0,))
    return Path(built.stdout.decode().split()[-1])


def glibc_needed(library: Path) -> tuple[int, int]:
    """The newest GLIBC_x.y symbol version the library asks for."""
    versions = re.findall(r"GLIBC_(\d+)\.(\d+)", run("objdump", "-T", library, check_codes=(0,)).stdout.decode())
    return max((int(a), int(b)) for a, b in versions)


def test_the_wheel_is_manylinux_with_the_libraries_and_their_dependencies_inside(wheel, tmp_path):
    # py3-none: cffi's ABI mode, any CPython 3; the glibc in the tag is the newest the libraries need
    # (auditwheel checks every symbol against the policy it tags).
    match = re.fullmatch(r"hearth-[\d.]+-py3-none-manylinux_(\d+)_(\d+)_x86_64\.whl", wheel.name)
    assert match, wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    for name in ("hearth/libhearth.so", "hearth/libhearth_lab.so", "hearth/hearth.h", "hearth/_cdef.py", "hearth/parquet.py", "hearth/distributed/fleet.py", "hearth/py.typed"):
        assert name in names, name
    needed = max(glibc_needed(tmp_path / "hearth" / "libhearth.so"), glibc_needed(tmp_path / "hearth" / "libhearth_lab.so"))
    assert (int(match.group(1)), int(match.group(2))) == max(needed, (2, 28))
    # The header the package reads its declarations from is the one the libraries were built from.
    assert (tmp_path / "hearth" / "hearth.h").read_bytes() == (ROOT / "include" / "hearth.h").read_bytes()
    # The lab library's OpenBLAS and LAPACKE travel in hearth.libs/, found through its RUNPATH.
    vendored = [n for n in names if n.startswith("hearth.libs/")]
    assert any("libopenblas" in n for n in vendored) and any("liblapacke" in n for n in vendored), vendored
    runpath = run("readelf", "-d", tmp_path / "hearth" / "libhearth_lab.so").stdout.decode()
    assert "$ORIGIN/../hearth.libs" in runpath, runpath
    # libhearth.so itself needs nothing beyond the system libraries: nothing vendored for it.
    plain = run("readelf", "-d", tmp_path / "hearth" / "libhearth.so").stdout.decode()
    assert set(re.findall(r"\(NEEDED\).*\[(.*?)\]", plain)) <= {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}


def test_the_wheel_installs_into_a_fresh_venv_with_no_index_and_works_with_no_toolchain(wheel, tmp_path):
    venv = tmp_path / "venv"
    # The venv sees the interpreter's site-packages for numpy, pandas and cffi (nothing is
    # downloaded: --no-index); hearth itself is installed from the wheel alone.
    run(sys.executable, "-m", "venv", "--system-site-packages", venv, check_codes=(0,))
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", wheel, check_codes=(0,), env=BARE, cwd=tmp_path)
    code = (
        "import hearth, numpy as np\n"
        "print(hearth.__file__)\n"
        "print(hearth._ffi._LIBRARY_PATH)\n"
        "print(hearth._cdef.header_path())\n"
        "print(hearth.haversine(np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1))[0])\n"
        "print(hearth._ffi._lab is None)\n"
        "lab = hearth._ffi.lab()\n"
        "print(lab.hearth_abi_version() >> 16 == hearth._ffi.ABI_MAJOR)\n"
        "print(hearth._ffi._library_path('libhearth_lab.so', 'HEARTH_LAB_LIBRARY', hearth._ffi._LIBRARY_PATH))\n"
    )
    out = run(python, "-c", code, env=BARE, cwd=tmp_path, check_codes=(0,)).stdout.decode().split("\n")
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages" / "hearth"
    assert out[0] == str(site / "__init__.py") and out[1] == str(site / "libhearth.so") and out[2] == str(site / "hearth.h")
    assert abs(float(out[3]) - 111195.08) < 0.01
    # The lab library is not opened on import, and is found beside libhearth.so.
    assert out[4] == "True" and out[5] == "True" and out[6] == str(site / "libhearth_lab.so")
    # The lab library loads the vendored OpenBLAS, not a system copy.
    resolved = run("ldd", site / "libhearth_lab.so", env=BARE).stdout.decode()
    assert re.search(r"libopenblas\S*\.so\S* => \S*/hearth\.libs/", resolved), resolved


def fake_checkout(tmp_path: Path, script: str) -> Path:
    """A folder whose Scripts/build-libhearth is `script` (bash): what
    setup.py runs, with HEARTH_SOURCE_ROOT pointing here."""
    root = tmp_path / "checkout"
    (root / "Scripts").mkdir(parents=True)
    path = root / "Scripts" / "build-libhearth"
    path.write_text("#!/usr/bin/env bash\nset -euo pipefail\n" + script)
    path.chmod(0o755)
    return root


def pip_wheel(root: Path, tmp_path: Path, *options) -> subprocess.CompletedProcess:
    env = dict(os.environ, HEARTH_SOURCE_ROOT=str(root), HEARTH_BUILD_PROGRESS="0")
    return subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--disable-pip-version-check",
                           *options, "-w", str(tmp_path / "dist"), str(ROOT / "python")], capture_output=True, text=True, env=env, cwd=tmp_path)


def test_a_failed_swift_build_shows_its_error_not_a_traceback(tmp_path):
    root = fake_checkout(tmp_path, (
        'echo "[1/3] Compiling HearthGeo Grid.swift" >&2\n'
        'echo "/src/Sources/HearthGeo/Grid.swift:12:5: error: cannot find \'nonsense\' in scope" >&2\n'
        'echo "error: fatalError" >&2\n'
        'exit 1\n'
    ))
    result = pip_wheel(root, tmp_path)  # pip without -v: what a user sees
    shown = result.stdout + result.stderr
    assert result.returncode != 0
    assert "hearth: building libhearth failed" in shown and "exited with status 1" in shown, shown
    assert "Grid.swift:12:5: error: cannot find 'nonsense' in scope" in shown, shown
    assert str(root / ".build" / "libhearth-build.log") in shown
    assert "CalledProcessError" not in shown and "Traceback" not in shown, shown
    assert "cannot find 'nonsense'" in (root / ".build" / "libhearth-build.log").read_text()


def test_the_build_shows_its_progress_as_it_goes(tmp_path):
    root = fake_checkout(tmp_path, (
        'out="$1"; mkdir -p "$out"\n'
        'for i in 1 2 3; do echo "[$i/3] Compiling HearthStep$i" >&2; done\n'
        'printf "x" > "$out/libhearth.so"; printf "x" > "$out/libhearth_lab.so"; printf "/* h */" > "$out/hearth.h"\n'
        'echo "$out/libhearth.so"\n'
    ))
    result = pip_wheel(root, tmp_path, "-v")
    shown = result.stdout + result.stderr
    assert result.returncode == 0, shown
    lines = shown.splitlines()
    steps = [i for i, line in enumerate(lines) if re.search(r"\[\d/3\] Compiling HearthStep\d", line)]
    assert len(steps) == 3, shown
    assert any("hearth: building libhearth with the Swift toolchain" in line for line in lines[: steps[0]])
    assert any("hearth: libhearth built in" in line for line in lines[steps[-1]:])
