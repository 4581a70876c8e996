"""The package's one naming convention (python/README.md, "Conventions"),
checked on every public frame, table, setting and signature; the typed,
documented surface (py.typed, hints, units and an example in every public
docstring); ImpactConfig against the library's own list of settings."""

import dataclasses
import inspect
import json
import re
import sys
import typing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import hearth
import hearth.parquet
from conftest import DRIVE, DROP
from hearth._ffi import ffi, lib, take_bytes, text

# The rule, written here on its own (not imported from the package, so the
# package cannot agree with itself by construction): snake_case words, the
# last one a unit suffix when the name holds a quantity. The suffixes are
# short and "per" is folded in: m/s is mps, rad/s radps, m/s² mps2.
UNIT_SUFFIXES = ("s", "ms", "m", "deg", "mps", "mps2", "radps", "hpa", "g", "kmh", "hz")
NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# Spellings of a unit the rule replaces (a name holding one breaks the rule).
OTHER_SPELLINGS = re.compile(r"(_m_s2?|_rad_s|_km_h|meters|seconds|hectopascals|radians|_sec$|_msec$|_kph$|_mph$)")
# A name that says it is a quantity of one of these kinds must end in its suffix.
QUANTITY_WORDS = {
    "speed": ("mps", "kmh"), "accuracy": ("m",), "distance": ("m",), "path": ("m",), "displacement": ("m",),
    "latitude": ("deg",), "longitude": ("deg",), "lat": ("deg",), "lon": ("deg",), "heading": ("deg",),
    "altitude": ("m",), "pressure": ("hpa",), "radius": ("m",),
}
DATETIME = "datetime64[ns, UTC]"


def check_name(name: str, where: str) -> list[str]:
    problems = []
    if not NAME.match(name):
        problems.append(f"{where}: {name!r} is not snake_case")
    if OTHER_SPELLINGS.search(name):
        problems.append(f"{where}: {name!r} spells a unit another way than {UNIT_SUFFIXES}")
    words = name.split("_")
    # A name ending in a quantity (speed, heading, centre_lat) is missing its unit suffix.
    if words[-1] in QUANTITY_WORDS:
        problems.append(f"{where}: {name!r} holds a {words[-1]} but ends in no unit ({' or '.join('_' + s for s in QUANTITY_WORDS[words[-1]])})")
    return problems


def check_frame(frame, where: str) -> list[str]:
    problems = []
    columns = [frame.name] if isinstance(frame, pd.Series) else list(frame.columns)
    for name in columns:
        problems += check_name(str(name), where)
    if isinstance(frame, pd.DataFrame):
        for name in columns:
            kind = frame[name].dtype
            if pd.api.types.is_datetime64_any_dtype(kind) and str(kind) != DATETIME:
                problems.append(f"{where}: {name} is {kind}, not {DATETIME}")
            # An epoch-millisecond column has its datetime beside it, named without the suffix.
            if name.endswith("_ms") and pd.api.types.is_integer_dtype(kind) and name != "received_ms":
                twin = name[: -len("_ms")]
                if twin not in frame.columns or str(frame[twin].dtype) != DATETIME:
                    problems.append(f"{where}: {name} has no {DATETIME} column {twin!r} beside it")
    if isinstance(frame.index, pd.DatetimeIndex) and str(frame.index.dtype) != DATETIME:
        problems.append(f"{where}: index is {frame.index.dtype}, not {DATETIME}")
    return problems


