"""The ingest path through the ABI: events, ticks, state saved and restored."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import hearth

HOME = {"id": 1, "circle": 7, "name": "Home", "latitude_deg": 52.52, "longitude_deg": 13.405, "radius_m": 100.0}
T0 = 1_700_000_000_000


def walk(start_ms, lat0, lat1, n, step_ms=30_000, user=42):
    return pd.DataFrame({
        "time_ms": np.arange(n, dtype=np.int64) * step_ms + start_ms,
        "latitude_deg": np.linspace(lat0, lat1, n),
        "longitude_deg": np.full(n, 13.405),
        "horizontal_accuracy_m": np.full(n, 10.0),
        "speed_mps": np.full(n, 1.5),
        "user": np.full(n, user, dtype=np.uint32),
        "device": np.full(n, 1, dtype=np.uint32),
    })


def history():
    # At home, then leaving north for half an hour.
    return pd.concat([walk(T0, 52.52, 52.52, 10), walk(T0 + 300_000, 52.521, 52.56, 60)], ignore_index=True)


def replay(pipeline, fixes, received_ms=None):
    events = []
    for batch, received in hearth.uploads(fixes):
        events.append(pipeline.ingest(batch, received if received_ms is None else received_ms))
    return pd.concat(events, ignore_index=True)


def test_a_departure_from_home_is_announced():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    events = replay(pipeline, history())
    pipeline_events = pd.concat([events, pipeline.tick(int(history().time_ms.max()) + 3_600_000)], ignore_index=True)
    geofence = pipeline_events[pipeline_events.kind == "geofence"]
    assert (geofence.code == 1).any() and (geofence[geofence.code == 1].announced == 1).any()
    assert (pipeline_events.kind == "sharedFrame").any()


def test_a_retried_upload_changes_nothing():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    first = pipeline.ingest(history().iloc[:10], T0 + 400_000)
    again = pipeline.ingest(history().iloc[:10], T0 + 401_000)
    assert first.attrs["inserted"] == 10 and again.attrs["inserted"] == 0 and again.attrs["duplicates"] == 10
    assert len(again) == 0


def test_fixes_that_do_not_take_the_presence_row_are_counted_and_move_nothing():
    # The phone walks away from home; a home tablet (device 2) then sends
    # `still` fixes at home: its old ones (not newer than the phone's row)
    # and a new one while the phone is fresh (overruled). Neither brings
    # the person home again.
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history())
    newest = int(history().time_ms.max())
    tablet = walk(newest - 90_000, 52.52, 52.52, 3, step_ms=60_000)
    tablet["device"] = np.uint32(2)
    tablet["speed_mps"] = 0.0
    tablet["activity"] = np.uint8(1)  # HEARTH_ACTIVITY_STILL
    events = pipeline.ingest(tablet, newest + 61_000)
    assert events.attrs["inserted"] == 3
    assert events.attrs["not_newer"] == 2 and events.attrs["overruled"] == 1
    assert not (events.kind == "geofence").any()


def test_saved_state_restored_gives_the_same_future():
    fixes = history()
    a = hearth.Ingest([HOME], {42: [7]})
    replay(a, fixes.iloc[:30])
    saved = a.save()
    b = hearth.Ingest([HOME], {42: [7]})
    b.restore(saved)
    rest_a, rest_b = replay(a, fixes.iloc[30:]), replay(b, fixes.iloc[30:])
    pd.testing.assert_frame_equal(rest_a, rest_b)
    pd.testing.assert_frame_equal(a.tick(T0 + 10_000_000), b.tick(T0 + 10_000_000))


def test_bad_state_bytes_change_nothing():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history().iloc[:10])
    before = pipeline.save()
    with pytest.raises(hearth.BadInputError, match="not a saved ingest state"):
        pipeline.restore(b"{not state")
    assert pipeline.save() == before


def test_a_hand_edited_state_is_refused_with_the_path_and_changes_nothing():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history().iloc[:30])
    before = pipeline.save()
    state = json.loads(before)
    # A time set to Int64.min (used to trap at the next batch), and a version
    # this library does not read.
    log = state["dedupe"]["devices"][1]
    log["times"][0] = -(2**63)
    with pytest.raises(hearth.BadInputError, match=r"dedupe\.devices\[1\]\.times\[0\]: time -9223372036854775808 ms is outside 1900–2200"):
        pipeline.restore(json.dumps(state).encode())
    state = json.loads(before)
    state["formatVersion"] = 1
    with pytest.raises(hearth.BadInputError, match="format version 1; this library reads versions 2–3"):
        pipeline.restore(json.dumps(state).encode())
    # Into a pipeline without the state's places: the place is named.
    bare = hearth.Ingest([], {})
    with pytest.raises(hearth.BadInputError, match="place 1 is not one of the pipeline's places"):
        bare.restore(before)
    assert pipeline.save() == before


def first_path(tree, key, path=()):
    """The path of the first number named `key` in a saved state's JSON tree."""
    if isinstance(tree, dict):
        for k in sorted(tree):
            if k == key and not isinstance(tree[k], (dict, list)):
                return path + (k,)
            found = first_path(tree[k], key, path + (k,))
            if found:
                return found
    elif isinstance(tree, list):
        for i, inner in enumerate(tree):
            found = first_path(inner, key, path + (i,))
            if found:
                return found
    return None


