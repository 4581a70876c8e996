#!/usr/bin/env python3
"""Times Python peers on the files hearth-bench generates, for the ratios in
its table: `trace_peers.py <operation> <file>` prints the seconds of one
timed run (after one untimed warm-up run in the same process).

Operations:
  pandas-csv   pandas.read_csv(file, engine="c")  (the C parser, default options)
  numpy-load   numpy.load(file)                    (reads the whole array)

Installs the pinned requirements (requirements.txt) with pip when missing.
"""
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ensure_requirements():
    try:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
    except ImportError:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(HERE / "requirements.txt")],
            check=True, stdout=subprocess.DEVNULL)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    operation, path = sys.argv[1], sys.argv[2]
    ensure_requirements()
    import numpy as np
    import pandas as pd

    if operation == "pandas-csv":
        def run():
            frame = pd.read_csv(path, engine="c")
            return len(frame)
    elif operation == "numpy-load":
        def run():
            array = np.load(path)
            return int(array.shape[0])
    else:
        print(f"unknown operation {operation}", file=sys.stderr)
        sys.exit(2)
    run()
    start = time.perf_counter()
    rows = run()
    elapsed = time.perf_counter() - start
    print(f"{elapsed:.9f} {rows}")


if __name__ == "__main__":
    main()
