"""SPEC §7 trip names through the C ABI (issue 28, item 6): the start from
the geofences' records (the first departure during the trip), else by
placeAt (the smallest place holding it, else the nearest centre whose edge
is within 1 km); the end from the last arrival not left again. The typed
records (hearth_ingest_trip_names), the JSON lines and `hearth geo replay`
give the same names. The day is Tests/_HearthTestSupport/TripNamingDay.swift's."""

import json
import math

import numpy as np
import pandas as pd
import pytest

import hearth
from conftest import run

R_M = 6_371_008.8
T0 = 1_700_000_000_000
START = (48.137, 11.575)
CAFE_RADIUS_M = 30.0


def destination(origin, bearing_deg, meters):
    """The point `meters` from `origin` along the great circle at `bearing_deg` (spherical Earth)."""
    lat1, lon1 = math.radians(origin[0]), math.radians(origin[1])
    theta, delta = math.radians(bearing_deg), meters / R_M
    lat2 = math.asin(math.sin(lat1) * math.cos(delta) + math.cos(lat1) * math.sin(delta) * math.cos(theta))
    lon2 = lon1 + math.atan2(math.sin(theta) * math.sin(delta) * math.cos(lat1), math.cos(delta) - math.sin(lat1) * math.sin(lat2))
    return math.degrees(lat2), math.degrees(lon2)


def places(cafe_m):
    """The café (2) `cafe_m` north of the start, the school (3) 3 km east, home (1) 6 km east; circle 7."""
    def place(id_, name, at, radius):
        return {"id": id_, "circle": 7, "name": name, "latitude_deg": at[0], "longitude_deg": at[1], "radius_m": radius}
    return [place(2, "Café", destination(START, 0, cafe_m), CAFE_RADIUS_M),
            place(3, "School", destination(START, 90, 3000), 100.0),
            place(1, "Home", destination(START, 90, 6000), 100.0)]


def day(user=1):
    """Ten minutes at the start, a drive to the school, ten minutes there, a
    drive home, ten minutes there: a fix a minute staying, every 10 s at 15 m/s driving."""
    rows, t = [], T0

    def fix(meters, speed):
        lat, lon = destination(START, 90, meters)
        rows.append((t, lat, lon, 8.0, speed))

    for a, b in ((0, 3000), (3000, 6000), (6000, None)):
        for _ in range(11):
            fix(a, 0.0)
            t += 60_000
        if b is None:
            break
        x = a
        while x < b:
            x = min(b, x + 150)
            t += 10_000
            fix(x, 15.0)
        t += 60_000
    frame = pd.DataFrame(rows, columns=["time_ms", "latitude_deg", "longitude_deg", "horizontal_accuracy_m", "speed_mps"])
    frame["user"] = np.uint32(user)
    frame["device"] = np.uint32(user)
    return frame


def through_the_abi(cafe_m):
    """The day's trips through hearth.Ingest: (typed names, JSON trip lines), trips only."""
    pipeline = hearth.Ingest(places(cafe_m), {1: [7]})
    typed, lines = [], []

    def take(events):
        names = pipeline.trip_names()
        assert list(names.event) == list(np.flatnonzero(events.kind == "trip"))
        for (_, row), trip in zip(names.iterrows(), events[events.kind == "trip"].itertuples()):
            if trip.code == 1:
                typed.append(row)
                assert trip.place == (0 if row.end_named_by is None else row.end_place)
        lines.extend(line for line in pipeline.events_json() if line["type"] == "trip" and line["value"]["isTrip"])

    fixes = day()
    clock = None
    for batch, received in hearth.uploads(fixes):
        take(pipeline.ingest(batch, received))
        clock = received
    take(pipeline.tick(clock + 3_600_000))
    return typed, lines


def as_names(typed):
    return [(None if pd.isna(r.start_place) else int(r.start_place), r.start_named_by,
             None if pd.isna(r.end_place) else int(r.end_place), r.end_named_by) for r in typed]


def line_names(lines):
    return [(line["value"]["startPlace"], line["value"]["startNamedBy"], line["value"]["endPlace"], line["value"]["endNamedBy"]) for line in lines]


def test_trip_names_a_cafe_850_m_from_the_start_by_place_at_and_the_rest_by_the_fence():
    typed, lines = through_the_abi(850)
    assert as_names(typed) == [(2, "placeAt", 3, "fence"), (3, "fence", 1, "fence")]
    assert line_names(lines) == as_names(typed)
    assert typed[0].start_distance_m == pytest.approx(850, abs=0.01)
    assert math.isnan(typed[1].start_distance_m)
    assert lines[0]["value"]["startPlaceDistanceMeters"] == pytest.approx(typed[0].start_distance_m, abs=1e-9)
    assert [(line.get("startPlaceName"), line.get("placeName")) for line in lines] == [("Café", "School"), ("School", "Home")]


