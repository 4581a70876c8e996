"""Builds libhearth.so and libhearth_lab.so with the Swift toolchain and ships them inside the package.

`pip install ./python` runs this: build_py calls Scripts/build-libhearth (a
release `swift build` of the HearthC and HearthCLab products, self-contained)
in the checkout this folder belongs to (or HEARTH_SOURCE_ROOT), copies both
libraries next to the Python modules (the lab library is opened for sweeps
only), and the wheel is tagged for this platform (cffi ABI mode: any CPython
3, one OS and architecture).
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        root = Path(os.environ.get("HEARTH_SOURCE_ROOT", Path(__file__).resolve().parent.parent))
        script = root / "Scripts" / "build-libhearth"
        if not script.exists():
            raise SystemExit(f"hearth: {script} not found; set HEARTH_SOURCE_ROOT to the Hearth checkout")
        out = Path(self.build_lib) / "hearth"
        built = subprocess.run([str(script), str(root / ".build" / "libhearth")], check=True, capture_output=True, text=True)
        library = Path(built.stdout.strip().splitlines()[-1])
        if not library.is_absolute():
            library = root / library
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy2(library, out / "libhearth.so")
        shutil.copy2(library.parent / "libhearth_lab.so", out / "libhearth_lab.so")


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution)
