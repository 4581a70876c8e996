"""The package refuses, when it opens a libhearth, one whose ABI cannot serve it: another
major, or an older minor than its header (it calls every function of the header, and an
older library lacks the newer ones: the call would fail after the state had moved)."""
import subprocess

import pytest

from hearth._ffi import ABI_MAJOR, ABI_MINOR, _open

COMPILED = (ABI_MAJOR << 16) | (ABI_MINOR << 8)


def _stub(tmp_path, version: int) -> str:
    """A library that only says it is ABI `version` (no soname: opened beside the real one)."""
    (tmp_path / "stub.c").write_text(f"unsigned hearth_abi_version(void) {{ return {version}u; }}\n")
    stub = tmp_path / f"libstub-{version:x}.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(stub), str(tmp_path / "stub.c")], check=True)
    return str(stub)


@pytest.mark.parametrize("version", [COMPILED, COMPILED + 0x100, COMPILED + 1])
def test_the_version_built_against_and_newer_minors_open(tmp_path, version):
    assert _open(_stub(tmp_path, version)).hearth_abi_version() == version


def test_an_older_minor_is_refused_naming_both(tmp_path):
    assert ABI_MINOR >= 1, "the header is minor 1 or later"
    older = COMPILED - 0x100
    with pytest.raises(ImportError, match=f"ABI {older:#x}: minor version {ABI_MINOR - 1} is older than {ABI_MINOR}"):
        _open(_stub(tmp_path, older))


@pytest.mark.parametrize("version", [COMPILED + 0x10000, COMPILED & 0xFFFF])
def test_another_major_is_refused(tmp_path, version):
    with pytest.raises(ImportError, match=f"is not major version {ABI_MAJOR}"):
        _open(_stub(tmp_path, version))