@pytest.mark.parametrize("edge_m, named", [(999.99, True), (1000.01, False)])
def test_trip_names_the_cap_is_on_the_cafes_edge(edge_m, named):
    typed, lines = through_the_abi(edge_m + CAFE_RADIUS_M)
    first = as_names(typed)[0]
    assert first == ((2, "placeAt", 3, "fence") if named else (None, None, 3, "fence"))
    assert line_names(lines)[0] == first
    assert math.isnan(typed[0].start_distance_m) != named


def test_trip_names_survive_a_saved_and_restored_pipeline():
    # Saved after the school's departure was decided (its second fix clear is
    # 1 600 s into the day), before its trip closed (home reached at 1 780 s).
    fixes, desc = day(), places(850)
    whole = hearth.Ingest(desc, {1: [7]})
    halves = hearth.Ingest(desc, {1: [7]})
    uploads = list(hearth.uploads(fixes))
    cut = next(k for k, (batch, _) in enumerate(uploads) if batch.time_ms.min() > T0 + 1_700_000)
    names = {"whole": [], "halves": []}
    for k, (batch, received) in enumerate(uploads):
        whole.ingest(batch, received)
        names["whole"].append(whole.trip_names())
        if k == cut:
            restored = hearth.Ingest(desc, {1: [7]})
            restored.restore(halves.save())
            halves = restored
        halves.ingest(batch, received)
        names["halves"].append(halves.trip_names())
    end = uploads[-1][1] + 3_600_000
    whole.tick(end)
    halves.tick(end)
    names["whole"].append(whole.trip_names())
    names["halves"].append(halves.trip_names())
    for a, b in zip(names["whole"], names["halves"]):
        pd.testing.assert_frame_equal(a, b)
    assert ("fence", 3) in {(r.start_named_by, r.start_place) for frame in names["whole"] for r in frame.itertuples()}


def test_trip_names_too_small_a_capacity_is_refused():
    pipeline = hearth.Ingest(places(850), {1: [7]})
    lib, ffi = hearth._ffi.lib, hearth._ffi.ffi
    checked = 0
    for batch, received in hearth.uploads(day()):
        trips = int((pipeline.ingest(batch, received).kind == "trip").sum())
        if trips == 0:
            continue
        out = ffi.new("hearth_trip_names[]", trips)
        assert lib.hearth_ingest_trip_names(pipeline._handle, trips - 1, out) == lib.HEARTH_ERROR_CAPACITY
        assert "capacity" in ffi.string(lib.hearth_last_error(pipeline._handle)).decode()
        assert lib.hearth_ingest_trip_names(pipeline._handle, trips, out) == lib.HEARTH_OK
        checked += 1
    assert checked >= 2


def test_trip_names_the_abi_names_as_geo_replay_prints(command, tmp_path):
    fixes, log = day(), []
    for batch, received in hearth.uploads(fixes):
        log.append(batch.assign(received_ms=received))
    log = pd.concat(log).rename(columns={"latitude_deg": "latitude", "longitude_deg": "longitude",
                                         "horizontal_accuracy_m": "accuracy_m", "speed_mps": "speed_mps"})
    log[["user", "time_ms", "latitude", "longitude", "received_ms", "accuracy_m", "speed_mps"]].to_csv(tmp_path / "log.csv", index=False, float_format="%.17g")
    features = [{"type": "Feature", "id": p["id"], "geometry": {"type": "Point", "coordinates": [p["longitude_deg"], p["latitude_deg"]]},
                 "properties": {"radiusMeters": p["radius_m"], "name": p["name"], "circle": p["circle"]}} for p in places(850)]
    (tmp_path / "places.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    printed = run(command, "geo", "replay", tmp_path / "log.csv", "--places", tmp_path / "places.geojson", "--only", "trip").stdout.decode()
    replayed = [line for line in map(json.loads, printed.splitlines()) if line["value"]["isTrip"]]
    typed, _ = through_the_abi(850)
    assert line_names(replayed) == as_names(typed) == [(2, "placeAt", 3, "fence"), (3, "fence", 1, "fence")]
    assert replayed[0]["value"]["startPlaceDistanceMeters"] == pytest.approx(typed[0].start_distance_m, abs=1e-9)
    assert replayed[1]["value"]["startPlaceDistanceMeters"] is None
