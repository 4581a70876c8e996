"""`pip install ./python` builds libhearth with the Swift toolchain and puts
it in a platform wheel; the installed package needs nothing from the checkout."""

import subprocess
import sys
import zipfile

from conftest import ROOT, run


def test_pip_builds_a_platform_wheel_that_carries_the_library(tmp_path):
    # --no-build-isolation: the pinned setuptools of requirements-dev.txt (CI
    # needs no index for it); the build step is setup.py's, as for `pip install ./python`.
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", ROOT / "python",
        check_codes=(0,), cwd=tmp_path)
    wheels = list((tmp_path / "dist").glob("hearth-*.whl"))
    assert len(wheels) == 1 and wheels[0].name.endswith("-py3-none-linux_x86_64.whl"), wheels
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        assert "hearth/libhearth.so" in names and "hearth/libhearth_lab.so" in names and "hearth/_cdef.py" in names
        assert "hearth/parquet.py" in names and "hearth/distributed/fleet.py" in names
        wheel.extractall(tmp_path / "site")
    # The installed package finds its own copy of the library.
    code = (
        "import hearth, os; print(hearth._ffi._library_path()); print(hearth.ABI_VERSION); "
        "print(hearth._ffi._lab is None); hearth._ffi.lab(); print(hearth._ffi._library_path('libhearth_lab.so', 'HEARTH_LAB_LIBRARY', hearth._ffi._LIBRARY_PATH))"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "site")}
    out = run(sys.executable, "-c", code, env=env, cwd=tmp_path).stdout.decode().split()
    assert out[0] == str(tmp_path / "site" / "hearth" / "libhearth.so") and int(out[1]) == 0x010300
    # The lab library is not opened on import, and is found beside libhearth.so.
    assert out[2] == "True" and out[3] == str(tmp_path / "site" / "hearth" / "libhearth_lab.so")
