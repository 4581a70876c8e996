"""A generated fleet history for the replay tests, and the plain reference
replay: one `hearth.Ingest`, every upload and tick of the library's schedule
in order (no partitions, no checkpoints, no merge)."""

import json

import numpy as np
import pandas as pd

import hearth
from hearth.ingest import schedule

T0 = 1_700_000_000_000
MINUTE = 60_000


def person_day(rng, user, device, home, start_ms, *, drive_mps):
    """Home (still, a fix a minute), a drive north at `drive_mps` (a fix
    every 20 s), a stop, the drive back, home again: geofence departures and
    arrivals, trips and stays, speed stretches."""
    rows = []

    def fix(t, lat, lon, speed, activity, accuracy=8.0):
        rows.append((t, lat, lon, accuracy, speed, activity))

    t, lat, lon = start_ms, home[0], home[1]
    for _ in range(int(rng.integers(8, 15))):  # at home
        fix(t, lat + rng.normal(0, 2e-6), lon, 0.0, 1)
        t += MINUTE
    for direction in (1, -1):
        for _ in range(int(rng.integers(25, 40))):  # driving
            lat += direction * drive_mps * 20 / 111_320
            fix(t, lat, lon + rng.normal(0, 2e-6), drive_mps + rng.normal(0, 0.5), 5)
            t += 20_000
        for _ in range(int(rng.integers(10, 20))):  # stopped
            fix(t, lat + rng.normal(0, 2e-6), lon, 0.0, 1)
            t += MINUTE
    frame = pd.DataFrame(rows, columns=["time_ms", "latitude_deg", "longitude_deg", "horizontal_accuracy_m", "speed_mps", "activity"])
    frame["activity"] = frame["activity"].astype(np.uint8)
    frame["user"] = np.uint32(user)
    frame["device"] = np.uint32(device)
    return frame


def fleet(seed=7, families=6, per_family=3, *, bad_upload=True, retried=True):
    """People in families (a circle each; family 0's second member also in
    family 1's circle, so two families are one component), homes as places,
    speed limits on even circles; a retried (duplicated) stretch and a fix
    with an impossible latitude. Returns (history, places, circles, limits)."""
    rng = np.random.default_rng(seed)
    frames, places, circles = [], [], {}
    user = 100
    for family in range(families):
        home = (52.40 + 0.05 * family, 13.30 + 0.02 * family)
        places.append({"id": family + 1, "circle": family + 1, "name": f"Home {family}", "latitude_deg": home[0], "longitude_deg": home[1], "radius_m": 150.0})
        start = T0 + int(rng.integers(0, 40)) * MINUTE
        for member in range(per_family):
            circles[user] = [family + 1]
            speed = 18.0 if member < 2 else 9.0  # two fast drivers per family, near in time: the circle cooldown matters
            frames.append(person_day(rng, user, 1, home, start + member * 4 * MINUTE, drive_mps=speed))
            user += 1
    circles[101].append(2)  # family 0's second member is in family 1 too
    history = pd.concat(frames, ignore_index=True)
    if retried:  # a phone that sent a stretch twice (the server dedupes)
        again = history[(history.user == 103)].iloc[5:15]
        history = pd.concat([history, again], ignore_index=True)
    if bad_upload:  # one upload the server refuses whole
        history.loc[history.index[(history.user == 104)][3], "latitude_deg"] = 95.0
    limits = {c: 50.0 for c in range(2, families + 1, 2)}
    return history, places, circles, limits


def reference(history, places, circles, limits, *, final_advance_ms=2 * 3_600_000, **options):
    """The single-process replay: the library's schedule of the whole history
    (`hearth.ingest.schedule`, the one `hearth geo replay` runs), one
    pipeline, every upload and tick in order; events as it returns them,
    with their origins (the batch's own, 0, or the clock's, 1)."""
    plan = schedule(history, linger_ms=final_advance_ms, **options)
    pipeline = hearth.Ingest(places, circles, speed_limits_kmh=limits)
    frames, errors = [], []
    for number in range(len(plan.steps)):
        now = int(plan.steps["time_ms"][number])
        if plan.steps["kind"][number] == hearth.ingest.lib.HEARTH_STEP_TICK:
            out = pipeline.tick(now)
        else:
            try:
                out = pipeline.ingest(history.iloc[plan.positions(number)], now)
            except hearth.SchemaError as error:
                errors.append((number, str(error)))
                continue
        if len(out):
            out = out.assign(json=[json.dumps(e, sort_keys=True) for e in pipeline.events_json()], origin=pipeline.origins())
            out.insert(0, "step", number)
            frames.append(out)
    events = pd.concat(frames, ignore_index=True)
    return events, errors