def walk(history):
    """Every public frame the package hands out, by where it came from."""
    drop, drive = hearth.read_trace(DROP), hearth.read_trace(DRIVE)
    for name, frame in drive.items():
        if name != "fixes":  # the recording's fixes: the index is the datetime (checked below)
            yield f"read_trace[{name}]", frame
    yield "read_trace[fixes]", drive["fixes"].reset_index(drop=True).assign(time=drive["fixes"].index)
    fixes = history
    yield "snap", hearth.snap(fixes.latitude_deg.to_numpy(), fixes.longitude_deg.to_numpy())
    yield "Grid.project", hearth.Grid().project(fixes.time_ms, fixes.latitude_deg, fixes.longitude_deg, fixes.horizontal_accuracy_m)
    yield "validate", hearth.validate(fixes, int(fixes.time_ms.max()))
    yield "Dedupe.insert", hearth.Dedupe().insert(fixes)
    home = {"id": 1, "circle": 7, "name": "Home", "latitude_deg": 52.52, "longitude_deg": 13.405, "radius_m": 100.0}
    pipeline = hearth.Ingest([home], {42: [7]})
    yield "Ingest.ingest", pipeline.ingest(fixes, int(fixes.time_ms.max()) + 1000)
    yield "Ingest.trip_names", pipeline.trip_names()
    yield "Ingest.tick", pipeline.tick(int(fixes.time_ms.max()) + 3 * 3_600_000)
    yield "trips", hearth.trips(fixes, [home], {42: [7]})
    import hearth.distributed as hd

    replayed = hd.replay_in_process(fixes, [home], {42: [7]})
    for name in ("events", "schema_errors", "partitions"):
        yield f"distributed.replay_in_process.{name}", getattr(replayed, name)
    yield "detect", hearth.detect(drop)
    detector = hearth.Detector().feed(drop["accelerometer"]).finish()
    yield "Detector.verdicts", detector.verdicts()
    yield "Detector.conditions", detector.conditions()
    yield "Detector.counters", pd.DataFrame([detector.counters()])
    yield "ImpactConfig.settings", hearth.ImpactConfig.settings()
    result = hearth.sweep([DROP], {"jolt_g": [4, 5]}, seeds=1, hours=0.05)
    for name in ("table", "outcomes", "jolts"):
        yield f"SweepResult.{name}", getattr(result, name)


def history() -> pd.DataFrame:
    # At home, then walking north for half an hour: a trip and its named start.
    n = 70
    return pd.DataFrame({
        "time_ms": np.arange(n, dtype=np.int64) * 30_000 + 1_700_000_000_000,
        "latitude_deg": np.concatenate([np.full(10, 52.52), np.linspace(52.521, 52.56, n - 10)]),
        "longitude_deg": np.full(n, 13.405),
        "horizontal_accuracy_m": np.full(n, 10.0),
        "speed_mps": np.full(n, 1.5),
        "user": np.full(n, 42, dtype=np.uint32),
        "device": np.full(n, 1, dtype=np.uint32),
    })


def test_the_rule_catches_each_old_spelling():
    # The checks themselves: each spelling the package used before the rule fails it.
    for old in ("jolt_m_s2", "spin_rad_s", "moving_m_s", "joltMetersPerSecondSquared", "value.summary.pathMeters", "timeMilliseconds"):
        assert check_name(old, "old"), old
    assert check_frame(pd.DataFrame({"time_ms": [1]}), "no twin")
    assert check_frame(pd.DataFrame({"time_ms": [1], "time": pd.to_datetime([1], unit="ms", utc=True).astype("datetime64[us, UTC]")}), "us")
    assert check_frame(pd.DataFrame({"speed": [1.0]}), "unitless speed")
    for good in ("x_mps2", "spin_radps", "time_ms", "centre_lat_deg", "false_alarms_per_1000h", "start_place_distance_m"):
        assert check_name(good, "good") == [], good


def test_every_public_frame_follows_the_rule():
    problems, seen = [], []
    for where, frame in walk(history()):
        seen.append(where)
        problems += check_frame(frame, where)
    assert len(seen) >= 23 and not problems, "\n".join(problems)


def test_recordings_share_one_datetime_index_so_streams_merge():
    drive = hearth.read_trace(DRIVE)
    for name, frame in drive.items():
        assert str(frame.index.dtype) == DATETIME and frame.index.name == "time", name
    merged = pd.merge_asof(drive["accelerometer"], drive["fixes"][["speed_mps"]], left_index=True, right_index=True)
    assert merged.speed_mps.notna().sum() > 0.9 * len(merged)
    # Numeric times beside the datetimes: seconds on the recording's clock, ms since the epoch.
    origin = drive.info["timeOriginMs"]
    acc = drive["accelerometer"]
    assert np.allclose((acc.index - pd.Timestamp(origin, unit="ms", tz="UTC")).total_seconds(), acc.t_s, atol=1e-6)
    assert (drive["fixes"].index == pd.to_datetime(drive["fixes"].time_ms, unit="ms", utc=True)).all()


