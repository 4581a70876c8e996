#!/usr/bin/env python3
"""Compares Hearth's stays (SPEC §7 dwell rule) with trackintel's
generate_staypoints (sliding, 100 m, 5 min) on exactly the same fixes.

    compare_stops.py TRACE [TRACE ...]      (any path `hearth geo trips` reads)
    compare_stops.py --time FIXES.csv       (seconds of one trackintel run; for hearth-bench)

For each trace it runs `hearth geo trips TRACE --stops --export-fixes`,
feeds the exported fixes to trackintel, matches stays by time overlap per
device, and prints the counts and every unmatched stay with the reason the
rules differ. Installs the pinned requirements with pip when missing.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def ensure_requirements():
    try:
        import trackintel  # noqa: F401
    except ImportError:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(HERE / "requirements.txt")],
            check=True, stdout=subprocess.DEVNULL)


def staypoints(fixes_csv):
    import geopandas as gpd
    import pandas as pd
    import trackintel as ti

    frame = pd.read_csv(fixes_csv)
    frame["tracked_at"] = pd.to_datetime(frame["time_ms"], unit="ms", utc=True)
    frame = frame.rename(columns={"user": "user_id"})
    geo = gpd.GeoDataFrame(frame, geometry=gpd.points_from_xy(frame["longitude"], frame["latitude"]), crs="EPSG:4326")
    pfs = ti.Positionfixes(geo)
    start = time.perf_counter()
    _, sp = pfs.generate_staypoints(
        method="sliding", distance_metric="haversine", dist_threshold=100, time_threshold=5.0, gap_threshold=15.0,
        include_last=False, print_progress=False, exclude_duplicate_pfs=True, n_jobs=1)
    elapsed = time.perf_counter() - start
    rows = [
        (int(r.user_id), int(r.started_at.value // 1_000_000), int(r.finished_at.value // 1_000_000))
        for r in sp.itertuples()
    ]
    return rows, elapsed, len(frame)


def hearth(trace, export):
    binary = os.environ.get("HEARTH", str(ROOT / ".build" / "release" / "hearth"))
    if not Path(binary).exists():
        subprocess.run(["swift", "build", "-c", "release", "--product", "hearth"], cwd=ROOT, check=True)
    out = subprocess.run([binary, "geo", "trips", trace, "--stops", "--export-fixes", export], check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[1:]
    # file,user,started_ms,finished_ms,latitude_deg,longitude_deg (the file may hold commas: count from the end)
    return [(int(u), int(a), int(b)) for *_, u, a, b, _, _ in (line.split(",") for line in out)]


def overlap(a, b):
    return min(a[2], b[2]) - max(a[1], b[1]) > 0


def explain(stay, fixes_by_user, theirs):
    """Which rule difference accounts for a stay only one side reports;
    "unexplained" when none does (the rules coincide there)."""
    times = fixes_by_user.get(stay[0], [])
    if theirs:
        # trackintel: [first fix inside, first fix outside) >= 5 min.
        # Hearth: first fix inside -> last fix inside > 5 min.
        inside = [t for t in times if stay[1] <= t < stay[2]]
        if inside and inside[-1] - stay[1] <= 5 * 60_000:
            return ("the end of a stay: to the last fix inside it lasts at most 5 min (Hearth), "
                    "to the first fix outside at least 5 min (trackintel)")
        return "unexplained"
    inside = [t for t in times if stay[1] <= t <= stay[2]]
    gaps = [b - a for a, b in zip(inside, inside[1:])]
    if gaps and max(gaps) > 15 * 60_000:
        return "a silence over 15 min inside it: trackintel resets its anchor there; Hearth keeps a stay the phone came back to"
    after = [t for t in times if t > stay[2]]
    if after and after[0] - stay[2] > 15 * 60_000:
        return ("a silence over 15 min before the fix that leaves: trackintel resets its anchor first and drops "
                "the stay; Hearth reports the stay the phone left")
    return "unexplained"


def compare(trace):
    with tempfile.TemporaryDirectory() as tmp:
        export = os.path.join(tmp, "fixes.csv")
        ours = hearth(trace, export)
        theirs, elapsed, count = staypoints(export)
        fixes_by_user = {}
        with open(export) as f:
            next(f)
            for line in f:
                u, t, _, _ = line.split(",")
                fixes_by_user.setdefault(int(u), []).append(int(t))
    both = [s for s in ours if any(s[0] == t[0] and overlap(s, t) for t in theirs)]
    only_ours = [s for s in ours if s not in both]
    only_theirs = [t for t in theirs if not any(s[0] == t[0] and overlap(s, t) for s in ours)]
    print(f"{trace}: {count} fixes; Hearth {len(ours)} stays, trackintel {len(theirs)} staypoints "
          f"({elapsed * 1e6 / max(1, count):.1f} µs per fix); {len(both)} coincide, "
          f"{len(only_ours)} only Hearth, {len(only_theirs)} only trackintel")
    reasons = {}
    for s in only_ours:
        reasons.setdefault("only Hearth: " + explain(s, fixes_by_user, False), []).append(s)
    for s in only_theirs:
        reasons.setdefault("only trackintel: " + explain(s, fixes_by_user, True), []).append(s)
    for reason, stays in sorted(reasons.items()):
        print(f"  {len(stays)} × {reason}")
    return len(ours), len(theirs), len(both)


def main():
    import warnings
    warnings.simplefilter("ignore")  # trackintel warns about the duplicates it drops
    ensure_requirements()
    if len(sys.argv) == 3 and sys.argv[1] == "--time":
        _, elapsed, count = staypoints(sys.argv[2])
        print(f"{elapsed:.9f} {count}")
        return
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for trace in sys.argv[1:]:
        compare(trace)


if __name__ == "__main__":
    main()
