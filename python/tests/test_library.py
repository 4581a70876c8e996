"""libhearth.so as shipped: only hearth_* leaves it, it needs no Swift
toolchain, and plain C compiled by gcc replays a recording through it and
prints what `hearth impact detect` prints."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import DRIVE, DROP, LIBRARY, ROOT, run

from hearth import _cdef

#: An environment with the Swift toolchain nowhere to be seen.
BARE = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


def test_only_hearth_symbols_are_exported():
    names = run("nm", "-D", "--defined-only", "--extern-only", LIBRARY).stdout.decode().split()
    exported = [n for n in names[2::3]]
    assert exported and all(n.startswith("hearth_") for n in exported), [n for n in exported if not n.startswith("hearth_")]


def test_the_library_is_never_unloaded():
    # Regression 2026-12-02: cffi dlclose()s the library at interpreter exit
    # while the Swift runtime's worker threads (Dispatch) still run in it: a
    # segfault in about one run of three. Linked -z nodelete, dlclose keeps it.
    flags = run("readelf", "-d", LIBRARY).stdout.decode()
    assert "NODELETE" in flags, flags


def test_no_swift_runtime_is_needed_at_load_time():
    needed = run("ldd", LIBRARY, env=BARE).stdout.decode()
    assert "libswift" not in needed and "libFoundation" not in needed and "not found" not in needed, needed


def abi_version() -> tuple[int, int, int]:
    constants = _cdef.constants((ROOT / "include" / "hearth.h").read_text())
    return tuple(constants[f"HEARTH_ABI_VERSION_{part}"] for part in ("MAJOR", "MINOR", "PATCH"))


def soname(path) -> str:
    found = re.findall(r"Library soname: \[(.*?)\]", run("readelf", "-d", path).stdout.decode())
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("name", ["libhearth", "libhearth_lab"])
def test_each_library_is_versioned_by_the_header_s_abi(name):
    """The soname carries the ABI major (a new major is a new soname); the
    file the major's link and the -l link lead to carries the whole version."""
    major, minor, patch = abi_version()
    built = LIBRARY.parent / f"{name}.so"
    assert soname(built) == f"{name}.so.{major}"
    assert os.readlink(built) == f"{name}.so.{major}"
    assert os.readlink(LIBRARY.parent / f"{name}.so.{major}") == f"{name}.so.{major}.{minor}.{patch}"
    assert (LIBRARY.parent / f"{name}.so.{major}.{minor}.{patch}").is_file()


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """examples/c/replay.c compiled by gcc against the header, linked to a copy of the library beside it
    (under its soname, the name the program records and loads)."""
    folder = tmp_path_factory.mktemp("c")
    shutil.copy2(LIBRARY, folder / soname(LIBRARY))
    os.symlink(soname(LIBRARY), folder / "libhearth.so")
    binary = folder / "replay"
    run("gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", ROOT / "include", ROOT / "examples" / "c" / "replay.c",
        "-L", folder, "-lhearth", "-Wl,-rpath,$ORIGIN", "-o", binary, check_codes=(0,))
    return binary


@pytest.mark.parametrize("format", ["text", "json", "csv"])
def test_the_c_example_prints_what_the_command_prints(replay, command, scenario, format):
    paths = [scenario, DRIVE, DROP]
    ours = run(replay, "--format", format, *paths, env=BARE)
    theirs = run(command, "impact", "detect", "--format", format, *paths)
    assert ours.stdout == theirs.stdout
    assert ours.returncode == theirs.returncode == 1  # the generated crash is reported


def test_the_c_example_with_a_configuration_file(replay, command, scenario, tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"spinRadiansPerSecond": 30, "pressureRiseHectopascals": 50}')
    ours = run(replay, "--config", config, scenario, env=BARE)
    theirs = run(command, "impact", "detect", "--config", config, scenario)
    assert ours.stdout == theirs.stdout and b"silent" in ours.stdout and ours.returncode == theirs.returncode == 0


def test_the_c_example_replays_the_fixes_through_the_ingest_path(replay, scenario):
    result = run(replay, "--ingest", scenario, env=BARE)
    assert b"ingest:" in result.stderr and b" 0 new" not in result.stderr, result.stderr


def test_the_c_example_names_a_bad_path(replay, tmp_path):
    result = run(replay, tmp_path / "nothing-here", check_codes=(3,), env=BARE)
    assert b"nothing-here: no such file or folder" in result.stderr


def test_python_loads_the_library_with_no_toolchain_in_sight():
    code = "import hearth, numpy as np; print(hearth.haversine(np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1))[0])"
    env = dict(BARE, PYTHONPATH=str(ROOT / "python"), HEARTH_LIBRARY=str(LIBRARY))
    import sys

    out = run(sys.executable, "-c", code, env=env).stdout.decode()
    assert abs(float(out) - 111195.08) < 0.01


def test_the_installed_library_builds_the_c_example_through_pkg_config(tmp_path, command, scenario):
    """Scripts/install-libhearth puts the library, its links, the header and
    hearth.pc under a prefix; the C example compiles from that prefix alone
    (pkg-config's flags, not the checkout's include/), records the soname,
    and prints what the command prints."""
    major, minor, patch = abi_version()
    prefix = tmp_path / "prefix"
    printed = run(ROOT / "Scripts" / "install-libhearth", "--prefix", prefix, "--from", LIBRARY.parent, check_codes=(0,))
    assert printed.stdout.decode().split()[-1] == str(prefix / "lib" / "pkgconfig" / "hearth.pc")
    lib = prefix / "lib"
    assert sorted(p.name for p in lib.iterdir()) == sorted(
        ["pkgconfig", *(f"{n}.so{v}" for n in ("libhearth", "libhearth_lab") for v in ("", f".{major}", f".{major}.{minor}.{patch}"))])
    assert (prefix / "include" / "hearth.h").read_bytes() == (ROOT / "include" / "hearth.h").read_bytes()
    env = dict(BARE, PKG_CONFIG_PATH=str(lib / "pkgconfig"))
    assert run("pkg-config", "--modversion", "hearth", env=env).stdout.decode().strip() == f"{major}.{minor}.{patch}"
    flags = run("pkg-config", "--cflags", "--libs", "hearth", env=env, check_codes=(0,)).stdout.decode().split()
    assert flags == [f"-I{prefix}/include", f"-L{lib}", "-lhearth"]
    binary = tmp_path / "replay"
    run("gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", ROOT / "examples" / "c" / "replay.c", *flags,
        f"-Wl,-rpath,{lib}", "-o", binary, env=env, check_codes=(0,))
    needed = re.findall(r"\(NEEDED\).*\[(.*?)\]", run("readelf", "-d", binary).stdout.decode())
    assert f"libhearth.so.{major}" in needed and "libhearth.so" not in needed, needed
    ours = run(binary, "--format", "json", scenario, env=BARE)
    theirs = run(command, "impact", "detect", "--format", "json", scenario)
    assert ours.stdout == theirs.stdout and ours.returncode == theirs.returncode == 1
    # The lab library's .pc names its own library.
    assert run("pkg-config", "--libs", "hearth-lab", env=env).stdout.decode().split() == [f"-L{lib}", "-lhearth_lab"]
