"""Builds libhearth.so and libhearth_lab.so with the Swift toolchain and ships them inside the package.

`pip install ./python` runs this: build_py calls Scripts/build-libhearth (a
release `swift build` of the HearthC and HearthCLab products, self-contained)
in the checkout this folder belongs to (or HEARTH_SOURCE_ROOT), copies both
libraries and the header they were built from (hearth.h, which the package's
cffi declarations are read from) next to the Python modules (the lab library
is opened for sweeps only), and the wheel is tagged for this platform (cffi ABI
mode: any CPython 3, one OS and architecture). Scripts/build-wheel turns that
wheel into a manylinux one with the libraries' own dependencies vendored.

The build takes minutes on a fresh checkout. Its progress goes to stderr line
by line (`pip install -v ./python` shows it; so does pip's report when the
build fails) and, when the process has a terminal, as one updating line on
the terminal itself (pip without -v shows nothing else; set
HEARTH_BUILD_PROGRESS=0 to turn that off). A failed build ends with the
compiler's error lines and the path of the whole log, not a traceback.
HEARTH_PREBUILT=FOLDER takes the libraries from a folder Scripts/build-libhearth
already filled instead of building them.
"""

import collections
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

#: Lines of the build kept to explain a failure when it printed no `error:` line.
TAIL_LINES = 40


def _terminal():
    """The process's terminal for the one-line progress, or None (no terminal, or turned off)."""
    if os.environ.get("HEARTH_BUILD_PROGRESS", "1") == "0":
        return None
    try:
        return open("/dev/tty", "w")
    except OSError:
        return None


def build_library(script: Path, out: Path, log_path: Path, stream=sys.stderr) -> Path:
    """Runs `script out` (Scripts/build-libhearth), showing its progress, and
    returns the path it printed last (libhearth.so). Every line of the build
    goes to `stream` and to `log_path` as it comes. When the build fails:
    SystemExit naming the script, its exit status, the build's error lines
    (else its last TAIL_LINES lines) and the log."""
    started = time.monotonic()
    print(f"hearth: building libhearth with the Swift toolchain ({script} {out}); "
          f"minutes on a fresh checkout, the log is {log_path}", file=stream, flush=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    terminal = _terminal()
    tail = collections.deque(maxlen=TAIL_LINES)
    errors = []
    last = ""
    try:
        with open(log_path, "w") as log:
            # stderr (swift build's progress) and stdout (the path, printed last) in one stream.
            process = subprocess.Popen([str(script), str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, errors="replace", bufsize=1)
            for line in process.stdout:
                line = line.rstrip("\n")
                log.write(line + "\n")
                print("  " + line, file=stream, flush=True)
                tail.append(line)
                if "error:" in line:
                    errors.append(line)
                if line.strip():
                    last = line.strip()
                if terminal is not None:
                    minutes, seconds = divmod(int(time.monotonic() - started), 60)
                    terminal.write(f"\r\033[Khearth: {minutes}:{seconds:02d} {line.strip()[:100]}")
                    terminal.flush()
            status = process.wait()
    finally:
        if terminal is not None:
            terminal.write("\r\033[K")
            terminal.close()
    if status != 0:
        shown = errors or list(tail)
        raise SystemExit(
            f"hearth: building libhearth failed: {script} exited with status {status}.\n"
            + ("The build's errors:\n" if errors else f"Its last {len(shown)} lines:\n")
            + "\n".join("  " + line for line in shown)
            + f"\nThe whole log: {log_path}"
        )
    minutes, seconds = divmod(int(time.monotonic() - started), 60)
    print(f"hearth: libhearth built in {minutes} min {seconds} s: {last}", file=stream, flush=True)
    return Path(last)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        root = Path(os.environ.get("HEARTH_SOURCE_ROOT", Path(__file__).resolve().parent.parent))
        script = root / "Scripts" / "build-libhearth"
        if not script.exists():
            raise SystemExit(f"hearth: {script} not found; set HEARTH_SOURCE_ROOT to the Hearth checkout")
        out = Path(self.build_lib) / "hearth"
        prebuilt = os.environ.get("HEARTH_PREBUILT")
        if prebuilt:
            # A folder Scripts/build-libhearth already filled (Scripts/build-wheel --from): no second build.
            library = Path(prebuilt) / "libhearth.so"
            if not library.exists():
                raise SystemExit(f"hearth: HEARTH_PREBUILT={prebuilt} has no libhearth.so (run Scripts/build-libhearth)")
        else:
            library = build_library(script, root / ".build" / "libhearth", root / ".build" / "libhearth-build.log")
        if not library.is_absolute():
            library = root / library
        out.mkdir(parents=True, exist_ok=True)
        # Regular files under the names the package opens (copy2 follows the links).
        shutil.copy2(library, out / "libhearth.so")
        shutil.copy2(library.parent / "libhearth_lab.so", out / "libhearth_lab.so")
        shutil.copy2(library.parent / "hearth.h", out / "hearth.h")


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
