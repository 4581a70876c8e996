#!/usr/bin/env python3
"""Regenerates datasets/reference/*.csv from GeographicLib's GeodSolve.

Run from the repository root:  python3 Scripts/gen-reference.py
Needs: apt-get install geographiclib-tools   (GeodSolve 2.1.2 was used)

The inputs come from Python's random module with a fixed seed, printed with
repr() so every value is an exact double; GeodSolve reads them and solves the
problem in long double with -p 9 (9 decimals of metres and more of degrees).
The sphere is -e 6371008.8 0 (IUGG mean radius, flattening 0); the WGS84
column uses GeodSolve's default ellipsoid and measures the model error only.
"""
import csv
import math
import random
import subprocess
import sys
from pathlib import Path

OUT = Path("datasets/reference")
SPHERE = ["-e", "6371008.8", "0"]
RADIUS = 6371008.8


def geodsolve(args, lines):
    text = "\n".join(lines) + "\n"
    result = subprocess.run(["GeodSolve", *args], input=text, capture_output=True, text=True, check=True)
    rows = [line.split() for line in result.stdout.strip().split("\n")]
    assert len(rows) == len(lines), (len(rows), len(lines))
    return rows


def offset(lat, lon, bearing_deg, dist_m):
    """Point at a distance and bearing on the sphere (only to place test inputs)."""
    p1, l1, a = math.radians(lat), math.radians(lon), math.radians(bearing_deg)
    d = dist_m / RADIUS
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(a))
    l2 = l1 + math.atan2(math.sin(a) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    lon2 = (math.degrees(l2) + 180) % 360 - 180
    return max(-90.0, min(90.0, math.degrees(p2))), lon2


def inverse_cases(rng):
    cases = []
    uniform_lat = lambda: math.degrees(math.asin(rng.uniform(-1, 1)))
    for _ in range(2000):
        cases.append(("globe", uniform_lat(), rng.uniform(-180, 180), uniform_lat(), rng.uniform(-180, 180)))
    for _ in range(500):
        lat, lon = rng.uniform(-60, 60), rng.uniform(-180, 180)
        cases.append(("city", lat, lon, *offset(lat, lon, rng.uniform(0, 360), rng.uniform(10, 20000))))
    for _ in range(200):
        lat, lon = uniform_lat(), rng.uniform(-180, 180)
        cases.append(("tiny", lat, lon, *offset(lat, lon, rng.uniform(0, 360), 10 ** rng.uniform(-3, 1))))
    for _ in range(50):
        lat, lon = uniform_lat(), rng.uniform(-180, 180)
        cases.append(("coincident", lat, lon, lat, lon))
    for _ in range(50):
        lat, lon = rng.uniform(-89, 89), rng.uniform(-180, 180)
        cases.append(("antipodal", lat, lon, -lat, lon - 180 if lon > 0 else lon + 180))
    for _ in range(200):
        lat, lon = rng.uniform(-89, 89), rng.uniform(-180, 180)
        alat, alon = -lat, (lon - 180 if lon > 0 else lon + 180)
        cases.append(("near-antipodal", lat, lon, *offset(alat, alon, rng.uniform(0, 360), 10 ** rng.uniform(0, 4))))
    for _ in range(100):
        pole = rng.choice([90.0, -90.0])
        cases.append(("pole", pole, rng.uniform(-180, 180), uniform_lat(), rng.uniform(-180, 180)))
    for _ in range(100):
        pole = rng.choice([90.0, -90.0])
        lat1 = pole - math.copysign(10 ** rng.uniform(-7, 0), pole)
        lat2 = pole - math.copysign(10 ** rng.uniform(-7, 0), pole)
        cases.append(("near-pole", lat1, rng.uniform(-180, 180), lat2, rng.uniform(-180, 180)))
    for _ in range(200):
        lat = rng.uniform(-80, 80)
        cases.append(("antimeridian", lat, rng.uniform(179, 180), lat + rng.uniform(-0.5, 0.5), rng.uniform(-180, -179)))
    for _ in range(50):
        cases.append(("equator", 0.0, rng.uniform(-180, 180), 0.0, rng.uniform(-180, 180)))
    return cases


def direct_cases(rng):
    cases = []
    for _ in range(1000):
        lat = math.degrees(math.asin(rng.uniform(-1, 1)))
        cases.append(("globe", lat, rng.uniform(-180, 180), rng.uniform(0, 360), rng.uniform(0, 2.0e7)))
    for _ in range(200):
        cases.append(("short", rng.uniform(-80, 80), rng.uniform(-180, 180), rng.uniform(0, 360), rng.uniform(0, 5000)))
    for _ in range(100):
        cases.append(("antimeridian", rng.uniform(-80, 80), rng.uniform(179.9, 180), rng.uniform(30, 150), rng.uniform(1000, 50000)))
    for _ in range(50):
        cases.append(("to-pole", rng.uniform(0, 89), rng.uniform(-180, 180), 0.0, rng.uniform(1e6, 1e7)))
    return cases


def main():
    rng = random.Random(20261129)
    OUT.mkdir(parents=True, exist_ok=True)
    inverse = inverse_cases(rng)
    lines = [f"{c[1]!r} {c[2]!r} {c[3]!r} {c[4]!r}" for c in inverse]
    sphere = geodsolve(["-i", "-p", "9", *SPHERE], lines)
    wgs84 = geodsolve(["-i", "-p", "9"], lines)
    with open(OUT / "inverse-sphere.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["category", "lat1_deg", "lon1_deg", "lat2_deg", "lon2_deg",
                    "azi1_deg", "azi2_deg", "s12_sphere_m", "s12_wgs84_m"])
        for c, s, e in zip(inverse, sphere, wgs84):
            w.writerow([c[0], repr(c[1]), repr(c[2]), repr(c[3]), repr(c[4]), s[0], s[1], s[2], e[2]])
    direct = direct_cases(rng)
    lines = [f"{c[1]!r} {c[2]!r} {c[3]!r} {c[4]!r}" for c in direct]
    result = geodsolve(["-p", "9", *SPHERE], lines)
    with open(OUT / "direct-sphere.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["category", "lat1_deg", "lon1_deg", "azi1_deg", "s12_m", "lat2_deg", "lon2_deg", "azi2_deg"])
        for c, r in zip(direct, result):
            w.writerow([c[0], repr(c[1]), repr(c[2]), repr(c[3]), repr(c[4]), r[0], r[1], r[2]])
    print(f"wrote {len(inverse)} inverse and {len(direct)} direct cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
