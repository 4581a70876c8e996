"""Distances, the grid, validation and dedupe through the ABI."""

import numpy as np
import pandas as pd
import pytest

import hearth

R = 6_371_008.8


def reference_haversine(lat1, lon1, lat2, lon2):
    p1, p2, dl = np.radians(lat1), np.radians(lat2), np.radians(lon2 - lon1)
    h = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * R * np.arcsin(np.sqrt(h))


@pytest.fixture
def points():
    rng = np.random.default_rng(int(__import__("os").environ.get("HEARTH_TEST_SEED", "19")))
    n = 10_007
    return rng.uniform(-90, 90, n), rng.uniform(-180, 180, n), rng.uniform(-90, 90, n), rng.uniform(-180, 180, n)


def test_haversine_agrees_with_the_formula_to_half_a_millimetre(points):
    ours = hearth.haversine(*points)
    assert np.max(np.abs(ours - reference_haversine(*points))) < 5e-4


def test_any_chunking_gives_the_same_bits(points):
    whole = hearth.haversine(*points)
    for cut in (1, 7, 1024, 1025, 5000):
        parts = [hearth.haversine(*(p[i : i + cut] for p in points)) for i in range(0, len(points[0]), cut)]
        assert np.array_equal(np.concatenate(parts), whole)


def test_distances_from_and_track_match_pairs(points):
    lat, lon = points[0], points[1]
    assert np.array_equal(hearth.distances_from(lat[0], lon[0], lat, lon), hearth.haversine(np.full_like(lat, lat[0]), np.full_like(lon, lon[0]), lat, lon))
    steps, cumulative = hearth.track_distances(lat[:100], lon[:100])
    assert steps[0] == 0 and np.array_equal(steps[1:], hearth.haversine(lat[:99], lon[:99], lat[1:100], lon[1:100]))
    assert abs(cumulative[-1] - steps.sum()) < 1e-6 * steps.sum()


def test_out_of_domain_is_nan_and_empty_is_empty():
    out = hearth.haversine(np.array([np.nan, 91.0]), np.array([0.0, 0.0]), np.array([0.0, 0.0]), np.array([0.0, 0.0]))
    assert np.isnan(out).all()
    assert len(hearth.haversine(np.empty(0), np.empty(0), np.empty(0), np.empty(0))) == 0


@pytest.mark.parametrize(
    "arrays, message",
    [
        ((np.zeros(3, dtype=np.float32),) + (np.zeros(3),) * 3, "dtype float32"),
        ((np.zeros(3), np.zeros(4), np.zeros(3), np.zeros(3)), "different lengths"),
        ((np.zeros(6)[::2],) + (np.zeros(3),) * 3, "not contiguous"),
        ((np.zeros((3, 1)),) + (np.zeros(3),) * 3, "2-D"),
    ],
)
def test_bad_arrays_are_a_clear_value_error(arrays, message):
    with pytest.raises(ValueError, match=message):
        hearth.haversine(*arrays)


def test_inputs_are_read_in_place_not_copied():
    lat = np.zeros(4)
    before = lat.__array_interface__["data"][0]
    hearth.haversine(lat, lat, lat, lat)
    assert lat.__array_interface__["data"][0] == before and lat.flags.writeable


def test_snap_is_the_privacy_grid_and_bad_points_get_minus_one():
    cells = hearth.snap(np.array([52.52, 52.5201, np.nan]), np.array([13.405, 13.4051, 0.0]))
    assert cells.cell_id[0] == cells.cell_id[1] and cells.cell_id[2] == -1 and np.isnan(cells.centre_lat_deg[2])
    with pytest.raises(ValueError, match="cell_size_m"):
        hearth.Grid(0.5)


def test_the_projection_widens_accuracy_and_floors_time():
    grid = hearth.Grid(750)
    p = grid.project(np.array([299_999, 300_000, -1], dtype=np.int64), np.array([1.0, 1.0, 1.0]), np.array([2.0, 2.0, 2.0]), np.array([10.0, 800.0, np.nan]))
    assert list(p.slot_start_ms) == [0, 300_000, -300_000]
    assert list(p.accuracy_m) == [750.0, 800.0, 750.0]