def test_the_parquet_layout_and_the_sweep_grid_follow_the_rule():
    problems = []
    for stream, columns in hearth.parquet.STREAMS.items():
        for name, _, _ in columns:
            problems += check_name(name, f"parquet {stream}")
    for key in sys.modules["hearth.sweep"]._GRID_KEYS:
        problems += check_name(key, "sweep grid")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("ms, shown", [
    (-9_223_372_036_854, "1677-09-21 00:12:43.146000+00:00"), (-9_223_372_036_855, "NaT"),
    (9_223_372_036_854, "2262-04-11 23:47:16.854000+00:00"), (9_223_372_036_855, "NaT"),
    (np.iinfo(np.int64).min, "NaT"), (np.iinfo(np.int64).max, "NaT"), (0, "1970-01-01 00:00:00+00:00"),
])
def test_a_time_beyond_the_datetime_s_range_is_nat_and_keeps_its_milliseconds(ms, shown):
    from hearth._names import with_datetimes

    frame = with_datetimes(pd.DataFrame({"time_ms": np.array([ms, 1_700_000_000_000], dtype=np.int64)}))
    assert str(frame.time[0]) == shown and str(frame.time.dtype) == DATETIME and frame.time_ms[0] == ms
    assert str(frame.time[1]) == "2023-11-14 22:13:20+00:00"  # the rest of the column as it is


def test_a_slot_at_int64_s_low_end_has_no_datetime_and_no_crash():
    fix = hearth.Grid().project(np.array([np.iinfo(np.int64).min, 0], dtype=np.int64), [1.0, 1.0], [2.0, 2.0], [5.0, 5.0])
    assert fix.slot_start.isna().tolist() == [True, False] and fix.slot_start_ms[0] == (-(2**63) // 300_000 + 1) * 300_000


def test_old_grid_keys_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="'spin_rad_s' is now 'spin_radps'"):
        old = hearth.spec(grid={"spin_rad_s": [3]}, seeds=1, hours=0)
    assert old == hearth.spec(grid={"spin_radps": [3]}, seeds=1, hours=0)


# MARK: ImpactConfig and the library's settings


def library_settings() -> dict:
    return json.loads(take_bytes(lib.hearth_configuration_json, ffi.NULL))


def test_impact_config_has_one_field_per_library_setting_with_its_default():
    fields = dataclasses.fields(hearth.ImpactConfig)
    settings = library_settings()
    assert sorted(f.metadata["setting"] for f in fields) == sorted(settings)
    assert len(fields) == len(settings) == 49
    config = hearth.ImpactConfig()
    for f in fields:
        assert getattr(config, f.name) == settings[f.metadata["setting"]], f.name
        assert f.metadata["unit"] and f.metadata["doc"], f.name
        assert f.type in ("float", "int"), f.name


def test_impact_config_fields_follow_the_rule_and_name_their_setting():
    # The field is the setting's name in the rule: camelCase split, the unit words as the suffix.
    words = {"MetersPerSecondSquared": "mps2", "RadiansPerSecond": "radps", "MetersPerSecond": "mps", "Hectopascals": "hpa",
             "Seconds": "s", "Hertz": "hz"}
    problems = []
    for f in dataclasses.fields(hearth.ImpactConfig):
        key = f.metadata["setting"]
        for word, suffix in words.items():
            if key.endswith(word):
                key = key[: -len(word)] + "_" + suffix
                break
        expected = re.sub(r"([A-Z])", r"_\1", key).lower()
        if f.name != expected:
            problems.append(f"{f.name} should be {expected}")
        problems += check_name(f.name, "ImpactConfig")
        unit = {"mps2": "m/s²", "radps": "rad/s", "mps": "m/s", "hpa": "hPa", "s": "s", "hz": "Hz"}.get(f.name.rsplit("_", 1)[1])
        if unit is not None and f.metadata["unit"] != unit:
            problems.append(f"{f.name}: unit {f.metadata['unit']}, its suffix says {unit}")
    assert not problems, "\n".join(problems)


def test_every_field_reaches_the_library_under_its_own_setting():
    # One field changed at a time: the library's file has exactly that key changed.
    base = library_settings()
    for f in dataclasses.fields(hearth.ImpactConfig):
        value = getattr(hearth.ImpactConfig(), f.name)
        step = 1 if f.type == "int" else 0.0625
        try:
            changed = dataclasses.replace(hearth.ImpactConfig(), **{f.name: value + step})
            written = json.loads(changed.to_json())
        except hearth.BadInputError:  # at the edge of its domain (a window against the deadline): the other way
            changed = dataclasses.replace(hearth.ImpactConfig(), **{f.name: value - step})
            written = json.loads(changed.to_json())
        differs = {k for k in base if written[k] != base[k]}
        assert differs == {f.metadata["setting"]}, f.name
        assert hearth.ImpactConfig.from_json(changed.to_json()) == changed, f.name