def spelled(path):
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


@pytest.mark.parametrize("key, good, bad, why", [
    ("horizontalAccuracyMeters", 0.0, -0.5, "accuracy -0.5 m is negative"),
    ("horizontalAccuracyMeters", "nan", "inf", "inf is not a finite number"),
    ("accuracy", 0.0, -1.0, "accuracy -1.0 m is negative"),
    ("odometerMeters", 0.0, -0.001, "length -0.001 m is not a number ≥ 0"),
    ("speed", 0.0, -0.1, "speed -0.1 m/s is negative"),
    ("speedMetersPerSecond", "nan", -1.0, "speed -1.0 m/s is negative"),
    ("lastAgreed", 0.0, -1.0, "speed -1.0 m/s is negative"),
    ("staleAfterMilliseconds", 0, -1, "duration -1 ms is outside 0…"),
    ("timeMilliseconds", 7_258_118_399_999, 7_258_118_400_000, "time 7258118400000 ms is outside 1900–2200"),
    ("latitudeDegrees", -90.0, -90.5, "latitude -90.5° is outside ±90°"),
    ("droppedLate", 2**53, 2**53 + 1, "count 9007199254740993 is outside 0…2⁵³"),
])
def test_a_saved_value_the_engines_never_write_is_refused_by_path_and_its_edge_restores(key, good, bad, why):
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history().iloc[:40])
    before = pipeline.save()
    state = json.loads(before)
    path = first_path(state, key)
    assert path, key

    def edited(value):
        copy = json.loads(before)
        node = copy
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
        return json.dumps(copy).encode()

    other = hearth.Ingest([HOME], {42: [7]})
    other.restore(edited(good))
    with pytest.raises(hearth.BadInputError, match=re.escape(f"{spelled(path)}: {why}")):
        pipeline.restore(edited(bad))
    assert pipeline.save() == before


def test_a_value_a_reader_refuses_is_rejected_at_the_door_with_its_reason_and_the_rest_kept():
    # A recording reader refuses a row with a speed of 10⁹ m/s, a heading of
    # 400° or a battery of 150 %; handed in as columns they are rejected
    # too, each counted by reason, and never reach an engine. iOS's -1
    # (speed, heading) is "not measured"; each bound itself is taken.
    fixes = history().iloc[:12].copy()
    fixes["heading_deg"] = 90.0
    fixes["battery_level"] = 0.5
    fixes.loc[2:3, "speed_mps"] = 1e9
    fixes.loc[4, "speed_mps"] = np.inf
    fixes.loc[5, "heading_deg"] = 400.0
    fixes.loc[6, "altitude_m"] = 1e9
    fixes.loc[7, "battery_level"] = 1.5
    fixes.loc[8, "horizontal_accuracy_m"] = 2e5
    fixes.loc[9, ["speed_mps", "heading_deg"]] = -1.0
    fixes.loc[10, ["speed_mps", "heading_deg", "altitude_m", "battery_level"]] = [600.0, 360.0, -2000.0, 1.0]
    assert hearth.validate(fixes, T0 + 400_000).tolist() == [
        "accepted", "accepted", "speedOutOfRange", "speedOutOfRange", "speedOutOfRange", "headingOutOfRange",
        "altitudeOutOfRange", "batteryOutOfRange", "accuracyOutOfRange", "accepted", "accepted", "accepted"]
    pipeline = hearth.Ingest([HOME], {42: [7]})
    events = pipeline.ingest(fixes, T0 + 400_000)
    assert events.attrs["inserted"] == 5
    rejected = events[events.kind == "rejected"]
    assert rejected["index"].tolist() == [2, 3, 4, 5, 6, 7, 8]
    reasons = [line["value"]["reason"] for line in pipeline.events_json() if line["type"] == "rejected"]
    assert reasons == ["speedOutOfRange", "speedOutOfRange", "speedOutOfRange", "headingOutOfRange", "altitudeOutOfRange", "batteryOutOfRange",
                       "accuracyOutOfRange"]


