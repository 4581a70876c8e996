"""The examples people read are run, so what they show cannot drift: the
walkthrough in python/README.md (doctest), every example in the package's
docstrings (doctest, what help() shows), and the example notebook in
python/examples (nbclient; every code cell's text output compared with the
output stored in the notebook). All run from the repository root, with the
shared recordings at ../shared/datasets, as the README says."""

import copy
import doctest
import importlib
import os
import pkgutil
import re
from pathlib import Path

import pytest

import hearth
from conftest import ROOT

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
README = ROOT / "python" / "README.md"
NOTEBOOKS = sorted((ROOT / "python" / "examples").glob("*.ipynb"))


@pytest.fixture(autouse=True)
def from_the_repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # restored after the notebook's change


def run_doctests(test: doctest.DocTest) -> doctest.TestResults:
    output = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=output.append, clear_globs=False)
    assert runner.failures == 0, "".join(output)
    return doctest.TestResults(runner.failures, runner.tries)


def readme_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_readme_walkthrough_prints_what_it_says():
    # One namespace for the whole README, block after block, as a reader types it.
    blocks = readme_blocks()
    assert len(blocks) >= 3
    globs: dict = {}
    tries = 0
    for number, block in enumerate(blocks):
        test = doctest.DocTestParser().get_doctest(block, globs, f"README.md block {number + 1}", str(README), 0)
        tries += run_doctests(test).attempted
        globs = test.globs
    assert tries >= 20


def test_a_changed_output_fails_the_readme_check():
    # The check can fail: the walkthrough's first block with one printed number changed.
    block = readme_blocks()[0].replace("877464.53792151", "877464.53792152")
    test = doctest.DocTestParser().get_doctest(block, {}, "changed", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda _: None)
    assert runner.failures == 1


def modules():
    names = ["hearth"] + [f"hearth.{m.name}" for m in pkgutil.iter_modules(hearth.__path__) if m.name != "distributed"]
    return [importlib.import_module(name) for name in names]


@pytest.mark.parametrize("module", modules(), ids=lambda m: m.__name__)
def test_every_docstring_example_runs(module):
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, module.__name__) if t.examples]
    for test in tests:
        run_doctests(test)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_example_notebook_shows_what_it_computes(path):
    import nbformat
    from nbclient import NotebookClient

    stored = nbformat.read(path, as_version=4)
    assert stored.cells and all(c.outputs for c in stored.cells if c.cell_type == "code"), "run the notebook and save it with its outputs"
    fresh = copy.deepcopy(stored)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    # The kernel inherits this environment: the library under test, and the package from the checkout.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")]))
    NotebookClient(fresh, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    for number, (before, after) in enumerate(zip(stored.cells, fresh.cells)):
        if before.cell_type == "code":
            assert text_of(after) == text_of(before), f"{path.name} cell {number + 1}: {before.source[:80]!r}"


def text_of(cell) -> list[str]:
    """A cell's text: its printed stream and each result's text/plain (figures by their kind only)."""
    out = []
    for output in cell.outputs:
        if output.output_type == "stream":
            out.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            data = output.data
            out.append(data.get("text/plain", "") if "image/png" not in data else "<figure>")
        elif output.output_type == "error":
            out.append(f"{output.ename}: {output.evalue}")
    return out