def test_a_configuration_file_keeps_the_library_s_keys():
    config = hearth.ImpactConfig.from_json('{"joltMetersPerSecondSquared": 50}')
    assert config.jolt_mps2 == 50.0 and '"joltMetersPerSecondSquared" : 50' in config.to_json()
    with pytest.raises(ValueError, match="unknown keys \\['jolt_mps2'\\]"):
        hearth.ImpactConfig.from_settings({"jolt_mps2": 50})
    assert isinstance(hearth.ImpactConfig().stay_stopped_minimum_fixes, int)


# MARK: the typed, documented surface


def public_names():
    """The package's public names, and hearth.parquet's (an optional module of its own)."""
    for name in hearth.__all__:
        yield name, getattr(hearth, name)
    for name, obj in vars(hearth.parquet).items():
        if not name.startswith("_") and getattr(obj, "__module__", None) == "hearth.parquet":
            yield f"parquet.{name}", obj


def public_callables():
    """Every public function and public method of a public class, by qualified name."""
    for name, obj in public_names():
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member_name, member in vars(obj).items():
                if member_name.startswith("_") and member_name != "__init__":
                    continue
                function = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                function = function.fget if isinstance(function, property) else function
                if inspect.isfunction(function):
                    yield f"{name}.{member_name}", function


def documentation(name: str, function) -> str:
    """What help() shows for it: a constructor's is its class's docstring (and its own, if any)."""
    doc = inspect.getdoc(function) or ""
    if name.endswith(".__init__"):
        owner = dict(public_names())[name.rsplit(".", 1)[0]]
        doc = (inspect.getdoc(owner) or "") + "\n" + (function.__doc__ or "")
    return doc


# Parameter names outside the rule on purpose: coordinates passed by position
# (degrees, as every docstring says), file paths, and a private handle.
PARAMETER_EXCEPTIONS = {"lat", "lon", "lat0", "lon0", "lat1", "lon1", "lat2", "lon2", "path", "_handle"}


def test_every_public_parameter_follows_the_rule():
    problems = []
    for name, function in public_callables():
        for parameter in inspect.signature(function).parameters:
            if parameter not in ("self", "cls") and parameter not in PARAMETER_EXCEPTIONS:
                problems += check_name(parameter, name)
    assert not problems, "\n".join(problems)


def test_the_package_says_it_is_typed():
    assert (Path(hearth.__file__).parent / "py.typed").is_file()


def test_every_public_callable_is_annotated():
    missing = []
    for name, function in public_callables():
        signature = inspect.signature(function)
        for parameter in signature.parameters.values():
            if parameter.name not in ("self", "cls") and parameter.annotation is inspect.Parameter.empty:
                missing.append(f"{name}({parameter.name})")
        if signature.return_annotation is inspect.Signature.empty and not name.endswith("__init__"):
            missing.append(f"{name} -> ?")
        typing.get_type_hints(function, vars(inspect.getmodule(function)))  # the hints resolve
    assert not missing, "unannotated: " + ", ".join(missing)


# A parameter whose name ends in a unit suffix is a quantity; so are these,
# whose unit the docstring must then name.
QUANTITY_PARAMETERS = {"lat", "lon", "lat1", "lon1", "lat2", "lon2", "lat0", "lon0", "accuracy_m", "time_ms", "received_ms", "now_ms",
                       "verdict_ms", "jolt_time_s", "before_s", "after_s", "grid", "hours"}
UNIT_WORDS = re.compile(r"(metres|meters|seconds|degrees|m/s²|m/s|rad/s|hPa|\bms\b|\bs\b|\bg\b|km/h|milliseconds|hours|Hz|\bm\b)")


def test_every_public_callable_documents_units_and_shows_an_example():
    problems = []
    for name, function in public_callables():
        doc = documentation(name, function)
        if ">>> " not in doc:
            problems.append(f"{name}: no example")
        quantities = [p for p in inspect.signature(function).parameters
                      if p in QUANTITY_PARAMETERS or p.rsplit("_", 1)[-1] in UNIT_SUFFIXES]
        if quantities and not UNIT_WORDS.search(doc):
            problems.append(f"{name}: takes {quantities} but its docstring names no unit")
    assert not problems, "\n".join(problems)


def test_help_shows_the_class_s_units_and_example():
    doc = inspect.getdoc(hearth.ImpactConfig)
    assert "_mps2 m/s²" in doc and ">>> " in doc
    for f in dataclasses.fields(hearth.ImpactConfig):
        assert f"{f.name} ({f.metadata['unit']}; {f.metadata['setting']}): {f.metadata['doc']}" in doc, f.name