def test_a_state_saved_with_a_heading_of_infinity_still_restores():
    # Before ABI 1.5 the door took a heading of ∞ and saved it; such a state
    # restores and saves back as it was.
    fixes = history().iloc[:20].copy()
    fixes["heading_deg"] = 90.0
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, fixes)
    saved = pipeline.save().replace(b'"headingDegrees":90', b'"headingDegrees":"inf"')
    assert b'"headingDegrees":"inf"' in saved
    restored = hearth.Ingest([HOME], {42: [7]})
    restored.restore(saved)
    assert restored.save() == saved


def test_a_schema_error_refuses_the_batch_and_keeps_the_state():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    bad = history().iloc[:3].copy()
    bad.loc[1, "latitude_deg"] = 95.0
    before = pipeline.save()
    with pytest.raises(hearth.SchemaError, match="fix 1: latitude 95.0"):
        pipeline.ingest(bad, T0 + 100_000)
    assert pipeline.save() == before


@pytest.mark.parametrize("clock_ms, good", [
    (-2_208_988_800_000, True), (7_258_118_399_999, True),
    (-2_208_988_800_001, False), (7_258_118_400_000, False), (T0 * 1_000_000, False), (-(2**63), False),
])
def test_the_server_clock_is_a_time_from_1900_to_2200_or_refused_by_name(clock_ms, good):
    # A clock in ns (review19) raised every waiting stop and closed every trip at once.
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history().iloc[:20])
    before = pipeline.save()
    for call, name in [(lambda: pipeline.tick(clock_ms), "now_ms"),
                       (lambda: pipeline.ingest(history().iloc[20:22], clock_ms), "received_ms")]:
        if good:
            call()
            pipeline.restore(before)
        else:
            with pytest.raises(ValueError, match=f"{name}: {clock_ms} is not a time from 1900 to 2200"):
                call()
            assert pipeline.save() == before


def test_a_tick_with_no_data_moves_nothing_on_an_empty_pipeline():
    pipeline = hearth.Ingest()
    assert len(pipeline.tick(T0)) == 0


def test_trips_finds_the_walk_and_the_stay():
    found = hearth.trips(history(), [HOME], {42: [7]})
    assert {"trip", "stay"} & set(found.type)


def test_a_bad_description_is_named():
    with pytest.raises(hearth.BadInputError, match="places\\[0\\]"):
        hearth.Ingest([dict(HOME, radius_m=-1)])


def test_inline_places_follow_the_places_file_s_rules(tmp_path):
    # One reader of places whichever way they come: the 100 km cap, and an id
    # given once (inline, in the file, or across the two).
    hearth.Ingest([dict(HOME, radius_m=100_000.0)])
    with pytest.raises(hearth.BadInputError, match="places\\[0\\].*100000 m"):
        hearth.Ingest([dict(HOME, radius_m=100_000.001)])
    with pytest.raises(hearth.BadInputError, match="places\\[1\\].*id 1 is used twice"):
        hearth.Ingest([HOME, dict(HOME, latitude_deg=52.6)])
    path = tmp_path / "places.geojson"
    path.write_text('{"type": "FeatureCollection", "features": [{"type": "Feature", "id": 1, "geometry": '
                    '{"type": "Point", "coordinates": [13.4, 52.5]}, "properties": {"radiusMeters": 50}}]}')
    hearth.Ingest(places_file=path)
    with pytest.raises(hearth.BadInputError, match="id 1 is used twice"):
        hearth.Ingest([HOME], places_file=path)


def test_reconfigure_keeps_the_state_and_drops_what_a_removed_place_left_waiting():
    fixes = history()
    same = hearth.Ingest([HOME], {42: [7]})
    edited = hearth.Ingest([HOME], {42: [7]})
    replay(same, fixes.iloc[:12])
    replay(edited, fixes.iloc[:12])
    # Unchanged places: nothing dropped, the same future as no edit at all.
    unchanged = hearth.Ingest([HOME], {42: [7]})
    replay(unchanged, fixes.iloc[:12])
    assert unchanged.reconfigure([HOME], {42: [7]}) == 0
    pd.testing.assert_frame_equal(replay(unchanged, fixes.iloc[12:]), replay(same, fixes.iloc[12:]))
    # Home removed while the person was inside it: its record is dropped, no event names it again.
    assert edited.reconfigure([], {42: [7]}) >= 1
    rest = replay(edited, fixes.iloc[12:])
    assert not ((rest.kind == "geofence") & (rest.place == 1)).any()
    assert (rest.kind == "trip").any() or (rest.kind == "sharedFrame").any()


def test_a_bad_reconfiguration_changes_nothing():
    pipeline = hearth.Ingest([HOME], {42: [7]})
    replay(pipeline, history().iloc[:10])
    before = pipeline.save()
    with pytest.raises(hearth.BadInputError, match="unchanged"):
        pipeline.reconfigure(description='{"places": [{"id": 1, "latitude_deg": 95, "longitude_deg": 0, "radius_m": 10}]}')
    assert pipeline.save() == before