def test_a_projection_s_refused_settings_are_named_by_the_library():
    # The grid keeps no message; the library says why when asked (ABI 1.6; the
    # minimum accuracy below).
    grid = hearth.Grid()
    assert len(grid.project([0], [52.5], [13.4], [5.0], slot_ms=1)) == 1
    with pytest.raises(ValueError, match=r"^min_accuracy_m 750\.0, slot_ms 0: the time slot must be positive, not 0 ms"):
        grid.project([0], [52.5], [13.4], [5.0], slot_ms=0)


def test_the_projection_floor_can_be_raised_never_lowered_or_unset():
    grid = hearth.Grid(750)
    one = lambda floor: grid.project(np.array([0], dtype=np.int64), np.array([1.0]), np.array([2.0]), np.array([5.0]), min_accuracy_m=floor)  # noqa: E731
    assert one(100.0).accuracy_m[0] == 750.0 and one(-1.0).accuracy_m[0] == 750.0
    assert one(800.0).accuracy_m[0] == 800.0
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match=f"^min_accuracy_m {bad}, slot_ms 300000: the minimum accuracy must be a finite number of metres, not {bad}"):
            one(bad)
    # A time at Int64's low end has a slot start (the lowest there is), no crash.
    p = grid.project(np.array([np.iinfo(np.int64).min], dtype=np.int64), np.array([1.0]), np.array([2.0]), np.array([5.0]))
    assert p.slot_start_ms[0] == (-(2**63) // 300_000 + 1) * 300_000


def fixes(times, lat=None, accuracy=None, user=None, activity=None):
    n = len(times)
    frame = {
        "time_ms": np.asarray(times, dtype=np.int64),
        "latitude_deg": np.asarray(lat if lat is not None else [52.5] * n, dtype=np.float64),
        "longitude_deg": np.full(n, 13.4),
        "horizontal_accuracy_m": np.asarray(accuracy if accuracy is not None else [10.0] * n, dtype=np.float64),
    }
    if user is not None:
        frame["user"] = np.asarray(user, dtype=np.uint32)
    if activity is not None:
        frame["activity"] = np.asarray(activity, dtype=np.uint8)
    return pd.DataFrame(frame)


def test_validation_on_both_sides_of_each_limit():
    now = 10 * 86_400_000
    times = [now + 300_000, now + 300_001, now - 7 * 86_400_000, now - 7 * 86_400_000 - 1, now, now]
    verdict = hearth.validate(fixes(times, accuracy=[10, 10, 10, 10, np.nan, -1]), now)
    assert list(verdict) == ["accepted", "inFuture", "accepted", "tooOld", "accuracyMissing", "accuracyMissing"]
    # The limits themselves: 0 is the least; a negative one is refused (HEARTH_ERROR_ARGUMENT), not judged by.
    assert list(hearth.validate(fixes([now, now + 1], accuracy=[10, 10]), now, max_future_ms=0)) == ["accepted", "inFuture"]
    assert list(hearth.validate(fixes([now, now - 1], accuracy=[10, 10]), now, max_age_ms=0)) == ["accepted", "tooOld"]
    # The library names the setting (ABI 1.6: hearth_validate has no handle to carry it).
    for limits, why in (({"max_future_ms": -1}, "max_future_ms is -1, below 0"), ({"max_age_ms": -1}, "max_age_ms is -1, below 0")):
        with pytest.raises(ValueError, match=f"^{why}"):
            hearth.validate(fixes([now], accuracy=[10]), now, **limits)


def test_a_refused_argument_of_validate_is_named_by_the_library():
    # hearth_validate has no handle for its reason; the package asks the library's check (ABI 1.6).
    now = 10 * 86_400_000
    with pytest.raises(ValueError, match=r"^fix 1: fixes\.activity 9 is not a known code"):
        hearth.validate(fixes([now, now], activity=[1, 9]), now)
    # The check itself: empty bytes for arguments the call takes, the reason for ones it refuses.
    from hearth._ffi import lib, take_bytes
    from hearth.geo import FixBatch

    batch = FixBatch(fixes([now], accuracy=[10]))
    assert take_bytes(lib.hearth_validate_check_arguments, batch.struct, 0, 0) == b""
    assert take_bytes(lib.hearth_privacy_check_settings, 750.0, 1) == b""
    with pytest.raises(ValueError, match="^max_age_ms is -3, below 0"):
        take_bytes(lib.hearth_validate_check_arguments, batch.struct, 0, -3)


def test_a_rejection_code_the_package_has_no_name_for_is_its_own_category(monkeypatch):
    # As a package written for ABI 1.4 sees a 1.5 library: a code past its table.
    import hearth.geo

    monkeypatch.setattr(hearth.geo, "REJECTION_NAMES", {0: "accepted", 1: "inFuture", 2: "tooOld", 3: "accuracyMissing"})
    now = 10 * 86_400_000
    batch = fixes([now, now + 300_001, now, now], accuracy=[10, 10, 10, 2e5])
    batch["speed_mps"] = [1e9, 1.0, 1.0, 1.0]
    verdict = hearth.validate(batch, now)
    assert verdict.tolist() == ["code 5", "inFuture", "accepted", "code 4"]
    assert list(verdict.cat.categories) == ["accepted", "inFuture", "tooOld", "accuracyMissing", "code 4", "code 5"]


def test_a_schema_error_refuses_the_batch_naming_the_fix():
    with pytest.raises(hearth.SchemaError, match="fix 1: latitude 90.5 is outside its range"):
        hearth.validate(fixes([1, 2], lat=[90.0, 90.5]), 1)


def test_dedupe_counts_duplicates_and_still_adoptions():
    d = hearth.Dedupe()
    assert list(d.insert(fixes([1, 2, 2], activity=[0, 0, 0]))) == ["inserted", "inserted", "duplicate"]
    assert list(d.insert(fixes([1, 2], activity=[1, 0]))) == ["stillAdopted", "duplicate"]
    assert len(d) == 2
    with pytest.raises(ValueError, match="activity 9 is not a known code"):
        d.insert(fixes([3], activity=[9]))


def test_an_output_laid_over_an_input_gets_the_right_rows_or_is_refused():
    # hearth.h: outputs may overlap inputs only for the distance calls. Their
    # kernels work in blocks, so an output one element on from an input gave
    # wrong rows (review19, through Node's synchronous calls); they now write
    # through their own buffer then, in place or shifted. The track and grid
    # calls, whose rows depend on their neighbours or have several outputs,
    # refuse an overlap and write nothing.
    from hearth._ffi import ffi, lib
    n = 64
    lat = np.linspace(52.3, 52.7, n)
    lon = np.full(n, 13.4)
    expected = hearth.haversine(lat, lon, lon, lon)
    def ptr(a):
        return ffi.cast("double *", ffi.from_buffer(a))
    for shift in (1, 0):  # one element on, and in place
        shared = np.zeros(n + 1)
        shared[:n] = lat
        assert lib.hearth_distances_m(n, ptr(shared[:n]), ptr(lon), ptr(lon), ptr(lon), ptr(shared[shift:shift + n])) == lib.HEARTH_OK
        assert np.array_equal(shared[shift:shift + n], expected)
        shared[:n] = lat
        assert lib.hearth_distances_from_m(52.5, 13.4, n, ptr(shared[:n]), ptr(lon), ptr(shared[shift:shift + n])) == lib.HEARTH_OK
        assert np.array_equal(shared[shift:shift + n], hearth.distances_from(52.5, 13.4, lat, lon))
    steps = np.zeros(n)
    assert lib.hearth_track_distances_m(n, ptr(lat), ptr(lon), ptr(steps), ptr(steps)) == lib.HEARTH_ERROR_ARGUMENT
    grid = hearth.Grid(750)
    ids = np.zeros(n, np.int64)
    id_ptr = ffi.cast("int64_t *", ffi.from_buffer(ids))
    centre = np.zeros(n)
    # Two outputs over each other, and an output over an input.
    assert lib.hearth_grid_snap(grid._handle, n, ptr(lat), ptr(lon), id_ptr, ptr(centre), ptr(centre)) == lib.HEARTH_ERROR_ARGUMENT
    assert lib.hearth_grid_snap(grid._handle, n, ptr(lat), ptr(lon), id_ptr, ptr(centre), ptr(lon)) == lib.HEARTH_ERROR_ARGUMENT
    assert (lon == 13.4).all() and (ids == 0).all()
