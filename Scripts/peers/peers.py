#!/usr/bin/env python3
"""Times Python peers on the files hearth-bench generates, for the ratios in
its table: `peers.py <operation> <file>...` prints "<seconds> <count>" for one
timed run (after one untimed warm-up run in the same process; loading the
input files is not timed).

Operations (inputs are .npy float64 arrays unless said otherwise):
  pandas-csv FILE.csv         pandas.read_csv(file, engine="c")
  pyarrow-csv FILE.csv        pyarrow.csv.read_csv(file) on one thread (use_threads=False,
                              pyarrow's CPU pool at 1), the first column as int64 and
                              the rest as float64, as hearth-bench asks CSVStream.read
  numpy-load FILE.npy         numpy.load(file)
  numpy-haversine PAIRS.npy   vectorised haversine in numpy on an (n, 4) array of
                              lat1, lon1, lat2, lon2 degrees (mean Earth radius)
  haversine PAIRS.npy         the `haversine` package's haversine_vector (metres)
  h3 POINTS.npy               h3.latlng_to_cell at resolution 8 (~0.7 km², the
                              nearest to the 750 m grid) for each row of (n, 2)
  balltree POINTS.npy PLACES.npy
                              scikit-learn BallTree (haversine metric) over the place
                              centres of PLACES (m, 3: lat, lon, radius m); for each
                              point, the smallest place holding it (query_radius at the
                              largest radius, then the exact test)
  movingpandas FIXES.csv      movingpandas TrajectoryCollection(user, time_ms, lat, lon)
                              and add_speed: the speed at every fix
  pandas-rolling MAG.npy      pandas rolling windows over a 50 Hz |a| series: 1 s RMS,
                              9 s rolling median of it, 1 s max

Installs the pinned requirements (requirements.txt) with pip when missing.
"""
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EARTH_RADIUS_M = 6_371_008.8


def ensure_requirements():
    try:
        import h3  # noqa: F401
        import haversine  # noqa: F401
        import movingpandas  # noqa: F401
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r",
             str(HERE / "requirements.txt")],
            check=True, stdout=subprocess.DEVNULL)


def operation(name, paths):
    import numpy as np
    import pandas as pd

    if name == "pandas-csv":
        return lambda: len(pd.read_csv(paths[0], engine="c"))
    if name == "pyarrow-csv":
        import pyarrow as pa
        from pyarrow import csv

        pa.set_cpu_count(1)
        with open(paths[0], encoding="utf-8") as f:
            header = f.readline().rstrip("\r\n").split(",")
        types = {column: pa.float64() for column in header}
        types[header[0]] = pa.int64()
        read = csv.ReadOptions(use_threads=False)
        convert = csv.ConvertOptions(column_types=types)
        return lambda: csv.read_csv(paths[0], read_options=read, convert_options=convert).num_rows
    if name == "numpy-load":
        return lambda: int(np.load(paths[0]).shape[0])
    if name == "numpy-haversine":
        p = np.radians(np.load(paths[0]))

        def run():
            lat1, lon1, lat2, lon2 = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
            a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
            d = 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(a))
            return int(d.shape[0])
        return run
    if name == "haversine":
        from haversine import Unit, haversine_vector
        p = np.load(paths[0])
        a, b = np.ascontiguousarray(p[:, 0:2]), np.ascontiguousarray(p[:, 2:4])
        return lambda: int(haversine_vector(a, b, Unit.METERS).shape[0])
    if name == "h3":
        import h3
        p = np.load(paths[0]).tolist()
        return lambda: len([h3.latlng_to_cell(lat, lon, 8) for lat, lon in p])
    if name == "balltree":
        from sklearn.neighbors import BallTree
        points = np.radians(np.load(paths[0]))
        places = np.load(paths[1])
        centres = np.radians(places[:, 0:2])
        radius = places[:, 2] / EARTH_RADIUS_M

        def run():
            tree = BallTree(centres, metric="haversine")
            candidates = tree.query_radius(points, r=radius.max())
            hits = 0
            for i, c in enumerate(candidates):
                if len(c) == 0:
                    continue
                lat, lon = points[i]
                c = c[np.argsort(radius[c], kind="stable")]
                dlat, dlon = centres[c, 0] - lat, centres[c, 1] - lon
                a = np.sin(dlat / 2) ** 2 + np.cos(lat) * np.cos(centres[c, 0]) * np.sin(dlon / 2) ** 2
                inside = 2 * np.arcsin(np.sqrt(a)) <= radius[c]
                if inside.any():
                    hits += 1
            return hits
        return run
    if name == "movingpandas":
        import movingpandas as mpd
        frame = pd.read_csv(paths[0])
        frame["t"] = pd.to_datetime(frame["time_ms"], unit="ms")

        def run():
            collection = mpd.TrajectoryCollection(
                frame, traj_id_col="user", t="t", x="longitude", y="latitude", crs="EPSG:4326")
            collection.add_speed(overwrite=True)
            return sum(len(t.df) for t in collection.trajectories)
        return run
    if name == "pandas-rolling":
        series = pd.Series(np.load(paths[0]))

        def run():
            rms = (series ** 2).rolling(50, min_periods=1).mean() ** 0.5
            median = rms.rolling(450, min_periods=1).median()
            peak = series.rolling(50, min_periods=1).max()
            return int(len(median) + len(peak) - len(series))
        return run
    print(f"unknown operation {name}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ensure_requirements()
    run = operation(sys.argv[1], sys.argv[2:])
    run()
    start = time.perf_counter()
    count = run()
    elapsed = time.perf_counter() - start
    print(f"{elapsed:.9f} {count}")


if __name__ == "__main__":
    main()
