"""hearth-bench's Python side of the ABI workloads: times one operation
through the hearth package (libhearth over cffi) or numpy on the inputs the
benchmark wrote, and prints "SECONDS <what>" (best of repeated runs, a
warm-up excluded) as Scripts/peers/peers.py does.

  abi.py hearth-haversine PAIRS.npy      hearth.haversine on the (n, 4) pairs
  abi.py numpy-haversine PAIRS.npy       the same formula in numpy
  abi.py hearth-detector DRIVE.npy [S]  hearth.Detector over S-second batches of a drive (default 0.25; 0: one call)
"""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("HEARTH_LIBRARY", str(ROOT / ".build" / "libhearth" / "libhearth.so"))

import numpy as np  # noqa: E402

import hearth  # noqa: E402


def best(run, minimum_seconds=0.3):
    run()
    times = []
    started = time.perf_counter()
    while time.perf_counter() - started < minimum_seconds or len(times) < 5:
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times)


def numpy_haversine(lat1, lon1, lat2, lon2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    h = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(np.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6_371_008.8 * np.arcsin(np.sqrt(h))


def main():
    operation, *paths = sys.argv[1:]
    if operation in ("hearth-haversine", "numpy-haversine"):
        pairs = np.load(paths[0])
        columns = [np.ascontiguousarray(pairs[:, i]) for i in range(4)]
        f = hearth.haversine if operation == "hearth-haversine" else numpy_haversine
        print(f"{best(lambda: f(*columns))} {operation} {len(pairs)}")
    elif operation == "hearth-detector":
        samples = np.load(paths[0])  # (n, 4): t, x, y, z (gravity included)
        batch_seconds = float(paths[1]) if len(paths) > 1 else 0.25  # 0: the whole drive in one call
        t = np.ascontiguousarray(samples[:, 0])
        xyz = [np.ascontiguousarray(samples[:, i]) for i in (1, 2, 3)]
        if batch_seconds > 0:
            cuts = np.searchsorted(t, np.arange(t[0], t[-1] + batch_seconds, batch_seconds))
        else:
            cuts = np.array([0, len(t)])

        def run():
            d = hearth.Detector()
            for a, b in zip(cuts[:-1], cuts[1:]):
                d.feed((t[a:b], xyz[0][a:b], xyz[1][a:b], xyz[2][a:b]))
            d.finish()

        print(f"{best(run)} {operation} {len(t)}")
    else:
        raise SystemExit(f"abi.py: unknown operation {operation}")


if __name__ == "__main__":
    main()
