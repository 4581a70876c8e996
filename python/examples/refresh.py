"""Runs the example notebooks from the repository root and saves them with
their outputs (what python/tests/test_examples.py compares a fresh run with).

Usage (from the repository root, libhearth built):
    HEARTH_LIBRARY=$PWD/.build/libhearth/libhearth.so python3 python/examples/refresh.py
"""

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def refresh(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")]))
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    nbformat.write(notebook, path)


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(str(p) for p in (ROOT / "python" / "examples").glob("*.ipynb")):
        refresh(Path(name))
        print(name)
